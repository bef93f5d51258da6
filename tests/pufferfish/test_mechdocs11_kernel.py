"""Staircase and Gaussian Pufferfish documents re-checked by exactdp/kernel/pufferfish_mechanisms.py.

Ground truth of every tampering is decided HERE, independently of the kernel and the library:
the staircase loss by a 60-digit mpmath scan of the density ratio from its definition (and
L = ε₀ for a point pair at Δ = |a − b|), δ(σ) for two point masses by the analytic Gaussian
formula Φ(Δ/2σ − εσ/Δ) − e^ε Φ(−Δ/2σ − εσ/Δ) at 60 digits. A false claim must be rejected
(exit 1), a true weaker one may verify, every genuine document verifies, malformed ones raise
InvalidArgument (exit 3), instances beyond the limits are refused at once (exit 2).
"""

from __future__ import annotations

import copy
import functools
import json
import math
import subprocess
import sys
from fractions import Fraction as F

import mpmath
import pytest

from exactdp.cli import main
from exactdp.errors import CertificateInvalid, InstanceTooLarge, InvalidArgument
from exactdp.kernel.jsonio import dumps, loads
from exactdp.kernel.pufferfish_mechanisms import staircase_key, staircase_mids
from exactdp.kernel.verify import verify_document
from exactdp.pufferfish.distributions import DiscreteDistribution
from exactdp.pufferfish.documents import from_document, to_document
from exactdp.pufferfish.gaussian import GaussianDelta, GaussianScale, gaussian_delta, gaussian_scale
from exactdp.pufferfish.secrets import ValuePair
from exactdp.pufferfish.staircase import StaircaseLoss, staircase_loss
from exactdp.testing.budget import call_budget

P3 = DiscreteDistribution.from_lists([0, 1, 3], ["1/2", "1/4", "1/4"])
Q3 = DiscreteDistribution.from_lists([0, 2], ["1/3", "2/3"])


@functools.cache
def results() -> dict[str, object]:
    return {"stair_exact": staircase_loss(ValuePair(1, 0), 1, "ln(2)", "1/2"),
            "stair_ball": staircase_loss(ValuePair(1, 0), "1/3", "1", "1/3"),
            "stair_mix": staircase_loss((P3, Q3), "1/2", "ln(3/2)", "1/4"),
            "delta": gaussian_delta(ValuePair(1, 0), 1, 1),
            "delta_mix": gaussian_delta((P3, Q3), "1/2", 1),
            "scale": gaussian_scale(ValuePair(1, 0), 1, "1/100", rel_tol=F(1, 100))}


def doc(name: str) -> dict:
    return copy.deepcopy(to_document(results()[name]))


def _mp(x) -> mpmath.mpf:
    x = F(x)
    return mpmath.mpf(x.numerator) / x.denominator


def point_delta(gap, sigma, eps) -> mpmath.mpf:
    """δ for P = δ_gap, Q = δ_0 (both directions agree), 60 digits."""
    with mpmath.workdps(60):
        d, s, e = _mp(gap), _mp(sigma), _mp(eps)
        return mpmath.ncdf(d / (2 * s) - e * s / d) - mpmath.exp(e) * mpmath.ncdf(-d / (2 * s) - e * s / d)


def stair_truth(gap, delta, eps0, gamma) -> mpmath.mpf:
    """L for P = δ_gap, Q = δ_0: ε₀·max |e(|y − gap|) − e(|y|)| over a fine grid of piece
    interiors (the ratio is b^(exponent difference), b = e^−ε₀), 60 digits."""
    delta, gamma = F(delta), F(gamma)

    def e(r: F) -> int:
        q = abs(r) / delta
        return math.floor(q) + (1 if q - math.floor(q) >= gamma else 0)
    step = delta / 240
    ys = [-2 * delta + step / 2 + k * step for k in range(int((gap + 4 * delta) / step))]
    with mpmath.workdps(60):
        return max(abs(e(y - gap) - e(y)) for y in ys) * _mp(eps0)


def inside(enc: dict, truth: mpmath.mpf) -> bool:
    with mpmath.workdps(60):
        return _mp(enc["lo"]) <= truth <= _mp(enc["hi"])


def verified(d: dict) -> bool:
    return verify_document(loads(dumps(d))).verified


def test_round_trip_and_genuine_documents_verify():
    for name, r in results().items():
        d = to_document(r)
        assert verified(d), name
        again = from_document(loads(dumps(d)))
        assert again == r and (not isinstance(r, StaircaseLoss) or again.verify()), name
    assert StaircaseLoss.from_document(doc("stair_exact")) == results()["stair_exact"]
    assert isinstance(GaussianScale.from_document(doc("scale")), GaussianScale)
    with pytest.raises(InvalidArgument):
        GaussianDelta.from_document(doc("scale"))  # another kind


def test_the_claims_are_true_by_independent_computation():
    assert doc("stair_exact")["claim"]["ratio"] == "2"  # L = ε₀ = ln 2 for Δ = |a − b|
    with mpmath.workdps(60):
        assert inside(doc("stair_exact")["claim"]["loss"], mpmath.log(2))
    ball = doc("stair_ball")
    assert inside(ball["claim"]["loss"], stair_truth(1, F(1, 3), 1, F(1, 3)))
    assert inside(doc("delta")["claim"]["delta"], point_delta(1, 1, 1))
    sc = doc("scale")["claim"]
    lo, hi = (F(sc["least"][k]) for k in ("lo", "hi"))
    assert point_delta(1, lo, 1) > mpmath.mpf(1) / 100 > point_delta(1, hi, 1)


def _nudge(enc: dict, by: F) -> dict:
    return {"lo": str(F(enc["lo"]) + by), "hi": str(F(enc["hi"]) + by)}


STAIR_FORGERIES = {
    "pieces": lambda d: d["claim"].update(pieces=d["claim"]["pieces"] + 1),
    "worst output": lambda d: d["claim"].update(worst_output="7/4"),
    "numerator": lambda d: d["claim"].update(numerator=["1", "1/2"]),
    "ratio": lambda d: d["claim"].update(ratio="3"),
    "ratio dropped": lambda d: d["claim"].update(ratio=None),
    "loss shifted": lambda d: d["claim"].update(loss=_nudge(d["claim"]["loss"], F(1, 10**6))),
    "loss below": lambda d: d["claim"].update(loss=_nudge(d["claim"]["loss"], F(-1, 10**30))),
    "delta": lambda d: d["question"].update(delta="2"),
    "eps0": lambda d: d["question"].update(eps0={"t": "1/3"}),
    "gamma": lambda d: d["question"].update(gamma="1/3"),
    "pair swapped": lambda d: d["question"].update(P=d["question"]["Q"], Q=d["question"]["P"]),
}


@pytest.mark.parametrize("name", list(STAIR_FORGERIES))
def test_staircase_forgeries_rejected(name):
    d = doc("stair_exact")
    STAIR_FORGERIES[name](d)
    # ground truth: the true loss of every altered question differs from the claim, or the
    # claimed piece/ratio/count is not the one the definition gives (checked by hand above)
    assert not verified(d)


def test_staircase_non_maximal_piece_rejected():
    """A consistent claim about a piece that is not the worst (exact ratios by the definition)."""
    d = doc("stair_mix")
    P, Q, delta, gamma, b = P3.as_dict(), Q3.as_dict(), F(1, 2), F(1, 4), F(2, 3)

    def ratio(y: F) -> F:
        g = [sum(w * b ** (math.floor(abs(y - x) / delta) + (abs(y - x) / delta % 1 >= gamma))
                 for x, w in D.items()) for D in (P, Q)]
        return max(g[0] / g[1], g[1] / g[0])
    mids = staircase_mids(P, Q, delta, gamma)
    best = max(ratio(y + F(k, 7) * (delta / 100)) for y in mids for k in (-1, 0, 1))
    assert F(d["claim"]["ratio"]) == best
    y = next(m for m in mids if ratio(m) < best)
    num, den = staircase_key(P, Q, delta, gamma, y)

    def dense(p) -> list[str]:
        return [str(dict(p).get(e, F(0))) for e in range(max(dict(p)), -1, -1)]
    d["claim"].update(worst_output=str(y), numerator=dense(num), denominator=dense(den), ratio=str(ratio(y)),
                      loss={"lo": "0", "hi": "100"})
    assert not verified(d)


def test_staircase_irrational_b_forgeries():
    d = doc("stair_ball")
    d["claim"]["ratio"] = "20"
    assert not verified(d)
    d = doc("stair_ball")
    truth = stair_truth(1, F(1, 3), 1, F(1, 3))
    d["claim"]["loss"] = {"lo": "0", "hi": str(F(int(truth * 10**6) - 1, 10**6))}  # misses L
    assert not inside(d["claim"]["loss"], truth) and not verified(d)
    d["claim"]["loss"] = {"lo": "0", "hi": "4"}  # true and weaker: verifies
    assert verified(d)
    # another piece with its own exact ratio, smaller by the 60-digit truth: not the maximum
    d = doc("stair_ball")
    P, Q = {F(1): F(1)}, {F(0): F(1)}
    y = next(m for m in staircase_mids(P, Q, F(1, 3), F(1, 3))
             if staircase_key(P, Q, F(1, 3), F(1, 3), m)[0] == ((0, F(1)),)
             and staircase_key(P, Q, F(1, 3), F(1, 3), m)[1] == ((0, F(1)),))  # ratio 1: loss 0
    d["claim"].update(worst_output=str(y), numerator=["1"], denominator=["1"])
    assert truth > 1 and not verified(d)


GAUSS_FORGERIES = {
    "delta shifted": lambda d: d["claim"].update(delta=_nudge(d["claim"]["delta"], F(1, 10**6))),
    "delta below": lambda d: d["claim"].update(delta=_nudge(d["claim"]["delta"], F(-1, 10**6))),
    "sigma": lambda d: d["question"].update(sigma="11/10"),
    "eps": lambda d: d["question"].update(level={"eps": "11/10"}),
}


@pytest.mark.parametrize("name", list(GAUSS_FORGERIES))
def test_gaussian_delta_forgeries_rejected(name):
    d = doc("delta")
    GAUSS_FORGERIES[name](d)
    q = d["question"]
    truth = point_delta(1, F(q["sigma"]), F(q["level"]["eps"]))
    assert not inside(d["claim"]["delta"], truth)  # the altered claim is false
    assert not verified(d)


def test_gaussian_true_claims_verify():
    d = doc("delta")
    d["claim"]["delta"] = {"lo": "1/10", "hi": "1/5"}  # wider, still true
    assert verified(d)
    d = doc("delta")
    d["question"]["P"], d["question"]["Q"] = d["question"]["Q"], d["question"]["P"]  # δ is symmetric
    assert verified(d)
    # far-apart mixtures: δ is within 2^−1024 of 1; the kernel's upper end is clipped to ∫ g_A = 1
    law = [{"support": [str(x) for x in xs], "probs": ["1/5"] * 5}
           for xs in ((13, 95, 127, 160, 194), (55, 62, 69, 137, 177))]
    d["question"].update(P=law[0], Q=law[1], sigma="1/10", level={"eps": "1/2"})
    d["claim"]["delta"] = {"lo": "0", "hi": "1"}  # true for every instance
    assert verified(d)


SCALE_FORGERIES = {
    "lo past sigma*": lambda d: d["claim"]["least"].update(lo="19/10", hi="2"),
    "hi below sigma*": lambda d: d["claim"]["least"].update(lo="1", hi="37/20"),
    "target": lambda d: d["question"].update(delta="1/50"),
    "at_hi shifted": lambda d: d["claim"].update(at_hi=_nudge(d["claim"]["at_hi"], F(-1, 10**5))),
}


@pytest.mark.parametrize("name", list(SCALE_FORGERIES))
def test_gaussian_scale_forgeries_rejected(name):
    d = doc("scale")
    SCALE_FORGERIES[name](d)
    c, target = d["claim"], _mp(d["question"]["delta"])
    lo, hi = (F(c["least"][k]) for k in ("lo", "hi"))
    true_claim = (inside(c["at_lo"], point_delta(1, lo, 1)) and inside(c["at_hi"], point_delta(1, hi, 1))
                  and _mp(c["at_lo"]["lo"]) > target > _mp(c["at_hi"]["hi"]))
    assert not true_claim and not verified(d)


MALFORMED = {
    "kind": lambda d: d.update(kind="pufferfish-gaussian-delta"),
    "version": lambda d: d.update(version=2),
    "missing": lambda d: d["claim"].pop("loss"),
    "string count": lambda d: d["claim"].update(pieces="6"),
    "number delta": lambda d: d["question"].update(delta=1),
    "gamma above 1": lambda d: d["question"].update(gamma="3/2"),
    "evidence": lambda d: d["evidence"].update(extra=1),
}


@pytest.mark.parametrize("name", list(MALFORMED))
def test_malformed_documents(name):
    d = doc("stair_exact")
    MALFORMED[name](d)
    with pytest.raises(InvalidArgument):
        verify_document(d)


def test_malformed_gaussian_documents():
    for edit in (lambda d: d["claim"]["delta"].update(lo=0.1), lambda d: d["evidence"].update(prec="128"),
                 lambda d: d["question"].update(sigma="0"), lambda d: d["question"].pop("level")):
        d = doc("delta")
        edit(d)
        with pytest.raises(InvalidArgument):
            verify_document(d)
    d = doc("scale")
    d["evidence"]["prec"] = [128]
    with pytest.raises(InvalidArgument):
        verify_document(d)
    d = doc("scale")
    d["question"]["delta"] = "1"
    with pytest.raises(InvalidArgument):
        verify_document(d)


def test_huge_inputs_are_refused_quickly():
    edits = [("stair_exact", lambda d: d["question"].update(delta="1/1" + "0" * 400)),
             ("delta", lambda d: d["question"].update(sigma="1/1" + "0" * 400)),
             ("delta", lambda d: d["question"].update(level={"eps": "100000"})),
             ("scale", lambda d: d["claim"]["least"].update(lo="1/1" + "0" * 400))]
    for name, edit in edits:
        d = doc(name)
        edit(d)
        with call_budget(10_000), pytest.raises(InstanceTooLarge):  # refused before any big work
            verify_document(d)
    d = doc("delta")  # ε = 10⁴⁰⁰ written out: over the closed-form limit, malformed at once
    d["question"]["level"] = {"eps": "1" + "0" * 400}
    with pytest.raises(InvalidArgument):
        verify_document(d)
    d = doc("delta")  # σ = 10⁴⁰⁰: δ is below e^−10⁷⁹⁹, the claim is false and decided fast
    d["question"]["sigma"] = "1" + "0" * 400
    with call_budget(10_000):
        assert not verified(d)
    with pytest.raises(InstanceTooLarge):
        staircase_loss(ValuePair(1, 0), "1/" + "1" + "0" * 400, "ln(2)", "1/2")


def test_writer_refuses_beyond_the_kernel_and_reader_rejects(tmp_path):
    r = results()["delta"]
    d = to_document(r)
    d["claim"]["delta"] = _nudge(d["claim"]["delta"], F(1, 100))
    with pytest.raises(CertificateInvalid):
        from_document(d)
    assert main(["verify", str(_write(tmp_path, "bad.json", d))]) == 1
    d["question"]["sigma"] = "1/1" + "0" * 400
    assert main(["verify", str(_write(tmp_path, "huge.json", d))]) == 2
    d["version"] = 7
    assert main(["verify", str(_write(tmp_path, "malformed.json", d))]) == 3


def _write(tmp_path, name: str, d: dict):
    path = tmp_path / name
    path.write_text(dumps(d) if d.get("version") == 1 else json.dumps(d))
    return path


def test_fresh_process_verifies(tmp_path):
    for name in ("stair_ball", "delta_mix"):
        assert main(["verify", str(_write(tmp_path, f"{name}.json", doc(name)))]) == 0
    path = _write(tmp_path, "scale.json", doc("scale"))
    proc = subprocess.run([sys.executable, "-m", "exactdp", "verify", str(path)], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0 and "verified" in proc.stdout, proc.stdout + proc.stderr
