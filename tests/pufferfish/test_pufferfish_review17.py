"""Regression tests for the issue-17 review (/work/notes/review17.md); each failed before its fix."""

from __future__ import annotations

import argparse
from fractions import Fraction as F
from typing import Any

import pytest
import sympy

from exactdp.arithmetic.interval import Enclosure
from exactdp.cli import pufferfish as cli
from exactdp.errors import InstanceTooLarge, InvalidArgument, NoNoiseNeeded
from exactdp.kinds import Sign
from exactdp.pufferfish import DistributionPair, DistributionVsAbsent, ValuePair, bernoulli
from exactdp.pufferfish.approximate import laplace_delta
from exactdp.pufferfish.bernoulli_forms import exact_sign
from exactdp.pufferfish.calibration import conservative_scale, exact_scale
from exactdp.pufferfish.discrete import discrete_laplace_scale
from exactdp.pufferfish.distributions import point_mass
from exactdp.pufferfish.gaussian import gaussian_delta, gaussian_scale, noiseless_delta
from exactdp.pufferfish.releases import release_loss

TENTH = DistributionVsAbsent(bernoulli("1/10"))


def _tampered(result: Any, **fields: Any) -> Any:
    for name, value in fields.items():
        object.__setattr__(result, name, value)
    return result


# 1 -- alpha_expr of a discrete Laplace result is checked, not trusted
@pytest.mark.parametrize("bad", [2 / (10 * sympy.E - 9), "junk", -1, None, sympy.Rational(1, 2)])
def test_discrete_laplace_verify_rejects_wrong_alpha_expr(bad: Any) -> None:
    r = discrete_laplace_scale(TENTH, 1)
    assert r.verify() and sympy.simplify(r.alpha_expr - 1 / (10 * sympy.E - 9)) == 0
    assert not _tampered(r, alpha_expr=bad).verify()


def test_discrete_laplace_verify_rejects_non_bool_zero_noise() -> None:
    assert not _tampered(discrete_laplace_scale(TENTH, 1), zero_noise=None).verify()


def test_discrete_laplace_verify_zero_noise_checks_the_pair() -> None:
    r = discrete_laplace_scale(TENTH, 1)
    fake = _tampered(r, zero_noise=True, alpha_lo=F(0), alpha_hi=F(0), ratio_lo=F(1),
                     ratio_hi=F(1), alpha_expr=sympy.Integer(0))
    assert not fake.verify()


# 2 -- GaussianScale.verify checks its own P, Q, eps and never raises
@pytest.fixture(scope="module")
def gauss() -> Any:
    return gaussian_scale(ValuePair(1, 0), 1, "1/100", rel_tol=F(1, 1000))


@pytest.mark.parametrize("fields", [
    {"P": bernoulli("1/2")}, {"Q": bernoulli("1/2")}, {"eps": sympy.Integer(2)},
    {"eps": "junk"}, {"lo": "junk"}, {"hi": None}, {"target_delta": "junk"},
    {"target_delta": None}, {"at_lo": "junk"}, {"at_hi": None},
])
def test_gaussian_scale_verify_rejects_tampered_fields(gauss: Any, fields: dict[str, Any]) -> None:
    import dataclasses

    r = dataclasses.replace(gauss)
    assert r.verify()
    assert _tampered(r, **fields).verify() is False


# 3 -- ConservativeScale.verify never raises
@pytest.mark.parametrize("plan", [None, "junk", 3])
def test_conservative_scale_verify_rejects_missing_plan(plan: Any) -> None:
    c = conservative_scale(TENTH, 1, releases=3)
    assert c.verify()
    assert _tampered(c, plan=plan).verify() is False


# 4 -- discrete Laplace brackets are rounded relative to α and 1 − α
@pytest.mark.parametrize("eps", [50, 100, F(1, 10**17), F(1, 10**40)])
def test_discrete_laplace_bracket_at_extreme_eps(eps: Any) -> None:
    r = discrete_laplace_scale(ValuePair(1, 0), eps)  # α* = e^{-ε} exactly
    assert 0 < r.alpha_lo < r.alpha_hi < 1 and r.verify()
    alpha = sympy.exp(-sympy.Rational(eps))
    assert exact_sign(alpha - sympy.Rational(r.alpha_lo)) is Sign.POSITIVE
    assert exact_sign(sympy.Rational(r.alpha_hi) - alpha) is not Sign.NEGATIVE
    width = r.alpha_hi - r.alpha_lo
    assert width <= min(r.alpha_lo, 1 - r.alpha_hi) / 10**6


# 7 -- laws that are not distributions: a specific error
@pytest.mark.parametrize("fn", [gaussian_delta, laplace_delta])
@pytest.mark.parametrize("pair", [(1, 2), (bernoulli("1/2"), "x")])
def test_delta_functions_reject_non_distribution_tuples(fn: Any, pair: Any) -> None:
    with pytest.raises(InvalidArgument, match="DiscreteDistribution"):
        fn(pair, 1, 1)


# 5 -- Gaussian: a δ at or above the noiseless δ₀ (and P = Q) is detected up front, fast
@pytest.mark.parametrize("delta", ["1/5", "1/10", "999/1000"])
def test_gaussian_scale_no_noise_needed(delta: str) -> None:
    with pytest.raises(NoNoiseNeeded, match="NO noise") as info:
        gaussian_scale(TENTH, 1, delta)
    assert info.value.evidence == sympy.Rational(1, 10)


def test_gaussian_scale_identical_laws_need_no_noise() -> None:
    with pytest.raises(NoNoiseNeeded, match="P = Q"):
        gaussian_scale(DistributionPair(bernoulli("1/2"), bernoulli("1/2")), 1, "1/10")


def test_noiseless_delta_is_exact_and_below_it_noise_is_needed() -> None:
    assert noiseless_delta(bernoulli("1/10"), point_mass(0), 1) == sympy.Rational(1, 10)
    d0 = noiseless_delta(bernoulli("1/2"), point_mass(0), 1)
    assert sympy.simplify(d0 - sympy.Rational(1, 2)) == 0  # P(1) − e·0 = 1/2; at 0: 1/2 − e < 0
    r = gaussian_scale(TENTH, 1, "99/1000", rel_tol=F(1, 100))
    assert r.verify() and 0.16 < float(r.lo) < float(r.hi) < 0.17


# 6 -- a huge number of releases: a specific error naming the equivalent single release
def test_release_loss_huge_k_is_a_specific_error() -> None:
    with pytest.raises(InstanceTooLarge, match="theta / k"):
        release_loss(TENTH, 1, releases=10**9)
    assert exact_scale(TENTH, 1, releases=10**30).verify()


# 8 -- stored widths, tolerances and verdict fields are checked
def test_release_loss_verify_checks_the_width() -> None:
    r = release_loss(TENTH, 1, releases=3)
    assert r.verify()
    assert not _tampered(r, loss=Enclosure(F(0), F(2766, 10))).verify()
    r = release_loss(TENTH, 1, releases=3)
    assert not _tampered(r, tol=F(2)).verify()


@pytest.mark.parametrize("make", [lambda: gaussian_delta(TENTH, 1, 1),
                                  lambda: laplace_delta(TENTH, "1/2", 1)])
@pytest.mark.parametrize("bad", [Enclosure(F(0), F(1369, 100)), Enclosure(F(0), F(9, 10))])
def test_delta_verify_checks_range_and_width(make: Any, bad: Enclosure) -> None:
    r = make()
    assert r.verify()
    assert not _tampered(r, delta=bad).verify()


@pytest.mark.parametrize("fields", [{"prec": "junk"}, {"prec": -1}, {"tol": F(2)},
                                    {"verdict_lo": None}, {"verdict_hi": None}])
def test_exact_scale_verify_checks_prec_tol_and_verdicts(fields: dict[str, Any]) -> None:
    r = exact_scale(TENTH, 1, releases=3)
    assert r.verify()
    assert not _tampered(r, **fields).verify()


# 14 -- huge ε: sympy.factor in bernoulli_theta_expr treated e^10000 as the polynomial
# E**10000 (degree 10⁶ at ε = 10⁶: 1.2 GB, no answer); it now factors over a symbol. (No time
# assertion: before the fix this test did not finish.)
@pytest.mark.parametrize("eps", ["10000", str(10**6)])
def test_exact_scale_huge_eps_is_answered(eps: str) -> None:
    r = exact_scale(DistributionPair(bernoulli("1/2"), point_mass(0)), eps)
    assert r.verify() and r.theta_expr is not None


# 10 -- the CLI names K·θ* as the common θ of K releases, not as θ*
def test_cli_releases_line_is_not_called_theta_star(capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser(prog="exactdp")
    cli.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["pufferfish", "scale", "--p", "1/10", "--eps", "1", "--releases", "3"])
    args.func(args)
    out = capsys.readouterr().out
    assert "exact θ* = 3/log" not in out
    assert "exact common θ of 3 releases = 3·θ*(ε) = 3/log(-9 + 10*E)" in out
    assert "< 3·θ* ≤" in out


# 5 (CLI) -- `--noise gaussian --delta 1/5` for Bern(1/10) vs absent answers at once
def test_cli_gaussian_no_noise_is_a_specific_error() -> None:
    parser = argparse.ArgumentParser(prog="exactdp")
    cli.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["pufferfish", "scale", "--p", "1/10", "--eps", "1",
                              "--noise", "gaussian", "--delta", "1/5"])
    with pytest.raises(NoNoiseNeeded):  # (before the fix: 60 s of search, then exit 2)
        args.func(args)
