"""Review 11G10 regressions for exactdp/kernel/pufferfish_integrals.py: the Laplace precision
ladder is bounded before integrating (F1), an undecided claim or a failed integration is
undecided, not rejected (F2), the discrete bit bound is lowered (F3), a non-integer discrete
support point is named (F4). Small cases and patched limits only: no slow case runs here.
"""

from __future__ import annotations

import json
from fractions import Fraction as F

import pytest
from flint import arb, ctx

from exactdp.cli import main
from exactdp.errors import InstanceTooLarge, InvalidArgument, PrecisionLimitReached
from exactdp.kernel import pufferfish_integrals as pi
from exactdp.kernel.jsonio import dumps, envelope
from exactdp.kernel.verify import verify_document
from exactdp.pufferfish.renyi import laplace_renyi
from exactdp.pufferfish.secrets import ValuePair

LAW = {"support": ["0", "1"], "probs": ["1/2", "1/2"]}
TINY = {"lo": "0", "hi": "1/1" + "0" * 400}  # P = Q: D = 0 is inside, a TRUE claim


def _zero_doc(law=LAW):
    return envelope("pufferfish-renyi", {"P": law, "Q": law, "theta": "1", "order": 2},
                    {"forward": TINY, "backward": TINY}, {"prec": 128})


def test_review10_f1_ladder_top_from_work_bound():
    # the reviewer's worst case (64 points on [0, 10^4], θ = 1, α = 2) may only use 128 bits
    pts = {F(10**4 * k, 63): F(1, 64) for k in range(64)}
    assert pi.renyi_work(pts, pts, F(1), 2) == 128
    two = {F(0): F(1, 2), F(1): F(1, 2)}
    assert pi.renyi_work(two, two, F(1), 2) == 1024
    # points + span/θ over MAX_WORK: refused before any integration
    wide = {F(0): F(1, 2), F(pi.MAX_WORK): F(1, 2)}
    with pytest.raises(InstanceTooLarge, match="MAX_WORK"):
        pi.renyi_work(wide, wide, F(1), 1)


def test_review10_f1_kernel_stops_at_the_affordable_precision(monkeypatch):
    seen = []
    ball = pi.laplace_renyi_ball

    def counting(*args):
        seen.append(ctx.prec)
        return ball(*args)

    monkeypatch.setattr(pi, "laplace_renyi_ball", counting)
    monkeypatch.setattr(pi, "MAX_WORK", 3)  # 2 points + span/θ = 1: only 128 bits fit
    with pytest.raises(PrecisionLimitReached, match="at 128 bits"):
        verify_document(_zero_doc())
    assert seen == [128, 128]  # never climbed to 256


def test_review10_f1_writer_refuses_what_the_kernel_refuses(monkeypatch):
    r = laplace_renyi(ValuePair(1, 0), 1, 2, prec=512)
    assert r.to_document()["evidence"]["prec"] == 512
    monkeypatch.setattr(pi, "MAX_WORK", 3)  # the kernel would stop at 128 bits
    with pytest.raises(InstanceTooLarge, match="prec = 512"):
        r.to_document()
    monkeypatch.setattr(pi, "MAX_WORK", 2)  # not even 128 bits
    with pytest.raises(InstanceTooLarge, match="MAX_WORK"):
        laplace_renyi(ValuePair(1, 0), 1, 2).to_document()


def test_review10_f2_true_undecided_claim_is_exit_2_not_rejected(tmp_path):
    with pytest.raises(PrecisionLimitReached, match="undecided"):
        verify_document(_zero_doc())
    path = tmp_path / "tiny.json"
    path.write_text(dumps(_zero_doc()))
    assert main(["verify", str(path)]) == 2


def test_review10_f2_failed_integration_is_undecided(monkeypatch):
    monkeypatch.setattr(pi, "laplace_renyi_ball", lambda *args: arb("nan"))
    doc = _zero_doc()
    doc["claim"] = {"forward": {"lo": "0", "hi": "1"}, "backward": {"lo": "0", "hi": "1"}}
    with pytest.raises(PrecisionLimitReached, match="did not converge"):
        verify_document(doc)


def test_review10_f3_discrete_bound_lowered():
    # the reviewer's 4-minute case (work 16 777 110 ≤ 2^24) is refused before any exact work
    with pytest.raises(InstanceTooLarge, match="MAX_DISCRETE_BITS"):
        pi.discrete_renyi_moment({F(0): F(1)}, {F(2): F(1)}, F(99999, 100000), 79889)
    assert pi.MAX_DISCRETE_BITS <= 2**22


def test_review10_f4_non_integer_support_point_named():
    doc = envelope("pufferfish-discrete-renyi",
                   {"P": {"support": ["0", "1", "2", "3", "9/2"], "probs": ["1/5"] * 5},
                    "Q": {"support": ["0"], "probs": ["1"]}, "a": "1/2", "order": 2},
                   {"forward": "1", "backward": "1"}, {})
    with pytest.raises(InvalidArgument) as exc:
        verify_document(doc)
    msg = str(exc.value)
    assert 'question.P.support: "9/2" is not an integer' in msg and "Fraction(" not in msg
    assert "question.a" not in msg
    doc["question"]["a"] = "3/2"
    with pytest.raises(InvalidArgument, match='question.a: got "3/2"'):
        verify_document(json.loads(dumps(doc)))
