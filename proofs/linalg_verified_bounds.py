"""Rounding-error bounds behind exactdp.linalg.verified (verified float linear solves).

Notation: u = 2^-53 (unit roundoff of IEEE binary64, round to nearest), eta = 2^-1074
(smallest positive subnormal), gamma_k = k u / (1 - k u), fl(.) = the computed value,
succ/pred = next float up/down (numpy.nextafter), |.| and <= entrywise.

Lemma F1 (one operation). For one IEEE operation op in {+, -, *, /} on floats a, b with
exact result z = a op b and finite fl(z) (round to nearest, subnormals not flushed):
    pred(fl(z)) <= z <= succ(fl(z))     and     |z - fl(z)| <= spacing(|fl(z)|).
Proof. Rounding to nearest is monotone and faithful: z lies between the two floats
adjacent to fl(z), i.e. in [pred(fl z), succ(fl z)]; the larger of the two gaps around
|fl z| is succ(|fl z|) - |fl z| = spacing(|fl z|). (At an overflow fl(z) is infinite and
every later check refuses.) Subnormal flushing (FTZ/DAZ) breaks this; verified_solve
tests for it and refuses.

Lemma F2 (dot products in any order). If s = fl(x^T y) (length k) is computed by ANY
sequence of roundings of products and sums (any order/blocking/threads, with or without
fused multiply-add), then  |s - x^T y| <= gamma_k |x|^T |y| + k eta.
Proof. Each product rounds as x_i y_i (1 + e) + d with |e| <= u, |d| <= eta/2, e d = 0;
each sum rounds as (a + b)(1 + e) (sums of floats are exact in the subnormal range); an
FMA rounds as (a b + c)(1 + e) + d. In any evaluation tree each term passes through at
most k roundings, so s = sum_i x_i y_i prod_{<=k}(1 + e) + sum_i d_i prod_{<=k-1}(1 + e),
and |prod_{<=k}(1 + e) - 1| <= gamma_k (Higham, Accuracy and Stability of Numerical
Algorithms, 2nd ed., Lemma 3.1 and Thm 3.5 / Sec. 3.1). The underflow terms add at most
k (eta/2)(1 + gamma_k) <= k eta.  The code uses the weaker gamma_{k+2} and 2 k eta.
Consequence used throughout: for P, Q >= 0,  PQ <= (fl(PQ) + 2 k eta) / (1 - gamma_{k+2}),
evaluated with F1 (add, then divide by a float <= 1 - gamma_{k+2}, rounding up).
Assumption: BLAS dgemm/dgemv compute classical sums of products (OpenBLAS, MKL, BLIS do;
no Strassen-type algorithm, no reduced-precision accumulation).

Lemma F3 (Krawczyk / Rump). Let R be any real matrix, x~ any vector, A and b fixed, and
G >= |I - R A| with beta = ||G||_inf < 1. Then R and A are nonsingular, and
e = A^{-1} b - x~ satisfies  ||e||_inf <= delta := || |R| |r| ||_inf / (1 - beta)  and
|e| <= |R||r| + (G 1) delta, where r = b - A x~.
Proof. ||I - RA|| < 1 makes RA = I - (I - RA) invertible (Neumann series), hence A.
R A e = R (b - A x~) = R r, so e = R r + (I - RA) e, |e| <= |R||r| + G|e|; taking norms
||e|| <= ||R r|| + beta ||e||, i.e. ||e|| <= delta, and then |e| <= |R||r| + G 1 ||e||.

Lemma F4 (error-free transformations, exactdp/linalg/_accurate.py). With one IEEE
operation per step (numpy ufuncs never fuse): TwoSum (Knuth) gives a + b = s + e exactly
for all finite floats without overflow; Dekker's TwoProduct with Veltkamp splitting
(factor 2^27 + 1) gives a x = p + e exactly when 2^-480 <= |a|, |x| <= 2^480 (then
e_a + e_x >= -960 >= -970 and nothing overflows) or when a product is 0. Hence for the
"safe" part A_s of A, b - A_s x = s + sum_j c_j - sum_ij E_ij exactly (s the TwoSum chain,
c_j its errors, E the product errors); the float sum of the 2k error terms is off by at
most gamma_2k (sum|c| + sum|E|) (F2 for sums: float additions never underflow inexactly),
and sum|c| + sum|E| <= (float sum of them) / (1 - gamma_2k). Unsafe entries (tiny/huge)
go through a plain product bounded by F2. accurate_residual returns (center, err) with
|b - A x - center| <= err; verified_solve then uses y = x + d, d = fl(R center), and
b - A y = (b - A x) - A d, with fl(A d) bounded by F2.

Theorem (what verified_solve returns). With C = fl(R A_mid) and the computed bounds
    G 1 <= |1 - c_ii| + sum_{j != i} |c_ij| + gamma |R| (|A_mid| 1) + n (2 n eta)
           + |R| (A_rad 1),
    |r| <= |fl(b_mid - fl(A_mid x~))| + gamma |A_mid| |x~| + 2 n eta + A_rad |x~| + b_rad,
(gamma = gamma_{n+2}; each computed with F1/F2 so the float values are upper bounds)
every A with |A - A_mid| <= A_rad satisfies |I - RA| <= |I - C| + |C - R A_mid| + |R| A_rad
and every such A and b with |b - b_mid| <= b_rad has |b - A x~| <= the residual bound;
so F3 applies to each of them, and [x~ - rad, x~ + rad] (rounded outward by F1) with
rad >= |R||r| + (G 1) delta contains A^{-1} b.  With accurate=True (default) the
residual bound is the one of F4 for y = x + d, and the box is y +- rad, computed from the
exact split y = y_hi + y_lo (TwoSum) and rounded outward with F1.

This script checks each lemma numerically against exact rational arithmetic on random
and adversarial inputs (massive cancellation, subnormal/underflowing products, huge
exponents, many summation orders, BLAS vs. Python loops), and checks the theorem end to
end: every enclosure returned by verified_solve contains the exact fmpq_mat solution, on
ill-conditioned and scaled systems. Exits non-zero on the first failure.
"""

from __future__ import annotations

import math
import sys
from fractions import Fraction

import flint
import numpy as np

from exactdp.linalg._accurate import accurate_residual, two_product, two_sum, veltkamp_split
from exactdp.linalg.verified import float_enclosure, verified_solve

PROVES = [
    "exactdp.linalg.verified.verified_solve",
    "exactdp.linalg.enclosure.float_enclosure",
    "exactdp.linalg._accurate.accurate_residual",
]

U = Fraction(1, 2**53)
ETA = Fraction(1, 2**1074)
RNG = np.random.default_rng(20261129)
FAILURES: list[str] = []


def gamma(k: int) -> Fraction:
    return k * U / (1 - k * U)


def check(cond: bool, what: str) -> None:
    if not cond:
        FAILURES.append(what)
        print("FAIL:", what)


def F(x: float) -> Fraction:
    return Fraction(float(x))


# ------------------------------------------------------------------------------ F1


def adversarial_floats(m: int) -> np.ndarray:
    parts = [
        RNG.standard_normal(m),
        RNG.standard_normal(m) * 2.0 ** RNG.integers(-1074, 1000, m),
        2.0 ** RNG.integers(-1074, 1020, m).astype(np.float64),  # powers of two (binade edges)
        np.nextafter(2.0 ** RNG.integers(-1000, 1000, m).astype(np.float64), 0.0),
        RNG.integers(1, 2**20, m) * 2.0**-1074,  # subnormals
    ]
    x = np.concatenate(parts)
    signs = RNG.choice([-1.0, 1.0], x.size)
    return np.asarray(x * signs)


def check_F1() -> None:
    a = adversarial_floats(400)
    b = RNG.permutation(adversarial_floats(400))
    with np.errstate(all="ignore"):
        results = {"+": a + b, "-": a - b, "*": a * b, "/": a / b}
    count = 0
    for op, res in results.items():
        for x, y, z in zip(a, b, res):
            if not math.isfinite(z) or (op == "/" and y == 0):
                continue
            fx, fy = F(x), F(y)
            exact = {"+": fx + fy, "-": fx - fy, "*": fx * fy, "/": fx / fy if fy else None}[op]
            assert exact is not None
            lo = F(np.nextafter(z, -np.inf))
            hi = F(np.nextafter(z, np.inf))
            check(lo <= exact <= hi, f"F1 bracket {x!r} {op} {y!r}")
            check(abs(exact - F(z)) <= F(np.spacing(abs(z))), f"F1 spacing {x!r} {op} {y!r}")
            count += 1
    print(f"F1: {count} single operations bracketed by pred/succ and spacing")


# ------------------------------------------------------------------------------ F2


def dot_orders(x: np.ndarray, y: np.ndarray) -> list[float]:
    """The same dot product computed in several different orders/algorithms."""
    prods = x * y
    outs = [float(x @ y), float(np.dot(x[::-1], y[::-1])), float(np.sum(prods))]
    s = 0.0
    for p in prods:  # sequential, left to right
        s += float(p)
    outs.append(s)
    s = 0.0
    for p in sorted(prods, key=abs, reverse=True):  # decreasing magnitude
        s += float(p)
    outs.append(s)
    vals = list(prods)  # pairwise
    while len(vals) > 1:
        vals = [vals[i] + vals[i + 1] if i + 1 < len(vals) else vals[i] for i in range(0, len(vals), 2)]
    outs.append(float(vals[0]) if vals else 0.0)
    # blocked matrix-vector through BLAS with a random column order
    perm = RNG.permutation(len(x))
    outs.append(float((np.vstack([x[perm], x[perm]]) @ y[perm])[1]))
    return outs


def adversarial_vectors(k: int, kind: str) -> tuple[np.ndarray, np.ndarray]:
    if kind == "random":
        return RNG.standard_normal(k), RNG.standard_normal(k)
    if kind == "cancel":  # huge cancellation: x^T y tiny compared with |x|^T|y|
        h = RNG.standard_normal(k // 2)
        x = np.concatenate([h, h * (1 + 2.0**-40 * RNG.standard_normal(k // 2))])
        y = np.concatenate([np.ones(k // 2), -np.ones(k // 2)])
        return x, y
    if kind == "scales":
        return (
            RNG.standard_normal(k) * 2.0 ** RNG.integers(-300, 300, k),
            RNG.standard_normal(k) * 2.0 ** RNG.integers(-300, 300, k),
        )
    if kind == "underflow":  # products in and below the subnormal range
        return (
            RNG.standard_normal(k) * 2.0 ** RNG.integers(-560, -500, k),
            RNG.standard_normal(k) * 2.0 ** RNG.integers(-560, -500, k),
        )
    raise ValueError(kind)


def check_F2() -> None:
    worst = 0.0
    count = 0
    for kind in ("random", "cancel", "scales", "underflow"):
        for k in (2, 7, 64, 257):
            for _ in range(3):
                x, y = adversarial_vectors(k, kind)
                exact = sum((F(a) * F(b) for a, b in zip(x, y)), Fraction(0))
                absdot = sum((abs(F(a) * F(b)) for a, b in zip(x, y)), Fraction(0))
                bound = gamma(k) * absdot + k * ETA  # the lemma (the code uses a weaker one)
                for s in dot_orders(x, y):
                    err = abs(F(s) - exact)
                    check(err <= bound, f"F2 {kind} k={k}: error {float(err)} > {float(bound)}")
                    if bound > 0:
                        worst = max(worst, float(err / bound))
                    count += 1
    # the nonnegative consequence, through the code's own helper
    from exactdp.linalg.verified import ProductBounds

    for k in (3, 50, 300):
        P = np.abs(RNG.standard_normal((4, k))) * 2.0 ** RNG.integers(-600, 5, (4, k))
        v = np.abs(RNG.standard_normal(k))
        up = ProductBounds(k).nonneg_product_upper(P, v)
        for i in range(4):
            exact = sum((F(P[i, j]) * F(v[j]) for j in range(k)), Fraction(0))
            check(exact <= F(up[i]), f"F2 consequence k={k} row {i}")
    print(f"F2: {count} dot products in 7 orders within gamma_k|x||y| + k eta (worst error/bound ratio {worst:.3f})")


# ------------------------------------------------------------------------------ F3


def check_F3() -> None:
    count = 0
    for _ in range(40):
        n = int(RNG.integers(2, 7))
        A = [[Fraction(int(RNG.integers(-9, 10)), int(RNG.integers(1, 6))) for _ in range(n)] for _ in range(n)]
        for i in range(n):
            A[i][i] += n * 3
        b = [Fraction(int(RNG.integers(-9, 10))) for _ in range(n)]
        Aq = flint.fmpq_mat(n, n, [flint.fmpq(q.numerator, q.denominator) for r in A for q in r])
        Af = np.array([[float(q) for q in r] for r in A])
        R = np.linalg.inv(Af) * (1 + 1e-3 * RNG.standard_normal((n, n)))  # a poor R on purpose
        xt = R @ np.array([float(q) for q in b]) + 1e-4 * RNG.standard_normal(n)
        Rq = [[F(v) for v in row] for row in R]
        G = [
            [abs((1 if i == j else 0) - sum((Rq[i][k] * A[k][j] for k in range(n)), Fraction(0))) for j in range(n)]
            for i in range(n)
        ]
        g1 = [sum(row, Fraction(0)) for row in G]
        beta = max(g1)
        if beta >= 1:
            continue
        r = [b[i] - sum((A[i][j] * F(xt[j]) for j in range(n)), Fraction(0)) for i in range(n)]
        Rr = [sum((abs(Rq[i][k]) * abs(r[k]) for k in range(n)), Fraction(0)) for i in range(n)]
        delta = max(Rr) / (1 - beta)
        xq = Aq.solve(flint.fmpq_mat(n, 1, [flint.fmpq(q.numerator, q.denominator) for q in b]))
        for i in range(n):
            e = Fraction(int(xq[i, 0].p), int(xq[i, 0].q)) - F(xt[i])
            check(abs(e) <= delta, "F3 norm bound")
            check(abs(e) <= Rr[i] + g1[i] * delta, "F3 componentwise bound")
        count += 1
    print(f"F3: Krawczyk bound verified exactly on {count} random systems with poor R and x~")


# ------------------------------------------------------------------------------ F4


def check_F4() -> None:
    a = adversarial_floats(300)
    b = RNG.permutation(adversarial_floats(300))
    with np.errstate(all="ignore"):
        s, e = two_sum(a, b)
    count = 0
    for x, y, hi, lo in zip(a, b, s, e):
        if math.isfinite(hi) and math.isfinite(lo):
            check(F(x) + F(y) == F(hi) + F(lo), f"F4 TwoSum {x!r} + {y!r}")
            count += 1
    # TwoProduct in the safe range, including its edges
    m = 2000
    a = RNG.standard_normal(m) * 2.0 ** RNG.integers(-480, 479, m)
    x = RNG.standard_normal(m) * 2.0 ** RNG.integers(-480, 479, m)
    edges = np.array([2.0**-480, 2.0**480, -(2.0**-480), np.nextafter(2.0**480, 0.0)])
    a = np.concatenate([a, edges, edges])
    x = np.concatenate([x, edges, edges[::-1]])
    a_hi, a_lo = veltkamp_split(a)
    p, e = two_product(a, a_hi, a_lo, x)
    for u, v, pp, ee in zip(a, x, p, e):
        if 2.0**-480 <= abs(u) <= 2.0**480 and 2.0**-480 <= abs(v) <= 2.0**480:
            check(F(u) * F(v) == F(pp) + F(ee), f"F4 TwoProduct {u!r} * {v!r}")
            count += 1
    # accurate_residual: rigorous and much tighter than a plain residual
    ratios = []
    for trial in range(30):
        n = int(RNG.integers(1, 40))
        A = RNG.standard_normal((n, n))
        if trial % 3 == 1:
            A = A * 2.0 ** RNG.integers(-700, 600, (n, n))  # many unsafe entries
        xv = np.linalg.solve(A + 4 * np.eye(n), np.ones(n))
        if trial % 3 == 2:
            xv = xv * 2.0 ** RNG.integers(-600, 500, n)
        bv = A @ xv
        c, err = accurate_residual(A, bv, xv)
        for i in range(n):
            exact = F(bv[i]) - sum((F(A[i, j]) * F(xv[j]) for j in range(n)), Fraction(0))
            check(abs(exact - F(c[i])) <= F(err[i]), "F4 accurate_residual bound")
            count += 1
            if trial % 3 == 0 and err[i] > 0:
                plain = gamma(n) * sum((abs(F(A[i, j]) * F(xv[j])) for j in range(n)), Fraction(0))
                ratios.append(float(plain / F(err[i])))
    print(
        f"F4: {count} exact identities/bounds; accurate residual bounds are "
        f"{min(ratios):.1e}x to {max(ratios):.1e}x tighter than the plain gamma_n bound"
    )


# ------------------------------------------------------------------------------ theorem


def exact_solve(rows: list[list[Fraction]], rhs: list[Fraction]) -> list[Fraction]:
    n = len(rows)
    A = flint.fmpq_mat(n, n, [flint.fmpq(q.numerator, q.denominator) for r in rows for q in r])
    b = flint.fmpq_mat(n, 1, [flint.fmpq(q.numerator, q.denominator) for q in rhs])
    x = A.solve(b)
    return [Fraction(int(x[i, 0].p), int(x[i, 0].q)) for i in range(n)]


def enclose(rows: list[list[Fraction]]) -> tuple[np.ndarray, np.ndarray]:
    with flint.ctx.workprec(90):
        return float_enclosure([[flint.arb(flint.fmpq(q.numerator, q.denominator)) for q in r] for r in rows])


def check_system(rows: list[list[Fraction]], rhs: list[Fraction], label: str) -> str:
    mid, rad = enclose(rows)
    bmid, brad = enclose([rhs])
    x = None
    result = "none"
    for accurate in (True, False):
        enc = verified_solve(mid, rad, bmid[0], brad[0], accurate=accurate)
        if enc is None:
            continue
        x = exact_solve(rows, rhs) if x is None else x
        ok = all(F(lo) <= q <= F(hi) for q, lo, hi in zip(x, enc.lo, enc.hi))
        check(ok, f"theorem: enclosure misses the exact solution ({label}, {accurate=})")
        result = "ok"
    return result


def check_theorem() -> None:
    tally: dict[str, int] = {"ok": 0, "none": 0}
    # Hilbert matrices up to and beyond double-precision verifiability
    for n in range(2, 15):
        rows = [[Fraction(1, i + j + 1) for j in range(n)] for i in range(n)]
        tally[check_system(rows, [Fraction(1)] * n, f"Hilbert {n}")] += 1
    # random matrices with prescribed condition numbers up to 1e16, scaled by 2^k
    for cond_exp in (2, 6, 10, 13, 14, 15, 16):
        for scale in (-900, -300, 0, 300, 900):
            n = 8
            Q1, _ = np.linalg.qr(RNG.standard_normal((n, n)))
            Q2, _ = np.linalg.qr(RNG.standard_normal((n, n)))
            S = np.diag(np.logspace(0, -cond_exp, n))
            M = (Q1 @ S @ Q2) * 2.0**scale
            rows = [[F(v) for v in r] for r in M]
            rhs = [F(v) for v in RNG.standard_normal(n) * 2.0**scale]
            tally[check_system(rows, rhs, f"cond 1e{cond_exp} scale 2^{scale}")] += 1
    # Kahan-like triangular matrices (badly conditioned, ill-scaled)
    for n in (10, 30, 60):
        c = Fraction(1, 2)
        rows = [[Fraction(0) if j < i else (Fraction(1) if i == j else -c) for j in range(n)] for i in range(n)]
        tally[check_system(rows, [Fraction(1)] * n, f"Kahan {n}")] += 1
    # the library's matrices near t = 1 (ill-conditioned) and with underflowing entries
    for n, t, step in (
        (120, Fraction(99, 100), 1),
        (150, Fraction(999, 1000), 5),
        (400, Fraction(1, 20), 1),
        (60, Fraction(1, 2**30), 1),
    ):
        powers = [t**k for k in range(n + 1)]
        rows = [[powers[math.ceil(abs(i - j) / step)] for j in range(n)] for i in range(n)]
        tally[check_system(rows, [Fraction(1)] * n, f"Toeplitz n={n} t={t}")] += 1
    # interval data: vertices of the input box must be enclosed too
    for _ in range(20):
        n = 5
        A = RNG.standard_normal((n, n)) + 3 * np.eye(n)
        Ar = 1e-4 * np.abs(A)
        b = RNG.standard_normal(n)
        br = 1e-4 * np.abs(b)
        enc = verified_solve(A, Ar, b, br)
        if enc is None:
            tally["none"] += 1
            continue
        for _ in range(5):
            sA = RNG.choice([-1, 1], (n, n))
            sb = RNG.choice([-1, 1], n)
            rows = [[F(A[i, j]) + sA[i, j] * F(Ar[i, j]) for j in range(n)] for i in range(n)]
            rhs = [F(b[i]) + sb[i] * F(br[i]) for i in range(n)]
            x = exact_solve(rows, rhs)
            check(
                all(F(lo) <= q <= F(hi) for q, lo, hi in zip(x, enc.lo, enc.hi)),
                "theorem: vertex of the interval box outside the enclosure",
            )
        tally["ok"] += 1
    print(
        f"Theorem: {tally['ok']} enclosures contain the exact solutions; "
        f"{tally['none']} refusals (None), no wrong answer"
    )


def main() -> int:
    check_F1()
    check_F2()
    check_F3()
    check_F4()
    check_theorem()
    if FAILURES:
        print(f"{len(FAILURES)} failure(s)")
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
