"""Utility and min-entropy leakage of a mechanism, exactly (exact entries) or certified (balls).

* :func:`utility` — U(H, π, R) = Σ_y π_y (HR)[y, y], with the optimal remap by default
  (U* = Σ_z max_y π_y h[y, z]);
* :func:`min_entropy_leakage` — L(H, π) = log2 U* − log2 max_y π_y, exactly.

Priors are read by :func:`exactdp.spaces.priors.read_prior_values` (``"uniform"`` or a
sequence of exact probabilities, one per input).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import flint
import numpy as np
import sympy
from flint import arb

from exactdp.arithmetic.ball import arb_from_fraction, arb_to_fraction_interval, workprec
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rationals import fmpq_to_float, fmpq_to_fraction, to_fmpq, to_sympy
from exactdp.errors import InvalidMechanism, InvalidPrior
from exactdp.kernel.jsonio import write_closed_form, write_enclosure, write_rational
from exactdp.mechanisms.coerce import as_mechanism
from exactdp.mechanisms.constructors import from_rows
from exactdp.mechanisms.float_filter import column_argmax_exact
from exactdp.mechanisms.mechanism import Mechanism, MechanismKind
from exactdp.spaces.metrics import FiniteMetric
from exactdp.spaces.priors import read_prior_values

__all__ = ["UtilityResult", "LeakageResult", "utility", "min_entropy_leakage", "parse_prior"]

#: The historical name of :func:`exactdp.spaces.priors.read_prior_values` (the one prior reader).
parse_prior = read_prior_values


@dataclass(frozen=True)
class UtilityResult:
    """U(H, π, R) = Σ_y π_y (HR)[y, y] (binary gain).

    Attributes
    ----------
    value : Fraction | None
        Exact utility (exact mechanisms), else None.
    enclosure : Enclosure
        Certified interval containing the utility (degenerate when exact).
    remap : tuple[int, ...] | None
        The optimal deterministic remap (output z ↦ guessed input) when R was not given.
    optimal_remap : bool
        True when the optimal remap was used.

    ``exact`` (a property) is True when the exact ``value`` is known.
    """

    value: Fraction | None
    enclosure: Enclosure
    remap: tuple[int, ...] | None
    optimal_remap: bool
    _mechanism: Mechanism = field(repr=False, compare=False)
    _prior: tuple[Fraction, ...] = field(repr=False, compare=False)

    @property
    def exact(self) -> bool:
        """True when the exact value is known (exact mechanisms)."""
        return self.value is not None

    def __float__(self) -> float:
        return float(self.enclosure.mid)

    def __str__(self) -> str:
        exact = f" = {self.value}" if self.value is not None else ""
        return f"utility ≈ {float(self):.12g} (certified {self.enclosure}){exact}"

    @property
    def row_policy(self) -> str:
        """How the mechanism's rows were read when loaded ("exact" or "normalize")."""
        return self._mechanism.row_policy

    def to_json(self) -> dict[str, Any]:
        """Exact JSON (rationals as "p/q", the enclosure as {"lo", "hi"}).

        >>> from exactdp.mechanisms.constructors import from_rows
        >>> utility(from_rows([["3/4", "1/4"], ["1/4", "3/4"]])).to_json()["value"]
        '3/4'
        """
        return {
            "value": None if self.value is None else write_rational(self.value),
            "enclosure": write_enclosure(self.enclosure),
            "remap": None if self.remap is None else list(self.remap),
            "optimal_remap": self.optimal_remap,
            "exact": self.exact,
            "mechanism": self._mechanism.name,
            "row_policy": self.row_policy,
            "prior": [write_rational(p) for p in self._prior],
        }

    def verify(self) -> bool:
        """Recompute Σ_z π_{R(z)} h[R(z), z] (optimal remap) and the optimality of R."""
        if not (self.exact and self.optimal_remap and self.remap is not None):
            return True
        rows = self._mechanism.rows_fraction()
        pi = self._prior
        total = Fraction(0)
        for z, y in enumerate(self.remap):
            g = pi[y] * rows[y][z]
            if any(pi[x] * rows[x][z] > g for x in range(len(pi))):
                return False
            total += g
        return total == self.value


def utility(mechanism: Mechanism, prior: Any = "uniform", remap: Any = None) -> UtilityResult:
    """Utility of a mechanism under binary gain, with the optimal or a given remap.

    Parameters
    ----------
    mechanism : Mechanism
    prior : sequence or "uniform"
        Exact probabilities over the mechanism's inputs.
    remap : None, Mechanism, or matrix (outputs × inputs)
        None for the optimal remap z ↦ argmax_y π_y h[y, z]; otherwise a row-stochastic
        matrix from outputs to inputs.

    Examples
    --------
    >>> from exactdp.mechanisms.constructors import from_rows
    >>> H = from_rows([["3/4", "1/4"], ["1/4", "3/4"]])
    >>> utility(H, ["1/2", "1/2"]).value
    Fraction(3, 4)
    >>> utility(H, ["1/2", "1/2"], remap=[[0, 1], [1, 0]]).value
    Fraction(1, 4)
    """
    mechanism = as_mechanism(mechanism)  # a tight_constraints result or a loaded file too
    if not isinstance(mechanism, Mechanism):
        raise InvalidMechanism(
            f"Got {type(mechanism).__name__}; pass an exactdp Mechanism "
            "(exactdp.mechanisms.from_rows(...) or from_numpy(...) turns a matrix into one)."
        )
    mechanism.require_stochastic("utility")
    n, m = mechanism.shape
    if isinstance(prior, FiniteMetric):
        raise InvalidPrior(
            f"Got the metric {prior.name} as the prior; utility(H, prior) takes a prior over "
            f"H's {n} inputs (\"uniform\" or {n} probabilities) and needs no metric.")
    pi = read_prior_values(prior, n, f"the mechanism has {n} inputs")
    if remap is not None:
        R = remap if isinstance(remap, Mechanism) else _remap_from(remap)
        if R.shape != (m, n):
            raise InvalidMechanism(
                f"the remap has shape {R.shape}; it must map the {m} outputs to the {n} "
                f"inputs (shape ({m}, {n}))."
            )
        HR = mechanism.compose(R)
        if HR.kind is MechanismKind.EXACT:
            val = sum((pi[y] * HR.entry(y, y) for y in range(n)), Fraction(0))
            return UtilityResult(val, Enclosure(val, val), None, False, mechanism, pi)
        with workprec(HR.precision or 128):
            tot = arb(0)
            for y in range(n):
                tot += arb_from_fraction(pi[y]) * HR.entry(y, y)
            enc = Enclosure(*arb_to_fraction_interval(tot))
        return UtilityResult(None, enc, None, False, mechanism, pi)
    if mechanism.kind is MechanismKind.EXACT:
        ents = mechanism.entries_object()
        pif = [to_fmpq(p) for p in pi]
        weighted = np.empty(ents.shape, dtype=object)
        for y in range(n):
            weighted[y, :] = ents[y, :] * pif[y]
        Fw = np.array([[fmpq_to_float(v) for v in row] for row in weighted], dtype=float)
        arg = column_argmax_exact(weighted, Fw)
        total = sum((weighted[int(arg[z]), z] for z in range(m)), flint.fmpq(0))
        val = fmpq_to_fraction(total)
        return UtilityResult(
            val, Enclosure(val, val), tuple(int(x) for x in arg), True, mechanism, pi
        )
    balls = mechanism.to_balls()
    with workprec(mechanism.precision or 128):
        pib = [arb_from_fraction(p) for p in pi]
        lo_tot = arb(0)
        hi_tot = arb(0)
        arg_l = []
        for z in range(m):
            col = [pib[y] * balls[y, z] for y in range(n)]
            lowers = [c.lower() for c in col]
            k = max(range(n), key=lambda y: lowers[y])
            lo_tot += lowers[k]
            hi_tot += max((c.upper() for c in col), key=lambda x: x)
            arg_l.append(k)
        lo_q = arb_to_fraction_interval(lo_tot)[0]
        hi_q = arb_to_fraction_interval(hi_tot)[1]
    return UtilityResult(None, Enclosure(lo_q, hi_q), tuple(arg_l), True, mechanism, pi)


def _remap_from(remap: Any) -> Mechanism:
    try:
        return from_rows(remap, name="remap")
    except InvalidMechanism as exc:
        raise InvalidMechanism(f"the remap is not a stochastic matrix: {exc}") from exc


@dataclass(frozen=True)
class LeakageResult:
    """Min-entropy leakage L(H, π) = log2(U*/max π), exactly.

    Attributes
    ----------
    ratio : Fraction | None
        The exact rational U*/max_y π_y (so L = log2(ratio)).
    value : sympy.Expr | None
        ``log(ratio)/log(2)`` exactly.
    enclosure : Enclosure
        Certified interval containing L in bits.
    utility : UtilityResult

    ``exact`` (a property) is True when the exact ``ratio`` and ``value`` are known.
    """

    ratio: Fraction | None
    value: sympy.Expr | None
    enclosure: Enclosure
    utility: UtilityResult

    @property
    def exact(self) -> bool:
        """True when the exact value is known (exact mechanisms)."""
        return self.ratio is not None

    def __float__(self) -> float:
        return float(self.enclosure.mid)

    def __str__(self) -> str:
        exact = "" if self.ratio is None else f" = log2({_short(self.ratio)})"
        return f"leakage ≈ {float(self):.12g} bits (certified {self.enclosure}){exact}"

    def to_json(self) -> dict[str, Any]:
        """Exact JSON: the ratio U*/max π ("p/q"), log2 of it as a closed form, the enclosure.

        >>> from exactdp.mechanisms.constructors import from_rows
        >>> d = min_entropy_leakage(from_rows([["3/4", "1/4"], ["1/4", "3/4"]])).to_json()
        >>> d["ratio"], d["value"]
        ('3/2', 'log(3/2)/log(2)')
        """
        return {
            "ratio": None if self.ratio is None else write_rational(self.ratio),
            "value": None if self.value is None else write_closed_form(self.value),
            "enclosure": write_enclosure(self.enclosure),
            "exact": self.exact,
            "unit": "bits",
            "utility": self.utility.to_json(),
        }

    def verify(self) -> bool:
        if not self.utility.verify():
            return False
        if self.ratio is None:
            return True
        pmax = max(self.utility._prior)
        return self.utility.value is not None and self.ratio == self.utility.value / pmax


def _short(q: Fraction) -> str:
    """A rational as "p/q", or as a 12-digit decimal with its digit count when it is huge."""
    text = str(q)
    if len(text) <= 40:
        return text
    return f"≈{float(q):.12g} (exact: {len(text)}-character rational, see to_json())"


def min_entropy_leakage(mechanism: Mechanism, prior: Any = "uniform") -> LeakageResult:
    """Min-entropy leakage L(H, π) = log2 Σ_z max_y π_y h[y, z] − log2 max_y π_y.

    >>> from exactdp.mechanisms.constructors import from_rows
    >>> L = min_entropy_leakage(from_rows([["3/4", "1/4"], ["1/4", "3/4"]]))
    >>> L.ratio, L.value
    (Fraction(3, 2), log(3/2)/log(2))
    """
    mechanism = as_mechanism(mechanism)
    if isinstance(mechanism, Mechanism):
        mechanism.require_stochastic("min_entropy_leakage")  # name this function, not utility
    U = utility(mechanism, prior)
    pmax = max(U._prior)
    if U.value is not None:
        ratio = U.value / pmax
        value = sympy.log(to_sympy(ratio)) / sympy.log(2)
        with workprec(128):
            enc = Enclosure(*arb_to_fraction_interval(
                arb_from_fraction(ratio).log() / arb(2).log()
            ))
        return LeakageResult(ratio, value, enc, U)
    with workprec(128):
        lo = arb_from_fraction(U.enclosure.lo / pmax)
        hi = arb_from_fraction(U.enclosure.hi / pmax)
        lo_q = arb_to_fraction_interval(lo.log() / arb(2).log())[0]
        hi_q = arb_to_fraction_interval(hi.log() / arb(2).log())[1]
    return LeakageResult(None, None, Enclosure(lo_q, hi_q), U)
