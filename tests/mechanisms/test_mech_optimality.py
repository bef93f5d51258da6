"""Thm. 4: optimality for every regular prior, decided by an exact LP with certificates."""

from __future__ import annotations

import itertools
from fractions import Fraction as F

import flint
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.errors import ExactnessRequired, InstanceTooLarge
from exactdp.mechanisms import (
    exponential_mechanism,
    from_balls,
    from_rows,
    geometric_line,
    optimality,
    sum_query_geometric,
    tight_constraints_mechanism,
    truncated_geometric,
    utility,
)
from exactdp.mechanisms.bounds import utility_bound
from exactdp.mechanisms.optimality import exact_feasibility, exact_lp_min, is_optimal
from exactdp.spaces.metrics import cycle, discrete, line, sum_query
from exactdp.tight import tight_constraints

T = st.sampled_from([F(1, 5), F(1, 3), F(1, 2), F(2, 3)])


@settings(max_examples=12, deadline=None)
@given(t=T, k=st.integers(0, 3))
def test_tight_constraints_mechanisms_are_optimal(t: F, k: int) -> None:
    metric = [line(4), cycle(4), discrete(3), sum_query(2, 2)][k]
    if not tight_constraints(metric, t=t).exists:
        return
    r = is_optimal(tight_constraints_mechanism(metric, t=t), metric, t=t)
    assert r.optimal and r.verify()


def test_split_outputs_are_still_optimal() -> None:
    # duplicate every output of the truncated geometric, halving the mass: the remap that
    # merges the halves back recovers the tight-constraints mechanism
    H = truncated_geometric(3, t="1/2").rows_fraction()
    split = [[v / 2 for v in row for _ in (0, 1)] for row in H]
    r = is_optimal(from_rows(split), line(3), t="1/2")
    assert r.optimal and r.verify()
    R = r.certificate.remap
    assert len(R) == 6 and all(sum(row) == 1 for row in R)


def test_geometric_comparator_of_the_sum_query_is_not_optimal() -> None:
    metric = sum_query(2, 2)
    t = F(1, 4)  # s = 1/2
    assert tight_constraints(metric, t=t).exists
    G = sum_query_geometric(2, 2, t=t)
    r = is_optimal(G, metric, t=t)
    assert not r.optimal and r.certificate.kind == "remap-farkas" and r.verify()
    # consistent with Thm. 2: strictly below the bound for the (regular) uniform prior
    assert utility(G).value < utility_bound(metric, "uniform", t=t).value


def test_flat_and_non_private_mechanisms() -> None:
    flat = from_rows([[F(1, 3)] * 3] * 3)
    r = is_optimal(flat, line(3), t="1/2")
    assert not r.optimal and r.verify()
    ident = from_rows([[1, 0, 0], [0, 1, 0], [0, 0, 1]])
    r = is_optimal(ident, line(3), t="1/2")
    assert not r.optimal and r.certificate is None and not r.private.private and r.verify()


def test_exponential_mechanism_on_a_cycle() -> None:
    # ball-size symmetric: the exponential mechanism at ε is h ∝ e^{-ε d/2}, not the
    # tight-constraints one e^{-ε d}; it is private at ε but not optimal
    m = cycle(5)
    r = is_optimal(exponential_mechanism(m, t="1/4"), m, t="1/4")
    assert not r.optimal and r.verify()


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_exact_feasibility_certificates(data: st.DataObject) -> None:
    rows = data.draw(st.integers(1, 4))
    cols = data.draw(st.integers(1, 4))
    A = [[F(data.draw(st.integers(-3, 3))) for _ in range(cols)] for _ in range(rows)]
    b = [F(data.draw(st.integers(-3, 3))) for _ in range(rows)]
    ok, v = exact_feasibility(A, b)
    if ok:
        assert all(x >= 0 for x in v)
        assert all(sum((a * x for a, x in zip(r, v)), F(0)) == bi for r, bi in zip(A, b))
    else:
        assert all(sum((A[i][j] * v[i] for i in range(rows)), F(0)) >= 0 for j in range(cols))
        assert sum((bi * w for bi, w in zip(b, v)), F(0)) < 0


def test_bad_input(monkeypatch: pytest.MonkeyPatch) -> None:
    # balls without a closed form: an equality (optimality) cannot be certified (one point:
    # privacy holds vacuously, Σ_z μ_z = 1 = n is an equality of balls)
    with pytest.raises(ExactnessRequired):
        is_optimal(from_balls([[flint.arb(1)]]), line(1), eps=1)
    monkeypatch.setattr(optimality, "MAX_ENTRIES", 8)
    with pytest.raises(InstanceTooLarge):
        is_optimal(truncated_geometric(3, t="1/2"), line(3), t="1/2")


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_exact_lp_min_matches_vertex_enumeration(data: st.DataObject) -> None:
    rows = data.draw(st.integers(1, 3))
    cols = data.draw(st.integers(1, 4))
    A = [[F(data.draw(st.integers(-2, 3))) for _ in range(cols)] for _ in range(rows)]
    b = [F(data.draw(st.integers(0, 3))) for _ in range(rows)]
    c = [F(data.draw(st.integers(0, 4))) for _ in range(cols)]  # c ≥ 0: bounded below
    res = exact_lp_min(c, A, b)
    # brute force: the optimum of a feasible LP with c ≥ 0 is attained at a basic feasible
    # solution; enumerate all column subsets and solve their (least-squares-free) systems
    best = None
    M = sympy.Matrix(A)
    for k in range(0, cols + 1):
        for S in itertools.combinations(range(cols), k):
            sub = M[:, list(S)] if S else sympy.zeros(rows, 0)
            try:
                sol, params = sub.gauss_jordan_solve(sympy.Matrix(b)) if S else (None, None)
            except ValueError:
                continue
            if not S:
                if all(v == 0 for v in b):
                    best = F(0) if best is None else min(best, F(0))
                continue
            if params.shape[0]:
                continue  # not a basic solution
            x = [F(0)] * cols
            for j, v in zip(S, sol):
                x[j] = F(int(sympy.Rational(v).p), int(sympy.Rational(v).q))
            if all(v >= 0 for v in x):
                val = sum((ci * xi for ci, xi in zip(c, x)), F(0))
                best = val if best is None else min(best, val)
    if best is None:
        assert res is None
    else:
        assert res is not None and res[0] == best
        x = res[1]
        assert all(v >= 0 for v in x)
        assert all(sum((a * v for a, v in zip(r, x)), F(0)) == bi for r, bi in zip(A, b))


def test_theorem_hypothesis_is_reported() -> None:
    # sum_query(2, 2) at small ε: no tight-constraints mechanism (checked by the engine),
    # so no mechanism can attain the bound; the result says the hypothesis fails
    metric = sum_query(2, 2)
    t = F(9, 10)
    tc = tight_constraints(metric, t=t)
    H = geometric_line(5, "19/20")  # ratio ≤ (20/19)² = 400/361 < 10/9 on every edge
    r = is_optimal(H, metric, t=t)
    assert r.private.private
    assert r.tight_constraints_exist is False and not tc.exists
    assert not r.optimal and r.verify()
    ok = is_optimal(truncated_geometric(3, t="1/2"), line(3), t="1/2")
    assert ok.tight_constraints_exist is True
