"""Thm. 4 remap certificates at a rational ε: the kernel's checks in Q(x) are the theorem's.

Setting: a metric with distances d = k/q (k, q integers, q ≥ 1), a rational ε > 0, a
positive integer b and x = e^{-ε/(q·b)} (0 < x < 1). A mechanism H (n × m) is given by
H[y, z] = N_{yz}(x)/D_{j(y,z)}(x), N, D ∈ Q[x]; Φ[y, y'] = e^{-ε·d(y, y')}.

Lemma 1 (Φ and privacy in x). e^{-ε·k/q} = (e^{-ε/(q·b)})^{b·k} = x^{b·k}, so Φ[y, y'] =
x^{b·k(y, y')}; and H[y, z] ≤ e^{ε·d}·H[y', z] ⇔ x^{b·k}·H[y, z] − H[y', z] ≤ 0.
  Proof. Exponent arithmetic; multiply by e^{-εd} = x^{bk} > 0. ∎

Lemma 2 (signs and identities at x). Let every D_j(x) ≠ 0 (certified: its ball excludes 0).
(a) If N ≡ D in Q[x] then N(x)/D(x) = 1; more generally Σ_i N_i/D_i ≡ 1 as rational
functions implies Σ_i N_i(x)/D_i(x) = 1 (evaluation at x is a ring map on the
denominators' localisation). The kernel tests Σ_i N_i/D_{j_i} ≡ 1 without gcds: with L the
product of the distinct D_j of the sum (L ≠ 0), it holds iff Σ_i N_i·(L/D_{j_i}) = L in
Q[x] (multiply by L; Q(x) is a field), L/D_j being the product of the other D_j; likewise
Φ·diag(HR) ≡ 1 times the product of all D_j. (b) sign(N(x)/D(x)) = sign N(x) · sign D(x), and
x^{bk}·N_a/D_a − N_c/D_c = (x^{bk}·N_a·D_c − N_c·D_a)/(D_a·D_c) (D_c = D_a = D: the
numerator is x^{bk}·N_a − N_c over D). (c) With w rational and g_y = Σ_r w_r·x^{b·k(r, y)},
(Aᵀw)[z, y] = H[y, z]·g_y(x) + w_{n+z} = (g_y·N + w_{n+z}·D)(x)/D(x)
(``proofs/qif_optimality_reduction.py``, Thm. 3). A ball that excludes 0 has the sign of
every point in it, so each decided sign is the true sign at x, whatever x is: soundness
uses neither transcendence nor the precision reached.

Lemma 3 (termination, not needed for soundness). ε/(q·b) is a nonzero rational, so x is
transcendental (Lindemann–Weierstrass); a nonzero P ∈ Q[x] has P(x) ≠ 0, so balls of
rising precision decide its sign. The kernel stops at a stated cap (undecided → not
verified), so a document that needs more precision is rejected, never accepted.

Lemma 4 (one spelling). A rational function has exactly one representation N/D with
gcd(N, D) = 1 and D monic; the distinct denominators are numbered in first-use order
(row-major over the entries), so their list and the indices are determined by the entries.
If every exponent of every N, D were a multiple of g > 1 with g | b, then x' = x^g and
b' = b/g would spell the same question with other polynomials;
the condition gcd(b, all exponents) = 1 excludes that. Hence editing any coefficient,
exponent, denominator index, the order of the denominators or b changes the mechanism (or
is refused as non-canonical).

This script checks Lemma 1 symbolically, Lemma 2 and the kernel's verdicts against an
independent 50-digit mpmath evaluation on random small instances (truncated geometric and
exponential mechanisms, random ε, random tampering of a Farkas vector), and Lemma 4's
normal form with sympy.
"""

import random
import sys
from fractions import Fraction

import mpmath
import sympy as sp

from exactdp.kernel.remap_qx import check_remap_qx
from exactdp.mechanisms.constructors import exponential_mechanism, from_rows, truncated_geometric
from exactdp.mechanisms.optimality_json import qx_question
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics import line

PROVES = ["exactdp.kernel.remap_qx.check_remap_qx"]


def check(cond: bool, what: str) -> None:
    if not cond:
        print("FAILED:", what)
        sys.exit(1)


def lemma1() -> None:
    eps, k, q, b = sp.symbols("epsilon k q b", positive=True)
    x = sp.exp(-eps / (q * b))
    check(sp.simplify(sp.powsimp(x ** (b * k)) - sp.exp(-eps * k / q)) == 0, "lemma 1: x^(bk) = e^(-eps d)")


def values(q, dps=50):
    """H and Φ at x in mpmath (independent of the kernel's ball code)."""
    with mpmath.workdps(dps):
        x = mpmath.exp(-mpmath.mpf(q.level.eps_rational.numerator) / q.level.eps_rational.denominator
                       / (q.metric.q * q.b))

        def ev(p):
            return sum((mpmath.mpf(int(c.p)) / int(c.q) * x**e for e, c in enumerate(p.coeffs())), mpmath.mpf(0))
        H = [[ev(p) / ev(q.dens[j]) for j, p in row] for row in q.entries]
        idx, ks = q.metric.index.tolist(), [int(k) for k in q.metric.exponents]
        Phi = [[x ** (q.b * ks[k]) for k in row] for row in idx]
        return H, Phi


def truth(q, holds, ev):
    """The claim decided at 50 digits: privacy, then the remap equations or Farkas inequalities."""
    with mpmath.workdps(50):
        H, Phi = values(q)
        n, m, tol = len(H), len(H[0]), mpmath.mpf(10) ** -40
        private = all(Phi[a][c] * H[a][z] <= H[c][z] + tol for a in range(n) for c in range(n) for z in range(m))
        if not private:
            return False
        if holds:
            return all(abs(sum(Phi[y][y2] * H[y2][z] * ev[z][y2] for y2 in range(n) for z in range(m)) - 1) < tol
                       for y in range(n))
        if sum(ev) >= 0:
            return False
        return all(H[y][z] * sum(ev[r] * Phi[r][y] for r in range(n)) + ev[n + z] > tol
                   for y in range(n) for z in range(m))


def farkas_vector(q):
    """w = (−1, …, −1, μ̄) with μ̄_z a rational just above max_y c_y H[y, z] (50 digits)."""
    with mpmath.workdps(50):
        H, Phi = values(q)
        n, m = len(H), len(H[0])
        c = [sum(Phi[r][y] for r in range(n)) for y in range(n)]
        mu = [max(c[y] * H[y][z] for y in range(n)) for z in range(m)]
        up = [Fraction(int(mpmath.floor(v * 10**30)) + 1, 10**30) for v in mu]
    return tuple([Fraction(-1)] * n + up)


def lemma2_random() -> None:
    rng = random.Random(20261202)
    seen = {True: 0, False: 0}
    for trial in range(12):
        n = rng.randint(2, 4)
        eps = Fraction(rng.randint(1, 7), rng.randint(1, 4))
        kind = trial % 3
        if kind == 0:
            H = truncated_geometric(n, eps=eps)
        elif kind == 1:
            H = exponential_mechanism(line(n), eps=eps)
        else:
            H = from_rows([[Fraction(1, n)] * n] * n)
        q = qx_question(H, line(n), parse_level(eps=eps))
        ident = tuple(tuple(Fraction(int(y == z)) for y in range(n)) for z in range(n))
        got, want = check_remap_qx(q, True, ident), truth(q, True, ident)
        check(got == want, f"remap verdict {got} != truth {want} (trial {trial})")
        seen[got] += 1
        w = farkas_vector(q)
        got, want = check_remap_qx(q, False, w), truth(q, False, w)
        check(got == want, f"farkas verdict {got} != truth {want} (trial {trial})")
        seen[got] += 1
        bad = list(w)
        z = rng.randrange(n, len(w))
        bad[z] = bad[z] / 2  # lowering one μ̄ below its maximum breaks Aᵀw ≥ 0
        check(not check_remap_qx(q, False, tuple(bad)) and not truth(q, False, tuple(bad)), "tampered w")
    check(seen[True] >= 4 and seen[False] >= 4, f"both verdicts occur: {seen}")


def lemma2_cofactors() -> None:
    """Σ N_i/D_{j_i} ≡ 1 ⇔ Σ N_i·(L/D_{j_i}) = L (L = Π distinct D_j), on random sums whose
    denominators share factors (so L is not their lcm) and on ones built to sum to 1."""
    s, rng, seen = sp.Symbol("x"), random.Random(7), set()
    pool = [s + 1, s + 2, (s + 1) * (s + 2), s**2 + 3]
    for trial in range(40):
        dens = rng.sample(pool, rng.randint(1, 3))
        terms = [(sp.Integer(rng.randint(-3, 3)) + rng.randint(0, 2) * s, rng.randrange(len(dens))) for _ in range(3)]
        if trial % 2:  # make it ≡ 1: the last term is D_j·(1 − the others) / D_j
            rest = sum(n / dens[j] for n, j in terms[:-1])
            j = terms[-1][1]
            terms[-1] = (sp.cancel((1 - rest) * dens[j]), j)
            if sp.fraction(sp.cancel(terms[-1][0]))[1] != 1:
                continue
        big = sp.prod(dens)
        lhs = sp.expand(sum(n * sp.cancel(big / dens[j]) for n, j in terms))
        truth = sp.cancel(sum(n / dens[j] for n, j in terms)) == 1
        check((lhs == sp.expand(big)) == truth, "cofactor identity")
        seen.add(truth)
    check(seen == {True, False}, "both outcomes occur")


def lemma4() -> None:
    s = sp.Symbol("x")
    f = (1 - s**2) / (2 + 2 * s)
    num, den = sp.fraction(sp.cancel(f))
    lead = sp.Poly(den, s).LC()
    check(sp.expand(num / lead) == sp.Rational(1, 2) - s / 2 and sp.expand(den / lead) == 1, "normal form")
    # every exponent a multiple of 2 and b = 2: the same values with x' = x^2, b' = 1
    x, eps = sp.symbols("x epsilon", positive=True)
    check(sp.simplify(sp.exp(-eps / 2) ** 2 - sp.exp(-eps)) == 0, "x^g respells the question")


if __name__ == "__main__":
    lemma1()
    lemma2_random()
    lemma2_cofactors()
    lemma4()
    print("kernel_remap_qx: all checks passed")
