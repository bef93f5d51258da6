"""One engine: does Φx = b have a solution x ≥ 0?

b = 1 asks whether a tight-constraints mechanism exists (Prop. 7); b = π asks whether
the prior π is regular (Def. 4; Φ is symmetric so αΦ = π ⇔ Φα = π). The question is
answered by a chain of *backends* behind one protocol; each returns a three-valued
verdict (holds / fails / undecided) and, when decided, a certificate. The decision
logic (reading the signs of the solution) is written once, in :func:`_read_signs`.

Backends, cheapest first (``method="auto"``):

``verified-float``
    numpy approximate inverse + rigorous rounding-error bounds (Krawczyk): certified,
    O(n³) BLAS, decides almost every instance in a fraction of a second at n ≈ 1000.
``ball``
    flint ``arb_mat.solve`` at 64, 128, 256, ... bits up to ``max_prec``. At a rational
    ε in the polynomial case t is transcendental (Lindemann), so no z_i(t) vanishes
    and raising the precision always settles every sign.
``kronecker`` (first, whenever it applies)
    Φ = ⊗Φ_k for ℓ1-sums of metrics (Hamming databases, Manhattan grids) and b = ⊗b_k
    (b = 1, or a product prior): each factor is decided on its own and the verdicts
    combine (the lemma in :mod:`exactdp.algebra.structure`).
``symbolic`` (on request)
    z(s) = N(s)/D(s) exactly over Q(s) (:mod:`exactdp.algebra.symbolic`: series mod p, Padé, CRT,
    verified identity), then its signs at the level: exact at rational s, balls otherwise.
``exact``
    flint ``fmpq_mat.solve`` when s = e^{-ε/q} is rational; when Φ is singular at that
    level, an exact rational LP (:mod:`exactdp.algebra.lp`) gives a nonnegative solution or an
    exact Farkas vector.

Small instances with rational s go straight to ``exact`` (it is fast there and yields the
exact solution).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import flint
import numpy as np

from exactdp.algebra.lp import solve_lp
from exactdp.algebra.phi import (
    entry_values_exact,
    exact_parameter,
    phi_ball,
    phi_enclosure,
    phi_exact,
    phi_float,
)
from exactdp.arithmetic.ball import MAX_PREC, arb_from_fraction, arb_to_fraction_interval, workprec
from exactdp.arithmetic.rationals import to_fraction
from exactdp.engine.certificates import (
    BallCertificate,
    Certificate,
    ExactSolution,
    FarkasCertificate,
    KroneckerCertificate,
    SymbolicCertificate,
    VerifiedFloatCertificate,
)
from exactdp.errors import InvalidArgument, PrecisionLimitReached
from exactdp.spaces.levels import PrivacyLevel
from exactdp.spaces.metrics import FiniteMetric

__all__ = ["Verdict", "EngineResult", "FloatEstimate", "solve_nonnegative", "float_solve", "METHODS"]

METHODS = ("auto", "exact", "symbolic", "ball", "verified-float", "float")

#: Below this size, rational levels go straight to the exact solver.
EXACT_FIRST_MAX_N = 80


class Verdict(enum.Enum):
    """Three-valued answer of one backend. UNDECIDED never reaches users."""

    HOLDS = "holds"
    FAILS = "fails"
    UNDECIDED = "undecided"


@dataclass(frozen=True)
class EngineResult:
    """Certified answer to "does Φx = b have a solution x ≥ 0?".

    Attributes
    ----------
    holds : bool
        Certified verdict.
    certificate : Certificate
        ``certificate.verify()`` re-checks the verdict independently.
    method : str
        Backend that decided ("exact", "exact-lp", "ball", "verified-float").
    precision : int or None
        Bits used by the ball backend (53 for verified float, None for exact).
    x_exact : tuple of Fraction or None
        The exact solution when the exact backend ran (for LP: a nonnegative solution).
    x_enclosure : tuple of (Fraction, Fraction) or None
        Rigorous componentwise enclosure when a certified backend ran.
    singular : bool
        True when Φ is singular at this level (exact backend only).
    """

    holds: bool
    certificate: Certificate = field(repr=False)
    method: str
    precision: int | None
    x_exact: tuple[Fraction, ...] | None = field(default=None, repr=False)
    x_enclosure: tuple[tuple[Fraction, Fraction], ...] | None = field(default=None, repr=False)
    singular: bool = False


@dataclass(frozen=True)
class FloatEstimate:
    """Uncertified float64 answer (``method="float"``). Never a proof.

    ``holds_estimate`` is what a plain float solve suggests; near a threshold or for
    ill-conditioned Φ it can be wrong.
    """

    holds_estimate: bool
    x_float: np.ndarray = field(repr=False)
    method: str = "float"
    certified: bool = False


def _read_signs(signs: Sequence[int | None]) -> tuple[Verdict, int | None]:
    """Decide from three-valued signs (+1, 0, -1, None=undecided) of the unique solution."""
    for i, s in enumerate(signs):
        if s is not None and s < 0:
            return Verdict.FAILS, i
    if all(s is not None for s in signs):
        return Verdict.HOLDS, None
    return Verdict.UNDECIDED, None


# -- backends ------------------------------------------------------------------
def _exact_backend(metric: FiniteMetric, level: PrivacyLevel, rhs: tuple[Fraction, ...]) -> (
    EngineResult
):
    phi = phi_exact(metric, level)
    b = flint.fmpq_mat([[flint.fmpq(v.numerator, v.denominator)] for v in rhs])
    try:
        sol = phi.solve(b)
    except ZeroDivisionError:
        return _exact_lp(metric, level, rhs)
    x = tuple(Fraction(int(e.p), int(e.q)) for e in sol.entries())
    verdict, _ = _read_signs([(v > 0) - (v < 0) for v in x])
    holds = verdict is Verdict.HOLDS
    cert = ExactSolution(metric, level, rhs, x, nonnegative=holds)
    return EngineResult(holds, cert, "exact", None, x_exact=x,
                        x_enclosure=tuple((v, v) for v in x))


def _exact_lp(metric: FiniteMetric, level: PrivacyLevel, rhs: tuple[Fraction, ...]) -> (
    EngineResult
):
    """Singular Φ: exact LP feasibility; a nonnegative solution or an exact Farkas vector."""
    vals = entry_values_exact(metric, level)
    A = [[vals[k] for k in row] for row in metric.index.tolist()]
    lp = solve_lp(A, rhs)
    if lp.feasible:
        assert lp.x is not None
        cert: Certificate = ExactSolution(metric, level, rhs, lp.x, nonnegative=True)
        return EngineResult(True, cert, "exact-lp", None, x_exact=lp.x, singular=True)
    assert lp.farkas is not None
    cert = FarkasCertificate(metric, level, rhs, lp.farkas)
    return EngineResult(False, cert, "exact-lp", None, singular=True)


def _ball_backend(metric: FiniteMetric, level: PrivacyLevel, rhs: tuple[Fraction, ...],
                  prec: int) -> EngineResult | None:
    with workprec(prec):
        phi = phi_ball(metric, level)
        b = flint.arb_mat([[arb_from_fraction(v)] for v in rhs])
        try:
            x = phi.solve(b)
        except ZeroDivisionError:
            return None
        entries = x.entries()
        signs: list[int | None] = [
            1 if e > 0 else (-1 if e < 0 else None) for e in entries
        ]
        verdict, witness = _read_signs(signs)
        if verdict is Verdict.UNDECIDED:
            return None
        enclosure = tuple(arb_to_fraction_interval(e) for e in entries)
    holds = verdict is Verdict.HOLDS
    cert = BallCertificate(metric, level, rhs, prec, holds, witness, enclosure)
    return EngineResult(holds, cert, "ball", prec, x_enclosure=enclosure)


def _verified_float_backend(metric: FiniteMetric, level: PrivacyLevel,
                            rhs: tuple[Fraction, ...]) -> EngineResult | None:
    from exactdp.linalg.verified import float_enclosure, verified_solve

    a_mid, a_rad = phi_enclosure(metric, level)
    with workprec(128):
        b_mid, b_rad = float_enclosure([arb_from_fraction(v) for v in rhs])
    try:
        R = np.linalg.inv(a_mid)
    except np.linalg.LinAlgError:
        return None
    enc = verified_solve(a_mid, a_rad, b_mid, b_rad, R=R)
    if enc is None:
        return None
    signs: list[int | None] = [
        1 if lo > 0 else (-1 if hi < 0 else None) for lo, hi in zip(enc.lo, enc.hi)
    ]
    verdict, witness = _read_signs(signs)
    if verdict is Verdict.UNDECIDED:
        return None
    holds = verdict is Verdict.HOLDS
    cert = VerifiedFloatCertificate(metric, level, rhs, holds, witness, R, enc)
    enclosure = tuple((Fraction(float(lo)), Fraction(float(hi))) for lo, hi in zip(enc.lo, enc.hi))
    return EngineResult(holds, cert, "verified-float", 53, x_enclosure=enclosure)


def _symbolic_backend(metric: FiniteMetric, level: PrivacyLevel, rhs: tuple[Fraction, ...],
                      start_prec: int, max_prec: int) -> EngineResult | None:
    """Exact z(s) over Q(s) (:mod:`exactdp.algebra.symbolic`), then its signs at this level.

    At rational s the values are exact (and certified by multiplying back); otherwise each
    N_i(s)/D(s) is evaluated in balls with rising precision.
    """
    from exactdp.algebra.symbolic import rational_function_signs, solve_symbolic

    sol = solve_symbolic(metric, rhs)
    s = exact_parameter(metric, level)
    if s is not None:
        if sol.denominator(flint.fmpq(s.numerator, s.denominator)) == 0:
            return _exact_lp(metric, level, rhs)  # Φ(s) singular here
        x = sol.value_at(s)
        holds = all(v >= 0 for v in x)
        cert: Certificate = ExactSolution(metric, level, rhs, x, nonnegative=holds)
        return EngineResult(holds, cert, "symbolic", None, x_exact=x,
                            x_enclosure=tuple((v, v) for v in x))
    prec = start_prec
    while prec <= max_prec:
        verdict, witness = _read_signs(rational_function_signs(sol, level, prec))
        if verdict is not Verdict.UNDECIDED:
            holds = verdict is Verdict.HOLDS
            cert = SymbolicCertificate(metric, level, sol, holds, witness, prec)
            return EngineResult(holds, cert, "symbolic", prec)
        prec *= 2
    return None


def _kronecker_backend(metric: FiniteMetric, level: PrivacyLevel, rhs: tuple[Fraction, ...],
                       method: str, max_prec: int) -> EngineResult | None:
    """Φ = ⊗Φ_k and b = ⊗b_k: decide each factor and combine.

    Justified by proofs/kronecker_split.py (Φ = ⊗Φ_k, x = ⊗x_k, and x ≥ 0 iff every x_k ≥ 0).
    """
    from exactdp.algebra.structure import kronecker_split

    split = kronecker_split(metric, None if all(v == 1 for v in rhs) else rhs)
    if split is None:
        return None
    parts = [solve_nonnegative(f, level, b, method=method, max_prec=max_prec)
             for f, b in split.factors]
    if any(p.singular for p in parts):
        return None  # the lemma needs invertible factors: let the dense route answer
    holds = all(p.holds for p in parts)
    cert = KroneckerCertificate(metric, rhs, tuple(b for _, b in split.factors),
                                tuple(p.certificate for p in parts), holds)
    x_exact = None
    if all(p.x_exact is not None for p in parts):
        x_exact = _kron_exact([p.x_exact for p in parts])  # type: ignore[misc]
    enclosure = None
    if all(p.x_enclosure is not None for p in parts):
        enclosure = _kron_enclosure([p.x_enclosure for p in parts])  # type: ignore[misc]
    names = "+".join(sorted({p.method for p in parts}))
    return EngineResult(holds, cert, f"kronecker[{names}]", max((p.precision or 0) for p in parts)
                        or None, x_exact=x_exact, x_enclosure=enclosure)


def _kron_exact(vectors: list[tuple[Fraction, ...]]) -> tuple[Fraction, ...]:
    out = [Fraction(1)]
    for vec in vectors:
        out = [a * b for a in out for b in vec]
    return tuple(out)


def _kron_enclosure(vectors: list[tuple[tuple[Fraction, Fraction], ...]]) -> tuple[
    tuple[Fraction, Fraction], ...
]:
    out = [(Fraction(1), Fraction(1))]
    for vec in vectors:
        nxt = []
        for a_lo, a_hi in out:
            for b_lo, b_hi in vec:
                prods = (a_lo * b_lo, a_lo * b_hi, a_hi * b_lo, a_hi * b_hi)
                nxt.append((min(prods), max(prods)))
        out = nxt
    return tuple(out)


# -- driver --------------------------------------------------------------------
def _choose_methods(metric: FiniteMetric, level: PrivacyLevel, method: str) -> list[str]:
    """Order in which backends are tried.

    * exact when asked, or when s is rational and n is small (cheap and gives x exactly);
    * otherwise verified float first (fast), then balls of rising precision;
    * exact last when s is rational (settles exact zeros and singular Φ).
    """
    rational = exact_parameter(metric, level) is not None
    if method == "exact":
        return ["exact"]
    if method == "ball":
        return ["ball"]
    if method == "verified-float":
        return ["verified-float"]
    if method == "symbolic":
        return ["symbolic"]
    if rational and metric.n <= EXACT_FIRST_MAX_N:
        return ["exact"]
    chain = ["verified-float", "ball"]
    if rational:
        chain.append("exact")
    return chain


def _normalise_rhs(metric: FiniteMetric, rhs: Sequence[Fraction] | None) -> tuple[Fraction, ...]:
    if rhs is None:
        return tuple(Fraction(1) for _ in range(metric.n))
    out = tuple(to_fraction(v, f"rhs[{i}]") for i, v in enumerate(rhs))
    if len(out) != metric.n:
        raise InvalidArgument(f"right-hand side has {len(out)} entries; {metric.name} has "
                              f"{metric.n} points.")
    return out


def solve_nonnegative(
    metric: FiniteMetric,
    level: PrivacyLevel,
    rhs: Sequence[Fraction] | None = None,
    *,
    method: str = "auto",
    start_prec: int = 64,
    max_prec: int = MAX_PREC,
) -> EngineResult:
    """Certified answer to: does Φx = rhs have a solution x ≥ 0? (rhs=None means all ones.)

    Parameters
    ----------
    metric : FiniteMetric
    level : PrivacyLevel
    rhs : sequence of Fraction, optional
    method : {"auto", "exact", "symbolic", "ball", "verified-float"}
    start_prec, max_prec : int
        Ball precision range in bits.

    Raises
    ------
    PrecisionLimitReached
        When no backend decided within ``max_prec`` bits (only possible at an irrational
        level where some solution entry vanishes identically, or with a tiny ``max_prec``).

    Examples
    --------
    >>> from exactdp.spaces.metrics import line
    >>> from exactdp.spaces.levels import parse_level
    >>> r = solve_nonnegative(line(4), parse_level(t="1/2"))
    >>> r.holds, r.method, r.x_exact[0], r.certificate.verify()
    (True, 'exact', Fraction(2, 3), True)
    """
    if method not in METHODS or method == "float":
        raise InvalidArgument(f"Got method={method!r}; choose one of {METHODS[:-1]} "
                              "(use float_solve for an uncertified float answer).")
    b = _normalise_rhs(metric, rhs)
    if metric.kronecker_factors and method in ("auto", "exact", "ball"):
        # Structure first: m small solves instead of one of size ∏ n_k.
        kron = _kronecker_backend(metric, level, b, method, max_prec)
        if kron is not None:
            return kron
    tried = []
    for backend in _choose_methods(metric, level, method):
        if backend == "exact":
            return _exact_backend(metric, level, b)
        if backend == "symbolic":
            res = _symbolic_backend(metric, level, b, start_prec, max_prec)
            tried.append("symbolic (undecided)")
            if res is not None:
                return res
            continue
        if backend == "verified-float":
            res = _verified_float_backend(metric, level, b)
            tried.append("verified-float (undecided)")
            if res is not None:
                return res
            continue
        prec = start_prec
        while prec <= max_prec:
            res = _ball_backend(metric, level, b, prec)
            if res is not None:
                return res
            tried.append(f"ball@{prec} (undecided)")
            prec *= 2
    raise PrecisionLimitReached(
        f"no backend decided the sign pattern of Φ⁻¹b for {metric.name} at {level}: "
        f"{', '.join(tried)}. Raise max_prec, or pass the level as a rational t."
    )


def float_solve(metric: FiniteMetric, level: PrivacyLevel,
                rhs: Sequence[Fraction] | None = None) -> FloatEstimate:
    """Plain float64 solve of Φx = rhs — an uncertified estimate, labelled as such."""
    b = np.array([float(v) for v in _normalise_rhs(metric, rhs)])
    x = np.linalg.solve(phi_float(metric, level), b)
    return FloatEstimate(bool(np.all(x >= 0)), x)
