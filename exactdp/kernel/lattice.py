"""The kernel's proof of a λ_min bound for Euclidean lattice metrics (any finite S ⊂ h·Z²).

Claim checked by :func:`euclidean_lambda_ok`: λ_min(Φ_S(ε)) ≥ λ for every ε ∈ [ε_lo, ε_hi]
and every finite set S of points of the lattice h·Z² with the Euclidean distance,
Φ_S(ε) = [e^{-ε|x_i - x_j|}] (every Euclidean grid, sub-grid and mask of that spacing).

Mathematics (``proofs/kernel_lattice_bound.py``; the symbol theorem, Poisson summation and
the ε-endpoint lemma are those of ``proofs/lattice_spectrum_bound.py``). With a = ε_lo·h,
b = ε_hi·h, λ_min(Φ_S(ε)) ≥ min_φ f_{εh}(2πφ), where for e > 0

    f_e(2πφ) = Σ_{k∈Z²} e^{-e|k|} e^{-2πik·φ} = 2π Σ_{m∈Z²} g_e(|φ + m|²) > 0,
    g_e(q) = e/(e² + 4π²q)^{3/2}  (decreasing and convex in q; unimodal in e).

f is 1-periodic, even in each coordinate and symmetric in (φ1, φ2): φ ranges over the
triangle 0 ≤ φ2 ≤ φ1 ≤ 1/2, so |φ|² ≤ 1/2. For all e ∈ [a, b] and φ in a box B:

* near images, m ∈ {-M..M}²: g_e(|φ + m|²) ≥ min(g_a, g_b)(q_m), q_m = max_B |φ + m|²
  (an exact rational);
* the ring M < |m|_∞, |m| ≤ R: the ring is symmetric under m → -m and g_e is convex, so
  g_e(|φ + m|²) + g_e(|φ - m|²) ≥ 2g_e(|m|² + |φ|²): the ring adds at least
  Σ min(g_a, g_b)(|m|² + 1/2), one number for every box;
* the images |m| > R: by the same pairing, and g_e(q) ≥ a/(c² + 4π²q)^{3/2} with c = b
  (c = a when 4π²R² ≥ 2b², proved in arb), comparing each term with the integral over its
  unit cell (|m| ≤ |x| + √2/2) they add at least, after the factor 2π,
  (a/S)(1 − √2π/(S + U)), U = 2π(R + √2), S = √(c² + 2π² + U²);
* diagonal dominance (for every φ): f_e ≥ 1 − Σ_{0<|k|≤6} e^{-a|k|}
  − 2π e^{-a(6−√2)}(1 + a(6 − √2/2))/a².

The check accepts at once if the diagonal-dominance bound is ≥ λ; otherwise it refines
dyadic boxes of [0, 1/2]² meeting the triangle, accepting a box as soon as the lower end
of its ball is ≥ λ and splitting it otherwise. A box still short at depth
:data:`MAX_DEPTH`, or more than :data:`MAX_BOXES` boxes, gives False. Every decision is
an arb comparison (no float anywhere). Measured: it proves λ up to ≈ 99.4 % of min f at
ε = 0.02, 0.1, 0.665 (99.2 % at 3; the search's bound is ≈ 96.7 %), in 20–40 ms per range.

>>> from fractions import Fraction as F
>>> euclidean_lambda_ok(F(665, 1000), F(665, 1000), F(1), F(27, 100))   # min f ≈ 0.27170
True
>>> euclidean_lambda_ok(F(665, 1000), F(665, 1000), F(1), F(272, 1000))
False
"""

from __future__ import annotations

from fractions import Fraction

from flint import arb

from exactdp.arithmetic.ball import arb_from_fraction, workprec
from exactdp.errors import InvalidArgument
from exactdp.kinds import proved_by

__all__ = ["euclidean_lambda_ok", "MAX_DEPTH", "MAX_BOXES"]

#: Deepest box refinement: boxes of side 2^-(MAX_DEPTH + 1) in φ.
MAX_DEPTH = 14
#: Most boxes bounded in one check (then False: never hang).
MAX_BOXES = 4_000
_DEN = 1 << (MAX_DEPTH + 1)  # box corners are integers / _DEN
_PREC = 96
_M = 3  # near images m ∈ {-_M.._M}²
_R = 24  # ring images _M < |m|_∞ with |m| ≤ _R
_NEAR = [(i, j) for i in range(-_M, _M + 1) for j in range(-_M, _M + 1)]
_RING = [i * i + j * j for i in range(-_R, _R + 1) for j in range(-_R, _R + 1)
         if max(abs(i), abs(j)) > _M and i * i + j * j <= _R * _R]


def _dominance(a: arb) -> arb:
    """Ball whose lower end is ≤ 1 − Σ_{k≠0} e^{-a|k|} (integral tail beyond |k| = 6)."""
    total = sum(((-a * arb(i * i + j * j).sqrt()).exp() for i in range(-6, 7)
                 for j in range(-6, 7) if 0 < i * i + j * j <= 36), arb(0))
    tail = (-a * (6 - arb(2).sqrt())).exp() * (1 + a * (6 - arb(2).sqrt() / 2)) / (a * a)
    return 1 - total - 2 * arb.pi() * tail


def _gmin(a: arb, b: arb | None, q4: arb) -> arb:
    """Lower end ≤ min(g_a, g_b) at 4π²q = q4 (b None: a = b)."""
    ga = a * (a * a + q4).rsqrt() ** 3
    return ga if b is None else ga.min(b * (b * b + q4).rsqrt() ** 3)


def _far(a: arb, b: arb | None) -> arb:
    """Ring and tail part of the bound (the same for every box), factor 2π included."""
    pi2 = 4 * arb.pi() ** 2
    ring = sum((_gmin(a, b, pi2 * (2 * k + 1) / 2) for k in _RING), arb(0))
    hi = a if b is None else b
    c2 = a * a if pi2 * _R * _R >= 2 * hi * hi else hi * hi
    u = 2 * arb.pi() * (_R + arb(2).sqrt())
    s = (c2 + pi2 / 2 + u * u).sqrt()
    return 2 * arb.pi() * ring + (a / s) * (1 - arb(2).sqrt() * arb.pi() / (s + u))


def _near(box: tuple[int, int, int, int], a: arb, b: arb | None) -> arb:
    """2π Σ_{near m} min(g_a, g_b)(max_B |φ + m|²) for the box (integers / _DEN)."""
    l1, h1, l2, h2 = box
    scale = 4 * arb.pi() ** 2 / (_DEN * _DEN)
    total = arb(0)
    for m1, m2 in _NEAR:
        u = max(abs(l1 + m1 * _DEN), abs(h1 + m1 * _DEN))
        v = max(abs(l2 + m2 * _DEN), abs(h2 + m2 * _DEN))
        total += _gmin(a, b, scale * (u * u + v * v))
    return 2 * arb.pi() * total


@proved_by("kernel_lattice_bound")
def euclidean_lambda_ok(eps_lo: Fraction, eps_hi: Fraction, spacing: Fraction, lam: Fraction) -> bool:
    """True only if λ_min(Φ_S(ε)) ≥ ``lam`` is proved for every ε ∈ [eps_lo, eps_hi] and
    every finite S ⊂ spacing·Z² (Euclidean distance); module docstring and
    ``proofs/kernel_lattice_bound.py``.

    False when the proof does not go through within :data:`MAX_DEPTH` and
    :data:`MAX_BOXES` (e.g. ``lam`` above the true minimum), and for eps_lo > eps_hi,
    spacing ≤ 0, eps_lo < 0, or eps_lo = 0 with lam > 0 (Φ_S(0) is the all-ones matrix).
    True for lam ≤ 0 when 0 ≤ eps_lo (Φ_S(ε) is positive semidefinite). Raises
    InvalidArgument for arguments that are not exact rationals.

    >>> F = Fraction
    >>> euclidean_lambda_ok(F(5), F(6), F(1), F(96, 100)), euclidean_lambda_ok(F(5), F(6), F(1), F(1))
    (True, False)
    """
    args: tuple[object, ...] = (eps_lo, eps_hi, spacing, lam)
    if not all(type(v) is int or (isinstance(v, Fraction) and type(v.numerator) is int
                                   and type(v.denominator) is int) for v in args):
        raise InvalidArgument(f"euclidean_lambda_ok: got {args!r}; pass exact rationals (Fraction or int).")
    if not (0 <= eps_lo <= eps_hi and spacing > 0):
        return False
    if lam <= 0 or eps_lo == 0:
        return lam <= 0
    with workprec(_PREC):
        a = arb_from_fraction(eps_lo * spacing)
        b = None if eps_lo == eps_hi else arb_from_fraction(eps_hi * spacing)
        target = arb_from_fraction(lam)
        if _dominance(a) >= target:
            return True
        target -= _far(a, b)  # what the near images must still prove
        half = _DEN // 2
        todo = [(0, half, 0, half, 0)]
        for _ in range(MAX_BOXES):
            if not todo:
                return True
            l1, h1, l2, h2, depth = todo.pop()
            if _near((l1, h1, l2, h2), a, b) >= target:
                continue
            if depth >= MAX_DEPTH:
                return False
            c1, c2 = (l1 + h1) // 2, (l2 + h2) // 2
            for k in ((l1, c1, l2, c2), (c1, h1, l2, c2), (l1, c1, c2, h2), (c1, h1, c2, h2)):
                if k[2] < k[1]:  # the box meets the triangle φ2 ≤ φ1
                    todo.append((*k, depth + 1))
        return not todo
