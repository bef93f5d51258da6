"""``set-privacy`` kernel documents (exactdp.kernel.sets) on the cases its mutation run found
unguarded: a 7-D question (the product-term bound counts 1 cell per axis, not 3), repeated
points, box corners of two dimensions, ℓ∞ ``points_sharp`` claims that fail by less than a
factor 2, irrational s = √t at a rational t (exponents of half units), and the documented
|ε·r| ≤ 10¹⁵ limit.

Ground truth is independent of the kernel and of the library's sweep: the capacity
T_{M(X)}(K) = P[w ∈ ∪_{x, B} (B − x)] (w i.i.d. Laplace(0, 1/ε) coordinates) by
inclusion–exclusion over the shifted boxes, each box a product of interval probabilities in
closed form (½e^{−εl} − ½e^{−εh} for 0 ≤ l, ½e^{εh} − ½e^{εl} for h ≤ 0, else
1 − ½e^{εl} − ½e^{−εh}), exact exp-polynomials Σ c·e^{−ε·r}; d_H by its definition; diam K as
the largest corner-to-corner distance; the verdict T_X ≤ factor·T_Y at the level by mpmath at
60 digits (every margin here is ≥ 10⁻⁶ away from 0), factor from the bound's definition.
"""

from __future__ import annotations

import copy
import itertools
from fractions import Fraction as F

import mpmath
import pytest

from exactdp.errors import InstanceTooLarge, InvalidArgument
from exactdp.kernel.verify import verify_document
from exactdp.sets import Box, check_set_privacy


# ---------------------------------------------------------------------- the oracle
def _interval(lo: F, hi: F) -> dict[F, F]:
    """P[lo ≤ w ≤ hi] as {r: c} of Σ c·e^{−ε r}."""
    if lo >= 0:
        out = {lo: F(1, 2), hi: F(-1, 2)}
    elif hi <= 0:
        out = {-hi: F(1, 2), -lo: F(-1, 2)}
    else:
        out = {F(0): F(1), -lo: F(-1, 2), hi: F(-1, 2)}
        if -lo == hi:
            out = {F(0): F(1), hi: F(-1)}
    return out


def _times(a: dict[F, F], b: dict[F, F]) -> dict[F, F]:
    out: dict[F, F] = {}
    for (r, c), (s, d) in itertools.product(a.items(), b.items()):
        out[r + s] = out.get(r + s, F(0)) + c * d
    return out


def _capacity(X, K) -> dict[F, F]:
    boxes = [(tuple(l - c for l, c in zip(lo, x)), tuple(h - c for h, c in zip(hi, x)))
             for x in X for lo, hi in K]
    total: dict[F, F] = {}
    for size in range(1, len(boxes) + 1):
        for S in itertools.combinations(boxes, size):
            lo = [max(b[0][i] for b in S) for i in range(len(X[0]))]
            hi = [min(b[1][i] for b in S) for i in range(len(X[0]))]
            if any(a >= b for a, b in zip(lo, hi)):
                continue  # empty (or measure-zero) intersection
            p = {F(0): F(1)}
            for a, b in zip(lo, hi):
                p = _times(p, _interval(a, b))
            for r, c in p.items():
                total[r] = total.get(r, F(0)) + (-1) ** (size + 1) * c
    return {r: c for r, c in total.items() if c}


def _dist(a, b, norm):
    g = [abs(u - v) for u, v in zip(a, b)]
    return sum(g) if norm == "l1" else max(g)


def _truth(X, Y, K, eps, bound, norm):
    """(T_X, T_Y, d_H, diam K, holds) decided here."""
    tx, ty = _capacity(X, K), _capacity(Y, K)
    near = [min(_dist(x, y, norm) for y in Y) for x in X]
    d_h = max(near + [min(_dist(x, y, norm) for x in X) for y in Y])
    corners = [c for lo, hi in K for c in itertools.product(*zip(lo, hi))]
    diam = max(_dist(a, b, norm) for a in corners for b in corners)
    with mpmath.workdps(60):
        e = eps()
        T = {k: mpmath.fsum(c.numerator * mpmath.exp(-e * r.numerator / r.denominator) / c.denominator
                            for r, c in p.items()) for k, p in (("X", tx), ("Y", ty))}
        factor = {"paper": mpmath.exp(e * (d_h + diam)), "hausdorff": mpmath.exp(e * d_h),
                  "points": len(X) * mpmath.exp(e * d_h),
                  "points_sharp": mpmath.fsum(mpmath.exp(e * b) for b in near)}[bound]
        margin = factor * T["Y"] - T["X"]
        assert abs(margin) > mpmath.mpf(10) ** -6, "the oracle needs a clear margin"
        return tx, ty, d_h, diam, bool(margin > 0), float(T["X"] / (factor * T["Y"]))


def _write(F_or_str):
    return str(F(F_or_str))


def _exp_poly(p):
    return [[str(r), str(c)] for r, c in sorted(p.items())]


def _pt(v):
    return tuple(F(c) for c in v) if isinstance(v, tuple) else (F(v),)


# (X, Y, K boxes as (lower, upper), level text, ε as mpmath, bound, norm)
CASES = {
    # 7-D: one cell per axis, 2·3⁷ product terms (a count of 3 cells per axis: 2·7⁷ > 10⁵)
    "7-D": ([(0,) * 7], [(F(1, 2),) + (0,) * 6], [((0,) * 7, (1,) * 7)], "1",
            lambda: mpmath.mpf(1), "hausdorff", "l1"),
    # ℓ∞ points_sharp fails by less than a factor 2 (the bound is proven for ℓ1 only)
    "linf sharp": ([(F(3, 2), F(1, 2))], [(F(1), F(0))], [((F(3, 2), F(0)), (F(3), F(3, 2)))],
                   "1", lambda: mpmath.mpf(1), "points_sharp", "linf"),
    # two boxes on an anti-diagonal: diam K (ℓ1) = |(0, 3) − (3, 0)| = 6, a pair of corners
    # from different boxes in both axes
    "anti-diagonal": ([(0, 0)], [(F(1, 2), F(1, 2))], [((0, 2), (1, 3)), ((2, 0), (3, 1))], "1",
                      lambda: mpmath.mpf(1), "paper", "l1"),
    # t = 1/2 and half-unit exponents: s = √(1/2) irrational (reduction modulo x² − 1/2)
    "half units": ([F(0), F(1, 2)], [F(1, 2)], [(F(0), F(3, 2))], "ln(2)",
                   lambda: mpmath.log(2), "paper", "l1"),
    "half units 2": ([F(-1, 2), F(1)], [F(0)], [(F(0), F(1, 2)), (F(1), F(5, 2))], "ln(2)",
                     lambda: mpmath.log(2), "hausdorff", "l1"),
    # … one whose sign differs from that of the even-exponent part alone (margin ≈ −0.017)
    "half units 3": ([F(-3, 2), F(-1, 2), F(3, 2)], [F(-1, 2)], [(F(1), F(3, 2))], "ln(2)",
                     lambda: mpmath.log(2), "hausdorff", "l1"),
}


def _case(name):
    X, Y, K, eps_text, eps, bound, norm = CASES[name]
    X, Y = [_pt(x) for x in X], [_pt(y) for y in Y]
    K = [(_pt(lo), _pt(hi)) for lo, hi in K]
    return X, Y, K, eps_text, eps, bound, norm


def _library_doc(name):
    X, Y, K, eps_text, _, bound, norm = _case(name)
    unbox = (lambda p: p[0]) if len(X[0]) == 1 else (lambda p: p)
    boxes = [Box(unbox(lo), unbox(hi)) for lo, hi in K]
    return check_set_privacy([unbox(x) for x in X], [unbox(y) for y in Y], boxes, eps_text,
                             bound=bound, norm=norm).to_document()


@pytest.mark.parametrize("name", list(CASES))
def test_genuine_document_matches_the_oracle_and_verifies(name):
    X, Y, K, _, eps, bound, norm = _case(name)
    tx, ty, d_h, diam, holds, _ = _truth(X, Y, K, eps, bound, norm)
    doc = _library_doc(name)
    c = doc["claim"]
    assert (c["T_X"], c["T_Y"], c["d_H"], c["diam_K"]) == (
        _exp_poly(tx), _exp_poly(ty), str(d_h), str(diam))
    assert c["verdict"] == ("holds" if holds else "fails")
    assert verify_document(doc).verified
    flipped = copy.deepcopy(doc)
    flipped["claim"]["verdict"] = "fails" if holds else "holds"
    assert not verify_document(flipped).verified


def test_linf_sharp_case_fails_by_less_than_two():
    """The case is there to pin the factor Σ_x e^{ε d(x, Y)} (not 2·Σ)."""
    X, Y, K, _, eps, bound, norm = _case("linf sharp")
    ratio = _truth(X, Y, K, eps, bound, norm)[5]
    assert 1 < ratio < 2


def test_repeated_points_are_malformed():
    doc = _library_doc("half units")
    doc["question"]["X"] = [["0"], ["0"], ["1/2"]]
    with pytest.raises(InvalidArgument, match="strictly increasing"):
        verify_document(doc)


def test_box_corners_of_two_dimensions_are_malformed():
    doc = _library_doc("linf sharp")
    doc["question"]["K"][0]["upper"] = ["3"]
    with pytest.raises(InvalidArgument, match="dimension"):
        verify_document(doc)
    doc["question"]["K"][0]["upper"] = ["3", "3/2"]
    doc["question"]["K"][0]["lower"] = ["3/2"]
    with pytest.raises(InvalidArgument, match="dimension"):
        verify_document(doc)


def test_a_term_beyond_the_documented_exponent_limit_is_refused():
    """|ε·r| = √2·2·10¹⁵ > 10¹⁵ at an irrational t: documented InstanceTooLarge. The claim is
    true (X = Y = {0}, K = [0, D]: T = ½ − ½e^{−εD}, the paper factor e^{εD}, margin
    ½(e^{εD} + e^{−εD}) − 1 > 0), so only the limit refuses it."""
    D = 2 * 10**15
    doc = _library_doc("half units")
    doc["question"].update(X=[["0"]], Y=[["0"]], K=[{"lower": ["0"], "upper": [str(D)]}],
                           level={"eps": "sqrt(2)"}, bound="paper")
    doc["claim"].update(verdict="holds", d_H="0", diam_K=str(D),
                        T_X=[["0", "1/2"], [str(D), "-1/2"]], T_Y=[["0", "1/2"], [str(D), "-1/2"]])
    with pytest.raises(InstanceTooLarge, match="MAX_EXPONENT"):
        verify_document(doc)
    doc["question"]["K"][0]["upper"] = ["2"]  # the same claim at D = 2 is within the limit
    doc["claim"].update(diam_K="2", T_X=[["0", "1/2"], ["2", "-1/2"]], T_Y=[["0", "1/2"], ["2", "-1/2"]])
    assert verify_document(doc).verified


def test_too_many_product_terms_are_refused_before_any_work():
    """6-D, X = {0, (1/2, …)}, one box [0, 1]⁶: 3 cells per axis for X (box ends minus
    points: 0, 1, −1/2, 1/2), so up to 7⁶ = 117,649 product terms for X (plus 3⁶ for Y):
    over the documented MAX_TERMS = 100,000."""
    doc = _library_doc("7-D")
    doc["question"].update(X=[["0"] * 6, ["1/2"] * 6], Y=[["0"] * 6],
                           K=[{"lower": ["0"] * 6, "upper": ["1"] * 6}])
    with pytest.raises(InstanceTooLarge, match="product terms"):
        verify_document(doc)
