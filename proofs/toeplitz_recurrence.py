"""Theorem (the row sums of a repeating Toeplitz Φ by recurrence; persymmetry; issue 18).

Let Φ[i, j] = a_{|i−j|} with a_{k+v} = s^c·a_k (k ≥ 0) and N_0, …, N_{n−1} any
polynomials. Define left[i] = Σ_{j ≤ i} a_{i−j} N_j and right[i] = Σ_{j > i} a_{j−i} N_j.
Then (ΦN)_i = left[i] + right[i] and

    left[i]  = Σ_{0 ≤ d < min(v, i+1)} a_d N_{i−d} + s^c·left[i − v]     (left[i − v] := 0 for i < v),
    right[i] = Σ_{1 ≤ d ≤ v, i+d < n} a_d N_{i+d} + s^c·right[i + v]     (right[i + v] := 0 for i + v ≥ n).

Proof: Σ_{j ≤ i−v} a_{i−j} N_j = Σ_{j ≤ i−v} s^c a_{i−v−j} N_j = s^c·left[i − v] (the
hypothesis at k = i − v − j ≥ 0), and the remaining terms j = i − d, 0 ≤ d < v, are the
first sum; the right sums are the mirror image (k = j − i − v ≥ 1 − … ≥ 0 for j > i + v,
d = j − i ∈ [1, v] for the rest). The kernel checks Φ(s)N(s) = D(s)·1 with these
recurrences in O(n·v) polynomial operations
(:func:`exactdp.kernel.threshold_structured.mirror_identity_holds`).

Persymmetry (used by :func:`exactdp.algebra.toeplitz.solve_toeplitz_ones` to compute only
half of z): JΦJ = Φ (J the reversal) and J1 = 1, and Φ(s) is invertible over Q(s)
(Φ(0) = I, so det Φ is a nonzero polynomial); hence z = Φ⁻¹1 = JΦ⁻¹J1 = Jz, i.e.
z_i = z_{n−1−i}. (The kernel does not rely on it: it checks the identity for the mirrored
vector itself.)

Checked below exactly with random integer polynomials N and random repeating exponents
for v = 1…6, c = 1, 2, n = 1…3v+3, against the dense product, and the kernel function on
true and perturbed solutions.
"""

import random

import flint

from exactdp.algebra.symbolic import solve_symbolic
from exactdp.algebra.toeplitz import solve_toeplitz_ones
from exactdp.kernel.threshold_structured import mirror_identity_holds
from exactdp.spaces.metrics import line, sum_query

PROVES = ["exactdp.kernel.threshold_structured.mirror_identity_holds",
          "exactdp.algebra.toeplitz.solve_toeplitz_ones"]

rng = random.Random(1818)


def mono(k):
    return flint.fmpz_poly([0] * k + [1])


checked = 0
for v in range(1, 7):
    for c in (1, 2):
        base = [0] + [rng.randint(1, 4) for _ in range(v - 1)]
        for n in range(1, 3 * v + 4):
            e = [base[k % v] + c * (k // v) for k in range(n)]
            N = [flint.fmpz_poly([rng.randint(-5, 5) for _ in range(rng.randint(0, 4))])
                 for _ in range(n)]
            dense = [sum((mono(e[abs(i - j)]) * N[j] for j in range(n)), flint.fmpz_poly([]))
                     for i in range(n)]
            a = [mono(x) for x in e[:v + 1]] + [mono(0)] * max(0, v + 1 - n)
            left = []
            for i in range(n):
                acc = sum((a[d] * N[i - d] for d in range(min(v, i + 1))), flint.fmpz_poly([]))
                left.append(acc + (mono(c) * left[i - v] if i >= v else 0))
            right = [flint.fmpz_poly([])] * n
            for i in range(n - 1, -1, -1):
                acc = sum((a[d] * N[i + d] for d in range(1, v + 1) if i + d < n),
                          flint.fmpz_poly([]))
                right[i] = acc + (mono(c) * right[i + v] if i + v < n else 0)
            assert all(left[i] + right[i] == dense[i] for i in range(n))
            checked += 1

# persymmetry and the kernel's identity check on true / perturbed solutions
for m in (line(9), sum_query(3, 2), sum_query(4, 3), sum_query(3, 5), sum_query(2, 6)):
    sol = solve_toeplitz_ones(m)
    gen = solve_symbolic(m)  # the generic exact solver (verified identity Φ N = D 1)
    assert all(gen.numerators[i] == gen.numerators[m.n - 1 - i] for i in range(m.n))
    exps = [int(x) for x in m.exponent_matrix()[0]]
    assert mirror_identity_holds(exps, sol.step, sol.shift, sol.numerators, sol.denominator)
    bad = list(sol.numerators)
    bad[-1] = bad[-1] + 1
    assert not mirror_identity_holds(exps, sol.step, sol.shift, bad, sol.denominator)
    checked += 1

print(f"recurrence and persymmetry: {checked} cases checked exactly")
