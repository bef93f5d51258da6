"""Typed kinds, verdicts, enclosures, the grid geometry helpers and the rounding-model guard."""

from fractions import Fraction as F

import numpy as np
import pytest

import exactdp.arithmetic.rounding as rounding
from exactdp.arithmetic.interval import Enclosure
from exactdp.errors import InvalidMetric, PrecisionLimitReached
from exactdp.kinds import Certificate, CertificateKind, Verdict
from exactdp.spaces.grid import (
    MATRIX_FREE_ABOVE_N,
    is_large_grid,
    offset_count_row,
    offset_value_codes,
    use_matrix_free,
)
from exactdp.spaces.metrics import grid, hamming, line, sum_query
from exactdp.threshold import (
    KroneckerThresholdCertificate,
    Prop9Certificate,
    SpdCoverCertificate,
    epsilon_threshold,
    regular_epsilons,
)
from exactdp.threshold.lemmas import distance_count_rows
from exactdp.threshold.providers import GridProvider
from exactdp.threshold.spd_cover import spd_fail_point


def test_certificate_kinds_and_verdicts():
    r = epsilon_threshold(sum_query(2, 2))
    assert r.certificate.kind is CertificateKind.EXACT_THRESHOLD and r.certificate.kind == "exact"
    assert isinstance(r.certificate, Certificate)
    assert r.verdict is Verdict.HOLDS and r.certificate.verdict is Verdict.HOLDS
    p = epsilon_threshold(hamming(2, 3), ["1/8"] * 8)
    assert isinstance(p.certificate, Prop9Certificate)
    assert p.certificate.kind is CertificateKind.PROP9 and p.verdict is Verdict.HOLDS
    marg = [F(3, 10), F(7, 10)]
    k = epsilon_threshold(hamming(2, 2), [a * b for a in marg for b in marg])
    assert isinstance(k.certificate, KroneckerThresholdCertificate)
    assert k.certificate.kind is CertificateKind.KRONECKER_THRESHOLD
    assert k.certificate.kind == "kronecker-threshold" and k.certificate.verify()


def test_certified_route_kinds_and_point_verdict():
    r = epsilon_threshold(sum_query(4, 3), method="certified")
    c = r.certificate
    assert isinstance(c, SpdCoverCertificate) and c.kind is CertificateKind.SPD_TAYLOR_COVER
    assert c.fail.kind is CertificateKind.SPD_POINT and c.fail.verdict is Verdict.FAILS
    assert r.verdict is Verdict.HOLDS


def test_threshold_enclosures():
    r = epsilon_threshold(sum_query(2, 2))
    enc = r.eps_enclosure
    assert isinstance(enc, Enclosure) and (enc.lo, enc.hi) == (r.eps_lower, r.eps_upper)
    S = regular_epsilons(line(3), ["1/3", "1/3", "1/3"])
    first = S.intervals[0]
    lo = first.eps_lower_enclosure(F(1, 10**6))
    assert lo is None or (isinstance(lo, Enclosure) and (lo.lo, lo.hi) == first.eps_lower_bounds(F(1, 10**6)))
    assert first.eps_upper_enclosure() is None  # the set reaches ε → ∞


def test_prior_reader_accepts_uniform():
    r = epsilon_threshold(hamming(2, 3), "uniform")
    assert r.holds_everywhere and r.method == "prop9"


def test_grid_geometry_matches_the_dense_index():
    for norm in ("euclidean", "manhattan", "chebyshev"):
        g = grid(5, 4, norm)
        code = offset_value_codes(g)
        xs, ys = np.tile(np.arange(5), 4), np.repeat(np.arange(4), 5)
        dx = np.abs(xs[:, None] - xs[None, :])
        dy = np.abs(ys[:, None] - ys[None, :])
        assert np.array_equal(code[dx, dy], g.index)
        # the offset row dominates every per-point count row
        assert np.all(distance_count_rows(g) <= offset_count_row(g))
    assert not is_large_grid(grid(30, 30)) and is_large_grid(grid(31, 31, "manhattan"))
    assert use_matrix_free(grid(31, 31)) and use_matrix_free(grid(31, 31, "manhattan"))
    assert not use_matrix_free(grid(31, 31, "chebyshev"))
    assert grid(30, 30).n == MATRIX_FREE_ABOVE_N and not use_matrix_free(grid(30, 30))


def test_grid_provider_refuses_other_metrics():
    with pytest.raises(InvalidMetric, match="Euclidean or Manhattan grid"):
        GridProvider(grid(3, 3, "chebyshev"))
    with pytest.raises(InvalidMetric):
        GridProvider(line(4))


def test_rounding_model_guard(monkeypatch):
    """The certified float routes refuse to run when subnormals are flushed (FTZ/DAZ)."""
    monkeypatch.setattr(rounding, "subnormals_ok", lambda: False)
    with pytest.raises(PrecisionLimitReached, match="flushes subnormal"):
        epsilon_threshold(sum_query(4, 3), method="certified")
    with pytest.raises(PrecisionLimitReached, match="flushes subnormal"):
        spd_fail_point(sum_query(4, 3), (F(1),) * 13, F(1, 2))
