"""Review of 11Q (QIF kernel documents): forgeries and unbounded work found by the reviewer.

Ground truth is independent of the kernel: the library's own exact leakage of a prior (which
lower-bounds every capacity) and plain arithmetic on tiny instances.
"""

import subprocess
import sys
from fractions import Fraction as F

import pytest

from exactdp.errors import CertificateInvalid, InstanceTooLarge, InvalidArgument
from exactdp.kernel.jsonio import dumps
from exactdp.kernel.metricio import fingerprint, write_metric
from exactdp.kernel.qif import MAX_QIF_WORK, strategy_work, subset_work
from exactdp.kernel.verify import verify_document
from exactdp.qif import Capacity, GainFunction, additive_bayes_capacity, g_capacity, multiplicative_leakage
from exactdp.qif.optimal import optimal_mechanism
from exactdp.qif.optimal_lp import OptimalMechanism
from exactdp.spaces.metrics import from_matrix, line

BSC = [["9/10", "1/10"], ["1/10", "9/10"]]
ERROR_LOSS = [["0", "1"], ["1", "0"]]


def _mult_loss_capacity_forgery():
    """Multiplicative g-capacity of a LOSS: claims the capacity lies in [1, 9/5].

    Every dual satisfies the kernel's gain-side test Σ μ_w ℓ_w ≥ a_σ, which bounds
    a_σ·π ≤ Σμ · max_w ℓ_w·π — the wrong direction for U(π)/U[π,C] (it needs a lower bound on
    U[π,C]). The uniform prior alone leaks 5 (below).
    """
    return {"schema": "exactdp-certificate", "version": 1, "kind": "qif-capacity",
            "question": {"measure": "multiplicative-g", "channel": BSC,
                         "gain": {"rows": ERROR_LOSS, "loss": True, "name": "error"}},
            "claim": {"value": None, "bounds": {"lo": "1", "hi": "9/5"}, "witness": ["9/10", "1/10"]},
            "evidence": {"method": "strategies-lp",
                         "duals": [["1", "0"], ["1/10", "1/10"], ["9/10", "9/10"], ["0", "1"]]}}


def test_ground_truth_uniform_prior_leaks_more_than_the_forged_hi():
    loss = GainFunction.from_matrix([[0, 1], [1, 0]], loss=True)
    leak = multiplicative_leakage(loss, BSC, ["1/2", "1/2"]).value
    assert leak == 5 and leak > F(9, 5)


def test_multiplicative_loss_capacity_forgery_rejected():
    try:
        assert not verify_document(_mult_loss_capacity_forgery()).verified
    except InvalidArgument:
        pass


def test_multiplicative_loss_capacity_forgery_not_read():
    with pytest.raises((CertificateInvalid, InvalidArgument)):
        Capacity.from_document(_mult_loss_capacity_forgery())


def test_multiplicative_loss_capacity_forgery_cli(tmp_path):
    path = tmp_path / "forged.json"
    path.write_text(dumps(_mult_loss_capacity_forgery()))
    rc = subprocess.run([sys.executable, "-m", "exactdp", "verify", str(path)], capture_output=True).returncode
    assert rc in (1, 3)


def _optimal_far_metric(distance: int):
    metric = from_matrix([[0, distance], [distance, 0]])
    return {"schema": "exactdp-certificate", "version": 1, "kind": "qif-optimal-mechanism",
            "question": {"metric": write_metric(metric, None, fingerprint(metric)), "prior": ["1/2", "1/2"],
                         "t": "1/2", "gain": {"rows": [["1", "0"], ["0", "1"]], "loss": False, "name": "identity"}},
            "claim": {"value": "1", "mechanism": [["1", "0"], ["0", "1"]]},
            "evidence": {"method": "exact-simplex", "u": ["1/2", "1/2"], "lambda": []}}


def test_optimal_huge_exponent_refused_up_front():
    # 2^(10^7): about 1.2 MB per entry, computed in seconds today; the kernel should refuse
    # exponents whose s^k it cannot afford before building φ (the writer should too).
    with pytest.raises(InstanceTooLarge):
        verify_document(_optimal_far_metric(10**7))


def _subset_doc(n: int, cols: int, digits: int):
    rows = []
    for x in range(n):
        w = [10 ** (digits - 1) + 7919 * (x + 1) * (y + 3) + y for y in range(cols)]
        s = sum(w)
        rows.append([str(F(v, s)) for v in w])
    return {"schema": "exactdp-certificate", "version": 1, "kind": "qif-capacity",
            "question": {"measure": "additive-bayes", "channel": rows, "gain": None},
            "claim": {"value": None, "bounds": {"lo": "0", "hi": "1"}, "witness": ["1"] + ["0"] * (n - 1)},
            "evidence": {"method": "subsets", "duals": None}}


def test_subset_search_of_huge_entries_refused_up_front(monkeypatch):
    def _never(C):
        raise AssertionError("the sub-uniform search ran on a document it should have refused")
    monkeypatch.setattr("exactdp.kernel.qif._subuniform", _never)
    with pytest.raises(InstanceTooLarge):
        verify_document(_subset_doc(18, 15, 4000))


# ---- fixes of 11Q-fix: the refusals name their field; the writers refuse the same ----

def test_multiplicative_loss_capacity_refusal_names_the_field():
    with pytest.raises(InvalidArgument, match="question.gain.loss"):
        verify_document(_mult_loss_capacity_forgery())


def test_multiplicative_negative_gain_capacity_refused():
    doc = _mult_loss_capacity_forgery()
    doc["question"]["gain"] = {"rows": [["1", "-1"], ["-1", "1"]], "loss": False, "name": "signed"}
    with pytest.raises(InvalidArgument, match="question.gain"):
        verify_document(doc)


def test_genuine_multiplicative_g_capacity_still_verifies():
    cap = g_capacity(GainFunction.from_matrix([[1, 0], [0, 1]]), BSC, "multiplicative")
    assert verify_document(cap.to_document()).verified and Capacity.from_document(cap.to_document()) == cap


def test_optimal_huge_exponent_refusal_names_the_limit_and_the_writer_refuses_too():
    with pytest.raises(InstanceTooLarge, match="MAX_PHI_BITS"):
        verify_document(_optimal_far_metric(10**14))
    with pytest.raises(InstanceTooLarge, match="MAX_PHI_BITS"):
        optimal_mechanism(from_matrix([[0, 10**7], [10**7, 0]]), t="1/2")


def test_small_optimal_mechanism_document_still_verifies():
    r = optimal_mechanism(line(3), t="1/2")
    assert verify_document(r.to_document()).verified
    assert OptimalMechanism.from_document(r.to_document()).value == r.value


def test_subset_writer_falls_back_to_bounds_when_the_kernel_would_refuse(monkeypatch):
    doc = _subset_doc(10, 15, 400)
    C = tuple(tuple(F(v) for v in r) for r in doc["question"]["channel"])
    assert subset_work(C) > MAX_QIF_WORK >= (1 << 10) * 15       # only the digits push it over
    with pytest.raises(InstanceTooLarge, match="counted operations"):
        verify_document(doc)

    def _never(C):
        raise AssertionError("the writer ran the exact search the kernel would refuse")
    monkeypatch.setattr("exactdp.qif.capacity._best_subset", _never)
    cap = additive_bayes_capacity(doc["question"]["channel"])
    assert cap.method == "bounds" and verify_document(cap.to_document()).verified


def test_g_capacity_duals_count_building_each_a_sigma(monkeypatch):
    """n=2, W=2, 19 columns: 2^19·2·2 ≈ 2.1·10⁶ loop steps were within the old count; building
    each a_σ (n·|cols| products) puts it at 2^19·2·21 ≈ 2.2·10⁷, refused before any dual."""
    def _never(*args):
        raise AssertionError("the duals were read for a document over the work limit")
    monkeypatch.setattr("exactdp.kernel.qif._g_upper", _never)
    doc = {"schema": "exactdp-certificate", "version": 1, "kind": "qif-capacity",
           "question": {"measure": "additive-g", "channel": [["1/19"] * 19] * 2,
                        "gain": {"rows": [["1", "0"], ["0", "1"]], "loss": False, "name": "id"}},
           "claim": {"value": "0", "bounds": {"lo": "0", "hi": "0"}, "witness": ["1/2", "1/2"]},
           "evidence": {"method": "strategies-lp", "duals": []}}
    with pytest.raises(InstanceTooLarge, match="counted operations"):
        verify_document(doc)


def test_g_capacity_writer_refuses_what_the_kernel_refuses():
    """4096 strategies (within MAX_STRATEGIES) × 80 secrets × (12 + 2): over the count only
    because each a_σ costs n·|cols|; the old count (W^|cols|·n·W ≈ 6.6·10⁵) let it through."""
    C = [[F(1, 12)] * 12] * 80
    G = GainFunction.from_matrix([[x % 2 for x in range(80)], [1 - x % 2 for x in range(80)]])
    Ct = tuple(tuple(r) for r in C)
    assert 2 ** 12 * 80 * 2 <= MAX_QIF_WORK < strategy_work(Ct, G.rows)
    with pytest.raises(InstanceTooLarge, match="MAX_QIF_WORK"):
        g_capacity(G, C)
