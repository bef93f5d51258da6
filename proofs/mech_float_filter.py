"""Theorem (soundness of the float pre-filters of the privacy-level routes).

Model: IEEE binary64, round to nearest, u = 2⁻⁵³; a float f ≥ 2⁻¹⁰²² is *normal*. Python's
``int / int`` (``fmpq_to_float``) and ``float(Fraction)`` are correctly rounded; for a real
x in the normal range, fl(x) = x(1 + δ) with |δ| ≤ u; one numpy ``+ − × ÷`` of floats is
correctly rounded; ``pred``/``succ`` step one float down/up. TINY = 2⁻¹⁰⁰⁰, M = REL_MARGIN =
the float 1e-12, c = fl(1 − M).

Lemma E1 (exact route, ``level_exact`` with ``float_and_masks``). Entries h of an exact
mechanism lie in [0, 1] (rows are stochastic). Entries with F = fl(h) < TINY — including every
entry that underflows to 0 or to a subnormal — are *unknown*: every pair touching one is kept.
For the other ("safe") entries F ≥ TINY, so h is normal and F = h(1 + δ). For a safe pair the
float ratio R = fl(F_a/F_b) lies in [TINY, 1/TINY] (no overflow, no subnormal) and
R = r(1 + θ) with (1 − u)²/(1 + u) ≤ 1 + θ ≤ (1 + u)²/(1 − u). Let r* be the largest true
ratio of a distance class among safe pairs and fmax the largest float ratio. Then
R* ≥ r*(1 − u)²/(1 + u) and the threshold τ = fl(fmax·c) ≤ fmax·c·(1 + u) ≤
r*·c·(1 + u)³/(1 − u). Since (1 − u)³ ≥ c·(1 + u)⁴ (checked exactly below), R* ≥ τ: the
maximiser is kept. All kept pairs are then compared exactly, so the class maximum is exact.
Only normal floats are relied upon, so flush-to-zero (FTZ/DAZ) cannot change the argument (a
flushed subnormal is < TINY: unknown, kept).

Lemma E2 (``column_argmax_exact``, used by ``utility``). Values w ∈ [0, 1], W = fl(w). Values
with W < TINY are kept. If the maximiser w* has W* ≥ TINY then every W ≥ W* is normal and
fmax ≤ w*(1 + u), W* ≥ w*(1 − u), τ ≤ fmax·c·(1 + u); (1 − u) ≥ c·(1 + u)² gives W* ≥ τ.

Lemma E3 (float-backed exact mechanisms, ``float_and_masks`` on ``Mechanism.binary_floats``).
When the exact matrix *is* a float64 array (``from_numpy(..., rows="exact" | "as-is")``),
every entry h is its float, so fl(h) = h (δ = 0, a special case of E1's |δ| ≤ u). Entries of
an "as-is" matrix may exceed 1; with k = the binary exponent of the largest entry (k = 0 when
it is ≤ 1), the scaled floats F = h·2^(−k) lie in [0, 1] and ratios F_a/F_b = h_a/h_b are
unchanged. Scaling by a power of two is exact whenever the result is normal; a result below
2⁻¹⁰²² (subnormal or 0) is < TINY, hence unknown and kept — exactly as in E1. So E1 applies
verbatim to F, and the candidates' exact values are read from the floats themselves
(``float.as_integer_ratio``), the only rationals formed. Row sums are exact integer
superaccumulations (``float_row_sums_exact``: each float is M·2^(e−53) with an integer
|M| < 2⁵³; the halves ⌊M/2²⁷⌋ and M mod 2²⁷ are summed per (row, exponent) in float64, every
partial sum an integer below 2⁵³ for rows of < 2²⁶ entries, hence exact). Both are checked
below against exact Fraction arithmetic, and the float-backed route against the ``fmpq`` route
by brute force (entries from 10⁻³²⁰ to 10³⁰⁰).

Lemma V (the re-check ``PrivacyLevelResult.verify`` of a float-backed result). For floats
x ≥ 0, y > 0 whose quotient does not overflow, fl(x/y) is the nearest float to x/y (gradual
underflow, checked at run time by ``require_subnormals``), so x/y ≤ succ(fl(x/y)); an overflow
gives +∞ and a 0/0 NaN, which never settle. With T = a float ≤ every point of the ball of
R0^{d/d0} (``float_below``), succ(fl(x/y)) ≤ T implies x/y ≤ R0^{d/d0}, i.e. ln(x/y)/d ≤
ln(R0)/d0: settled. Every other ratio is compared exactly. Checked below: the bound on random
and extreme floats, and the re-check's verdict against the exact re-check on random matrices
and tampered witnesses.

Lemma B (ball route, ``level_ball`` with ``log_bounds`` and ``log_ratio_candidates``). For
each ball entry, L = float_down(lower end of the ball of ln(lower endpoint)) (−∞ when the ball
reaches 0) and U = float_up(upper end of the ball of ln(upper endpoint)) (−∞ when the ball's
upper end is ≤ 0, where the only probability is 0). Then L ≤ ln x ≤ U for every x in the
ball: ln is increasing and arb balls contain the true values. For a directed pair,
rl = pred(fl(L_a − U_b)) ≤ ln(x_a/x_b) ≤ succ(fl(U_a − L_b)) = ru (one correctly rounded
subtraction lies within one float step of the exact difference — this needs gradual
underflow, which ``require_subnormals`` checks at run time; ±∞ propagate: an unbounded ratio
has ru = +∞ and is kept; a zero numerator (U_a = −∞) never constrains the level and is
dropped). With floor = max rl over the class, the maximiser k* has ru_{k*} ≥ true_{k*} ≥
floor, so it is kept; every dropped pair has true ≤ ru < floor ≤ max true. Hence the
maximum of the kept pairs' ball upper ends bounds the level above and the maximum of their
lower ends bounds it below. No float ever holds an entry itself (only logarithms, e.g.
ln 10⁻⁸⁰⁰ ≈ −1842), so underflow of entries cannot occur; a NaN (−∞ − (−∞)) is replaced by
"unknown" (ru = +∞, rl = −∞).

The old filter ``np.where(hi <= 1e-300, 0, r_hi)`` violated B: an entry of 10⁻⁴⁰⁰ read as 0
dropped the ratio 10⁻⁴⁰⁰/10⁻⁸⁰⁰ = 10⁴⁰⁰ (checked below to be dropped by the old rule and kept
by the new one).

Each step is checked below: the constant inequalities exactly with Fractions, the rounding
facts on random and extreme inputs (subnormals, 10^±400 rationals, 10^±101 entries) against
exact rational arithmetic, and the candidate lemmas against brute force.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import random
import sys
from fractions import Fraction

import numpy as np
import sympy as sp

sys.path.insert(0, ".")
import flint  # noqa: E402
from flint import arb, fmpq  # noqa: E402

from exactdp.arithmetic.ball import arb_to_fraction_interval  # noqa: E402
from exactdp.arithmetic.rationals import float_row_sums_exact  # noqa: E402
from exactdp.arithmetic.rounding import ETA_FLOAT, U, pred, subnormals_ok, succ  # noqa: E402
from exactdp.mechanisms.float_filter import (  # noqa: E402
    REL_MARGIN,
    TINY,
    float_and_masks,
    log_bounds,
    log_ratio_candidates,
)
from exactdp.mechanisms.mechanism import Mechanism  # noqa: E402
from exactdp.mechanisms.privacy import privacy_level  # noqa: E402
from exactdp.spaces.metrics import discrete  # noqa: E402

PROVES = [
    "exactdp.mechanisms.float_filter.float_and_masks",
    "exactdp.mechanisms.float_filter.column_argmax_exact",
    "exactdp.mechanisms.float_filter.log_bounds",
    "exactdp.mechanisms.float_filter.log_ratio_upper",
    "exactdp.mechanisms.float_filter.log_ratio_candidates",
    "exactdp.mechanisms.privacy_routes.level_exact",
    "exactdp.mechanisms.privacy_routes.level_ball",
    "exactdp.arithmetic.rationals.float_row_sums_exact",
]

failures: list[str] = []


def check(name: str, ok: bool) -> None:
    print(("ok   " if ok else "FAIL ") + name)
    if not ok:
        failures.append(name)


u = U
c = Fraction(1 - REL_MARGIN)  # the float fl(1 − M), exactly
check("c = fl(1 − M) ≤ (1 − M)(1 + u)", c <= (1 - Fraction(REL_MARGIN)) * (1 + u))
check("E1: (1 − u)³ ≥ c·(1 + u)⁴", (1 - u) ** 3 >= c * (1 + u) ** 4)
check("E2: (1 − u) ≥ c·(1 + u)²", (1 - u) >= c * (1 + u) ** 2)
check("TINY = 2⁻¹⁰⁰⁰ is normal (≥ 2⁻¹⁰²²) and 1/TINY is finite",
      Fraction(TINY) == Fraction(1, 2**1000) and TINY >= 2.0**-1022 and math.isfinite(1 / TINY))
check("a safe ratio lies in [TINY, 1/TINY]: F_a ≥ TINY, F_b ≤ 1 and F_a ≤ 1, F_b ≥ TINY",
      TINY / 1.0 >= TINY and 1.0 / TINY <= 2.0**1000)


def rel_err_ok(x: Fraction) -> bool:
    f = int(x.numerator) / int(x.denominator)
    return abs(Fraction(f) - x) <= u * x


rng = random.Random(11)
extreme = [Fraction(1, 10**k) for k in (1, 100, 101, 300, 307, 308, 320, 400, 800)]
extreme += [1 - Fraction(1, 10**k) for k in (1, 101, 400)]
normal_in = [x for x in extreme if x >= Fraction(1, 2**1022)]
check("correctly rounded entries in the normal range have relative error ≤ u",
      all(rel_err_ok(x) for x in normal_in)
      and all(rel_err_ok(Fraction(rng.randint(1, 10**30), 10**rng.randint(30, 300)))
              for _ in range(2000)))
check("entries below 2⁻¹⁰⁰⁰ round below TINY (marked unknown), 10⁻⁴⁰⁰ underflows to 0",
      all(int(x.numerator) / int(x.denominator) < TINY for x in extreme
          if x < Fraction(1, 2**1000)) and 1 / 10**400 == 0.0)

# E1 on random safe pairs: R within the stated relative band of r
ok = True
for _ in range(3000):
    a = Fraction(rng.randint(1, 10**40), 10**rng.randint(40, 295))
    b = Fraction(rng.randint(1, 10**40), 10**rng.randint(40, 295))
    Fa, Fb = int(a.numerator) / int(a.denominator), int(b.numerator) / int(b.denominator)
    if Fa < TINY or Fb < TINY:
        continue
    R = Fraction(float(np.float64(Fa) / np.float64(Fb)))
    r = a / b
    ok &= r * (1 - u) ** 2 / (1 + u) <= R <= r * (1 + u) ** 2 / (1 - u)
check("E1: float ratio of safe entries within (1∓u)²/(1±u) of the exact ratio", ok)


def filter_e1(F: list[float], unsafe: list[bool]) -> set[int]:
    safe = [f for f, s in zip(F, unsafe) if not s]
    fmax = max(safe) if safe else 0.0
    tau = fmax * (1 - REL_MARGIN)
    return {i for i, (f, s) in enumerate(zip(F, unsafe)) if s or f >= tau}


ok = True
for _ in range(2000):
    pairs = []
    for _ in range(rng.randint(1, 6)):
        ka, kb = rng.choice([1, 100, 101, 300, 320, 400]), rng.choice([1, 100, 101, 300, 320, 400])
        pairs.append((Fraction(rng.randint(1, 9), 10**ka), Fraction(rng.randint(1, 9), 10**kb)))
    Fs, unsafe = [], []
    for a, b in pairs:
        Fa, Fb = int(a.numerator) / int(a.denominator), int(b.numerator) / int(b.denominator)
        unsafe.append(Fa < TINY or Fb < TINY)
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            Fs.append(0.0 if unsafe[-1] else float(np.float64(Fa) / np.float64(Fb)))
    kept = filter_e1(Fs, unsafe)
    best = max(a / b for a, b in pairs)
    ok &= any(pairs[i][0] / pairs[i][1] == best for i in kept)
check("E1: the exact maximiser is always kept (10^-k entries, k up to 400)", ok)

# Lemma B: directed bounds of logs and of log-ratios, including subnormal log values
check("subnormals are kept in this process (the run-time check of lemma B)", subnormals_ok())
ok = True
specials = [0.0, -0.0, ETA_FLOAT, -ETA_FLOAT, 2.0**-1022, -(2.0**-1022), 1e-310, -1e-310,
            1842.07, -1842.07, 1.0, -1.0, 1e308, -1e308]
for x in specials + [rng.uniform(-2000, 2000) for _ in range(2000)]:
    for y in specials + [rng.uniform(-2000, 2000) for _ in range(5)]:
        with np.errstate(over="ignore"):
            d = np.float64(x) - np.float64(y)
        if not math.isfinite(d):
            continue
        exact = Fraction(x) - Fraction(y)
        ok &= Fraction(float(pred(d))) <= exact <= Fraction(float(succ(d)))
check("B: pred(fl(x − y)) ≤ x − y ≤ succ(fl(x − y)), subnormal and extreme operands", ok)

with flint.ctx.workprec(128):
    vals = [fmpq(1, 10**k) for k in (1, 100, 101, 300, 320, 400, 800)] + [fmpq(0)]
    vals += [1 - fmpq(1, 10**400), 1 - fmpq(1, 10**101)]
    balls = np.array([[arb(v) for v in vals]], dtype=object)
    L, Ub = log_bounds(balls)
    ok = True
    for j, v in enumerate(vals):
        if v == 0:
            ok &= L[0, j] == -np.inf and Ub[0, j] == -np.inf
            continue
        with flint.ctx.workprec(4000):  # ln of the exact rational, to ~1200 digits
            lo_t, hi_t = arb_to_fraction_interval(arb(v).log())
        ok &= Fraction(float(L[0, j])) <= lo_t and hi_t <= Fraction(float(Ub[0, j]))
        ok &= math.isfinite(L[0, j]) and math.isfinite(Ub[0, j])
    check("B: L ≤ ln x ≤ U for entries 10^-k (k ≤ 800) and 1 − 10^-400 (finite floats)", ok)

    # the example: the old rule drops the ratio 10^400, the new one keeps it
    rows = [[1 - fmpq(1, 10**400), fmpq(1, 10**400)], [1 - fmpq(1, 10**800), fmpq(1, 10**800)]]
    B2 = np.array([[arb(v) for v in r] for r in rows], dtype=object)
    hi_f = np.array([[float(v.upper()) for v in r] for r in B2]) * (1 + 1e-15) + 1e-300
    old_dropped = hi_f[0, 1] <= 1e-300  # np.where(hi_f[a] <= 1e-300, 0, r_hi)
    L2, U2 = log_bounds(B2)
    rows_k, zs_k = log_ratio_candidates(L2, U2, np.array([0, 1]), np.array([1, 0]))
    check("B: the issue's pair (0 → 1, z = 1), ratio 10^400, was dropped and is now kept",
          old_dropped and (0, 1) in set(zip(rows_k.tolist(), zs_k.tolist())))

    # brute force: the maximiser of every random class is among the candidates
    ok = True
    for _ in range(300):
        n, m = rng.randint(2, 4), rng.randint(1, 4)
        ent = [[fmpq(rng.randint(0, 3), 10 ** rng.choice([1, 100, 300, 320, 400, 800]))
                for _ in range(m)] for _ in range(n)]
        Bb = np.array([[arb(v) for v in r] for r in ent], dtype=object)
        Lr, Ur = log_bounds(Bb)
        a = np.array([i for i in range(n) for j in range(n) if i != j])
        b = np.array([j for i in range(n) for j in range(n) if i != j])
        rk, zk = log_ratio_candidates(Lr, Ur, a, b)
        kept = set(zip(rk.tolist(), zk.tolist()))
        ratios = {}
        for r in range(len(a)):
            for z in range(m):
                x, y = ent[a[r]][z], ent[b[r]][z]
                if x == 0:
                    continue
                ratios[(r, z)] = math.inf if y == 0 else Fraction(int(x.p) * int(y.q),
                                                                  int(x.q) * int(y.p))
        if ratios:
            top = max(ratios.values())
            ok &= any(ratios[k] == top and k in kept for k in ratios)
    check("B: the maximiser of random classes (entries 0 and 10^-k, k ≤ 800) is kept", ok)

# Lemma E3: float-backed mechanisms — exact row sums, scaling, and the route vs brute force
nrng = np.random.default_rng(5)
ok = True
for _ in range(300):
    n_, m_ = int(nrng.integers(1, 5)), int(nrng.integers(1, 40))
    X = nrng.random((n_, m_)) * np.exp2(nrng.integers(-1074, 1000, (n_, m_)).astype(float))
    X[nrng.random((n_, m_)) < 0.2] = 0.0
    X[0, 0] = 5e-324
    sums = float_row_sums_exact(X)
    ok &= all(sums[i] == sum((Fraction(x) for x in X[i].tolist()), Fraction(0))
              for i in range(n_))
check("E3: float_row_sums_exact equals the exact Fraction sum (subnormal to 1e300 entries)", ok)

ok = True
for _ in range(300):
    n_, m_ = int(nrng.integers(2, 5)), int(nrng.integers(1, 5))
    X = nrng.random((n_, m_)) * np.exp2(nrng.integers(-1060, 1000, (n_, m_)).astype(float))
    X[nrng.random((n_, m_)) < 0.1] = 0.0
    X[:, 0] += 1.0  # no all-zero row
    mech_f = Mechanism(X, kind="exact", row_policy="as-is")
    Fs, Zs, unsafe = float_and_masks(mech_f)
    k = math.frexp(float(X.max()))[1] if X.max() > 1 else 0
    ok &= bool((Fs <= 1).all()) and bool((Zs == (X == 0)).all())
    # every safe scaled float is exactly the entry times 2^-k (no rounding)
    ok &= all(Fraction(float(f)) == Fraction(float(x)) / 2**k
              for f, x, u_ in zip(Fs.ravel(), X.ravel(), unsafe.ravel()) if not u_ and x > 0)
    mech_q = Mechanism(np.array([[fmpq(*float(x).as_integer_ratio()) for x in r] for r in X],
                                dtype=object), kind="exact", row_policy="as-is")
    metric = discrete(n_)
    r_f, r_q = privacy_level(mech_f, metric), privacy_level(mech_q, metric)
    ok &= r_f.value == r_q.value and r_f.ratio == r_q.ratio
    # brute force over all ordered pairs and outputs
    best = Fraction(0)
    for a_ in range(n_):
        for b_ in range(n_):
            for z in range(m_):
                if a_ != b_ and X[a_, z] > 0:
                    best = max(best, Fraction(float(X[a_, z])) / Fraction(float(X[b_, z]))
                               if X[b_, z] > 0 else Fraction(10**400))
    ok &= (r_f.ratio == best) if r_f.ratio is not None else (best >= 10**400 or best <= 1)
check("E3: float-backed level = fmpq-route level = brute force (entries 2^-1060 .. 2^1000)", ok)

# Lemma V: directed quotient bound and the float-backed re-check against the exact one
ok = True
pool = [5e-324, 2.0**-1022, 1e-310, 1e-300, 0.1, 0.5, 1.0, 3.0, 1e300, 1.7976931348623157e308]
pool += [float(x) for x in nrng.random(200) * np.exp2(nrng.integers(-1074, 1000, 200))]
for x in pool:
    for y in pool[:40]:
        with np.errstate(over="ignore"):
            q = np.float64(x) / np.float64(y)
        if math.isfinite(q):
            with np.errstate(over="ignore"):
                up = float(succ(q))
            ok &= (up == math.inf) or Fraction(x) / Fraction(y) <= Fraction(up)
check("V: x/y ≤ succ(fl(x/y)) for floats from 5e-324 to 1.8e308 (finite quotients)", ok)
ok = True
tampered = 0
for _ in range(60):
    n_, m_ = int(nrng.integers(2, 5)), int(nrng.integers(1, 5))
    X = nrng.random((n_, m_)) * np.exp2(nrng.integers(-1060, 20, (n_, m_)).astype(float))
    X[:, 0] += 0.25
    Hf = Mechanism(X, kind="exact", row_policy="as-is")
    Hq = Mechanism(np.array([[fmpq(*float(x).as_integer_ratio()) for x in r] for r in X],
                            dtype=object), kind="exact", row_policy="as-is")
    metric = discrete(n_)
    r_f = privacy_level(Hf, metric)
    ok &= r_f.verify()
    # a tampered witness (a non-maximal pair) must be rejected by both re-checks
    for a_, b_, z_ in itertools.product(range(n_), range(n_), range(m_)):
        if a_ == b_ or (a_, b_, z_) == r_f.witness or X[a_, z_] == 0 or X[b_, z_] == 0:
            continue
        rr = Fraction(float(X[a_, z_])) / Fraction(float(X[b_, z_]))
        if r_f.ratio is None or rr >= r_f.ratio or rr < 1:
            continue
        fake = dataclasses.replace(r_f, witness=(a_, b_, z_), ratio=rr,
                                   value=sp.log(sp.Rational(rr.numerator, rr.denominator)),
                                   enclosure=None)
        fake_q = dataclasses.replace(fake, _mechanism=Hq)
        ok &= (not fake.verify()) and (not fake_q.verify())
        tampered += 1
        break
check(f"V: the float-backed re-check accepts true results and rejects {tampered} tampered "
      "witnesses", ok and tampered >= 10)

if failures:
    print(f"{len(failures)} step(s) failed")
    sys.exit(1)
print("all steps verified")
