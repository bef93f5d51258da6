"""Regression tests for review 17b (/work/notes/review17b.md, commit b29e3d8); each failed
before its fix."""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest

from exactdp.arithmetic.interval import Enclosure
from exactdp.cli.app import main as cli_main
from exactdp.errors import (
    CertificateInvalid,
    ExactDPError,
    InstanceTooLarge,
    InvalidArgument,
    InvalidOrder,
    InvalidScale,
    PrecisionLimitReached,
)
from exactdp.pufferfish import adult as adult_mod
from exactdp.pufferfish.class_pairs import class_pair_loss, class_pair_scale
from exactdp.pufferfish.distributions import DiscreteDistribution as DD
from exactdp.pufferfish.renyi import discrete_laplace_renyi, laplace_renyi, read_order
from exactdp.pufferfish.secrets import ValuePair
from exactdp.pufferfish.staircase import staircase_loss
from exactdp.testing.budget import call_budget


def _point_pair_renyi(order: int, theta: mpmath.mpf) -> mpmath.mpf:
    """D_α(Lap(1, θ) ‖ Lap(0, θ)), the closed form for a shift of 1 (independent of the code):
    ln(α/(2α−1) e^{(α−1)/θ} + (α−1)/(2α−1) e^{−α/θ})/(α − 1)."""
    a = mpmath.mpf(order)
    return mpmath.log(a / (2 * a - 1) * mpmath.exp((a - 1) / theta)
                      + (a - 1) / (2 * a - 1) * mpmath.exp(-a / theta)) / (a - 1)


# C1 -- RenyiDivergence.verify(): containment at precisions it chooses, not overlap at 2·prec


def test_renyi_verify_rejects_a_false_enclosure_with_an_edited_prec() -> None:
    r = laplace_renyi(ValuePair(1, 0), 1, 2)
    bad = Enclosure(F(1, 10), F(1, 5))  # true D_2 = 0.619…
    assert r.verify()
    assert not replace(r, prec=2, forward=bad, backward=bad).verify()


def test_renyi_verify_rejects_an_enclosure_ending_just_below_the_truth() -> None:
    r = laplace_renyi(ValuePair(1, 0), 1, 2)
    tight = laplace_renyi(ValuePair(1, 0), 1, 2, prec=512).forward
    below = Enclosure(tight.lo - F(1, 10), tight.lo - (tight.hi - tight.lo))
    assert not replace(r, forward=below).verify()
    # narrower than anything verify can compute (a single rational point): rejected
    assert not replace(r, forward=Enclosure(tight.lo, tight.lo)).verify()


def test_renyi_verify_ignores_a_huge_stored_prec() -> None:
    r = laplace_renyi(ValuePair(1, 0), 1, 2)
    with call_budget(4_000) as seen:
        assert replace(r, prec=10**7).verify()
    assert seen[2] < 10**4  # the working precision is chosen by verify, not the stored 10⁷


# C2 -- StaircaseLoss.verify(): containment, and the worst piece / witness rechecked


def _stair() -> tuple[DD, DD]:
    return DD.from_dict({F(0): F(1, 2), F(2): F(1, 2)}), DD.from_dict({F(1): F(1)})


def test_staircase_verify_rejects_a_false_loss_with_an_edited_prec() -> None:
    r = staircase_loss(_stair(), F(3, 2), "1", F(1, 3))  # L = 1 exactly
    assert r.verify()
    assert not replace(r, prec=2, loss=Enclosure(F(8, 10), F(9, 10))).verify()


def test_staircase_verify_rejects_a_loss_ending_just_below_the_truth() -> None:
    r = staircase_loss(_stair(), F(3, 2), "1", F(1, 3))
    a2 = staircase_loss(_stair(), F(3, 2), "1", F(1, 3), prec=256)
    assert not replace(r, loss=Enclosure(a2.loss.lo - F(1, 10), a2.loss.lo)).verify()


def test_staircase_verify_rechecks_the_worst_piece_and_the_witness() -> None:
    r = staircase_loss(_stair(), F(3, 2), "1", F(1, 3))
    forged = replace(r, numerator=((0, F(1)),), denominator=((5, F(1)),), worst_output=F(-77))
    assert not forged.verify()
    # a real piece midpoint whose ratio is not the maximum
    other = r.worst_output + 10
    assert not replace(r, worst_output=other).verify()
    rational_b = staircase_loss(ValuePair(1, 0), 1, "ln(2)", "1/2")
    assert rational_b.verify()
    assert not replace(rational_b, ratio_exact=F(3)).verify()


def test_staircase_verify_ignores_a_huge_stored_prec() -> None:
    r = staircase_loss(ValuePair(1, 0), 1, "1", "1/2")
    with call_budget(30_000) as seen:
        assert replace(r, prec=10**7).verify()
    assert seen[2] < 10**4  # the working precision is chosen by verify, not the stored 10⁷


# M1 -- ClassPairScale.verify() checks the witness and the types


def test_class_pair_verify_checks_the_witness_and_types() -> None:
    r = class_pair_scale((30, "1/3"), (40, "1/4"), 1)
    assert r.verify()
    assert not replace(r, worst_j_lo=999).verify()
    assert not replace(r, worst_j_lo=-1).verify()
    assert not replace(r, lo=float(r.lo)).verify()
    assert not replace(r, eps="1").verify()
    # a total inside 0…N where the loss at lo is below ε
    fine = next(j for j in range(41) if _loss_at(r, j) < 0.9)
    assert not replace(r, worst_j_lo=fine).verify()


def _loss_at(r: object, j: int) -> float:
    from scipy.stats import binom
    ma = binom.pmf(np.arange(41), 30, 1 / 3)
    mb = binom.pmf(np.arange(41), 40, 1 / 4)
    lo = float(r.lo)  # type: ignore[attr-defined]
    k = np.exp(-np.abs(np.arange(41) - j) / lo)
    return abs(math.log(float(ma @ k)) - math.log(float(mb @ k)))


# M2 -- θ* = 0 is expressible and returned


@pytest.mark.parametrize("a, b", [((1, "1/2"), (1, "1/3")), ((1, 0), (2, 0)),
                                  (["1/2", "1/3", "1/3"], (3, "1/3")), ((3, "1/2"), (3, "1/2"))])
def test_class_pair_zero_noise(a: object, b: object) -> None:
    r = class_pair_scale(a, b, 1)
    assert r.zero_noise and r.lo == r.hi == 0 and r.method == "zero_noise" and r.verify()
    assert r.to_json()["zero_noise"] is True


def test_class_pair_zero_noise_decided_exactly_on_a_tie() -> None:
    # m_A/m_B = (1/2)/(1/3) = 3/2 at j = 1: ε = ln(3/2) exactly is a tie, decided exactly
    assert class_pair_scale((1, "1/2"), (1, "1/3"), "ln(3/2)").zero_noise
    assert not class_pair_scale((1, "1/2"), (1, "1/3"), "ln(7/5)").zero_noise


def test_class_pair_zero_noise_forged_on_a_pair_that_needs_noise() -> None:
    r = class_pair_scale((30, "1/3"), (40, "1/4"), 1)
    fake = replace(r, zero_noise=True, lo=F(0), hi=F(0), worst_j_lo=None)
    assert not fake.verify()


def test_cli_class_pair_zero_noise(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli_main(["pufferfish", "class-pair", "--a", "1:1/2", "--b", "1:1/3", "--eps", "1"])
    assert code == 0 and "θ* = 0" in capsys.readouterr().out


# M3 -- tol is honoured


@pytest.mark.parametrize("a, b, eps", [((2, "1/2"), (3, "1/2"), 1000),
                                       ((5000, "1/5"), (4000, "1/4"), 1),
                                       ((2, "1/2"), (3, "1/2"), "1/10**9")])
def test_class_pair_tol_is_honoured(a: object, b: object, eps: object) -> None:
    r = class_pair_scale(a, b, eps)
    assert (r.hi - r.lo) / r.hi <= F(1, 10**9) and r.verify()
    assert not replace(r, tol=F(1, 10**12)).verify()  # the stored tol is checked


def test_class_pair_underflowing_float_masses_bracket_is_tight() -> None:
    r = class_pair_scale((20000, "1/1000"), (20000, "1/500"), 1)   # θ* = 20.494434… (mpmath)
    assert r.lo < F(20494435, 10**6) and F(20494434, 10**6) < r.hi
    assert (r.hi - r.lo) / r.hi <= F(1, 10**9)


# M4 -- valid inputs that used to fail


def test_class_pair_tiny_p_gives_the_true_root() -> None:
    # θ* ≈ 0.274819 (review, 6 digits); a 40-digit mpmath run of L at the returned ends gave
    # L(lo) − 1 = +9.1e-10 and L(hi) − 1 = −9.6e-10 (before the fix: float root 1.44, error)
    r = class_pair_scale((3000, F(1, 10**6)), (3000, F(1, 10**5)), 1)
    assert abs(r.float() - 0.274819) < 5e-7 and r.verify()


def test_class_pair_large_eps_and_tiny_tol() -> None:
    r = class_pair_scale((2, "1/2"), (3, "1/2"), 10**6)
    assert 0 < r.lo < r.hi < F(1, 10**5) and r.verify()
    r = class_pair_scale((2, "1/2"), (3, "1/2"), 1, tol=F(1, 10**40))
    assert (r.hi - r.lo) / r.hi <= F(1, 10**40) and r.verify()


# M5 -- extreme numbers: answers or specific errors


@pytest.mark.parametrize("p", [F(1, 10**400), 1 - F(1, 10**20)])
def test_class_pair_extreme_p(p: F) -> None:
    r = class_pair_scale((3, p), (3, "1/2"), 1)
    assert r.lo < r.hi and r.verify()


def test_staircase_tiny_delta_is_instance_too_large() -> None:
    with pytest.raises(InstanceTooLarge, match="10\\^400"):
        staircase_loss(ValuePair(1, 0), F(1, 10**400), "1", "1/2")


@pytest.mark.parametrize("theta", ["x", float("nan"), True, 0, -1])
def test_class_pair_loss_bad_theta(theta: object) -> None:
    with pytest.raises(ExactDPError, match="theta"):
        class_pair_loss((2, "1/2"), (3, "1/2"), theta)


def test_class_pair_loss_no_silent_nan() -> None:
    with pytest.raises(PrecisionLimitReached, match="theta=≈ 10\\^-400"):
        class_pair_loss((2, "1/2"), (3, "1/2"), F(1, 10**400))


# M6 -- laplace_renyi at order 10^4 and θ = 1/10^4


@pytest.mark.parametrize("order, theta", [(10000, F(1)), (2, F(1, 10000))])
def test_laplace_renyi_moderate_orders_and_scales(order: int, theta: F) -> None:
    mpmath.mp.dps = 60
    truth = _point_pair_renyi(order, mpmath.mpf(theta.numerator) / theta.denominator)
    r = laplace_renyi(ValuePair(1, 0), theta, order)
    lo, hi = (mpmath.mpf(x.numerator) / x.denominator for x in (r.forward.lo, r.forward.hi))
    assert lo <= truth <= hi and r.verify()


def test_laplace_renyi_failure_names_order_and_theta(monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp.pufferfish import renyi

    def fail(*args: object) -> object:
        raise PrecisionLimitReached("arb integration did not return a finite real ball")

    monkeypatch.setattr(renyi, "_piece", fail)
    with pytest.raises(PrecisionLimitReached, match="order=7, theta=1/3.*discrete_laplace_renyi"):
        laplace_renyi(ValuePair(1, 0), F(1, 3), 7)


# M7 -- discrete_laplace_renyi size cap


def test_discrete_renyi_wide_support_is_refused_fast() -> None:
    with call_budget(2_000), pytest.raises(InstanceTooLarge, match="100001 integers"):
        discrete_laplace_renyi(ValuePair(10**5, 0), F(1, 2), 2)


# m1 -- read_order consistent


@pytest.mark.parametrize("order", ["2.0", "1e1", 2.0, 10.0])
def test_read_order_refuses_floats_and_float_strings_alike(order: object) -> None:
    with pytest.raises(InvalidOrder, match="float"):
        read_order(order)


def test_read_order_digits() -> None:
    assert (read_order(" 3 "), read_order(10), read_order(F(8, 4))) == (3, 10, 2)


# m2 -- the staircase CLI names --eps0


def test_cli_staircase_names_eps0(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli_main(["pufferfish", "staircase", "--values", "1", "0", "--sensitivity", "1",
                     "--eps0", "0"])
    assert code == 3 and "--eps0" in capsys.readouterr().err


# m3 -- class sizes


def test_class_size_float_is_named() -> None:
    with pytest.raises(InvalidArgument, match="size n=2.0 is a float"):
        class_pair_scale((2.0, "1/2"), (3, "1/2"), 1)


def test_class_size_numpy_int_is_accepted() -> None:
    r = class_pair_scale((np.int64(2), "1/2"), (3, "1/2"), 1)
    assert r.a == ((F(1, 2), 2),) and type(r.a[0][1]) is int and r.verify()


# m5 -- a divergence is ≥ 0


def test_laplace_renyi_huge_theta_lower_end_not_negative() -> None:
    r = laplace_renyi(ValuePair(1, 0), F(10**400), 2)
    assert r.forward.lo >= 0 and r.backward.lo >= 0 and r.verify()


# m8 -- an internal failure in adult_rows is CertificateInvalid, not InvalidArgument


def test_adult_rows_internal_failure_is_certificate_invalid(monkeypatch: pytest.MonkeyPatch) -> None:
    real = adult_mod.exact_scale

    def broken(*args: object, **kwargs: object) -> object:
        return replace(real(*args, **kwargs), hi=F(10**9))  # type: ignore[type-var]

    monkeypatch.setattr(adult_mod, "exact_scale", broken)
    with pytest.raises(CertificateInvalid, match="did not verify"):
        adult_mod.adult_rows([1], scenarios=("user",), groupings=("sex",))
    with pytest.raises(CertificateInvalid):
        raise CertificateInvalid("x")
    assert not issubclass(CertificateInvalid, InvalidArgument)
    assert InvalidScale is not None
