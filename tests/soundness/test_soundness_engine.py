"""Issue 11, engine and spaces: forged certificates rejected, stored claims re-checked,
correct answers verified, structure claims checked, float pre-filters sound.

Ground truth per test is written down next to it (exact rationals on 2- to 4-point
instances, or the closed forms noted).
"""

import dataclasses
import math
import subprocess
import sys
from fractions import Fraction as F

import numpy as np
import pytest

from exactdp.algebra.symbolic import solve_symbolic
from exactdp.arithmetic.interval import Enclosure
from exactdp.engine.certificates import (
    BallCertificate,
    KroneckerCertificate,
    SymbolicCertificate,
    VerifiedFloatCertificate,
)
from exactdp.engine.core import solve_nonnegative
from exactdp.errors import ExactnessRequired, InvalidArgument, InvalidMetric
from exactdp.linalg.enclosure import FloatEnclosure
from exactdp.regularity import is_regular
from exactdp.spaces.distances import Distance
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics import (
    FiniteMetric,
    GridInfo,
    discrete,
    from_graph,
    from_matrix,
    grid,
    hamming,
    line,
    sum_query,
)
from exactdp.threshold import epsilon_threshold
from exactdp.tight import tight_constraints

STAR = [[0, 1, 1, 1], [1, 0, 2, 2], [1, 2, 0, 2], [1, 2, 2, 0]]


def _star(**meta):
    return FiniteMetric("star", range(4), [Distance.rational(k) for k in range(3)],
                        np.array(STAR), **meta)


# ------------------------------------------------------------------ 1. Kronecker binding
def test_kronecker_certificate_binds_factor_questions():
    """Ground truth: on discrete(2) at t, α = (p0 − t p1, p1 − t p0)/(1 − t²); with
    p = (1/5, 4/5) and t = 1/2, α_0 < 0, so p ⊗ p is NOT regular on hamming(2, 2)."""
    m, p, t = hamming(2, 2), (F(1, 5), F(4, 5)), F(1, 2)
    level = parse_level(t=t)
    prior = tuple(a * b for a in p for b in p)
    genuine = solve_nonnegative(m, level, prior)
    assert genuine.method.startswith("kronecker") and not genuine.holds
    assert genuine.certificate.verify()
    factor = m.kronecker_factors[0]
    uniform = solve_nonnegative(factor, level, (F(1, 2), F(1, 2))).certificate
    assert uniform.holds and uniform.verify()
    # the attack: uniform-prior factor certificates for a non-regular product prior
    forged = KroneckerCertificate(metric=m, level=level, rhs=prior, factor_rhs=(p, p),
                                  factors=(uniform, uniform), holds=True)
    assert not forged.verify()
    # the factor question at another level, where p is regular (1/5 − 4/25 > 0 at t = 1/5)
    other = solve_nonnegative(factor, parse_level(t="1/5"), p).certificate
    assert other.holds and other.verify()
    assert not KroneckerCertificate(m, level, prior, (p, p), (other, other), True).verify()
    # ... or on another factor metric (distance 2 instead of 1: regular at t = 1/2)
    wide = solve_nonnegative(discrete(2, 2), level, p).certificate
    assert wide.holds and wide.verify()
    assert not KroneckerCertificate(m, level, prior, (p, p), (wide, wide), True).verify()
    # the product must really factor: the star is not line(2) ⊗ line(2)
    star = from_matrix(STAR)
    assert not dataclasses.replace(genuine.certificate, metric=star).verify()
    # and the product rhs must be the product of the factor rhs
    bad = list(prior)
    bad[0], bad[3] = bad[3], bad[0]
    assert not dataclasses.replace(genuine.certificate, rhs=tuple(bad)).verify()


# ------------------------------------------------------------------ 2. symbolic binding
def test_symbolic_certificate_checks_its_own_metric():
    """Ground truth: the star has ε* = ln 2 for tight constraints; at ε = 1/2 none exists."""
    star, level = from_matrix(STAR), parse_level(eps="1/2")
    genuine = tight_constraints(star, eps="1/2", method="symbolic")
    assert not genuine.exists and genuine.certificate.verify()
    other = solve_symbolic(line(4))  # z > 0 on line(4) at every level
    ones = (F(1),) * 4
    forged = SymbolicCertificate(star, level, ones, other, holds=True, witness=None, precision=64)
    assert not forged.verify()
    # the genuine solution bound to another right-hand side
    sol = genuine.certificate.solution
    assert not SymbolicCertificate(star, level, (F(1, 4),) * 4, sol, False,
                                   genuine.certificate.witness, 64).verify()


# ------------------------------------------------------------------ 3. ball enclosure
def test_ball_certificate_checks_the_stored_enclosure():
    res = solve_nonnegative(sum_query(4, 2), parse_level(eps="1/2"), method="ball")
    cert = res.certificate
    assert isinstance(cert, BallCertificate) and cert.verify()
    shifted = tuple(Enclosure(e.lo + 1, e.hi + 1) for e in cert.enclosure)
    assert not dataclasses.replace(cert, enclosure=shifted).verify()
    # a wider enclosure is still a true claim and may verify
    wider = tuple(Enclosure(e.lo - F(1, 10**6), e.hi + F(1, 10**6)) for e in cert.enclosure)
    assert dataclasses.replace(cert, enclosure=wider).verify() in (True, False)
    # a verdict that does not follow from the stored enclosure is refused
    if cert.holds:
        lowered = (Enclosure(-cert.enclosure[0].hi, cert.enclosure[0].hi),) + cert.enclosure[1:]
        assert not dataclasses.replace(cert, enclosure=lowered).verify()
    # malformed data: never raises
    assert not dataclasses.replace(cert, enclosure=cert.enclosure[:-1]).verify()
    assert not dataclasses.replace(cert, precision="64").verify()


# ------------------------------------------------------------------ 4. verified float precision
def test_zero_entry_prior_at_large_eps_verifies():
    """Ground truth: on line(3), Φ⁻¹ is tridiagonal, so α = Φ⁻¹e_0 has α_1 < 0 and α_2 = 0."""
    r = is_regular(line(3), [1, 0, 0], eps=16)
    cert = r.certificate
    assert not r.regular
    assert cert.verify()
    if isinstance(cert, VerifiedFloatCertificate):
        # an enclosure that excludes the true α_2 = 0 is refused at every precision
        lo = cert.enclosure.lo.copy()
        lo[2] = 1e-35
        enc = FloatEnclosure(lo, np.maximum(cert.enclosure.hi, lo), cert.enclosure.beta,
                             cert.enclosure.x_approx, cert.enclosure.method)
        assert not dataclasses.replace(cert, enclosure=enc).verify()


# ------------------------------------------------------------------ 5. specific errors
def test_symbolic_irrational_level_values():
    m = line(3)
    r = tight_constraints(m, eps=1, method="symbolic")
    assert r.exists and len(r.z) == 3 and all(isinstance(e, Enclosure) for e in r.z)
    assert all(e.lo > 0 for e in r.z_enclosure)
    with pytest.raises(ExactnessRequired):
        _ = r.z_exact
    a = is_regular(m, "uniform", eps=1, method="symbolic")
    assert a.alpha is not None and all(isinstance(e, Enclosure) for e in a.alpha)
    assert all(e.lo <= e.hi for e in a.alpha)


@pytest.mark.parametrize("call", [
    lambda: tight_constraints(None, eps=1),
    lambda: from_matrix(None),
    lambda: from_graph(None),
    lambda: from_graph([([1], 2)]),
])
def test_bad_metric_input_is_invalid_metric(call):
    with pytest.raises(InvalidMetric):
        call()


def test_max_prec_is_checked_eagerly():
    for fn in (lambda: tight_constraints(line(3), eps=1, max_prec="a"),
               lambda: is_regular(line(3), "uniform", eps=1, max_prec="a"),
               lambda: tight_constraints(line(3), eps=1, method="float", max_prec="a")):
        with pytest.raises(InvalidArgument, match="max_prec"):
            fn()


@pytest.mark.parametrize("prior", ["product:", "product:a,b", "product:1/3"])
def test_cli_bad_product_prior_exits_3(prior):
    out = subprocess.run([sys.executable, "-m", "exactdp", "regular", "hamming", "--values", "2",
                          "--individuals", "2", "--eps", "1", "--prior", prior],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 3
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1


# ------------------------------------------------------------------ 6. structure claims
def test_false_structure_claims_are_refused_at_construction():
    with pytest.raises(InvalidMetric, match="kronecker_factors"):
        _star(kronecker_factors=(line(2), line(2)))
    with pytest.raises(InvalidMetric, match="grid_info"):
        _star(grid_info=GridInfo(2, 2, "manhattan", F(1)))
    with pytest.raises(InvalidMetric, match="toeplitz"):
        _star(toeplitz=True)
    g = grid(3, 2, "euclidean")
    with pytest.raises(InvalidMetric, match="grid_info"):
        FiniteMetric("g", g.points, g.values, g.index, grid_info=GridInfo(3, 2, "chebyshev", F(1)))
    with pytest.raises(InvalidMetric, match="grid_info"):
        FiniteMetric("g", g.points, g.values, g.index, grid_info=GridInfo(2, 3, "euclidean", F(1)))
    # privacy checked on the edges only: the star's leaves are not joined through edges
    with pytest.raises(InvalidMetric, match="graph_edges"):
        _star(graph_edges=((0, 1), (0, 2)))
    with pytest.raises(InvalidMetric, match="graph_edges"):
        _star(graph_edges=((0, 1), (0, 2), (0, 3), (1, 1)))
    assert _star(graph_edges=((0, 1), (0, 2), (0, 3))).graph_edges == ((0, 1), (0, 2), (0, 3))
    # true claims are accepted, built directly (an independent check of the library's own)
    for m in (hamming(3, 2), grid(3, 2, "manhattan", "1/2"), grid(3, 3), grid(3, 3, "chebyshev"),
              line(5), sum_query(3, 2), from_graph([("a", "b", 2), ("b", "c"), ("a", "c", 5)])):
        again = FiniteMetric(m.name, m.points, m.values, m.index, toeplitz=m.toeplitz,
                             kronecker_factors=m.kronecker_factors, grid_info=m.grid,
                             graph_edges=m.graph_edges)
        assert again.kronecker_factors == m.kronecker_factors and again.grid == m.grid


def test_structure_is_read_only():
    m = line(3)
    for attr, value in (("kronecker_factors", (line(1), line(3))), ("toeplitz", False),
                        ("grid", GridInfo(3, 1, "manhattan", F(1))), ("values", ())):
        with pytest.raises(AttributeError):
            setattr(m, attr, value)
    assert m.toeplitz and m.kronecker_factors is None


def test_star_threshold_is_ln2_and_false_metadata_cannot_give_zero():
    """Ground truth: the star's tight-constraints threshold is ε* = ln 2 (true, not 0)."""
    with pytest.raises(InvalidMetric):
        epsilon_threshold(_star(kronecker_factors=(line(2), line(2))))
    res = epsilon_threshold(_star())
    assert float(res.eps_lower) <= math.log(2) <= float(res.eps_upper)
    assert float(res.eps_lower) > 0.5


# ------------------------------------------------------------------ 7. float pre-filters
def test_triangle_prefilter_huge_and_tiny_distances():
    big, tiny = 10**400, F(1, 10**400)
    assert from_matrix([[0, big], [big, 0]]).n == 2
    ok = [[0, big, 2 * big], [big, 0, big], [2 * big, big, 0]]
    assert from_matrix(ok).distance(0, 2).coef == 2 * big
    with pytest.raises(InvalidMetric, match="triangle"):
        from_matrix([[0, big, 2 * big + 1], [big, 0, big], [2 * big + 1, big, 0]])
    assert from_matrix([[0, tiny, 2 * tiny], [tiny, 0, tiny], [2 * tiny, tiny, 0]]).n == 3
    with pytest.raises(InvalidMetric, match="triangle"):  # every float bound underflows to 0
        from_matrix([[0, tiny, 2 * tiny + tiny / 10**9], [tiny, 0, tiny],
                     [2 * tiny + tiny / 10**9, tiny, 0]])
    # mixed scales: 1 > 10^-400 + 10^-400 although the floats of the small ones are 0
    with pytest.raises(InvalidMetric, match="triangle"):
        from_matrix([[0, tiny, 1], [tiny, 0, tiny], [1, tiny, 0]])
    # subnormal-sized rationals and an overflowing irrational distance
    sub = F(1, 2**1070)
    with pytest.raises(InvalidMetric, match="triangle"):
        from_matrix([[0, sub, 3 * sub], [sub, 0, sub], [3 * sub, sub, 0]])
    root = f"sqrt({10**801})"
    m = from_matrix([[0, root, 1], [root, 0, root], [1, root, 0]])
    assert m.distance(0, 1).float_bounds()[1] == math.inf
    with pytest.raises(InvalidMetric, match="triangle"):
        from_matrix([[0, 1, root], [1, 0, 1], [root, 1, 0]])
