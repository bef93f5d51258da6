"""Thresholds: the exact ε at which tight constraints start to exist / a prior becomes regular.

ε* = inf{ε > 0 : the property holds for every ε' ≥ ε}, where the property is
"Φx = b has a solution x ≥ 0" with b = 1 (tight constraints, Prop. 7) or b = π
(regularity of π, Def. 4; Φ is symmetric so αΦ = π ⇔ Φα = π).

Routes (the one that ran is named in ``.method``):

``prop9``
    ball-size-symmetric space, b = 1 (or uniform π, Prop. 8): z = 1/Σ_r n_r e^{-εr} > 0
    for every ε, so ε* = 0 (``proofs/prop9_ball_symmetric.py``).
``kronecker``
    Φ = ⊗Φ_k and b = ⊗b_k: the property holds iff it holds for every factor
    (lemma in :mod:`exactdp.algebra.structure`), so ε* = max_k ε*_k; factors are solved by the
    routes below (identical factors once).
``exact``
    polynomial case, n ≤ ``max_exact_n``: z(s) as exact rational functions
    (:mod:`exactdp.algebra.symbolic`), exact real-root isolation of every numerator and the
    denominator on (0, 1), signs propagated exactly. Gives the whole ε-set, the
    threshold as an algebraic number s* (ε* = −q·ln s*), and a certificate that
    re-checks the identity Φ(s)N(s) = D(s)b and the absence of sign changes.
``certified``
    everything else: a float search (Levinson for Toeplitz Φ, Cholesky, or FFT + CG on
    large Euclidean grids; Illinois regula falsi) to *find* ε*, then a certified point
    that the property fails at ``eps_lower`` and a certified cover of [``eps_upper``, ∞):
    near t = 0 the perturbation lemma below, elsewhere finitely many ε-ranges, each
    proved for *every* ε of the range at once. When Φ(ε) is provably symmetric positive
    definite (shifted Cholesky nodes, or the lattice symbol bound on Euclidean grids) the
    ranges are order-3 Taylor pieces with O(n²) work each (:mod:`exactdp.threshold.spd_cover`,
    :mod:`exactdp.threshold.cover`; the certificate's ``verify()`` re-proves everything
    in exact integer arithmetic on dense metrics). Otherwise a mean-value (first-order)
    Krawczyk argument with rigorous rounding bounds covers the range (two O(n³) products
    per range; see the comment block above ``_mean_value_piece``). Range widths adapt to
    the measured error, so about twenty ranges reach from 10⁻⁹ above ε* to the lemma's
    region. Large Euclidean grids (n > 2500) never form the n×n matrix.

Perturbation lemma (t small). Write Φ = I + E with E ≥ 0 the off-diagonal part and
e = ‖E‖∞ (max row sum). If e < 1 then z = Φ⁻¹b = Σ_k (−E)^k b and
‖z − b‖∞ ≤ e‖b‖∞/(1 − e). Hence z > 0 as soon as e‖b‖∞/(1 − e) < min b, i.e.
e < min b / (min b + ‖b‖∞) (= 1/2 for b = 1). Every row sum of E is increasing in t, so
checking it at one t0 covers all of (0, t0].

Examples
--------
>>> from exactdp.spaces.metrics import line, sum_query
>>> r = epsilon_threshold(line(4))                 # geometric mechanism: every ε
>>> r.eps_lower, r.eps_upper, r.method
(Fraction(0, 1), Fraction(0, 1), 'exact')
>>> r = epsilon_threshold(sum_query(2, 2))
>>> r.exact.minimal_polynomial, r.eps_upper - r.eps_lower <= Fraction(1, 10**9)
((-1, 1, 1), True)
>>> r.certificate.verify()
True
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import flint
import numpy as np
from flint import arb, fmpq, fmpz_poly

from exactdp.algebra.algebraic import (
    AlgebraicNumber,
    count_roots_between,
    log_enclosure,
    poly_sign_at,
)
from exactdp.algebra.structure import KroneckerSplit, kronecker_split, solve_float
from exactdp.algebra.symbolic import (
    SYMBOLIC_MAX_N,
    RationalSolution,
    SignPattern,
    sign_pattern,
    solve_symbolic,
)
from exactdp.arithmetic.ball import arb_to_fraction_interval, workprec
from exactdp.arithmetic.rationals import to_fraction
from exactdp.errors import (
    InstanceTooLarge,
    InvalidArgument,
    InvalidPrior,
    InvalidTolerance,
    PrecisionLimitReached,
    PropertyNeverHolds,
)
from exactdp.spaces.metrics import FiniteMetric
from exactdp.threshold.spd_cover import _down, _up  # directed rounding, one place
from exactdp.threshold.spd_cover import _float_up as _fup

__all__ = [
    "ThresholdResult",
    "EpsilonInterval",
    "EpsilonSet",
    "ExactThresholdCertificate",
    "CoverCertificate",
    "Prop9Certificate",
    "KroneckerThresholdCertificate",
    "epsilon_threshold",
    "regular_epsilons",
    "tight_constraints_epsilons",
    "DEFAULT_TOL",
]

DEFAULT_TOL = Fraction(1, 10**9)
Progress = Callable[[str], None] | None


# =====================================================================================
# helpers
def _fq(x: Fraction) -> fmpq:
    return fmpq(x.numerator, x.denominator)


def _read_tol(tol: Any) -> Fraction:
    if isinstance(tol, float):
        if not math.isfinite(tol) or tol <= 0:
            raise InvalidTolerance(f"Got tol={tol!r}; tol must be a positive rational such as "
                                   "Fraction(1, 10**9).")
    try:
        q = to_fraction(tol, "tol")
    except Exception as exc:  # noqa: BLE001 - re-raised with a specific class
        raise InvalidTolerance(
            f"Got tol={tol!r}; tol must be a positive rational such as Fraction(1, 10**9) "
            "or '1e-9'."
        ) from exc
    if q <= 0:
        raise InvalidTolerance(f"Got tol={tol!r}; tol must be > 0 (e.g. Fraction(1, 10**9)).")
    return q


def _read_prior(metric: FiniteMetric, prior: Any) -> tuple[Fraction, ...] | None:
    if prior is None:
        return None
    from exactdp.regularity import validate_prior

    return validate_prior(metric, prior)


def _short_rational(x: Fraction, slack: Fraction, direction: int) -> Fraction:
    """A rational with a short denominator within `slack` of x, on the side `direction`."""
    k = max(1, (1 / slack).__ceil__().bit_length() + 1)
    scale = 2**k
    if direction < 0:
        return Fraction(math.floor(x * scale), scale)
    return Fraction(math.ceil(x * scale), scale)


def _s_ball_of_eps(eps: Fraction, q: int, prec: int = 128) -> tuple[Fraction, Fraction]:
    """Rational enclosure [lo, hi] of s = e^{-eps/q}."""
    with workprec(prec):
        return arb_to_fraction_interval((-arb(_fq(eps)) / q).exp())


def _property_name(rhs: tuple[Fraction, ...] | None) -> str:
    return "tight constraints exist" if rhs is None else "the prior is regular"


# =====================================================================================
# exact ε-sets
@dataclass(frozen=True)
class EpsilonInterval:
    """A piece of an ε-set, stored by its s-endpoints (s = e^{-ε/q}; ε = −q·ln s).

    ``s_lo`` None means s → 0 (ε → ∞); ``s_hi`` None means s → 1 (ε → 0).
    The ε-interval is [−q ln s_hi, −q ln s_lo] with the closedness of the s-ends swapped.
    """

    s_lo: AlgebraicNumber | None
    s_hi: AlgebraicNumber | None
    s_lo_closed: bool
    s_hi_closed: bool
    q: int

    def eps_lower_bounds(self, tol: Fraction = DEFAULT_TOL) -> tuple[Fraction, Fraction] | None:
        """Rational enclosure of the lower ε-end (None when it is 0)."""
        return None if self.s_hi is None else _eps_enclosure(self.s_hi, self.q, tol)

    def eps_upper_bounds(self, tol: Fraction = DEFAULT_TOL) -> tuple[Fraction, Fraction] | None:
        """Rational enclosure of the upper ε-end (None when it is ∞)."""
        return None if self.s_lo is None else _eps_enclosure(self.s_lo, self.q, tol)

    def __str__(self) -> str:
        lo = "0" if self.s_hi is None else f"{float(_eps_mid(self.s_hi, self.q)):.12g}"
        hi = "∞" if self.s_lo is None else f"{float(_eps_mid(self.s_lo, self.q)):.12g}"
        left = "[" if (self.s_hi is not None and self.s_hi_closed) else "("
        right = "]" if (self.s_lo is not None and self.s_lo_closed) else ")"
        return f"ε ∈ {left}{lo}, {hi}{right}"

    def to_json(self) -> dict[str, Any]:
        return {
            "s_low": None if self.s_lo is None else self.s_lo.to_json(),
            "s_high": None if self.s_hi is None else self.s_hi.to_json(),
            "s_low_closed": self.s_lo_closed,
            "s_high_closed": self.s_hi_closed,
            "eps_low": None if self.s_hi is None
            else [str(v) for v in _eps_enclosure(self.s_hi, self.q, DEFAULT_TOL)],
            "eps_high": None if self.s_lo is None
            else [str(v) for v in _eps_enclosure(self.s_lo, self.q, DEFAULT_TOL)],
            "q": self.q,
        }


def _eps_enclosure(s: AlgebraicNumber, q: int, tol: Fraction) -> tuple[Fraction, Fraction]:
    """Rational (a, b) with a ≤ −q ln s ≤ b and b − a ≤ tol."""
    a = s
    while True:
        lo, hi = a.isolating_interval
        if lo <= 0:
            a = a.refine(a.width / 4)
            continue
        prec = 128 + max(0, (1 / tol).__ceil__().bit_length())
        e_lo, e_hi = log_enclosure(lo, hi, Fraction(-q), prec=prec)
        if e_hi - e_lo <= tol:
            return e_lo, e_hi
        a = a.refine(max(a.width / 16, Fraction(1, 2**4000)))


def _eps_mid(s: AlgebraicNumber, q: int) -> Fraction:
    lo, hi = _eps_enclosure(s, q, Fraction(1, 10**15))
    return (lo + hi) / 2


@dataclass(frozen=True)
class EpsilonSet:
    """The exact set of ε > 0 where the property holds: a finite union of intervals.

    Attributes
    ----------
    intervals : tuple of EpsilonInterval
        In increasing ε.
    singular_points : tuple of AlgebraicNumber
        s-values in (0, 1) where z(s) has a pole (Φ(s) singular); their status is not
        decided and they are excluded from ``intervals``.
    monotone : bool
        True when the set is [ε*, ∞) or (ε*, ∞) (or every ε): existence is monotone.
    question : str
    method : str
    seconds : float
    """

    intervals: tuple[EpsilonInterval, ...]
    singular_points: tuple[AlgebraicNumber, ...]
    monotone: bool
    question: str
    method: str
    seconds: float
    q: int

    def __str__(self) -> str:
        if not self.intervals:
            return f"{self.question}: for no ε > 0"
        return f"{self.question}: " + " ∪ ".join(str(i) for i in self.intervals)

    def to_json(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "intervals": [i.to_json() for i in self.intervals],
            "singular_points_s": [a.to_json() for a in self.singular_points],
            "monotone": self.monotone,
            "method": self.method,
            "seconds": self.seconds,
        }


def _set_from_pattern(pat: SignPattern, q: int, prop: str, method: str,
                      seconds: float) -> EpsilonSet:
    """Turn the s-pattern into ε-intervals (increasing ε = decreasing s)."""
    # walk s from 0 to 1, collect holding runs in s
    runs: list[tuple[AlgebraicNumber | None, bool, AlgebraicNumber | None, bool]] = []
    cur_start: AlgebraicNumber | None = None
    cur_closed = False
    open_run = pat.gaps[0]
    singular: list[AlgebraicNumber] = []
    for k, bp in enumerate(pat.breakpoints):
        nxt = pat.gaps[k + 1]
        if bp.status == "singular":
            singular.append(bp.s)
        here = bp.status == "holds"
        if open_run:
            if here and nxt:
                continue
            runs.append((cur_start, cur_closed, bp.s, here))
            open_run = False
        if not open_run:
            if nxt:
                cur_start, cur_closed, open_run = bp.s, here, True
            elif here and not (runs and runs[-1][2] is bp.s):
                runs.append((bp.s, True, bp.s, True))  # isolated point
    if open_run:
        runs.append((cur_start, cur_closed, None, False))
    intervals = [EpsilonInterval(a, b, ac, bc, q) for a, ac, b, bc in reversed(runs)]
    monotone = len(intervals) <= 1 and (not intervals or intervals[0].s_lo is None)
    return EpsilonSet(tuple(intervals), tuple(singular), monotone, prop, method, seconds, q)


# =====================================================================================
# certificates
@dataclass(frozen=True)
class Prop9Certificate:
    """Ball-size symmetry ⇒ z = 1/Σ n_r e^{-εr} > 0 for every ε (Prop. 9)."""

    metric: FiniteMetric = field(repr=False)
    rhs: tuple[Fraction, ...] | None = field(repr=False)
    kind: str = "prop9"

    def verify(self) -> bool:
        """Recount the distance multiset of every row exactly; rhs must be constant."""
        idx = self.metric.index
        counts = np.stack([np.bincount(r, minlength=len(self.metric.values)) for r in idx])
        if not bool(np.all(counts == counts[0])):
            return False
        return self.rhs is None or len(set(self.rhs)) == 1 and self.rhs[0] > 0


def _odd_part(p: fmpz_poly) -> fmpz_poly:
    """Product of the squarefree factors of odd multiplicity (where p changes sign)."""
    _, fl = p.factor_squarefree()
    out = fmpz_poly([1])
    for g, e in fl:
        if int(e) % 2 == 1:
            out *= g
    return out


def _sqfree(p: fmpz_poly) -> fmpz_poly:
    _, fl = p.factor_squarefree()
    out = fmpz_poly([1])
    for g, _e in fl:
        out *= g
    return out


def _lowest_sign(p: fmpz_poly) -> int:
    for c in p.coeffs():
        if c != 0:
            return 1 if c > 0 else -1
    return 0


@dataclass(frozen=True)
class ExactThresholdCertificate:
    """Exact proof of ε* ∈ [eps_lower, eps_upper] from the rational solution z(s).

    * ``solution``: Φ(s)N(s) = D(s)b over Z[s] (re-checked);
    * holds on [eps_upper, ∞) ⇔ s ∈ (0, s_up] with s_up ≥ e^{-eps_upper/q} rational:
      D has no root in (0, s_up], no N_i changes sign there, and every z_i starts ≥ 0
      at s → 0+ (so z(s) ≥ 0 solves Φz = b);
    * fails at eps_lower (when ``fail_index`` is set): s_low = e^{-eps_lower/q} is
      transcendental (Lindemann), so Φ(s_low) is invertible (det Φ is a nonzero integer
      polynomial) and z(s_low) is the unique solution; on a rational interval containing
      s_low neither N_i nor D vanishes and z_i < 0 there.
    """

    solution: RationalSolution = field(repr=False)
    eps_lower: Fraction
    eps_upper: Fraction
    fail_index: int | None
    s_star: AlgebraicNumber | None
    kind: str = "exact"

    def verify(self) -> bool:
        """Re-check the identity, s*, and both sides (raising the precision of e^{-ε/q})."""
        sol = self.solution
        if not sol.verify():
            return False
        if self.s_star is not None and not self.s_star.verify():
            return False
        return any(self._check(prec) for prec in (128, 512, 2048, 8192))

    def _check(self, prec: int) -> bool:
        sol = self.solution
        q = sol.q
        D = sol.denominator
        # --- holds on (0, s_up] ---------------------------------------------------
        if self.eps_upper == 0:
            s_up = Fraction(1)
            closed = False
        else:
            _, s_up = _s_ball_of_eps(self.eps_upper, q, prec)
            closed = True
        zero = Fraction(0)
        if s_up <= 0 or s_up > 1:
            return False
        dsq = _sqfree(D)
        if dsq.degree() >= 1 and count_roots_between(dsq, zero, s_up) != 0:
            return False
        if closed and poly_sign_at(D, s_up) == 0:
            return False
        sd = _lowest_sign(D)
        seen: dict[tuple[int, ...], bool] = {}
        for p in sol.numerators:
            key = tuple(int(c) for c in p.coeffs())
            if key in seen:
                if not seen[key]:
                    return False
                continue
            ok = True
            if p.degree() >= 0:
                if _lowest_sign(p) * sd < 0:
                    ok = False
                odd = _odd_part(p)
                if ok and odd.degree() >= 1 and count_roots_between(odd, zero, s_up) != 0:
                    ok = False
            seen[key] = ok
            if not ok:
                return False
        # --- fails at eps_lower --------------------------------------------------
        if self.fail_index is None:
            return self.eps_lower == 0 and (self.eps_upper == 0 or self.s_star is None)
        if self.eps_lower <= 0:
            return False
        lo, hi = _s_ball_of_eps(self.eps_lower, q, prec)
        if not (0 < lo <= hi < 1):
            return False
        N = sol.numerators[self.fail_index]
        for p in (N, D):
            sq = _sqfree(p)
            if poly_sign_at(p, lo) == 0 or poly_sign_at(p, hi) == 0:
                return False
            if sq.degree() >= 1 and count_roots_between(sq, lo, hi) != 0:
                return False
        return poly_sign_at(N, lo) * poly_sign_at(D, lo) < 0


@dataclass(frozen=True)
class CoverCertificate:
    """Certified proof of ε* ∈ [eps_lower, eps_upper] by verified interval solves.

    * ``fail``: an engine certificate that the property fails at eps_lower;
    * ``t0``: perturbation lemma (module docstring) on (0, t0];
    * ``pieces``: ε-ranges [a, b] covering [eps_upper, −ln t0]; for each, the mean-value
      Krawczyk argument proves z(ε) > 0 for every ε in [a, b].

    ``verify()`` recomputes everything from the metric (fresh approximate inverses); it
    re-runs the same rounding analysis as the search, so it guards against stale or
    edited certificates rather than against a flaw in that analysis (the fail side is
    re-checked independently by the engine certificate's own ``verify``).
    """

    metric: FiniteMetric = field(repr=False)
    rhs: tuple[Fraction, ...] = field(repr=False)
    eps_lower: Fraction
    eps_upper: Fraction
    fail: Any = field(repr=False)
    t0: Fraction
    pieces: tuple[tuple[Fraction, Fraction], ...] = field(repr=False)
    kind: str = "certified-cover"

    def verify(self) -> bool:
        """Re-check the fail certificate, the lemma at t0, and every piece (fresh R each)."""
        from exactdp.threshold.cover import cover_frame_holds

        if not cover_frame_holds(self.metric, self.rhs, self.eps_lower, self.eps_upper,
                                 self.fail, self.t0, list(self.pieces)):
            return False
        R = None
        for a, b in self.pieces:
            ok, R = _mean_value_piece(self.metric, self.rhs, a, b, R)
            if not ok:
                ok, R = _mean_value_piece(self.metric, self.rhs, a, b, None)
            if not ok:
                return False
        return True


@dataclass(frozen=True)
class KroneckerThresholdCertificate:
    """Factor certificates plus the exact Kronecker split (lemma in exactdp.algebra.structure)."""

    metric: FiniteMetric = field(repr=False)
    rhs: tuple[Fraction, ...] | None = field(repr=False)
    factor_results: tuple[Any, ...] = field(repr=False)
    binding: int
    eps_lower: Fraction
    eps_upper: Fraction
    kind: str = "kronecker"

    def verify(self) -> bool:
        split = kronecker_split(self.metric, self.rhs)
        if split is None or len(split.factors) != len(self.factor_results):
            return False
        for (fm, frhs), res in zip(split.factors, self.factor_results):
            if res.metric_name != fm.name or tuple(res.rhs) != tuple(frhs):
                return False
            if not res.certificate.verify():
                return False
            if res.eps_upper > self.eps_upper:
                return False
        b = self.factor_results[self.binding]
        return b.eps_lower == self.eps_lower and self.eps_upper - self.eps_lower >= 0


# =====================================================================================
# results
@dataclass(frozen=True)
class ThresholdResult:
    """ε* enclosed by exact rationals, with a certificate for both sides.

    Attributes
    ----------
    eps_lower, eps_upper : Fraction
        eps_lower ≤ ε* ≤ eps_upper, eps_upper − eps_lower ≤ tol. The property fails at
        eps_lower and holds on [eps_upper, ∞). Both are 0 when it holds for every ε.
    certificate
        ``verify()`` re-checks both sides.
    exact : AlgebraicNumber or None
        s* = e^{-ε*/q} (ε* = −q·ln s*) when the exact route ran (t* when q = 1).
    q : int or None
    method : str
    seconds : float
    timings : tuple of (str, float)
    question : str
    eps_set : EpsilonSet or None
        The whole exact ε-set when the exact route ran.
    """

    metric_name: str
    rhs: tuple[Fraction, ...] | None = field(repr=False)
    eps_lower: Fraction
    eps_upper: Fraction
    certificate: Any = field(repr=False)
    exact: AlgebraicNumber | None
    q: int | None
    method: str
    seconds: float
    timings: tuple[tuple[str, float], ...] = field(repr=False)
    question: str = "tight constraints exist"
    eps_set: EpsilonSet | None = field(default=None, repr=False)

    @property
    def holds_everywhere(self) -> bool:
        return self.eps_upper == 0

    def __str__(self) -> str:
        if self.holds_everywhere:
            return f"{self.metric_name}: {self.question} for every ε > 0 ({self.method})"
        mid = float((self.eps_lower + self.eps_upper) / 2)
        txt = (f"{self.metric_name}: {self.question} for every ε ≥ ε*, "
               f"ε* ∈ [{float(self.eps_lower):.12f}, {float(self.eps_upper):.12f}] "
               f"(≈ {mid:.10f}; width {float(self.eps_upper - self.eps_lower):.2e}; "
               f"{self.method}, {self.seconds:.2f} s)")
        if self.exact is not None:
            art = "" if self.exact.degree == 1 else "the "
            txt += f"\n  s* = e^(-ε*/{self.q}) is {art}{self.exact}"
        return txt

    def to_json(self) -> dict[str, Any]:
        return {
            "metric": self.metric_name,
            "question": self.question,
            "eps_lower": str(self.eps_lower),
            "eps_upper": str(self.eps_upper),
            "exact_s": None if self.exact is None else self.exact.to_json(),
            "q": self.q,
            "method": self.method,
            "seconds": self.seconds,
            "timings": {k: v for k, v in self.timings},
            "eps_set": None if self.eps_set is None else self.eps_set.to_json(),
            "monotone": None if self.eps_set is None else self.eps_set.monotone,
        }


# =====================================================================================
# exact route
def _exact_route(metric: FiniteMetric, rhs: tuple[Fraction, ...] | None, tol: Fraction,
                 progress: Progress, timings: list[tuple[str, float]],
                 max_exact_n: int) -> tuple[ThresholdResult, EpsilonSet]:
    t0 = time.perf_counter()
    sol = solve_symbolic(metric, rhs, max_n=max_exact_n, progress=progress)
    timings.append(("symbolic z(s)", time.perf_counter() - t0))
    t1 = time.perf_counter()
    pat = sign_pattern(sol, progress=progress)
    timings.append(("root isolation + signs", time.perf_counter() - t1))
    q = sol.q
    prop = _property_name(rhs)
    eps_set = _set_from_pattern(pat, q, prop, "exact", time.perf_counter() - t0)
    if not pat.gaps[0]:
        sample = pat.gap_samples[0]
        i = pat.gap_witness[0]
        raise PropertyNeverHolds(
            f"On {metric.name}, {prop} for no large ε: z_{i}(s) < 0 on the whole first "
            f"interval of s = e^(-ε/{q}) (exactly, e.g. at s = {sample}: "
            f"z_{i} = {sol.value_at(sample)[i] if i is not None else '?'}); "
            "a prior with a zero entry is never regular (Prop. 1).",
            evidence=eps_set,
        )
    # first breakpoint where the property stops holding (on it or just after it)
    star = None
    for k, bp in enumerate(pat.breakpoints):
        if bp.status != "holds" or not pat.gaps[k + 1]:
            star = k
            break
    elapsed = time.perf_counter() - t0
    if star is None:
        cert = ExactThresholdCertificate(sol, Fraction(0), Fraction(0), None, None)
        res = ThresholdResult(metric.name, rhs, Fraction(0), Fraction(0), cert, None, q,
                              "exact", elapsed, tuple(timings), prop, eps_set)
        return res, eps_set
    bp = pat.breakpoints[star]
    if bp.status == "singular":
        raise PrecisionLimitReached(
            f"z(s) has a pole at s ≈ {float(bp.s):.12g} (Φ singular) before any sign change; "
            "the exact route cannot decide the property there. Use method='certified'."
        )
    if pat.gaps[star + 1]:
        raise PrecisionLimitReached(
            f"the property fails only at the isolated point s ≈ {float(bp.s):.12g}; no "
            "rational eps_lower can witness it. The exact ε-set is in .eps_set.",
        )
    fail_i = pat.gap_witness[star + 1]
    nxt_lo = (pat.breakpoints[star + 1].s.isolating_interval[0]
              if star + 1 < len(pat.breakpoints) else Fraction(1))
    s_star = bp.s
    inner = tol / 4
    while True:
        e_lo, e_hi = _eps_enclosure(s_star, q, inner)
        e_lo = _short_rational(e_lo, tol / 8, -1)
        e_hi = _short_rational(e_hi, tol / 8, +1)
        # s at eps_lower must stay below the next breakpoint
        _, s_at_lower = _s_ball_of_eps(e_lo, q)
        if s_at_lower < nxt_lo:
            break
        s_star = s_star.refine(s_star.width / 16)
        inner = inner / 4
    t2 = time.perf_counter()
    cert = ExactThresholdCertificate(sol, e_lo, e_hi, fail_i, s_star)
    timings.append(("threshold enclosure", time.perf_counter() - t2))
    res = ThresholdResult(metric.name, rhs, e_lo, e_hi, cert, s_star, q, "exact",
                          time.perf_counter() - t0, tuple(timings), prop, eps_set)
    return res, eps_set


# =====================================================================================
# certified route
_COUNT_ROWS: dict[int, tuple[FiniteMetric, np.ndarray]] = {}


def _distance_count_rows(metric: FiniteMetric) -> np.ndarray:
    """Distinct rows of the per-point distance counts (cached per metric object).

    Large planar grids (n > 2500) get one row that dominates every row entrywise (the
    count of each offset (±dx, ±dy) in the grid), without forming the n×n index.
    """
    key = id(metric)
    hit = _COUNT_ROWS.get(key)
    if hit is not None and hit[0] is metric:  # identity check: ids are reused after GC
        return hit[1]
    _COUNT_ROWS.clear()
    g = metric.grid
    if g is not None and metric.n > 2500:
        from exactdp.spaces.distances import Distance

        pos = {v: i for i, v in enumerate(metric.values)}
        row = np.zeros((1, len(metric.values)), dtype=np.int64)
        for dx in range(g.width):
            for dy in range(g.height):
                if g.norm == "euclidean":
                    d = Distance.sqrt_of(Fraction(dx * dx + dy * dy) * g.spacing**2)
                elif g.norm == "manhattan":
                    d = Distance.rational((dx + dy) * g.spacing)
                else:
                    d = Distance.rational(max(dx, dy) * g.spacing)
                row[0, pos[d]] += (2 if dx else 1) * (2 if dy else 1)
        _COUNT_ROWS[key] = (metric, row)
        return row
    idx = metric.index
    k = len(metric.values)
    n = metric.n
    codes = (np.arange(n, dtype=np.int64)[:, None] * k + idx).ravel()
    counts = np.bincount(codes, minlength=n * k).reshape(n, k)
    rows = np.unique(counts, axis=0)
    _COUNT_ROWS[key] = (metric, rows)
    return rows


def _off_diag_row_sums_bound(metric: FiniteMetric, t: Fraction, prec: int = 128) -> Fraction:
    """Rigorous upper bound of max_i Σ_{j≠i} t^{d(i,j)}.

    Upper bounds of t^d come from arb balls; the count-weighted sums are float products
    bounded with the F2 rounding model (nonnegative data).
    """
    rows = _distance_count_rows(metric).astype(np.float64)  # small integers: exact
    with workprec(prec):
        lt = arb(_fq(t)).log()
        ups = []
        for v in metric.values:
            if v.coef == 0:
                ups.append(0.0)
                continue
            _, hi = arb_to_fraction_interval((lt * v.ball()).exp())
            ups.append(_fup(hi))
    pw = np.array(ups, dtype=np.float64)
    bound = _Rig(len(ups)).nonneg(rows, pw)
    return Fraction(float(np.max(bound)))


def _lemma_holds(metric: FiniteMetric, rhs: tuple[Fraction, ...], t0: Fraction) -> bool:
    bmin, bmax = min(rhs), max(abs(v) for v in rhs)
    if bmin <= 0:
        return False
    e = _off_diag_row_sums_bound(metric, t0)
    return e < 1 and e * bmax < bmin * (1 - e)


def _lemma_t0(metric: FiniteMetric, rhs: tuple[Fraction, ...]) -> Fraction:
    """A dyadic t0 where the perturbation lemma holds (float-guided, then proved)."""
    rows = _distance_count_rows(metric).astype(np.float64)
    d = np.array([float(v) for v in metric.values])
    bmin, bmax = float(min(rhs)), float(max(abs(v) for v in rhs))
    lo, hi = 0.0, 1.0
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        e = float(np.max(rows @ np.where(d > 0, mid**d, 0.0)))
        if e < 1 and e * bmax < 0.98 * bmin * (1 - e):
            lo = mid
        else:
            hi = mid
    t0 = Fraction(math.floor(lo * 2**30), 2**30)
    for _ in range(60):
        if t0 > 0 and _lemma_holds(metric, rhs, t0):
            return t0
        t0 = t0 * Fraction(15, 16)
    raise PrecisionLimitReached("perturbation lemma: no t0 found where ‖E‖∞ is small enough")


# -------------------------------------------------------------------------------------
# mean-value (first-order Taylor) certification of a whole ε-range
#
# Rounding model (IEEE double, round to nearest; the same as exactdp.linalg.verified):
# F1: the exact result of one + − × ÷ lies in [pred(fl), succ(fl)] (np.nextafter);
# F2: for any summation order, |fl(P@Q) − PQ| ≤ γ_{k+2}|P||Q| + 2kη (η = 2^-1074),
#     so for P, Q ≥ 0: PQ ≤ (fl(PQ) + 2kη)/(1 − γ_{k+2}).
# Argument. On [a, b] with centre c and h = ε − c, |h| ≤ w/2, every entry e^{-εd} equals
# e^{-cd} − h·d·e^{-cd} + (h²/2)d²e^{-ξd} (ξ in [a, b]), so Φ(ε) = Φ0 + hΦ1 + h²Φ2 with
# 0 ≤ Φ2 ≤ P2 := (1/2)d²e^{-ad}. With y(h) = x + h·u (x ≈ Φ0⁻¹b, u ≈ −Φ0⁻¹Φ1x floats),
# the error e = z(ε) − y(h) satisfies Φ(ε)e = ρ(h) := r0 − h·r1 − h²(Φ1u + Φ2x) − h³Φ2u
# with r0 = b − Φ0x, r1 = Φ0u + Φ1x; Krawczyk with any R: e = Rρ + (I − RΦ(ε))e, so with
# G ≥ |I − RΦ0| + |h||R||Φ1| + h²|R|P2 and β = ‖G‖∞ < 1, ‖e‖ ≤ ‖|R||ρ|‖/(1 − β) =: δ and
# |e| ≤ |R||ρ| + G·1·δ. Hence z(ε) ≥ x − (w/2)|u| − |e| componentwise on the whole range.
# The first-order term h·u carries no |R|-inflation, so ranges can be wide.
_U53 = Fraction(1, 2**53)
_ETA = float(np.nextafter(0.0, 1.0))




class _Rig:
    """Rigorous upper bounds of nonnegative products and of signed-product errors (F2)."""

    def __init__(self, k: int) -> None:
        g = k * _U53 / (1 - k * _U53)
        g2 = (k + 2) * _U53 / (1 - (k + 2) * _U53)
        self.gamma = _fup(g2)
        self.inv_one_minus = _fup(1 / (1 - g2))
        self.tail = _fup(Fraction(2 * k) * Fraction(_ETA))
        _ = g

    def nonneg(self, P: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Float array ≥ P @ v exactly, for P, v ≥ 0 (v a vector or a stack of columns)."""
        return np.asarray(_up(_up(P @ v + self.tail) * self.inv_one_minus))

    def err(self, absP: np.ndarray, absv: np.ndarray) -> np.ndarray:
        """Float vector ≥ |fl(P @ v) − P v| (given |P|, |v|)."""
        return np.asarray(_up(_up(self.gamma * self.nonneg(absP, absv)) + self.tail))


def _enclose_values(vals: list[Any]) -> tuple[np.ndarray, np.ndarray]:
    from exactdp.linalg.verified import float_enclosure

    mids, rads = float_enclosure(vals)
    return np.asarray(mids, dtype=np.float64), np.asarray(rads, dtype=np.float64)


def _mean_value_piece(metric: FiniteMetric, rhs: tuple[Fraction, ...], a: Fraction,
                      b: Fraction, R: np.ndarray | None) -> tuple[bool, np.ndarray | None]:
    """Certify z(ε) > 0 for all ε in [a, b] by the mean-value argument above."""
    c = (a + b) / 2
    half_w = _fup((b - a) / 2)
    with workprec(128):
        ca, aa = arb(_fq(c)), arb(_fq(a))
        e0, e1, p2 = [], [], []
        for v in metric.values:
            d = v.ball()
            f = (-ca * d).exp()
            e0.append(f)
            e1.append(-d * f)
            p2.append(arb((d * d * (-aa * d).exp() / 2).upper()))
        m0, r0v = _enclose_values(e0)
        m1, r1v = _enclose_values(e1)
        pm, pr = _enclose_values(p2)
        bm, br = _enclose_values([arb(_fq(x)) for x in rhs])
    p2v = np.asarray(_up(pm + pr))
    idx = metric.index
    M0, E0 = m0[idx], r0v[idx]
    M1, E1 = m1[idx], r1v[idx]
    P2 = p2v[idx]
    n = metric.n
    rig = _Rig(n)
    ones = np.ones(n)
    with np.errstate(all="ignore"):
        if R is None:
            try:
                R = np.linalg.inv(M0)
            except np.linalg.LinAlgError:
                return False, None
        absR = np.abs(R)
        x = R @ bm
        x = x + R @ (bm - M0 @ x)
        u = -(R @ (M1 @ x))
        u = u - R @ (M0 @ u + M1 @ x)
        ax, au = np.abs(x), np.abs(u)
        absM0 = np.abs(M0)
        absM1 = np.asarray(_up(np.abs(M1) + E1))
        three = np.stack([ones, ax, au], axis=1)
        m0p = rig.nonneg(absM0, three)  # |M0|·[1, |x|, |u|]
        e0p = rig.nonneg(E0, three)
        m1p = rig.nonneg(absM1, three)
        p2p = rig.nonneg(P2, three)
        e1x = rig.nonneg(E1, ax)
        m1x = rig.nonneg(np.abs(M1), ax)
        # residual bounds (no R needed)
        w0 = M0 @ x
        r0b = _up(np.abs(bm - w0))
        r0b = _up(r0b + _up(_up(rig.gamma * m0p[:, 1]) + rig.tail))
        r0b = _up(r0b + e0p[:, 1])
        r0b = _up(r0b + br)
        s12 = M0 @ u + M1 @ x
        r1b = _up(np.abs(s12))
        r1b = _up(r1b + _up(_up(rig.gamma * m0p[:, 2]) + rig.tail))
        r1b = _up(r1b + _up(_up(rig.gamma * m1x) + rig.tail))
        r1b = _up(r1b + _up(e0p[:, 2] + e1x))
        sec = _up(m1p[:, 2] + p2p[:, 1])
        # one |R| product for everything
        m1rows = rig.nonneg(np.abs(M1), ones)
        e1rows = rig.nonneg(E1, ones)
        V = np.stack([m0p[:, 0], e0p[:, 0], m1p[:, 0], p2p[:, 0], r0b, r1b, sec, p2p[:, 2],
                      m1rows, e1rows], axis=1)
        RV = rig.nonneg(absR, V)
        # G1 ≥ |I − RΦ(ε)| 1
        C = R @ M0
        diag = np.diagonal(C).copy()
        offd = np.abs(C)
        np.fill_diagonal(offd, 0.0)
        g = _up(_up(np.abs(1.0 - diag)) + rig.nonneg(offd, ones))
        g = _up(g + _up(_up(rig.gamma * RV[:, 0]) + rig.tail))
        g = _up(g + _fup(n * Fraction(rig.tail)))
        g = _up(g + RV[:, 1])
        # |R Φ1| ≤ |fl(R M1)| + γ|R||M1| + tail + |R| E1: keeps the cancellation in R·Φ1
        Pm = R @ M1
        prow = _up(rig.nonneg(np.abs(Pm), ones) + _up(rig.gamma * RV[:, 8]))
        prow = _up(prow + _fup(n * Fraction(rig.tail)))
        prow = _up(prow + RV[:, 9])
        g = _up(g + _up(half_w * np.minimum(prow, RV[:, 2])))
        hw2 = _up(half_w * half_w)
        g = _up(g + _up(hw2 * RV[:, 3]))
        if not np.all(np.isfinite(g)):
            return False, R
        beta = Fraction(float(np.max(g)))
        if beta >= 1:
            return False, R
        Rr = RV[:, 4]
        Rr = _up(Rr + _up(half_w * RV[:, 5]))
        Rr = _up(Rr + _up(hw2 * RV[:, 6]))
        hw3 = _up(hw2 * half_w)
        Rr = _up(Rr + _up(hw3 * RV[:, 7]))
        if not np.all(np.isfinite(Rr)):
            return False, R
        delta = _fup(Fraction(float(np.max(Rr))) / (1 - beta))
        ebound = _up(Rr + _up(g * delta))
        low = _down(_down(x - _up(half_w * au)) - ebound)
        ok = bool(np.all(np.isfinite(low)) and np.all(low > 0))
    return ok, R


def _float_find(metric: FiniteMetric, rhs: tuple[Fraction, ...], progress: Progress,
                tol: float = 1e-9, prov: Any = None) -> float:
    """Float estimate of ε* (uncertified; only used to place the bracket).

    Scans t = e^{-ε} upward from 0.02 to the first failure, then brackets the sign
    change of min_i z_i by the Illinois variant of regula falsi (bisection safeguard).
    Solves: Levinson for Toeplitz Φ, else the provider's factorisation (Cholesky when
    Φ is SPD, CG on large Euclidean grids).
    """
    from exactdp.threshold.cover import float_zmin

    b = np.array([float(v) for v in rhs])
    zmin: Callable[[float], float]
    if metric.toeplitz or prov is None:
        def zmin(eps: float) -> float:
            return float(np.min(solve_float(metric, eps, b)))
    else:
        zmin = float_zmin(prov, metric, b)

    def g(t: float) -> float:
        return zmin(-math.log(t))

    # scan t = e^{-ε} upward from 0: the first failure brackets ε*
    ts = np.linspace(0.02, 0.98, 25)
    prev = None
    g_prev = 0.0
    for t in ts:
        gt = g(float(t))
        if gt < 0:
            break
        prev, g_prev = float(t), gt
    else:
        return 0.0
    if prev is None:
        # it fails already at t = 0.02 (ε ≈ 3.9): go down geometrically (large ε*)
        hi_t, g_hi = float(ts[0]), gt
        t_try = hi_t
        while True:
            t_try /= 4
            if t_try < 1e-200:
                raise PrecisionLimitReached(
                    "the float search finds the property failing for every t = e^-ε down to "
                    "1e-200 (ε ≈ 460); with b > 0 it holds for t small enough, so ε* is huge or "
                    "the prior has entries too small for double precision: use method='exact' "
                    "(polynomial case)")
            g_t = g(t_try)
            if g_t >= 0:
                prev, g_prev = t_try, g_t
                break
            hi_t, g_hi = t_try, g_t
        lo_t, g_lo = prev, g_prev
    else:
        lo_t, g_lo, hi_t, g_hi = prev, g_prev, float(t), gt  # holds at lo_t, fails at hi_t
    side = 0
    for it in range(100):
        if hi_t - lo_t < max(2e-14, tol * lo_t / 64):
            break
        if math.isfinite(g_hi) and g_lo - g_hi > 0 and it % 4 != 3:
            mid = hi_t - g_hi * (hi_t - lo_t) / (g_hi - g_lo)
            mid = min(max(mid, lo_t + 0.01 * (hi_t - lo_t)), hi_t - 0.01 * (hi_t - lo_t))
        else:
            mid = 0.5 * (lo_t + hi_t)
        gm = g(mid)
        if gm < 0:
            hi_t, g_hi = mid, gm
            if side == -1:
                g_lo /= 2
            side = -1
        else:
            lo_t, g_lo = mid, gm
            if side == 1:
                g_hi /= 2
            side = 1
    if progress:
        progress(f"float search: ε* ≈ {-math.log(0.5 * (lo_t + hi_t)):.12f}")
    return -math.log(0.5 * (lo_t + hi_t))


def _certified_route(metric: FiniteMetric, rhs: tuple[Fraction, ...] | None, tol: Fraction,
                     progress: Progress, timings: list[tuple[str, float]],
                     max_pieces: int = 4000) -> ThresholdResult:
    """The certified route with BLAS pinned to one thread.

    Its work is many O(n²) products and n ≈ 10³ factorisations, which run about twice as
    fast without thread synchronisation (measured in ``benchmarks/bench_threshold.py``);
    threadpoolctl restores the caller's setting afterwards.
    """
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        return _certified_route_body(metric, rhs, tol, progress, timings, max_pieces)


def _certified_route_body(metric: FiniteMetric, rhs: tuple[Fraction, ...] | None,
                          tol: Fraction, progress: Progress,
                          timings: list[tuple[str, float]],
                          max_pieces: int) -> ThresholdResult:
    from exactdp.threshold.cover import SpdCoverCertificate, spd_cover, spd_fail_point
    from exactdp.threshold.spd_cover import GridProvider, provider_for

    t0 = time.perf_counter()
    b = rhs if rhs is not None else tuple(Fraction(1) for _ in range(metric.n))
    prop = _property_name(rhs)
    if min(b) <= 0:
        i = min(range(len(b)), key=lambda k: b[k])
        raise PropertyNeverHolds(
            f"prior[{i}] = {b[i]}: a prior with a zero entry is regular at no ε (Prop. 1: "
            f"π_y/π_y' ≤ e^(ε d) fails for y' = {i}). Evidence: the zero entry.",
            evidence=i,
        )
    prov = provider_for(metric)
    grid_route = isinstance(prov, GridProvider)
    eps_f = _float_find(metric, b, progress, float(tol), prov)
    timings.append(("float search", time.perf_counter() - t0))
    if eps_f == 0.0:
        raise InstanceTooLarge(
            f"the float search found no failure of '{prop}' on t ∈ [0.02, 0.98]; proving "
            "'for every ε' needs the exact route (polynomial case) or Prop. 9."
        )
    ef = Fraction(eps_f)
    # fail point just below, cover from just above
    shift = Fraction(0)
    fail: Any = None
    e_lo = e_hi = Fraction(0)
    for _attempt in range(6):
        e_lo = _short_rational(ef - tol / 8 - shift, tol / 16, -1)
        e_hi = _short_rational(ef + tol / 2 - shift, tol / 16, +1)
        if e_lo <= 0:  # tol is wide compared with ε*: stay inside (0, ε*)
            e_lo = _short_rational(ef / 2, ef / 16, -1)
            e_hi = min(e_hi, e_lo + tol)
        t1 = time.perf_counter()
        fail = spd_fail_point(metric, b, e_lo, prov)
        failed_here = fail is not None
        if not failed_here and not grid_route:
            from exactdp.engine.core import solve_nonnegative
            from exactdp.spaces.levels import parse_level

            res = solve_nonnegative(metric, parse_level(eps=e_lo), list(b))
            failed_here = not res.holds
            if failed_here:
                fail = res.certificate
        timings.append(("fail point certificate", time.perf_counter() - t1))
        if failed_here:
            break
        fail = None
        shift += tol / 4  # the float estimate was a little high: move the window down
        if progress:
            progress("fail point not certified; moving the bracket down")
    if fail is None:
        raise PrecisionLimitReached(
            "could not certify a failing point just below the float estimate of ε*; "
            "the float search is unreliable here (ill-conditioned Φ?)"
        )
    # cover [e_hi, ∞)
    t2 = time.perf_counter()
    t_lemma = _lemma_t0(metric, b)
    _, e_end = log_enclosure(t_lemma, t_lemma, Fraction(-1))
    e_end = Fraction(math.ceil(e_end * 2**20), 2**20)
    out = spd_cover(metric, b, e_hi, e_end, tol, progress, prov)
    if out is not None:
        pieces, nodes = out
        timings.append(("certified cover", time.perf_counter() - t2))
        lam_src = "lattice symbol" if grid_route else f"{len(nodes)} Cholesky nodes"
        spd_cert = SpdCoverCertificate(metric, b, e_lo, e_hi, fail, t_lemma, nodes, pieces)
        return ThresholdResult(metric.name, rhs, e_lo, e_hi, spd_cert, None, metric.q,
                               f"certified (float search, point check, {len(pieces)} Taylor "
                               f"ε-ranges with λ_min bounds from {lam_src}, perturbation lemma)",
                               time.perf_counter() - t0, tuple(timings), prop, None)
    if grid_route:
        raise PrecisionLimitReached(
            f"the SPD cover of [{float(e_hi)}, {float(e_end)}] did not close on {metric.name}"
        )
    if progress:
        progress("Φ not provably SPD on the range: mean-value Krawczyk cover")
    done = _krawczyk_cover(metric, b, e_hi, e_end, tol, progress, max_pieces)
    timings.append(("certified cover", time.perf_counter() - t2))
    cert = CoverCertificate(metric, b, e_lo, e_hi, fail, t_lemma, tuple(done))
    return ThresholdResult(metric.name, rhs, e_lo, e_hi, cert, None, metric.q,
                           f"certified (float search, engine point check, {len(done)} "
                           "mean-value verified ε-ranges, perturbation lemma)",
                           time.perf_counter() - t0, tuple(timings), prop, None)


def _krawczyk_cover(metric: FiniteMetric, b: tuple[Fraction, ...], e_hi: Fraction,
                    e_end: Fraction, tol: Fraction, progress: Progress,
                    max_pieces: int) -> list[tuple[Fraction, Fraction]]:
    """Mean-value Krawczyk pieces covering [e_hi, e_end] (any invertible Φ)."""
    # step-size control: pieces [a, a + w] from eps_upper up to the lemma's range;
    # w grows after a certified piece and shrinks after a failure (first retried
    # with a fresh approximate inverse when the cached one came from elsewhere)
    done: list[tuple[Fraction, Fraction]] = []
    R = None
    R_at = e_hi
    checks = 0
    failed_once = False
    a = e_hi
    w = 4 * tol
    while a < e_end:
        bb = min(e_end, a + w)
        checks += 1
        if checks > max_pieces:
            raise PrecisionLimitReached(
                f"cover of [{float(e_hi)}, ∞) needed more than {max_pieces} verified solves"
            )
        centre = (a + bb) / 2
        ok, R_new = _mean_value_piece(metric, b, a, bb, R)
        if not ok and R is not None and abs(centre - R_at) > (bb - a):
            checks += 1  # the cached inverse came from elsewhere: retry with a fresh one
            ok, R_new = _mean_value_piece(metric, b, a, bb, None)
            R_at = centre
        if R is None:
            R_at = centre
        R = R_new
        if ok:
            done.append((a, bb))
            a = bb
            w *= 8 if not failed_once else 2
            if progress and len(done) % 5 == 0:
                progress(f"cover: {len(done)} ranges certified, up to ε = {float(bb):.6f}")
        else:
            w /= 2 if failed_once else 4
            failed_once = True
            if w < tol / 2**20:
                raise PrecisionLimitReached(
                    f"could not certify the property on ε ∈ [{float(a)}, {float(a + w)}]: Φ(ε) "
                    "may be singular there (Φ is not positive definite on this range), or the "
                    "property may fail (non-monotone existence). Try the exact route if available."
                )
    return done


# =====================================================================================
# public API
_METHODS = ("auto", "exact", "certified")


def epsilon_threshold(
    metric: FiniteMetric,
    prior: Any = None,
    tol: Any = DEFAULT_TOL,
    *,
    method: str = "auto",
    max_exact_n: int = 160,
    eps_max: Any = None,
    progress: Progress = None,
) -> ThresholdResult:
    """The least ε above which the property holds for good, enclosed with a certificate.

    Parameters
    ----------
    metric : FiniteMetric
    prior : sequence or mapping, optional
        None: tight-constraints existence (b = 1). Otherwise the threshold of the prior's
        regularity (b = π).
    tol : positive rational
        Width of [eps_lower, eps_upper] (default 10⁻⁹).
    method : {"auto", "exact", "certified"}
        ``auto`` uses Prop. 9 / Kronecker structure first, then the exact route in the
        polynomial case with n ≤ ``max_exact_n``, else the certified route.
    max_exact_n : int
        Size limit of the exact route under ``auto``.
    eps_max : rational, optional
        Raise :class:`PropertyNeverHolds` when the property does not hold for good
        below ``eps_max`` (ε* > eps_max).
    progress : callable, optional
        Receives progress messages (the CLI prints them on stderr).

    Returns
    -------
    ThresholdResult

    Notes
    -----
    The perturbation lemma (near t = 0) and the Kronecker sign lemma are proved in
    ``proofs/threshold_lemmas.py``; Prop. 9 in ``proofs/prop9_ball_symmetric.py``.

    Raises
    ------
    InvalidTolerance, InvalidPrior, PropertyNeverHolds, InstanceTooLarge

    Examples
    --------
    >>> from exactdp.spaces.metrics import hamming
    >>> r = epsilon_threshold(hamming(4, 2), ["1/16"] * 16)
    >>> r.holds_everywhere, r.method
    (True, 'prop9')
    """
    t_start = time.perf_counter()
    tol_q = _read_tol(tol)
    if method not in _METHODS:
        raise InvalidArgument(f"Got method={method!r}; choose one of {_METHODS}.")
    rhs = _read_prior(metric, prior)
    res = _threshold(metric, rhs, tol_q, method, max_exact_n, progress)
    if eps_max is not None:
        em = to_fraction(eps_max, "eps_max")
        if res.eps_lower >= em:
            raise PropertyNeverHolds(
                f"On {metric.name}, {res.question} does not hold for good below "
                f"eps_max = {em}: ε* ≥ {res.eps_lower} (certified; see .evidence).",
                evidence=res,
            )
    if res.seconds == 0:
        import dataclasses

        res = dataclasses.replace(res, seconds=time.perf_counter() - t_start)
    return res


def _is_uniform(rhs: tuple[Fraction, ...] | None) -> bool:
    return rhs is None or len(set(rhs)) == 1


def _threshold(metric: FiniteMetric, rhs: tuple[Fraction, ...] | None, tol: Fraction,
               method: str, max_exact_n: int, progress: Progress) -> ThresholdResult:
    t0 = time.perf_counter()
    timings: list[tuple[str, float]] = []
    prop = _property_name(rhs)
    if rhs is not None and min(rhs) == 0:
        i = rhs.index(Fraction(0))
        raise PropertyNeverHolds(
            f"prior[{i}] = 0: a prior with a zero entry is regular at no ε > 0 (Prop. 1: "
            f"π_j/π_{i} ≤ e^(ε d) fails for every j with π_j > 0). Give every point a "
            "positive probability.",
            evidence={"zero_index": i},
        )
    if method == "auto" and _is_uniform(rhs) and metric.ball_size_symmetric:
        cert = Prop9Certificate(metric, rhs)
        return ThresholdResult(metric.name, rhs, Fraction(0), Fraction(0), cert, None, metric.q,
                               "prop9", time.perf_counter() - t0, (("prop9", 0.0),), prop)
    if method == "auto":
        split = kronecker_split(metric, rhs)
        if split is not None:
            return _kronecker_route(metric, rhs, split, tol, max_exact_n, progress, t0)
    if method == "exact" or (method == "auto" and metric.q is not None
                             and metric.n <= max_exact_n):
        limit = max(max_exact_n, metric.n) if method == "exact" else max_exact_n
        res, _ = _exact_route(metric, rhs, tol, progress, timings, limit)
        return res
    if method == "auto" and metric.q is not None and metric.n > max_exact_n and progress:
        progress(f"n = {metric.n} > max_exact_n = {max_exact_n}: certified route")
    return _certified_route(metric, rhs, tol, progress, timings)


def _kronecker_route(metric: FiniteMetric, rhs: tuple[Fraction, ...] | None,
                     split: KroneckerSplit, tol: Fraction, max_exact_n: int, progress: Progress,
                     t0: float) -> ThresholdResult:
    cache: dict[tuple[str, tuple[Fraction, ...]], ThresholdResult] = {}
    results = []
    for fm, frhs in split.factors:
        key = (fm.name, tuple(frhs))
        if key not in cache:
            sub_rhs = None if all(v == 1 for v in frhs) else tuple(frhs)
            r = _threshold(fm, sub_rhs, tol, "auto", max_exact_n, progress)
            # factor certificates check against the factor's own rhs
            cache[key] = ThresholdResult(
                fm.name, tuple(frhs), r.eps_lower, r.eps_upper, r.certificate, r.exact, r.q,
                r.method, r.seconds, r.timings, r.question, r.eps_set)
        results.append(cache[key])
    binding = max(range(len(results)), key=lambda k: results[k].eps_upper)
    br = results[binding]
    cert = KroneckerThresholdCertificate(metric, rhs, tuple(results), binding, br.eps_lower,
                                         br.eps_upper)
    methods = sorted({r.method.split(" ")[0] for r in results})
    return ThresholdResult(
        metric.name, rhs, br.eps_lower, br.eps_upper, cert, br.exact, br.q,
        f"kronecker({len(results)} factors: {', '.join(methods)})",
        time.perf_counter() - t0, (("kronecker factors", time.perf_counter() - t0),),
        _property_name(rhs), None,
    )


def regular_epsilons(metric: FiniteMetric, prior: Any, *, max_n: int = SYMBOLIC_MAX_N,
                     progress: Progress = None) -> EpsilonSet:
    """The exact set {ε > 0 : prior is ε·d0-regular} (polynomial case).

    α(s) = πΦ(s)⁻¹ is computed exactly as rational functions (Φ(s) is always
    invertible over Q(s), as Φ(0) = I), its sign changes on (0, 1) are isolated exactly,
    and the set is returned as a finite union of intervals with algebraic endpoints.

    The hand-derived family of ``proofs/threshold_discrete_prior.py``: on the discrete
    metric, p is regular iff t ≤ p_min/(1 − (k−1)p_min).

    >>> from exactdp.spaces.metrics import discrete
    >>> S = regular_epsilons(discrete(3), ["1/2", "1/4", "1/4"])
    >>> str(S), S.intervals[0].s_hi.minimal_polynomial    # t ≤ 1/2  ⇔  ε ≥ ln 2
    ('the prior is regular: ε ∈ [0.69314718056, ∞)', (-1, 2))
    """
    rhs = _read_prior(metric, prior)
    assert rhs is not None
    return _exact_set(metric, rhs, max_n, progress)


def tight_constraints_epsilons(metric: FiniteMetric, *, max_n: int = SYMBOLIC_MAX_N,
                               progress: Progress = None) -> EpsilonSet:
    """The exact set {ε > 0 : a tight-constraints mechanism exists} (polynomial case).

    For the sum query with u = v = 2 the set is [ln φ, ∞), φ the golden ratio
    (``proofs/threshold_sum_query_2_2.py``).

    >>> from exactdp.spaces.metrics import sum_query
    >>> S = tight_constraints_epsilons(sum_query(2, 2))
    >>> S.monotone, len(S.intervals)
    (True, 1)
    """
    return _exact_set(metric, None, max_n, progress)


def _exact_set(metric: FiniteMetric, rhs: tuple[Fraction, ...] | None, max_n: int,
               progress: Progress) -> EpsilonSet:
    if metric.q is None:
        raise InvalidArgument(
            f"{metric.name} has irrational distances: the exact ε-set needs the polynomial "
            "case. Use epsilon_threshold (certified) instead."
        )
    if rhs is not None and min(rhs) < 0:
        raise InvalidPrior("prior entries must be ≥ 0")
    t0 = time.perf_counter()
    sol = solve_symbolic(metric, rhs, max_n=max_n, progress=progress)
    pat = sign_pattern(sol, progress=progress)
    return _set_from_pattern(pat, sol.q, _property_name(rhs), "exact",
                             time.perf_counter() - t0)


# keep imports referenced
_ = (flint, Sequence)
