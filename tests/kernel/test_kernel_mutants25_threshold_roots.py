"""Session 25, first complete mutation run of exactdp/kernel/threshold_roots.py (38 mutants;
the s* and ε checks shared by the structured and quotient thresholds).

Ground truth: sum_query(3, 2)'s structured certificate (tests/kernel/
test_kernel_mutants22_threshold_structured.py) states s* = 1/√2, the root of g = 2s² − 1,
with the isolating interval [45/64, 93/128]; 1/√2 ≈ 0.70711 < 91/128 = 0.71094 (since
2·91² = 16562 > 128² = 16384), and s* = e^{−ε*} lies in (0, 1).
"""

from __future__ import annotations

import copy
from fractions import Fraction

import pytest

from exactdp.errors import InvalidArgument
from exactdp.kernel.threshold_structured import check_structured, read_structured
from exactdp.spaces.metrics import sum_query
from exactdp.threshold.structured import structured_route


@pytest.fixture(scope="module")
def doc():
    return structured_route(sum_query(3, 2), Fraction(1, 10**12)).certificate.to_json()


def _verified(doc, lo=None, hi=None):
    d = copy.deepcopy(doc)
    iv = d["claim"]["s_star"]["isolating_interval"]
    iv.update({k: v for k, v in (("lo", lo), ("hi", hi)) if v is not None})
    try:
        return check_structured(read_structured(d))
    except InvalidArgument:
        return False


def test_the_genuine_interval_and_a_wider_true_one_verify(doc):
    assert doc["claim"]["s_star"]["minimal_polynomial"] == ["2", "0", "-1"]
    assert doc["claim"]["s_star"]["isolating_interval"] == {"lo": "45/64", "hi": "93/128"}
    assert _verified(doc) and _verified(doc, lo="1/2") and _verified(doc, lo="0")


# kills "line 45: 0 -> 1" (the site "a > 1": the sign of g at a lower end in (0, 1) never
# checked, so an interval that misses s* from above was accepted)
def test_an_interval_above_s_star_is_refused(doc):
    assert 2 * 91**2 > 128**2  # 91/128 > 1/√2
    assert not _verified(doc, lo="91/128")
    assert not _verified(doc, lo="23/32")


# kills "line 44: 1 -> 2" (the site "b < 2": an isolating interval reaching 1 or past it was
# accepted; s* = e^{−ε*/q} < 1, so the schema's interval lies in [0, 1))
def test_an_interval_reaching_one_is_refused(doc):
    assert _verified(doc, hi="127/128")
    for hi in ("1", "3/2"):
        assert not _verified(doc, hi=hi)
