"""Theorem (exact comparison of ratios of binary floats with float operations only).

Model: IEEE binary64, round to nearest even, no fused multiply-add in numpy ufuncs; fl(·) is
the correctly rounded result of one operation. For finite floats x, X ≥ 0 and y, Y > 0,
``DyadicRatios.of(x, y).compare(X, Y)`` returns sign(x/y − X/Y) exactly. Used by
``level_exact`` (float-backed mechanisms: the exact maximum of the float filter's candidates,
ties included) and by the re-check ``_verify_float_backed`` (ratios at the witness's distance).

Since y, Y > 0, sign(x/y − X/Y) = sign(x·Y − X·y).

Lemma D1 (frexp). Every finite float v ≠ 0 — subnormals included — is exactly f·2^e with
f = frexp(v)[0] ∈ [1/2, 1) and an integer e; f is a float with at most 53 significant bits.
(numpy's frexp is exact: it only moves the exponent.) frexp(0) = (0, 0).

Lemma D2 (TwoProduct). For floats f, g ∈ [1/2, 1), Dekker's TwoProduct with Veltkamp's split
(factor 2^27 + 1; ``exactdp.linalg._accurate.two_product``) returns floats p = fl(f·g) and e
with p + e = f·g exactly. Its hypotheses (no overflow; exponents e_f + e_g ≥ −970, see the
module docstring of ``exactdp/linalg/_accurate.py``) hold: f, g have binary exponent −1, and
every intermediate is below 2^28 in magnitude. Moreover f·g ∈ [1/4, 1) and p ∈ [1/4, 1].

Lemma D3 (exponent gap). Write x·Y = P₁·2^{E₁}, X·y = P₂·2^{E₂} with P₁ = fx·fY, P₂ = fX·fy in
[1/4, 1) and E₁ = ex + eY, E₂ = eX + ey (D1). If E₁ − E₂ ≥ 2 then x·Y ≥ 2^{E₁−2} ≥ 2^{E₂} >
X·y; symmetrically for E₂ − E₁ ≥ 2.

Lemma D4 (equal or adjacent exponents). If E₁ − E₂ = 1, replace (p₁, e₁) by (2p₁, 2e₁) —
exact, and 2p₁ = fl(2P₁) because scaling by 2 commutes with rounding away from overflow and
underflow — and compare 2P₁ with P₂; symmetrically for −1. Now both sides are Q₁ = q₁ + ε₁ and
Q₂ = q₂ + ε₂ with q_i = fl(Q_i) exactly (D2). Rounding to nearest is monotone:
Q₁ ≤ Q₂ ⇒ fl(Q₁) ≤ fl(Q₂). Hence q₁ > q₂ ⇒ Q₁ > Q₂ and q₁ < q₂ ⇒ Q₁ < Q₂; if q₁ = q₂ then
Q₁ − Q₂ = ε₁ − ε₂, whose sign is that of the exact float comparison of ε₁ and ε₂.

Lemma D5 (zeros). If x = 0 the ratio is 0: sign = 0 when X = 0, else −1; if x > 0 = X: +1.

Lemma D6 (argmax). Starting at any candidate k and moving, while some candidate's ratio is
exactly larger than k's, to one of them, the exact ratio strictly increases; there are finitely
many candidates, so the search stops, at a k with no exactly larger ratio: an exact maximum.

Lemma D7 (distinct pairs). Equal pairs (x, y) have equal ratios, so an exact maximum over one
index of each distinct pair (``DyadicRatios.distinct``: numpy's sort-based ``unique``, which
compares the floats exactly) is an exact maximum over all candidates.

Each lemma is checked below: D1 and D2 exactly (Fraction arithmetic) on random and extreme
floats (subnormals, 2^±1022, mantissas of all ones, powers of two); D2's intermediate bounds
exactly; D3's inequality for every gap; the whole comparison against Fraction arithmetic on
random pairs, constructed exact ties (x/y = X/Y with different floats), near ties one ulp
apart, zeros and subnormals; D6 and ``level_exact`` on float-backed mechanisms with many exact
ties against the ``fmpq`` route and a brute-force maximum.
"""

from __future__ import annotations

import random
import sys
from fractions import Fraction

import numpy as np
import sympy as sp

sys.path.insert(0, ".")
from flint import fmpq  # noqa: E402

from exactdp.linalg._accurate import two_product, veltkamp_split  # noqa: E402
from exactdp.mechanisms.dyadic import DyadicRatios  # noqa: E402
from exactdp.mechanisms.privacy import privacy_level  # noqa: E402
from exactdp.spaces.mechanism import Mechanism  # noqa: E402
from exactdp.spaces.metrics import cycle, discrete  # noqa: E402

PROVES = [
    "exactdp.mechanisms.dyadic.DyadicRatios",
    "exactdp.mechanisms.dyadic.DyadicRatios.argmax",
    "exactdp.mechanisms.dyadic.DyadicRatios.distinct",
    "exactdp.mechanisms.privacy_routes.level_exact",
    "exactdp.mechanisms.privacy_result._verify_float_backed",
]

failures: list[str] = []


def check(name: str, ok: bool) -> None:
    print(("ok   " if ok else "FAIL ") + name)
    if not ok:
        failures.append(name)


rng = random.Random(20261201)
nrng = np.random.default_rng(20261201)
Q = Fraction


def extreme_floats() -> list[float]:
    vals = [5e-324, 2.0**-1074 * 3, 2.0**-1022, 2.0**-1022 * (2 - 2.0**-52), 1.0, 0.5,
            1 - 2.0**-53, 2.0**1023, 2.0**1023 * (2 - 2.0**-52), 0.1, 1 / 3, 2 / 3]
    for _ in range(300):
        vals.append(float(np.ldexp(rng.random() + 0.5, rng.randint(-1074, 1023))))
        vals.append(float(np.ldexp(rng.randint(1, 2**53 - 1), rng.randint(-1126, 970))))
    return [v for v in vals if np.isfinite(v) and v > 0]


EXT = extreme_floats()

# D1 -------------------------------------------------------------------------------------
ok = True
for v in EXT:
    f, e = np.frexp(np.float64(v))
    ok &= 0.5 <= f < 1 and Q(float(f)) * Q(2) ** int(e) == Q(v)
    ok &= (Q(float(f)) * 2**53).denominator == 1  # at most 53 significant bits
f0, e0 = np.frexp(np.float64(0.0))
check("D1: frexp(v) = (f, e) with f ∈ [1/2, 1), f·2^e = v exactly, subnormals included",
      ok and f0 == 0 and e0 == 0)

# D2 -------------------------------------------------------------------------------------
fr = [float(np.frexp(np.float64(v))[0]) for v in EXT] + [0.5, 1 - 2.0**-53,
                                                           0.5 + 2.0**-53, 0.75]
ok = True
count = 0
A = np.array(fr)
for g in fr[::7] + [0.5, 1 - 2.0**-53]:
    hi, lo = veltkamp_split(A)
    p, e = two_product(A, hi, lo, np.float64(g))
    for a_, p_, e_ in zip(A.tolist(), p.tolist(), e.tolist()):
        ok &= Q(p_) + Q(e_) == Q(a_) * Q(g)
        ok &= Q(1, 4) <= Q(p_) <= 1 and Q(1, 4) <= Q(a_) * Q(g) < 1
        count += 1
    # the intermediates of the split and the products stay far from overflow/underflow
    ok &= bool((np.abs(hi) < 2.0**28).all() and (np.abs(lo) <= 2.0**-26).all())
check(f"D2: TwoProduct p + e = f·g exactly and p ∈ [1/4, 1] on {count} fraction pairs", ok)
check("D2: the hypotheses of two_product hold (f, g ∈ [1/2, 1): e_f + e_g = −2 ≥ −970)",
      all(np.frexp(np.float64(f))[1] == 0 for f in fr))  # frexp(f) = (f, 0): f ∈ [1/2, 1)

# D3 -------------------------------------------------------------------------------------
ok = True
for gap in range(2, 6):
    # smallest x·Y = (1/4)·2^E1 against the largest X·y < 1·2^E2
    ok &= Q(1, 4) * Q(2) ** gap >= 1
check("D3: an exponent gap ≥ 2 orders the products (1/4·2^g ≥ 1 for g ≥ 2)", ok)


# D4, D5: the whole comparison against Fractions -------------------------------------------
def truth(x: float, y: float, X: float, Y: float) -> int:
    a, b = Q(x) / Q(y), Q(X) / Q(Y)
    return (a > b) - (a < b)


def batch_around(X: float, Y: float, size: int) -> tuple[list[float], list[float]]:
    """Ratios x/y near X/Y: exact ties through other floats, one-ulp neighbours, random."""
    xs: list[float] = []
    ys: list[float] = []
    while len(xs) < size:
        kind = rng.random()
        x, y = X, Y
        if kind < 0.35:  # exact ties by construction: x/y = X/Y with other floats
            k = rng.choice([2.0, 0.5, 4.0, 2.0**-600, 2.0**500, 2.0**-60])
            x, y = X * k, Y * k
        elif kind < 0.6:  # one ulp apart, either side
            with np.errstate(over="ignore"):
                x = float(np.nextafter(X, rng.choice([np.inf, 0.0])))
                y = float(np.nextafter(Y, rng.choice([np.inf, 0.0]))) if rng.random() < 0.5 else Y
        elif kind < 0.7:  # zeros
            x = 0.0
        else:
            x, y = rng.choice(EXT), rng.choice(EXT)
        if np.isfinite(x) and np.isfinite(y) and y > 0 and x >= 0:
            xs.append(x)
            ys.append(y)
    return xs, ys


ok = True
ties = total = 0
targets = [(rng.choice(EXT), rng.choice(EXT)) for _ in range(120)] + [(0.0, 1.0), (5e-324, 1.0),
                                                                     (3.0, 6.0)]
for X, Y in targets:
    xs, ys = batch_around(X, Y, 120)
    got = DyadicRatios.of(np.array(xs), np.array(ys)).compare(X, Y)
    want = [truth(x, y, X, Y) for x, y in zip(xs, ys)]
    ties += want.count(0)
    total += len(want)
    ok &= got.tolist() == want
check(f"D4/D5: compare = sign(x/y − X/Y) exactly on {total} pairs ({ties} exact ties, "
      "one-ulp neighbours, zeros, subnormals, 2^±1000)", ok and ties > 1000)

# D6: argmax, and the routes -----------------------------------------------------------------
ok = True
for _ in range(300):
    n = rng.randint(1, 40)
    base = [rng.choice(EXT) for _ in range(3)]
    x = np.array([rng.choice(base) * 2.0 ** rng.randint(-3, 3) for _ in range(n)])
    y = np.array([rng.choice(base) * 2.0 ** rng.randint(-3, 3) for _ in range(n)])
    ok2 = np.isfinite(x).all() and np.isfinite(y).all() and (y > 0).all()
    if not ok2:
        continue
    k = DyadicRatios.of(x, y).argmax(nrng.random(n))
    best = max(Q(a) / Q(b) for a, b in zip(x.tolist(), y.tolist()))
    ok &= Q(float(x[k])) / Q(float(y[k])) == best
check("D6: argmax returns an exact maximum (300 random candidate sets with ties)", ok)

ok = True
for _ in range(200):
    n = rng.randint(1, 60)
    pool = [rng.choice(EXT) for _ in range(4)]
    x = np.array([rng.choice(pool) for _ in range(n)])
    y = np.array([rng.choice(pool) for _ in range(n)])
    r, where = DyadicRatios.distinct(x, y)
    pairs = set(zip(x.tolist(), y.tolist()))
    ok &= set(zip(r.x.tolist(), r.y.tolist())) == pairs and len(where) == len(pairs)
    ok &= all((x[w], y[w]) == (a, b) for w, a, b in zip(where, r.x.tolist(), r.y.tolist()))
    k = int(where[r.argmax(nrng.random(len(where)))])
    ok &= Q(float(x[k])) / Q(float(y[k])) == max(Q(a) / Q(b) for a, b in pairs)
check("D7: distinct keeps one index per distinct pair; its maximum is the maximum of all", ok)

ok = True
for n in (5, 8, 13):
    metric = cycle(n)
    D = metric.distance_matrix_float()
    F = np.exp(-0.5 * D)
    F /= F.sum(axis=1, keepdims=True)
    Hf = Mechanism(F, kind="exact", row_policy="as-is")
    Hq = Mechanism(np.array([[fmpq(*float(v).as_integer_ratio()) for v in r] for r in F],
                            dtype=object), kind="exact", row_policy="as-is")
    rf, rq = privacy_level(Hf, metric), privacy_level(Hq, metric)
    brute = max(Q(float(F[a, z])) / Q(float(F[b, z])) for a, b in metric.check_edges()
                for a, b in ((a, b), (b, a)) for z in range(n))
    ok &= rf.ratio == rq.ratio == brute and rf.value == rq.value and rf.verify() and rq.verify()
for _ in range(40):  # random float mechanisms on the discrete metric, with repeated entries
    n, m = rng.randint(2, 6), rng.randint(1, 6)
    vals = nrng.random(3) * np.exp2(nrng.integers(-1070, 5, 3).astype(float))
    X = vals[nrng.integers(0, 3, (n, m))] + 0.0
    X[:, 0] += 0.25
    Hf = Mechanism(X, kind="exact", row_policy="as-is")
    metric = discrete(n)
    rf = privacy_level(Hf, metric)
    pairs = [(a, b, z) for a in range(n) for b in range(n) if a != b for z in range(m)
             if X[a, z] > 0]
    if any(X[b, z] == 0 for a, b, z in pairs):
        ok &= rf.value == sp.oo
    else:
        ok &= rf.ratio == max(Q(float(X[a, z])) / Q(float(X[b, z])) for a, b, z in pairs)
    ok &= rf.verify()
check("level_exact (float-backed, exact ties) = the fmpq route = brute force; verify() holds", ok)

if failures:
    print(f"{len(failures)} step(s) failed")
    sys.exit(1)
print("all steps verified")
