"""Tests for exactdp.linalg.verified: every enclosure is compared with exact fmpq solutions."""

from __future__ import annotations

import math
from fractions import Fraction

import flint
import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from exactdp.errors import InvalidArgument
from exactdp.linalg import (
    FloatEnclosure,
    check_enclosure_arb,
    float_enclosure,
    verified_solve,
)

# ----------------------------------------------------------------------------- helpers


def fmpq_matrix(rows: list[list[Fraction]]) -> flint.fmpq_mat:
    n, m = len(rows), len(rows[0])
    return flint.fmpq_mat(n, m, [flint.fmpq(q.numerator, q.denominator) for r in rows for q in r])


def exact_solution(rows: list[list[Fraction]], rhs: list[Fraction]) -> list[Fraction]:
    A = fmpq_matrix(rows)
    b = fmpq_matrix([[q] for q in rhs])
    x = A.solve(b)
    return [Fraction(int(x[i, 0].p), int(x[i, 0].q)) for i in range(x.nrows())]


def enclose_rationals(rows: list[list[Fraction]]) -> tuple[np.ndarray, np.ndarray]:
    with flint.ctx.workprec(80):
        balls = [[flint.arb(flint.fmpq(q.numerator, q.denominator)) for q in r] for r in rows]
    return float_enclosure(balls)


def assert_contains(enc: FloatEnclosure, exact: list[Fraction]) -> None:
    for i, q in enumerate(exact):
        lo, hi = Fraction(float(enc.lo[i])), Fraction(float(enc.hi[i]))
        assert lo <= q <= hi, f"component {i}: {float(q)!r} not in [{enc.lo[i]!r}, {enc.hi[i]!r}]"


def toeplitz_rows(n: int, t: Fraction, step: int) -> list[list[Fraction]]:
    powers = [t**k for k in range(n + 1)]
    return [[powers[math.ceil(abs(i - j) / step)] for j in range(n)] for i in range(n)]


def to_arb_mat(rows: list[list[Fraction]], prec: int = 80) -> flint.arb_mat:
    with flint.ctx.workprec(prec):
        return flint.arb_mat(
            len(rows),
            len(rows[0]),
            [flint.arb(flint.fmpq(q.numerator, q.denominator)) for r in rows for q in r],
        )


# ----------------------------------------------------------------------------- float_enclosure


def test_float_enclosure_contains_rationals_and_is_tight() -> None:
    values = [Fraction(1, 3), Fraction(-2, 7), Fraction(10**30, 3), Fraction(1, 10**300), 0]
    with flint.ctx.workprec(100):
        balls = [flint.arb(flint.fmpq(Fraction(v).numerator, Fraction(v).denominator)) for v in values]
    mid, rad = float_enclosure(balls)
    for v, m, r in zip(values, mid, rad):
        assert abs(Fraction(float(m)) - Fraction(v)) <= Fraction(float(r))
        # tight: at most a couple of ulps
        assert r <= 4 * np.spacing(abs(m)) + 1e-320
    assert rad[-1] == 0.0 and mid[-1] == 0.0  # exact zero stays exact


def test_float_enclosure_exact_floats_have_zero_radius() -> None:
    mid, rad = float_enclosure(np.array([[flint.arb(1), flint.arb(flint.fmpq(3, 4))]], dtype=object))
    assert mid.shape == (1, 2)
    assert mid.tolist() == [[1.0, 0.75]] and rad.tolist() == [[0.0, 0.0]]


def test_float_enclosure_tiny_and_wide_balls() -> None:
    tiny = flint.arb(flint.fmpq(1, 2**1100))  # below the subnormal range
    wide = flint.arb("5 +/- 0.5")
    mid, rad = float_enclosure([tiny, wide])
    assert abs(Fraction(float(mid[0])) - Fraction(1, 2**1100)) <= Fraction(float(rad[0]))
    assert mid[1] == 5.0 and rad[1] >= 0.5


@pytest.mark.parametrize("bad", [flint.arb("nan"), flint.arb("inf"), flint.arb("1e400")])
def test_float_enclosure_rejects_nonfinite_and_huge(bad: flint.arb) -> None:
    with pytest.raises(InvalidArgument):
        float_enclosure([flint.arb(1), bad])


def test_float_enclosure_rejects_floats() -> None:
    with pytest.raises(InvalidArgument):
        float_enclosure([0.1])


@settings(max_examples=60, deadline=None)
@given(
    num=st.integers(-(10**40), 10**40),
    den=st.integers(1, 10**40),
    shift=st.integers(-1000, 1000),
)
def test_float_enclosure_property(num: int, den: int, shift: int) -> None:
    q = Fraction(num, den) * Fraction(2) ** shift
    with flint.ctx.workprec(70):
        ball = flint.arb(flint.fmpq(q.numerator, q.denominator))
    if abs(q) > Fraction(2) ** 1020:
        return
    mid, rad = float_enclosure([ball])
    assert abs(Fraction(float(mid[0])) - q) <= Fraction(float(rad[0]))


# ----------------------------------------------------------------------------- verified_solve


small_rational = st.fractions(min_value=-5, max_value=5, max_denominator=9)


@st.composite
def rational_system(draw: st.DrawFn) -> tuple[list[list[Fraction]], list[Fraction]]:
    n = draw(st.integers(1, 12))
    rows = [[draw(small_rational) for _ in range(n)] for _ in range(n)]
    rhs = [draw(small_rational) for _ in range(n)]
    return rows, rhs


@pytest.mark.parametrize("accurate", [True, False])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(system=rational_system())
@example(system=([[Fraction(1)]], [Fraction(1, 3)]))
@example(system=([[Fraction(1), Fraction(2)], [Fraction(2), Fraction(4)]], [Fraction(1), Fraction(1)]))
def test_random_rational_systems(system: tuple[list[list[Fraction]], list[Fraction]], accurate: bool) -> None:
    rows, rhs = system
    A = fmpq_matrix(rows)
    mid, rad = enclose_rationals(rows)
    bmid, brad = enclose_rationals([rhs])
    enc = verified_solve(mid, rad, bmid[0], brad[0], accurate=accurate)
    if A.det() == 0:
        # the box contains a singular matrix: certification must fail
        assert enc is None
        return
    if enc is None:
        return  # allowed for ill-conditioned matrices (checked separately below)
    assert enc.beta < 1
    assert_contains(enc, exact_solution(rows, rhs))


@settings(max_examples=40, deadline=None)
@given(rational_system())
def test_diagonally_dominant_systems_always_verify_tightly(
    system: tuple[list[list[Fraction]], list[Fraction]],
) -> None:
    rows, rhs = system
    n = len(rows)
    for i in range(n):  # make strictly diagonally dominant: well conditioned
        rows[i][i] = sum((abs(v) for v in rows[i]), Fraction(0)) + 1
    mid, rad = enclose_rationals(rows)
    bmid, brad = enclose_rationals([rhs])
    enc = verified_solve(mid, rad, bmid[0], brad[0])
    assert enc is not None
    exact = exact_solution(rows, rhs)
    assert_contains(enc, exact)
    scale = max(abs(q) for q in exact) or Fraction(1)
    assert float(max(enc.hi - enc.lo)) <= 1e-10 * float(scale) + 1e-300


@pytest.mark.parametrize(
    ("n", "t", "step"),
    [
        (50, Fraction(2, 5), 1),
        (200, Fraction(2, 5), 1),
        (200, Fraction(9, 10), 1),
        (120, Fraction(2, 5), 5),
        (200, Fraction(3, 5), 5),
        (200, Fraction(1, 7), 5),
    ],
)
@pytest.mark.parametrize("accurate", [True, False])
def test_toeplitz_power_matrices_exact(n: int, t: Fraction, step: int, accurate: bool) -> None:
    rows = toeplitz_rows(n, t, step)
    rhs = [Fraction(1)] * n
    mid, rad = enclose_rationals(rows)
    enc = verified_solve(mid, rad, np.ones(n), 0, accurate=accurate)
    assert enc is not None
    exact = exact_solution(rows, rhs)
    assert_contains(enc, exact)
    scale = float(max(abs(q) for q in exact))
    assert float(max(enc.hi - enc.lo)) <= 1e-10 * scale
    # signs that are decided agree with the exact signs, and most are decided
    signs = enc.signs()
    for i, q in enumerate(exact):
        if signs[i] != 0:
            assert signs[i] == (1 if q > 0 else -1)


def test_sum_query_matrix_has_negative_entry_certified() -> None:
    # Phi[i,j] = t^ceil(|i-j|/5) at t = 2/5 and n = 120: the exact solution of Phi z = 1
    # has negative entries (checked exactly here); the enclosure must certify one.
    n, t = 120, Fraction(2, 5)
    rows = toeplitz_rows(n, t, 5)
    exact = exact_solution(rows, [Fraction(1)] * n)
    negatives = [i for i, q in enumerate(exact) if q < 0]
    mid, rad = enclose_rationals(rows)
    enc = verified_solve(mid, rad, np.ones(n), 0)
    assert enc is not None
    certified_negative = [i for i in range(n) if enc.hi[i] < 0]
    assert certified_negative, "no negative entry certified"
    assert set(certified_negative) <= set(negatives)


def test_singular_and_nearly_singular_return_none() -> None:
    # exactly singular float matrix
    assert verified_solve([[1.0, 2.0], [2.0, 4.0]], 0, [1.0, 0.0], 0) is None
    # Hilbert matrix n = 16: condition ~1e22, no double-precision certificate possible
    n = 16
    rows = [[Fraction(1, i + j + 1) for j in range(n)] for i in range(n)]
    mid, rad = enclose_rationals(rows)
    assert verified_solve(mid, rad, np.ones(n), 0) is None
    # nonsingular midpoint, but the radius box contains a singular matrix
    A_mid = np.array([[1.0, 1.0], [1.0, 1.001]])
    assert verified_solve(A_mid, 0.0, [1.0, 2.0], 0) is not None
    assert verified_solve(A_mid, 0.01, [1.0, 2.0], 0) is None
    # zero matrix and non-finite inverse
    assert verified_solve(np.zeros((3, 3)), 0, np.ones(3), 0) is None


def test_hilbert_moderate_is_correct_when_verified() -> None:
    for n in range(2, 13):
        rows = [[Fraction(1, i + j + 1) for j in range(n)] for i in range(n)]
        mid, rad = enclose_rationals(rows)
        enc = verified_solve(mid, rad, np.ones(n), 0)
        if enc is not None:
            assert_contains(enc, exact_solution(rows, [Fraction(1)] * n))
        else:
            assert n >= 10  # up to n = 9 (cond ~1e11) verification must succeed


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(2, 8),
    seed=st.integers(0, 2**32 - 1),
    rel=st.sampled_from([1e-12, 1e-6, 1e-3]),
)
def test_radii_enlarge_the_box(n: int, seed: int, rel: float) -> None:
    rng = np.random.default_rng(seed)
    A_mid = rng.standard_normal((n, n)) + n * np.eye(n)
    b_mid = rng.standard_normal(n)
    A_rad = rel * np.abs(A_mid)
    b_rad = rel * np.abs(b_mid)
    enc = verified_solve(A_mid, A_rad, b_mid, b_rad)
    if enc is None:
        return
    enc0 = verified_solve(A_mid, 0, b_mid, 0)
    assert enc0 is not None
    assert np.all(enc.lo <= enc0.lo) and np.all(enc.hi >= enc0.hi)
    # exact solutions of perturbed systems (vertices and random points of the box) lie inside
    for k in range(6):
        theta_A = rng.choice([-1, 1], size=(n, n)) if k < 3 else rng.uniform(-1, 1, (n, n))
        theta_b = rng.choice([-1, 1], size=n) if k < 3 else rng.uniform(-1, 1, n)
        rows = [
            [
                Fraction(float(A_mid[i, j])) + Fraction(float(theta_A[i, j])) * Fraction(float(A_rad[i, j]))
                for j in range(n)
            ]
            for i in range(n)
        ]
        rhs = [Fraction(float(b_mid[i])) + Fraction(float(theta_b[i])) * Fraction(float(b_rad[i])) for i in range(n)]
        assert_contains(enc, exact_solution(rows, rhs))


def test_ignoring_radius_would_be_wrong() -> None:
    # the perturbed solution is outside the radius-free enclosure: so the radius matters
    A_mid = np.array([[2.0, 1.0], [1.0, 3.0]])
    b_mid = np.array([1.0, 2.0])
    rad = 1e-6
    enc0 = verified_solve(A_mid, 0, b_mid, 0)
    enc = verified_solve(A_mid, rad, b_mid, rad)
    assert enc0 is not None and enc is not None
    rows = [
        [Fraction(2) + Fraction(rad), Fraction(1) - Fraction(rad)],
        [Fraction(1) - Fraction(rad), Fraction(3) + Fraction(rad)],
    ]
    rhs = [Fraction(1) - Fraction(rad), Fraction(2) - Fraction(rad)]
    x = exact_solution(rows, rhs)
    assert_contains(enc, x)
    with pytest.raises(AssertionError):
        assert_contains(enc0, x)


def test_user_supplied_poor_R_never_gives_wrong_answer() -> None:
    A = np.array([[4.0, 1.0], [1.0, 3.0]])
    exact = exact_solution([[Fraction(4), Fraction(1)], [Fraction(1), Fraction(3)]], [Fraction(1), Fraction(1)])
    good = verified_solve(A, 0, [1.0, 1.0], 0, R=np.diag([0.25, 1 / 3]))
    assert good is not None  # a Jacobi preconditioner suffices here
    assert_contains(good, exact)
    assert verified_solve(A, 0, [1.0, 1.0], 0, R=np.eye(2)) is None  # ||I - A|| >= 1


def test_invalid_arguments() -> None:
    with pytest.raises(InvalidArgument):
        verified_solve(np.ones((2, 3)), 0, np.ones(2), 0)
    with pytest.raises(InvalidArgument):
        verified_solve(np.eye(2), 0, np.ones(3), 0)
    with pytest.raises(InvalidArgument):
        verified_solve(np.eye(2), -1.0, np.ones(2), 0)
    with pytest.raises(InvalidArgument):
        verified_solve(np.array([[1.0, np.nan], [0.0, 1.0]]), 0, np.ones(2), 0)
    with pytest.raises(InvalidArgument):
        verified_solve(np.eye(2), 0, np.ones(2), 0, refine_steps=-1)


def test_huge_and_tiny_scales() -> None:
    for scale in (2.0**-900, 2.0**-600, 2.0**600):
        A = np.array([[2.0, 1.0], [1.0, 3.0]]) * scale
        enc = verified_solve(A, 0, [1.0 * scale, 2.0 * scale], 0)
        assert enc is not None
        assert_contains(enc, [Fraction(1, 5), Fraction(3, 5)])
    # overflowing intermediate values: refuse rather than answer wrongly
    A = np.array([[2.0, 1.0], [1.0, 3.0]]) * 2.0**-1060
    enc = verified_solve(A, 0, [1.0, 1.0], 0)
    assert enc is None or enc.contains(
        exact_solution([[Fraction(float(v)) for v in r] for r in A], [Fraction(1), Fraction(1)])
    )


# ----------------------------------------------------------------------------- check_enclosure_arb


def _solve_with_R(rows: list[list[Fraction]]) -> tuple[FloatEnclosure, np.ndarray]:
    mid, rad = enclose_rationals(rows)
    R = np.linalg.inv(mid)
    enc = verified_solve(mid, rad, np.ones(len(rows)), 0, R=R)
    assert enc is not None
    return enc, R


@pytest.mark.parametrize(("n", "t", "step"), [(40, Fraction(2, 5), 1), (60, Fraction(3, 5), 5)])
@pytest.mark.parametrize("prec", [53, 64])
def test_check_enclosure_arb_accepts_verified_results(n: int, t: Fraction, step: int, prec: int) -> None:
    rows = toeplitz_rows(n, t, step)
    enc, R = _solve_with_R(rows)
    A = to_arb_mat(rows, 80)  # data balls tighter than the float radii given to verified_solve
    b = flint.arb_mat(n, 1, [1] * n)
    assert check_enclosure_arb(A, b, R, enc, prec)
    assert check_enclosure_arb(A, b.transpose(), R, enc, prec)  # a row vector is accepted


def test_check_enclosure_arb_rejects_wrong_enclosures() -> None:
    n = 30
    rows = toeplitz_rows(n, Fraction(2, 5), 5)
    exact = exact_solution(rows, [Fraction(1)] * n)
    enc, R = _solve_with_R(rows)
    A = to_arb_mat(rows)
    b = flint.arb_mat(n, 1, [1] * n)
    assert check_enclosure_arb(A, b, R, enc, 64)
    for i in (0, 7, n - 1):
        # an enclosure that excludes the exact x_i (entirely above it)
        above = float(np.nextafter(float(exact[i]), np.inf))
        while Fraction(above) <= exact[i]:
            above = float(np.nextafter(above, np.inf))
        lo, hi = enc.lo.copy(), enc.hi.copy()
        lo[i], hi[i] = above, max(above, float(hi[i]))
        wrong = FloatEnclosure(lo, hi, enc.beta, enc.x_approx, enc.method)
        assert not wrong.contains(exact)
        assert not check_enclosure_arb(A, b, R, wrong, 64)
    # shrinking every component to the float approximation is not provable either
    point = FloatEnclosure(enc.x_approx, enc.x_approx, enc.beta, enc.x_approx, enc.method)
    assert not check_enclosure_arb(A, b, R, point, 64)
    # a useless R cannot certify anything
    assert not check_enclosure_arb(A, b, np.eye(n) * 1e-3, enc, 64)


def test_check_enclosure_arb_with_ball_data() -> None:
    # irrational t = exp(-1/2): the matrix is only known as balls; verified_solve gets
    # float midpoint/radius enclosures of them, check_enclosure_arb gets the balls.
    n = 50
    with flint.ctx.workprec(64):
        t = flint.arb(flint.fmpq(-1, 2)).exp()
        powers = [t**k for k in range(n)]
        balls = [[powers[abs(i - j)] for j in range(n)] for i in range(n)]
        A = flint.arb_mat(n, n, [v for r in balls for v in r])
    mid, rad = float_enclosure(balls)
    assert np.all(rad[~np.eye(n, dtype=bool)] > 0)  # t^0 = 1 is exact
    R = np.linalg.inv(mid)
    enc = verified_solve(mid, rad, np.ones(n), 0, R=R)
    assert enc is not None
    b = flint.arb_mat(n, 1, [1] * n)
    assert check_enclosure_arb(A, b, R, enc, 64)
    # and the arb solution lies inside the float box
    with flint.ctx.workprec(128):
        x = A.solve(b)
        for i in range(n):
            assert x[i, 0] > flint.arb(float(enc.lo[i])) and x[i, 0] < flint.arb(float(enc.hi[i]))


def test_check_enclosure_arb_argument_errors() -> None:
    enc = verified_solve(np.eye(2), 0, np.ones(2), 0)
    assert enc is not None
    with pytest.raises(InvalidArgument):
        check_enclosure_arb(flint.arb_mat(2, 3), flint.arb_mat(2, 1), np.eye(2), enc)
    with pytest.raises(InvalidArgument):
        check_enclosure_arb(flint.arb_mat(2, 2), flint.arb_mat(3, 1), np.eye(2), enc)
    with pytest.raises(InvalidArgument):
        check_enclosure_arb(flint.arb_mat(2, 2), flint.arb_mat(2, 1), np.eye(3), enc)


def test_accurate_residuals_give_much_tighter_boxes() -> None:
    # exactly representable data (t = 1/2): with accurate residuals and the correction
    # term the box is a few ulps wide; plain float residuals leave ~n u |R||A||x|.
    n = 150
    rows = toeplitz_rows(n, Fraction(1, 2), 1)
    mid, rad = enclose_rationals(rows)
    assert not np.any(rad)  # powers of 1/2 are floats
    exact = exact_solution(rows, [Fraction(1)] * n)
    acc = verified_solve(mid, 0, np.ones(n), 0)
    plain = verified_solve(mid, 0, np.ones(n), 0, accurate=False)
    assert acc is not None and plain is not None
    assert_contains(acc, exact)
    assert_contains(plain, exact)
    for i, q in enumerate(exact):
        # at most 4 ulps of the exact value on each side
        ulp = Fraction(float(np.spacing(abs(float(q)))))
        assert Fraction(float(acc.hi[i])) - Fraction(float(acc.lo[i])) <= 8 * ulp
    assert float(np.max(acc.hi - acc.lo)) * 50 < float(np.max(plain.hi - plain.lo))


def test_accurate_residual_bound_exact() -> None:
    from exactdp.linalg._accurate import accurate_residual

    rng = np.random.default_rng(7)
    for trial in range(12):
        n = int(rng.integers(1, 30))
        A = rng.standard_normal((n, n))
        if trial % 3 == 1:  # wide exponent range, including the "unsafe" tiny/huge entries
            A = A * 2.0 ** rng.integers(-700, 600, (n, n))
        x = rng.standard_normal(n) * (2.0 ** rng.integers(-600, 500, n) if trial % 3 == 2 else 1)
        x[0] = 0.0
        b = A @ x  # massive cancellation in b - A x
        c, err = accurate_residual(A, b, x)
        for i in range(n):
            exact = Fraction(float(b[i])) - sum(
                (Fraction(float(A[i, j])) * Fraction(float(x[j])) for j in range(n)), Fraction(0)
            )
            assert abs(exact - Fraction(float(c[i]))) <= Fraction(float(err[i]))


def test_only_b_radius_is_accounted() -> None:
    A_mid = np.array([[4.0, 1.0, 0.0], [1.0, 4.0, 1.0], [0.0, 1.0, 4.0]])
    b_mid = np.array([1.0, 2.0, 3.0])
    rad = 1e-5
    enc0 = verified_solve(A_mid, 0, b_mid, 0)
    enc = verified_solve(A_mid, 0, b_mid, rad)
    assert enc0 is not None and enc is not None
    rows = [[Fraction(float(v)) for v in r] for r in A_mid]
    for signs in ([1, 1, 1], [1, -1, 1], [-1, -1, -1], [-1, 1, -1]):
        rhs = [Fraction(float(b_mid[i])) + signs[i] * Fraction(rad) for i in range(3)]
        x = exact_solution(rows, rhs)
        assert_contains(enc, x)
        assert not enc0.contains(x)


def _exact_rows(M: np.ndarray) -> list[list[Fraction]]:
    return [[Fraction(float(v)) for v in r] for r in M]


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(1, 9),
    seed=st.integers(0, 2**32 - 1),
    noise=st.sampled_from([0.0, 1e-14, 1e-8, 1e-3]),
    rad=st.sampled_from([0.0, 1e-12, 1e-4]),
)
def test_defect_row_bound_exact(n: int, seed: int, noise: float, rad: float) -> None:
    # g >= |I - R A| 1 for every A in the box, checked exactly at the box vertices
    from exactdp.linalg.verified import ProductBounds, _defect_row_bound

    rng = np.random.default_rng(seed)
    A = rng.standard_normal((n, n)) * 2.0 ** rng.integers(-3, 4, (n, n))
    R = np.linalg.inv(A) * (1 + noise * rng.standard_normal((n, n)))
    Arad = rad * np.abs(A)
    g = _defect_row_bound(A, Arad, R, ProductBounds(n))
    if g is None:
        return
    Rq = _exact_rows(R)
    for vertex in range(3):
        s = rng.choice([-1, 1], (n, n)) if vertex else np.zeros((n, n), dtype=int)
        Aq = [
            [Fraction(float(A[i, j])) + int(s[i, j]) * Fraction(float(Arad[i, j])) for j in range(n)] for i in range(n)
        ]
        for i in range(n):
            row = Fraction(0)
            for j in range(n):
                rij = sum((Rq[i][k] * Aq[k][j] for k in range(n)), Fraction(0))
                row += abs((1 if i == j else 0) - rij)
            assert row <= Fraction(float(g[i]))


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(1, 9),
    seed=st.integers(0, 2**32 - 1),
    accurate=st.booleans(),
    rad=st.sampled_from([0.0, 1e-13, 1e-6]),
)
def test_residual_bound_exact(n: int, seed: int, accurate: bool, rad: float) -> None:
    # |b - A (x + d)| <= r_up exactly, at the midpoint data and at box vertices
    from exactdp.linalg.verified import ProductBounds, _residual_bound

    rng = np.random.default_rng(seed)
    A = rng.standard_normal((n, n)) + 2 * np.eye(n)
    b = rng.standard_normal(n)
    R = np.linalg.inv(A)
    x = np.linalg.solve(A, b)
    Arad, brad = rad * np.abs(A), rad * np.abs(b)
    out = _residual_bound(A, Arad, b, brad, x, R, ProductBounds(n), accurate)
    assert out is not None
    d, r_up = out
    if not accurate:
        assert not np.any(d)
    y = [Fraction(float(x[j])) + Fraction(float(d[j])) for j in range(n)]
    for vertex in range(3):
        sA = rng.choice([-1, 1], (n, n)) if vertex else np.zeros((n, n), dtype=int)
        sb = rng.choice([-1, 1], n) if vertex else np.zeros(n, dtype=int)
        for i in range(n):
            bi = Fraction(float(b[i])) + int(sb[i]) * Fraction(float(brad[i]))
            ri = bi - sum(
                ((Fraction(float(A[i, j])) + int(sA[i, j]) * Fraction(float(Arad[i, j]))) * y[j] for j in range(n)),
                Fraction(0),
            )
            assert abs(ri) <= Fraction(float(r_up[i]))


def test_float_enclosure_accepts_arb_mat() -> None:
    with flint.ctx.workprec(64):
        M = flint.arb_mat([[flint.fmpq(1, 3), 2], [flint.arb("0.1"), -1]])
    mid, rad = float_enclosure(M)
    assert mid.shape == (2, 2)
    for i, j, q in ((0, 0, Fraction(1, 3)), (0, 1, Fraction(2)), (1, 0, Fraction(1, 10))):
        assert abs(Fraction(float(mid[i, j])) - q) <= Fraction(float(rad[i, j]))
    assert rad[0, 1] == 0.0 and rad[1, 1] == 0.0


def test_radius_shapes() -> None:
    with pytest.raises(InvalidArgument):
        verified_solve(np.eye(3), np.zeros(3), np.ones(3), 0)  # ambiguous row/column radii
    with pytest.raises(InvalidArgument):
        verified_solve(np.eye(3), 0, np.ones(3), np.zeros((3, 3)))
    enc = verified_solve(np.eye(3), None, np.ones(3), None)
    assert enc is not None and enc.contains([1, 1, 1])


def test_enclosure_is_read_only_and_round_trips() -> None:
    enc = verified_solve([[3.0, 1.0], [1.0, 2.0]], 1e-9, [1.0, 0.1], 1e-12)
    assert enc is not None
    with pytest.raises(ValueError):
        enc.lo[0] = -1e300
    back = FloatEnclosure.from_dict(enc.to_dict())
    assert np.array_equal(back.lo, enc.lo) and np.array_equal(back.hi, enc.hi)
    assert back.beta == enc.beta and np.array_equal(back.x_approx, enc.x_approx)
    with pytest.raises(InvalidArgument):
        FloatEnclosure.from_dict({"lo": ["zz"]})


def test_inexact_input_conversions_are_refused() -> None:
    big = 2**60 + 1  # not a float64
    with pytest.raises(InvalidArgument):
        verified_solve([[big, 0], [0, 1]], 0, [1, 1], 0)
    with pytest.raises(InvalidArgument):
        verified_solve([[Fraction(1, 3), 0], [0, 1]], 0, [1, 1], 0)
    # exact integers and float32 data are fine
    enc = verified_solve(np.array([[2, 1], [1, 3]]), 0, np.array([1, 2], dtype=np.float32), 0)
    assert enc is not None and enc.contains([Fraction(1, 5), Fraction(3, 5)])
