"""SPD Taylor cover (exactdp.threshold.spd_cover and its modules) against independent truth.

Truth comes from elsewhere: exact ``flint.fmpq_mat`` solves at ε = ln r (integer distances,
so Φ(ln r) = r^(−d) is rational), 50-digit mpmath solves and eigenvalues, and numpy's
eigvalsh with margins far below the bounds' own slack. The mathematics is checked in
``proofs/spd_cover_bounds.py``.
"""

from __future__ import annotations

import dataclasses
import math
import random
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from flint import arb, fmpq, fmpq_mat
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import exactdp.threshold.certified as certified_route
from exactdp.arithmetic.ball import workprec
from exactdp.errors import PrecisionLimitReached
from exactdp.spaces.metrics import count_queries, from_matrix, grid, line, sum_query
from exactdp.threshold import CoverCertificate, SpdCoverCertificate, SpdPointCertificate, epsilon_threshold
from exactdp.threshold.exact_checks import exact_lambda_check, exact_piece_check
from exactdp.threshold.lambda_bounds import chord_bound, dense_lambda_node
from exactdp.threshold.providers import DenseProvider
from exactdp.threshold.spd_cover import spd_cover
from exactdp.threshold.taylor import point_bounds, taylor_piece, taylor_vectors

F = Fraction
TOL = F(1, 10**9)

# A 7-point metric with distances 1 and 2 (found by a random search): Φ(ε) has a negative
# eigenvalue on (0, ln2/2) (eigenvector ⊥ 1, so z stays finite), while the exact threshold
# ε* ≈ 0.22072 lies inside that range.
NON_PD = [[0, 2, 1, 1, 2, 2, 1], [2, 0, 1, 2, 1, 2, 2], [1, 1, 0, 2, 2, 1, 2],
          [1, 2, 2, 0, 2, 1, 2], [2, 1, 2, 2, 0, 1, 1], [2, 2, 1, 1, 1, 0, 2],
          [1, 2, 2, 2, 1, 2, 0]]


# ------------------------------------------------------------------------------------
# independent references
def _mp_dist(metric, dps=50):
    with mpmath.workdps(dps):
        vals = [mpmath.mpf(v.coef.numerator) / v.coef.denominator * mpmath.sqrt(v.radicand)
                for v in metric.values]
    return [[vals[metric.index[i, j]] for j in range(metric.n)] for i in range(metric.n)]


def _mp_phi(metric, eps: Fraction, dps=50):
    D = _mp_dist(metric, dps)
    with mpmath.workdps(dps):
        e = mpmath.mpf(eps.numerator) / eps.denominator
        return mpmath.matrix([[mpmath.exp(-e * x) for x in row] for row in D])


def _mp_solve(metric, eps: Fraction, rhs=None, dps=50):
    with mpmath.workdps(dps):
        Phi = _mp_phi(metric, eps, dps)
        rhs = rhs or [F(1)] * metric.n
        b = mpmath.matrix([mpmath.mpf(x.numerator) / x.denominator for x in rhs])
        return [mpmath.mpf(x) for x in mpmath.lu_solve(Phi, b)]


def _mp_lambda_min(metric, eps: Fraction, dps=40):
    with mpmath.workdps(dps):
        return min(mpmath.eigsy(_mp_phi(metric, eps, dps), eigvals_only=True))


def _float_D(metric):
    return np.array([float(v) for v in metric.values])[metric.index]


def _eig_min(metric, eps: float) -> float:
    return float(np.linalg.eigvalsh(np.exp(-eps * _float_D(metric)))[0])


def _exact_z_at_log(metric, r: Fraction, rhs=None):
    """Exact z(ln r) for integer distances: Φ = r^(−d) is a rational matrix."""
    n = metric.n
    d = [int(v.coef) for v in metric.values]
    assert all(v.is_rational and v.coef.denominator == 1 for v in metric.values)
    rq = fmpq(r.numerator, r.denominator)
    powers = {k: rq ** (-k) for k in set(d)}
    M = fmpq_mat(n, n, [powers[d[metric.index[i, j]]] for i in range(n) for j in range(n)])
    rhs = rhs or [F(1)] * n
    b = fmpq_mat(n, 1, [fmpq(x.numerator, x.denominator) for x in rhs])
    z = M.solve(b)
    return [F(int(z[i, 0].p), int(z[i, 0].q)) for i in range(n)]


def _log_strictly_inside(r: Fraction, a: Fraction, b: Fraction) -> bool:
    with workprec(200):
        lr = arb(fmpq(r.numerator, r.denominator)).log()
        return bool(lr > arb(fmpq(a.numerator, a.denominator))
                    and lr < arb(fmpq(b.numerator, b.denominator)))


def _rationals_with_log_in(a: Fraction, b: Fraction, k: int) -> list[Fraction]:
    """k rationals r with ln r strictly inside (a, b) (checked with arb)."""
    out = []
    for j in range(1, k + 1):
        x = float(a + (b - a) * F(j, k + 1))
        r = F(math.exp(x)).limit_denominator(10**6)
        if not _log_strictly_inside(r, a, b):
            r = F(math.exp(x))  # the exact binary value: ln r within 1e-16 of x
        if _log_strictly_inside(r, a, b):
            out.append(r)
    return out


# ------------------------------------------------------------------------------------
# certified results shared by several tests (each takes well under a second)
@pytest.fixture(scope="module")
def certified():
    out = {}
    for m in (sum_query(10, 5), count_queries(8), grid(6, 6, "euclidean")):
        out[m.name] = (m, epsilon_threshold(m, method="certified"))
    return out


# ------------------------------------------------------------------------------------
# taylor_piece
@pytest.mark.parametrize("metric, a, b, K", [
    (sum_query(4, 3), F(1), F(11, 10), 3),
    (sum_query(4, 3), F(3, 2), F(8, 5), 1),
    (count_queries(3), F(13, 10), F(7, 5), 3),
    (line(7), F(1, 5), F(1, 4), 2),
    (from_matrix([[0, 1, 2, 3], [1, 0, 1, 2], [2, 1, 0, 2], [3, 2, 2, 0]]), F(1, 2), F(3, 5), 3),
])
def test_taylor_lower_bound_below_exact_z(metric, a, b, K):
    prov = DenseProvider(metric)
    lam = prov.lambda_lower(a, b)
    assert lam > 0
    res, _ = taylor_piece(prov, list(metric.values), np.ones(metric.n), 0.0, a, b, K, lam)
    assert math.isfinite(res.min_lower)
    rs = _rationals_with_log_in(a, b, 6)
    assert len(rs) >= 4
    true_min = min(min(_exact_z_at_log(metric, r)) for r in rs)
    assert res.min_lower <= true_min
    if res.ok:
        assert true_min > 0


@pytest.mark.parametrize("name", ["sum_query(10, 5)", "count_queries(8, k=2)"])
def test_certificate_pieces_have_positive_exact_z(certified, name):
    """Inside the certified pieces z(ln r) > 0 exactly, and each piece's bound is below it."""
    metric, res = certified[name]
    cert = res.certificate
    prov = DenseProvider(metric)
    b = np.ones(metric.n)
    for a, bb, lam in cert.pieces[:3] + cert.pieces[-2:]:
        tb, _ = taylor_piece(prov, list(metric.values), b, 0.0, a, bb, cert.order, lam)
        assert tb.ok
        for r in _rationals_with_log_in(a, bb, 2):
            z = _exact_z_at_log(metric, r)
            assert min(z) > 0
            assert tb.min_lower <= float(min(z))


def test_taylor_piece_refuses_range_with_a_negative_entry(certified):
    metric, res = certified["sum_query(10, 5)"]
    a, bb = res.eps_lower - F(1, 10**3), res.eps_upper + F(1, 10**3)
    # independent evidence that z has a negative entry inside [a, bb]
    assert min(_mp_solve(metric, res.eps_lower, dps=30)) < 0
    prov = DenseProvider(metric)
    lam = prov.lambda_lower(a, bb)
    tb, _ = taylor_piece(prov, list(metric.values), np.ones(metric.n), 0.0, a, bb, 3, lam)
    assert not tb.ok


@pytest.mark.parametrize("metric, eps, prior", [
    (sum_query(4, 3), F(7, 10), None),
    (grid(4, 4, "euclidean"), F(17, 20), None),
    (count_queries(3), F(2), [F(k + 1, 136) for k in range(16)]),
    (line(9), F(1, 3), [F(1, 3)] + [F(1, 12)] * 8),
])
def test_point_bounds_enclose_50_digit_solution(metric, eps, prior):
    prov = DenseProvider(metric)
    lam = prov.lambda_lower(eps, eps)
    assert lam > 0
    rhs = prior or [F(1)] * metric.n
    b = np.array([float(x) for x in rhs])
    brad = float(max(abs(F(float(x)) - x) for x in rhs)) * 2
    y, err = point_bounds(prov, list(metric.values), b, brad, eps, lam)
    z = _mp_solve(metric, eps, rhs)
    assert 0 < err < 1e-9
    for i in range(metric.n):
        assert abs(z[i] - mpmath.mpf(float(y[i]))) <= err


def test_exact_piece_check_agrees_with_truth(certified):
    """The exact-integer re-check accepts certified pieces and refuses a range with z_i < 0."""
    metric, res = certified["sum_query(10, 5)"]
    cert = res.certificate
    prov = DenseProvider(metric)
    vals = list(metric.values)
    b = np.ones(metric.n)
    for a, bb, lam in cert.pieces[:2] + cert.pieces[-1:]:
        Y = taylor_vectors(prov, vals, b, a, bb, cert.order)
        assert exact_piece_check(metric, cert.rhs, a, bb, cert.order, lam, Y)
    a, bb = res.eps_lower - F(1, 10**4), res.eps_upper + F(1, 10**4)
    lam = prov.lambda_lower(a, bb)
    assert lam > 0
    Y = taylor_vectors(prov, vals, b, a, bb, 3)
    assert not exact_piece_check(metric, cert.rhs, a, bb, 3, lam, Y)
    # the point form: z_i(eps_lower) < 0 for the fail index, not for a positive component
    fail = cert.fail
    z = _mp_solve(metric, fail.eps, dps=30)
    Y0 = taylor_vectors(prov, vals, b, fail.eps, fail.eps, 0)
    assert exact_piece_check(metric, cert.rhs, fail.eps, fail.eps, 0, fail.lam, Y0,
                             upper_index=fail.index)
    pos = next(i for i in range(metric.n) if z[i] > 0)
    assert not exact_piece_check(metric, cert.rhs, fail.eps, fail.eps, 0, fail.lam, Y0,
                                 upper_index=pos)


def test_exact_piece_check_refuses_garbage_vectors():
    """Any Y may be fed in: with perturbed Taylor vectors the residual bound must grow."""
    metric = sum_query(4, 3)
    a, bb = F(1), F(11, 10)
    prov = DenseProvider(metric)
    lam = prov.lambda_lower(a, bb)
    rhs = tuple(F(1) for _ in range(metric.n))
    Y = taylor_vectors(prov, list(metric.values), np.ones(metric.n), a, bb, 3)
    assert exact_piece_check(metric, rhs, a, bb, 3, lam, Y)
    Yb = Y.copy()
    Yb[:, 0] *= 1.5  # y_0 far from Φ⁻¹b: z is not near y(h)
    assert not exact_piece_check(metric, rhs, a, bb, 3, lam, Yb)


# ------------------------------------------------------------------------------------
# λ bounds
_RNG = random.Random(20261129)


def _random_metric(rng: random.Random, n: int):
    """Shortest-path closure of random integer weights: always a metric."""
    D = [[0 if i == j else rng.randint(1, 5) for j in range(n)] for i in range(n)]
    for i in range(n):
        for j in range(i):
            D[i][j] = D[j][i]
    for k in range(n):
        for i in range(n):
            for j in range(n):
                D[i][j] = min(D[i][j], D[i][k] + D[k][j])
    return from_matrix(D)


@pytest.mark.parametrize("metric, eps", [
    (sum_query(10, 5), F(1)), (sum_query(4, 3), F(1, 2)), (count_queries(8), F(6, 5)),
    (line(20), F(1, 10)), (grid(6, 6, "euclidean"), F(2, 3)),
    (grid(5, 4, "manhattan"), F(3, 4)), (grid(4, 4, "chebyshev"), F(3, 2)),
] + [(_random_metric(_RNG, _RNG.randint(4, 9)), F(_RNG.randint(4, 30), 10)) for _ in range(5)])
def test_dense_lambda_node_below_true_lambda_min(metric, eps):
    sigma, lam = dense_lambda_node(metric, eps)
    lam_true = _eig_min(metric, float(eps))
    if lam_true > 1e-6:  # comfortably PD: the node must succeed
        assert lam > 0
        assert lam >= lam_true / 16  # not a useless bound (σ ≥ λ_est/8 minus tiny slack)
    if lam > 0:
        assert float(lam) <= lam_true - 1e-13 * metric.n
        if metric.n <= 12:
            assert mpmath.mpf(lam.numerator) / lam.denominator <= _mp_lambda_min(metric, eps)


@pytest.mark.parametrize("metric, eps", [
    (sum_query(4, 3), F(1)), (count_queries(4), F(3, 2)), (grid(4, 4, "euclidean"), F(2, 3)),
    (line(10), F(1, 4)), (_random_metric(random.Random(3), 7), F(9, 10)),
])
def test_exact_lambda_check_accepts_node_rejects_overclaim(metric, eps):
    sigma, lam = dense_lambda_node(metric, eps)
    assert lam > 0
    assert exact_lambda_check(metric, eps, sigma, lam)
    lm = _mp_lambda_min(metric, eps)
    over = F(mpmath.nstr(lm, 25)) + F(1, 1000)
    assert not exact_lambda_check(metric, eps, sigma, over)
    # a shift σ above λ_min cannot prove anything positive above λ_min either
    s_hi = F(math.floor(float(lm) * 1.05 * 2**20), 2**20)
    assert not exact_lambda_check(metric, eps, s_hi, s_hi - F(1, 10**9))


@pytest.mark.parametrize("metric, e0, e1", [
    (sum_query(4, 3), F(1, 2), F(3, 4)), (count_queries(4), F(1), F(11, 10)),
    (grid(5, 5, "euclidean"), F(2, 3), F(1)), (line(12), F(1, 5), F(1, 4)),
    (_random_metric(random.Random(4), 8), F(1, 2), F(3, 5)),
])
def test_chord_bound_below_lambda_min_on_fine_grid(metric, e0, e1):
    _, l0 = dense_lambda_node(metric, e0)
    _, l1 = dense_lambda_node(metric, e1)
    assert l0 > 0 and l1 > 0
    cb = chord_bound(metric, e0, e1, l0, l1)
    lam_grid = min(_eig_min(metric, x) for x in np.linspace(float(e0), float(e1), 201))
    assert float(cb) <= lam_grid - 1e-13
    # at most the smaller end value, and not vacuous for these widths
    assert cb <= min(l0, l1)


def test_chord_bound_with_true_end_values_is_tight_but_valid():
    """Feed the lemma the (rounded-down) true end eigenvalues: still ≤ λ_min inside."""
    metric = sum_query(5, 3)
    for e0, w in [(F(1, 3), F(1, 5)), (F(1), F(1, 20)), (F(2), F(1, 2))]:
        e1 = e0 + w
        l0 = F(_eig_min(metric, float(e0)) - 1e-12)
        l1 = F(_eig_min(metric, float(e1)) - 1e-12)
        cb = chord_bound(metric, e0, e1, l0, l1)
        lam_grid = min(_eig_min(metric, x) for x in np.linspace(float(e0), float(e1), 101))
        assert float(cb) <= lam_grid


# ------------------------------------------------------------------------------------
# certificates
@pytest.mark.parametrize("name", ["sum_query(10, 5)", "count_queries(8, k=2)",
                                  "grid(6, 6, euclidean, spacing=1)"])
def test_spd_cover_certificate_verifies_and_encloses_float_threshold(certified, name):
    metric, res = certified[name]
    cert = res.certificate
    assert isinstance(cert, SpdCoverCertificate)
    assert res.eps_upper - res.eps_lower <= TOL
    assert cert.verify()
    # independent: z has a negative entry at eps_lower and is positive just above eps_upper
    assert min(_mp_solve(metric, res.eps_lower, dps=30)) < 0
    assert min(_mp_solve(metric, res.eps_upper + F(1, 10**6), dps=30)) > 0
    assert isinstance(cert.fail, SpdPointCertificate) or hasattr(cert.fail, "verify")


@pytest.mark.parametrize("name", ["sum_query(10, 5)", "count_queries(8, k=2)",
                                  "grid(6, 6, euclidean, spacing=1)"])
def test_spd_cover_certificate_rejects_tampering(certified, name):
    metric, res = certified[name]
    cert = res.certificate
    pieces, nodes = cert.pieces, cert.nodes
    assert len(pieces) >= 3 and len(nodes) >= 2
    # a gap in the pieces
    assert not dataclasses.replace(cert, pieces=pieces[:1] + pieces[2:]).verify()
    # a piece λ just above the chord bound of its nodes
    a, bb, lam = pieces[1]
    eps = [e for e, _, _ in nodes]
    lamd = {e: lm for e, _, lm in nodes}
    cb = min(chord_bound(metric, eps[k], eps[k + 1], lamd[eps[k]], lamd[eps[k + 1]])
             for k in range(len(eps) - 1) if eps[k] < bb and eps[k + 1] > a)
    assert lam <= cb
    raised = pieces[:1] + ((a, bb, cb + F(1, 2**50)),) + pieces[2:]
    assert not dataclasses.replace(cert, pieces=raised).verify()
    # a node λ above the true λ_min
    e, s, _ = nodes[0]
    over = F(_eig_min(metric, float(e))) + F(1, 1000)
    assert not dataclasses.replace(cert, nodes=((e, s, over),) + nodes[1:]).verify()
    # eps_upper moved down to eps_lower, where the property fails
    assert not dataclasses.replace(cert, eps_upper=cert.eps_lower).verify()
    # the certificate must still verify untouched (nothing above mutated it)
    assert cert.verify()


def test_spd_cover_certificate_rejects_eps_lower_above_eps_upper(certified):
    """Found at aa84e44 (verify() accepted it); fixed by the lead in 49cbdfb."""
    _, res = certified["sum_query(10, 5)"]
    cert = res.certificate
    assert not dataclasses.replace(cert, eps_lower=cert.eps_upper + 1).verify()
    assert not dataclasses.replace(cert, eps_lower=(cert.eps_lower + cert.eps_upper) / 2).verify()


def test_spd_cover_certificate_rejects_foreign_fail_point(certified):
    """A fail certificate of another metric proves nothing here (also fixed in 49cbdfb)."""
    _, r1 = certified["sum_query(10, 5)"]
    _, r2 = certified["count_queries(8, k=2)"]
    mixed = dataclasses.replace(r1.certificate, fail=r2.certificate.fail)
    assert not mixed.verify()
    other_rhs = dataclasses.replace(r1.certificate.fail,
                                    rhs=tuple(F(2) for _ in r1.certificate.rhs))
    assert not dataclasses.replace(r1.certificate, fail=other_rhs).verify()


def test_spd_point_certificate_verify_and_tamper(certified):
    metric, res = certified["sum_query(10, 5)"]
    fail = res.certificate.fail
    assert isinstance(fail, SpdPointCertificate)
    assert fail.verify()
    z = _mp_solve(metric, fail.eps, dps=30)
    assert z[fail.index] < 0
    assert fail.upper >= float(z[fail.index])  # the certified upper bound is above the truth
    # a component that is positive there
    pos = next(i for i in range(metric.n) if z[i] > mpmath.mpf("1e-3"))
    assert not dataclasses.replace(fail, index=pos).verify()
    # a point well above the threshold (z > 0 there)
    assert not dataclasses.replace(fail, eps=res.eps_upper + F(1, 10)).verify()
    # λ above the true λ_min
    over = F(_eig_min(metric, float(fail.eps))) + F(1, 1000)
    assert not dataclasses.replace(fail, lam=over).verify()
    assert not dataclasses.replace(fail, lam=F(0)).verify()


def test_spd_route_with_prior_agrees_with_exact_route():
    metric = count_queries(3)
    prior = [F(k % 5 + 1, 1) for k in range(metric.n)]
    total = sum(prior)
    prior = [p / total for p in prior]
    exact = epsilon_threshold(metric, prior, method="exact")
    res = epsilon_threshold(metric, prior, method="certified")
    assert isinstance(res.certificate, SpdCoverCertificate)
    assert res.certificate.verify()
    assert res.eps_lower <= exact.eps_upper and exact.eps_lower <= res.eps_upper
    # the certificate is about this prior: another prior must not verify
    other = tuple(F(1, metric.n) for _ in range(metric.n))
    assert not dataclasses.replace(res.certificate, rhs=other).verify()


def test_spd_point_certificate_out_of_range_index_is_false(certified):
    _, res = certified["sum_query(10, 5)"]
    fail = res.certificate.fail
    assert dataclasses.replace(fail, index=fail.metric.n).verify() is False


def test_dense_lambda_node_certifies_small_but_positive_lambda():
    metric = from_matrix(NON_PD)
    eps = F(math.log(2) / 2 + 1e-6)
    lm = _mp_lambda_min(metric, eps)
    assert 1e-7 < lm < 1e-6  # Φ is PD, λ_min ≈ 2.9e-7, far above n²u ≈ 5e-15
    _, lam = dense_lambda_node(metric, eps)
    assert lam > 0


# ------------------------------------------------------------------------------------
# the Krawczyk fallback and non-positive-definite Φ
def test_krawczyk_fallback_when_spd_cover_declines(monkeypatch):
    """Force the fallback (spd_cover returns None, as when Φ is not provably SPD)."""
    metric = sum_query(4, 3)
    exact = epsilon_threshold(metric, method="exact")
    monkeypatch.setattr(certified_route, "spd_cover", lambda *args, **kw: None)
    res = epsilon_threshold(metric, method="certified")
    cert = res.certificate
    assert isinstance(cert, CoverCertificate)
    assert cert.verify()
    # agrees with the exact route (both intervals contain ε*)
    assert res.eps_lower <= exact.eps_upper and exact.eps_lower <= res.eps_upper
    assert not dataclasses.replace(cert, pieces=cert.pieces[:1] + cert.pieces[2:]).verify()
    assert not dataclasses.replace(cert, eps_upper=cert.eps_lower).verify()
    assert not dataclasses.replace(cert, eps_lower=cert.eps_upper + 1).verify()
    # a fail point of another metric
    other = epsilon_threshold(count_queries(3), method="certified").certificate
    assert not dataclasses.replace(cert, fail=other.fail).verify()


def test_non_pd_metric_spd_route_declines_and_never_lies():
    """Φ is indefinite just above ε*: no SPD proof there; the certified route either fails
    loudly or returns a certificate consistent with the exact answer."""
    metric = from_matrix(NON_PD)
    exact = epsilon_threshold(metric, method="exact")
    e_star = exact.eps_upper
    # independent: Φ(ε) is indefinite at ε* (40-digit eigenvalues)
    assert _mp_lambda_min(metric, e_star) < 0
    assert _mp_lambda_min(metric, exact.eps_lower) < 0
    _, lam = dense_lambda_node(metric, e_star)
    assert lam <= 0
    ones = tuple(F(1) for _ in range(metric.n))
    assert spd_cover(metric, ones, e_star, F(3), TOL) is None
    # Φ indefinite at ε* but positive definite for large ε ⇒ singular in between, so no
    # cover of [ε*, ∞) by invertible pieces exists: the certified route must fail loudly
    assert _mp_lambda_min(metric, F(3)) > 0
    try:
        res = epsilon_threshold(metric, method="certified")
    except PrecisionLimitReached:
        return
    assert res.certificate.verify()
    assert res.eps_lower <= exact.eps_upper and exact.eps_lower <= res.eps_upper


# ------------------------------------------------------------------------------------
# property test
@st.composite
def _metric_and_range(draw):
    n = draw(st.integers(3, 6))
    w = [[0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            w[i][j] = w[j][i] = draw(st.integers(1, 4))
    for k in range(n):
        for i in range(n):
            for j in range(n):
                w[i][j] = min(w[i][j], w[i][k] + w[k][j])
    a = F(draw(st.integers(5, 300)), 100)
    width = F(1, draw(st.sampled_from([20, 100, 1000, 10**5])))
    K = draw(st.integers(1, 3))
    return from_matrix(w), a, a + width, K


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_metric_and_range())
def test_property_taylor_ok_implies_positive_and_point_enclosure(data):
    metric, a, bb, K = data
    prov = DenseProvider(metric)
    lam = prov.lambda_lower(a, bb)
    D = _float_D(metric)
    if lam > 0:
        res, _ = taylor_piece(prov, list(metric.values), np.ones(metric.n), 0.0, a, bb, K, lam)
        event(f"taylor ok={res.ok}")
        if res.ok:
            for x in np.linspace(float(a), float(bb), 5):
                assert np.min(np.linalg.solve(np.exp(-x * D), np.ones(metric.n))) > 0
    mid = (a + bb) / 2
    lam_mid = prov.lambda_lower(mid, mid)
    if lam_mid > 0:
        y, err = point_bounds(prov, list(metric.values), np.ones(metric.n), 0.0, mid, lam_mid)
        z = _mp_solve(metric, mid)
        for i in range(metric.n):
            assert abs(z[i] - mpmath.mpf(float(y[i]))) <= err
