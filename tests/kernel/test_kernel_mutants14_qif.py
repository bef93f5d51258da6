"""Mutation survivors of ``exactdp/kernel/qif.py`` (session 14, task 14D: the full run of all
its mutants, after session 13's sample of 150).

The first tests are fast and broad (they run first for every mutant): a small genuine
document of every QIF kind verifies, and the same document with its claimed value moved
by 1/3 does not. Ground truth: the library's exact answer (a value is unique, so a moved
value is false) and hand-checked small cases, never the kernel.
"""

from __future__ import annotations

import copy
import itertools
from fractions import Fraction as F

import pytest
from flint import arb

import exactdp.kernel.qif as kernel_qif
from exactdp.arithmetic.ball import arb_from_fraction, arb_to_fraction_interval, workprec
from exactdp.errors import InstanceTooLarge, InvalidArgument
from exactdp.kernel.jsonio import document_numbers, write_rational
from exactdp.kernel.metricio import fingerprint, write_metric
from exactdp.kernel.qif import MAX_QIF_WORK, check_phi, strategy_work, subset_work
from exactdp.kernel.verify import verify_document
from exactdp.qif import (
    GainFunction,
    additive_bayes_capacity,
    additive_leakage,
    g_capacity,
    guessing_entropy,
    is_refined_by,
    kantorovich,
    multiplicative_bayes_capacity,
    multiplicative_leakage,
    optimal_mechanism,
    posterior_vulnerability,
    prior_vulnerability,
)
from exactdp.spaces.metrics import from_matrix, line

C3 = [["1/2", "1/3", "1/6"], ["1/5", "3/5", "1/5"], ["1/7", "2/7", "4/7"]]
PI = ["1/2", "1/3", "1/6"]
G = GainFunction.from_matrix([[1, "1/2", 0], ["1/3", 1, "1/4"], [0, "1/2", 1]])
LOSS = GainFunction.from_matrix([[0, 1, 2], [1, 0, 1], [2, 1, 0]], loss=True)

CASES = {
    "vuln-prior": lambda: prior_vulnerability(G, PI),
    "vuln": lambda: posterior_vulnerability(G, C3, PI),
    "vuln-loss": lambda: posterior_vulnerability(LOSS, C3, PI),
    "leak-add": lambda: additive_leakage(G, C3, PI),
    "leak-mult": lambda: multiplicative_leakage(G, C3, PI),
    "leak-mult-none": lambda: multiplicative_leakage(G, [["1/2", "1/2"]] * 3, PI),   # ratio 1, log2 0
    "guess": lambda: guessing_entropy(PI, C3),
    "cap-mult-bayes": lambda: multiplicative_bayes_capacity(C3),
    "cap-add-bayes": lambda: additive_bayes_capacity(C3),
    "cap-add-bounds": lambda: additive_bayes_capacity([[1, 0, 0], [0, 1, 0], [0, 0, 1]], max_exact=0),  # hi 2/3
    "cap-add-bounds-1": lambda: additive_bayes_capacity([["1/2", "1/2"]], max_exact=0),           # one secret: 0
    "cap-add-g": lambda: g_capacity(G, C3, "additive"),
    "cap-loss-g": lambda: g_capacity(LOSS, C3, "additive"),
    "refine-fails": lambda: is_refined_by([["1/2", "1/2"], [1, 0]], [[1, 0], [0, 1]]),
    "refine-holds": lambda: is_refined_by([[1, 0], [0, 1]], [["1/2", "1/2"], ["1/3", "2/3"]]),
    "kantorovich": lambda: kantorovich(line(3), ["1/2", "1/3", "1/6"], ["1/6", "1/6", "2/3"]),
    "optimal": lambda: optimal_mechanism(line(3), ["1/2", "1/3", "1/6"], t="1/2"),
    "optimal-loss": lambda: optimal_mechanism(line(3), ["1/2", "1/3", "1/6"], t="1/3",
                                              gain=GainFunction.distance_loss(line(3))),
}


def _verified(doc) -> bool:
    """The kernel's verdict; a malformed document counts as not verified."""
    try:
        return verify_document(doc).verified
    except InvalidArgument:
        return False


@pytest.mark.parametrize("name", list(CASES))
def test_genuine_small_document_verifies_and_a_moved_value_does_not(name):
    doc = CASES[name]().to_document()
    assert verify_document(doc).verified
    claim = doc["claim"]
    key = "value" if claim.get("value") is not None else "verdict" if "verdict" in claim else "bounds"
    bad = copy.deepcopy(doc)
    if key == "value":
        bad["claim"]["value"] = str(F(claim["value"]) + F(1, 3))
    elif key == "verdict":
        bad["claim"]["verdict"] = "holds" if claim["verdict"] == "fails" else "fails"
    else:
        bad["claim"]["bounds"]["lo"] = str(F(claim["bounds"]["lo"]) + F(1, 3))
    assert not _verified(bad)


def _entry_bits(*Ms) -> int:
    return max(v.numerator.bit_length() + v.denominator.bit_length() for M in Ms for r in M for v in r)


def _channel_of(n: int, m: int, den: int) -> tuple[tuple[F, ...], ...]:
    """n × m rows (1 − (m−1)/den, 1/den, …): entries with about 2·bits(den) bits."""
    return tuple((1 - F(m - 1, den),) + (F(1, den),) * (m - 1) for _ in range(n))


@pytest.mark.parametrize("den", [3, 2**40 + 1, 2**70 + 1, 2**200 + 3])
def test_strategy_and_subset_work_are_the_documented_counts(den):
    """|W|^|cols| · n·(|cols| + |W|) · words(bits(C) + bits(G)); 2^n · |Y| · words(|Y|·bits(C)),
    words(b) = 1 + b // 64 — re-computed here from the docstrings."""
    for n, m, W in ((2, 3, 2), (3, 2, 3), (4, 5, 1)):
        C = _channel_of(n, m, den)
        G = tuple(tuple(F(w + x + 1, 7 + w) for x in range(n)) for w in range(W))
        assert strategy_work(C, G) == W ** m * n * (m + W) * (1 + (_entry_bits(C) + _entry_bits(G)) // 64)
        assert subset_work(C) == 2 ** n * m * (1 + m * _entry_bits(C) // 64)


def test_strategy_work_caps_64_columns_before_forming_the_power():
    """|W|^|cols| is never formed for 64 or more non-zero columns: the count is the cap
    MAX_QIF_WORK + 1 (refused), even for one action; 63 columns are counted."""
    G = ((F(1),),)
    assert strategy_work(tuple((F(1, 63),) * 63 for _ in range(1)), G) == 1 * 1 * 64 * 1
    assert strategy_work(tuple((F(1, 64),) * 64 for _ in range(1)), G) == MAX_QIF_WORK + 1


def _leakage_doc(measure: str, gain_rows, prior, channel, value, pv, qv) -> dict:
    return {"schema": "exactdp-certificate", "version": 1, "kind": "qif-leakage",
            "question": {"measure": measure, "gain": {"rows": gain_rows, "loss": False, "name": "g"},
                         "prior": prior, "channel": channel},
            "claim": {"value": value, "prior_value": pv, "posterior_value": qv, "log2": None, "bits": None},
            "evidence": {"precision": None}}


def test_leakage_needs_a_channel():
    """Leakage compares prior and posterior: a null channel is malformed (a vulnerability may
    omit it, a leakage may not) — not a leakage of 0."""
    ident = [["1", "0"], ["0", "1"]]
    doc = _leakage_doc("additive", ident, ["1/2", "1/2"], ident, "1/2", "1/2", "1")
    assert verify_document(doc).verified        # V(π) = 1/2, V[π, I] = 1: leakage 1/2 (by hand)
    doc = _leakage_doc("additive", ident, ["1/2", "1/2"], None, "0", "1/2", "1/2")
    with pytest.raises(InvalidArgument, match="question.channel"):
        verify_document(doc)


def test_multiplicative_leakage_with_a_non_positive_prior_vulnerability_is_rejected():
    """G = [[1, −3], [−3, 1]], uniform prior, identity channel: V(π) = max(−1, −1) = −1 and
    V[π, I] = 1/2 + 1/2 = 1 (by hand); the ratio is undefined (divisor ≤ 0), so the claim
    "−1" is rejected, and so is the claim of a zero divisor (V(π) = 0 for G = [[1, −1], [−1, 1]])."""
    ident = [["1", "0"], ["0", "1"]]
    doc = _leakage_doc("multiplicative", [["1", "-3"], ["-3", "1"]], ["1/2", "1/2"], ident, "-1", "-1", "1")
    assert not verify_document(doc).verified
    add = _leakage_doc("additive", [["1", "-3"], ["-3", "1"]], ["1/2", "1/2"], ident, "2", "-1", "1")
    assert verify_document(add).verified        # the same vulnerabilities, additively: 1 − (−1) = 2
    zero = _leakage_doc("multiplicative", [["1", "-1"], ["-1", "1"]], ["1/2", "1/2"], ident, "1", "0", "1")
    assert not verify_document(zero).verified


def test_log2_of_a_power_of_two_needs_an_enclosure_holding_it():
    """Identity channel on 2 secrets, uniform prior: the ratio is 1/(1/2) = 2 (by hand), log2 = 1."""
    doc = multiplicative_leakage(GainFunction.identity(2), [[1, 0], [0, 1]]).to_document()
    assert doc["claim"]["value"] == "2" and verify_document(doc).verified
    exact = copy.deepcopy(doc)
    exact["claim"]["bits"] = {"lo": "1", "hi": "1"}   # log2 2 = 1 exactly: a point enclosure is true
    assert verify_document(exact).verified
    for lo, hi in (("2", "3"), ("0", "1/2"), ("-1", "0")):
        bad = copy.deepcopy(doc)
        bad["claim"]["bits"] = {"lo": lo, "hi": hi}
        assert not _verified(bad), (lo, hi)


def test_log2_of_a_ratio_with_only_a_power_of_two_denominator_is_a_ball():
    """C = [[1, 0], [1/2, 1/2]], uniform prior, identity gain: V(π) = 1/2, V[π, C] = 1/2 + 1/4
    = 3/4 (by hand), ratio 3/2, log2(3/2) = 0.58496… — not an integer, though 2 is a power of 2."""
    doc = multiplicative_leakage(GainFunction.identity(2), [[1, 0], ["1/2", "1/2"]], ["1/2", "1/2"]).to_document()
    assert doc["claim"]["value"] == "3/2" and verify_document(doc).verified
    lo, hi = F(doc["claim"]["bits"]["lo"]), F(doc["claim"]["bits"]["hi"])
    assert F(5849, 10000) < lo < hi < F(5850, 10000)          # log2(1.5) = 0.5849625…
    bad = copy.deepcopy(doc)
    bad["claim"]["bits"] = {"lo": "0", "hi": "0"}     # the integer 1 − 1 = 0, false
    assert not _verified(bad)


def test_refinement_fails_document_is_exactly_verdict_fails_farkas_and_null_remap():
    """A = [[1/2, 1/2], [1, 0]] does not refine to the identity B (B reveals the secret, A
    does not); the Farkas document verifies, and with a remap attached or the verdict
    "undecided" it is malformed."""
    doc = is_refined_by([["1/2", "1/2"], [1, 0]], [[1, 0], [0, 1]]).to_document()
    assert doc["claim"]["verdict"] == "fails" and verify_document(doc).verified
    with_remap = copy.deepcopy(doc)
    with_remap["evidence"]["remap"] = [["1", "0"], ["0", "1"]]
    undecided = copy.deepcopy(doc)
    undecided["claim"]["verdict"] = "undecided"
    for bad in (with_remap, undecided):
        with pytest.raises(InvalidArgument):
            verify_document(bad)


def _fails_doc(A, B, y) -> dict:
    return {"schema": "exactdp-certificate", "version": 1, "kind": "qif-refinement",
            "question": {"A": A, "B": B}, "claim": {"verdict": "fails"},
            "evidence": {"remap": None, "farkas": [str(v) for v in y]}}


@pytest.mark.parametrize("A, B", [
    ([["1"]], [["1"]]),
    ([["1", "0"], ["0", "1"]], [["1", "0"], ["0", "1"]]),
    ([["1", "0"], ["0", "1"]], [["1/2", "1/2"], ["1/3", "2/3"]]),
    ([["1/2", "1/2"], ["1/3", "2/3"]], [["1"], ["1"]]),
])
def test_no_farkas_vector_refutes_a_refinement_that_holds(A, B):
    """B = A·R for a channel R (R = B when A is the identity, R = [[1], [1]] for one column,
    by hand), so by Farkas's lemma no y has Mᵀy ≥ 0 and b·y < 0: every "fails" document is
    false. Tried: every y in {−2, …, 2}^(n·k + m) up to 3,125 of them, else every 7th (7 is
prime to 5, so every coordinate takes every value), deterministic."""
    n, m, k = len(A), len(A[0]), len(B[0])
    size = n * k + m
    tried = 0
    for y in itertools.islice(itertools.product(range(-2, 3), repeat=size), 0, None, 1 if 5 ** size <= 3125 else 7):
        assert not verify_document(_fails_doc(A, B, y)).verified, y
        tried += 1
    assert tried >= min(5 ** size, 2000)


def test_optimal_mechanism_work_is_n_squared_m_words():
    """check_phi counts n²·m·words(bits of φ): 2000²·1·1 = 4·10⁶ is the limit itself, 2001² is
    over; with s = 2^-64 (65 bits, 2 words) 1414²·2 = 3,998,792 fits and 1415²·2 does not."""
    check_phi(F(1, 2), [0, 1], 2000, 1)
    with pytest.raises(InstanceTooLarge, match="MAX_QIF_WORK"):
        check_phi(F(1, 2), [0, 1], 2001, 1)
    with pytest.raises(InstanceTooLarge, match="MAX_QIF_WORK"):
        check_phi(F(1, 2), [0, 1], 1000, 5)
    check_phi(F(1, 2**64), [0, 1], 1414, 1)
    with pytest.raises(InstanceTooLarge, match="MAX_QIF_WORK"):
        check_phi(F(1, 2**64), [0, 1], 1415, 1)


def test_vulnerability_work_is_counted_from_prior_columns_and_actions():
    """2·n·|Y|·|W| operations: n = 2, |Y| = 1000, |W| = 1001 is over 4·10⁶ (|W| = 1000 is the
    limit itself) and refused before any sum; |W| = 10 is counted and checked."""
    def doc(actions: int) -> dict:
        return {"schema": "exactdp-certificate", "version": 1, "kind": "qif-vulnerability",
                "question": {"gain": {"rows": [["1", "0"]] * actions, "loss": False, "name": "g"},
                             "prior": ["1/2", "1/2"], "channel": [["1/1000"] * 1000] * 2},
                "claim": {"value": "1/2", "strategy": [0] * 1000}, "evidence": {}}
    # V = Σ_y max_w Σ_x π_x C[x][y] G[w][x] = 1000 · (1/2 · 1/1000) = 1/2 (by hand)
    assert verify_document(doc(10)).verified
    with pytest.raises(InstanceTooLarge, match="MAX_QIF_WORK"):
        verify_document(doc(1001))


def test_bayes_capacity_has_no_gain_and_no_duals():
    doc = multiplicative_bayes_capacity(C3).to_document()
    assert verify_document(doc).verified
    for key, part, value in (("question", "gain", {"rows": [["1", "0", "0"]], "loss": False, "name": "g"}),
                             ("evidence", "duals", [])):
        bad = copy.deepcopy(doc)
        bad[key][part] = value
        with pytest.raises(InvalidArgument, match="Bayes capacity"):
            verify_document(bad)


def test_refinement_holds_document_has_a_null_farkas():
    doc = CASES["refine-holds"]().to_document()
    assert doc["claim"]["verdict"] == "holds" and doc["evidence"]["farkas"] is None
    bad = copy.deepcopy(doc)
    bad["evidence"]["farkas"] = ["0"] * 6
    with pytest.raises(InvalidArgument, match="farkas"):
        verify_document(bad)


def test_optimal_mechanism_t_must_lie_strictly_between_0_and_1():
    doc = optimal_mechanism(line(2), t="1/2").to_document()
    assert verify_document(doc).verified
    for t in ("1", "2", "0"):
        bad = copy.deepcopy(doc)
        bad["question"]["t"] = t
        with pytest.raises(InvalidArgument, match="question.t"):
            verify_document(bad)


def _words(*Ms) -> int:
    return 1 + _entry_bits(*Ms) // 64


def _counts(monkeypatch, doc) -> list[int]:
    """The counts the kernel charges (each call of its work check), in order."""
    seen: list[int] = []
    real = kernel_qif.check_qif_work

    def spy(*counts: int, what: str = "the document") -> None:
        seen.append(sum(counts))
        real(*counts, what=what)
    monkeypatch.setattr(kernel_qif, "check_qif_work", spy)  # every count goes through it (no alias since 15P)
    assert verify_document(doc).verified
    return seen


def _m(rows) -> tuple[tuple[F, ...], ...]:
    return tuple(tuple(F(v) for v in r) for r in rows)


def test_counted_work_of_each_checker_is_its_formula(monkeypatch):
    """Re-computed here: vulnerability 2·n·|Y|·|W|; capacity n·|Y|·(|W| or 1)·2·words(C, G), then
    the search (0 for a closed form; strategy_work for duals, charged again by the duals);
    refinement n·m·k·2; optimal mechanism n²·|W|, then n²·m·words(bits of φ)."""
    C = _m(C3)
    Gm = _m([[1, "1/2", 0], ["1/3", 1, "1/4"], [0, "1/2", 1]])
    assert _counts(monkeypatch, CASES["vuln"]().to_document()) == [2 * 3 * 3 * 3]
    assert _counts(monkeypatch, CASES["vuln-prior"]().to_document()) == [2 * 3 * 1 * 3]   # no channel: one column
    assert _counts(monkeypatch, CASES["cap-mult-bayes"]().to_document()) == [3 * 3 * 1 * 2 * _words(C), 0]
    big = _channel_of(2, 3, 2**70 + 1)                # entries of 2·71 bits: 3 words
    assert _words(big) == 3
    assert _counts(monkeypatch, multiplicative_bayes_capacity(big).to_document()) == [2 * 3 * 1 * 2 * 3, 0]
    sw = strategy_work(C, Gm)
    assert _counts(monkeypatch, CASES["cap-add-g"]().to_document()) == [3 * 3 * 3 * 2 * _words(C, Gm), sw, sw]
    assert _counts(monkeypatch, CASES["refine-holds"]().to_document()) == [2 * 2 * 2 * 2]
    # line(3) at t = 1/2: s = 1/2, largest exponent 2, φ = 1/4: 2·2 = 4 bits, one word
    assert _counts(monkeypatch, CASES["optimal"]().to_document()) == [3 * 3 * 3, 3 * 3 * 3 * 1]


def _two_point(value, K, u, lam) -> dict:
    doc = optimal_mechanism(line(2), t="1/2").to_document()
    doc["claim"] = {"value": value, "mechanism": K}
    doc["evidence"].update(u=u, **{"lambda": lam})
    return doc


def test_optimal_dual_multipliers_are_nonnegative_off_diagonal_and_weighted_by_phi():
    """line(2), t = 1/2 (φ = 1/2), uniform prior, identity gain. By hand: K = [[2/3, 1/3],
    [1/3, 2/3]] is private (1/2 · 2/3 ≤ 1/3) with value 2/3, and u = (1/3, 1/3), λ = 1/3 on
    (0, 1, w=0) and (1, 0, w=1) leave every slack ≥ 0: optimal, 2/3. The uniform K (value 1/2)
    is not optimal, so each forged dual for it below is false: negative λ, λ on a = b, or λ
    that covers the slack only if divided by φ instead of multiplied."""
    assert optimal_mechanism(line(2), t="1/2").value == F(2, 3)
    half = [["1/2", "1/2"], ["1/2", "1/2"]]
    genuine = _two_point("2/3", [["2/3", "1/3"], ["1/3", "2/3"]], ["1/3", "1/3"], [[0, 1, 0, "1/3"], [1, 0, 1, "1/3"]])
    assert verify_document(genuine).verified
    genuine["evidence"]["lambda"].append([1, 0, 0, "0"])      # a zero multiplier changes nothing
    assert verify_document(genuine).verified
    forged = {
        "negative": _two_point("1/2", half, ["1/4", "1/4"], [[1, 0, 0, "-1/4"], [0, 1, 1, "-1/4"]]),
        "divided": _two_point("1/2", half, ["1/4", "1/4"], [[0, 1, 0, "1/4"], [1, 0, 1, "1/4"]]),
        "diagonal": _two_point("1/2", half, ["1/4", "1/4"], [[0, 0, 0, "1"]]),
    }
    for name, doc in forged.items():
        assert not _verified(doc), name


def test_one_secret_subset_search_verifies():
    """One secret leaks nothing: the additive Bayes capacity of a 1 × 2 channel is 0 (by hand),
    found by the exact sub-uniform search over its single subset."""
    doc = {"schema": "exactdp-certificate", "version": 1, "kind": "qif-capacity",
           "question": {"measure": "additive-bayes", "channel": [["1/2", "1/2"]], "gain": None},
           "claim": {"value": "0", "bounds": {"lo": "0", "hi": "0"}, "witness": ["1"]},
           "evidence": {"method": "subsets", "duals": None}}
    assert verify_document(doc).verified


def test_one_point_metric_has_phi_one_whatever_t():
    """A one-point metric has only d = 0, so φ = s^0 = 1 (0 bits) even for t = 2^-65535
    (65,536 bits): 3,903 actions cost 1²·3903·words(0) = 3,903, well inside the limits
    (charging one power of s would be 3903·1025 > 4·10⁶). K = [1, 0, …] with u = 1 is optimal:
    every action gains 1 on the one secret (by hand)."""
    metric = from_matrix([[0]])
    W = 3903
    with document_numbers():                         # 19,729 digits: over Python's default str limit
        t = write_rational(F(1, 2**65535))
    doc = {"schema": "exactdp-certificate", "version": 1, "kind": "qif-optimal-mechanism",
           "question": {"metric": write_metric(metric, None, fingerprint(metric)), "prior": ["1"],
                        "t": t, "gain": {"rows": [["1"]] * W, "loss": False, "name": "g"}},
           "claim": {"value": "1", "mechanism": [["1"] + ["0"] * (W - 1)]},
           "evidence": {"method": "unstated", "u": ["1"], "lambda": []}}
    assert verify_document(doc).verified


def test_vulnerability_strategy_names_an_action():
    """G has 3 actions: a strategy entry 3 names none (malformed); 0–2 are actions."""
    doc = CASES["vuln"]().to_document()
    bad = copy.deepcopy(doc)
    bad["claim"]["strategy"][0] = 3
    with pytest.raises(InvalidArgument, match="claim.strategy"):
        verify_document(bad)


def test_log2_of_four_thirds_is_a_ball():
    """C = [[2/3, 1/3], [1/3, 2/3]], uniform prior, identity gain: V(π) = 1/2, V[π, C] = 2/3
    (by hand), ratio 4/3, log2 = 0.41503…: a power of 2 over 2² − 1, not an integer."""
    doc = multiplicative_leakage(GainFunction.identity(2), [["2/3", "1/3"], ["1/3", "2/3"]]).to_document()
    assert doc["claim"]["value"] == "4/3" and verify_document(doc).verified
    assert F(4150, 10000) < F(doc["claim"]["bits"]["lo"]) < F(doc["claim"]["bits"]["hi"]) < F(4151, 10000)


def test_log2_ball_must_lie_strictly_inside_the_claimed_bits():
    """The kernel's rule (module docstring): the arb ball of log2(value) at the stated
    precision lies strictly inside ``bits``. Bits ending exactly at the ball's end are refused;
    a wide enclosure at precision 2 (the least allowed) is accepted."""
    doc = CASES["leak-mult"]().to_document()
    value, prec = F(doc["claim"]["value"]), doc["evidence"]["precision"]
    with workprec(prec):
        lo_end, hi_end = arb_to_fraction_interval(arb_from_fraction(value).log() / arb(2).log())
    for lo, hi in ((lo_end, F(doc["claim"]["bits"]["hi"])), (F(doc["claim"]["bits"]["lo"]), hi_end)):
        bad = copy.deepcopy(doc)
        bad["claim"]["bits"] = {"lo": str(lo), "hi": str(hi)}
        assert not _verified(bad)
    wide = copy.deepcopy(doc)
    wide["claim"]["bits"] = {"lo": "-10", "hi": "10"}
    wide["evidence"]["precision"] = 2
    assert verify_document(wide).verified


def test_kantorovich_distances_are_a_square_symmetric_matrix():
    doc = CASES["kantorovich"]().to_document()
    D = doc["question"]["distances"]
    wide = copy.deepcopy(doc)
    wide["question"]["distances"] = [row + ["5"] for row in D]          # 3 × 4
    skew = copy.deepcopy(doc)
    skew["question"]["distances"] = [list(r) for r in D]
    skew["question"]["distances"][0][2] = str(F(D[0][2]) + 1)          # d(0, 2) ≠ d(2, 0)
    for bad in (wide, skew):
        with pytest.raises(InvalidArgument, match="question.distances"):
            verify_document(bad)


def test_one_secret_g_capacity_and_one_point_kantorovich_verify():
    """One secret leaks nothing (g-capacity 0) and one point is at distance 0 from itself
    (Kantorovich 0): both by hand."""
    cap = g_capacity(GainFunction.from_matrix([[1]]), [["1/2", "1/2"]], "additive").to_document()
    kan = kantorovich([[0]], ["1"], ["1"]).to_document()
    vul = posterior_vulnerability(GainFunction.from_matrix([[1]]), [["1/2", "1/2"]], ["1"]).to_document()
    assert cap["claim"]["value"] == "0" and kan["claim"]["value"] == "0" and vul["claim"]["value"] == "1"
    assert verify_document(cap).verified and verify_document(kan).verified and verify_document(vul).verified


def test_kantorovich_potentials_are_bounded_by_their_sum():
    """D = [[0, 1], [1, 0]], p = q = (1/2, 1/2): the distance is 0 (the diagonal plan, by
    hand). The anti-diagonal plan costs 1, and f = g = (1/2, 1/2) give p·f + q·g = 1, but
    f_0 + g_0 = 1 > d(0, 0) = 0: the claim "1" is false and is rejected."""
    doc = {"schema": "exactdp-certificate", "version": 1, "kind": "qif-kantorovich",
           "question": {"distances": [["0", "1"], ["1", "0"]], "p": ["1/2", "1/2"], "q": ["1/2", "1/2"]},
           "claim": {"value": "1"},
           "evidence": {"plan": [["0", "1/2"], ["1/2", "0"]], "f": ["1/2", "1/2"], "g": ["1/2", "1/2"]}}
    assert not verify_document(doc).verified
    doc["claim"]["value"] = "0"
    doc["evidence"] = {"plan": [["1/2", "0"], ["0", "1/2"]], "f": ["0", "0"], "g": ["0", "0"]}
    assert verify_document(doc).verified


def test_optimal_lambda_indices_name_secrets_and_actions():
    """line(2) with 2 actions: a, b ∈ {0, 1} and w ∈ {0, 1}; index 2 names nothing (malformed)."""
    for bad in ([2, 0, 0, "0"], [0, 2, 0, "0"], [0, 1, 2, "0"]):
        doc = _two_point("2/3", [["2/3", "1/3"], ["1/3", "2/3"]], ["1/3", "1/3"],
                         [[0, 1, 0, "1/3"], [1, 0, 1, "1/3"], bad])
        with pytest.raises(InvalidArgument, match="evidence.lambda"):
            verify_document(doc)


def test_matrix_shape_errors_are_malformed_even_for_one_row():
    """A one-action gain with 3 columns for 2 secrets, and a one-point Kantorovich question
    whose only distance d(0, 0) = 1 is not 0: both malformed (InvalidArgument)."""
    doc = CASES["vuln"]().to_document()
    doc["question"]["gain"]["rows"] = [["1", "0", "0", "0"]]           # 3 secrets: 4 columns
    with pytest.raises(InvalidArgument, match="columns"):
        verify_document(doc)
    kan = kantorovich([[0]], ["1"], ["1"]).to_document()
    kan["question"]["distances"] = [["1"]]
    with pytest.raises(InvalidArgument, match="question.distances"):
        verify_document(kan)
