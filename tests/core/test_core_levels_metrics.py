"""Privacy levels, exact input, and finite metrics (constructors, structure, validation)."""

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
import sympy

from exactdp import metrics as M
from exactdp.errors import (
    ExactnessRequired,
    InexactInputWarning,
    InvalidArgument,
    InvalidMetric,
    InvalidPrivacyLevel,
)
from exactdp.spaces.distances import Distance
from exactdp.spaces.levels import parse_level


class TestLevels:
    def test_rational_t_gives_log_eps(self):
        lv = parse_level(t="1/2")
        assert lv.t == Fraction(1, 2)
        assert sympy.simplify(lv.eps - sympy.log(2)) == 0

    def test_ln2_string_gives_rational_t(self):
        assert parse_level(eps="ln(2)").t == Fraction(1, 2)
        assert parse_level(eps=sympy.log(3) * 2).t == Fraction(1, 9)

    def test_rational_eps_has_transcendental_t(self):
        lv = parse_level(eps="4/5")
        assert lv.eps_rational == Fraction(4, 5) and lv.t is None
        import flint

        with flint.ctx.workprec(100):
            expected = (-flint.arb(flint.fmpq(4, 5))).exp()
            assert lv.t_ball().overlaps(expected) and lv.t_ball().rad() < 1e-25

    def test_decimal_string_is_exact(self):
        assert parse_level(eps="0.1").eps_rational == Fraction(1, 10)

    def test_float_warns_and_is_exact_binary(self):
        with pytest.warns(InexactInputWarning, match="Fraction"):
            lv = parse_level(eps=0.1)
        assert lv.eps_rational == Fraction(0.1)
        assert lv.eps_rational != Fraction(1, 10)

    @pytest.mark.parametrize("bad", [0, -1, "0", "-1/2", float("nan"), float("inf"), "oo"])
    def test_bad_eps(self, bad):
        with pytest.raises(InvalidPrivacyLevel), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            parse_level(eps=bad)

    @pytest.mark.parametrize("bad", [0, 1, "3/2", -1, float("nan")])
    def test_bad_t(self, bad):
        with pytest.raises(InvalidPrivacyLevel, match="t"):
            parse_level(t=bad)

    def test_exactly_one_of_eps_t(self):
        with pytest.raises(InvalidPrivacyLevel):
            parse_level()
        with pytest.raises(InvalidPrivacyLevel):
            parse_level(eps=1, t="1/2")

    def test_eps_text_is_never_executed(self, tmp_path):
        marker = tmp_path / "pwned"
        with pytest.raises(InvalidPrivacyLevel, match="could not read"):
            parse_level(eps=f"__import__('pathlib').Path({str(marker)!r}).touch() or 1")
        assert not marker.exists()

    def test_huge_denominator_does_not_hang(self):
        assert parse_level(t="1/2").s_rational(2**55) is None
        assert parse_level(t="1/4").s_rational(2) == Fraction(1, 2)

    def test_bool_and_junk_rejected(self):
        with pytest.raises(ExactnessRequired):
            parse_level(t=True)
        with pytest.raises(InvalidPrivacyLevel):
            parse_level(eps="two")

    def test_s_rational(self):
        assert parse_level(t="8/27").s_rational(3) == Fraction(2, 3)
        assert parse_level(t="1/2").s_rational(3) is None


def _brute_distances(points, dist):
    return np.array([[dist(a, b) for b in points] for a in points])


class TestMetrics:
    def test_sum_query_matches_definition(self):
        m = M.sum_query(4, 3)
        pts = list(range(13))
        expected = _brute_distances(pts, lambda a, b: math.ceil(abs(a - b) / 3))
        assert (m.exponent_matrix() == expected).all()
        assert m.toeplitz and m.q == 1 and m.n == 13

    def test_count_queries_chebyshev(self):
        m = M.count_queries(3)
        expected = _brute_distances(m.points, lambda a, b: max(abs(a[0] - b[0]), abs(a[1] - b[1])))
        assert (m.exponent_matrix() == expected).all()

    def test_hamming_and_kronecker(self):
        m = M.hamming(3, 3)
        expected = _brute_distances(m.points, lambda a, b: sum(x != y for x, y in zip(a, b)))
        assert (m.exponent_matrix() == expected).all()
        # Φ is the Kronecker power of the factor's Φ, at a float t for the shape check
        t = 0.3
        f = t ** m.kronecker_factors[0].exponent_matrix()
        assert np.allclose(t ** m.exponent_matrix(), np.kron(np.kron(f, f), f))

    def test_manhattan_grid_kronecker(self):
        g = M.grid(3, 4, "manhattan")
        t = 0.4
        a, b = (t ** np.vectorize(float)(f.distance_matrix_float()) for f in g.kronecker_factors)
        assert np.allclose(t ** g.distance_matrix_float(), np.kron(a, b))

    def test_euclidean_grid_exact_sqrt(self):
        g = M.grid(3, 3, "euclidean", spacing="1/2")
        half = Fraction(1, 2)
        i, j = g.points.index((0, 0)), g.points.index((half, half))
        assert g.distance(i, j) == Distance.sqrt_of(Fraction(1, 2))
        assert g.q is None

    def test_graph_edges_are_unit_steps(self):
        m = M.sum_query(3, 2)
        for i, j in m.graph_edges:
            assert m.distance(i, j) == Distance.rational(1)
        assert len(m.graph_edges) == sum(1 for i in range(7) for j in range(i + 1, 7)
                                          if abs(i - j) <= 2)

    def test_cycle(self):
        m = M.cycle(5)
        assert m.exponent_matrix()[0].tolist() == [0, 1, 2, 2, 1]
        assert m.ball_size_symmetric

    def test_from_graph_weighted(self):
        m = M.from_graph([("a", "b", "1/2"), ("b", "c", 1), ("a", "c", 2)])
        assert m.distance(0, 2) == Distance.rational(Fraction(3, 2))
        # the a–c edge (weight 2 > 3/2) never binds and is not a check edge
        assert (0, 2) not in m.graph_edges

    def test_from_graph_disconnected(self):
        with pytest.raises(InvalidMetric, match="not connected"):
            M.from_graph([(0, 1), (2, 3)])

    def test_from_matrix_sqrt_entries(self):
        m = M.from_matrix([[0, 1, 1], [1, 0, "sqrt(2)"], [1, "sqrt(2)", 0]])
        assert m.q is None and m.n == 3

    @pytest.mark.parametrize(
        "D, match",
        [
            ([[0, 1], [2, 0]], "not symmetric"),
            ([[0, 1, 3], [1, 0, 1], [3, 1, 0]], "triangle"),
            ([[0, 0], [0, 0]], "separates"),
            ([[1, 1], [1, 0]], "diagonal"),
            ([[0, 1], [1]], "not square"),
            ([[0, -1], [-1, 0]], "negative"),
            ([[0, 1, "sqrt(5)"], [1, 0, 1], ["sqrt(5)", 1, 0]], "triangle"),
        ],
    )
    def test_from_matrix_rejects(self, D, match):
        with pytest.raises(InvalidMetric, match=match):
            M.from_matrix(D)

    def test_from_matrix_exact_equality_in_triangle(self):
        # 2√2 = √2 + √2: equality must be accepted exactly
        M.from_matrix([[0, "sqrt(2)", "sqrt(8)"], ["sqrt(2)", 0, "sqrt(2)"],
                       ["sqrt(8)", "sqrt(2)", 0]])

    def test_from_matrix_irrational_rejected(self):
        with pytest.raises(ExactnessRequired):
            M.from_matrix([[0, sympy.pi], [sympy.pi, 0]])
        with pytest.raises(ExactnessRequired, match="square root of a rational"):
            M.from_matrix([[0, "pi"], ["pi", 0]])
        # no numerical guessing: √2 + 10⁻⁴⁰ is not √2
        with pytest.raises(ExactnessRequired):
            M.from_matrix([[0, "sqrt(2) + 1/10**40"], ["sqrt(2) + 1/10**40", 0]])
        with pytest.raises(InvalidMetric, match="negative"):
            M.from_matrix([[0, "-sqrt(2)"], ["-sqrt(2)", 0]])
        # user text is never evaluated as Python
        with pytest.raises(InvalidMetric, match="only numbers"):
            M.from_matrix([[0, "__import__('os').getcwd() and sqrt(2)"],
                           ["__import__('os').getcwd() and sqrt(2)", 0]])

    @pytest.mark.parametrize("ctor, args", [(M.line, (0,)), (M.sum_query, (2, 0)),
                                            (M.grid, (2, 2, "l7")), (M.discrete, (3, 0))])
    def test_bad_parameters(self, ctor, args):
        with pytest.raises(InvalidArgument):
            ctor(*args)
