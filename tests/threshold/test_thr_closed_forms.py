"""Closed forms as first-class output: sympy / LaTeX / descending minimal polynomials (issue 14)."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
import sympy
from matplotlib.mathtext import MathTextParser

from exactdp.algebra.algebraic import AlgebraicNumber, real_roots_between
from exactdp.algebra.symbolic import solve_symbolic
from exactdp.cli.app import main
from exactdp.errors import ExactnessRequired
from exactdp.pufferfish.bernoulli_forms import (
    bernoulli_theta_piecewise,
    closed_forms,
    piecewise_mathtext,
)
from exactdp.pufferfish.calibration import exact_scale
from exactdp.pufferfish.distributions import bernoulli, point_mass
from exactdp.pufferfish.secrets import DistributionPair
from exactdp.spaces.metrics import count_queries, from_graph, line, sum_query
from exactdp.threshold import epsilon_threshold, tight_constraints_epsilons
from exactdp.threshold.results import rational_functions_sympy

SQRT5 = sympy.sqrt(5)


def _star(leaves: int):
    return from_graph([(0, i) for i in range(1, leaves + 1)])


@pytest.mark.parametrize(("metric", "expected"), [
    (sum_query(2, 2), sympy.log((1 + SQRT5) / 2)),
    (count_queries(2), sympy.log(2 + SQRT5)),
    (_star(3), sympy.log(2)),
    (_star(4), sympy.log(3)),
    (sum_query(3, 2), sympy.log(2) / 2),
])
def test_threshold_closed_form_simplifies_to_the_known_value(metric, expected) -> None:
    r = epsilon_threshold(metric)
    expr = r.as_sympy()
    assert sympy.simplify(expr - expected) == 0
    # and it lies in the certified enclosure (the closed form is the certified number)
    v = sympy.N(expr, 40)
    assert sympy.Rational(r.eps_lower) <= v <= sympy.Rational(r.eps_upper)


def test_wrong_values_are_not_accepted() -> None:
    # the check can fail: a neighbouring closed form is not equal
    r = epsilon_threshold(sum_query(2, 2))
    assert sympy.simplify(r.as_sympy() - sympy.log(2 + SQRT5)) != 0


@pytest.mark.parametrize("metric", [sum_query(2, 3), sum_query(4, 2), count_queries(3)])
def test_crootof_selects_the_certified_root(metric) -> None:
    r = epsilon_threshold(metric)
    expr = r.as_sympy()
    assert expr.has(sympy.CRootOf)
    v = sympy.N(expr, 50)
    assert sympy.Rational(r.eps_lower) <= v <= sympy.Rational(r.eps_upper)
    # the CRootOf polynomial is the descending minimal polynomial
    poly = r.minimal_poly()
    assert poly.LC() > 0 and poly.degree() == r.exact.degree
    assert tuple(reversed(poly.all_coeffs())) == r.exact.minimal_polynomial


def test_minimal_poly_is_descending_and_str_readable() -> None:
    r = epsilon_threshold(sum_query(2, 2))
    s = sympy.Symbol("s", positive=True)
    assert r.minimal_poly() == sympy.Poly(s**2 + s - 1, s)
    assert r.minimal_poly().all_coeffs() == [1, 1, -1]
    assert "s**2 + s - 1" in str(r.exact)


def test_algebraic_degree_two_picks_each_root() -> None:
    roots = [a for a, _ in real_roots_between([-1, -3, 1], Fraction(-10), Fraction(10))]
    exprs = [a.as_sympy() for a in roots]
    assert exprs == [sympy.Rational(3, 2) - sympy.sqrt(13) / 2,
                     sympy.Rational(3, 2) + sympy.sqrt(13) / 2]
    assert [a.real_root_index() for a in roots] == [0, 1]
    assert AlgebraicNumber.from_rational("3/4").as_sympy() == sympy.Rational(3, 4)


def test_latex_parses_in_mathtext() -> None:
    parser = MathTextParser("agg")
    for m in (sum_query(2, 2), sum_query(2, 3), count_queries(2)):
        r = epsilon_threshold(m)
        parser.parse("$" + r.latex() + "$")
        parser.parse("$" + tight_constraints_epsilons(m).latex() + "$")
    parser.parse("$" + sympy.latex(closed_forms()["theta_A"]) + "$")


def test_piecewise_theta_mathtext_lines_parse() -> None:
    """Review 14 #9: sympy's ``\\begin{cases}`` is not mathtext; the line form parses."""
    theta, _ = bernoulli_theta_piecewise()
    parser = MathTextParser("agg")
    with pytest.raises(ValueError):
        parser.parse("$" + sympy.latex(theta) + "$")
    lines = piecewise_mathtext(theta)
    assert len(lines) == 9  # 2 orders × 4 branches + p = q
    for text in lines:
        parser.parse(text)
    assert lines[-1].endswith(r"\mathrm{otherwise}$")


@pytest.mark.parametrize(("P", "Q"), [
    (bernoulli("1/2"), bernoulli("1/3")),
    (bernoulli("1/10"), bernoulli("2/3")),
    (bernoulli("1/2"), point_mass(0)),
])
@pytest.mark.parametrize("eps", ["1/1000000000000", "1/100000000000000000000"])
def test_bernoulli_piecewise_tiny_epsilon(P, Q, eps: str) -> None:
    """Review 14 #1: at ε ≤ 1e-10 the Piecewise used to divide by zero in mpmath (Max)."""
    theta, validity = bernoulli_theta_piecewise()
    e, p, q = sorted(theta.free_symbols, key=str)
    pv, qv = P.as_dict().get(1, Fraction(0)), Q.as_dict().get(1, Fraction(0))
    sub = {p: sympy.Rational(pv.numerator, pv.denominator),
           q: sympy.Rational(qv.numerator, qv.denominator), e: sympy.Rational(eps)}
    assert validity.subs(sub) is sympy.true
    got = theta.subs(sub)
    assert not isinstance(got, sympy.Piecewise) and got != 0
    r = exact_scale(DistributionPair(P, Q), eps)
    assert r.theta_expr is not None
    assert sympy.simplify(got - r.theta_expr) == 0
    assert sympy.Rational(r.lo) <= sympy.N(got, 60) <= sympy.Rational(r.hi)


def test_bernoulli_piecewise_validity_can_fail() -> None:
    """Review 14 #10: validity is ε > 0 and 0 ≤ p, q ≤ 1, and is False outside."""
    _, validity = bernoulli_theta_piecewise()
    e, p, q = sorted(validity.free_symbols, key=str)
    half = sympy.Rational(1, 2)
    assert validity.subs({p: half, q: 0, e: 1}) is sympy.true
    assert validity.subs({p: 1, q: 0, e: sympy.Rational(1, 10**20)}) is sympy.true
    for bad in ({p: -1, q: 0, e: 1}, {p: 2, q: 0, e: 1}, {p: half, q: -half, e: 1},
                {p: half, q: 3, e: 1}, {p: half, q: 0, e: 0}, {p: half, q: 0, e: -1}):
        assert validity.subs(bad) is sympy.false, bad


@pytest.mark.parametrize("noise", [["--noise", "gaussian", "--delta", "1/1000"],
                                   ["--noise", "discrete-laplace"]])
@pytest.mark.parametrize("form", ["--sympy", "--latex"])
def test_pufferfish_closed_form_flag_rejected_for_other_noise(
    noise: list[str], form: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Review 14 #2: --sympy/--latex were silently ignored for non-Laplace noise."""
    assert main(["pufferfish", "scale", "--p", "1/2", "--eps", "1", *noise, form]) == 3
    err = capsys.readouterr().err
    assert f"Got {form} with --noise {noise[1]}" in err and "--noise laplace only" in err


def test_certified_only_result_has_no_closed_form() -> None:
    r = epsilon_threshold(sum_query(2, 2), method="certified")
    with pytest.raises(ExactnessRequired, match="method='exact'"):
        r.as_sympy()


def test_rational_functions_z_and_alpha() -> None:
    s = sympy.Symbol("s", positive=True)
    r = epsilon_threshold(sum_query(2, 2))
    z = r.rational_functions()
    assert len(z) == 5
    # z(s) solves Φ(s) z = 1 exactly (Φ_ij = s^{d_ij}, polynomial case q = 1)
    m = sum_query(2, 2)
    phi = sympy.Matrix(m.n, m.n, lambda i, j: s ** int(m.distance(i, j).coef))
    assert sympy.simplify(phi * sympy.Matrix(z) - sympy.ones(m.n, 1)) == sympy.zeros(m.n, 1)
    # α(s) for the uniform prior on line(2): Φ α = π
    alpha = rational_functions_sympy(solve_symbolic(line(2), [Fraction(1, 2)] * 2))
    assert alpha == (1 / (2 * s + 2), 1 / (2 * s + 2))
    # α(s) from a regularity threshold: Φ(s) α(s) = π exactly, and ε* = ln((3 + √5)/2)
    prior = [Fraction(1, 2), Fraction(1, 4), Fraction(1, 4)]
    r = epsilon_threshold(line(3), prior)
    alpha = sympy.Matrix(r.rational_functions())
    phi3 = sympy.Matrix(3, 3, lambda i, j: s ** abs(i - j))
    pi = sympy.Matrix([sympy.Rational(p.numerator, p.denominator) for p in prior])
    assert sympy.simplify(phi3 * alpha - pi) == sympy.zeros(3, 1)
    assert sympy.simplify(r.as_sympy() - sympy.log((3 + SQRT5) / 2)) == 0


@pytest.mark.parametrize(("P", "Q", "eps"), [
    (bernoulli("1/2"), point_mass(0), sympy.log(2)),
    (bernoulli("3/4"), bernoulli("1/4"), sympy.Integer(1)),
    (bernoulli("1/10"), bernoulli("2/3"), sympy.Rational(1, 2)),
    (bernoulli("9/10"), bernoulli("1/10"), sympy.Integer(2)),
    (bernoulli("1/5"), bernoulli("1/4"), sympy.Integer(3)),
])
def test_bernoulli_piecewise_matches_exact_scale(P, Q, eps) -> None:
    theta, validity = bernoulli_theta_piecewise()
    e, p, q = sorted(theta.free_symbols, key=str)
    pv, qv = P.as_dict().get(1, Fraction(0)), Q.as_dict().get(1, Fraction(0))
    sub = {p: sympy.Rational(pv.numerator, pv.denominator),
           q: sympy.Rational(qv.numerator, qv.denominator), e: eps}
    assert validity.subs(sub) is sympy.true
    got = theta.subs(sub)
    r = exact_scale(DistributionPair(P, Q), str(eps).replace("log", "ln"))
    assert r.theta_expr is not None
    assert sympy.simplify(got - r.theta_expr) == 0
    assert sympy.Rational(r.lo) <= sympy.N(got, 40) <= sympy.Rational(r.hi)


def test_theta_values_gap_is_explicit() -> None:
    cf = closed_forms()
    h = next(x for x in cf["theta_values_gap"].free_symbols if x.name == "h")
    assert cf["theta_values_gap"].subs(h, 1) == cf["theta_values"]


def test_cli_sympy_and_latex(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["threshold", "sum-query", "--u", "2", "--v", "2", "--sympy", "--quiet"]) == 0
    out = capsys.readouterr().out.strip()
    assert sympy.simplify(sympy.sympify(out) - sympy.log((1 + SQRT5) / 2)) == 0
    assert main(["threshold", "count-queries", "--u", "2", "--latex", "--quiet"]) == 0
    assert capsys.readouterr().out.strip() == r"\varepsilon^* = \log{\left(2 + \sqrt{5} \right)}"
    assert main(["epsilons", "sum-query", "--u", "2", "--v", "2", "--json", "--sympy",
                 "--quiet"]) == 0
    assert json.loads(capsys.readouterr().out)["sympy"] == "Interval(log(1/2 + sqrt(5)/2), oo)"
    assert main(["threshold", "sum-query", "--u", "2", "--v", "2", "--method", "certified",
                 "--sympy", "--quiet"]) == 3


def test_cli_closed_form_error_names_method_exact(capsys: pytest.CaptureFixture[str]) -> None:
    """Review 14 #11: the CLI message names the CLI flag, not the Python keyword."""
    assert main(["threshold", "sum-query", "--u", "2", "--v", "2", "--method", "certified",
                 "--latex", "--quiet"]) == 3
    err = capsys.readouterr().err
    assert "--method exact" in err and "method='exact'" not in err


def test_holds_everywhere_closed_form_is_documented_zero() -> None:
    """Review 14 #11: ε* = 0 (holds for every ε) is the threshold 0; no s* says so."""
    r = epsilon_threshold(line(2), [Fraction(1, 2)] * 2)
    assert r.holds_everywhere
    assert r.as_sympy() == 0
    for call in (r.minimal_poly, r.rational_functions):
        with pytest.raises(ExactnessRequired, match="holds for every ε > 0"):
            call()
