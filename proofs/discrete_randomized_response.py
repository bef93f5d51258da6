"""Theorem (discrete metric ⇒ randomized response).

For n points at mutual distance 1, Φ = (1-t)I + tJ. Since Φ·1 = (1 + (n-1)t)·1 and Φ is
nonsingular on (0, 1) (eigenvalues 1 - t > 0 and 1 + (n-1)t > 0), the unique solution of
Φz = 1 is z = 1/(1 + (n-1)t)·1 > 0, so the tight-constraints mechanism always exists and
H = Φ·diag(z) has h[y][y] = 1/(1+(n-1)t) = e^ε/(n-1+e^ε) and h[y][y'] = t/(1+(n-1)t)
= 1/(n-1+e^ε): randomized response.

Used by: tests/core/test_core_engine.py::test_discrete_metric_gives_randomized_response
(a test oracle; no library fast path relies on it).
"""

import sympy as sp

PROVES: list[str] = []

t = sp.symbols("t", positive=True)
n = sp.symbols("n", integer=True, positive=True)
E = 1 / t  # e^ε
z = 1 / (1 + (n - 1) * t)
# Row sum of Φ: 1 + (n-1)t, for every row (symbolic n)
assert sp.simplify((1 + (n - 1) * t) * z - 1) == 0
# eigenvalues of (1-t)I + tJ: (1-t) with multiplicity n-1, and 1-t+nt
assert sp.simplify((1 - t + n * t) - (1 + (n - 1) * t)) == 0
assert sp.simplify(z - E / (n - 1 + E)) == 0
assert sp.simplify(t * z - 1 / (n - 1 + E)) == 0
for nn in range(1, 7):
    P = (1 - t) * sp.eye(nn) + t * sp.ones(nn, nn)
    assert sp.factor(P.det() - (1 - t) ** (nn - 1) * (1 + (nn - 1) * t)) == 0
print("discrete metric: tight-constraints mechanism = randomized response, proved")
