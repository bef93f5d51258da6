"""Issue 11: mechanisms and Pufferfish — sound float filters, every claim re-checked.

Ground truth per test is written beside it: exact rationals (``fractions.Fraction``) for the
largest privacy ratio, and 60-digit ``mpmath`` for logarithms; Pufferfish closed forms from
the Bernoulli formulas of ``proofs/pufferfish_bernoulli.py``.
"""

from __future__ import annotations

import argparse
import dataclasses
from fractions import Fraction as F

import flint
import mpmath
import pytest
import sympy
from flint import arb, fmpq
from hypothesis import example, given, settings
from hypothesis import strategies as st

from exactdp import is_private, metrics, privacy_level
from exactdp.arithmetic.interval import Enclosure
from exactdp.cli import mechanisms as mech_cli
from exactdp.cli.exitcodes import exit_code_for_result
from exactdp.errors import InvalidMechanism, NotRegular
from exactdp.mechanisms import exponential_mechanism, from_balls, from_rows
from exactdp.pufferfish import DistributionPair, DistributionVsAbsent, Population, bernoulli
from exactdp.pufferfish.calibration import conservative_scale, exact_scale
from exactdp.pufferfish.certification import certify
from exactdp.pufferfish.secrets import ValuePair


@pytest.fixture(autouse=True)
def _sixty_digits():
    """60-digit mpmath for the ground truth (other test modules change mp.dps)."""
    with mpmath.workdps(60):
        yield


def _ln(x: F) -> mpmath.mpf:
    return mpmath.log(mpmath.mpf(x.numerator) / x.denominator)


def _exact_level_line(rows: list[list[F]]) -> F | None:
    """Largest ratio h[a,z]/h[b,z] over adjacent a, b of line(n) (d = 1), exactly; None = ∞."""
    best = F(1)
    for a in range(len(rows) - 1):
        for x, y in ((a, a + 1), (a + 1, a)):
            for hx, hy in zip(rows[x], rows[y]):
                if hx == 0:
                    continue
                if hy == 0:
                    return None
                best = max(best, hx / hy)
    return best


def _balls(rows: list[list[F]], prec: int = 128):
    with flint.ctx.workprec(prec):
        return from_balls([[arb(fmpq(v.numerator, v.denominator)) for v in r] for r in rows],
                          precision=prec)


# ---- 1. the ball route drops no entry whose float underflows --------------------------------


def test_issue_example_ball_route_underflow_is_not_private():
    # ground truth: ratio (1/10^400)/(1/10^800) = 10^400 at z = 1, level = 400 ln 10 ≈ 921.03
    with flint.ctx.workprec(128):
        rows = [[1 - fmpq(1, 10**400), fmpq(1, 10**400)],
                [1 - fmpq(1, 10**800), fmpq(1, 10**800)]]
        H = from_balls([[arb(v) for v in r] for r in rows], precision=128)
    check = is_private(H, metrics.line(2), eps=1)
    assert not check.private
    assert check.violation == (0, 1, 1)
    enc = check.level.enclosure
    truth = 400 * mpmath.log(10)
    slack = mpmath.mpf("1e-50")
    assert enc.lo <= F(str(truth + slack)) and F(str(truth - slack)) <= enc.hi
    assert float(enc.hi - enc.lo) < 1e-20
    assert check.level.verify() and check.verify()


EXPONENTS = [1, 100, 300, 320, 400, 800]
entry = st.tuples(st.integers(1, 4), st.sampled_from(EXPONENTS))  # row sums of small ≤ 8/10


@st.composite
def tiny_mechanisms(draw):
    """Rows [1 − Σ small, c₁·10^-k₁, …] with k ∈ {1, 100, 300, 320, 400, 800} (some zeros)."""
    n = draw(st.integers(2, 3))
    m = draw(st.integers(2, 3))
    rows = []
    for _ in range(n):
        small = [F(c, 10**k) if draw(st.booleans()) or k < 800 else F(0)
                 for c, k in draw(st.lists(entry, min_size=m - 1, max_size=m - 1))]
        rows.append([1 - sum(small), *small])
    return rows


@given(tiny_mechanisms())
@settings(max_examples=60, deadline=None)
@example([[1 - F(1, 10**400), F(1, 10**400)], [1 - F(1, 10**800), F(1, 10**800)]])
@example([[1 - F(1, 10**320), F(1, 10**320)], [1 - F(1, 10**300), F(1, 10**300)]])
@example([[F(9, 10), F(1, 10)], [1 - F(1, 10**101), F(1, 10**101)]])
def test_levels_of_tiny_entries_match_exact_computation(rows):
    R = _exact_level_line(rows)
    m = metrics.line(len(rows))
    exact = privacy_level(from_rows(rows), m)
    ball = privacy_level(_balls(rows), m)
    if R is None:
        assert exact.is_infinite and ball.is_infinite
        return
    assert exact.ratio == R
    assert exact.verify() and ball.verify()
    truth = _ln(R)
    slack = mpmath.mpf("1e-30")
    for enc in (exact.enclosure, ball.enclosure):
        assert enc.lo <= F(str(truth + slack)) and F(str(truth - slack)) <= enc.hi
        assert enc.lo >= 0
    # the verdict at ε = 1 agrees with the exact ratio: private ⇔ R ≤ e
    private = R <= F(str(mpmath.e - slack))
    assert bool(is_private(from_rows(rows), m, eps=1)) is private
    assert bool(is_private(_balls(rows), m, eps=1)) is private


def test_ball_route_huge_and_tiny_mixed_columns():
    # three inputs, entries spanning 10^-1 … 10^-800; ground truth by exact enumeration
    rows = [[1 - F(1, 10) - F(1, 10**800), F(1, 10), F(1, 10**800)],
            [1 - F(1, 10**320) - F(1, 10**400), F(1, 10**320), F(1, 10**400)],
            [1 - F(2, 10**300) - F(1, 10**101), F(2, 10**300), F(1, 10**101)]]
    R = _exact_level_line(rows)
    assert R == 10**400  # h[1,2]/h[0,2] = 10^-400/10^-800
    ball = privacy_level(_balls(rows), metrics.line(3))
    assert ball.enclosure.lo <= F(str(_ln(R))) <= ball.enclosure.hi and ball.verify()


# ---- 2. PrivacyLevelResult.verify() on the ball route ---------------------------------------


@pytest.fixture(scope="module")
def ball_result():
    m = metrics.grid(2, 3)
    return privacy_level(exponential_mechanism(m, eps=1), m)


def test_ball_route_genuine_result_verifies(ball_result):
    assert ball_result.method == "ball" and ball_result.verify()
    # ground truth: the exponential mechanism at ε = 1 is 1·d-private, so level ≤ 1
    assert ball_result.enclosure.hi <= 1


def test_ball_route_tampered_results_rejected(ball_result):
    enc = ball_result.enclosure
    for lo, hi in ((enc.lo + 1, enc.hi + 1), (enc.lo - 1, enc.hi - 1),
                   (enc.lo - F(1, 10**6), enc.lo - F(1, 10**9)), (enc.hi + F(1, 10**9), enc.hi + 1)):
        assert not dataclasses.replace(ball_result, enclosure=Enclosure(lo, hi)).verify()
    a, b, z = ball_result.witness
    for w in ((b, a, z), (a, b, (z + 1) % 6), (a, a, z)):
        assert not dataclasses.replace(ball_result, witness=w).verify()
    assert not dataclasses.replace(ball_result, witness=None).verify()
    assert not dataclasses.replace(ball_result, value=sympy.Integer(0)).verify()
    # a wider enclosure is still a true claim
    wider = Enclosure(enc.lo - F(1, 10), enc.hi + F(1, 10))
    assert dataclasses.replace(ball_result, enclosure=wider).verify()


def test_exact_route_tampered_fields_rejected():
    H = from_rows([["3/4", "1/4"], ["1/4", "3/4"]])
    r = privacy_level(H, metrics.line(2))
    assert r.verify()
    assert not dataclasses.replace(r, ratio=F(2)).verify()
    assert not dataclasses.replace(r, enclosure=Enclosure(F(2), F(3))).verify()
    assert not dataclasses.replace(r, value=sympy.log(2)).verify()
    same = from_rows([["1/2", "1/2"], ["1/2", "1/2"]])
    z = privacy_level(same, metrics.line(2))
    assert z.verify() and z.value == 0
    assert not dataclasses.replace(z, value=sympy.Integer(5)).verify()


# ---- 3. exact decision of is_private at the level itself, bad input -------------------------


def test_is_private_at_own_level_with_1e101_entries_on_sqrt5_metric():
    m = metrics.from_matrix([["0", "sqrt(5)"], ["sqrt(5)", "0"]])
    a = F(7, 10**101 + 3)
    b = F(3, 10**101 + 11)
    H = from_rows([[1 - a, a], [1 - b, b]])
    lv = privacy_level(H, m)
    # ground truth: ratio max(a/b, (1−b)/(1−a)) = a/b; level = ln(a/b)/√5
    assert lv.ratio == a / b
    check = is_private(H, m, eps=lv.value)
    assert check.private and check.verify()
    below = is_private(H, m, eps=lv.value - sympy.Rational(1, 10**40))
    assert not below.private and below.verify()


def test_from_rows_none_is_invalid_mechanism():
    with pytest.raises(InvalidMechanism, match="None"):
        from_rows(None)
    with pytest.raises(InvalidMechanism):
        from_balls(None)


# ---- 4. Pufferfish certificates bound to their question ------------------------------------


def test_exact_scale_closed_form_replaced_by_hi_rejected():
    r = exact_scale(DistributionVsAbsent(bernoulli("1/2")), "ln(2)")
    assert r.theta_expr == 1 / sympy.log(3) and r.verify()
    hi = sympy.Rational(r.hi.numerator, r.hi.denominator)
    assert not dataclasses.replace(r, theta_expr=hi).verify()
    # any other closed form inside (lo, hi] is rejected as well
    near = 1 / sympy.log(3) + sympy.Rational(1, 10**40)
    assert not dataclasses.replace(r, theta_expr=near).verify()


@pytest.mark.parametrize("pair, eps", [
    (DistributionVsAbsent(bernoulli("1/2")), "ln(2)"),
    (DistributionPair(bernoulli("3/4"), bernoulli("1/4")), "1"),
    (DistributionPair(bernoulli("1/10"), bernoulli("2/3")), "1/2"),
    (ValuePair(3, 1), "1/2"),
    (DistributionPair(bernoulli("3/4"), bernoulli("1/4")), "ln(3) - 1/10**30"),
])
def test_exact_scale_genuine_closed_forms_verify(pair, eps):
    r = exact_scale(pair, eps)
    assert r.method == "closed_form" and r.verify()


def test_exact_scale_other_fields_checked():
    r = exact_scale(DistributionVsAbsent(bernoulli("1/2")), "ln(2)")
    assert not dataclasses.replace(r, theta_expr=None, method="root_finding",
                                   identical=True).verify()
    assert not dataclasses.replace(r, method="root_finding").verify()
    z = exact_scale(DistributionPair(bernoulli("1/2"), bernoulli("1/2")), 1)
    assert z.zero_noise and z.verify()
    assert not dataclasses.replace(z, theta_expr=sympy.Integer(5)).verify()
    assert not dataclasses.replace(z, identical=False).verify()


def test_conservative_scale_w1_checked():
    c = conservative_scale(ValuePair(3, 1), "1/2")
    assert c.verify()
    assert not dataclasses.replace(c, w1=c.w1 + 1).verify()
    assert not dataclasses.replace(c, theta=c.theta + 1).verify()


@pytest.fixture(scope="module")
def population_cert():
    pop = Population.bernoulli(["1/2"] * 3, presences=["9/10"] * 3)
    return certify(pop, DistributionVsAbsent(bernoulli("1/2")), 1, "ln(2)")


def test_population_certificate_bound_to_its_question(population_cert):
    c = population_cert
    assert c.verify()
    # laws of another population (two users instead of three): the verdict may agree, the
    # question does not
    other = certify(Population.bernoulli(["1/2"] * 2), DistributionVsAbsent(bernoulli("1/2")),
                    1, "ln(2)")
    assert not dataclasses.replace(c, P_total=other.P_total, Q_total=other.Q_total).verify()
    assert not dataclasses.replace(c, population_theta=other.population_theta).verify()
    wrong_pair = exact_scale(DistributionVsAbsent(bernoulli("1/3")), "ln(2)")
    assert not dataclasses.replace(c, independent_theta=wrong_pair).verify()
    # same P, Q, another ε
    other_eps = exact_scale(DistributionVsAbsent(bernoulli("1/2")), 1)
    assert not dataclasses.replace(c, independent_theta=other_eps).verify()
    assert not dataclasses.replace(c, tight=not c.tight).verify()
    assert not dataclasses.replace(c, worst_log_ratio=c.worst_log_ratio + 1).verify()


# ---- 5. CLI exit codes ----------------------------------------------------------------------


def _run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    mech_cli.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return exit_code_for_result(args.func(args))


def test_cli_privacy_check_at_level_exit_codes(capsys):
    # the truncated geometric at ε = 4/5 is private at ε = 1 (exit 0), not at ε = 1/2 (exit 1)
    assert _run(["privacy-level", "line", "--n", "3", "--mechanism", "geometric", "--eps",
                 "4/5", "--at-eps", "1"]) == 0
    assert _run(["privacy-level", "line", "--n", "3", "--mechanism", "geometric", "--eps",
                 "4/5", "--at-eps", "1/2"]) == 1
    assert "NOT private" in capsys.readouterr().out


def test_cli_bounds_catches_only_not_regular(monkeypatch, capsys):
    argv = ["bounds", "line", "--n", "3", "--t", "1/2"]

    def not_regular(*_a, **_k):
        raise NotRegular("the uniform prior is not regular (stand-in)")

    monkeypatch.setattr(mech_cli, "uniform_leakage_bound", not_regular)
    assert _run(argv) == 0
    assert "Cor. 2: not applicable" in capsys.readouterr().out

    def bug(*_a, **_k):
        raise ZeroDivisionError("a bug must not be printed as 'not applicable'")

    monkeypatch.setattr(mech_cli, "uniform_leakage_bound", bug)
    with pytest.raises(ZeroDivisionError):
        _run(argv)


def test_ball_route_refuses_when_subnormals_are_flushed(monkeypatch):
    # lemma B of proofs/mech_float_filter.py needs gradual underflow: a process with FTZ/DAZ
    # gets a specific error, never an answer
    import exactdp.arithmetic.rounding as rounding
    from exactdp.errors import PrecisionLimitReached

    monkeypatch.setattr(rounding, "subnormals_ok", lambda: False)
    m = metrics.grid(2, 2)
    with pytest.raises(PrecisionLimitReached, match="subnormal"):
        privacy_level(exponential_mechanism(m, eps=1), m)


def test_privacy_check_violation_is_checked():
    H = from_rows([["3/4", "1/4"], ["1/4", "3/4"]])
    c = is_private(H, metrics.line(2), eps=1)  # level ln 3 > 1: not private, witness (0, 1, 0)
    assert not c.private and c.verify()
    assert not dataclasses.replace(c, violation=(1, 0, 0)).verify()
    assert not dataclasses.replace(c, private=True, violation=None).verify()


def test_cli_privacy_check_json(capsys):
    import json

    assert _run(["privacy-level", "line", "--n", "3", "--mechanism", "geometric", "--t", "1/2",
                 "--at-t", "1/3", "--verdict-json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["private"] is True and out["verdict"] == "holds" and out["verified"] is True
