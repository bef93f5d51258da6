"""Float squares may sort the far values of the Taylor tables; only exact comparisons decide.

``ValuePowers.near(far)`` (``exactdp/threshold/value_powers.py``) lists the values with
d² < far. With f = fl(far) and s = fl(d²) (Python's ``float`` of a Fraction: correctly
rounded, so |s − d²| ≤ u·d² with u = 2^-53 when d² is in the normal range, and
|s − d²| ≤ 2^-1075 below it), f ≥ 2^-900 normal:

Lemma 1. s < fl(f(1 − 2^-40)) implies d² < far.
Proof: fl(f(1 − 2^-40)) ≤ f(1 − 2^-40)(1 + u) and f ≤ far(1 + u), so
d² ≤ s(1 + u) + 2^-1075 < far(1 − 2^-40)(1 + u)³ + 2^-1075 < far, because
far·(2^-40 − 3u − 3u² − u³) > 2^-901·2^-41 > 2^-1075.

Lemma 2. s > fl(f(1 + 2^-40)) implies d² > far (the same argument mirrored).

The values with s in between are compared exactly (``squares[i] < far``), and a square
or a cut outside the float range (overflow, f < 2^-900) sends every value to the exact
comparison. Hence ``near`` returns exactly {i : d_i² < far}. Checked below: random and
adversarial squares (just below, at and above the cut, tiny and huge ones) against the
exact comparison, and the margin inequality of Lemma 1 in exact rational arithmetic.
"""

import random
import sys
from fractions import Fraction

from exactdp.threshold.value_powers import ValuePowers

PROVES = ["exactdp.threshold.value_powers.ValuePowers.near"]

ok = True


def check(cond, what):
    global ok
    if not cond:
        print("FAILED:", what)
        ok = False


class _Sq:
    """A stand-in distance value with a given exact square (``near`` reads only squares)."""

    def __init__(self, q):
        self.square = q


u = Fraction(1, 2**53)
eps = Fraction(1, 2**40)
far_min = Fraction(1, 2**900)
# Lemma 1's margin: far·(2^-40 − 3u − 3u² − u³) > 2^-1075 for far ≥ 2^-900
check(far_min * (eps - 3 * u - 3 * u**2 - u**3) > Fraction(1, 2**1075), "Lemma 1 margin")
check(((1 - eps) * (1 + u) ** 3) < 1 and ((1 + eps) * (1 - u) ** 3) > 1, "Lemmas 1-2 factors")

rng = random.Random(20261202)
for trial in range(60):
    far = Fraction(rng.randrange(1, 10**12), rng.randrange(1, 10**6)) * Fraction(2) ** rng.randrange(-200, 200)
    sq = []
    for _ in range(40):
        kind = rng.randrange(5)
        if kind == 0:      # anywhere
            q = far * Fraction(rng.randrange(1, 2000), 1000)
        elif kind == 1:    # within 2^-60 relative of the cut (both sides)
            q = far * (1 + Fraction(rng.randrange(-1000, 1001), 2**70))
        elif kind == 2:    # exactly the cut
            q = far
        elif kind == 3:    # tiny
            q = Fraction(rng.randrange(0, 5), 2**1100)
        else:              # one ulp-scale away
            q = far + Fraction(rng.choice([-1, 1]), 2**rng.randrange(1, 300))
        sq.append(max(q, Fraction(0)))
    vp = ValuePowers(tuple(_Sq(q) for q in sq), 1)
    want = [i for i, q in enumerate(sq) if q < far]
    check(vp.near(far) == want, f"trial {trial}: near() differs from the exact comparison")
    check(vp.near(None) == list(range(len(sq))), "no cut: every value")

# huge squares (float overflow) and a tiny cut: the exact path
vp = ValuePowers(tuple(_Sq(q) for q in (Fraction(10) ** 400, Fraction(1), Fraction(0))), 1)
check(vp.near(Fraction(10) ** 401) == [0, 1, 2] and vp.near(Fraction(2)) == [1, 2], "overflowing squares")
vp = ValuePowers(tuple(_Sq(q) for q in (Fraction(1, 2**1000), Fraction(0))), 1)
check(vp.near(Fraction(1, 2**999)) == [0, 1] and vp.near(Fraction(1, 2**1000)) == [1], "tiny cut")

print("value_square_cut:", "all checks passed" if ok else "FAILED")
sys.exit(0 if ok else 1)
