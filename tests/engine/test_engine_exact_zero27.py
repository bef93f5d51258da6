"""An entry of Φ⁻¹b that is exactly 0 (session 27).

A run of the tampering suite with ``EXACTDP_TAMPER_EXAMPLES=20`` drew a star on 5 points with
the prior (16, 17, 11, 4, 13)/61 at t = 1/4, where x = Φ⁻¹b has x₃ = 0 exactly. Balls and
floats never decide a sign there, so ``method="ball"`` and ``"verified-float"`` refuse with
``PrecisionLimitReached`` — whose message used to say "pass the level as a rational t" to a
level that was one. It now names the exact route, and ``auto`` decides the instance.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

import exactdp.engine.core as core
from exactdp.engine import solve_nonnegative
from exactdp.errors import PrecisionLimitReached
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics import from_graph
from exactdp.testing.oracle import linear_truth

STAR = from_graph([(0, 1, 1), (0, 2, 1), (0, 3, 1), (0, 4, 1)], nodes=range(5))
B = tuple(Fraction(v, 61) for v in (16, 17, 11, 4, 13))
LEVEL = parse_level(t=Fraction(1, 4))


def test_the_instance_has_an_exact_zero_entry() -> None:
    tr = linear_truth(STAR, B, LEVEL)  # exact Fraction elimination, independent of the engine
    assert tr.exact and tr.x[3] == 0 and min(tr.x) == 0 and tr.holds


@pytest.mark.parametrize("method", ["ball", "verified-float"])
def test_balls_and_floats_refuse_and_name_the_exact_route(method: str) -> None:
    with pytest.raises(PrecisionLimitReached, match=r"exactly 0.*rational t, so method='auto' decides it exactly"):
        solve_nonnegative(STAR, LEVEL, B, method=method, max_prec=256)


def test_auto_decides_it_exactly() -> None:
    r = solve_nonnegative(STAR, LEVEL, B)
    assert r.holds and r.method == "exact" and r.x_exact is not None and r.x_exact[3] == 0
    assert r.certificate.verify()


def test_an_irrational_level_keeps_the_precision_advice(monkeypatch: pytest.MonkeyPatch) -> None:
    # at ε = 1/2 (t irrational) the advice is precision or the symbolic route; every ball
    # solve is made undecided here to reach the message (a positive prior never has an entry
    # that is 0 for every t, so no real instance is known to land there at 53 bits)
    monkeypatch.setattr(core, "_ball_backend", lambda *args: None)
    advice = "raise max_prec, pass the level as a rational t, or use method='symbolic'"
    with pytest.raises(PrecisionLimitReached, match=advice):
        solve_nonnegative(STAR, parse_level(eps="1/2"), B, method="ball", max_prec=128)
