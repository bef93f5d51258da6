"""Exact rational functions z(s) = Φ(s)⁻¹ b over Q(s) (polynomial case).

In the polynomial case every entry of Φ is a monomial s^k (s = e^{-ε/q}), so
Φ(s) = I + E(s) with E(0) = 0: Φ(s) is invertible over Q(s) for *every* metric
(det Φ(0) = 1), and z(s) = Φ(s)⁻¹ b is a vector of rational functions
z_i = N_i / D with a common denominator D. For b = 1 this is the diagonal of the
tight-constraints mechanism (Prop. 7); for b = π it is α(s) (Φ is symmetric, so
αΦ = π ⇔ Φα = π).

How it is computed (evaluation/interpolation à la Padé, multi-modular):

1. Modulo a prime p < 2^50, the power series z(s) = Σ_k z_k s^k satisfies
   z_0 = b and z_k = −Σ_{j≥1} E_j z_{k−j} (E_j the 0/1 matrix of entries s^j): one
   sparse pass over Φ's exponent pattern per coefficient, exact in int64.
2. The common denominator D mod p is the Padé denominator of a random combination
   Σ w_i z_i (extended Euclid on s^L and the series, stopped at half degree); then
   N_i = D·z_i truncated. Enough terms are taken that K extra coefficients vanish.
3. Several primes, Chinese remaindering and rational reconstruction (D normalised to
   D(0) = 1) give D and N_i over Q, scaled to a primitive integer form.
4. **Verification, exact and deterministic**: Φ(s)N(s) − D(s)b is an integer polynomial
   vector whose coefficients are bounded by B = max_i Σ_j ‖N_j‖₁ + ‖D‖₁‖b‖∞; it is
   checked to vanish modulo primes whose product exceeds 2B, so it vanishes over Z.
   Steps 1–3 are heuristics that can only make the computation fail (then more terms
   or primes are used), never make the returned answer wrong.

The result, :class:`RationalSolution`, carries ``verify()`` which repeats step 4.

Examples
--------
>>> from exactdp.spaces.metrics import line
>>> sol = solve_symbolic(line(3))
>>> [str(p) for p in sol.numerators], str(sol.denominator)
(['1', '(-1)*x + 1', '1'], 'x + 1')
>>> sol.verify()
True
"""

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
from flint import fmpq, fmpz, fmpz_poly, nmod_poly

from exactdp.algebra.algebraic import (
    AlgebraicNumber,
    _primitive_positive,
    _separate,
    descartes_root_count,
    irreducible_roots_between,
)
from exactdp.errors import InstanceTooLarge, InvalidArgument
from exactdp.spaces.metrics import FiniteMetric

__all__ = [
    "RationalSolution",
    "solve_symbolic",
    "SYMBOLIC_MAX_N",
    "Breakpoint",
    "SignPattern",
    "sign_pattern",
]

#: Default size limit of the exact symbolic route (cost ~ n³ per prime).
SYMBOLIC_MAX_N = 400

_PRIME_BITS = 50


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
        sq = fmpq(Fraction(s).numerator, Fraction(s).denominator)
        d = self.denominator(sq)
        if d == 0:
            raise InvalidArgument(f"Φ(s) is singular at s = {s} (D(s) = 0).")
        return tuple(_fr(p(sq) / d) for p in self.numerators)

    def verify(self) -> bool:
        """Exact check that Φ(s)·N(s) = D(s)·b (see the module docstring, step 4)."""
        return _verify_identity(self.metric, self.numerators, self.denominator, self.rhs)


def rational_function_signs(sol: RationalSolution, level: Any, prec: int) -> list[int | None]:
    """Signs of z_i = N_i(s)/D(s) at the level's s = e^{-ε/q}: exact at rational s,
    balls at ``prec`` bits otherwise (None where the ball cannot decide).

    An identically zero numerator has sign 0 exactly.
    """
    from flint import arb, ctx

    s_exact = level.s_rational(sol.q)
    if s_exact is not None:
        sq = fmpq(s_exact.numerator, s_exact.denominator)
        d = sol.denominator(sq)
        out: list[int | None] = []
        for p in sol.numerators:
            v = p(sq) * d
            out.append((v > 0) - (v < 0))
        return out
    with ctx.workprec(prec):
        sb = level.s_ball(sol.q)

        def horner(poly: fmpz_poly) -> Any:
            acc = arb(0)
            for c in reversed(poly.coeffs()):
                acc = acc * sb + arb(c)
            return acc

        dv = horner(sol.denominator)
        res: list[int | None] = []
        for p in sol.numerators:
            if p.is_zero():
                res.append(0)
                continue
            v = horner(p) * dv
            res.append(1 if v > 0 else (-1 if v < 0 else None))
        return res


def _fr(x: Any) -> Fraction:
    if isinstance(x, fmpz):
        return Fraction(int(x))
    return Fraction(int(x.p), int(x.q))


# ------------------------------------------------------------------------------------
# structure of Φ(s): stacked sparse 0/1 pattern [E_1 | E_2 | ... | E_K]
class _Pattern:
    def __init__(self, metric: FiniteMetric) -> None:
        import scipy.sparse as sp  # scipy: a dependency of the symbolic route only

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

    def series(self, b: np.ndarray, terms: int, p: int) -> np.ndarray:
        """Rows z_0..z_{terms-1} of the power series of Φ(s)⁻¹ b modulo p."""
        n, K = self.n, self.kmax
        Z = np.zeros((terms + K, n), dtype=np.int64)
        Z[K] = b % p
        for k in range(1, terms):
            window = Z[k : K + k][::-1].reshape(-1)  # z_{k-1}, ..., z_{k-K}
            Z[K + k] = (-(self.stacked @ window)) % p
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
            out[m] = (own + self.stacked @ window) % p
        return out


def _primes(start_bits: int = _PRIME_BITS) -> Any:
    p = fmpz(2) ** start_bits
    while True:
        p = fmpz(int(p) - 1)
        while not p.is_prime():
            p -= 1
        yield int(p)


def _pade_denominator(series: Sequence[int], p: int, half: int) -> nmod_poly | None:
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


def _mod_image(
    pattern: _Pattern, b: np.ndarray, p: int, terms: int, guard: int, rng: random.Random
) -> tuple[list[int], np.ndarray] | None:
    """(D coefficients, N coefficient rows (deg × n)) mod p, or None when `terms` is too few."""
    Z = pattern.series(b, terms, p)  # (terms, n)
    if pattern.n >= 2**13:
        raise InstanceTooLarge("n ≥ 8192 is beyond the symbolic route's int64 arithmetic.")
    w = np.array([rng.randrange(1, 2**20) for _ in range(pattern.n)], dtype=object)
    comb = [int(v) % p for v in Z.astype(object) @ w]
    usable = terms - guard
    D = _pade_denominator(comb[:usable], p, usable // 2)
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


def _crt_pair(r1: int, m1: int, r2: int, m2: int) -> tuple[int, int]:
    inv = pow(m1, -1, m2)
    x = r1 + m1 * (((r2 - r1) * inv) % m2)
    return x % (m1 * m2), m1 * m2


def _ratrecon(a: int, m: int) -> Fraction | None:
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


def _symmetric(a: int, m: int) -> int:
    a %= m
    return a - m if a > m // 2 else a


def _scale_rhs(rhs: Sequence[Fraction]) -> tuple[np.ndarray, int, list[int]]:
    L = math.lcm(*(Fraction(v).denominator for v in rhs)) if rhs else 1
    ints = [int(Fraction(v) * L) for v in rhs]
    return np.array(ints, dtype=object), L, ints


def solve_symbolic(
    metric: FiniteMetric,
    rhs: Sequence[Any] | None = None,
    *,
    max_n: int = SYMBOLIC_MAX_N,
    progress: Callable[[str], None] | None = None,
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
    progress : callable, optional
        Receives short progress messages.

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
    _, L_rhs, b_ints = _scale_rhs(b_list)
    pattern = _Pattern(metric)
    rng = random.Random(seed)
    guard = 12
    terms = max(32, n + 2 * pattern.kmax + guard)
    primes = _primes()
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
                f"the multi-modular reconstruction of z(s) for {metric.name} did not "
                "stabilise within 400 primes (≈ 20000 bits)"
            )
        bp = np.array([v % p for v in b_ints], dtype=np.int64)
        img = _mod_image(pattern, bp, p, terms, guard, rng)
        while img is None:
            terms *= 2
            if progress:
                progress(f"symbolic: more series terms ({terms})")
            img = _mod_image(pattern, bp, p, terms, guard, rng)
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
        if progress:
            progress(f"symbolic: {modulus.bit_length()} bits of CRT, deg D = {d_deg}, "
                     f"deg N ≤ {n_deg}")
        cand = _reconstruct(d_res, n_res, modulus)
        if cand is None:
            continue
        if last is not None and last == cand:
            D, Ns = cand
            if _verify_identity(metric, Ns, D, tuple(Fraction(v) for v in b_ints)):
                break
        last = cand
    D, Ns = last
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


def _reconstruct(
    d_res: list[int], n_res: np.ndarray, m: int
) -> tuple[fmpz_poly, tuple[fmpz_poly, ...]] | None:
    fr = []
    for c in d_res:
        r = _ratrecon(c, m)
        if r is None:
            return None
        fr.append(r)
    L = math.lcm(*(f.denominator for f in fr))
    d_int = [int(f * L) for f in fr]
    # N_i (over Q, D normalised to D(0) = 1) times L are integers
    nums = []
    deg, n = n_res.shape
    for i in range(n):
        col = [_symmetric(int(n_res[k, i]) * L, m) for k in range(deg)]
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


def _verify_identity(
    metric: FiniteMetric,
    numerators: Sequence[fmpz_poly],
    denominator: fmpz_poly,
    rhs: Sequence[Fraction],
) -> bool:
    """Φ(s)·N(s) = D(s)·b over Z[s], checked modulo primes whose product exceeds 2B."""
    n = metric.n
    if len(numerators) != n or len(rhs) != n:
        return False
    _, L, b_ints = _scale_rhs(rhs)
    # Φ N = D b  ⇔  Φ (L N) = D (L b)
    pattern = _Pattern(metric)
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
    primes = _primes(_PRIME_BITS - 1)
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


# keep flint referenced for type checkers of re-exported names
_ = flint


# ------------------------------------------------------------------------------------
# exact sign pattern of z(s) on (0, 1)
@dataclass(frozen=True)
class Breakpoint:
    """A root in (0, 1) of some N_i or of D, with the status of the property there.

    ``status`` is "holds", "fails" or "singular" (a pole of z: Φ(s) is singular and
    the unique-solution argument does not apply; reported, not decided).
    """

    s: AlgebraicNumber
    status: str
    witness: int | None = None


@dataclass(frozen=True)
class SignPattern:
    """Where z(s) ≥ 0 on (0, 1): breakpoints in increasing order and the open gaps between.

    ``gaps[k]`` is the status on the open interval between breakpoint k−1 and k
    (gap 0 starts at s = 0, the last gap ends at s = 1); ``gap_witness[k]`` names a
    component that is negative on a failing gap.
    """

    breakpoints: tuple[Breakpoint, ...]
    gaps: tuple[bool, ...]
    gap_witness: tuple[int | None, ...]
    gap_samples: tuple[Fraction, ...]


def _lowest_sign(p: fmpz_poly) -> int:
    for c in p.coeffs():
        if c != 0:
            return 1 if c > 0 else -1
    return 0


def sign_pattern(sol: RationalSolution, progress: Callable[[str], None] | None = None) -> (
    SignPattern
):
    """Exact signs of every z_i = N_i / D on (0, 1) (roots isolated exactly, no floats).

    Signs start from the lowest-order coefficient (s → 0+) and flip at the roots of odd
    multiplicity of each polynomial; the roots come from the irreducible factors over Z.

    >>> from exactdp.spaces.metrics import line
    >>> pat = sign_pattern(solve_symbolic(line(3)))
    >>> pat.breakpoints, pat.gaps
    ((), (True,))
    """
    polys: list[fmpz_poly] = [sol.denominator, *sol.numerators]
    key_of: dict[tuple[int, ...], int] = {}
    distinct: list[fmpz_poly] = []
    which: list[int] = []
    for p in polys:
        pk = tuple(int(c) for c in p.coeffs())
        if pk not in key_of:
            key_of[pk] = len(distinct)
            distinct.append(p)
        which.append(key_of[pk])
    # factor every distinct polynomial that can have a root in (0, 1)
    mults: list[dict[tuple[int, ...], int]] = []
    factors: dict[tuple[int, ...], fmpz_poly] = {}
    zero, one = Fraction(0), Fraction(1)
    for idx, p in enumerate(distinct):
        m: dict[tuple[int, ...], int] = {}
        if p.degree() >= 1 and descartes_root_count(p, zero, one) > 0:
            _, fl = p.factor()
            for g, e in fl:
                g = _primitive_positive(g)
                gk = tuple(int(c) for c in g.coeffs())
                m[gk] = m.get(gk, 0) + int(e)
                factors[gk] = g
        mults.append(m)
        if progress and idx % 50 == 0:
            progress(f"signs: factored {idx + 1}/{len(distinct)} polynomials")
    roots: list[tuple[AlgebraicNumber, tuple[int, ...]]] = []
    for gk, g in factors.items():
        for a in irreducible_roots_between(g, zero, one):
            roots.append((a, gk))
    items = [(a, 1) for a, _ in roots]
    keys = [gk for _, gk in roots]
    order = sorted(range(len(items)), key=lambda k: _mid(items[k][0]))
    items = [items[k] for k in order]
    keys = [keys[k] for k in order]
    _separate(items)
    # after separation the order is preserved (distinct roots); recompute keys by poly
    keys = [tuple(a.minimal_polynomial) for a, _ in items]
    sgn0 = [_lowest_sign(p) for p in distinct]
    cur = list(sgn0)
    n = sol.n
    gaps: list[bool] = []
    gap_w: list[int | None] = []
    samples: list[Fraction] = []
    bps: list[Breakpoint] = []
    prev_hi = zero

    def status_now() -> tuple[bool, int | None]:
        sd = cur[which[0]]
        for i in range(n):
            if cur[which[i + 1]] * sd < 0:
                return False, i
        return True, None

    for k, (a, _) in enumerate(items):
        lo, hi = a.isolating_interval
        ok, w = status_now()
        gaps.append(ok)
        gap_w.append(w)
        samples.append(_sample_between(prev_hi, lo))
        gk = keys[k]
        mD = mults[which[0]].get(gk, 0)
        pole = any(mults[which[i + 1]].get(gk, 0) < mD for i in range(n)) if mD else False
        if pole:
            bps.append(Breakpoint(a, "singular"))
        else:
            # z_i(root) = 0 where N_i vanishes to higher order, else the (unchanged) side sign
            bad = None
            sd = cur[which[0]]
            for i in range(n):
                if mults[which[i + 1]].get(gk, 0) > mD:
                    continue
                if cur[which[i + 1]] * sd < 0:
                    bad = i
                    break
            bps.append(Breakpoint(a, "holds" if bad is None else "fails", bad))
        for idx in range(len(distinct)):
            if mults[idx].get(gk, 0) % 2 == 1:
                cur[idx] = -cur[idx]
        prev_hi = hi
    ok, w = status_now()
    gaps.append(ok)
    gap_w.append(w)
    samples.append(_sample_between(prev_hi, one))
    return SignPattern(tuple(bps), tuple(gaps), tuple(gap_w), tuple(samples))


def _mid(a: AlgebraicNumber) -> Fraction:
    lo, hi = a.isolating_interval
    return (lo + hi) / 2


def _sample_between(a: Fraction, b: Fraction) -> Fraction:
    return (a + b) / 2
