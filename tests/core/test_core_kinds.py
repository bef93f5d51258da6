"""The shared vocabulary in the core: one Verdict, one Sign, one method list, typed results,
and eager argument checks with specific errors."""

from dataclasses import replace
from fractions import Fraction
from typing import get_args

import pytest

from exactdp import is_regular, solve_nonnegative, tight_constraints, validate_prior
from exactdp import metrics as M
from exactdp.arithmetic.interval import Enclosure
from exactdp.engine.core import CERTIFIED_METHODS, CertifiedMethod, FloatEstimate
from exactdp.errors import (
    ExactnessRequired,
    InvalidArgument,
    InvalidMetric,
    InvalidPrior,
    InvalidPrivacyLevel,
)
from exactdp.kinds import METHODS, Certificate, CertificateKind, Method, Sign, Verdict
from exactdp.spaces.levels import parse_level
from exactdp.spaces.priors import read_prior


def test_one_verdict_and_one_sign():
    import exactdp.arithmetic.ball as ball
    import exactdp.engine as engine
    import exactdp.engine.core as core

    assert engine.Verdict is Verdict and core.Verdict is Verdict
    assert ball.Sign is Sign


def test_one_method_list():
    assert set(get_args(Method)) == set(METHODS)
    assert set(get_args(CertifiedMethod)) == set(CERTIFIED_METHODS) == set(METHODS) - {"float"}


@pytest.mark.parametrize("method", CERTIFIED_METHODS)
def test_every_result_and_certificate_exposes_verdict_and_kind(method):
    res = solve_nonnegative(M.line(4), parse_level(t="1/2"), method=method)
    assert res.verdict is Verdict.HOLDS
    cert = res.certificate
    assert isinstance(cert, Certificate)
    assert isinstance(cert.kind, CertificateKind) and cert.verdict is Verdict.HOLDS
    assert cert.holds is True and cert.verify()


def test_farkas_and_failing_certificates_claim_fails():
    from exactdp.engine.core import _exact_lp

    lp = _exact_lp(M.line(3), parse_level(t="1/2"), (Fraction(1), Fraction(0), Fraction(0)))
    assert lp.verdict is Verdict.FAILS and lp.certificate.verdict is Verdict.FAILS
    assert lp.certificate.kind is CertificateKind.FARKAS and lp.certificate.kind == "farkas"
    ex = solve_nonnegative(M.sum_query(30, 5), parse_level(t="9/10"), method="exact")
    assert ex.verdict is Verdict.FAILS
    assert ex.certificate.nonnegative is ex.certificate.holds is False
    assert not replace(ex.certificate, holds=True).verify()


def test_kronecker_certificate_with_failing_factors():
    r = tight_constraints(M.hamming(3, 2), t="9/10")
    cert = r.certificate
    assert cert.kind is CertificateKind.KRONECKER and cert.verify()
    assert r.verdict is cert.verdict and all(c.verdict.decided for c in cert.factors)
    assert not replace(cert, holds=not cert.holds).verify()


def test_tight_constraints_types_say_exact_or_certified():
    exact = tight_constraints(M.line(3), t="1/3")
    assert exact.z_exact == (Fraction(3, 4), Fraction(1, 2), Fraction(3, 4)) == exact.z
    assert exact.z_enclosure == tuple(Enclosure(v, v) for v in exact.z_exact)
    assert exact.mechanism_exact == tuple(exact.mechanism)  # a Mechanism, read as its rows
    assert all(isinstance(e, Enclosure) for row in exact.mechanism_enclosure for e in row)
    cert = tight_constraints(M.line(5), eps="1/2")
    assert cert.verdict is Verdict.HOLDS and cert.z == cert.z_enclosure
    assert all(isinstance(e, Enclosure) for e in cert.z_enclosure)
    with pytest.raises(ExactnessRequired, match="z_enclosure"):
        _ = cert.z_exact
    # the symbolic backend gives signs only: the enclosure is computed on request
    sym = tight_constraints(M.line(5), eps="1/2", method="symbolic")
    assert sym.engine.x_enclosure is None
    assert all(a.lo <= b.hi and b.lo <= a.hi for a, b in zip(sym.z_enclosure, cert.z_enclosure,
                                                            strict=True))
    assert all(e.lo > 0 for e in sym.z_enclosure)


def test_float_method_returns_float_estimate():
    est = tight_constraints(M.line(3), t="1/3", method="float")
    assert isinstance(est, FloatEstimate) and est.verdict is Verdict.UNDECIDED
    est = is_regular(M.line(3), "uniform", t="1/3", method="float")
    assert isinstance(est, FloatEstimate) and est.holds_estimate


def test_regularity_alpha_kinds():
    r = is_regular(M.line(3), ["1/3", "1/3", "1/3"], t="1/2")
    assert r.verdict is Verdict.HOLDS and r.alpha_exact == r.alpha
    assert r.alpha_enclosure == tuple(Enclosure(v, v) for v in r.alpha_exact)
    q = is_regular(M.line(3), "uniform", eps="1/2")
    assert q.alpha == q.alpha_enclosure
    with pytest.raises(ExactnessRequired):
        _ = q.alpha_exact


def test_priors_are_read_by_the_one_reader():
    m = M.line(3)
    assert validate_prior is read_prior
    assert validate_prior(m, "uniform") == (Fraction(1, 3),) * 3
    with pytest.raises(InvalidPrior):
        is_regular(m, None, t="1/2")


@pytest.mark.parametrize("call, error, match", [
    (lambda: tight_constraints(None, t="1/2"), InvalidMetric, "FiniteMetric"),
    (lambda: is_regular("line(3)", "uniform", t="1/2"), InvalidMetric, "FiniteMetric"),
    (lambda: solve_nonnegative(None, parse_level(t="1/2")), InvalidMetric, "FiniteMetric"),
    (lambda: solve_nonnegative(M.line(2), "1/2"), InvalidPrivacyLevel, "parse_level"),
    (lambda: M.from_matrix(None), InvalidMetric, "square matrix"),
    (lambda: M.from_matrix([1, 2]), InvalidMetric, "row 0"),
    (lambda: M.from_graph(None), InvalidMetric, "pairs"),
    (lambda: M.from_graph([1, 2]), InvalidMetric, "edge"),
    (lambda: M.from_graph([([1], 2)]), InvalidMetric, "unhashable"),
    (lambda: tight_constraints(M.line(3), t="1/2", max_prec="a"), InvalidArgument, "max_prec"),
    (lambda: is_regular(M.line(3), "uniform", t="1/2", max_prec=3.5), InvalidArgument, "max_prec"),
    (lambda: tight_constraints(M.line(3), t="1/2", method="fast"), InvalidArgument, "method"),
    (lambda: solve_nonnegative(M.line(3), parse_level(t="1/2"), method="float"), InvalidArgument,
     "float_solve"),
    (lambda: solve_nonnegative(M.line(3), parse_level(t="1/2"), start_prec=512, max_prec=256),
     InvalidArgument, "start_prec"),
    (lambda: solve_nonnegative(M.line(3), parse_level(t="1/2"), rhs=5), InvalidArgument, "rhs"),
])
def test_arguments_are_checked_eagerly(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_negative_square_root_distance_is_a_metric_error():
    from exactdp.spaces.distances import Distance

    with pytest.raises(InvalidMetric, match="nonnegative"):
        Distance.sqrt_of(Fraction(-1))
