"""Exact exp-polynomials: finite sums ``Σ c_r · e^{-ε·r}`` with rational c_r and r.

Every capacity functional of the Laplacian Perturbation Mechanism at a union of boxes
with rational corners and rational points is such a sum (a Laplace CDF at a rational
point is ``½e^{-ε|x|}`` or ``1 − ½e^{-ε|x|}``, and products of those stay in the
ring). The representation is normalised (no zero coefficients, one term per
exponent), so two exp-polynomials are equal as functions of ε > 0 exactly when their
term dictionaries are equal (the functions e^{-εr} for distinct r are linearly
independent over Q).

With q the common denominator of the exponents and s = e^{-ε/q}, an exp-polynomial
is ``s^{-k}`` times a polynomial in s with rational coefficients; its sign at a given
ε is decided exactly (rational s), by Lindemann's theorem plus ball arithmetic
(rational ε: s is transcendental, so a nonzero polynomial does not vanish at s), or
via the minimal polynomial of s = t^{1/q} (rational t = e^{-ε}).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

import flint
import sympy
from flint import arb

from exactdp.arithmetic.ball import certified_sign
from exactdp.arithmetic.rationals import to_fmpq, to_sympy
from exactdp.errors import InvalidArgument
from exactdp.kinds import Sign, proved_by
from exactdp.spaces.levels import PrivacyLevel

__all__ = ["ExpPoly", "exp_poly_sign", "exp_poly_ratio"]


class ExpPoly:
    """An exact, immutable sum ``Σ c_r · e^{-ε·r}`` (ε left symbolic).

    Parameters
    ----------
    terms : mapping exponent r -> coefficient c_r (both rational)

    Examples
    --------
    >>> half = ExpPoly({0: Fraction(1, 2)})
    >>> f = ExpPoly({0: 1, 1: Fraction(-1, 2)})      # 1 - ½e^{-ε}
    >>> (f - half).terms == {Fraction(0): Fraction(1, 2), Fraction(1): Fraction(-1, 2)}
    True
    >>> (f * f).to_sympy(sympy.Integer(1))
    -exp(-1) + exp(-2)/4 + 1
    """

    __slots__ = ("_terms", "_hash")

    def __init__(self, terms: Mapping[Any, Any] | None = None) -> None:
        clean: dict[Fraction, Fraction] = {}
        for r, c in (terms or {}).items():
            c = Fraction(c)
            if c:
                r = Fraction(r)
                clean[r] = clean.get(r, Fraction(0)) + c
                if not clean[r]:
                    del clean[r]
        self._terms = clean
        self._hash: int | None = None

    # -- construction -----------------------------------------------------------------
    @classmethod
    def constant(cls, value: Fraction | int) -> ExpPoly:
        """The constant ``value`` (exponent 0)."""
        return cls({0: value})

    @classmethod
    def exp_term(cls, r: Fraction | int, coef: Fraction | int = 1) -> ExpPoly:
        """``coef · e^{-ε r}``."""
        return cls({r: coef})

    @classmethod
    def sum(cls, items: Iterable[ExpPoly]) -> ExpPoly:
        """Sum of many exp-polynomials (linear time)."""
        acc: dict[Fraction, Fraction] = {}
        for p in items:
            for r, c in p._terms.items():
                acc[r] = acc.get(r, Fraction(0)) + c
        return cls(acc)

    # -- access -----------------------------------------------------------------------
    @property
    def terms(self) -> dict[Fraction, Fraction]:
        """A copy of the normalised terms ``{r: c_r}``."""
        return dict(self._terms)

    def is_zero(self) -> bool:
        """True when this is the zero function (exact)."""
        return not self._terms

    def __eq__(self, other: object) -> bool:
        if isinstance(other, int | Fraction):
            other = ExpPoly.constant(other)
        if not isinstance(other, ExpPoly):
            return NotImplemented
        return self._terms == other._terms

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(frozenset(self._terms.items()))
        return self._hash

    def __repr__(self) -> str:
        if not self._terms:
            return "ExpPoly(0)"
        parts = [f"{c}*e^(-eps*{r})" if r else f"{c}" for r, c in sorted(self._terms.items())]
        return "ExpPoly(" + " + ".join(parts) + ")"

    # -- arithmetic -------------------------------------------------------------------
    def __add__(self, other: ExpPoly) -> ExpPoly:
        return ExpPoly.sum((self, other))

    def __neg__(self) -> ExpPoly:
        return ExpPoly({r: -c for r, c in self._terms.items()})

    def __sub__(self, other: ExpPoly) -> ExpPoly:
        return self + (-other)

    def __mul__(self, other: ExpPoly | Fraction | int) -> ExpPoly:
        if isinstance(other, int | Fraction):
            return ExpPoly({r: c * other for r, c in self._terms.items()})
        acc: dict[Fraction, Fraction] = {}
        for r1, c1 in self._terms.items():
            for r2, c2 in other._terms.items():
                acc[r1 + r2] = acc.get(r1 + r2, Fraction(0)) + c1 * c2
        return ExpPoly(acc)

    __rmul__ = __mul__

    def shift(self, delta: Fraction | int) -> ExpPoly:
        """Multiply by ``e^{-ε·delta}`` (delta may be negative: a factor e^{ε|delta|})."""
        d = Fraction(delta)
        return ExpPoly({r + d: c for r, c in self._terms.items()})

    # -- evaluation -------------------------------------------------------------------
    def to_sympy(self, eps: sympy.Expr) -> sympy.Expr:
        """The closed form at ε = ``eps`` as a sympy expression."""
        return sympy.Add(
            *[
                to_sympy(c)
                * sympy.exp(-eps * to_sympy(r))
                for r, c in sorted(self._terms.items())
            ]
        )

    def to_sympy_symbol(self, name: str = "epsilon") -> sympy.Expr:
        """The closed form as a function of a positive symbol ε."""
        return self.to_sympy(sympy.Symbol(name, positive=True))

    def ball(self, level: PrivacyLevel) -> arb:
        """Ball enclosure at ε of ``level``, at the current flint precision."""
        eps = level.eps_ball()
        total = arb(0)
        for r, c in self._terms.items():
            term = arb(to_fmpq(c))
            if r:
                term *= (-eps * arb(to_fmpq(r))).exp()
            total += term
        return total

    def to_float(self, eps: float) -> float:
        """Float value at ``eps`` (uncertified; for search and plots only)."""
        return math.fsum(float(c) * math.exp(-eps * float(r)) for r, c in self._terms.items())

    def common_denominator(self) -> int:
        """q = lcm of the exponents' denominators (so every term is a power of e^{-ε/q})."""
        q = 1
        for r in self._terms:
            q = math.lcm(q, r.denominator)
        return q

    def as_polynomial(self, q: int | None = None) -> tuple[flint.fmpq_poly, int, int]:
        """``(p, q, k)`` with ``self = s^{k} · p(s)`` where s = e^{-ε/q}, p(0) ≠ 0 unless zero.

        >>> p, q, k = ExpPoly({0: 1, Fraction(1, 2): -1}).as_polynomial()
        >>> (p, q, k)
        ((-1)*x + 1, 2, 0)
        """
        if not self._terms:
            return flint.fmpq_poly([]), q or 1, 0
        q = q or self.common_denominator()
        if q % self.common_denominator():
            raise InvalidArgument(
                f"Got q={q}, which is not a multiple of the exponents' common denominator "
                f"{self.common_denominator()}; pass a multiple of it (or omit q)."
            )
        powers = {int(r * q): c for r, c in self._terms.items()}
        k = min(powers)
        deg = max(powers) - k
        coeffs = [flint.fmpq(0)] * (deg + 1)
        for e, c in powers.items():
            coeffs[e - k] = to_fmpq(c)
        return flint.fmpq_poly(coeffs), q, k


def _minpoly_of_root(t: Fraction, q: int) -> flint.fmpq_poly:
    """Minimal polynomial over Q of the real positive root s = t^{1/q} (0 < t < 1)."""
    x_q_minus_t = flint.fmpq_poly([-to_fmpq(t)] + [0] * (q - 1) + [1])
    _, factors = x_q_minus_t.factor()
    candidates = [f for f, _ in factors]
    if len(candidates) == 1:
        return candidates[0]
    prec = 64
    while True:
        with flint.ctx.workprec(prec):
            s = arb(to_fmpq(t)) ** arb(flint.fmpq(1, q))
            alive = [f for f in candidates if _poly_ball(f, s).contains(0)]
        if len(alive) == 1:
            return alive[0]
        prec *= 2


def _poly_ball(p: flint.fmpq_poly, s: arb) -> arb:
    total = arb(0)
    for c in reversed(p.coeffs()):
        total = total * s + arb(c)
    return total


MAX_DENSE_DEGREE = 100_000
"""Largest degree in s = e^{-ε/q} for which a dense polynomial is ever built."""
MAX_MINPOLY_Q = 4096
"""Largest q for which the minimal polynomial of t^{1/q} is computed (factoring x^q − t)."""
_MAX_EXACT_BITS = 4_000_000


def _degree_span(value: ExpPoly) -> tuple[int, int]:
    """``(q, degree)`` of the polynomial behind ``value`` without building it."""
    q = value.common_denominator()
    exps = value._terms.keys()
    return q, int((max(exps) - min(exps)) * q)


def _s_rational(level: PrivacyLevel, q: int) -> Fraction | None:
    """s = t^{1/q} when rational; q larger than the bit length of t rules that out
    (a rational s ≠ 1 has s^q of at least q bits), so no root of huge order is taken."""
    if level.t is None:
        return None
    if q > max(level.t.numerator.bit_length(), level.t.denominator.bit_length()):
        return None
    return level.s_rational(q)


def _exact_sparse_value(value: ExpPoly, s: Fraction, q: int) -> flint.fmpq | None:
    """Σ c_r s^{q r − k} exactly (one power per term, no dense polynomial), or None
    when the rationals involved would exceed a few million bits."""
    k = min(value._terms) * q
    bits = max(s.numerator.bit_length(), s.denominator.bit_length(), 1)
    if int(max(value._terms) * q - k) * bits > _MAX_EXACT_BITS:
        return None
    sq = to_fmpq(s)
    total = flint.fmpq(0)
    for r, c in value._terms.items():
        total += to_fmpq(c) * sq ** int(r * q - k)
    return total


@proved_by("sets_laplace_capacity")
def exp_poly_sign(value: ExpPoly, level: PrivacyLevel, *, max_prec: int = 4096) -> tuple[Sign, int, str]:
    """Exact sign of ``value`` at the level's ε; returns ``(sign, precision, method)``.

    ``method`` says how the sign was settled: ``"exact"`` (s rational, exact arithmetic),
    ``"zero"`` (the exp-polynomial, or the polynomial at algebraic s, is exactly zero),
    ``"lindemann+ball"`` (rational ε: s transcendental, nonzero, sign from balls),
    ``"minpoly+ball"`` (rational t: s algebraic, nonzero since its minimal polynomial does
    not divide p) or ``"ball"`` (other ε, or degrees too large for exact polynomial
    work: balls only; may raise PrecisionLimitReached).
    Correctness of each route: ``proofs/sets_laplace_capacity.py`` (part 5).

    No dense polynomial is built on the Lindemann route, and none of degree above
    :data:`MAX_DENSE_DEGREE` on any route (float coordinates have exponent
    denominators like 2⁵⁵).

    >>> from exactdp.spaces.levels import parse_level
    >>> exp_poly_sign(ExpPoly({0: 1, 1: -2}), parse_level(eps=1))[::2]   # 1 - 2/e > 0
    (<Sign.POSITIVE: 1>, 'lindemann+ball')
    >>> exp_poly_sign(ExpPoly({0: 1, 1: -2}), parse_level(t="1/2"))[::2]  # 1 - 2·(1/2)
    (<Sign.ZERO: 0>, 'exact')
    >>> exp_poly_sign(ExpPoly({0: 1, Fraction(1, 10**9): -1}), parse_level(eps=1))[::2]
    (<Sign.POSITIVE: 1>, 'lindemann+ball')
    """
    if value.is_zero():
        return Sign.ZERO, 0, "zero"
    q, deg = _degree_span(value)
    s_rat = _s_rational(level, q)
    method = "ball"
    if s_rat is not None:
        v = _exact_sparse_value(value, s_rat, q)
        if v is not None:
            sign = Sign.ZERO if v == 0 else (Sign.POSITIVE if v > 0 else Sign.NEGATIVE)
            return sign, 0, "exact"
    elif level.eps_rational is not None or level.eps.is_algebraic:
        # Lindemann: e^{α} is transcendental for algebraic α ≠ 0, so the nonzero
        # polynomial p (value is normalised and nonzero) has p(s) ≠ 0
        method = "lindemann+ball"
    elif level.t is not None and deg <= MAX_DENSE_DEGREE and q <= MAX_MINPOLY_Q:
        p, _, _ = value.as_polynomial(q)
        m = _minpoly_of_root(level.t, q)
        if p % m == 0:
            return Sign.ZERO, 0, "zero"
        method = "minpoly+ball"
    sign, prec = certified_sign(lambda _p: value.ball(level), max_prec=max_prec, what="exp-polynomial")
    return sign, prec, method


def _poly_to_sympy(p: flint.fmpq_poly, s: sympy.Expr) -> sympy.Expr:
    return sympy.Add(*[sympy.Rational(int(c.p), int(c.q)) * s**i for i, c in enumerate(p.coeffs()) if c != 0])


def exp_poly_ratio(num: ExpPoly, den: ExpPoly, eps: sympy.Expr) -> sympy.Expr:
    """Exact ratio num/den at ε = ``eps`` in lowest terms (common factors in
    s = e^{-ε/q} cancelled by a polynomial gcd), as a sympy expression.

    >>> a = ExpPoly({0: 1, 1: -1})                  # 1 − e^{−ε}
    >>> exp_poly_ratio(a * ExpPoly({2: 3}), a, sympy.Integer(1))
    3*exp(-2)

    Above :data:`MAX_DENSE_DEGREE` no gcd is taken (the quotient is returned as is).
    """
    if den.is_zero():
        raise InvalidArgument("Got den = 0 (the zero exp-polynomial); a ratio needs a nonzero denominator.")
    q = math.lcm(num.common_denominator(), den.common_denominator())
    exps = list(num._terms) + list(den._terms)
    if (max(exps) - min(exps)) * q > MAX_DENSE_DEGREE:
        # too large for polynomial gcds (e.g. float coordinates): the plain quotient
        return num.to_sympy(eps) / den.to_sympy(eps)
    p1, _, k1 = num.as_polynomial(q)
    p2, _, k2 = den.as_polynomial(q)
    g = p1.gcd(p2)
    a, b = p1 // g, p2 // g
    lead = b.coeffs()[-1]
    a, b = a / lead, b / lead
    s = sympy.exp(-eps / q)
    return sympy.powsimp(_poly_to_sympy(a, s) * s ** (k1 - k2) / _poly_to_sympy(b, s))
