"""Exact z(s) = Φ(s)⁻¹ b over Q(s): :class:`RationalSolution`, :func:`solve_symbolic`, and
the signs of z_i at a privacy level (:func:`rational_function_signs`)."""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import flint
import numpy as np
from flint import arb, ctx, fmpz_poly

from exactdp.algebra.symbolic.modular import (
    ExponentPattern,
    mod_image,
    primes_below,
    reconstruct,
    scale_rhs,
    verify_identity,
)
from exactdp.arithmetic.rationals import fmpq_to_fraction, to_fmpq, to_fraction
from exactdp.errors import InstanceTooLarge, InvalidArgument
from exactdp.kinds import Sign
from exactdp.progress import Progress, report
from exactdp.spaces.levels import PrivacyLevel
from exactdp.spaces.metrics import FiniteMetric, read_metric

__all__ = ["RationalSolution", "solve_symbolic", "solve_pattern", "rational_function_signs",
           "SYMBOLIC_MAX_N"]

#: Default size limit of the exact symbolic route (cost ~ n³ per prime).
SYMBOLIC_MAX_N = 400


@dataclass(frozen=True)
class RationalSolution:
    """z_i(s) = numerators[i] / denominator, exactly, with Φ(s) z(s) = b over Q(s).

    Attributes
    ----------
    numerators : tuple of fmpz_poly
        N_i(s); together with ``denominator`` the integer content is 1 overall.
    denominator : fmpz_poly
        D(s) with D(0) > 0 (z(0) = b, so D(0) ≠ 0).
    q : int
        The polynomial-case denominator: s = e^{-ε/q}.
    rhs : tuple of Fraction
        b.
    method : str
        How it was computed.
    seconds : float
        Wall time.
    """

    metric: FiniteMetric = field(repr=False, compare=False)
    numerators: tuple[fmpz_poly, ...] = field(repr=False)
    denominator: fmpz_poly
    q: int
    rhs: tuple[Fraction, ...] = field(repr=False)
    method: str = "symbolic (series mod p + Padé + CRT, exact verification)"
    seconds: float = 0.0

    @property
    def n(self) -> int:
        return len(self.numerators)

    def value_at(self, s: Any) -> tuple[Fraction, ...]:
        """Exact z(s) at a rational s where D(s) ≠ 0.

        >>> from exactdp.spaces.metrics import line
        >>> solve_symbolic(line(2)).value_at(Fraction(1, 2))
        (Fraction(2, 3), Fraction(2, 3))
        """
        sq = to_fmpq(to_fraction(s, "s"))
        d = self.denominator(sq)
        if d == 0:
            raise InvalidArgument(f"Φ(s) is singular at s = {s} (D(s) = 0).")
        return tuple(fmpq_to_fraction(p(sq) / d) for p in self.numerators)

    def verify(self) -> bool:
        """Exact check that Φ(s)·N(s) = D(s)·b (see the module docstring, step 4)."""
        return verify_identity(self.metric, self.numerators, self.denominator, self.rhs)


def rational_function_signs(sol: RationalSolution, level: PrivacyLevel, prec: int) -> list[Sign]:
    """Signs of z_i = N_i(s)/D(s) at the level's s = e^{-ε/q}: exact at rational s,
    balls at ``prec`` bits otherwise (``Sign.UNDECIDED`` where the ball cannot decide).

    An identically zero numerator has sign ``Sign.ZERO`` exactly.

    >>> from exactdp.spaces.metrics import line
    >>> from exactdp.spaces.levels import parse_level
    >>> rational_function_signs(solve_symbolic(line(3)), parse_level(eps=1), 64)
    [<Sign.POSITIVE: 1>, <Sign.POSITIVE: 1>, <Sign.POSITIVE: 1>]
    """
    s_exact = level.s_rational(sol.q)
    if s_exact is not None:
        sq = to_fmpq(s_exact)
        d = sol.denominator(sq)
        out: list[Sign] = []
        for p in sol.numerators:
            v = p(sq) * d
            out.append(Sign.of((v > 0) - (v < 0)))
        return out
    with ctx.workprec(prec):
        sb = level.s_ball(sol.q)

        def horner(poly: fmpz_poly) -> Any:
            acc = arb(0)
            for c in reversed(poly.coeffs()):
                acc = acc * sb + arb(c)
            return acc

        dv = horner(sol.denominator)
        res: list[Sign] = []
        for p in sol.numerators:
            if p.is_zero():
                res.append(Sign.ZERO)
                continue
            v = horner(p) * dv
            res.append(Sign.POSITIVE if v > 0 else (Sign.NEGATIVE if v < 0 else Sign.UNDECIDED))
        return res


def solve_symbolic(
    metric: FiniteMetric,
    rhs: Sequence[Any] | None = None,
    *,
    max_n: int = SYMBOLIC_MAX_N,
    progress: Progress = None,
    seed: int = 20140616,
) -> RationalSolution:
    """Exact z(s) = Φ(s)⁻¹ rhs as rational functions of s = e^{-ε/q}.

    Parameters
    ----------
    metric : FiniteMetric
        Polynomial case (all distances multiples of 1/q).
    rhs : sequence of rationals, optional
        Right-hand side b (default all ones: tight constraints); a prior gives α(s).
    max_n : int
        Refuse larger instances (:class:`InstanceTooLarge`); the cost grows like n³ per
        prime.
    progress : Progress, optional
        Receives short progress messages (stage ``"symbolic"``; see :mod:`exactdp.progress`).

    Returns
    -------
    RationalSolution
        Verified exactly (``verify()`` repeats the check).

    Examples
    --------
    >>> from exactdp.spaces.metrics import discrete
    >>> sol = solve_symbolic(discrete(3))       # Φ = (1 - s) I + s J
    >>> str(sol.numerators[0]), str(sol.denominator)
    ('1', '2*x + 1')
    """
    t0 = time.perf_counter()
    metric = read_metric(metric)
    if isinstance(max_n, bool) or not isinstance(max_n, int) or max_n < 1:
        raise InvalidArgument(f"Got max_n={max_n!r}; pass a whole number ≥ 1 (default {SYMBOLIC_MAX_N}).")
    q = metric.q
    if q is None:
        raise InvalidArgument(
            f"{metric.name} has irrational distances: Φ is not polynomial in any s; "
            "use the certified route (epsilon_threshold) instead."
        )
    n = metric.n
    if n > max_n:
        raise InstanceTooLarge(
            f"{metric.name} has n = {n} > max_n = {max_n} for the exact symbolic route."
        )
    b_list = [Fraction(1)] * n if rhs is None else [Fraction(v) for v in rhs]
    if len(b_list) != n:
        raise InvalidArgument(f"rhs has {len(b_list)} entries; {metric.name} has {n} points.")
    _, L_rhs, b_ints = scale_rhs(b_list)
    D, Ns = solve_pattern(
        ExponentPattern(metric), b_ints,
        lambda Ns, D: verify_identity(metric, Ns, D, tuple(Fraction(v) for v in b_ints)),
        progress=progress, seed=seed, what=metric.name)
    # z for b_ints = L·rhs; z for rhs has denominator L·D
    D = D * L_rhs
    g = D.content()
    for p_ in Ns:
        g = flint.fmpz(math.gcd(int(g), int(p_.content())))
    if g > 1:
        D = fmpz_poly([int(c) // int(g) for c in D.coeffs()])
        Ns = tuple(fmpz_poly([int(c) // int(g) for c in p_.coeffs()]) for p_ in Ns)
    return RationalSolution(
        metric=metric,
        numerators=Ns,
        denominator=D,
        q=q,
        rhs=tuple(b_list),
        seconds=time.perf_counter() - t0,
    )


def solve_pattern(
    pattern: ExponentPattern,
    b_ints: Sequence[int],
    check: Callable[[tuple[fmpz_poly, ...], fmpz_poly], bool],
    *,
    progress: Progress = None,
    seed: int = 20140616,
    what: str = "Φ(s)",
) -> tuple[fmpz_poly, tuple[fmpz_poly, ...]]:
    """(D, N) over Z with Φ(s)N(s) = D(s)·b for integer b and any Φ(s) = I + Σ E_k s^k
    (an :class:`ExponentPattern`: a metric's, or :meth:`ExponentPattern.from_terms`).

    Series modulo primes, Padé, Chinese remaindering and rational reconstruction (module
    doc of :mod:`exactdp.algebra.symbolic`) until two reconstructions agree and
    ``check(N, D)`` — the exact identity test the caller trusts — accepts them.
    """
    n = pattern.n
    rng = random.Random(seed)
    guard = 12
    terms = max(32, n + 2 * pattern.kmax + guard)
    primes = primes_below()
    # state of the CRT
    modulus = 1
    d_res: list[int] = []
    n_res: np.ndarray | None = None  # object array (deg, n)
    d_deg = -1
    n_deg = -1
    last: tuple[fmpz_poly, tuple[fmpz_poly, ...]] | None = None
    used = 0
    while True:
        p = next(primes)
        used += 1
        if used > 400:
            raise InstanceTooLarge(
                f"the multi-modular reconstruction of z(s) for {what} did not "
                "stabilise within 400 primes (≈ 20000 bits)"
            )
        bp = np.array([v % p for v in b_ints], dtype=np.int64)
        img = mod_image(pattern, bp, p, terms, guard, rng)
        while img is None:
            terms *= 2
            report(progress, "symbolic", f"more series terms ({terms})")
            img = mod_image(pattern, bp, p, terms, guard, rng)
        dco, N = img
        if len(dco) - 1 > d_deg or N.shape[0] - 1 > n_deg:
            # first prime, or earlier primes were unlucky (degree drop): restart CRT
            modulus, d_res, n_res = 1, [], None
            d_deg, n_deg = len(dco) - 1, N.shape[0] - 1
        elif len(dco) - 1 < d_deg or N.shape[0] - 1 < n_deg:
            continue  # this prime is unlucky
        dco = dco + [0] * (d_deg + 1 - len(dco))
        Nobj = N.astype(object)
        if modulus == 1:
            d_res = [c % p for c in dco]
            n_res = Nobj % p
            modulus = p
        else:
            assert n_res is not None
            inv = pow(modulus, -1, p)
            d_res = [
                (r + modulus * (((c - r) * inv) % p)) for r, c in zip(d_res, dco)
            ]
            n_res = n_res + modulus * (((Nobj - n_res) * inv) % p)
            modulus *= p
            d_res = [r % modulus for r in d_res]
            n_res = n_res % modulus
        report(progress, "symbolic",
               f"{modulus.bit_length()} bits of CRT, deg D = {d_deg}, deg N ≤ {n_deg}")
        cand = reconstruct(d_res, n_res, modulus)
        if cand is None:
            continue
        if last is not None and last == cand:
            D, Ns = cand
            if check(Ns, D):
                return D, Ns
        last = cand
