"""Discrete Laplace, class-law, class-scale and class-pair documents
(exactdp/kernel/pufferfish_more.py).

Ground truth of every tampering is written here: θ* and α* come from their closed forms at
50 digits (mpmath), class laws from exact Fraction convolution; a tampered claim that is false
must be rejected, a malformed document must raise a specific InvalidArgument.
"""

from __future__ import annotations

import copy
import dataclasses
import random
import subprocess
import sys
from fractions import Fraction as F

import mpmath
import pytest

from exactdp.cli import main
from exactdp.errors import InstanceTooLarge, InvalidArgument
from exactdp.kernel.jsonio import dumps, envelope, loads
from exactdp.kernel.pufferfish_more import (
    MAX_BITS,
    check_pufferfish_more,
    discrete_ratio,
    discrete_work,
)
from exactdp.kernel.verify import verify_document
from exactdp.pufferfish import DistributionPair, DistributionVsAbsent, bernoulli
from exactdp.pufferfish.class_laws import class_law, class_vs_absent_scale
from exactdp.pufferfish.class_pairs import ClassPairScale, class_pair_scale
from exactdp.pufferfish.discrete import discrete_laplace_scale
from exactdp.pufferfish.distributions import DiscreteDistribution
from exactdp.pufferfish.documents import from_document, to_document

P3 = DiscreteDistribution.from_lists([0, 1, 3], ["1/2", "1/4", "1/4"])
Q3 = DiscreteDistribution.from_lists([0, 2], ["1/3", "2/3"])


def _results():
    return [
        discrete_laplace_scale(DistributionVsAbsent(bernoulli("1/3")), 1),
        discrete_laplace_scale(DistributionVsAbsent(bernoulli("1/2")), "ln(2)"),
        discrete_laplace_scale(DistributionVsAbsent(bernoulli("1/3")), "sqrt(2)"),
        discrete_laplace_scale(DistributionPair(P3, Q3), 1),
        discrete_laplace_scale(DistributionPair(P3, P3), 1),
        class_law(["1/2", "1/3", "1/3"]),
        class_law((40, "2/7")),
        class_vs_absent_scale((38903, "10207/38903"), 1),
        class_vs_absent_scale(["1/2", "1/3", "1/3"], "ln(2)"),
        class_vs_absent_scale((5, "1/2"), "sqrt(2)"),
        class_pair_scale((40, "2/7"), (40, "1/3"), 1),
        class_pair_scale(["1/2", "1/3"], ["1/2", "1/4"], "ln(2)"),
    ]


RESULTS = _results()


@pytest.mark.parametrize("r", RESULTS, ids=lambda r: type(r).__name__)
def test_round_trip_verifies_and_rebuilds(r):
    doc = to_document(r)
    assert verify_document(loads(dumps(doc))).verified
    again = from_document(loads(dumps(doc)))
    if isinstance(r, ClassPairScale):  # the uncertified float guess does not travel
        again = dataclasses.replace(again, guess_float=r.guess_float)
    assert again == r and again.verify()


def _fresh(tmp_path, name, doc_or_text):
    path = tmp_path / name
    path.write_text(doc_or_text if isinstance(doc_or_text, str) else dumps(doc_or_text))
    return subprocess.run([sys.executable, "-m", "exactdp", "verify", str(path)],
                          capture_output=True, text=True, timeout=120).returncode


def test_fresh_process_exit_codes(tmp_path):
    good = to_document(RESULTS[0])
    bad = copy.deepcopy(good)
    bad["claim"]["closed_form"] = "1/(-1 + 3*E)"
    big = _set(to_document(RESULTS[6]), ("question", "groups", 0, "count"), 10**6)  # 10^12 bits
    text = dumps(good).replace('"closed_form"', '"closed_form": null, "x"', 1)
    assert _fresh(tmp_path, "good.json", good) == 0
    for k, d in enumerate((bad, big, text)):  # in this process (each fresh one costs seconds)
        (tmp_path / f"in{k}.json").write_text(d if isinstance(d, str) else dumps(d))
    assert [main(["verify", str(tmp_path / f"in{k}.json")]) for k in (0, 1, 2)] == [1, 2, 3]


@pytest.fixture(autouse=True)
def _fifty_digits():
    """50-digit mpmath in every test, whatever another test file left in the global context."""
    with mpmath.workdps(50):
        yield


def _mp(x):
    return mpmath.mpf(x.numerator) / x.denominator


def _alpha_star(p, eps):  # α* = 1/u*, u* = (e^ε − 1 + p)/p for Bernoulli(p) vs absent
    return 1 / ((mpmath.e**eps - 1 + p) / p)


def _set(doc, path, value):
    d = copy.deepcopy(doc)
    obj = d
    for k in path[:-1]:
        obj = obj[k]
    obj[path[-1]] = value
    return d


def test_every_field_of_a_discrete_document_is_checked():
    r = RESULTS[0]  # Bernoulli(1/3) vs absent at ε = 1
    doc = to_document(r)
    star = _alpha_star(mpmath.mpf(1) / 3, 1)
    lo, hi = r.alpha_lo, r.alpha_hi
    above = F(mpmath.nstr(star, 45)) + F(1, 10**44)
    below = F(mpmath.nstr(star, 45)) - F(1, 10**44)
    assert _mp(lo) < _mp(below) < star < _mp(above) < _mp(hi)
    false_claims = [
        (("claim", "least", "lo"), str(above)),            # α* no longer in (lo, hi]
        (("claim", "least", "hi"), str(below)),
        (("claim", "ratios", 0), str(r.ratio_lo + F(1, 10**40))),
        (("claim", "ratios", 1), str(r.ratio_hi - F(1, 10**40))),
        (("claim", "closed_form"), "1/(-1 + 3*E)"),
        (("claim", "closed_form"), str(hi)),               # inside the bracket, but not α*
        (("claim", "least"), "0"),
        (("question", "P", "probs"), ["1/2", "1/2"]),      # another question
        (("question", "level"), {"t": "1/3"}),
        (("question", "level"), {"eps": "2"}),
    ]
    for path, value in false_claims:
        bad = _set(doc, path, value)
        if path[-1] == "least":
            bad["claim"]["ratios"] = bad["claim"]["closed_form"] = None
        assert verify_document(bad).verified is False, path
    assert check_pufferfish_more(_set(doc, ("claim", "closed_form"), None))  # a true, weaker claim
    for path, value in [(("claim", "ratios"), ["1"]), (("claim", "least", "lo"), "2/4"),
                        (("question", "P", "support"), ["0", "1/2"]), (("claim", "extra"), 1),
                        (("claim", "closed_form"), "ln(2)")]:
        with pytest.raises(InvalidArgument):
            verify_document(_set(doc, path, value))


def test_class_scale_fields_are_checked():
    r = RESULTS[7]
    doc = to_document(r)
    n, p = 38903, mpmath.mpf(10207) / 38903
    star = 1 / mpmath.log(1 + (mpmath.e ** (mpmath.mpf(1) / n) - 1) / p)
    above, below = F(mpmath.nstr(star, 45)) + F(1, 10**40), F(mpmath.nstr(star, 45)) - F(1, 10**40)
    assert _mp(r.lo) < _mp(below) < star < _mp(above) < _mp(r.hi)
    for path, value in [(("claim", "least", "lo"), str(above)), (("claim", "least", "hi"), str(below)),
                        (("claim", "closed_form"), "1/log(-28696/10207 + 38903*exp(1/38902)/10207)"),
                        (("claim", "closed_form"), str(r.hi)),
                        (("question", "groups", 0, "count"), 38902),
                        (("question", "groups", 0, "p"), "10206/38903"),
                        (("question", "level"), {"eps": "2"}),
                        (("evidence", "tol"), "1/10000000000000000000000000000000")]:
        assert verify_document(_set(doc, path, value)).verified is False, path
    several = to_document(RESULTS[8])
    assert not verify_document(_set(several, ("claim", "closed_form"), str(RESULTS[8].hi))).verified
    with pytest.raises(InvalidArgument):  # equal p's must be merged into one count
        verify_document(_set(several, ("question", "groups", 0, "p"), "1/2"))


def test_class_law_fields_are_checked():
    r = RESULTS[5]
    doc = to_document(r)
    truth = {0: F(1)}
    for p in (F(1, 2), F(1, 3), F(1, 3)):  # exact convolution
        truth = {j: truth.get(j, 0) * (1 - p) + truth.get(j - 1, 0) * p for j in range(len(truth) + 1)}
    den = int(doc["claim"]["denominator"])
    assert [F(int(c), den) for c in reversed(doc["claim"]["numerator"])] == list(truth.values())
    for k in range(len(doc["claim"]["numerator"])):
        bad = _set(doc, ("claim", "numerator", k), str(int(doc["claim"]["numerator"][k]) + 1))
        assert not verify_document(bad).verified, k
    for path, value in [(("claim", "denominator"), str(den + 1)),
                        (("question", "groups", 0, "p"), "1/4"),
                        (("question", "groups", 0, "count"), 1)]:
        assert not verify_document(_set(doc, path, value)).verified, path


def test_huge_and_tiny_rationals_get_specific_errors():
    def disc(span, lo):
        return envelope("pufferfish-discrete-laplace",
                        {"P": {"support": ["0", str(span)], "probs": ["1/2", "1/2"]},
                         "Q": {"support": ["0"], "probs": ["1"]}, "level": {"eps": "1"}},
                        {"least": {"lo": str(lo), "hi": "1/2"}, "ratios": ["1", "1"],
                         "closed_form": None}, {})
    with pytest.raises(InstanceTooLarge, match="MAX_BITS"):  # α = 10^-400 over a span of 10^5
        verify_document(disc(10**5, F(1, 10**400)))
    doc = disc(1, F(1, 10**400))
    assert not verify_document(doc).verified  # wrong ratios (and it fails at 1/2): rejected
    with pytest.raises(InvalidArgument, match="count"):
        verify_document(_set(to_document(RESULTS[7]), ("question", "groups", 0, "count"), 10**19))
    with pytest.raises(InvalidArgument, match="integer"):
        verify_document(_set(doc, ("question", "P", "support"), ["0", "1/10000000000"]))
    tiny = class_vs_absent_scale((10**18, F(1, 10**400)), 1)  # θ* ≈ 1/ln(10^382)
    tdoc = to_document(tiny)
    assert verify_document(tdoc).verified
    star = 1 / mpmath.log(1 + mpmath.expm1(mpmath.mpf(10)**-18) * mpmath.mpf(10)**400)
    assert _mp(tiny.lo) < star <= _mp(tiny.hi)
    wrong = _set(tdoc, ("claim", "least", "hi"), str(F(mpmath.nstr(star, 45)) - F(1, 10**44)))
    assert not verify_document(wrong).verified


def _law(n, p):  # exact Binomial(n, p) by convolution
    law = {0: F(1)}
    for _ in range(n):
        law = {j: law.get(j, 0) * (1 - p) + law.get(j - 1, 0) * p for j in range(len(law) + 1)}
    return law


def _loss(A, B, theta, j):  # |ln g_A(j) − ln g_B(j)| at 50 digits
    g = [mpmath.fsum(_mp(m) * mpmath.exp(-abs(j - i) / _mp(theta)) for i, m in D.items())
         for D in (A, B)]
    return abs(mpmath.log(g[0]) - mpmath.log(g[1]))


def test_class_pair_fields_are_checked():
    r = RESULTS[10]
    doc = to_document(r)
    A, B = _law(40, F(2, 7)), _law(40, F(1, 3))
    worst = [max(_loss(A, B, th, j) for j in range(41)) for th in (r.lo, r.hi)]
    assert worst[0] > 1 >= worst[1] and _loss(A, B, r.lo, r.worst_j_lo) > 1
    hi2, lo2 = r.lo * (1 - F(1, 10**6)), r.hi * (1 + F(1, 10**6))
    assert max(_loss(A, B, hi2, j) for j in range(41)) > 1 >= max(_loss(A, B, lo2, j) for j in range(41))
    quiet = next(j for j in range(41) if _loss(A, B, r.lo, j) <= 1)
    for path, value in [(("claim", "least"), {"lo": str(hi2 * F(9, 10)), "hi": str(hi2)}),
                        (("claim", "least"), {"lo": str(lo2), "hi": str(2 * lo2)}),
                        (("claim", "witness"), quiet), (("claim", "least"), "0"),
                        (("question", "b", 0, "p"), "2/7"), (("question", "a", 0, "count"), 39),
                        (("question", "level"), {"eps": "2"}), (("evidence", "tol"), "1/10000000000000000000000")]:
        bad = _set(doc, path, value)
        if value == "0":
            bad["claim"]["witness"] = None
        assert not verify_document(bad).verified, path
    with pytest.raises(InstanceTooLarge, match="MAX_POINTS"):
        verify_document(_set(doc, ("question", "a", 0, "count"), 1000))


# ------------------------------------------------ review 11G9 regressions (fixer session)
def _disc_doc(support, lo, hi, level=None):
    return envelope("pufferfish-discrete-laplace",
                    {"P": {"support": [str(x) for x in support],
                           "probs": [f"1/{len(support)}"] * len(support)},
                     "Q": {"support": ["0"], "probs": ["1"]}, "level": level or {"t": "1/2"}},
                    {"least": {"lo": lo, "hi": hi}, "ratios": ["1", "1"], "closed_form": None}, {})


def _brute_ratio(P, Q, a):  # R(α) by the defining double sum in Fractions
    return max(max(hp / hq, hq / hp) for s in sorted(set(P) | set(Q))
               for hp, hq in [[sum(w * a ** int(abs(s - d)) for d, w in D.items()) for D in (P, Q)]])


def test_discrete_ratio_work_is_bounded_before_computing():
    # span 10^6 at α = 1/2, 2/3 (6·10^6 bits): 5-19 s of Fraction gcds before, ≈ 0.1 s now
    assert check_pufferfish_more(_disc_doc([0, 10**6], "1/2", "2/3")) is False  # ratios wrong
    for support in ([0, 2 * 10**6], [2000 * i for i in range(999)]):  # were minutes, > 15 min
        with pytest.raises(InstanceTooLarge, match="MAX_BITS"):
            check_pufferfish_more(_disc_doc(support, "2/3", "3/4"))
    assert discrete_work({F(0): F(1)}, {F(5): F(1)}, F(2, 3)) == 2 * 5 * 4 <= MAX_BITS
    rng = random.Random(7)  # the integer sweeps against the defining sum
    def law():
        xs, ws = rng.sample(range(-9, 9), rng.randint(1, 4)), [rng.randint(1, 9) for _ in range(4)]
        return {F(x): F(w, sum(ws[:len(xs)])) for x, w in zip(xs, ws)}
    for _ in range(60):
        P, Q, a = law(), law(), F(rng.randint(1, 12), 13)
        assert discrete_ratio(P, Q, a) == _brute_ratio(P, Q, a)
    wide = dataclasses.replace(RESULTS[0], P=DiscreteDistribution.from_lists(
        [0, 10**7], ["2/3", "1/3"]))
    with pytest.raises(InstanceTooLarge, match="MAX_BITS"):  # the writer refuses as well
        to_document(wide)


def test_discrete_closed_form_the_kernel_cannot_prove_is_left_out():
    r = discrete_laplace_scale(DistributionPair(DiscreteDistribution.from_lists(
        [0, 65], ["1/3", "2/3"]), DiscreteDistribution.from_lists([0], ["1"])), 1)
    assert r.alpha_expr is not None and r.verify()  # 2**(1/65)/(-1 + 3*E)**(1/65)
    doc = loads(dumps(to_document(r)))
    assert doc["claim"]["closed_form"] is None and verify_document(doc).verified
    again = from_document(doc)  # the closed form is re-derived and proved by the library
    assert again == r and again.verify()
    for a, side in ((r.alpha_lo, 1), (r.alpha_hi, -1)):  # the bracket at 50 digits
        h = [(_mp(a) ** abs(s) / 3 + 2 * _mp(a) ** abs(s - 65) / 3, _mp(a) ** abs(s)) for s in (0, 65)]
        loss = max(abs(mpmath.log(hp / hq)) for hp, hq in h)
        assert (loss - 1) * side > 0
    for two_point in (RESULTS[0], RESULTS[9]):  # a true, weaker claim rebuilds and verifies
        bare = _set(to_document(two_point), ("claim", "closed_form"), None)
        assert verify_document(bare).verified and from_document(bare).verify()


def test_huge_brackets_rebuild_without_overflow():
    d = to_document(class_pair_scale((3, "1/10"), (3, "9/10"), 1))
    d["claim"]["least"] = {"lo": "1/1" + "0" * 400, "hi": "1" + "0" * 400}
    d["evidence"]["tol"] = None  # true but loose (θ* ≈ 2.387)
    assert verify_document(d).verified
    assert from_document(d).guess_float == float("inf")
    assert dataclasses.replace(RESULTS[7], hi=F(10**400)).float() == float("inf")


def test_kernel_and_library_agree_on_tol_witness_and_ties():
    doc = to_document(RESULTS[7])
    for tol in ("1", "0", "10"):  # the library's tol lies in (0, 1)
        with pytest.raises(InvalidArgument, match="tol"):
            verify_document(_set(doc, ("evidence", "tol"), tol))
    pair = to_document(class_pair_scale((3, "1/10"), (3, "9/10"), 1))
    with pytest.raises(InvalidArgument, match="witness"):  # beyond N = 3 (library: j ≤ N)
        verify_document(_set(pair, ("claim", "witness"), 500))
    with pytest.raises(InvalidArgument, match="tol"):
        verify_document(_set(pair, ("evidence", "tol"), "2"))
    tie = envelope("pufferfish-class-scale", {"groups": [{"p": "1", "count": 3}], "level": {"eps": "1"}},
                   {"least": {"lo": "2", "hi": "3"}, "closed_form": None}, {"tol": "1/2", "prec": 256})
    assert check_pufferfish_more(tie)  # θ* = n/ε = 3 = hi exactly
    assert not check_pufferfish_more(_set(tie, ("claim", "least", "hi"), "29/10"))
    point = envelope("pufferfish-class-law", {"groups": [{"p": "0", "count": 10**18}]},
                     {"numerator": ["1"], "denominator": "1"}, {})
    assert check_pufferfish_more(point)  # a point mass at 0, not "10^18-bit coefficients"
    with pytest.raises(InstanceTooLarge, match="MAX_BITS"):
        check_pufferfish_more(_set(point, ("question", "groups", 0, "p"), "1"))
