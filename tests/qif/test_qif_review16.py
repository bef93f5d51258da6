"""Regressions for the adversarial review of issue 16 (docs: /work/notes/review16.md).

Each test fails on the code before the fixes: forged certificates that used to verify,
edited JSON that used to load, inputs that used to give wrong answers or crash.
"""

import dataclasses
import json
from fractions import Fraction as F

import pytest
import sympy

from exactdp.arithmetic.interval import Enclosure
from exactdp.errors import (
    CertificateInvalid,
    InstanceTooLarge,
    InvalidArgument,
    InvalidGainFunction,
    InvalidMetric,
    LPNotCertified,
)
from exactdp.mechanisms.constructors import from_rows
from exactdp.qif import (
    GainFunction,
    additive_bayes_capacity,
    additive_leakage,
    bayes_risk,
    bayes_vulnerability,
    g_capacity,
    guessing_entropy,
    is_refined_by,
    kantorovich,
    multiplicative_leakage,
    optimal_mechanism,
    posterior_vulnerability,
    prior_vulnerability,
    shannon_entropy,
)
from exactdp.qif.capacity import Capacity
from exactdp.qif.compose import Refinement
from exactdp.qif.distances import Kantorovich
from exactdp.qif.entropy import CertifiedQuantity
from exactdp.qif.measures import GuessingEntropy, Leakage, Vulnerability
from exactdp.qif.optimal import OptimalMechanism
from exactdp.qif.optimal_lp import DualityCertificate
from exactdp.spaces.metrics import cycle, discrete, line

BSC = [["3/4", "1/4"], ["1/4", "3/4"]]


def identity(n):
    return tuple(tuple(F(int(i == j)) for j in range(n)) for i in range(n))


# ------------------------------------------------------------------ C1, C2, C5: optimal LP
def test_c1_edges_are_rebuilt_not_trusted():
    r = optimal_mechanism(line(4), "uniform", t="1/2")
    c = r.certificate
    for edges in ((), tuple((a, b, F(0)) for a, b, _phi in c.problem.edges)):
        P2 = dataclasses.replace(c.problem, edges=edges)
        forged = DualityCertificate(P2, identity(4), (F(1, 4),) * 4, {})
        assert not forged.verify()
        assert not OptimalMechanism(F(1), r.mechanism, forged, "float-basis",
                                    r.question).verify()


def test_c1_level_inconsistent_with_t_is_refused():
    r = optimal_mechanism(line(3), "uniform", t="1/2")
    lvl = dataclasses.replace(r.certificate.problem.level, eps=sympy.Integer(5))
    P2 = dataclasses.replace(r.certificate.problem, level=lvl)
    assert not dataclasses.replace(r.certificate, problem=P2).verify()


def test_c2_mechanism_is_bound_to_the_certificate():
    r = optimal_mechanism(line(3), "uniform", t="1/2")
    fake = dataclasses.replace(r, mechanism=from_rows([[1, 0, 0], [0, 1, 0], [0, 0, 1]]))
    assert r.verify() and not fake.verify()


def test_c2_certificate_of_another_question_is_refused():
    r = optimal_mechanism(line(3), "uniform", t="1/2")
    r2 = optimal_mechanism(line(3), "uniform", t="1/3")
    swapped = OptimalMechanism(r2.value, r2.mechanism, r2.certificate, r2.method, r.question)
    assert not swapped.verify()
    # and the user's own question is checked when given
    assert r2.verify() and not r2.verify(line(3), "uniform", t="1/2")
    assert r2.verify(line(3), "uniform", t="1/3", gain=GainFunction.identity(3))
    assert not r2.verify(cycle(3)) and not r2.verify(prior=["1/2", "1/4", "1/4"])


def test_c5_float_multipliers_are_refused():
    c = optimal_mechanism(cycle(5), "uniform", t="2/7").certificate
    assert c.verify()
    lamf = {k: float(v) for k, v in c.lam.items()}
    assert not DualityCertificate(c.problem, c.mechanism, c.u, lamf).verify()
    assert not DualityCertificate(c.problem, c.mechanism, tuple(float(v) for v in c.u),
                                  c.lam).verify()
    Kf = tuple(tuple(float(v) for v in r) for r in c.mechanism)
    assert not DualityCertificate(c.problem, Kf, c.u, c.lam).verify()
    assert not DualityCertificate(c.problem, c.mechanism, c.u,
                                  {(True, 0): F(1), **c.lam}).verify()


# -------------------------------------------------------------- C3, C4, M3: leakage
def test_c3_bits_and_log2_ratio_are_checked():
    L = multiplicative_leakage(GainFunction.identity(2), BSC)
    assert L.verify()
    assert not dataclasses.replace(L, log2_ratio=sympy.Integer(7)).verify()
    assert not dataclasses.replace(L, bits=Enclosure(F(100), F(200))).verify()
    assert not dataclasses.replace(L, bits=None).verify()
    assert not dataclasses.replace(L, kind="additive", value=F(1, 4)).verify()
    A = additive_leakage(GainFunction.identity(2), BSC)
    assert A.verify() and not dataclasses.replace(A, bits=L.bits).verify()


def test_c4_parts_must_answer_one_question():
    C = [[1, 0], [0, 1]]
    post = posterior_vulnerability(GainFunction.from_matrix([[10, 0], [0, 10]]), C)
    pri = prior_vulnerability(GainFunction.identity(2), ["1/2", "1/2"])
    L = Leakage("additive", post.value - pri.value, None, None, pri, post)
    assert not L.verify()
    with pytest.raises(CertificateInvalid):
        Leakage.from_json(L.to_json())
    # prior at (1, 0), posterior at uniform
    post_u = posterior_vulnerability(GainFunction.identity(2), C)
    pri_10 = prior_vulnerability(GainFunction.identity(2), [1, 0])
    assert not Leakage("additive", post_u.value - pri_10.value, None, None, pri_10,
                       post_u).verify()
    # the parts swapped (prior part with a channel)
    good = additive_leakage(GainFunction.identity(2), C)
    assert not dataclasses.replace(good, prior_value=good.posterior_value,
                                   value=F(0)).verify()


def test_m3_edited_leakage_json_is_rejected():
    d = additive_leakage(GainFunction.identity(2), BSC).to_json()
    d["value"] = "7"
    with pytest.raises(CertificateInvalid):
        Leakage.from_json(d)
    m = multiplicative_leakage(GainFunction.identity(2), BSC).to_json()
    assert Leakage.from_json(m).verify()
    m["bits"] = {"lo": "100", "hi": "200"}
    with pytest.raises(CertificateInvalid):
        Leakage.from_json(m)


# ------------------------------------------------------------------------ M1, M2
def test_m1_bayes_risk_uniform_needs_n():
    with pytest.raises(InvalidArgument, match="pass n="):
        bayes_risk()
    with pytest.raises(InvalidArgument, match="pass n="):
        bayes_risk(prior="uniform")
    assert bayes_risk(prior="uniform", n=4).value == F(3, 4)


def test_m2_certificates_of_non_channels_do_not_verify():
    v = bayes_vulnerability(BSC).to_json()
    v.update(channel=[["5", "0"], ["0", "5"]], value="5", strategy=[0, 1])
    with pytest.raises(InvalidArgument):
        Vulnerability.from_json(v)
    good = bayes_vulnerability(BSC)
    five = ((F(5), F(0)), (F(0), F(5)))
    assert not dataclasses.replace(good, channel=five, value=F(5)).verify()
    H = shannon_entropy(["1/2", "1/2"]).to_json()
    H.update(prior=["1/2"] * 4, enclosure={"lo": "1", "hi": "3"})
    with pytest.raises(InvalidArgument):
        CertifiedQuantity.from_json(H)
    Hq = shannon_entropy(["1/2", "1/2"])
    assert not dataclasses.replace(Hq, prior=(F(1, 2),) * 4,
                                   enclosure=Enclosure(F(1), F(3))).verify()
    G = guessing_entropy(["1/2", "1/2"]).to_json()
    G.update(prior=["3", "-2"], value="-1")
    with pytest.raises(InvalidArgument):
        GuessingEntropy.from_json(G)
    assert not GuessingEntropy(F(-1), (F(3), F(-2))).verify()
    no = is_refined_by([[1], [1]], [["1/2", "1/2"], [0, 1]])
    assert not Refinement(False, None, no.farkas, no.A,
                          ((F(2), F(0)), (F(0), F(2)))).verify()


def test_m2_ragged_gain_and_bad_strategies():
    with pytest.raises(InvalidGainFunction):
        GainFunction.from_json({"name": "g", "loss": False, "rows": [["1"], ["0", "1"]]})
    good = bayes_vulnerability(BSC)
    for strat in ((-2, -1), (0.9, 1.2), (0, 5), (True, False)):
        assert not dataclasses.replace(good, strategy=strat).verify()   # no IndexError
    d = good.to_json()
    d["strategy"] = [-2, -1]
    with pytest.raises(InvalidArgument):
        Vulnerability.from_json(d)


# ---------------------------------------------------------------- M4: optimal JSON
def test_m4_optimal_mechanism_json_round_trip_and_edits():
    r = optimal_mechanism(line(4), ["1/8", "3/8", "1/4", "1/4"], t="1/3",
                          gain=GainFunction.distance_loss(line(4)))
    text = json.dumps(r.to_json())
    back = OptimalMechanism.from_json(json.loads(text))
    assert back.verify(line(4), ["1/8", "3/8", "1/4", "1/4"], t="1/3")
    assert back.value == r.value and back.certificate.mechanism == r.certificate.mechanism
    for key, val in (("value", "0"), ("u", ["0"] * 4)):
        d = json.loads(text)
        d[key] = val
        with pytest.raises(CertificateInvalid):
            OptimalMechanism.from_json(d)
    d = json.loads(text)
    d["question"]["t"] = "1/2"               # another question: the duals no longer prove it
    with pytest.raises(CertificateInvalid):
        OptimalMechanism.from_json(d)
    d = json.loads(text)
    d["question"]["metric"]["fingerprint"] = "sha256:" + "0" * 64
    with pytest.raises(CertificateInvalid):
        OptimalMechanism.from_json(d)


# ---------------------------------------------------------- M5 and minor 14: size limits
def test_m5_exact_simplex_fallback_refuses_big_tableaux(monkeypatch):
    import exactdp.qif.optimal as optimal_module

    with pytest.raises(LPNotCertified, match="MAX_EXACT_SIMPLEX_CELLS"):
        optimal_mechanism(discrete(5), "uniform", t="3/10", method="exact-simplex")
    # the review's 5-minute instance: the primal tight trees fail; since session 6 the dual
    # vertex read from HiGHS certifies it (float-basis) ...
    from exactdp.spaces.metrics import sum_query
    w = [3, 4, 7, 5, 1, 6, 7]
    pi = [F(v, sum(w)) for v in w]
    r = optimal_mechanism(sum_query(2, 3), pi, t="3/10")
    assert r.method == "float-basis" and r.verify(sum_query(2, 3), pi, t="3/10")
    # ... and when the float reading fails, the big fallback is still refused at once
    monkeypatch.setattr(optimal_module, "_certify_from_float", lambda *_a: None)
    with pytest.raises(LPNotCertified, match="cells"):
        optimal_mechanism(sum_query(2, 3), pi, t="3/10")


def test_minor14_refinement_limit_counts_the_tableau():
    A = [[F(1, 30)] * 30 for _ in range(10)]
    with pytest.raises(InstanceTooLarge, match="MAX_REFINEMENT_CELLS"):
        is_refined_by(A, A)


# ------------------------------------------------------------------------- M7
def test_m7_all_zero_gain_multiplicative_capacity():
    with pytest.raises(InvalidGainFunction, match="all zero"):
        g_capacity(GainFunction.from_matrix([[0, 0], [0, 0]]), BSC, "multiplicative")


# ---------------------------------------------------------------------- minors
def test_minor1_bayes_capacity_with_a_gain_is_refused():
    cap = additive_bayes_capacity([[1, 0], [0, 1]])
    forged = Capacity("additive-bayes", cap.value, cap.bounds, (F(3, 4), F(1, 4)), "subsets",
                      cap.channel, GainFunction.from_matrix([[2, 0], [0, 2]]))
    assert cap.verify() and not forged.verify()
    assert not dataclasses.replace(cap, witness=(0.5, 0.5)).verify()


def test_minor3_negative_vulnerabilities_refused_for_ratios():
    with pytest.raises(InvalidGainFunction):
        multiplicative_leakage(GainFunction.from_matrix([[-1, -2], [-2, -1]]), BSC)


def test_minor4_messages_name_the_gain():
    with pytest.raises(InvalidArgument, match="gain matrix"):
        prior_vulnerability([[1, 0, 0]], ["1/2", "1/2"])
    with pytest.raises(InvalidArgument):
        prior_vulnerability(5, ["1/2", "1/2"])


def test_minor5_6_argument_validation():
    for bad in ("x", -1, 2.5, 40):
        with pytest.raises(InvalidArgument):
            additive_bayes_capacity(BSC, max_exact=bad)
    with pytest.raises(InvalidGainFunction):
        GainFunction.k_tries("3", 2)
    with pytest.raises(InvalidGainFunction):
        GainFunction.identity(True)
    with pytest.raises(InvalidGainFunction):
        GainFunction.k_tries(60, 30)


def test_minor7_bad_precision_gives_false():
    H = shannon_entropy(["1/3", "2/3"])
    assert H.verify() and not dataclasses.replace(H, precision=1).verify()


def test_minor8_asymmetric_cost_is_not_a_metric():
    with pytest.raises(InvalidMetric):
        kantorovich([[0, 5], [1, 0]], ["1/2", "1/2"], [1, 0])
    k = kantorovich(line(3), ["1/2", "1/2", 0], [0, 0, 1])
    assert k.verify()
    assert not dataclasses.replace(k, f=tuple(float(v) for v in k.f)).verify()
    assert not Kantorovich(k.value, k.plan, k.f, k.g, k.distances, (F(1), F(1), F(-1)),
                           k.q).verify()


def test_minor14_kantorovich_limit_is_what_runs_in_seconds():
    n = 15
    D = [[abs(i - j) for j in range(n)] for i in range(n)]
    with pytest.raises(InstanceTooLarge, match="MAX_KANTOROVICH"):
        kantorovich(D, [F(1, n)] * n, [F(1, n)] * n)


def test_m4_capacity_refinement_kantorovich_json_refuse_edits():
    cap = additive_bayes_capacity(BSC)
    assert Capacity.from_json(cap.to_json()) == cap
    d = cap.to_json()
    d["value"], d["bounds"] = "1/2", {"lo": "1/2", "hi": "1/2"}
    with pytest.raises(CertificateInvalid):
        Capacity.from_json(d)
    ref = is_refined_by(BSC, [[1], [1]])
    assert Refinement.from_json(ref.to_json()) == ref
    d = ref.to_json()
    d["B"] = [["1", "0"], ["0", "1"]]
    with pytest.raises(CertificateInvalid):
        Refinement.from_json(d)
    k = kantorovich(line(3), ["1/2", "1/2", 0], [0, 0, 1])
    assert Kantorovich.from_json(k.to_json()) == k
    d = k.to_json()
    d["value"] = "1"
    with pytest.raises(CertificateInvalid):
        Kantorovich.from_json(d)


def test_m6_planar_constructors_refuse_tiny_eps_h():
    from exactdp.mechanisms.planar import planar_geometric_grid, planar_laplace_border
    with pytest.raises(InstanceTooLarge, match="MAX_GEOMETRIC_BOX"):
        planar_geometric_grid(2, 2, eps="1/4")
    with pytest.raises(InstanceTooLarge, match="MAX_LAPLACE_BOX"):
        planar_laplace_border(2, 2, eps="1/4")
