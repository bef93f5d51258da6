"""Multi-modular machinery of the exact Q(s) solve: power series of Φ(s)⁻¹b modulo
primes, Padé denominators, Chinese remaindering, rational reconstruction, and the exact
(deterministic) verification of the identity Φ(s)·N(s) = D(s)·b over Z[s].

Only :func:`verify_identity` decides anything; the rest are heuristics that can make a
reconstruction fail (then more terms or primes are used), never make an answer wrong.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator, Sequence
from fractions import Fraction

import numpy as np
from flint import fmpz, fmpz_poly, nmod_poly

from exactdp.errors import InstanceTooLarge, InvalidArgument
from exactdp.spaces.metrics import FiniteMetric

__all__ = [
    "PRIME_BITS",
    "ExponentPattern",
    "primes_below",
    "pade_denominator",
    "mod_image",
    "rational_reconstruction",
    "symmetric_residue",
    "scale_rhs",
    "reconstruct",
    "verify_identity",
]

#: Bits of the primes used (products of residues stay exact in int64 arithmetic).
PRIME_BITS = 50


class ExponentPattern:
    """The structure of Φ(s): the stacked sparse 0/1 pattern [E_1 | E_2 | ... | E_K],
    Φ(s) = I + Σ_k E_k s^k, used for exact arithmetic modulo a prime."""

    def __init__(self, metric: FiniteMetric) -> None:
        import scipy.sparse as sp  # deferred: scipy is slow to import (CLI start-up time)

        exps = metric.exponent_matrix()
        self.n = metric.n
        self.kmax = int(exps.max()) if exps.size else 0
        rows, cols = np.nonzero(exps > 0)
        ks = exps[rows, cols]
        # column index in the stacked matrix: (k - 1) * n + col
        data = np.ones(len(rows), dtype=np.int64)
        self.stacked = sp.csr_matrix(
            (data, (rows, (ks - 1) * self.n + cols)), shape=(self.n, max(1, self.kmax) * self.n)
        )

    @classmethod
    def from_terms(cls, size: int, rows: np.ndarray, cols: np.ndarray, exps: np.ndarray,
                   counts: np.ndarray) -> ExponentPattern:
        """The pattern of Φ(s) = I + Σ counts·s^exps at (rows, cols) (exps ≥ 1; integer
        counts ≥ 0), e.g. the quotient of an equitable partition
        (:mod:`exactdp.algebra.equitable`). Products stay exact in int64 while every row's
        counts sum below 2^13 (as for a metric with n < 2^13)."""
        import scipy.sparse as sp  # deferred: scipy is slow to import (CLI start-up time)

        self = cls.__new__(cls)
        rows, cols, exps, counts = (np.asarray(a, dtype=np.int64)
                                    for a in (rows, cols, exps, counts))
        if np.any(exps < 1) or np.any(counts < 0):
            raise InvalidArgument("from_terms: got an exponent < 1 or a negative count; pass "
                                  "the terms of Φ(s) − I (exponents ≥ 1, counts ≥ 0).")
        if size and np.bincount(rows, weights=counts, minlength=size).max(initial=0) >= 2**13:
            raise InstanceTooLarge("a row of counts sums to ≥ 2^13: beyond the int64 arithmetic.")
        self.n = size
        self.kmax = int(exps.max()) if exps.size else 0
        self.stacked = sp.csr_matrix(
            (counts, (rows, (exps - 1) * size + cols)), shape=(size, max(1, self.kmax) * size))
        return self

    def series(self, b: np.ndarray, terms: int, p: int) -> np.ndarray:
        """Rows z_0..z_{terms-1} of the power series of Φ(s)⁻¹ b modulo p."""
        n, K = self.n, self.kmax
        Z = np.zeros((terms + K, n), dtype=np.int64)
        Z[K] = b % p
        for k in range(1, terms):
            window = Z[k : K + k][::-1].reshape(-1)  # z_{k-1}, ..., z_{k-K}
            Z[K + k] = (-(self.stacked @ window)) % p if K else 0  # K = 0: Φ = I
        return Z[K:]

    def apply(self, N: np.ndarray, p: int) -> np.ndarray:
        """Coefficient rows of Φ(s)·N(s) modulo p (N given as rows of coefficients)."""
        n, K = self.n, self.kmax
        deg = N.shape[0]
        Zp = np.zeros((deg + 2 * K, n), dtype=np.int64)
        Zp[K : K + deg] = N % p
        out = np.zeros((deg + K, n), dtype=np.int64)
        for m in range(deg + K):
            window = Zp[m : K + m][::-1].reshape(-1)  # N_{m-1}, ..., N_{m-K}
            own = Zp[K + m] if m < deg else 0
            out[m] = (own + (self.stacked @ window if K else 0)) % p  # K = 0: Φ = I
        return out


def primes_below(start_bits: int = PRIME_BITS) -> Iterator[int]:
    """The primes below 2^start_bits, in decreasing order."""
    p = fmpz(2) ** start_bits
    while True:
        p = fmpz(int(p) - 1)
        while not p.is_prime():
            p -= 1
        yield int(p)


def pade_denominator(series: Sequence[int], p: int, half: int) -> nmod_poly | None:
    """Denominator D (D(0) = 1) of the Padé approximant with deg numerator < half."""
    L = len(series)
    r0 = nmod_poly([0] * L + [1], p)
    r1 = nmod_poly(list(series), p)
    t0, t1 = nmod_poly([0], p), nmod_poly([1], p)
    while r1.degree() >= half:
        qq, rr = divmod(r0, r1)
        r0, r1 = r1, rr
        t0, t1 = t1, t0 - qq * t1
    c0 = int(t1.coeffs()[0]) if t1.degree() >= 0 else 0
    if c0 == 0:
        return None
    return t1 * nmod_poly([pow(c0, -1, p)], p)


def mod_image(
    pattern: ExponentPattern, b: np.ndarray, p: int, terms: int, guard: int, rng: random.Random
) -> tuple[list[int], np.ndarray] | None:
    """(D coefficients, N coefficient rows (deg × n)) mod p, or None when `terms` is too few."""
    Z = pattern.series(b, terms, p)  # (terms, n)
    if pattern.n >= 2**13:
        raise InstanceTooLarge("n ≥ 8192 is beyond the symbolic route's int64 arithmetic.")
    w = np.array([rng.randrange(1, 2**20) for _ in range(pattern.n)], dtype=object)
    comb = [int(v) % p for v in Z.astype(object) @ w]
    usable = terms - guard
    D = pade_denominator(comb[:usable], p, usable // 2)
    if D is None:
        return None
    dco = [int(c) for c in D.coeffs()]
    dd = len(dco) - 1
    if dd >= usable // 2:
        return None
    # N_i = D * z_i truncated to `terms` coefficients
    Nfull = np.zeros((terms, pattern.n), dtype=np.int64)
    cols = Z.T.tolist()
    for i in range(pattern.n):
        prod = D.mul_low(nmod_poly(cols[i], p), terms)
        c = [int(x) for x in prod.coeffs()]
        Nfull[: len(c), i] = c
    nz = np.nonzero(np.any(Nfull != 0, axis=1))[0]
    top = int(nz[-1]) if len(nz) else -1
    if top >= terms - guard:
        return None  # numerators did not terminate: need more terms
    return dco, Nfull[: top + 1]


def rational_reconstruction(a: int, m: int) -> Fraction | None:
    """Rational reconstruction of a mod m with |num|, den ≤ sqrt(m/2) (Wang)."""
    bound = math.isqrt(m // 2)
    r0, r1 = m, a % m
    t0, t1 = 0, 1
    while r1 > bound:
        qq = r0 // r1
        r0, r1 = r1, r0 - qq * r1
        t0, t1 = t1, t0 - qq * t1
    if t1 == 0 or abs(t1) > bound or math.gcd(r1, abs(t1)) != 1:
        return None
    return Fraction(r1, t1)


def symmetric_residue(a: int, m: int) -> int:
    a %= m
    return a - m if a > m // 2 else a


def scale_rhs(rhs: Sequence[Fraction]) -> tuple[np.ndarray, int, list[int]]:
    L = math.lcm(*(Fraction(v).denominator for v in rhs)) if rhs else 1
    ints = [int(Fraction(v) * L) for v in rhs]
    return np.array(ints, dtype=object), L, ints


def reconstruct(
    d_res: list[int], n_res: np.ndarray, m: int
) -> tuple[fmpz_poly, tuple[fmpz_poly, ...]] | None:
    fr = []
    for c in d_res:
        r = rational_reconstruction(c, m)
        if r is None:
            return None
        fr.append(r)
    L = math.lcm(*(f.denominator for f in fr))
    d_int = [int(f * L) for f in fr]
    # N_i (over Q, D normalised to D(0) = 1) times L are integers
    nums = []
    deg, n = n_res.shape
    for i in range(n):
        col = [symmetric_residue(int(n_res[k, i]) * L, m) for k in range(deg)]
        nums.append(col)
    g = 0
    for c in d_int:
        g = math.gcd(g, c)
    for col in nums:
        for c in col:
            g = math.gcd(g, c)
    if g == 0:
        return None
    D = fmpz_poly([c // g for c in d_int])
    Ns = tuple(fmpz_poly([c // g for c in col]) for col in nums)
    return D, Ns


def verify_identity(
    metric: FiniteMetric,
    numerators: Sequence[fmpz_poly],
    denominator: fmpz_poly,
    rhs: Sequence[Fraction],
) -> bool:
    """Φ(s)·N(s) = D(s)·b over Z[s], checked modulo primes whose product exceeds 2B."""
    n = metric.n
    if len(numerators) != n or len(rhs) != n:
        return False
    _, L, b_ints = scale_rhs(rhs)
    # Φ N = D b  ⇔  Φ (L N) = D (L b)
    pattern = ExponentPattern(metric)
    deg = max([p.degree() for p in numerators] + [denominator.degree(), 0]) + 1
    coeffs = [[int(c) * L for c in p.coeffs()] for p in numerators]
    dco = [int(c) for c in denominator.coeffs()]
    l1 = sum(sum(abs(c) for c in col) for col in coeffs)
    bound = l1 + sum(abs(c) for c in dco) * max((abs(v) for v in b_ints), default=1)
    target = 2 * bound + 1
    C = np.zeros((deg, n), dtype=object)
    for i, col in enumerate(coeffs):
        C[: len(col), i] = col
    bvec = np.array(b_ints, dtype=object)
    modulus = 1
    primes = primes_below(PRIME_BITS - 1)
    while modulus <= target:
        p = next(primes)
        N = (C % p).astype(np.int64)
        lhs = pattern.apply(N, p)
        rhs_poly = np.zeros_like(lhs)
        bp = bvec % p
        for k, c in enumerate(dco):
            rhs_poly[k] = ((c % p) * bp % p).astype(np.int64)
        if np.any((lhs - rhs_poly) % p != 0):
            return False
        modulus *= p
    return True
