"""The cover check's two strict inequalities, held at exact ties (session 27).

Two mutants of ``exactdp/kernel/threshold_cover.py`` made a strict inequality non-strict and
survived as open gaps ("ties of arb ball ends"): no input had reached an exact tie.

- line 133, the final Krawczyk margin ``x_i − w|u_i| − (Rr_i + grow_i·δ) > 0``: with ≥, the
  argument proves only z_i ≥ 0, and a claim "z > 0 on [a, b]" could rest on a zero of z.
  On a one-point metric every quantity is an exact dyadic (Φ0 = [1] = e^0, Φ1 = 0, P2 = 0),
  and the candidates (R, x, u) = (1, b, u) with 2w|u| = b put the margin exactly at 0.
- line 188, the perturbation lemma's hypothesis ``e·max|b| < min b·(1 − e)`` of
  ``cover_frame_ok``: e is an exact rational, so a right-hand side (e, 1 − e, 1 − e) is an
  exact tie.

On those two instances the claim itself is true (z = b on one point; e over-estimates the row
sum, so the true inequality is strict): they hold the kernel to the strict rule its proofs
state — a tie is refused. Line 133 also has a false claim at an exact tie (review 27R): with
b = 0 the kernel's own candidates are x = u = 0, so ρ̄ = δ = 0 and the margin is exactly 0 for
any n, while z ≡ 0 makes "z > 0 on [a, b]" false; the ``>=`` mutant accepts it. No verdict of
a document reaches it (``cover_frame_ok`` refuses min b ≤ 0 first), but ``arb_mean_value_check``
is public (``exactdp.threshold.krawczyk_check``). Line 188's mutant cannot accept a false claim:
e is the arb upper end of irrational powers, strictly above the true row sum, so the lemma's
strict inequality holds even at the tie (sound).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from exactdp.kernel.threshold_cover import arb_mean_value_check, cover_frame_ok, lemma_row_sum_bound
from exactdp.spaces.metrics import FiniteMetric, line, sum_query

A, B = Fraction(1, 2), Fraction(1)  # w = (B − A)/2 = 1/4: margin = x − 2w|u| − |b − x| = 1 − u/2 at x = b = 1


def _one_point(u: float) -> bool:
    return arb_mean_value_check(line(1), (Fraction(1),), A, B,
                                candidates=(np.array([[1.0]]), np.array([1.0]), np.array([u])))


def test_a_margin_exactly_zero_is_refused() -> None:
    assert _one_point(2.0) is False  # margin 1 − 2/2 = 0 exactly


@pytest.mark.parametrize(("u", "proved"), [(2.0 - 2.0**-40, True), (2.0 + 2.0**-40, False), (0.0, True)])
def test_margins_just_off_the_tie_are_decided_by_their_sign(u: float, proved: bool) -> None:
    assert _one_point(u) is proved  # margin 1 − |u|/2: 2^-41 and 1 prove, −2^-41 refuses


def test_the_mirrored_candidate_is_the_same_tie() -> None:
    assert _one_point(-2.0) is False  # only |u| enters: margin 0 again


def test_the_lemma_hypothesis_at_an_exact_tie_is_refused() -> None:
    m, t0 = line(3), Fraction(1, 8)
    e = lemma_row_sum_bound(m, t0)
    assert Fraction(1, 4) < e < Fraction(1, 4) + Fraction(1, 10**30)  # the middle row 2·(1/8), bounded above
    pieces = ((Fraction(0), Fraction(3)),)  # covers [0, ln 8]
    tie = (e, 1 - e, 1 - e)  # e·max b = e(1 − e) = min b·(1 − e)
    assert cover_frame_ok(m, tie, Fraction(0), t0, pieces) is False
    nudged = (e + Fraction(1, 10**60), 1 - e, 1 - e)  # the strict side of the tie
    assert cover_frame_ok(m, nudged, Fraction(0), t0, pieces) is True
    assert cover_frame_ok(m, (e - Fraction(1, 10**60), 1 - e, 1 - e), Fraction(0), t0, pieces) is False


@pytest.mark.parametrize("metric", [line(1), line(2), line(3), sum_query(2, 2)], ids=lambda m: m.name)
def test_a_zero_right_hand_side_is_a_false_claim_at_an_exact_tie(metric: FiniteMetric) -> None:
    # z = Φ⁻¹·0 ≡ 0, so "z > 0 on [1, 11/10]" is false; the default candidates x = u = 0 make
    # the margin exactly 0 (ρ̄ = 0, δ = 0), which the strict test refuses
    assert arb_mean_value_check(metric, (Fraction(0),) * metric.n, Fraction(1), Fraction(11, 10)) is False
