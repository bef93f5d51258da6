"""Theorem (lifting lemma of an equitable partition; colour refinement finds the coarsest one).

Let d be a metric on points 0..n−1, Φ(s)[i, j] = s^{q·d(i, j)}, and C_0 … C_{m−1} a partition
of the points with cell map c(i). It is *equitable* when for all cells A, B and every
distance r, #{j ∈ B : d(i, j) = r} is the same for every i ∈ A. Then:

(a) Φ̃[A, B](s) = Σ_{j∈B} s^{q·d(i, j)} does not depend on i ∈ A, and for every vector
    z̃ ∈ Q(s)^m its lift z_i = z̃_{c(i)} satisfies (Φz)_i = (Φ̃z̃)_{c(i)}.
    Proof: (Φz)_i = Σ_B Σ_{j∈B} s^{q·d(i,j)} z̃_B = Σ_B Φ̃[c(i), B] z̃_B, the inner sum being
    Σ_r #{j ∈ B : d(i, j) = r}·s^{qr}, the same for every i in the cell of i.
(b) Hence if b is constant on cells (b_i = b̃_{c(i)}) and Φ̃(s)N(s) = D(s)·b̃ over Z[s],
    then z_i = N_{c(i)}/D satisfies Φ(s)z(s) = b wherever D(s) ≠ 0; when Φ(s) is
    nonsingular it is THE solution (so Φ⁻¹b is constant on cells).
(c) Colour refinement from b's level sets (new colour of i = old colour of i with the
    multiset {(colour(j), d(i, j))}_j) stops at an equitable partition (stable: the
    multiset, hence every count #{j ∈ B : d(i, j) = r}, is a function of i's colour), and
    every equitable partition P on which b is constant refines every round's colouring
    (induction: if P refines round k, two points in one cell of P see the same counts per
    (cell of P, r), hence per (colour of round k, r) — a union of cells of P — so they get
    the same colour in round k + 1). So the stable colouring is the coarsest such partition.
(d) (Kronecker substitution, used to check (b)'s identity) If P ∈ Z[s] has every
    |coefficient| < 2^β/2 and P(2^β) = 0, then P = 0. Proof: otherwise write
    P = s^t(c + s·R) with c ≠ 0 the lowest coefficient; c + 2^β·R(2^β) = 0 would need
    |c| = 2^β·|R(2^β)|, which is 0 or ≥ 2^β > |c|.

Checked below: (a) symbolically (sympy, generic symbols z̃_A) on random metrics with a
planted symmetry σ and on count_queries / grids / lines; (b) exactly at rational s against
the dense exact solve; (c) the refinement's cells are unions of σ-orbits (which are
equitable) and are equitable themselves; the kernel's
:func:`exactdp.kernel.threshold_quotient.quotient_terms` accepts them and rejects every
partition obtained by moving one point to another cell when that breaks equitability
(decided by brute force here).
"""

import random
from fractions import Fraction

import sympy

from exactdp.algebra.equitable import coarsest_equitable_partition, solve_quotient
from exactdp.kernel.threshold_quotient import quotient_identity_holds, quotient_terms
from exactdp.spaces.metrics import count_queries, from_matrix, grid, line

PROVES = ["exactdp.kernel.threshold_quotient.quotient_terms",
          "exactdp.kernel.threshold_quotient.quotient_identity_holds",
          "exactdp.algebra.equitable.solve_quotient"]

rng = random.Random(1818)
s = sympy.Symbol("s")


def planted(k: int, order: int):
    """A random integer metric on k·order points invariant under σ: (x, a) ↦ (x, a + 1)."""
    n = k * order
    sig = [(i // order) * order + (i % order + 1) % order for i in range(n)]
    d = [[0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            if d[i][j] == 0:
                w = rng.randint(1, 4)
                a, b = i, j
                for _ in range(order):
                    d[a][b] = d[b][a] = w
                    a, b = sig[a], sig[b]
    for m in range(n):  # shortest-path closure keeps σ-invariance and makes a metric
        for i in range(n):
            for j in range(n):
                d[i][j] = min(d[i][j], d[i][m] + d[m][j])
    orbits = [min(i, *(sig_pow(sig, i, t) for t in range(order))) for i in range(n)]
    return from_matrix(d), orbits


def sig_pow(sig, i, t):
    for _ in range(t):
        i = sig[i]
    return i


def equitable_brute(d, cells) -> bool:
    n = len(cells)
    seen = {}
    for i in range(n):
        sig = sorted((cells[j], d[i][j]) for j in range(n))
        if seen.setdefault(cells[i], sig) != sig:
            return False
    return True


checked = 0
cases = [planted(k, o) for k in (2, 3, 4) for o in (2, 3) for _ in range(3)]
cases += [(m, None) for m in (count_queries(3), count_queries(4), grid(4, 4, "manhattan"),
                              grid(3, 5, "chebyshev"), line(6))]
for metric, orbits in cases:
    n = metric.n
    E = metric.exponent_matrix()
    d = [[int(x) for x in row] for row in E]
    part = coarsest_equitable_partition(metric)
    cells = part.cells
    assert equitable_brute(d, cells)  # (c) stable ⇒ equitable
    if orbits is not None:  # (c) coarsest: σ-orbits (equitable) refine the stable partition
        assert equitable_brute(d, [orbits[i] for i in range(n)])
        assert all(cells[i] == cells[j] for i in range(n) for j in range(n)
                   if orbits[i] == orbits[j])
    terms = quotient_terms(metric, cells)
    assert terms is not None
    # (a) symbolically: Φ·lift(z̃) = lift(Φ̃·z̃)
    zt = sympy.symbols(f"z0:{part.size}")
    reps = [int(r) for r in terms.reps]
    phit = [[sum(s ** d[reps[a]][j] for j in range(n) if cells[j] == b)
             for b in range(part.size)] for a in range(part.size)]
    for i in range(n):
        lhs = sum(s ** d[i][j] * zt[cells[j]] for j in range(n))
        rhs = sum(phit[cells[i]][b] * zt[b] for b in range(part.size))
        assert sympy.expand(lhs - rhs) == 0
    acc: dict[tuple[int, int], sympy.Expr] = {}  # the kernel's terms, summed entry by entry
    for a, b, e, k in zip(terms.rows.tolist(), terms.cols.tolist(), terms.exps.tolist(),
                          terms.counts.tolist()):
        acc[a, b] = acc.get((a, b), 0) + k * s ** e
    assert all(sympy.expand(acc.get((a, b), 0) - phit[a][b]) == 0
               for a in range(part.size) for b in range(part.size))
    # (b) the exact quotient solution lifts to the dense solution at a rational s
    sol = solve_quotient(metric, partition=part)
    assert quotient_identity_holds(terms, sol.numerators, sol.denominator, [Fraction(1)] * part.size)
    t = sympy.Rational(1, 3)
    dense = sympy.Matrix([[t ** x for x in row] for row in d]).LUsolve(sympy.ones(n, 1))
    den = sum(int(c) * t ** k for k, c in enumerate(sol.denominator.coeffs()))
    for i in range(n):
        num = sum(int(c) * t ** k for k, c in enumerate(sol.numerators[cells[i]].coeffs()))
        assert dense[i] == num / den
    bad = list(sol.numerators)
    bad[0] = bad[0] + 1
    assert not quotient_identity_holds(terms, bad, sol.denominator, [Fraction(1)] * part.size)
    # the kernel rejects partitions that are not equitable (one point moved)
    for _ in range(5):
        i = rng.randrange(n)
        moved = list(cells)
        moved[i] = rng.randrange(part.size)
        labels: dict[int, int] = {}
        canon = [labels.setdefault(c, len(labels)) for c in moved]
        assert (quotient_terms(metric, canon) is not None) == equitable_brute(d, canon)
    checked += 1

# (d) exhaustively on small P (|coefficients| < 2^β/2, β = 3) and randomly on large ones
beta = 3
for digits in range(1, 4):
    for code in range(7 ** digits):
        co = [(code // 7 ** k) % 7 - 3 for k in range(digits)]
        assert (sum(c << (beta * k) for k, c in enumerate(co)) == 0) == all(c == 0 for c in co)
for _ in range(2000):
    co = [rng.randint(-(2 ** 40), 2 ** 40) for _ in range(rng.randint(1, 30))]
    co[rng.randrange(len(co))] = 0
    val = sum(c << (42 * k) for k, c in enumerate(co))
    assert (val == 0) == all(c == 0 for c in co)

print(f"lifting lemma, refinement and kernel equitability: {checked} metrics checked exactly")
