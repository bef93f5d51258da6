"""The structured exact route: ε* as an algebraic number for repeating Toeplitz metrics, any n.

For tight constraints (b = 1) on a symmetric Toeplitz Φ with a_{k+v} = s^c·a_k for every
k ≥ k0 (the sum query for every v and the line, k0 = 0; the band metric min(|i − j|, w),
c = 0, k0 = w; other eventually repeating symbols), :mod:`exactdp.algebra.toeplitz`
gives z_i = N_i/D exactly
for the persymmetric half through the banded reduction M = LΦLᵀ (seconds at n = 751,
where the generic exact route needs minutes). Then, with exact arithmetic only:

1. a rational t_f where some z_w(t_f) < 0 is found by exact sign evaluation on a grid
   and bisection (this only *finds*; nothing is trusted);
2. s* is the least odd-multiplicity root of N_w in (0, t_f): the irreducible factor g of
   N_w (flint factorisation) and an isolating interval (a, b);
3. every other numerator, with its powers of g removed, and D must have no root in
   (0, b] (Descartes' rule with bisection); if one has a smaller sign-change root, it
   becomes the witness and step 2 repeats.

:class:`StructuredThresholdCertificate` carries the half of z, the witness and s*; its
``verify()`` and JSON are the kernel's (:mod:`exactdp.kernel.threshold_structured`), which
re-checks Φ(s)N(s) = D(s)·1 as an exact polynomial identity and every root count.

Examples
--------
>>> from exactdp.spaces.metrics import sum_query
>>> res = structured_route(sum_query(4, 2), Fraction(1, 10**9))
>>> res.method, res.exact.minimal_polynomial
('structured-toeplitz(step 2)', (1, 1, -3, -1, 1))
>>> res.certificate.verify()
True
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np
from flint import fmpz_poly

from exactdp.algebra.algebraic import (
    AlgebraicNumber,
    irreducible_roots_between,
    lowest_sign,
    poly_sign_at,
)
from exactdp.algebra.structure import toeplitz_solve_float
from exactdp.algebra.symbolic import RationalSolution
from exactdp.algebra.toeplitz import ToeplitzSolution, solve_toeplitz_ones, toeplitz_step
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rationals import to_fmpq
from exactdp.engine.documents import write_structured
from exactdp.errors import REJECTED_ERRORS, InvalidArgument
from exactdp.kernel.jsonio import dumps, loads
from exactdp.kernel.threshold import ThresholdClaim, s_enclosure
from exactdp.kernel.threshold_structured import (
    STRUCTURED_KIND,
    check_structured,
    no_root_upto,
    read_structured,
    roots_01,
    scaled_poly,
)
from exactdp.kinds import CertificateKind, Verdict
from exactdp.progress import Progress, report
from exactdp.spaces.metrics import FiniteMetric
from exactdp.threshold.exact_certificate import ExactThresholdCertificate
from exactdp.threshold.results import ThresholdResult, eps_enclosure, property_name, short_rational

__all__ = ["StructuredThresholdCertificate", "structured_route", "structured_applies", "structured_everywhere"]

#: Grid of the exact sign scan that brackets the first failure (t = k / _GRID).
_GRID = 64
#: Bisection steps of the bracket.
_BISECT = 24
#: Isolating-interval widths tried for the root-free checks on (0, b].
_WIDTHS = tuple(Fraction(1, 2**k) for k in (5, 8, 12, 24, 48, 96))


def structured_applies(metric: FiniteMetric, rhs: Any) -> bool:
    """True when the structured route can run: b = 1 and an (eventually) repeating symmetric
    Toeplitz Φ."""
    return rhs is None and toeplitz_step(metric) is not None


def _desc(p: fmpz_poly) -> tuple[int, ...]:
    return tuple(int(c) for c in reversed(p.coeffs())) or (0,)


@dataclass(frozen=True)
class StructuredThresholdCertificate:
    """Exact proof that ε* = −q·ln s* ∈ [eps_lower, eps_upper] (module doc; kernel re-check).

    ``solution`` holds z_i = N_i/D for i < ⌈n/2⌉, ``witness`` the index that turns
    negative just after s*, ``s_star`` the algebraic number s*.
    """

    metric: FiniteMetric = field(repr=False)
    solution: ToeplitzSolution = field(repr=False)
    eps_lower: Fraction
    eps_upper: Fraction
    witness: int
    s_star: AlgebraicNumber
    kind: ClassVar[CertificateKind] = CertificateKind.STRUCTURED_THRESHOLD

    @property
    def verdict(self) -> Verdict:
        """``HOLDS``: the claim is proved exactly."""
        return Verdict.HOLDS

    @property
    def rhs(self) -> None:
        """b = 1 (tight constraints); None stands for all ones."""
        return None

    def threshold_claim(self) -> ThresholdClaim:
        """This certificate as the kernel's claim."""
        sol, a = self.solution, self.s_star
        if not isinstance(sol, ToeplitzSolution) or not isinstance(a, AlgebraicNumber):
            raise InvalidArgument("solution / s_star have the wrong type.")
        return ThresholdClaim(
            STRUCTURED_KIND, self.metric, tuple(Fraction(1) for _ in range(self.metric.n)),
            Enclosure(self.eps_lower, self.eps_upper),
            {"step": sol.step, "shift": sol.shift, "offset": sol.offset, "witness": self.witness,
             "numerators": tuple(_desc(p) for p in sol.numerators),
             "denominator": _desc(sol.denominator),
             "s_star": (sol.q, tuple(reversed(a.minimal_polynomial)),
                        Enclosure(*a.isolating_interval))})

    def verify(self) -> bool:
        """Re-prove every claim in the kernel; never raises (malformed: False)."""
        try:
            return check_structured(self.threshold_claim())
        except REJECTED_ERRORS:
            return False

    def to_json(self) -> dict[str, Any]:
        """The JSON document (:func:`exactdp.engine.documents.write_structured`)."""
        return write_structured(self.threshold_claim())

    @staticmethod
    def from_json(doc: Any) -> StructuredThresholdCertificate:
        """Rebuild from a document (text or parsed); only as good as its ``verify()``."""
        c = read_structured(loads(doc) if isinstance(doc, (str, bytes)) else doc)
        ev = c.evidence
        nums = [fmpz_poly(list(reversed(p))) for p in ev["numerators"]]
        sol = ToeplitzSolution(c.metric.n, ev["s_star"][0], ev["step"], ev["shift"], nums,
                               fmpz_poly(list(reversed(ev["denominator"]))), ev["offset"])
        star = AlgebraicNumber(tuple(reversed(ev["s_star"][1])),
                               (ev["s_star"][2].lo, ev["s_star"][2].hi))
        return StructuredThresholdCertificate(c.metric, sol, c.eps.lo, c.eps.hi, ev["witness"],
                                              star)

    def dumps(self) -> str:
        """:meth:`to_json` as canonical text."""
        return dumps(self.to_json())


def _failing(sol: ToeplitzSolution, t: Fraction) -> int | None:
    """An index i with z_i(t) < 0 (exact), or None."""
    tq = to_fmpq(t)
    dv = sol.denominator(tq)
    for i, p in enumerate(sol.numerators):
        if p(tq) * dv < 0:
            return i
    return None


def _least_odd_root(p: fmpz_poly, hi: Fraction) -> AlgebraicNumber | None:
    """The least root in (0, hi) of odd multiplicity of p ≠ 0 (exact), or None."""
    best: AlgebraicNumber | None = None
    for g, e in p.factor()[1]:
        if int(e) % 2 == 0 or g.degree() < 1:
            continue
        for r in irreducible_roots_between(g, Fraction(0), hi):
            if best is None or _less(r, best):
                best = r
    return best


def _less(x: AlgebraicNumber, y: AlgebraicNumber) -> bool:
    while True:
        (a, b), (c, d) = x.isolating_interval, y.isolating_interval
        if b < c or (b == c and not (x.is_rational and y.is_rational)):
            return True
        if d < a or (d == a and not (x.is_rational and y.is_rational)):
            return False
        if x.minimal_polynomial == y.minimal_polynomial:
            return False  # the same root (intervals of one polynomial overlap only then)
        x, y = x.refine(x.width / 4), y.refine(y.width / 4)


def _strip(p: fmpz_poly, g: fmpz_poly) -> tuple[int, fmpz_poly]:
    k = 0
    while p.degree() >= g.degree():
        quo, rem = divmod(p, g)
        if rem != 0:
            break
        p, k = quo, k + 1
    return k, p


def _widen(star: AlgebraicNumber, width: Fraction) -> AlgebraicNumber | None:
    """s* on (a, b) with b a short dyadic about ``width`` above s* (room for eps_lower), or
    None when g has another root in (0, b)."""
    s2 = star.refine(min(width / 4, star.width))
    a, hi = s2.isolating_interval
    k = (1 / width).__ceil__().bit_length() + 1
    b = Fraction(math.ceil((hi + width / 2) * 2**k), 2**k)
    g = star.poly
    if b >= 1 or roots_01(scaled_poly(g, b)) != 1 or poly_sign_at(g, b) == 0:
        return None
    return AlgebraicNumber(star.minimal_polynomial, (a, b))


def _float_guess(metric: FiniteMetric, sol: ToeplitzSolution) -> tuple[Fraction, int] | None:
    """A rational t_f with z_w(t_f) < 0 (checked exactly) near the first failure a float
    Levinson scan sees (the floats only choose where to look)."""
    ones = np.ones(metric.n)
    q = sol.q
    if q > 2**1000:
        return None  # −q·ln t is no float (tiny rational distances): _bracket decides

    def fails(t: float) -> bool:
        try:
            z = toeplitz_solve_float(metric, -q * math.log(t), ones)
        except (np.linalg.LinAlgError, ValueError, ZeroDivisionError, OverflowError):
            return False  # only a guess: the exact scan (_bracket) decides
        return bool(np.all(np.isfinite(z)) and np.min(z) < 0)

    prev = 0.0
    for k in range(1, _GRID):
        t = k / _GRID
        if fails(t):
            lo, hi = prev, t
            for _ in range(40):
                mid = (lo + hi) / 2
                lo, hi = (mid, hi) if not fails(mid) else (lo, mid)
            for pad in (1e-9, 1e-6, 1e-3):
                tf = Fraction(hi + pad).limit_denominator(2**40)
                if 0 < tf < 1:
                    w = _failing(sol, tf)
                    if w is not None:
                        return tf, w
            return None
        prev = t
    return None


def _bracket(sol: ToeplitzSolution) -> tuple[Fraction, int] | None:
    """A rational t_f with z_w(t_f) < 0 just above the first failure the grid sees."""
    prev = Fraction(0)
    for k in range(1, _GRID):
        t = Fraction(k, _GRID)
        if _failing(sol, t) is not None:
            lo, hi = prev, t
            for _ in range(_BISECT):
                mid = (lo + hi) / 2
                if _failing(sol, mid) is None:
                    lo = mid
                else:
                    hi = mid
            w = _failing(sol, hi)
            assert w is not None
            return hi, w
        prev = t
    return None


def _isolate(sol: ToeplitzSolution, t_f: Fraction, w: int
             ) -> tuple[AlgebraicNumber, int] | None:
    """s* (interval (a, b) with every root-free check passing on (0, b]) and the witness."""
    for _ in range(sol.n + 1):
        star = _least_odd_root(sol.numerators[w], t_f)
        if star is None:
            return None
        g = star.poly
        if not no_root_upto(sol.denominator, star.isolating_interval[1]):
            return None  # a pole of z (Φ singular) at or before s*: not this route
        bad: list[int] = []
        for width in _WIDTHS:
            s2 = _widen(star, width)
            if s2 is None:
                continue
            b = s2.isolating_interval[1]
            if not no_root_upto(sol.denominator, b):
                continue
            bad = [i for i, p in enumerate(sol.numerators)
                   if p != 0 and not no_root_upto(_strip(p, g)[1], b)]
            if not bad:
                return s2, w
        # a numerator with a root in (0, b] at the finest width: an earlier sign change?
        b = star.refine(_WIDTHS[-1]).isolating_interval[1]
        better = None
        for i in bad:
            r = _least_odd_root(_strip(sol.numerators[i], g)[1], b)
            if r is not None and _less(r, star) and (better is None or _less(r, better[0])):
                better = (r, i)
        if better is None:
            return None  # an even-multiplicity touch: the kernel's check does not cover it
        t_f, w = better[0].isolating_interval[1], better[1]
        if better[0].is_rational:
            return None
    return None


def _toeplitz_solution(metric: FiniteMetric, progress: Progress, stage: str) -> ToeplitzSolution | None:
    """The exact z(s) of a repeating Toeplitz metric (None when Φ is not one, or degenerate)."""
    st = toeplitz_step(metric)
    if st is None:
        return None
    report(progress, "threshold", f"structured Toeplitz route (step {st.step}): {stage}")
    return solve_toeplitz_ones(metric, st)


def structured_route(metric: FiniteMetric, tol: Fraction, progress: Progress = None,
                     timings: list[tuple[str, float]] | None = None) -> ThresholdResult | None:
    """ε* for tight constraints by the structured exact route, or None when it does not apply
    (no repeating Toeplitz structure, the property never fails, or a degenerate first
    change: a pole, a touch, an isolated point — the caller falls back)."""
    t0 = time.perf_counter()
    timings = [] if timings is None else timings
    sol = _toeplitz_solution(metric, progress, "exact z(s)")
    timings.append(("structured z(s)", time.perf_counter() - t0))
    if sol is None or any(p != 0 and lowest_sign(p) < 0 for p in sol.numerators):
        return None
    t1 = time.perf_counter()
    br = _float_guess(metric, sol) or _bracket(sol)
    if br is None:
        return None
    got = _isolate(sol, *br)
    timings.append(("s* + root-free checks", time.perf_counter() - t1))
    if got is None:
        return None
    star, w = got
    q = sol.q
    t2 = time.perf_counter()
    b = star.isolating_interval[1]
    inner, ref = tol / 4, star
    for _ in range(64):
        ref = ref.refine(min(ref.width, Fraction(1, 2**64)) / 4)
        e_lo, e_hi = eps_enclosure(ref, q, inner)
        e_lo = short_rational(e_lo, tol / 8, -1)
        e_hi = short_rational(e_hi, tol / 8, +1)
        cert = StructuredThresholdCertificate(metric, sol, e_lo, e_hi, w, star)
        if e_lo > 0 and _eps_fits(cert, b):
            break
        inner /= 4
    else:
        return None
    timings.append(("threshold enclosure", time.perf_counter() - t2))
    label = f"step {sol.step}" + (f", offset {sol.offset}" if sol.offset else "")
    return ThresholdResult(metric.name, None, e_lo, e_hi, cert, star, q,
                           f"structured-toeplitz({label})", time.perf_counter() - t0,
                           tuple(timings), property_name(None), None)


def _eps_fits(cert: StructuredThresholdCertificate, b: Fraction) -> bool:
    """e^{-eps_lower/q} ≤ b at 128 bits (what the kernel's ε check needs)."""
    return s_enclosure(cert.eps_lower, cert.solution.q, 128)[1] <= b


def structured_everywhere(metric: FiniteMetric, progress: Progress = None,
                          timings: list[tuple[str, float]] | None = None) -> ThresholdResult | None:
    """ε* = 0 for a repeating Toeplitz metric on which tight constraints hold at every ε (the
    line), or None when that is not proved.

    The structured exact z(s) = N_i/D (every N_i, by persymmetry) becomes the
    :class:`~exactdp.threshold.exact_certificate.ExactThresholdCertificate` of the generic exact
    route ("holds for every ε": D and every N_i keep their sign on (0, 1), z(0+) ≥ 0), and the
    kernel re-checks it — the identity Φ(s)N(s) = D(s)·1 included — before it is returned.

    >>> from exactdp.spaces.metrics import line
    >>> r = structured_everywhere(line(500))
    >>> r.holds_everywhere, r.method, r.certificate.verify()
    (True, 'structured-toeplitz (holds for every ε)', True)
    """
    t0 = time.perf_counter()
    timings = [] if timings is None else timings
    sol = _toeplitz_solution(metric, progress, "proving 'for every ε'")
    if sol is None:
        return None
    n = metric.n
    rs = RationalSolution(metric, tuple(sol.numerator(i) for i in range(n)), sol.denominator, sol.q,
                          (Fraction(1),) * n, method="structured Toeplitz (banded reduction, exact)")
    cert = ExactThresholdCertificate(rs, Fraction(0), Fraction(0), None, None)
    if not cert.verify():  # not proved (some z_i changes sign, or a malformed solution)
        return None
    timings.append(("structured z(s) + kernel check", time.perf_counter() - t0))
    res = ThresholdResult(metric.name, None, Fraction(0), Fraction(0), cert, None, sol.q,
                          "structured-toeplitz (holds for every ε)", time.perf_counter() - t0,
                          tuple(timings), property_name(None))
    return res
