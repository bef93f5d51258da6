"""The terms of the kernel's Euclidean lattice λ bound (exactdp.kernel.lattice), each held to
its documented closed form and to the true quantity it bounds.

A mutant of lattice.py that moves the bound by less than the proof's slack (≈ 0.6 % of min f)
cannot be seen through the verdict of :func:`euclidean_lambda_ok` (session 9: 81.5 %). Here
each internal term is computed independently and compared directly:

* **closed form**: the module docstring states each term (diagonal dominance with the integral
  tail beyond |k| = 6; g_e(q) = e/(e² + 4π²q)^{3/2}; near images m ∈ {−3..3}² at
  q_m = max_B |φ + m|²; the ring 3 < |m|_∞, |m| ≤ 24 at |m|² + 1/2; the tail (a/S)(1 − √2π/(S + U))
  with U = 2π(R + √2), S = √(c² + 2π² + U²), c = a when 4π²R² ≥ 2b² else b). Each is recomputed
  here in mpmath at 50 digits from exact rationals and must lie in the kernel's ball (relative
  1e-20: the kernel works at 96 bits);
* **sound and tight**: each term is a lower bound of the true quantity (sums of e^{-a|k|} and
  of g_e over Z², computed in mpmath / numpy far beyond the terms the kernel sums; the float
  partial sums have relative error < 1e-12, far below the margins) and within a stated factor
  of it, so a mutant that breaks or loosens a term fails.

The terms are module-level functions of exactdp.kernel.lattice read by attribute (they are the
proof's steps; the public verdict is tested in test_kernel_lattice.py and
test_kernel_mutants9_lattice.py).
"""

from __future__ import annotations

import itertools
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest

import exactdp.kernel.lattice as L
from exactdp.arithmetic.ball import arb_from_fraction, workprec
from exactdp.errors import InvalidArgument

DPS = 50
PREC = 96  # the kernel's working precision (lattice._PREC)
REL = mpmath.mpf(10) ** -20
#: Box corners of lattice._near are integers in units of 2^-(MAX_DEPTH + 1) = 2⁻¹⁵ (the
#: module's documented depth limit 14): the closed forms below use this unit, not the module's.
DEN = 2**15


def _mp(x) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(midpoint, radius) of an arb ball as exact mpmath numbers."""
    man, exp = x.mid().man_exp()
    rman, rexp = x.rad().mid().man_exp()
    return mpmath.ldexp(int(man), int(exp)), mpmath.ldexp(int(rman), int(rexp))


def _contains(ball, value: mpmath.mpf) -> bool:
    mid, rad = _mp(ball)
    return abs(mid - value) <= rad + REL * abs(value) and rad <= REL * abs(value) + mpmath.mpf(10) ** -25


def _g(e, q4):
    """g_e at 4π²q = q4."""
    return e / (e * e + q4) ** mpmath.mpf(1.5)


def _gmin(a, b, q4):
    return _g(a, q4) if b is None else min(_g(a, q4), _g(b, q4))


def _arbs(a: F, b: F | None):
    return arb_from_fraction(a), None if b is None else arb_from_fraction(b)


def _mpf(x: F | None):
    return None if x is None else mpmath.mpf(x.numerator) / x.denominator


# ----------------------------------------------------------------- diagonal dominance
def _dominance_closed_form(a):
    s2 = mpmath.sqrt(2)
    total = mpmath.fsum(mpmath.exp(-a * mpmath.sqrt(i * i + j * j))
                        for i in range(-6, 7) for j in range(-6, 7) if 0 < i * i + j * j <= 36)
    tail = mpmath.exp(-a * (6 - s2)) * (1 + a * (6 - s2 / 2)) / (a * a)
    return 1 - total - 2 * mpmath.pi * tail


def _dominance_true(a, radius=40):
    """1 − Σ_{k≠0} e^{-a|k|} (|k|_∞ ≤ radius; the rest is < 10⁻³⁰ for a ≥ 2)."""
    r = range(-radius, radius + 1)
    return 1 - mpmath.fsum(mpmath.exp(-a * mpmath.sqrt(i * i + j * j))
                           for i in r for j in r if i or j)


@pytest.mark.parametrize("a", [F(2), F(3), F(5), F(17, 4)])
def test_dominance_is_its_closed_form_below_the_true_sum_and_tight(a):
    with mpmath.workdps(DPS), workprec(PREC):
        got = L._dominance(arb_from_fraction(a))
        am = _mpf(a)
        assert _contains(got, _dominance_closed_form(am))
        true = _dominance_true(am)
        mid, rad = _mp(got)
        assert mid + rad <= true  # a lower bound of 1 − Σ e^{-a|k|}
        # the only slack is the integral tail beyond |k| = 6: < 0.5 % of Σ_{k≠0} e^{-a|k|}
        assert true - (mid - rad) <= (1 - true) / 200


# ----------------------------------------------------------------- g and min(g_a, g_b)
@pytest.mark.parametrize("a, b, q", [(F(1, 2), None, F(1, 8)), (F(5), F(6), F(1, 100)),
                                     (F(5), F(6), F(3)), (F(1, 10), F(7), F(1, 2)),
                                     (F(2), F(2), F(0))])
def test_gmin_is_the_smaller_of_g_a_and_g_b(a, b, q):
    """Small q and large e: g decreases in e (min at b); large q: min at a."""
    with mpmath.workdps(DPS), workprec(PREC):
        q4 = 4 * mpmath.pi ** 2 * _mpf(q)
        got = L._gmin(*_arbs(a, b), 4 * arb_from_fraction(q) * L.arb.pi() ** 2)
        assert _contains(got, _gmin(_mpf(a), _mpf(b), q4))


# ----------------------------------------------------------------- ring and tail
def _far_closed_form(a, b, M=3, R=24):
    pi2 = 4 * mpmath.pi ** 2
    ring = mpmath.fsum(_gmin(a, b, pi2 * (i * i + j * j + mpmath.mpf(1) / 2))
                       for i in range(-R, R + 1) for j in range(-R, R + 1)
                       if max(abs(i), abs(j)) > M and i * i + j * j <= R * R)
    hi = a if b is None else b
    c2 = a * a if pi2 * R * R >= 2 * hi * hi else hi * hi
    u = 2 * mpmath.pi * (R + mpmath.sqrt(2))
    s = mpmath.sqrt(c2 + pi2 / 2 + u * u)
    return 2 * mpmath.pi * ring + (a / s) * (1 - mpmath.sqrt(2) * mpmath.pi / (s + u))


def _far_true_partial(a: float, b: float | None, phi: tuple[float, float], N: int = 200) -> float:
    """2π Σ_{3 < |m|_∞ ≤ N} min(g_a, g_b)(|φ + m|²) in float: below the far images' sum for
    every e ∈ [a, b] (g_e is unimodal in e), and a lower estimate of the full sum, which adds
    ≈ a/(2πN) more (relative float error < 1e-12)."""
    m = np.arange(-N, N + 1, dtype=float)
    q4 = 4 * np.pi ** 2 * ((phi[0] + m[:, None]) ** 2 + (phi[1] + m[None, :]) ** 2)
    q4 = q4[np.maximum(np.abs(m)[:, None], np.abs(m)[None, :]) > 3]
    g = a / (a * a + q4) ** 1.5
    if b is not None:
        g = np.minimum(g, b / (b * b + q4) ** 1.5)
    return float(2 * np.pi * np.sum(g))


@pytest.mark.parametrize("a, b, sound", [(F(665, 1000), None, True), (F(66, 100), F(67, 100), True),
                                         (F(1, 2), F(200), True), (F(3), F(120), True), (F(1, 2), F(100), True),
                                         (F(50), F(60), False)])
def test_far_images_are_their_closed_form_and_a_tight_lower_bound(a, b, sound):
    """(1/2, 200) and (3, 120) switch the tail to c = ε_hi·h (4π²·24² < 2b²). Soundness is
    checked against the partial sum where it is below it with margin (at (50, 60) the partial
    sum misses ≈ 4 % of the full sum: there only the closed form and tightness are checked)."""
    with mpmath.workdps(DPS), workprec(PREC):
        got = L._far(*_arbs(a, b))
        assert _contains(got, _far_closed_form(_mpf(a), _mpf(b)))
        mid, rad = _mp(got)
    lo = float(mid - rad)
    part = min(_far_true_partial(float(a), None if b is None else float(b), phi)
               for phi in ((0.5, 0.5), (0.0, 0.0), (0.3, 0.1)))
    if sound:
        assert lo <= part  # below the far images at every φ tried, every e ∈ [a, b]
    assert lo >= 0.9 * part  # tight: within 10 % of the partial sum (itself ≥ 96 % of the full)


def test_far_tail_is_exactly_the_integral_bound():
    """The closed form pins the documented radii: near |m|_∞ ≤ 3, ring |m| ≤ 24 (c = a and c = b)."""
    for a, b in ((F(1), None), (F(2), F(150))):
        with mpmath.workdps(DPS), workprec(PREC):
            am, bm = _mpf(a), _mpf(b)
            got = L._far(*_arbs(a, b))
            assert _contains(got, _far_closed_form(am, bm))
            # a different ring radius or near radius gives a visibly different number
            assert not _contains(got, _far_closed_form(am, bm, R=25))
            assert not _contains(got, _far_closed_form(am, bm, M=2))


# ----------------------------------------------------------------- near images of a box
def _near_closed_form(box, a, b, den):
    l1, h1, l2, h2 = (F(v, den) for v in box)
    total = []
    for m1, m2 in itertools.product(range(-3, 4), repeat=2):
        u = max(abs(l1 + m1), abs(h1 + m1))
        v = max(abs(l2 + m2), abs(h2 + m2))
        total.append(_gmin(a, b, 4 * mpmath.pi ** 2 * _mpf(u * u + v * v)))
    return 2 * mpmath.pi * mpmath.fsum(total)


def _near_true(e, phi):
    return 2 * mpmath.pi * mpmath.fsum(
        _g(e, 4 * mpmath.pi ** 2 * ((phi[0] + m1) ** 2 + (phi[1] + m2) ** 2))
        for m1, m2 in itertools.product(range(-3, 4), repeat=2))


@pytest.mark.parametrize("box, a, b", [
    ((0, 1, 0, 1), F(665, 1000), None),          # whole triangle's box in units of 1/2
    ((1, 2, 0, 1), F(66, 100), F(67, 100)),      # quarter boxes at depth 1
    ((3, 4, 3, 4), F(5), F(6)),                   # at (1/2, 1/2)
    ((5, 7, 0, 3), F(1, 10), F(7)),
])
def test_near_images_are_their_closed_form_and_below_the_true_sum(box, a, b):
    scale = DEN // 8 if box[1] > 2 else DEN // 2  # integers in units of 1/8 or 1/2
    kbox = tuple(v * scale for v in box)
    with mpmath.workdps(DPS), workprec(PREC):
        got = L._near(kbox, *_arbs(a, b))
        am, bm = _mpf(a), _mpf(b)
        assert _contains(got, _near_closed_form(kbox, am, bm, DEN))
        mid, rad = _mp(got)
        den = DEN
        corners = [(F(kbox[i], den), F(kbox[j], den)) for i in (0, 1) for j in (2, 3)]
        es = [am] if bm is None else [am, bm, (am + bm) / 2]
        for e, (p1, p2) in itertools.product(es, corners):
            assert mid + rad <= _near_true(e, (_mpf(p1), _mpf(p2)))


def test_near_bound_is_tight_on_a_small_box():
    """On a box of side 2⁻¹⁵ at (1/2, 1/2) the bound is within 10⁻³ of the true sum there."""
    box = (DEN // 2 - 1, DEN // 2, DEN // 2 - 1, DEN // 2)
    with mpmath.workdps(DPS), workprec(PREC):
        got = L._near(box, arb_from_fraction(F(665, 1000)), None)
        mid, _ = _mp(got)
        true = _near_true(mpmath.mpf(665) / 1000, (mpmath.mpf(1) / 2, mpmath.mpf(1) / 2))
        assert true * (1 - mpmath.mpf(10) ** -3) <= mid <= true


# ----------------------------------------------------------------- the refinement's limits
def test_box_limit_gives_false_on_a_true_claim(monkeypatch):
    """Documented: more than MAX_BOXES boxes gives False (never a hang), also for a true λ.
    λ = 0.99·f(π, π) < min f needs many boxes; with a limit of 3 the proof cannot finish."""
    lam = F(2690, 10000)  # min f ≈ 0.27170 at e = 0.665 (module docstring)
    assert L.euclidean_lambda_ok(F(665, 1000), F(665, 1000), F(1), lam)
    monkeypatch.setattr(L, "MAX_BOXES", 3)
    assert not L.euclidean_lambda_ok(F(665, 1000), F(665, 1000), F(1), lam)


def test_depth_limit_gives_false_on_a_true_claim(monkeypatch):
    monkeypatch.setattr(L, "MAX_DEPTH", 1)
    assert not L.euclidean_lambda_ok(F(665, 1000), F(665, 1000), F(1), F(2690, 10000))
    # … and a λ the root box already proves needs no depth
    assert L.euclidean_lambda_ok(F(665, 1000), F(665, 1000), F(1), F(1, 100))


# ----------------------------------------------------------------- the documented arguments
def test_arguments_outside_the_claim_give_false_or_true_as_documented():
    ok = L.euclidean_lambda_ok
    one, lam = F(1), F(1, 10)
    assert ok(F(1), F(2), one, lam)                  # a provable claim, for contrast
    assert not ok(F(2), F(1), one, lam)              # eps_lo > eps_hi
    assert not ok(F(1), F(2), F(0), lam)             # spacing 0
    assert not ok(F(1), F(2), F(0), F(0))            # spacing 0 is refused even for λ = 0
    assert not ok(F(1), F(2), F(-1), lam)            # spacing < 0
    assert not ok(F(-1), F(2), one, F(-1))           # eps_lo < 0 (even with λ ≤ 0)
    assert not ok(F(0), F(2), one, lam)              # Φ_S(0) = all ones: λ_min = 0 < λ
    assert ok(F(0), F(2), one, F(0)) and ok(F(0), F(0), one, F(-1))
    assert ok(F(1), F(2), one, F(0)) and ok(F(1), F(2), one, F(-1, 3))  # Φ_S(ε) ⪰ 0
    assert ok(1, 2, 1, F(1, 10))                     # ints are exact rationals


@pytest.mark.parametrize("bad", [0.5, True, "1", None])
def test_arguments_that_are_not_exact_rationals_raise(bad):
    with pytest.raises(InvalidArgument, match="exact rationals"):
        L.euclidean_lambda_ok(bad, F(2), F(1), F(1, 10))
    with pytest.raises(InvalidArgument, match="exact rationals"):
        L.euclidean_lambda_ok(F(1), F(2), F(1), bad)
