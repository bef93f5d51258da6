"""Issue 18: band metrics and eventually repeating Toeplitz symbols (e_{k+v} = e_k + c for
k ≥ k0, c ≥ 0) through the structured route — same answers as the generic exact route,
JSON with the new ``offset`` field, tampering rejected, old documents unchanged."""

from __future__ import annotations

import copy
import dataclasses
from fractions import Fraction

import pytest

from exactdp.algebra.symbolic import solve_symbolic
from exactdp.algebra.toeplitz import solve_toeplitz_ones, toeplitz_step
from exactdp.engine.questions import canonical_metric
from exactdp.errors import InvalidArgument
from exactdp.kernel.metricio import read_metric_json, write_metric
from exactdp.kernel.threshold_structured import structure_holds
from exactdp.kernel.verify import verify_document
from exactdp.metrics import band as band_public
from exactdp.spaces.metrics import band, discrete, from_matrix, line
from exactdp.threshold.exact import exact_route
from exactdp.threshold.structured import StructuredThresholdCertificate, structured_route

TOL = Fraction(1, 10**9)


def repeating(base, v, c, n):
    """The metric with e_k = base[k] for k < len(base), then e_{k+v} = e_k + c."""
    e = list(base)
    while len(e) < n:
        e.append(e[len(e) - v] + c)
    return from_matrix([[e[abs(i - j)] for j in range(n)] for i in range(n)])


# ---------------------------------------------------------------------- the constructor
def test_band_distances_and_params():
    m = band(7, 3)
    assert band_public is band
    assert m.name == "band(7, 3)" and m.params == {"n": 7, "w": 3} and m.toeplitz
    assert m.exponent_matrix()[0].tolist() == [0, 1, 2, 3, 3, 3, 3]
    assert m.exponent_matrix()[5].tolist() == [3, 3, 3, 2, 1, 0, 1]
    # w = 1 is the discrete metric, w ≥ n − 1 the line
    assert (band(5, 1).exponent_matrix() == discrete(5).exponent_matrix()).all()
    assert (band(5, 4).exponent_matrix() == line(5).exponent_matrix()).all()
    assert (band(5, 40).exponent_matrix() == line(5).exponent_matrix()).all()
    # an honest metric: the checked constructor accepts the same distances
    from_matrix(band(9, 3).exponent_matrix().tolist())


@pytest.mark.parametrize("args,word", [((0, 2), "n=0"), ((5, 0), "w=0"), ((5, -1), "w=-1"),
                                       ((5, 1.5), "w=1.5"), ((5, True), "w=True"),
                                       (("5", 2), "n='5'")])
def test_band_rejects_bad_arguments(args, word):
    with pytest.raises(InvalidArgument, match=word):
        band(*args)


def test_band_json_round_trip():
    m = band(12, 4)
    canon, spec, fp = canonical_metric(m)
    assert spec is not None and spec[0] == "band"
    doc = write_metric(canon, spec, fp)
    assert doc["encoding"] == "builtin" and doc["params"] == {"n": 12, "w": 4}
    back, _, fp2 = read_metric_json(doc)
    assert fp2 == fp and (back.exponent_matrix() == m.exponent_matrix()).all()


# ---------------------------------------------------------------------- the structure
def test_step_offset_detection():
    st = toeplitz_step(band(20, 5))
    assert (st.step, st.shift, st.offset, st.bandwidth) == (1, 0, 5, 5)
    st = toeplitz_step(repeating([0, 2, 2], 2, 1, 15))       # e = 0, 2, 2, 3, 3, 4, 4, …
    assert (st.step, st.shift, st.offset) == (2, 1, 1)
    st = toeplitz_step(line(9))
    assert (st.step, st.shift, st.offset) == (1, 1, 0)
    # the kernel accepts only the least offset (canonical) and only true structure
    m = band(20, 5)
    assert structure_holds(m, 1, 0, 5)
    assert not structure_holds(m, 1, 0, 6)       # true, but not the least offset
    assert not structure_holds(m, 1, 0, 4)       # false
    assert not structure_holds(m, 1, 1, 5)
    assert not structure_holds(m, 1, 0, -1)


@pytest.mark.parametrize("metric", [band(12, 2), band(20, 3), band(31, 4), band(40, 7),
                                    repeating([0, 2, 2], 2, 1, 17),
                                    repeating([0, 1, 1, 2, 2, 2], 1, 0, 19),
                                    repeating([0, 1, 2, 2], 2, 1, 16),
                                    repeating([0, 1, 1, 2], 3, 1, 20)],
                         ids=lambda m: str(m.exponent_matrix()[0][:8].tolist()))
def test_z_equals_generic_solution(metric):
    """N_i/D of the banded reduction = the generic symbolic solver's z_i, for every i."""
    s = solve_toeplitz_ones(metric)
    g = solve_symbolic(metric)
    assert s is not None
    for i in range(metric.n):
        assert s.numerator(i) * g.denominator == g.numerators[i] * s.denominator


# ---------------------------------------------------------------------- thresholds
EVENTUAL = [([0, 2, 2], 2, 1, 15), ([0, 2, 2], 2, 1, 31), ([0, 1, 2, 2], 2, 1, 31),
            ([0, 1, 1, 2], 3, 1, 31), ([0, 2, 3, 3], 2, 1, 23),
            ([0, 1, 1, 2, 2, 2], 1, 0, 15), ([0, 1, 1, 2, 2, 2], 1, 0, 31)]


@pytest.mark.parametrize("base,v,c,n", EVENTUAL, ids=lambda x: str(x))
def test_eventually_repeating_equals_generic_exact_route(base, v, c, n):
    m = repeating(base, v, c, n)
    r = structured_route(m, TOL)
    e, _ = exact_route(m, None, TOL, None, [], 400)
    assert r is not None and "offset" in r.method
    assert r.exact.minimal_polynomial == e.exact.minimal_polynomial
    assert r.exact.compare(e.exact.isolating_interval[0]) >= 0
    assert r.exact.compare(e.exact.isolating_interval[1]) <= 0
    assert r.eps_lower <= e.eps_upper and e.eps_lower <= r.eps_upper
    assert r.eps_upper - r.eps_lower <= TOL
    assert r.verify()


@pytest.mark.parametrize("n,w", [(8, 2), (13, 3), (30, 4), (41, 2)])
def test_band_holds_everywhere_on_both_routes(n, w):
    """Band metrics never fail (ε* = 0, found on both routes): the structured route
    declines (no sign change) and the generic exact route proves "every ε"."""
    m = band(n, w)
    assert structured_route(m, TOL) is None
    e, _ = exact_route(m, None, TOL, None, [], 400)
    assert e.holds_everywhere and e.eps_upper == 0


# ---------------------------------------------------------------------- JSON, tampering
@pytest.fixture(scope="module")
def cert():
    r = structured_route(repeating([0, 1, 1, 2, 2, 2], 1, 0, 19), TOL)   # truncated sum query
    assert r is not None and r.certificate.solution.offset == 3
    return r.certificate


def test_offset_document_verifies_and_round_trips(cert):
    doc = cert.to_json()
    assert doc["evidence"]["offset"] == 3 and doc["evidence"]["shift"] == 0
    assert verify_document(doc).verified
    back = StructuredThresholdCertificate.from_json(cert.dumps())
    assert back.verify() and back.to_json() == doc


def test_documents_without_offset_keep_the_old_format():
    r = structured_route(repeating([0, 1, 1], 2, 1, 13), TOL)    # sum_query(6, 2): k0 = 0
    doc = r.certificate.to_json()
    assert set(doc["evidence"]) == {"step", "shift", "witness", "numerators", "denominator"}
    assert verify_document(doc).verified
    d = copy.deepcopy(doc)
    d["evidence"]["offset"] = 0                    # the default, spelled out: the same claim
    assert verify_document(d).verified
    for bad in (1, 2):                              # a false or non-canonical offset
        d["evidence"]["offset"] = bad
        assert not verify_document(d).verified


@pytest.mark.parametrize("value", [0, 1, 2, 4, 5, 18])
def test_tampered_offset_rejected(cert, value):
    d = copy.deepcopy(cert.to_json())
    d["evidence"]["offset"] = value
    assert not verify_document(d).verified


@pytest.mark.parametrize("value", [-1, "3", True, 3.0, None, 10**6])
def test_malformed_offset_rejected(cert, value):
    d = copy.deepcopy(cert.to_json())
    d["evidence"]["offset"] = value
    with pytest.raises(InvalidArgument, match="offset"):
        verify_document(d)


def test_dropped_offset_or_shift_rejected(cert):
    d = copy.deepcopy(cert.to_json())
    del d["evidence"]["offset"]
    assert not verify_document(d).verified
    d = copy.deepcopy(cert.to_json())
    d["evidence"]["shift"] = 1
    assert not verify_document(d).verified


def test_tampered_object_rejected(cert):
    sol = cert.solution
    for k0 in (0, 2, 4):
        bad = dataclasses.replace(cert, solution=dataclasses.replace(sol, offset=k0))
        assert not bad.verify()
    bad = dataclasses.replace(cert, solution=dataclasses.replace(sol, shift=1))
    assert not bad.verify()
    nums = list(sol.numerators)
    nums[2] = nums[2] + 1
    bad = dataclasses.replace(cert, solution=dataclasses.replace(sol, numerators=nums))
    assert not bad.verify()
