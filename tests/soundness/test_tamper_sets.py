"""Property-based tampering of the sets module's exact results (issue 11).

Objects: HausdorffResult, DiameterResult (exact values with witnesses) on point sets drawn
by :mod:`exactdp.testing.set_strategies`.

GROUND TRUTH (independent of exactdp.sets): distances computed here exactly — ℓ1 and ℓ∞
as Fractions, ℓ2 through its exact square (sympy's sqrt of a rational for the value) —
and the Hausdorff distance / diameter by brute force. Claims: the value is the true one;
the witness pair lies in the stated sets and realises the value (for Hausdorff: the
witness's distance to the other set is the value and ``nearest`` is a nearest point).
"""

from __future__ import annotations

from fractions import Fraction as F
from typing import Any

import sympy
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from exactdp.sets import diameter, hausdorff_distance, point_set
from exactdp.testing.strategies import point_sets
from exactdp.testing.tampering import Tally, examples, judge, replace

SETTINGS = dict(derandomize=True, deadline=None, database=None,
                phases=[Phase.explicit, Phase.reuse, Phase.generate],  # no slow shrinking in CI
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def dist(a: tuple[F, ...], b: tuple[F, ...], norm: str) -> sympy.Expr:
    d = [abs(x - y) for x, y in zip(a, b)]
    if norm == "l1":
        return sympy.Rational(sum(d))
    if norm == "linf":
        return sympy.Rational(max(d))
    s = sum(x * x for x in d)
    return sympy.sqrt(sympy.Rational(s.numerator, s.denominator))


def _norm(r: Any) -> str:
    return str(getattr(r.norm, "value", r.norm))


def hausdorff_truth(r: Any) -> bool:
    norm = _norm(r)
    X, Y = r.X.points, r.Y.points
    dx = max(min(dist(a, b, norm) for b in Y) for a in X)
    dy = max(min(dist(a, b, norm) for b in X) for a in Y)
    true = max(dx, dy)
    if sympy.simplify(r.value - true) != 0:
        return False
    src, dst = (X, Y) if r.direction == "X->Y" else (Y, X) if r.direction == "Y->X" else (None, None)
    if src is None or r.witness not in src or r.nearest not in dst:
        return False
    return dist(r.witness, r.nearest, norm) == true and min(dist(r.witness, b, norm) for b in dst) == true


def diameter_truth(r: Any) -> bool:
    norm = _norm(r)
    S = r.S.points
    true = max(dist(a, b, norm) for a in S for b in S)
    return (sympy.simplify(r.value - true) == 0 and r.a in S and r.b in S
            and dist(r.a, r.b, norm) == true)


@settings(max_examples=examples(10), **SETTINGS)
@given(point_sets(dim=2, max_size=4), point_sets(dim=2, max_size=4), st.sampled_from(["l1", "l2", "linf"]))
def test_tamper_hausdorff_and_diameter(X: Any, Y: Any, norm: str) -> None:
    tally = Tally("sets")
    h = hausdorff_distance(X, Y, norm=norm)
    judge(tally, "hausdorff genuine", h, True, genuine=True)
    assert hausdorff_truth(h)
    tams = [(f"value→{v}", replace(h, value=v)) for v in
            (h.value + sympy.Rational(1, 10**6), h.value * 2, sympy.Integer(0), -h.value - 1, h.value + sympy.sqrt(2))
            if v != h.value]
    tams += [(f"witness→{p}", replace(h, witness=p)) for p in X.points + Y.points if p != h.witness]
    tams += [(f"nearest→{p}", replace(h, nearest=p)) for p in X.points + Y.points if p != h.nearest]
    tams.append(("direction flipped", replace(h, direction="Y->X" if h.direction == "X->Y" else "X->Y")))
    tams.append(("X replaced", replace(h, X=point_set([(0, 0), (9, 9)]))))
    tams.append(("Y := X", replace(h, Y=h.X)))
    for label, t in tams:
        judge(tally, f"Hausdorff: {label}", t, hausdorff_truth(t))
    d = diameter(X, norm=norm)
    judge(tally, "diameter genuine", d, True, genuine=True)
    tams = [(f"value→{v}", replace(d, value=v)) for v in
            (d.value + sympy.Rational(1, 10**6), d.value / 2, sympy.Integer(0), d.value + 1) if v != d.value]
    tams += [(f"a→{p}", replace(d, a=p)) for p in X.points if p != d.a]
    tams.append(("S replaced", replace(d, S=Y)))
    for label, t in tams:
        judge(tally, f"Diameter: {label}", t, diameter_truth(t))
    tally.raise_if_failed()
