"""The structured exact route (issue 18): same answers as the generic exact route, complete
certificate re-checked by the kernel, tampering rejected, automatic routing."""

from __future__ import annotations

import copy
import dataclasses
from fractions import Fraction

import pytest
from flint import fmpz_poly

from exactdp.algebra.algebraic import AlgebraicNumber
from exactdp.algebra.symbolic import solve_symbolic
from exactdp.algebra.toeplitz import solve_toeplitz_ones, toeplitz_step
from exactdp.errors import InvalidArgument
from exactdp.kernel.verify import verify_document
from exactdp.spaces.metrics import count_queries, cycle, line, sum_query
from exactdp.threshold import epsilon_threshold
from exactdp.threshold.exact import exact_route
from exactdp.threshold.structured import StructuredThresholdCertificate, structured_route

TOL = Fraction(1, 10**9)


@pytest.mark.parametrize("metric", [line(11), line(101), sum_query(4, 3), sum_query(9, 2),
                                    sum_query(5, 6), sum_query(6, 7), sum_query(20, 5)],
                         ids=lambda m: m.name)
def test_z_equals_generic_solution(metric):
    """N_i/D from the banded reduction = the generic symbolic solver's z_i, for every i."""
    s = solve_toeplitz_ones(metric)
    g = solve_symbolic(metric)
    assert s is not None
    for i in range(metric.n):
        assert s.numerator(i) * g.denominator == g.numerators[i] * s.denominator


@pytest.mark.parametrize("u,v", [(8, 2), (50, 2), (6, 3), (33, 3), (5, 4), (25, 4), (4, 5),
                                 (20, 5), (4, 6), (16, 6), (3, 7), (14, 7)])
def test_minimal_polynomial_equals_generic_exact_route(u, v):
    m = sum_query(u, v)
    r = structured_route(m, TOL)
    e, _ = exact_route(m, None, TOL, None, [], 400)
    assert r is not None and r.method == f"structured-toeplitz(step {v})"
    assert r.exact.minimal_polynomial == e.exact.minimal_polynomial
    assert r.exact.compare(e.exact.isolating_interval[0]) >= 0
    assert r.exact.compare(e.exact.isolating_interval[1]) <= 0
    # both enclosures contain ε*: they intersect
    assert r.eps_lower <= e.eps_upper and e.eps_lower <= r.eps_upper
    assert r.eps_upper - r.eps_lower <= TOL
    assert r.verify()


def test_not_applicable():
    assert toeplitz_step(cycle(8)) is None            # circulant, not Toeplitz
    assert toeplitz_step(count_queries(3)) is None    # block Toeplitz
    assert structured_route(line(40), TOL) is None    # holds for every ε: left to other routes


@pytest.fixture(scope="module")
def result():
    return structured_route(sum_query(12, 4), TOL)


def test_json_round_trip_and_kernel(result):
    cert = result.certificate
    doc = cert.to_json()
    assert verify_document(doc).verified
    back = StructuredThresholdCertificate.from_json(cert.dumps())
    assert back.verify() and back.to_json() == doc


def _tampered(doc, path, value):
    d = copy.deepcopy(doc)
    obj = d
    for key in path[:-1]:
        obj = obj[key]
    obj[path[-1]] = value(obj[path[-1]])
    return d


def _bump(coeffs):
    return [str(int(coeffs[0]) + 1)] + coeffs[1:]


@pytest.mark.parametrize("path,change", [
    (("claim", "s_star", "minimal_polynomial"), _bump),
    (("evidence", "denominator"), _bump),
    (("evidence", "witness"), lambda w: (w + 1) % 7),
    (("claim", "eps"), lambda e: {k: str(Fraction(x) + Fraction(1, 10**6)) for k, x in e.items()}),
    (("claim", "eps"), lambda e: {k: str(Fraction(x) - Fraction(1, 10**6)) for k, x in e.items()}),
    (("evidence", "step"), lambda v: v + 1),
], ids=["minpoly", "denominator", "witness", "eps-above", "eps-below",
        "step"])
def test_tampered_document_rejected(result, path, change):
    doc = _tampered(result.certificate.to_json(), path, change)
    assert not verify_document(doc).verified


def test_tampered_interval_rejected(result):
    """An interval that misses s* (below it, or above it) is refused."""
    fine = result.exact.refine(Fraction(1, 10**6))
    below, above = fine.isolating_interval
    doc = result.certificate.to_json()
    for key, value in (("hi", below), ("lo", above)):
        bad = copy.deepcopy(doc)
        bad["claim"]["s_star"]["isolating_interval"][key] = str(value)
        if key == "lo":
            bad["claim"]["s_star"]["isolating_interval"]["hi"] = str(above + Fraction(1, 10**7))
        assert not verify_document(bad).verified


def test_tampered_numerator_rejected(result):
    doc = result.certificate.to_json()
    for k in (0, 3, len(doc["evidence"]["numerators"]) - 1):
        bad = copy.deepcopy(doc)
        bad["evidence"]["numerators"][k] = _bump(bad["evidence"]["numerators"][k])
        assert not verify_document(bad).verified


def test_swapped_question_rejected(result):
    """The evidence of sum_query(12, 4) under the question of sum_query(16, 3) (same n)."""
    other = structured_route(sum_query(16, 3), TOL)
    doc = result.certificate.to_json()
    doc["question"] = other.certificate.to_json()["question"]
    try:
        verdict = verify_document(doc).verified
    except InvalidArgument:
        verdict = False
    assert not verdict


def test_tampered_objects_rejected(result):
    cert = result.certificate
    a = cert.s_star
    other = sum_query(16, 3)                      # same n = 49, other distances
    assert other.n == cert.metric.n
    assert not dataclasses.replace(cert, metric=other).verify()
    assert not dataclasses.replace(cert, metric=line(49)).verify()
    lo, hi = a.isolating_interval
    assert not dataclasses.replace(cert, s_star=AlgebraicNumber(
        a.minimal_polynomial, (lo, (lo + hi) / 2 if a.compare((lo + hi) / 2) > 0 else lo))).verify()
    nums = list(cert.solution.numerators)
    nums[1] = nums[1] + fmpz_poly([0, 1])
    assert not dataclasses.replace(
        cert, solution=dataclasses.replace(cert.solution, numerators=nums)).verify()
    # a swapped question on the result: the result's own binding check refuses it
    assert not dataclasses.replace(result, metric=other).verify()


def test_auto_routing():
    r = epsilon_threshold(sum_query(40, 5), verify=True)
    assert r.method == "structured-toeplitz(step 5)" and r.verified
    assert r.exact is not None and r.exact.degree == 99
    small = epsilon_threshold(sum_query(4, 5))     # n ≤ max_exact_n: today's exact route
    assert small.method == "exact"


def test_review18_size_limits_and_grid_precheck():
    """Review 18: the route has a size cap under auto (max_structured_n), bad limits are refused,
    and a 2-D grid is rejected from its grid claim without building the n×n index."""
    import pytest

    from exactdp.algebra.toeplitz import toeplitz_step
    from exactdp.errors import InvalidArgument
    from exactdp.spaces.metrics import grid, sum_query
    from exactdp.threshold import epsilon_threshold

    m = sum_query(40, 5)  # n = 201
    capped = epsilon_threshold(m, max_exact_n=10, max_structured_n=100)
    assert not capped.method.startswith("structured")
    forced = epsilon_threshold(m, max_exact_n=10, max_structured_n=100, method="exact")
    assert forced.method.startswith("structured")
    assert forced.eps_lower <= capped.eps_upper and capped.eps_lower <= forced.eps_upper
    for bad in (-5, 1.5, True, "10"):
        with pytest.raises(InvalidArgument, match="max_exact_n"):
            epsilon_threshold(m, max_exact_n=bad)
        with pytest.raises(InvalidArgument, match="max_structured_n"):
            epsilon_threshold(m, max_structured_n=bad)
    g = grid(120, 120, "chebyshev")
    assert toeplitz_step(g) is None and "index" not in vars(g)


def test_line_beyond_the_exact_route_holds_for_every_eps():
    """line(n), n > 400: the float search sees no failure; the structured exact z(s) becomes the
    exact route's 'holds for every ε' certificate, kernel-checked (it raised PrecisionLimitReached)."""
    import pytest

    from exactdp.errors import PrecisionLimitReached
    from exactdp.spaces.metrics import line, sum_query
    from exactdp.threshold import epsilon_threshold
    from exactdp.threshold.structured import structured_everywhere

    r = epsilon_threshold(line(401))
    assert (r.eps_lower, r.eps_upper, r.holds_everywhere) == (0, 0, True)
    assert r.method.startswith("structured-toeplitz") and r.certificate.verify()
    assert structured_everywhere(sum_query(30, 5)) is None  # fails at ε* ≈ 0.97: not proved
    with pytest.raises(PrecisionLimitReached, match="for every"):  # above the cap: as before
        epsilon_threshold(line(401), max_structured_n=400)
