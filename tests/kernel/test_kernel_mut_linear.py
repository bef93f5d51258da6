"""Kernel checks of the linear system Φx = b on the instances the mutation run found missing:
a singular Φ at a legal level, enclosures edited by less than the Krawczyk radius, exact zeros
in the witness and sign checks, and evidence of the wrong shape built in memory.

Ground truth is decided here with exact Fractions (no exactdp solver): a claim "no solution
x ≥ 0" is false when a stated x ≥ 0 satisfies Φx = b exactly.

The singular instance is the graph metric of K₃,₃ (distance 1 across the sides, 2 within a
side): on the vectors constant on each side Φ(s) acts as [[1+2s², 3s], [3s, 1+2s²]], with
determinant (1 − s²)(1 − 4s²), so det Φ(1/2) = 0 (ε = ln 2 is a legal level).
"""

from __future__ import annotations

import dataclasses
import json
import types
from fractions import Fraction as F

import flint
import numpy as np
import pytest

from exactdp.arithmetic.interval import Enclosure
from exactdp.engine.documents import linear_question, write_linear
from exactdp.errors import InvalidArgument
from exactdp.kernel.linear import (
    LinearClaim,
    check_linear,
    identity_holds,
    nonsingular_exact,
    residual_enclosure_arb,
)
from exactdp.kernel.linear_json import MAX_DEPTH, read_linear
from exactdp.kernel.question import Property
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics import from_matrix, line

HALF = parse_level(t="1/2")


def _k33(scale: int = 1):
    return from_matrix([[0 if i == j else scale * (2 if (i < 3) == (j < 3) else 1)
                         for j in range(6)] for i in range(6)])


def _phi(metric, s: F) -> list[list[F]]:
    """Φ(s) in exact Fractions, from the metric's distances (independent of the kernel)."""
    n = metric.n
    return [[s ** int(metric.distance(i, j).coef) for j in range(n)] for i in range(n)]


def _times(A: list[list[F]], x) -> list[F]:
    return [sum((a * v for a, v in zip(row, x)), F(0)) for row in A]


def _det(A: list[list[F]]) -> F:
    A = [row[:] for row in A]
    n, det = len(A), F(1)
    for c in range(n):
        p = next((r for r in range(c, n) if A[r][c] != 0), None)
        if p is None:
            return F(0)
        if p != c:
            A[c], A[p], det = A[p], A[c], -det
        det *= A[c][c]
        for r in range(c + 1, n):
            f = A[r][c] / A[c][c]
            A[r] = [a - f * b for a, b in zip(A[r], A[c])]
    return det


# ---------------------------------------------------------------- a singular Φ at a legal level
def test_nonsingularity_is_decided_exactly_on_a_singular_phi():
    k33 = _k33()
    for s in (F(1, 2), F(1, 3), F(2, 5), F(1, 4611686018427387847)):
        assert nonsingular_exact(k33, s) is (_det(_phi(k33, s)) != 0), s
    assert _det(_phi(k33, F(1, 2))) == 0
    assert nonsingular_exact(line(3), F(1, 2)) and not nonsingular_exact(line(3), F(1))


def test_exact_solution_fails_claim_on_a_singular_phi_is_rejected():
    k33, ones = _k33(), (F(1),) * 6
    third = (F(1, 3),) * 6  # Φ(1/2)·(1/3) = 1: a solution x ≥ 0 exists, "fails" is false
    assert _times(_phi(k33, F(1, 2)), third) == list(ones)
    bad = (F(5, 6),) * 3 + (F(-1, 6),) * 3  # another solution (kernel vector (1,1,1,-1,-1,-1))
    assert _times(_phi(k33, F(1, 2)), bad) == list(ones)
    assert check_linear(LinearClaim("exact-solution", k33, HALF, ones, True, {"x": third}))
    assert not check_linear(LinearClaim("exact-solution", k33, HALF, ones, False, {"x": bad}))


# N(s)/D(s) = Φ(s)⁻¹b on K₃,₃ for b = (4, 1, 1, 2, 2, 2) = Φ(1/2)·(4, 0, …, 0) (sympy, cancelled):
# at s = 1/2 it is (10/3, −2/3, −2/3, 2/3, 2/3, 2/3) — a solution with a negative entry, while
# (4, 0, 0, 0, 0, 0) ≥ 0 solves the same singular system.
K33_B = (F(4), F(1), F(1), F(2), F(2), F(2))
K33_NUMS = ((-2, -4), (4, -1), (4, -1), (2, -2), (2, -2), (2, -2))
K33_DEN = (2, 1, -2, -1)


def _in_s_squared(coeffs: tuple[int, ...]) -> tuple[int, ...]:
    """p(u) → p(s²), descending coefficients."""
    out: list[int] = []
    for c in coeffs:
        out += [c, 0]
    return tuple(out[:-1])


@pytest.mark.parametrize("irrational", [False, True])
def test_symbolic_fails_claim_on_a_singular_phi_is_rejected(irrational):
    """Rational s = 1/2 (exact rank), and s = 2^{-1/2} on K₃,₃ with doubled distances (Φ(s) is
    the same rational matrix, s irrational: nonsingularity must be proved in balls and cannot)."""
    x_pos = (F(4),) + (F(0),) * 5
    assert _times(_phi(_k33(), F(1, 2)), x_pos) == list(K33_B)  # the claim "fails" is false
    if irrational:
        metric, level = _k33(2), parse_level(eps="log(2)/2")
        nums, den = tuple(_in_s_squared(p) for p in K33_NUMS), _in_s_squared(K33_DEN)
        assert level.s_rational(metric.q) is None
    else:
        metric, level, nums, den = _k33(), HALF, K33_NUMS, K33_DEN
    ev = {"numerators": nums, "denominator": den, "precision": 64, "witness": 1}
    claim = LinearClaim("symbolic", metric, level, K33_B, False, ev)
    assert not check_linear(claim)
    # the same identity and signs on a nonsingular instance are accepted: only Φ's
    # singularity is what rejects the claim above
    regular = LinearClaim("symbolic", line(2), level, (F(1), F(-1)), False,
                          {"numerators": ((1,), (-1,)),
                           "denominator": (-1, 1) if not irrational else (-1, 0, 1),
                           "precision": 64, "witness": 1})
    if irrational:  # line(2) with distance 2: x = (1, -1)/(1 - s²)
        regular = dataclasses.replace(regular, metric=from_matrix([[0, 2], [2, 0]]))
    assert check_linear(regular)


def _product(a, b):
    """The sum metric on a × b, row-major (what kronecker_claim_error checks)."""
    return from_matrix([[a.distance(i // b.n, j // b.n).coef + b.distance(i % b.n, j % b.n).coef
                         for j in range(a.n * b.n)] for i in range(a.n * b.n)])


def test_kronecker_fails_needs_every_factor_nonsingular():
    """A "fails" product claim with a singular factor is not proved (the ⇒ direction of
    proofs/kronecker_split.py assumes every Φ_k nonsingular); the same claim with a
    nonsingular factor in its place is."""
    e1, e2 = (F(1), F(0)), (F(1), F(1))
    fails = LinearClaim("exact-solution", line(2), HALF, e1, False, {"x": (F(4, 3), F(-2, 3))})
    assert _times(_phi(line(2), F(1, 2)), (F(4, 3), F(-2, 3))) == list(e1)
    for first, x in ((_k33(), (F(1, 3),) * 6), (line(2), (F(2, 3), F(2, 3)))):
        ones = (F(1),) * first.n
        assert _times(_phi(first, F(1, 2)), x) == list(ones)
        holds = LinearClaim("exact-solution", first, HALF, ones, True, {"x": x})
        assert check_linear(holds) and check_linear(fails)
        claim = LinearClaim("kronecker", _product(first, line(2)), HALF,
                            tuple(a * b for a in ones for b in e1), False,
                            {"factors": (holds, fails)})
        assert check_linear(claim) is (first.n == 2)
    assert e2


# ---------------------------------------------------------------- enclosures within the bound
def _solve(A: list[list[F]], b) -> list[F]:
    n = len(A)
    M = [row[:] + [v] for row, v in zip(A, b)]
    for c in range(n):
        p = next(r for r in range(c, n) if M[r][c] != 0)
        M[c], M[p] = M[p], M[c]
        for r in range(n):
            if r != c:
                f = M[r][c] / M[c][c]
                M[r] = [a - f * v for a, v in zip(M[r], M[c])]
    return [M[i][n] / M[i][i] for i in range(n)]


def _scaled_inverse(A: list[list[F]], c) -> np.ndarray:
    """diag(c)·A⁻¹ as floats: a deliberately poor approximate inverse (E = I − diag(c))."""
    n = len(A)
    cols = [_solve(A, [F(int(i == j)) for i in range(n)]) for j in range(n)]
    return np.array([[float(c[i] * cols[j][i]) for j in range(n)] for i in range(n)])


@pytest.mark.parametrize("k", [0, 1, 2])
def test_krawczyk_bound_is_tight_enough_to_matter(k):
    """With R = diag(c)·Φ⁻¹ (c_k = 2/5, else 9/10) every term of the bound |x − m̃| ≤ |z| +
    |E|·1·‖z‖∞/(1 − β) is needed: for component k it is attained with equality, so any smaller
    bound misses the exact solution. Checked on the public bound and on a ball claim whose
    enclosure k is moved off the truth by less than that radius (the search's R offered as
    the in-memory hint): the claim is false and must be rejected."""
    metric, rhs = line(3), (F(1), F(1), F(1))
    A = _phi(metric, F(1, 2))
    x = _solve(A, rhs)
    c = [F(9, 10)] * 3
    c[k] = F(2, 5)
    R = _scaled_inverse(A, c)
    e0 = F(1, 1000)
    with flint.ctx.workprec(64):
        mid = [flint.arb(float(v + e0)) for v in x]  # a centre off by ~e0 in every component
        balls = residual_enclosure_arb(
            flint.arb_mat([[flint.arb(v.numerator) / v.denominator for v in row] for row in A]),
            flint.arb_mat([[flint.arb(v.numerator) / v.denominator] for v in rhs]),
            flint.arb_mat(3, 3, [flint.arb(float(v)) for v in R.ravel()]), mid, 64)
    assert balls is not None
    for ball, v in zip(balls, x):
        assert ball.contains(flint.arb(v.numerator) / v.denominator)
    tau = e0 / 1000
    enc = tuple(Enclosure(v + tau, v + 2 * e0 - tau) if i == k else Enclosure(v - 3 * e0, v + 5 * e0)
                for i, v in enumerate(x))
    forged = LinearClaim("ball", metric, HALF, rhs, True,
                         {"enclosure": enc, "witness": None, "precision": 64, "R": R})
    assert not (enc[k].lo <= x[k] <= enc[k].hi)
    assert not check_linear(forged)
    wide = tuple(Enclosure(v - 3 * e0, v + 5 * e0) for v in x)  # true: accepted
    assert check_linear(dataclasses.replace(forged, evidence={**forged.evidence, "enclosure": wide}))


# ---------------------------------------------------------------- exact zeros
# line(3) at s = 1/2 with b = (1/2, 1, 1/2): the unique solution is x = (0, 1, 0) ≥ 0 (holds), so
# any "fails" claim naming witness 0 or 2 is false; Φ, b and x are dyadic, so a ball claim with
# point enclosures has an exact residual and is provable.
ZB = (F(1, 2), F(1), F(1, 2))
ZX = (F(0), F(1), F(0))


def test_a_solution_with_exact_zeros():
    assert _times(_phi(line(3), F(1, 2)), ZX) == list(ZB)
    point = tuple(Enclosure(v, v) for v in ZX)
    for prec in (2, 64):
        assert check_linear(LinearClaim("ball", line(3), HALF, ZB, True,
                                        {"enclosure": point, "witness": None, "precision": prec}))
    for w in (0, 2):
        assert not check_linear(LinearClaim("ball", line(3), HALF, ZB, False,
                                            {"enclosure": point, "witness": w, "precision": 64}))
        assert not check_linear(LinearClaim("exact-solution", line(3), HALF, ZB, False, {"x": ZX}))
    # symbolic: x(s) = (1 - 2s, 2s² - 2s + 2, 1 - 2s)/(2(1 - s²)) for b = (1/2, 1, 1/2)
    sym = {"numerators": ((-2, 1), (2, -2, 2), (-2, 1)), "denominator": (-2, 0, 2),
           "precision": 64, "witness": None}
    assert check_linear(LinearClaim("symbolic", line(3), HALF, ZB, True, sym))
    for w in (0, 2):
        assert not check_linear(LinearClaim("symbolic", line(3), HALF, ZB, False,
                                            {**sym, "witness": w}))


def test_symbolic_signs_with_a_constant_or_zero_numerator():
    """line(2), b = (1, −1): x = (1, −1)/(1 − s) — constant numerators, D(1/2) = 1 when written
    as (2, −2)/(2 − 2s); line(3), b = (1, 0, 0): x = (1, −s, 0)/(1 − s²), an identically zero
    numerator, at an irrational level. All "fails" claims true (unique solution, a negative)."""
    lv = parse_level(eps="1/2")
    for level in (HALF, lv):
        for nums, den in ((((1,), (-1,)), (-1, 1)), (((2,), (-2,)), (-2, 2))):
            ev = {"numerators": nums, "denominator": den, "precision": 64, "witness": 1}
            assert check_linear(LinearClaim("symbolic", line(2), level, (F(1), F(-1)), False, ev))
            assert not check_linear(LinearClaim("symbolic", line(2), level, (F(1), F(-1)), True,
                                                {**ev, "witness": None}))
    ev = {"numerators": ((1,), (-1, 0), (0,)), "denominator": (-1, 0, 1), "precision": 64,
          "witness": 1}
    e1 = (F(1), F(0), F(0))
    for level in (HALF, lv):
        assert check_linear(LinearClaim("symbolic", line(3), level, e1, False, ev))
        assert not check_linear(LinearClaim("symbolic", line(3), level, e1, False,
                                            {**ev, "witness": 2}))
    # coefficient lists that are not tuples of ints with a nonzero leading one: not proved
    for bad in (((1,), (0, -1, 0), (0,)), ((1,), [-1, 0], (0,)), ((1,), (-1.0, 0), (0,)),
                ((True,), (-1, 0), (0,))):
        assert not check_linear(LinearClaim("symbolic", line(3), lv, e1, False,
                                            {**ev, "numerators": bad}))


def test_enclosures_must_be_enclosures():
    """An object with lo/hi attributes that is not an Enclosure is never accepted."""
    point = tuple(Enclosure(v, v) for v in ZX)
    fake = tuple(types.SimpleNamespace(lo=v, hi=v) for v in ZX)
    ev = {"enclosure": point, "witness": None, "precision": 64}
    assert check_linear(LinearClaim("ball", line(3), HALF, ZB, True, ev))
    assert not check_linear(LinearClaim("ball", line(3), HALF, ZB, True, {**ev, "enclosure": fake}))


# ---------------------------------------------------------------- the JSON form
def test_question_property_follows_the_right_hand_side():

    def prop(rhs):
        c = LinearClaim("exact-solution", line(len(rhs)), HALF, tuple(F(v) for v in rhs), True, {})
        return linear_question(c).prop

    assert prop([1, 1, 1]) is Property.TIGHT_CONSTRAINTS
    for prior in ([F(1, 2), F(1, 2)], [1, 0], [0, 1, 0], [F(1, 3), F(2, 3), 0]):
        assert prop(prior) is Property.REGULAR, prior
    for b in ([2, 0], [F(3, 2), F(-1, 2)], [F(1, 4), F(1, 4)], [1, 1, 0], [0, 0]):
        assert prop(b) is Property.NONNEGATIVE_SOLUTION, b


def _round_trip(claim):

    return read_linear(json.loads(json.dumps(write_linear(claim))))


def test_edge_values_survive_the_json_form():
    """A zero numerator, the last index as witness and the least precision travel exactly."""
    lv = parse_level(eps="1/2")
    zero = LinearClaim("symbolic", line(3), lv, (F(1), F(0), F(0)), False,
                       {"numerators": ((1,), (-1, 0), (0,)), "denominator": (-1, 0, 1),
                        "precision": 64, "witness": 1})
    last = LinearClaim("symbolic", line(2), lv, (F(1), F(-1)), False,
                       {"numerators": ((1,), (-1,)), "denominator": (-1, 1), "precision": 64,
                        "witness": 1})
    point = LinearClaim("ball", line(3), HALF, ZB, True,
                        {"enclosure": tuple(Enclosure(v, v) for v in ZX), "witness": None,
                         "precision": 2})
    for c in (zero, last, point):
        back = _round_trip(c)
        assert (back.kind, back.rhs, back.holds, back.evidence) == (
            c.kind, c.rhs, c.holds, c.evidence)
        assert back.metric.n == c.metric.n and check_linear(back)


def test_factor_nesting_is_bounded():

    c = LinearClaim("exact-solution", line(2), HALF, (F(1), F(1)), True,
                    {"x": (F(2, 3), F(2, 3))})
    for depth in range(MAX_DEPTH + 2):
        if depth:
            c = LinearClaim("kronecker", line(2), HALF, c.rhs, True, {"factors": (c,)})
        doc = write_linear(c)
        if depth <= MAX_DEPTH:
            assert check_linear(read_linear(doc)), depth
        else:
            with pytest.raises(InvalidArgument, match="nested"):
                read_linear(doc)


def test_identity_needs_one_numerator_and_one_rhs_entry_per_point():

    one, two = flint.fmpz_poly([1]), flint.fmpz_poly([1, 1])  # z = 1/(1 + s) on line(2)
    assert identity_holds(line(2), [one, one], two, [F(1), F(1)])
    assert not identity_holds(line(2), [one, one, one], two, [F(1), F(1)])
    assert not identity_holds(line(2), [one, one], two, [F(1), F(1), F(1)])


def test_non_integer_coefficients_are_malformed():
    """Symbolic numerators and denominators travel as integers; "1/2" is refused, not
    truncated."""
    claim = LinearClaim("symbolic", line(2), HALF, (F(1), F(-1)), False,
                        {"numerators": ((2,), (-2,)), "denominator": (-2, 2), "precision": 64,
                         "witness": 1})
    doc = json.loads(json.dumps(write_linear(claim)))
    assert check_linear(read_linear(doc))
    for path, value in ((("numerators", 0), ["5/2"]), (("denominator",), ["-2", "5/2"])):
        bad = json.loads(json.dumps(doc))
        target = bad["evidence"]
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        with pytest.raises(InvalidArgument):
            read_linear(bad)
