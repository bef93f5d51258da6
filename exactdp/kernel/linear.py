"""The kernel's checks of claims about one linear system Φx = b (tight constraints, regularity).

Φ = (e^{-ε·d(i, j)}) is re-derived here from the question (metric, level), never taken
from a certificate; b is the question's right-hand side. Each check re-proves the claim
from scratch with exact rationals (``flint.fmpq_mat``, ``nmod_mat``) or arb balls — no
float arithmetic, so nothing can underflow or be flushed — and returns True only when
every stated claim holds:

=================  ==========================================================================
kind               what is checked
=================  ==========================================================================
exact-solution     Φx = b exactly; "holds": x ≥ 0; "fails": some x_i < 0 and det Φ ≠ 0
farkas             Φy ≥ 0 and b·y < 0 exactly (Φ symmetric, so Φᵀy = Φy): no x ≥ 0
ball,              every stated interval [lo_i, hi_i] contains x_i, where x is the unique
verified-float     solution: a Krawczyk/Rump bound in balls around the stated midpoints
                   (:func:`residual_enclosure_arb`; β = ‖I − RΦ‖∞ < 1 proves Φ
                   nonsingular) at the stated precision, doubled up to
                   :data:`MAX_CHECK_PREC`; "holds": every lo_i ≥ 0; "fails": the
                   witness has hi_w < 0
symbolic           Φ(s)·N(s) = D(s)·b as a polynomial identity over Q[s] (s = e^{-ε/q}),
                   then the signs of N_i(s)/D(s) at the level (exact at rational s, else
                   balls); "fails" also needs Φ nonsingular at the level
kronecker          d((a_k), (b_k)) = Σ_k d_k(a_k, b_k) for every pair, b = ⊗ b_k with b_k ≥ 0
                   nonzero, every factor claim at this level checked recursively; "holds":
                   every factor holds; "fails": one fails and every Φ_k is nonsingular
=================  ==========================================================================

Examples
--------
>>> from exactdp.spaces.metrics import line
>>> from exactdp.spaces.levels import parse_level
>>> half = parse_level(t="1/2")
>>> q = Fraction
>>> check_linear(LinearClaim("exact-solution", line(2), half, (q(1), q(1)), True,
...                          {"x": (q(2, 3), q(2, 3))}))
True
>>> check_linear(LinearClaim("exact-solution", line(2), half, (q(1), q(1)), True,
...                          {"x": (q(2, 3), q(1, 3))}))
False
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import reduce
from typing import Any

import flint
import numpy as np

from exactdp.arithmetic.ball import arb_from_fraction, arb_to_fraction_interval, ball_sign, workprec
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rationals import fmpq_to_fraction, to_fmpq
from exactdp.errors import REJECTED_ERRORS
from exactdp.kernel.metricio import factor_labels_ok
from exactdp.spaces.levels import PrivacyLevel
from exactdp.spaces.metrics import FiniteMetric
from exactdp.spaces.metrics.claims import kronecker_claim_error

__all__ = ["LinearClaim", "LINEAR_KINDS", "MAX_CHECK_PREC", "MAX_STATED_PREC", "check_linear",
           "identity_holds", "nonsingular_exact", "residual_enclosure_arb"]

#: The kinds of claim this module checks (``CertificateKind`` values).
LINEAR_KINDS = ("exact-solution", "farkas", "ball", "verified-float", "symbolic", "kronecker")
#: A ball check doubles the stated precision up to this many bits before giving up.
MAX_CHECK_PREC = 4096
#: A stated precision above this is malformed (not attempted).
MAX_STATED_PREC = 1 << 16
#: Primes for the modular rank test (det Φ ≠ 0 mod p ⇒ det Φ ≠ 0).
_PRIMES = (4611686018427387847, 4611686018427387817, 4611686018427387787)


@dataclass(frozen=True)
class LinearClaim:
    """One claim "Φx = b has a solution x ≥ 0" (``holds``) or "has none" (not ``holds``).

    ``evidence`` holds exactly what the kind needs (module table): ``x`` or ``y`` (tuples
    of Fraction); ``enclosure`` (tuple of Enclosure), ``witness`` (int or None),
    ``precision`` (int); ``numerators`` / ``denominator`` (integer coefficient lists in
    descending order); ``factors`` (tuple of LinearClaim); optionally ``R`` (a float
    approximate inverse offered by the search: used only to speed the Krawczyk bound up,
    never trusted — any R gives a sound bound).
    """

    kind: str
    metric: FiniteMetric
    level: PrivacyLevel
    rhs: tuple[Fraction, ...]
    holds: bool
    evidence: Mapping[str, Any]


def check_linear(claim: LinearClaim) -> bool:
    """True when every part of ``claim`` is re-proved (module table); False otherwise.

    Never raises on malformed evidence: a value of the wrong type or size is "not proved".
    """
    try:
        n = claim.metric.n
        if (claim.kind not in LINEAR_KINDS or not isinstance(claim.holds, bool)
                or not isinstance(claim.level, PrivacyLevel) or _fractions(claim.rhs, n) is None):
            return False
        return bool(_CHECKS[claim.kind](claim))
    except REJECTED_ERRORS + (AssertionError, KeyError, IndexError):
        return False


# ------------------------------------------------------------------------------ Φ itself
def _s_exact(metric: FiniteMetric, level: PrivacyLevel) -> Fraction | None:
    """s = e^{-ε/q} when rational (so Φ = (s^k) is rational), else None."""
    q = metric.q
    return None if q is None else level.s_rational(q)


def _phi_exact(metric: FiniteMetric, s: Fraction) -> flint.fmpq_mat:
    powers = [to_fmpq(s) ** k for k in metric.exponents]
    return flint.fmpq_mat([[powers[k] for k in row] for row in metric.index.tolist()])


def _phi_arb(metric: FiniteMetric, level: PrivacyLevel) -> flint.arb_mat:
    """Φ in balls at the current precision: s^k in the polynomial case, else e^{-ε·d}."""
    if metric.q is not None:
        s = level.s_ball(metric.q)
        entries = [s ** k for k in metric.exponents]
    else:
        entries = [(-level.eps_ball() * d.ball()).exp() for d in metric.values]
    return flint.arb_mat([[entries[k] for k in row] for row in metric.index.tolist()])


def _times(metric: FiniteMetric, s: Fraction, x: Sequence[Fraction]) -> list[Fraction]:
    """Φx exactly."""
    return [fmpq_to_fraction(e) for e in (_phi_exact(metric, s) * flint.fmpq_mat([[to_fmpq(v)] for v in x])).entries()]


def nonsingular_exact(metric: FiniteMetric, s: Fraction) -> bool:
    """Exactly decide det Φ ≠ 0 at a rational s: full rank of (b^K·Φ mod p) for some prime p,
    else the exact rank over Q.

    >>> from exactdp.spaces.metrics import line
    >>> nonsingular_exact(line(4), Fraction(1, 3))
    True
    """
    a, b, n = s.numerator, s.denominator, metric.n
    ks = metric.exponents
    top = max(ks)
    rows = metric.index.tolist()
    for p in _PRIMES:  # b^K·Φ is an integer matrix: full rank mod p ⇒ det ≠ 0
        vals = [pow(a, k, p) * pow(b, top - k, p) % p for k in ks]
        if flint.nmod_mat([[vals[k] for k in row] for row in rows], p).rank() == n:
            return True
    return bool(_phi_exact(metric, s).rank() == n)


def _nonsingular(metric: FiniteMetric, level: PrivacyLevel, prec: int) -> bool:
    """det Φ ≠ 0, exactly at rational s, else by an arb solve (stated precision, doubled up to the cap)."""
    s, top = _s_exact(metric, level), max(MAX_CHECK_PREC, prec)  # a stated precision above the cap: tried once
    if s is not None:
        return nonsingular_exact(metric, s)
    while prec <= top:  # arb_mat.solve raises unless it proves Φ nonsingular
        with workprec(prec):
            try:
                _phi_arb(metric, level).solve(flint.arb_mat(metric.n, 1, [1] * metric.n))
                return True
            except ZeroDivisionError:
                prec *= 2
    return False


def _int_in(value: Any, lo: int, hi: int) -> int | None:
    """``value`` when it is an int (not a bool) with lo ≤ value ≤ hi, else None."""
    ok = isinstance(value, int) and not isinstance(value, bool) and lo <= value <= hi
    return value if ok else None


def _fractions(value: Any, n: int) -> tuple[Fraction, ...] | None:
    ok = isinstance(value, tuple) and len(value) == n and all(isinstance(v, Fraction) for v in value)
    return value if ok else None


# ------------------------------------------------------------------------------ the checks
def _check_exact_solution(c: LinearClaim) -> bool:
    x, s = _fractions(c.evidence["x"], c.metric.n), _s_exact(c.metric, c.level)
    if x is None or s is None or _times(c.metric, s, x) != list(c.rhs):
        return False
    if c.holds:
        return all(v >= 0 for v in x)
    return any(v < 0 for v in x) and nonsingular_exact(c.metric, s)


def _check_farkas(c: LinearClaim) -> bool:
    y, s = _fractions(c.evidence["y"], c.metric.n), _s_exact(c.metric, c.level)
    if c.holds or y is None or s is None:
        return False
    return (all(v >= 0 for v in _times(c.metric, s, y)) and sum((b * v for b, v in zip(c.rhs, y)), Fraction(0)) < 0)


def _check_enclosure(c: LinearClaim) -> bool:
    n = c.metric.n
    enc = c.evidence["enclosure"]
    prec = _int_in(c.evidence["precision"], 2, MAX_STATED_PREC)
    if (prec is None or not isinstance(enc, tuple) or len(enc) != n
            or not all(isinstance(e, Enclosure) and e.lo <= e.hi for e in enc)):
        return False
    if not _verdict_shown(c, [e.lo >= 0 for e in enc], [e.hi < 0 for e in enc]):
        return False
    hint = c.evidence.get("R")
    while prec <= max(MAX_CHECK_PREC, c.evidence["precision"]):
        balls = _krawczyk(c.metric, c.level, c.rhs, enc, prec, hint)
        if balls is not None and all(e.lo <= lo and hi <= e.hi  # every stated interval holds its ball
                                     for (lo, hi), e in zip(map(arb_to_fraction_interval, balls), enc)):
            return True
        prec *= 2
    return False


def _krawczyk(metric: FiniteMetric, level: PrivacyLevel, rhs: Sequence[Fraction],
              enc: Sequence[Enclosure], prec: int, hint: Any = None) -> list[Any] | None:
    """Balls proved to contain the unique solution (:func:`residual_enclosure_arb`), around
    the stored midpoints refined by two steps m ← mid(m + R(b − Φm)); R is the midpoint
    inverse of Φ taken exactly (any R is sound; a good one makes the bound tight). This
    does not call ``arb_mat.solve``, which the ball search uses."""
    n = metric.n
    rprec = max(2 * prec, prec + 64)
    with workprec(prec):
        phi = _phi_arb(metric, level)
        R = _approximate_inverse(phi, n, prec, hint)
        if R is None:
            return None
    with workprec(rprec):
        b = flint.arb_mat([[arb_from_fraction(v)] for v in rhs])
        mid = [flint.arb(arb_from_fraction((e.lo + e.hi) / 2).mid()) for e in enc]
        for _ in range(2):
            m = flint.arb_mat(n, 1, mid)
            y = m + R * (b - phi * m)
            if not all(y[i, 0].is_finite() for i in range(n)):
                return None
            mid = [flint.arb(y[i, 0].mid()) for i in range(n)]
    return residual_enclosure_arb(phi, b, R, mid, prec)


def _approximate_inverse(phi: flint.arb_mat, n: int, prec: int, hint: Any = None) -> flint.arb_mat | None:
    """Any matrix R ≈ Φ⁻¹, taken exactly (soundness never depends on R, only the bound's
    tightness): at ≤ 64 bits a float matrix — the search's own R when a certificate in memory
    offers one (``hint``, evidence that is never trusted), else the float inverse of Φ's
    midpoints; at higher precision, or when that fails, the arb inverse of the midpoint matrix."""
    mids = [flint.arb(e.mid()) for e in phi.entries()]
    if prec <= 64:
        ok = isinstance(hint, np.ndarray) and hint.shape == (n, n) and hint.dtype == np.float64
        inv = hint if ok else None
        with np.errstate(all="ignore"), contextlib.suppress(np.linalg.LinAlgError):
            inv = np.linalg.inv(np.array([float(v) for v in mids]).reshape(n, n)) if inv is None else inv
        if inv is not None and bool(np.all(np.isfinite(inv))):
            return flint.arb_mat(n, n, [flint.arb(float(v)) for v in inv.ravel()])
    try:
        return flint.arb_mat(n, n, [flint.arb(e.mid()) for e in flint.arb_mat(n, n, mids).inv().entries()])
    except ZeroDivisionError:
        return None


def _poly(coeffs: Any) -> flint.fmpz_poly | None:
    """An integer polynomial from its descending coefficient list (leading one nonzero)."""
    if (not isinstance(coeffs, tuple) or not coeffs or (coeffs[0] == 0 and len(coeffs) > 1)
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in coeffs)):
        return None
    return flint.fmpz_poly(list(reversed(coeffs)))


def _check_symbolic(c: LinearClaim) -> bool:
    m, n, ev = c.metric, c.metric.n, c.evidence
    nums = [_poly(p) for p in ev["numerators"]] if isinstance(ev["numerators"], tuple) else []
    den = _poly(ev["denominator"])
    prec = _int_in(ev["precision"], 2, MAX_STATED_PREC)
    if m.q is None or len(nums) != n or den is None or den.degree() < 0 or prec is None:
        return False
    if any(p is None for p in nums) or not identity_holds(m, nums, den, c.rhs):
        return False
    negative = _negative_at_level(nums, den, m.q, c.level, prec)
    return (negative is not None and _verdict_shown(c, [not v for v in negative], negative)
            and (c.holds or _nonsingular(m, c.level, prec)))


def _verdict_shown(c: LinearClaim, nonnegative: list[bool], negative: list[bool]) -> bool:
    """"holds": no witness and every x_i ≥ 0 proved; "fails": a witness w with x_w < 0 proved."""
    if c.holds:
        return c.evidence["witness"] is None and all(nonnegative)
    w = _int_in(c.evidence["witness"], 0, c.metric.n - 1)
    return w is not None and negative[w]


def identity_holds(metric: FiniteMetric, nums: Sequence[Any], den: Any, rhs: Sequence[Fraction]) -> bool:
    """Φ(s)N(s) = D(s)·b over Q[s], Φ(s) = (s^{q·d(i, j)}) from the metric's exact distances
    (row i is Σ_j s^{k_ij} N_j(s), summed per distinct exponent).

    >>> from exactdp.spaces.metrics import line
    >>> two = flint.fmpz_poly([1, 1])  # z = (1/(1+s), 1/(1+s)) on line(2)
    >>> identity_holds(line(2), [flint.fmpz_poly([1])] * 2, two, [Fraction(1)] * 2)
    True
    """
    ks = metric.exponents
    rows = metric.index.tolist()
    if len(nums) != metric.n or len(rhs) != metric.n:
        return False
    for i, row in enumerate(rows):
        by_k: dict[int, Any] = {}
        for j, k in enumerate(row):
            by_k[k] = by_k.get(k, 0) + nums[j]
        lhs = sum((flint.fmpq_poly(p) * flint.fmpq_poly([0] * ks[k] + [1])
                   for k, p in by_k.items()), flint.fmpq_poly(0))
        if lhs != flint.fmpq_poly(den) * to_fmpq(rhs[i]):
            return False
    return True


def _negative_at_level(nums: list[Any], den: Any, q: int, level: PrivacyLevel, prec: int) -> list[bool] | None:
    """N_i(s)/D(s) < 0 for every i (exact at rational s, else proved in balls; a zero
    numerator is not negative), or None if a sign is undecided."""
    s = level.s_rational(q)
    if s is not None:
        d = den(to_fmpq(s))
        if d == 0:
            return None
        return [p(to_fmpq(s)) * d < 0 for p in nums]  # sign(N/D) = sign(N·D)
    with workprec(prec):
        sb = level.s_ball(q)
        d = flint.arb_poly(den.coeffs())(sb)
        if not ball_sign(d).value:  # undecided, or an exact zero ball
            return None
        sgs = [ball_sign(flint.arb_poly(p.coeffs())(sb) * d).value for p in nums]
        if any(p.degree() >= 0 and not sg for p, sg in zip(nums, sgs)):
            return None
        return [sg == -1 for sg in sgs]


def _check_kronecker(c: LinearClaim) -> bool:
    factors = c.evidence["factors"]
    if (not isinstance(factors, tuple) or not factors or not all(isinstance(f, LinearClaim) for f in factors)
            or kronecker_claim_error(c.metric, tuple(f.metric for f in factors)) is not None
            or not factor_labels_ok(c.metric, [f.metric for f in factors])):
        return False
    product: list[Fraction] = [Fraction(1)]
    for f in factors:
        if f.level != c.level or any(v < 0 for v in f.rhs) or all(v == 0 for v in f.rhs):
            return False
        product = [a * b for a in product for b in f.rhs]  # row-major ⊗
    if product != list(c.rhs) or not all(check_linear(f) for f in factors):
        return False
    if c.holds:
        return all(f.holds for f in factors)
    # ⇒ direction of proofs/kronecker_split.py: needs every Φ_k nonsingular
    return (any(not f.holds for f in factors)
            and all(_nonsingular(f.metric, c.level, 64) for f in factors))


_CHECKS = {
    "exact-solution": _check_exact_solution,
    "farkas": _check_farkas,
    "ball": _check_enclosure,
    "verified-float": _check_enclosure,
    "symbolic": _check_symbolic,
    "kronecker": _check_kronecker,
}


def residual_enclosure_arb(
    A: flint.arb_mat,
    b: flint.arb_mat,
    R: flint.arb_mat,
    mid: list[flint.arb],
    prec: int,
) -> list[flint.arb] | None:
    """Balls proved to contain A⁻¹b for every A, b in the balls, or None (not proved).

    The Krawczyk/Rump argument F3 of :mod:`exactdp.linalg.verified` in ball arithmetic:
    with E = I − RA (R any matrix, taken exactly) and β = ‖E‖∞ < 1, A is nonsingular and
    for every point m̃ in the balls ``mid``, z = R(b − Am̃) gives
    |x − m̃| ≤ |z| + |E|·1·‖z‖∞/(1 − β) componentwise. ``R(b − A·mid)`` is evaluated at
    ``max(2 prec, prec + 64)`` bits (the residual suffers cancellation), ``RA`` at ``prec``.
    The answer is ``mid_i ± bound_i`` as balls; nothing is assumed about a box.

    >>> from flint import arb, arb_mat
    >>> A = arb_mat([[2, 1], [1, 3]])
    >>> R = arb_mat([[arb(3) / 5, -arb(1) / 5], [-arb(1) / 5, arb(2) / 5]])  # any R is sound
    >>> x = residual_enclosure_arb(A, arb_mat([[1], [arb(7) / 4]]), R, [arb(1) / 4, arb(2) / 5], 64)
    >>> bool(x[0].contains(arb(1) / 4)), bool(x[1].contains(arb(1) / 2)), bool(x[1].rad() < 0.2)
    (True, True, True)
    """
    n, one = A.nrows(), flint.arb(1)
    with flint.ctx.workprec(prec):
        E = (R * A).entries()  # row sums of |I − RA|, β their largest
        row_abs = [sum(((one - e).abs_upper() if i == j else e.abs_upper() for j, e in enumerate(E[i * n:i * n + n])),
                       flint.arb(0)) for i in range(n)]
        beta = reduce(flint.arb.max, row_abs)
        if not beta < 1:
            return None
    with flint.ctx.workprec(max(2 * prec, prec + 64)):
        m = flint.arb_mat(n, 1, list(mid))
        z = R * (b - A * m)
        z_abs = [z[i, 0].abs_upper() for i in range(n)]
        delta = reduce(flint.arb.max, z_abs) / (one - beta)
        out = [m[i, 0] + (z_abs[i] + row_abs[i] * delta) * flint.arb(0, 1) for i in range(n)]
    return out if all(v.is_finite() for v in out) else None
