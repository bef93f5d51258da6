"""Issue 11: threshold certificates bound to their question, every claim re-checked.

Ground truth per test is written beside it (exact values from hand derivations).
"""

import dataclasses
import itertools
import math
from fractions import Fraction as F

import numpy as np
import pytest

from exactdp.errors import InvalidMetric, InvalidPrior
from exactdp.spaces.metrics import FiniteMetric, discrete, from_matrix, hamming, line, sum_query
from exactdp.threshold import epsilon_threshold, regular_epsilons
from exactdp.threshold.certificates import KroneckerThresholdCertificate

P3 = [F(3, 10), F(27, 100), F(23, 100), F(1, 5)]


@pytest.fixture(scope="module")
def example3():
    """Example 3: hamming(4, 5) with a product prior; true ε* = ln 2 (t* = 1/2)."""
    prior = [math.prod(c) for c in itertools.product(P3, repeat=5)]
    return epsilon_threshold(hamming(4, 5), prior)


def test_example3_genuine_certificate_verifies(example3):
    assert example3.method.startswith("kronecker")
    assert float(example3.eps_lower) <= math.log(2) <= float(example3.eps_upper)
    assert example3.certificate.verify()


def test_kronecker_forgery_every_number_one_tenth_rejected(example3):
    # ground truth: ε* = ln 2 ≈ 0.693, so "ε* ∈ [1/10, 1/10]" is false
    cert = example3.certificate
    tenth = F(1, 10)
    forged_factors = tuple(dataclasses.replace(r, eps_lower=tenth, eps_upper=tenth)
                           for r in cert.factor_results)
    forged = dataclasses.replace(cert, factor_results=forged_factors, eps_lower=tenth,
                                 eps_upper=tenth)
    assert not forged.verify()
    # the factor certificates themselves edited to 1/10 as well
    deep = tuple(dataclasses.replace(r, certificate=dataclasses.replace(
        r.certificate, eps_lower=tenth, eps_upper=tenth)) for r in cert.factor_results)
    assert not dataclasses.replace(cert, factor_results=deep, eps_lower=tenth,
                                   eps_upper=tenth).verify()
    # stored overall claim edited alone (factors genuine)
    assert not dataclasses.replace(cert, eps_lower=tenth, eps_upper=tenth).verify()
    assert not dataclasses.replace(cert, eps_upper=cert.eps_upper - F(1, 10)).verify()
    assert not dataclasses.replace(cert, eps_lower=cert.eps_lower + F(1, 10**12)).verify()


def test_kronecker_factor_certificate_of_another_question_rejected(example3):
    cert = example3.certificate
    # a factor certificate answering another question (uniform prior on discrete(4))
    other = epsilon_threshold(discrete(4), [F(1, 4)] * 4)
    swapped = (dataclasses.replace(cert.factor_results[0], certificate=other.certificate),
               *cert.factor_results[1:])
    assert not dataclasses.replace(cert, factor_results=swapped).verify()
    # the same factor certificate, but the product prior replaced by a non-product one
    rhs = list(cert.rhs)
    rhs[0], rhs[1] = rhs[1], rhs[0]
    assert not dataclasses.replace(cert, rhs=tuple(rhs)).verify()


def test_false_kronecker_metadata_rejected():
    # star: centre 0, leaves at distance 1, leaves 2 apart; true ε* = ln 2 (not 0)
    star = [[0, 1, 1, 1], [1, 0, 2, 2], [1, 2, 0, 2], [1, 2, 2, 0]]
    base = from_matrix(star)
    with pytest.raises(InvalidMetric):  # the constructor refuses the false claim ...
        FiniteMetric("star", base.points, base.values, base.index,
                     kronecker_factors=(line(2), line(2)))
    fake = from_matrix(star)  # ... so plant it afterwards, as a tampering would
    object.__setattr__(fake, "kronecker_factors", (line(2), line(2)))
    # the route trusts construction-time checks; the certificate does not
    from exactdp.errors import CertificateInvalid
    res = epsilon_threshold(fake)
    if not float(res.eps_lower) <= math.log(2) <= float(res.eps_upper):
        assert not res.certificate.verify() and not res.verify() and not res.verified
        with pytest.raises(CertificateInvalid):
            epsilon_threshold(fake, verify=True)
    # a certificate claiming the product structure never verifies
    lines = epsilon_threshold(line(2))
    forged = KroneckerThresholdCertificate(fake, None, (lines, lines), 0, F(0), F(0))
    assert not forged.verify()
    honest = epsilon_threshold(base)
    assert float(honest.eps_lower) <= math.log(2) <= float(honest.eps_upper)


def test_exact_s_star_from_another_instance_rejected():
    # sum_query(2, 2): s* = 1/φ root of s² + s − 1; discrete(3) with this prior: t* = 1/2
    res = epsilon_threshold(sum_query(2, 2))
    other = epsilon_threshold(discrete(3), [F(1, 2), F(1, 4), F(1, 4)])
    assert res.certificate.verify() and other.certificate.verify()
    cert = res.certificate
    assert not dataclasses.replace(cert, s_star=other.exact).verify()
    assert not dataclasses.replace(other.certificate, s_star=res.exact).verify()
    # the right polynomial with an interval isolating its other root
    from exactdp.algebra.algebraic import AlgebraicNumber
    neg = AlgebraicNumber(res.exact.minimal_polynomial, (F(-2), F(-1)))
    assert neg.verify() and not dataclasses.replace(cert, s_star=neg).verify()
    # a reducible "minimal polynomial" with the true root inside
    red = AlgebraicNumber((1, 0, -2, -1, 1), (F(1, 2), F(7, 10)))  # (s²+s−1)(s²−s−1)
    assert not dataclasses.replace(cert, s_star=red).verify()


def test_exact_certificate_of_another_metric_rejected():
    # the solution (and identity) of another metric must not pass for this question
    a = epsilon_threshold(sum_query(2, 2)).certificate
    b = epsilon_threshold(sum_query(3, 2)).certificate
    assert not dataclasses.replace(a, solution=b.solution).verify() or \
        b.solution.metric is a.solution.metric


def test_regular_epsilons_none_prior_is_invalid_prior():
    with pytest.raises(InvalidPrior):
        regular_epsilons(line(3), None)


@pytest.mark.parametrize("m", [line(3), discrete(3), from_matrix([[0, 1, 3], [1, 0, 2], [3, 2, 0]])])
def test_every_eps_three_points_certified_not_refused(m):
    # line metrics (and the discrete metric) have z > 0 for every ε: ε* = 0
    res = epsilon_threshold(m, method="certified")
    assert res.holds_everywhere and res.eps_lower == res.eps_upper == 0
    assert res.certificate.verify()
    # and the answer is right: a dense float check at a few ε
    D = m.distance_matrix_float()
    for eps in (0.05, 0.5, 3.0):
        assert np.linalg.solve(np.exp(-eps * D), np.ones(m.n)).min() > 0


# ------------------------------------------------------------------------------------
# items 5 and 6: subnormal flushing, and the dense re-check fully exact
@pytest.fixture(scope="module")
def dense_spd():
    """sum_query(3, 3), certified route: an SPD Taylor cover on a dense metric."""
    return epsilon_threshold(sum_query(3, 3), method="certified")


@pytest.fixture(scope="module")
def krawczyk_cover():
    """sum_query(4, 3) with the SPD cover switched off: a mean-value Krawczyk cover."""
    from exactdp.threshold import certified as certified_route

    mp = pytest.MonkeyPatch()
    mp.setattr(certified_route, "spd_cover", lambda *args, **kw: None)
    try:
        return epsilon_threshold(sum_query(4, 3), method="certified")
    finally:
        mp.undo()


def _flush(monkeypatch):
    from exactdp.arithmetic import rounding
    monkeypatch.setattr(rounding, "subnormals_ok", lambda: False)


def test_flushed_subnormals_certified_route_refuses(monkeypatch):
    from exactdp.errors import PrecisionLimitReached
    _flush(monkeypatch)
    with pytest.raises(PrecisionLimitReached, match="subnormal"):
        epsilon_threshold(sum_query(3, 3), method="certified")


def test_flushed_subnormals_every_verify(monkeypatch, dense_spd, krawczyk_cover, example3):
    from exactdp.threshold.certificates import CoverCertificate, SpdCoverCertificate
    exact = epsilon_threshold(sum_query(2, 2))
    prop9 = epsilon_threshold(hamming(4, 2), [F(1, 16)] * 16)
    assert isinstance(krawczyk_cover.certificate, CoverCertificate)
    assert isinstance(dense_spd.certificate, SpdCoverCertificate)
    for r in (dense_spd, krawczyk_cover, example3, exact, prop9):
        assert r.certificate.verify()
    _flush(monkeypatch)
    # Krawczyk cover (arb balls), dense SPD cover and point, exact, Prop. 9 and
    # Kronecker(exact factors): exact or ball re-checks only, so they do not depend on
    # subnormals (documented in their verify()); the grid ones do (test below)
    assert krawczyk_cover.certificate.verify() is True
    assert dense_spd.certificate.verify() is True
    assert dense_spd.certificate.fail.verify() is True
    assert exact.certificate.verify() is True
    assert prop9.certificate.verify() is True
    assert example3.certificate.verify() is True


def test_dense_verify_uses_no_float_row_sums(monkeypatch, dense_spd):
    from exactdp.threshold import lambda_bounds, lemmas

    def boom(*args, **kw):
        raise AssertionError("float row sums used in verify()")

    monkeypatch.setattr(lemmas, "off_diag_row_sums_bound", boom)
    monkeypatch.setattr(lambda_bounds, "second_derivative_row_bound", boom)
    monkeypatch.setattr(lambda_bounds, "phi_mid_rad", boom)
    assert dense_spd.certificate.verify()


def test_exact_row_sums_bound_the_truth_and_match_float():
    from exactdp.threshold.lambda_bounds import (
        exact_second_derivative_row_bound,
        second_derivative_row_bound,
    )
    from exactdp.threshold.lemmas import exact_off_diag_row_sums_bound, off_diag_row_sums_bound
    m = sum_query(5, 3)
    D = m.distance_matrix_float()
    t, a = F(1, 5), F(3, 4)
    true_e = max(sum(float(t) ** d for j, d in enumerate(row) if j != i) for i, row in enumerate(D))
    e = exact_off_diag_row_sums_bound(m, t)
    assert true_e <= float(e) * (1 + 1e-12) and e <= off_diag_row_sums_bound(m, t)
    true_s = max(sum(d * d * math.exp(-float(a) * d) for d in row) for row in D)
    s = exact_second_derivative_row_bound(m, a)
    assert true_s <= float(s) * (1 + 1e-12) and s <= second_derivative_row_bound(m, a)


# ------------------------------------------------------------------------------------
# item 7: what holds before verify() is in the result type
def test_threshold_result_verified_flag():
    from exactdp.errors import InvalidArgument
    r = epsilon_threshold(sum_query(3, 3), method="certified")
    assert r.verified is False
    assert r.verify() and r.verified is True
    r2 = epsilon_threshold(sum_query(3, 3), method="certified", verify=True)
    assert r2.verified is True and r2.summary()["verified"] is True
    # a result whose enclosure differs from its certificate's claim does not verify
    assert not dataclasses.replace(r, eps_upper=r.eps_lower, verified=False).verify()
    with pytest.raises(InvalidArgument):
        epsilon_threshold(line(3), verify="yes")


# ------------------------------------------------------------------------------------
# items 4 and 5 on the matrix-free grid route: metric.grid checked, subnormals required
@pytest.fixture(scope="module")
def big_grid():
    from exactdp.spaces.metrics import grid
    g = grid(51, 51)  # n = 2601 > 2500: matrix-free
    return g, epsilon_threshold(g, method="certified")


def _planted(g, idx, info):
    """A metric with these distances and a planted (unchecked) grid claim."""
    m = FiniteMetric("planted", g.points, g.values, idx)
    object.__setattr__(m, "grid", info)
    return m


def test_grid_certificate_bound_to_metric_distances(big_grid):
    from exactdp.spaces.metrics import GridInfo
    from exactdp.threshold.binding import grid_structure_holds
    g, r = big_grid
    cert = r.certificate
    assert grid_structure_holds(g) and cert.verify()
    # two points swapped: the distances are no longer the lattice's, grid claim kept
    perm = np.arange(g.n)
    perm[[0, 1300]] = perm[[1300, 0]]
    idx = np.asarray(g.index)[perm][:, perm]
    fake = _planted(g, idx, g.grid)
    assert not grid_structure_holds(fake)
    forged = dataclasses.replace(cert, metric=fake,
                                 fail=dataclasses.replace(cert.fail, metric=fake))
    assert not forged.verify()
    assert not forged.fail.verify()
    # the genuine distances with a false spacing
    wrong = _planted(g, np.asarray(g.index), GridInfo(51, 51, "euclidean", F(2)))
    assert not grid_structure_holds(wrong)
    assert not dataclasses.replace(cert, metric=wrong,
                                   fail=dataclasses.replace(cert.fail, metric=wrong)).verify()


def test_grid_verify_needs_no_float_model_nor_search_code(monkeypatch, big_grid):
    """Session 8: the matrix-free certificate is re-checked by the kernel (kind
    grid-threshold: exact integer convolutions, floats only as candidates), so flushed
    subnormals cannot make it unsound and the search's Taylor code never runs in verify()."""
    from exactdp.threshold import taylor

    def boom(*args, **kw):
        raise AssertionError("the search's Taylor code ran in verify()")

    _, r = big_grid
    _flush(monkeypatch)
    monkeypatch.setattr(taylor, "taylor_piece", boom)
    monkeypatch.setattr(taylor, "point_bounds", boom)
    assert r.certificate.verify() is True
    assert r.certificate.fail.verify() is True


# ------------------------------------------------------------------------------------
# item 8: the Krawczyk cover's verify() shares no float code with the search
def test_krawczyk_verify_is_independent_of_the_search(monkeypatch, krawczyk_cover):
    from exactdp.threshold import krawczyk

    def boom(*args, **kw):
        raise AssertionError("the search's float Krawczyk code ran in verify()")

    cert = krawczyk_cover.certificate
    monkeypatch.setattr(krawczyk, "mean_value_piece", boom)
    monkeypatch.setattr(krawczyk, "ProductBounds", boom)
    assert cert.verify()
    # a range below ε* (where z has a negative entry) is never proved
    from exactdp.threshold.krawczyk_check import arb_mean_value_check
    exact = epsilon_threshold(sum_query(4, 3), method="exact")
    below = (exact.eps_lower - F(1, 10), exact.eps_lower)
    assert not arb_mean_value_check(cert.metric, cert.rhs, *below)
    bad = dataclasses.replace(cert, pieces=((below[0], cert.pieces[0][1]),) + cert.pieces[1:],
                              eps_upper=below[0])
    assert not bad.verify()
