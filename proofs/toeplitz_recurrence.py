"""Theorem (the row sums of an eventually repeating Toeplitz Φ by recurrence; persymmetry).

Let Φ[i, j] = a_{|i−j|} with a_{k+v} = s^c·a_k for every k ≥ k0 (v ≥ 1, k0 ≥ 0, c ≥ 0) and
N_0, …, N_{n−1} any polynomials. Define left[i] = Σ_{j ≤ i} a_{i−j} N_j and
R[i] = Σ_{j ≥ i} a_{j−i} N_j. Then (ΦN)_i = left[i] + R[i] − a_0 N_i and, for i ≥ v,

    left[i] = Σ_{0 ≤ d < v+k0, d ≤ i} a_d N_{i−d}
              − s^c·Σ_{0 ≤ d < k0, d ≤ i−v} a_d N_{i−v−d} + s^c·left[i − v]

(for i < v, left[i] is the first sum alone). If N is mirrored (N_j = N_{n−1−j}), then
R[i] = left[n − 1 − i], and (ΦN)_i = (ΦN)_{n−1−i}.

Proof: the terms of left[i] with d = i − j ≥ v + k0 are a_d N_{i−d} = s^c a_{d−v} N_{i−d}
(the hypothesis at k = d − v ≥ k0); with d' = d − v they sum to
s^c·Σ_{k0 ≤ d' ≤ i−v} a_{d'} N_{i−v−d'} = s^c·(left[i − v] − Σ_{d' < k0, d' ≤ i−v} a_{d'} N_{i−v−d'}),
and the terms d < v + k0 are the first sum. For a mirrored N,
R[i] = Σ_{d ≥ 0} a_d N_{i+d} = Σ_{d ≥ 0} a_d N_{n−1−i−d} = left[n − 1 − i], and the
expression left[i] + left[n−1−i] − a_0 N_i is symmetric under i ↦ n − 1 − i. So the
kernel checks Φ(s)N(s) = D(s)·1 in O(n·(v + 2k0)) polynomial operations and compares only
i < ⌈n/2⌉ (:func:`exactdp.kernel.threshold_structured.mirror_identity_holds`).

Persymmetry (used by :func:`exactdp.algebra.toeplitz.solve_toeplitz_ones` to compute only
half of z): JΦJ = Φ (J the reversal) and J1 = 1, and Φ(s) is invertible over Q(s)
(Φ(0) = I, so det Φ is a nonzero polynomial); hence z = Φ⁻¹1 = JΦ⁻¹J1 = Jz, i.e.
z_i = z_{n−1−i}. (The kernel does not rely on it: it checks the identity for the mirrored
vector itself.)

Checked below exactly with random integer polynomials N and random eventually repeating
exponents for v = 1…5, k0 = 0…3, c = 0…2, n = 1…3(v+k0)+3, against the dense product, and
the kernel function on true and perturbed solutions (sum queries, lines, band metrics,
eventually repeating symbols).
"""

import random

import flint

from exactdp.algebra.symbolic import solve_symbolic
from exactdp.algebra.toeplitz import solve_toeplitz_ones
from exactdp.kernel.threshold_structured import mirror_identity_holds
from exactdp.spaces.metrics import band, from_matrix, line, sum_query

PROVES = ["exactdp.kernel.threshold_structured.mirror_identity_holds",
          "exactdp.algebra.toeplitz.solve_toeplitz_ones"]

rng = random.Random(1818)
ZERO = flint.fmpz_poly([])


def mono(k):
    return flint.fmpz_poly([0] * k + [1])


def repeating(base, v, c, n):
    e = list(base)
    while len(e) < n:
        e.append(e[len(e) - v] + c)
    return e[:n]


checked = 0
for v in range(1, 6):
    for k0 in range(4):
        for c in (0, 1, 2):
            base = [0] + [rng.randint(1, 4) for _ in range(v + k0 - 1)]
            for n in range(1, 3 * (v + k0) + 4):
                e = repeating(base, v, c, n)
                N = [flint.fmpz_poly([rng.randint(-5, 5) for _ in range(rng.randint(0, 4))])
                     for _ in range(n)]
                dense = [sum((mono(e[abs(i - j)]) * N[j] for j in range(n)), ZERO)
                         for i in range(n)]
                a = [mono(e[d]) if d < n else mono(0) for d in range(v + k0)]
                left = []
                for i in range(n):
                    acc = sum((a[d] * N[i - d] for d in range(min(v + k0, i + 1))), ZERO)
                    if i >= v:
                        tail = left[i - v] - sum((a[d] * N[i - v - d]
                                                  for d in range(min(k0, i - v + 1))), ZERO)
                        acc += mono(c) * tail
                    left.append(acc)
                right = [sum((mono(e[j - i]) * N[j] for j in range(i, n)), ZERO)
                         for i in range(n)]
                assert all(left[i] + right[i] - N[i] == dense[i] for i in range(n))
                M = [N[min(j, n - 1 - j)] for j in range(n)]  # a mirrored vector
                dm = [sum((mono(e[abs(i - j)]) * M[j] for j in range(n)), ZERO)
                      for i in range(n)]
                lm = [sum((mono(e[i - j]) * M[j] for j in range(i + 1)), ZERO)
                      for i in range(n)]
                assert all(lm[i] + lm[n - 1 - i] - M[i] == dm[i] == dm[n - 1 - i]
                           for i in range(n))
                checked += 1


def repeating_metric(base, v, c, n):
    e = repeating(base, v, c, n)
    return from_matrix([[e[abs(i - j)] for j in range(n)] for i in range(n)])


# persymmetry and the kernel's identity check on true / perturbed solutions
for m in (line(9), sum_query(3, 2), sum_query(4, 3), sum_query(3, 5), sum_query(2, 6),
          band(9, 2), band(12, 3), band(13, 5), repeating_metric([0, 2, 2], 2, 1, 13),
          repeating_metric([0, 1, 1, 2, 2], 1, 0, 14)):
    sol = solve_toeplitz_ones(m)
    gen = solve_symbolic(m)  # the generic exact solver (verified identity Φ N = D 1)
    assert all(gen.numerators[i] == gen.numerators[m.n - 1 - i] for i in range(m.n))
    assert all(sol.numerator(i) * gen.denominator == gen.numerators[i] * sol.denominator
               for i in range(m.n))
    exps = [int(x) for x in m.exponent_matrix()[0]]
    assert mirror_identity_holds(exps, sol.step, sol.shift, sol.numerators, sol.denominator,
                                 sol.offset)
    for k in range(len(sol.numerators)):
        bad = list(sol.numerators)
        bad[k] = bad[k] + 1
        assert not mirror_identity_holds(exps, sol.step, sol.shift, bad, sol.denominator,
                                         sol.offset)
    checked += 1

print(f"recurrence and persymmetry: {checked} cases checked exactly")
