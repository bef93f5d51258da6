"""Session 10 (issue 15, builder 15D): the kernel refines its own y_0 below 2^-80 when that
candidate cannot decide a piece or fail point, and the search's fail point bounds z_i per
entry. A genuine ``grid-threshold`` certificate whose first piece starts 10⁻²³ above
ε* = ln 2 (masked Manhattan L) was REJECTED by the session-9 kernel (2^-80 candidate) and
its fail point 10⁻²³ below ln 2 could not be certified (scalar rounding gap ≈ 10⁻¹⁶)."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest

from exactdp.algebra.algebraic import log_enclosure
from exactdp.arithmetic.rounding import dyadic_up
from exactdp.kernel import threshold_spd
from exactdp.kernel.jsonio import dumps, loads
from exactdp.kernel.threshold_grid import GridProducts, grid_fail_ok, read_grid_threshold
from exactdp.kernel.threshold_spd import SY, piece_ok
from exactdp.kernel.verify import verify_json
from exactdp.spaces.metrics.masked import grid_shape, masked_grid
from exactdp.threshold.certificates import SpdCoverCertificate
from exactdp.threshold.float_bounds import rhs_float
from exactdp.threshold.lemmas import lemma_t0
from exactdp.threshold.providers import GridProvider
from exactdp.threshold.spd_cover import lambda_for, spd_cover, spd_fail_point
from exactdp.threshold.taylor import point_bounds

#: ln 2 to 40 digits (|error| < 10⁻⁴⁰); ε* of the L below is exactly ln 2
LN2 = F(6931471805599453094172321214581765680755, 10**40)
D = F(1, 10**23)


@pytest.fixture(scope="module")
def setup():
    mask = ["".join("1" if (x < 6 or y >= 6) else "0" for x in range(12)) for y in range(12)]
    m = masked_grid(12, 12, "manhattan", mask=mask)
    return m, GridProvider(m), tuple(F(1) for _ in range(m.n)), GridProducts(grid_shape(m))


@pytest.fixture(scope="module")
def cert(setup):
    m, prov, rhs, _ = setup
    fail = spd_fail_point(m, rhs, LN2 - D, prov)
    t = lemma_t0(m, rhs)
    e_end = dyadic_up(log_enclosure(t, t, F(-1))[1], 20)
    pieces, nodes = spd_cover(m, rhs, LN2 + D, e_end, D / 8, None, prov)
    return SpdCoverCertificate(m, rhs, LN2 - D, LN2 + D, fail, t, nodes, pieces)


def test_a_bracket_2e23_wide_around_ln2_verifies_from_json(cert):
    assert cert.fail is not None and cert.pieces[0][1] - cert.pieces[0][0] == D
    text = dumps(cert.to_json())
    v = verify_json(text)
    assert v.verified, v.reason
    c = read_grid_threshold(loads(text))
    assert c.eps.hi - c.eps.lo == 2 * D


def test_the_2e80_candidate_alone_cannot_decide(setup, cert, monkeypatch):
    """Without the finer levels the first piece and the fail point are rejected (session 9)."""
    m, _, rhs, op = setup
    (a, b, lam), fail = cert.pieces[0], cert.fail.grid_fail()
    assert piece_ok(op, rhs, a, b, 3, lam)
    assert grid_fail_ok(op.shape, rhs, LN2 - D, *fail, op=op)
    monkeypatch.setattr(threshold_spd, "Y_LEVELS", (SY,))
    assert not piece_ok(op, rhs, a, b, 3, lam)
    assert not grid_fail_ok(op.shape, rhs, LN2 - D, *fail, op=op)


def test_refinement_never_proves_a_false_claim(setup, cert):
    m, _, rhs, op = setup
    lam, (i, upper, flam) = cert.pieces[0][2], cert.fail.grid_fail()
    assert not piece_ok(op, rhs, LN2 - 2 * D, LN2 - D, 3, lam)  # z_i < 0 there
    assert not piece_ok(op, rhs, LN2 - D, LN2 + D, 3, lam)      # straddles ε*
    assert not grid_fail_ok(op.shape, rhs, LN2 + D, i, upper, flam, op=op)  # z > 0 there
    assert upper < 0 and not grid_fail_ok(op.shape, rhs, LN2 - D, i, upper * 4, flam, op=op)  # z_i > 4·upper
    assert not grid_fail_ok(op.shape, rhs, LN2 - D, (i + 1) % m.n, upper, flam, op=op)


@pytest.mark.parametrize("k", [16, 20, 25])
def test_fail_point_per_entry(setup, k):
    """Before: the scalar gap (≈ 10⁻¹⁶ = max_j 2^-52|y_j|) left these undecided (None)."""
    m, prov, rhs, _ = setup
    e = LN2 - F(1, 10**k)
    b, brad = rhs_float(rhs)
    y, err = point_bounds(prov, list(m.values), b, brad, e, lambda_for(prov, e, e), rhs)
    assert float(np.min(y)) < 0 < float(np.min(y)) + err  # the scalar bound cannot decide
    f = spd_fail_point(m, rhs, e, prov)
    assert f is not None and f.upper < 0 and f.verify()
    assert spd_fail_point(m, rhs, LN2 + F(1, 10**k), prov) is None
