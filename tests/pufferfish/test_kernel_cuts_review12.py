"""Review 12 of 11K5 (kernel compaction of the Pufferfish kernels): the checks that moved
(Rényi precision ladder → ``pufferfish_mechanisms.ladder``, the discrete-Rényi integer-support
check → ``discrete_renyi_work``, the staircase/Gaussian readers → ``read_parts`` / ``read_laws`` /
``read_theta`` / ``strict_level``, the merged ``_up``) still refuse what they refused. Small
documents and patched balls only.
"""

from __future__ import annotations

import copy
import functools
from fractions import Fraction as F

import mpmath
import pytest
from flint import arb, ctx

from exactdp.arithmetic.ball import arb_to_fraction_interval, workprec
from exactdp.errors import ExactDPError, InvalidArgument, PrecisionLimitReached
from exactdp.kernel import pufferfish_integrals as pi
from exactdp.kernel import pufferfish_mechanisms as pm
from exactdp.kernel.jsonio import envelope
from exactdp.kernel.verify import verify_document
from exactdp.pufferfish.documents import to_document
from exactdp.pufferfish.gaussian import gaussian_delta
from exactdp.pufferfish.secrets import ValuePair
from exactdp.pufferfish.staircase import staircase_loss

P2 = {"support": ["0", "1", "3"], "probs": ["1/2", "1/4", "1/4"]}
Q2 = {"support": ["0", "2"], "probs": ["1/3", "2/3"]}


@functools.cache
def _docs() -> dict[str, dict]:
    return {"stair": to_document(staircase_loss(ValuePair(1, 0), 1, "ln(2)", "1/2")),
            "delta": to_document(gaussian_delta(ValuePair(1, 0), 1, 1))}


def _doc(name: str) -> dict:
    return copy.deepcopy(_docs()[name])


def _edit(d: dict, part: str, key: str, value: object) -> dict:
    d = copy.deepcopy(d)
    if value is KeyError:
        d[part].pop(key)
    else:
        d[part][key] = value
    return d


def test_genuine_mechanism_documents_verify():
    assert verify_document(_doc("stair")).verified and verify_document(_doc("delta")).verified


@pytest.mark.parametrize("part, key, value", [
    ("question", "delta", "0"), ("question", "delta", "-1/2"), ("question", "delta", None),
    ("question", "gamma", "-1/2"), ("question", "gamma", "3/2"), ("question", "delta", KeyError),
    ("question", "eps0", {"eps_range": {"lo": "0", "hi": "1"}}), ("question", "eps0", None),
    ("question", "users", []), ("evidence", "prec", 1), ("evidence", "prec", 2**16 + 1),
    ("evidence", "prec", KeyError), ("evidence", "extra", 1), ("claim", "extra", "1"),
    ("question", "P", {**P2, "users": []}),
])
def test_staircase_moved_checks_still_refuse(part, key, value):
    with pytest.raises(InvalidArgument):
        verify_document(_edit(_doc("stair"), part, key, value))


@pytest.mark.parametrize("part, key, value", [
    ("question", "level", {"eps_range": {"lo": "0", "hi": "1"}}), ("question", "level", None),
    ("question", "sigma", "0"), ("evidence", "prec", 2**16 + 1), ("evidence", "extra", 1),
    ("evidence", "rel_tol", KeyError), ("question", "extra", 1),
])
def test_gaussian_moved_checks_still_refuse(part, key, value):
    with pytest.raises(InvalidArgument):
        verify_document(_edit(_doc("delta"), part, key, value))


@pytest.mark.parametrize("key, value", [("delta", "2"), ("delta", "1/2"), ("gamma", "1/4")])
def test_staircase_other_question_never_verifies(key, value):
    try:
        assert not verify_document(_edit(_doc("stair"), "question", key, value)).verified
    except ExactDPError:
        pass


def _renyi_doc(forward: dict, backward: dict) -> dict:
    return envelope("pufferfish-renyi", {"P": P2, "Q": Q2, "theta": "1", "order": 2},
                    {"forward": forward, "backward": backward}, {"prec": 128})


def _half_nan(monkeypatch) -> list[int]:
    """The backward ball (Q, P) never finite; the forward one genuine. Returns the precisions seen."""
    ball, seen = pi.laplace_renyi_ball, []

    def patched(A, B, theta, order):
        seen.append(ctx.prec)
        return ball(A, B, theta, order) if A.get(F(1)) == F(1, 4) else arb("nan")

    monkeypatch.setattr(pi, "laplace_renyi_ball", patched)
    return seen


def test_renyi_half_finite_never_verifies(monkeypatch):
    # forward claim contains the truth, the backward ball is never finite: undecided, never verified
    seen = _half_nan(monkeypatch)
    with workprec(128):
        lo, hi = arb_to_fraction_interval(pi.laplace_renyi_ball(
            {F(0): F(1, 2), F(1): F(1, 4), F(3): F(1, 4)}, {F(0): F(1, 3), F(2): F(2, 3)}, F(1), 2))
    wide = {"lo": str(lo - 1 if lo > 1 else F(0)), "hi": str(hi + 1)}
    with pytest.raises(PrecisionLimitReached, match="did not converge"):
        verify_document(_renyi_doc(wide, {"lo": "0", "hi": "1000"}))
    assert max(seen) == 1024


def test_renyi_disjoint_finite_ball_rejects_at_once(monkeypatch):
    # 11K5: a claim disjoint from its finite ball is rejected even while the other ball is not
    # finite (before: the ladder climbed to the top and reported undecided, exit 2). Sound: the
    # ball contains D, so the claim excludes D.
    seen = _half_nan(monkeypatch)
    assert not verify_document(_renyi_doc({"lo": "100", "hi": "101"}, {"lo": "0", "hi": "1000"})).verified
    assert seen == [128, 128]


def test_discrete_renyi_non_integer_q_refused_before_exact_work(monkeypatch):
    def no_sweep(*args):
        raise AssertionError("exact work started before the support check")

    monkeypatch.setattr(pi, "integer_sweep", no_sweep)
    doc = envelope("pufferfish-discrete-renyi",
                   {"P": P2, "Q": {"support": ["0", "5/2"], "probs": ["1/3", "2/3"]}, "a": "1/3", "order": 3},
                   {"forward": "1", "backward": "1"}, {})
    with pytest.raises(InvalidArgument, match='question.Q.support: "5/2" is not an integer'):
        verify_document(doc)


@pytest.mark.parametrize("x", [F(-3), F(0), F(1, 3), F(5), F(40)])
def test_merged_up_encloses_the_upper_tail(x):
    with mpmath.workdps(60):
        truth = mpmath.erfc(mpmath.mpf(x.numerator) / x.denominator / mpmath.sqrt(2)) / 2
        for ball in pm._up(x), pm._up(arb(x.numerator) / x.denominator):
            lo, hi = arb_to_fraction_interval(ball)
            assert mpmath.mpf(lo.numerator) / lo.denominator <= truth <= mpmath.mpf(hi.numerator) / hi.denominator
