"""Upper bounds of |v|/2^e for big integers from their floats (``taylor_exact.quotients_up``).

The exact piece bounds (``exactdp/threshold/taylor_exact.py``, ``exact_rho_bounds``) need
floats u ≥ (|c|·2^sh + rad)/2^E for about 2K·n integers c of ~200 bits per piece; since
session 11 they come from u = succ(q(c) + float_up(rad/2^E)) with q = ``quotients_up``:

Lemma 1 (conversion). f = fl(|v|) (numpy / CPython: correctly rounded; any faithful
rounding suffices) satisfies |v| ≤ succ(succ(f)) whenever |v| < 2^1024: a faithful
rounding is within one ulp of |v|, and succ(f) − f = ulp(f) ≥ the gap it must close
(the second succ covers |v| just below a power of two, where ulp(f) halves).
Lemma 2 (scaling). ldexp(x, −e) = x·2^-e exactly unless the result is below 2^-1022, where
it is rounded to nearest (error ≤ 2^-1075); succ adds at least 2^-1074, so
succ(ldexp(x, −e)) ≥ x·2^-e. Overflow gives inf (an upper bound).
Lemma 3 (sum). (|c|·2^sh + rad)/2^E = |c|/2^(E−sh) + rad/2^E ≤ q + float_up(rad/2^E), and
succ of the rounded sum is ≥ the exact sum.

Checked below against exact Fractions: random integers of 1–1100 bits (both signs), values
next to powers of two, exponents that push the result into the subnormal range and to
underflow, and the composed bound of Lemma 3.
"""

import random
import sys
from fractions import Fraction

import numpy as np

from exactdp.arithmetic.rounding import float_up, succ
from exactdp.threshold.taylor_exact import quotients_up

PROVES = ["exactdp.threshold.taylor_exact.quotients_up"]

ok = True


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
            big = abs(v).bit_length() > 1000 or abs(v).bit_length() - e > 1000
            check(big, f"inf only beyond the float range ({v}, {e})")
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
