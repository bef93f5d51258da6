"""Fig. 4 / Example 3: the structured product-prior computation against the general engine."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from exactdp.errors import NotRegular
from exactdp.mechanisms.bounds import leakage_bound
from exactdp.regularity import is_regular
from exactdp.reproduce.fig4 import EXAMPLE3_P, fig4, product_prior_regularity, to_markdown
from exactdp.spaces.metrics import hamming


def product_prior(p: tuple, metric) -> list[F]:
    out = []
    for db in metric.points:
        x = F(1)
        for v in db:
            x *= p[v]
        out.append(x)
    return out


@pytest.mark.parametrize("level", [{"t": F(1, 2)}, {"t": F(3, 5)}, {"t": F(1, 3)},
                                   {"eps": "1/2"}, {"eps": "7/10"}, {"eps": "69/100"}])
@pytest.mark.parametrize("u", [1, 2, 3])
def test_structured_regularity_matches_general_engine(level: dict, u: int) -> None:
    m = hamming(4, u)
    pi = product_prior(EXAMPLE3_P, m)
    general = is_regular(m, pi, **level)
    fast = product_prior_regularity(EXAMPLE3_P, u, **level)
    assert fast.regular == general.regular
    assert fast.verify()
    if fast.regular:
        lb = leakage_bound(m, pi, **level)
        assert fast.leakage_bound.lo <= lb.enclosure.hi and lb.enclosure.lo <= fast.leakage_bound.hi
        if "t" in level:
            assert lb.value is not None
    else:
        with pytest.raises(NotRegular):
            leakage_bound(m, pi, **level)


def test_paper_size_boundary_with_the_general_engine() -> None:
    # u = 5 (1024 databases): regular at ε = 0.70, not at 0.69 nor at the paper's 0.5
    m = hamming(4, 5)
    pi = product_prior(EXAMPLE3_P, m)
    assert is_regular(m, pi, eps="7/10").regular
    assert not is_regular(m, pi, eps="69/100").regular
    assert not product_prior_regularity(EXAMPLE3_P, 5, eps="69/100").regular
    assert product_prior_regularity(EXAMPLE3_P, 5, eps="7/10").regular


def test_fig4_rows() -> None:
    rows = fig4(quick=True)
    assert [r.regular for r in rows] == [False, True, True]
    assert rows[0].prop5 is None
    # Prop. 5 (specific prior) is below Thm. 3 (all priors) where it applies
    for r in rows[1:]:
        assert r.prop5.hi < r.thm3.lo
    assert "not regular" in to_markdown(rows)
