"""Upper bounds of |v|/2^e for big integers from their floats (``taylor_exact.quotients_up``).

The exact piece bounds (``exactdp/threshold/taylor_exact.py``, ``exact_rho_bounds``) need
floats u ≥ (|c|·2^sh + rad)/2^E for about 2K·n integers c of ~200 bits per piece; since
session 11 they come from u = succ(q(c) + float_up(rad/2^E)) with q = ``quotients_up``:

Lemma 1 (conversion). f = fl(|v|) (numpy / CPython: correctly rounded; any faithful
rounding suffices) satisfies |v| ≤ succ(succ(f)) whenever |v| < 2^1024: a faithful
rounding is within one ulp of |v|, and succ(f) − f = ulp(f) ≥ the gap it must close
(the second succ covers |v| just below a power of two, where ulp(f) halves).
Lemma 1b (shift). For |v| ≥ 2^64 beyond the float range, m = ⌈|v|/2^b⌉ (b = bit_length − 64,
an exact integer shift rounding up) has m·2^b ≥ |v| and at most 65 bits; Lemma 1 applies to
m, and the exponent b − e goes into the ldexp of Lemma 2. So inf comes only from a quotient
beyond the float range, never from |v| ≥ 2^1024 alone (e.g. 2^1100/2^1100 = 1).
Lemma 2 (scaling). ldexp(x, −e) = x·2^-e exactly unless the result is below 2^-1022, where
it is rounded to nearest (error ≤ 2^-1075); succ adds at least 2^-1074, so
succ(ldexp(x, −e)) ≥ x·2^-e. Overflow gives inf (an upper bound).
Lemma 3 (sum). (|c|·2^sh + rad)/2^E = |c|/2^(E−sh) + rad/2^E ≤ q + float_up(rad/2^E), and
succ of the rounded sum is ≥ the exact sum.

Checked below against exact Fractions: random integers of 1–1100 bits (both signs), values
next to powers of two, exponents that push the result into the subnormal range and to
underflow, integers of 1025–3000 bits whose quotient is an ordinary float (inf there is a
failure), and the composed bound of Lemma 3.
"""

import random
import sys
from fractions import Fraction

import numpy as np

from exactdp.arithmetic.rounding import float_up, succ
from exactdp.threshold.taylor_exact import quotients_up

PROVES = ["exactdp.threshold.taylor_exact.quotients_up"]

ok = True
#: a quotient at least this large may legitimately give inf (its bound is a few ulps above it)
NEAR_MAX = Fraction(sys.float_info.max) * (1 - Fraction(1, 1 << 48))


def check(cond, what):
    global ok
    if not cond:
        print("FAILED:", what)
        ok = False


rng = random.Random(11)
vals = [0, 1, -1, (1 << 53) + 1, (1 << 53) - 1, (1 << 200) - 1, -(1 << 200) + 1, (1 << 1023) * 2 - 1]
vals += [rng.getrandbits(rng.randrange(1, 1100)) * rng.choice([-1, 1]) for _ in range(3000)]
vals += [(1 << k) + d for k in range(1, 300, 7) for d in (-1, 0, 1)]
for e in (0, 1, 64, 164, 300, 1000, 1074, 1100, 1200, -5):
    q = quotients_up(vals, e)
    for v, u in zip(vals, q.tolist()):
        if u != float("inf"):
            check(Fraction(u) >= Fraction(abs(v), 1) / Fraction(2) ** e, f"v={v} e={e}: {u} too small")
        else:
            check(Fraction(abs(v)) / Fraction(2) ** e >= NEAR_MAX, f"inf only beyond the float range ({v}, {e})")
# Lemma 1b: integers beyond 2^1024 whose quotient is representable: finite and an upper bound
big_vals = [1 << 1100, 3**700, (1 << 1024) + 1, -(1 << 2999) - 12345]
big_vals += [rng.getrandbits(rng.randrange(1025, 3000)) * rng.choice([-1, 1]) for _ in range(300)]
for v in big_vals:
    n = abs(v).bit_length()
    for e in (n - 1, n + 5, n - 500, n - 1020, n + 1070, n + 1200, max(0, n - 1100)):
        u = float(quotients_up([v, 1], e)[0])
        exact = Fraction(abs(v)) / Fraction(2) ** e
        check(Fraction(u) >= exact if u != float("inf") else exact >= NEAR_MAX,
              f"big v ({n} bits), e={e}: {u} vs exact {float(exact) if exact < NEAR_MAX else 'huge'}")
        if exact < NEAR_MAX:  # representable: the bound must be finite and tight (≤ 4 ulps)
            check(u != float("inf") and (exact < Fraction(2) ** -1020
                                         or Fraction(u) <= exact * (1 + Fraction(1, 1 << 50))),
                  f"big v ({n} bits), e={e}: bound {u} is inf or loose")
check(float(quotients_up([1 << 1100], 1100)[0]) < 1.0000001, "2^1100/2^1100 = 1 is finite")
check(float(quotients_up([3**700], 1000)[0]) < 9.02e32, "3^700/2^1000 ≈ 9.01e32 is finite")
# Lemma 3 composed as in exact_rho_bounds
for _ in range(500):
    c = rng.getrandbits(rng.randrange(1, 260)) * rng.choice([-1, 1])
    rad, sh, T = rng.getrandbits(rng.randrange(1, 120)), rng.randrange(0, 60), rng.randrange(100, 400)
    E = T + sh
    u = float(succ(quotients_up([c], T)[0] + float_up(Fraction(rad, 1 << E))))
    check(Fraction(u) >= Fraction((abs(c) << sh) + rad, 1 << E), f"Lemma 3 at c={c}")
check(np.all(quotients_up([], 3) == np.zeros(0)), "empty input")

print("exact_bounds_float_up:", "all checks passed" if ok else "FAILED")
sys.exit(0 if ok else 1)
