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
``grid-matrix-free`` (auto, large grids)
    Euclidean/Manhattan grids and masked grids above 900 points (``MATRIX_FREE_ABOVE_N``): FFT + CG finds y, the
    exact residual and a proved λ_min bound enclose Φ⁻¹b (:mod:`exactdp.engine.grid_point`);
    memory O(n), never an n×n array.
``symbolic`` (on request)
    z(s) = N(s)/D(s) exactly over Q(s) (:mod:`exactdp.algebra.symbolic`: series mod p, Padé, CRT,
    verified identity), then its signs at the level: exact at rational s, balls otherwise.
``exact``
    flint ``fmpq_mat.solve`` when s = e^{-ε/q} is rational; when Φ is singular at that
    level, an exact rational LP (:mod:`exactdp.algebra.lp`) gives a nonnegative solution or an
    exact Farkas vector.

Small instances with rational s go straight to ``exact`` (it is fast there and yields the
exact solution).

The vocabulary is that of :mod:`exactdp.kinds`: the method names are
:data:`~exactdp.kinds.METHODS` (checked by :func:`read_method`), verdicts are
:class:`~exactdp.kinds.Verdict`, the signs read from a solution are
:class:`~exactdp.kinds.Sign`, and enclosures are :class:`~exactdp.arithmetic.interval.Enclosure`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import Any, Literal, cast

import flint
import numpy as np
from numpy.typing import NDArray

from exactdp.algebra.lp import solve_lp
from exactdp.algebra.phi import (
    entry_values_exact,
    exact_parameter,
    phi_ball,
    phi_enclosure,
    phi_exact,
    phi_float,
)
from exactdp.algebra.structure import kronecker_split
from exactdp.algebra.symbolic import rational_function_signs, solve_symbolic
from exactdp.arithmetic.ball import MAX_PREC, arb_from_fraction, arb_to_fraction_interval, workprec
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rationals import fmpq_to_fraction, to_fmpq, to_fraction
from exactdp.arithmetic.validate import read_precision
from exactdp.engine.certificates import (
    BallCertificate,
    Certificate,
    EngineCertificate,
    ExactSolution,
    FarkasCertificate,
    KroneckerCertificate,
    SymbolicCertificate,
    VerifiedFloatCertificate,
)
from exactdp.engine.grid_point import solve_grid_point, use_grid_point
from exactdp.errors import InstanceTooLarge, InvalidArgument, InvalidPrivacyLevel, PrecisionLimitReached
from exactdp.kinds import METHODS, Method, Sign, Verdict, proved_by
from exactdp.linalg.enclosure import float_enclosure
from exactdp.linalg.verified import verified_solve
from exactdp.progress import Progress, report
from exactdp.spaces.levels import PrivacyLevel
from exactdp.spaces.metrics import FiniteMetric, read_metric

__all__ = [
    "result_from_certificate",
    "Verdict",
    "EngineResult",
    "FloatEstimate",
    "solve_nonnegative",
    "float_solve",
    "METHODS",
    "CERTIFIED_METHODS",
    "CertifiedMethod",
    "read_method",
]

#: The certified methods of :func:`solve_nonnegative`: every name of
#: :data:`~exactdp.kinds.METHODS` except ``"float"``.
CERTIFIED_METHODS: tuple[str, ...] = tuple(m for m in METHODS if m != "float")
#: The same names as a type (for the ``typing.overload`` of the questions).
CertifiedMethod = Literal["auto", "exact", "symbolic", "ball", "verified-float"]

#: Above this size the dense backends (an n×n matrix: 3.2 GB of floats at 2·10⁴) are refused.
DENSE_MAX_N = 20_000

#: Below this size, rational levels go straight to the exact solver.
EXACT_FIRST_MAX_N = 80


def read_method(method: Any, *, allow_float: bool = True) -> Method:
    """Check ``method`` against :data:`~exactdp.kinds.METHODS` (``"float"`` only if allowed).

    >>> read_method("ball")
    'ball'
    >>> read_method("fast")
    Traceback (most recent call last):
    ...
    exactdp.errors.InvalidArgument: Got method='fast'; choose one of 'auto', 'exact', ...
    """
    allowed = METHODS if allow_float else CERTIFIED_METHODS
    if not isinstance(method, str) or method not in allowed:
        names = ", ".join(repr(m) for m in allowed)
        hint = "" if allow_float else " (use float_solve for an uncertified float answer)"
        raise InvalidArgument(f"Got method={method!r}; choose one of {names}{hint}.")
    return method  # type: ignore[return-value]


def _read_level(level: Any) -> PrivacyLevel:
    if not isinstance(level, PrivacyLevel):
        raise InvalidPrivacyLevel(
            f"Got level={level!r}; pass a PrivacyLevel, e.g. parse_level(eps='4/5') or "
            "parse_level(t='1/2')."
        )
    return level


@dataclass(frozen=True)
class EngineResult:
    """Certified answer to "does Φx = b have a solution x ≥ 0?".

    Attributes
    ----------
    holds : bool
        Certified verdict (``verdict`` is the same answer as a :class:`~exactdp.kinds.Verdict`).
    certificate : Certificate
        ``certificate.verify()`` re-checks the verdict independently.
    method : str
        Backend that decided ("exact", "exact-lp", "ball", "verified-float", "symbolic",
        "kronecker[...]").
    precision : int or None
        Bits used by the ball backend (53 for verified float, None for exact).
    x_exact : tuple of Fraction or None
        The exact solution when an exact backend ran (for LP: a nonnegative solution).
    x_enclosure : tuple of Enclosure or None
        Rigorous componentwise enclosure when a certified backend ran (degenerate when
        exact); computed on first access.
    singular : bool
        True when Φ is singular at this level (exact backend only).
    """

    holds: bool
    certificate: EngineCertificate = field(repr=False)
    method: str
    precision: int | None
    x_exact: tuple[Fraction, ...] | None = field(default=None, repr=False)
    singular: bool = False
    enclosure_builder: Callable[[], tuple[Enclosure, ...]] | None = field(
        default=None, repr=False, compare=False)

    @property
    def verdict(self) -> Verdict:
        """``HOLDS`` or ``FAILS`` (the engine never returns an undecided answer)."""
        return Verdict.from_bool(self.holds)

    @cached_property
    def x_enclosure(self) -> tuple[Enclosure, ...] | None:
        """Rigorous componentwise enclosure of x (None when no certified backend gave one)."""
        return None if self.enclosure_builder is None else self.enclosure_builder()


@dataclass(frozen=True)
class FloatEstimate:
    """Uncertified float64 answer (``method="float"``). Never a proof.

    ``holds_estimate`` is what a plain float solve suggests; near a threshold or for
    ill-conditioned Φ it can be wrong, so ``verdict`` is always ``Verdict.UNDECIDED``.
    """

    holds_estimate: bool
    x_float: NDArray[np.float64] = field(repr=False)
    method: str = "float"
    certified: bool = False

    @property
    def verdict(self) -> Verdict:
        """Always ``UNDECIDED``: a float solve proves nothing (see ``holds_estimate``)."""
        return Verdict.UNDECIDED


def _read_signs(signs: Sequence[Sign]) -> tuple[Verdict, int | None]:
    """Decide from the three-valued signs of the unique solution's entries."""
    for i, s in enumerate(signs):
        if s is Sign.NEGATIVE:
            return Verdict.FAILS, i
    if all(s is not Sign.UNDECIDED for s in signs):
        return Verdict.HOLDS, None
    return Verdict.UNDECIDED, None


def _exact_sign(v: Fraction) -> Sign:
    return Sign.POSITIVE if v > 0 else Sign.NEGATIVE if v < 0 else Sign.ZERO


def _point_enclosures(x: tuple[Fraction, ...]) -> Callable[[], tuple[Enclosure, ...]]:
    return lambda: tuple(Enclosure(v, v) for v in x)


# -- backends ------------------------------------------------------------------
def _exact_backend(metric: FiniteMetric, level: PrivacyLevel, rhs: tuple[Fraction, ...]) -> (
    EngineResult
):
    phi = phi_exact(metric, level)
    b = flint.fmpq_mat([[to_fmpq(v)] for v in rhs])
    try:
        sol = phi.solve(b)
    except ZeroDivisionError:
        return _exact_lp(metric, level, rhs)
    x = tuple(fmpq_to_fraction(e) for e in sol.entries())
    verdict, _ = _read_signs([_exact_sign(v) for v in x])
    holds = verdict is Verdict.HOLDS
    cert = ExactSolution(metric, level, rhs, x, holds)
    return EngineResult(holds, cert, "exact", None, x_exact=x,
                        enclosure_builder=_point_enclosures(x))


def _exact_lp(metric: FiniteMetric, level: PrivacyLevel, rhs: tuple[Fraction, ...]) -> (
    EngineResult
):
    """Singular Φ: exact LP feasibility; a nonnegative solution or an exact Farkas vector."""
    vals = entry_values_exact(metric, level)
    A = [[vals[k] for k in row] for row in metric.index.tolist()]
    lp = solve_lp(A, rhs)
    if lp.feasible:
        assert lp.x is not None
        return EngineResult(True, ExactSolution(metric, level, rhs, lp.x, True), "exact-lp", None,
                            x_exact=lp.x, singular=True)
    assert lp.farkas is not None
    return EngineResult(False, FarkasCertificate(metric, level, rhs, lp.farkas), "exact-lp", None,
                        singular=True)


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
        signs = [
            Sign.POSITIVE if e > 0 else (Sign.NEGATIVE if e < 0 else Sign.UNDECIDED)
            for e in entries
        ]
        verdict, witness = _read_signs(signs)
        if verdict is Verdict.UNDECIDED:
            return None
        enclosure = tuple(Enclosure(*arb_to_fraction_interval(e)) for e in entries)
    holds = verdict is Verdict.HOLDS
    cert = BallCertificate(metric, level, rhs, prec, holds, witness, enclosure)
    return EngineResult(holds, cert, "ball", prec, enclosure_builder=lambda: enclosure)


def _verified_float_backend(metric: FiniteMetric, level: PrivacyLevel,
                            rhs: tuple[Fraction, ...]) -> EngineResult | None:
    a_mid, a_rad = phi_enclosure(metric, level)
    with workprec(128):
        b_mid, b_rad = float_enclosure([arb_from_fraction(v) for v in rhs])
    if not all(np.all(np.isfinite(a)) for a in (a_mid, a_rad, b_mid, b_rad)):
        return None  # beyond the double range (e.g. ε = 1e400): the ball backend decides
    try:
        R = np.linalg.inv(a_mid)
    except np.linalg.LinAlgError:
        return None
    enc = verified_solve(a_mid, a_rad, b_mid, b_rad, R=R)
    if enc is None:
        return None
    signs = [
        Sign.POSITIVE if lo > 0 else (Sign.NEGATIVE if hi < 0 else Sign.UNDECIDED)
        for lo, hi in zip(enc.lo, enc.hi)
    ]
    verdict, witness = _read_signs(signs)
    if verdict is Verdict.UNDECIDED:
        return None
    holds = verdict is Verdict.HOLDS
    cert = VerifiedFloatCertificate(metric, level, rhs, holds, witness, R, enc)

    def enclosure() -> tuple[Enclosure, ...]:
        return tuple(Enclosure(Fraction(float(lo)), Fraction(float(hi)))
                     for lo, hi in zip(enc.lo, enc.hi))

    return EngineResult(holds, cert, "verified-float", 53, enclosure_builder=enclosure)


def _symbolic_backend(metric: FiniteMetric, level: PrivacyLevel, rhs: tuple[Fraction, ...],
                      start_prec: int, max_prec: int) -> EngineResult | None:
    """Exact z(s) over Q(s) (:mod:`exactdp.algebra.symbolic`), then its signs at this level.

    At rational s the values are exact (and certified by multiplying back); otherwise each
    N_i(s)/D(s) is evaluated in balls with rising precision.
    """
    sol = solve_symbolic(metric, rhs)
    s = exact_parameter(metric, level)
    if s is not None:
        if sol.denominator(to_fmpq(s)) == 0:
            return _exact_lp(metric, level, rhs)  # Φ(s) singular here
        x = sol.value_at(s)
        holds = all(v >= 0 for v in x)
        return EngineResult(holds, ExactSolution(metric, level, rhs, x, holds), "symbolic", None,
                            x_exact=x, enclosure_builder=_point_enclosures(x))
    prec = start_prec
    while prec <= max_prec:
        verdict, witness = _read_signs(rational_function_signs(sol, level, prec))
        if verdict is not Verdict.UNDECIDED:
            holds = verdict is Verdict.HOLDS
            cert = SymbolicCertificate(metric, level, rhs, sol, holds, witness, prec)
            return EngineResult(holds, cert, "symbolic", prec)
        prec *= 2
    return None


@proved_by("kronecker_split")
def _kronecker_backend(metric: FiniteMetric, level: PrivacyLevel, rhs: tuple[Fraction, ...],
                       method: str, max_prec: int) -> EngineResult | None:
    """Φ = ⊗Φ_k and b = ⊗b_k: decide each factor and combine.

    Justified by proofs/kronecker_split.py (Φ = ⊗Φ_k, x = ⊗x_k, and x ≥ 0 iff every x_k ≥ 0).
    """
    split = kronecker_split(metric, None if all(v == 1 for v in rhs) else rhs)
    if split is None:
        return None
    parts = [solve_nonnegative(f, level, b, method=method, max_prec=max_prec)
             for f, b in split.factors]
    if any(p.singular for p in parts):
        return None  # the lemma needs invertible factors: let the dense route answer
    holds = all(p.holds for p in parts)
    factor_certs: tuple[Certificate, ...] = tuple(p.certificate for p in parts)
    cert = KroneckerCertificate(metric, level, rhs, tuple(b for _, b in split.factors),
                                factor_certs, holds)
    exact_parts = [p.x_exact for p in parts]
    x_exact = None
    if all(v is not None for v in exact_parts):
        x_exact = _kron_exact([v for v in exact_parts if v is not None])
    builder: Callable[[], tuple[Enclosure, ...]] | None = None
    if all(p.enclosure_builder is not None for p in parts):
        def builder() -> tuple[Enclosure, ...]:
            return _kron_enclosure([p.x_enclosure for p in parts if p.x_enclosure is not None])

    names = "+".join(sorted({p.method for p in parts}))
    return EngineResult(holds, cert, f"kronecker[{names}]", max((p.precision or 0) for p in parts)
                        or None, x_exact=x_exact, enclosure_builder=builder)


def _kron_exact(vectors: list[tuple[Fraction, ...]]) -> tuple[Fraction, ...]:
    out = [Fraction(1)]
    for vec in vectors:
        out = [a * b for a in out for b in vec]
    return tuple(out)


def _kron_enclosure(vectors: list[tuple[Enclosure, ...]]) -> tuple[Enclosure, ...]:
    out = [(Fraction(1), Fraction(1))]
    for vec in vectors:
        nxt = []
        for a_lo, a_hi in out:
            for e in vec:
                b_lo, b_hi = e.lo, e.hi
                prods = (a_lo * b_lo, a_lo * b_hi, a_hi * b_lo, a_hi * b_hi)
                nxt.append((min(prods), max(prods)))
        out = nxt
    return tuple(Enclosure(lo, hi) for lo, hi in out)


# -- driver --------------------------------------------------------------------
def _choose_methods(metric: FiniteMetric, level: PrivacyLevel, method: str) -> list[str]:
    """Order in which backends are tried.

    * exact when asked, or when s is rational and n is small (cheap and gives x exactly);
    * otherwise verified float first (fast), then balls of rising precision;
    * exact last when s is rational (settles exact zeros and singular Φ).
    """
    if method in ("exact", "ball", "verified-float", "symbolic"):
        return [method]
    rational = exact_parameter(metric, level) is not None
    if rational and metric.n <= EXACT_FIRST_MAX_N:
        return ["exact"]
    chain = ["verified-float", "ball"]
    if rational:
        chain.append("exact")
    return chain


def _normalise_rhs(metric: FiniteMetric, rhs: Sequence[Any] | None) -> tuple[Fraction, ...]:
    if rhs is None:
        return tuple(Fraction(1) for _ in range(metric.n))
    if isinstance(rhs, (str, bytes)) or not hasattr(rhs, "__len__"):
        raise InvalidArgument(f"Got rhs={rhs!r}; pass a sequence of {metric.n} rationals (or None "
                              "for all ones).")
    out = tuple(to_fraction(v, f"rhs[{i}]") for i, v in enumerate(rhs))
    if len(out) != metric.n:
        raise InvalidArgument(f"right-hand side has {len(out)} entries; {metric.name} has "
                              f"{metric.n} points.")
    return out


def solve_nonnegative(
    metric: FiniteMetric,
    level: PrivacyLevel,
    rhs: Sequence[Any] | None = None,
    *,
    method: Method | str = "auto",
    start_prec: int = 64,
    max_prec: int = MAX_PREC,
    progress: Progress = None,
) -> EngineResult:
    """Certified answer to: does Φx = rhs have a solution x ≥ 0? (rhs=None means all ones.)

    Parameters
    ----------
    metric : FiniteMetric
    level : PrivacyLevel
    rhs : sequence of Fraction, optional
    method : {"auto", "exact", "symbolic", "ball", "verified-float"}
        Every name of :data:`~exactdp.kinds.METHODS` except ``"float"`` (use
        :func:`float_solve`).
    start_prec, max_prec : int
        Ball precision range in bits (``max_prec`` ≥ 53, ``start_prec`` ≤ ``max_prec``).
    progress : callable, optional
        ``progress(stage, message)`` receives one line per backend tried (and per ball
        precision), see :mod:`exactdp.progress`.

    Raises
    ------
    InvalidMetric, InvalidPrivacyLevel, InvalidArgument
        For a bad argument (checked before any work).
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
    metric = read_metric(metric)
    level = _read_level(level)
    method = read_method(method, allow_float=False)
    max_prec = read_precision(max_prec, "max_prec")
    start_prec = read_precision(start_prec, "start_prec", minimum=2)
    if start_prec > max_prec:
        raise InvalidArgument(f"Got start_prec={start_prec} > max_prec={max_prec}; the ball "
                              "precision rises from start_prec to max_prec.")
    b = _normalise_rhs(metric, rhs)
    if metric.kronecker_factors and method in ("auto", "exact", "ball"):
        # Structure first: m small solves instead of one of size ∏ n_k.
        kron = _kronecker_backend(metric, level, b, method, max_prec)
        if kron is not None:
            return kron
    if method == "auto" and use_grid_point(metric):
        # large Euclidean/Manhattan (masked) grids: matrix-free, O(n) memory, certified
        sol = solve_grid_point(metric, level, b, max_bits=max_prec, progress=progress)
        return EngineResult(sol.holds, cast(Any, sol.certificate), sol.method, sol.bits,
                            sol.x_exact, enclosure_builder=sol.enclosure_builder)
    if metric.n > DENSE_MAX_N:
        raise InstanceTooLarge(
            f"{metric.name} has n = {metric.n} points; the engine's dense backends need an n×n "
            f"matrix (n ≤ {DENSE_MAX_N}). Use a structured metric (hamming, Manhattan grid) or, "
            "for Euclidean grids, epsilon_threshold's matrix-free route."
        )
    tried: list[str] = []
    for backend in _choose_methods(metric, level, method):
        report(progress, "engine", f"{backend} backend on {metric.name} (n = {metric.n}) at {level}")
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
            report(progress, "engine", f"ball solve at {prec} bits")
            res = _ball_backend(metric, level, b, prec)
            if res is not None:
                return res
            tried.append(f"ball@{prec} (undecided)")
            prec *= 2
    # balls and floats never decide an entry that is exactly 0; at a rational t the exact
    # backend does (and at ε = ln(1/t) with t irrational, the symbolic one)
    fix = ("an entry of Φ⁻¹b may be exactly 0, which balls and floats never decide: the level is a "
           "rational t, so method='auto' decides it exactly (or method='exact' / 'symbolic')"
           if level.is_t_rational else
           "raise max_prec, pass the level as a rational t, or use method='symbolic' (an entry "
           "exactly 0 is never decided by balls)")
    raise PrecisionLimitReached(
        f"no backend decided the sign pattern of Φ⁻¹b for {metric.name} at {level}: "
        f"{', '.join(tried)}; {fix}."
    )


def result_from_certificate(cert: EngineCertificate) -> EngineResult:
    """The engine's answer as stated by a certificate (e.g. one read back from JSON):
    ``x_exact`` from an exact solution, enclosures from a ball or verified-float one.
    Only as good as ``cert.verify()``; the results' ``from_json`` check that first.

    >>> from exactdp.spaces.metrics import line
    >>> from exactdp.spaces.levels import parse_level
    >>> r = solve_nonnegative(line(3), parse_level(t="1/2"), method="exact")
    >>> result_from_certificate(r.certificate).x_exact == r.x_exact
    True
    """
    method = f"read from JSON ({cert.kind.value})"
    if isinstance(cert, ExactSolution):
        x = tuple(cert.x)
        return EngineResult(bool(cert.holds), cert, method, None, x, False, _point_enclosures(x))
    if isinstance(cert, BallCertificate):
        enc = tuple(cert.enclosure)
        return EngineResult(bool(cert.holds), cert, method, cert.precision, None, False,
                            lambda: enc)
    if isinstance(cert, VerifiedFloatCertificate):
        fenc = tuple(Enclosure(Fraction(float(a)), Fraction(float(b)))
                     for a, b in zip(cert.enclosure.lo, cert.enclosure.hi))
        return EngineResult(bool(cert.holds), cert, method, 53, None, False, lambda: fenc)
    return EngineResult(bool(cert.holds), cert, method, None)


def float_solve(metric: FiniteMetric, level: PrivacyLevel,
                rhs: Sequence[Any] | None = None) -> FloatEstimate:
    """Plain float64 solve of Φx = rhs — an uncertified estimate, labelled as such.

    >>> from exactdp.spaces.metrics import line
    >>> from exactdp.spaces.levels import parse_level
    >>> est = float_solve(line(3), parse_level(t="1/2"))
    >>> est.holds_estimate, est.verdict
    (True, <Verdict.UNDECIDED: 'undecided'>)
    """
    metric = read_metric(metric)
    level = _read_level(level)
    b = np.array([float(v) for v in _normalise_rhs(metric, rhs)])
    x = np.linalg.solve(phi_float(metric, level), b)
    return FloatEstimate(bool(np.all(x >= 0)), x)
