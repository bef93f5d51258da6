"""Review 11P11 fixes: honest Gaussian limits (F1), bounded kernel work (F2), exact δ = 0 (F3).

Kernel: exactdp/kernel/pufferfish_mechanisms.py; writers: exactdp/pufferfish/gaussian.py, staircase.py.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction as F

import numpy as np
import pytest

from exactdp.arithmetic.ball import arb_to_fraction_interval, workprec
from exactdp.arithmetic.interval import Enclosure
from exactdp.errors import InstanceTooLarge
from exactdp.kernel import pufferfish_mechanisms as K
from exactdp.kernel.jsonio import envelope
from exactdp.kernel.verify import verify_document
from exactdp.pufferfish.distributions import DiscreteDistribution
from exactdp.pufferfish.gaussian import GaussianDelta
from exactdp.spaces.levels import parse_level


def law(pts: list[int]) -> dict[str, list[str]]:
    return {"support": [str(p) for p in pts], "probs": [str(F(1, len(pts)))] * len(pts)}


def delta_doc(P: dict, Q: dict, lo: str, hi: str, sigma: str = "1/4") -> dict:
    return envelope("pufferfish-gaussian-delta", {"P": P, "Q": Q, "level": {"eps": "1/10"}, "sigma": sigma},
                    {"delta": {"lo": lo, "hi": hi}}, {"prec": 128, "rel_tol": "1/1000000"})


def interleaved(n: int) -> tuple[dict, dict]:
    return law(list(range(0, 2 * n, 2))), law(list(range(1, 2 * n, 2)))


def as_dist(d: dict) -> dict[F, F]:
    return {F(x): F(w) for x, w in zip(d["support"], d["probs"])}


# ------------------------------------------------------------------ F1: one limit, both sides
def test_limit_is_stated_in_sign_changes_and_refused_at_once() -> None:
    level = parse_level(eps=F(1, 10))
    P, Q = (as_dist(x) for x in interleaved(20))
    assert K.sign_changes(P, Q, level) == 39  # alternating v_d: m − 1 changes
    with pytest.raises(InstanceTooLarge, match="MAX_GAUSS_WORK"):
        K.gaussian_work(P, Q, F(1, 4), level)
    with pytest.raises(InstanceTooLarge, match="MAX_GAUSS_WORK"):  # the kernel refuses before any piece
        verify_document(delta_doc(*interleaved(20), "0", "1"))
    P16, Q16 = (as_dist(x) for x in interleaved(16))
    assert K.gaussian_work(P16, Q16, F(1, 4), level) <= K.MAX_GAUSS_WORK  # 32 points, 31 roots: within
    assert verify_document(delta_doc(*interleaved(6), "0", "1")).verified  # decided, not refused


def test_writer_refuses_what_the_kernel_would_refuse() -> None:
    P, Q = (DiscreteDistribution.from_lists(x["support"], x["probs"]) for x in interleaved(20))
    r = GaussianDelta(P, Q, F(1, 4), parse_level(eps=F(1, 10)).eps, Enclosure(F(0), F(1)), 128)
    with pytest.raises(InstanceTooLarge, match="MAX_GAUSS_WORK"):
        r.to_document()


def test_sign_changes_bound_the_roots_of_h() -> None:
    rng, level = random.Random(5), parse_level(eps=F(1, 2))
    z = np.linspace(-10, 30, 40001)
    for _ in range(6):
        pts = sorted(rng.sample(range(0, 20), 6))
        P = {F(p): F(rng.randint(1, 9)) for p in pts[:4]}
        Q = {F(p): F(rng.randint(1, 9)) for p in pts[2:]}
        P, Q = ({k: v / sum(D.values()) for k, v in D.items()} for D in (P, Q))
        bound = K.sign_changes(P, Q, level)
        for A, B in ((P, Q), (Q, P)):
            h = sum((float(A.get(d, 0)) - math.e ** 0.5 * float(B.get(d, 0))) * np.exp(-(z - float(d)) ** 2 / 2)
                    for d in set(P) | set(Q))
            s = np.sign(h[np.abs(h) > 1e-12])
            assert int(np.sum(s[1:] != s[:-1])) <= bound


# ------------------------------------------------------------------ F2: bounded work
def test_gaussian_budget_is_spent_in_piece_point_units() -> None:
    level, budget = parse_level(eps=1), [K.MAX_GAUSS_WORK]
    with workprec(128):
        K.gaussian_hockey({F(0): F(1)}, {F(1): F(1)}, F(1), level, 128, budget)
    used = K.MAX_GAUSS_WORK - budget[0]
    assert used > 0 and used % 2 == 0  # pieces × 2 points
    with workprec(128), pytest.raises(InstanceTooLarge, match="MAX_GAUSS_WORK"):
        K.gaussian_hockey({F(0): F(1)}, {F(1): F(1)}, F(1), level, 128, [used - 2])


def test_forced_ladder_stops_at_the_shared_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """A claim that stays undecided at every precision spends one budget for the whole document."""
    P, Q, level = as_dist(law([0, 1, 2])), as_dist(law([0, 3])), parse_level(eps=F(1, 10))
    spent = []
    for prec in K.PRECS:
        budget = [K.MAX_GAUSS_WORK]
        with workprec(prec):
            (l1, u1), (l2, u2) = (K.gaussian_hockey(A, B, F(1, 4), level, prec, budget) for A, B in ((P, Q), (Q, P)))
            lo, hi = arb_to_fraction_interval(l1.max(l2))[0], arb_to_fraction_interval(u1.max(u2))[1]
        spent.append(K.MAX_GAUSS_WORK - budget[0])
    estimate = K.gaussian_work(P, Q, F(1, 4), level)
    assert spent[0] <= estimate < sum(spent)  # the first rung fits the estimate; the whole ladder does not
    monkeypatch.setattr(K, "MAX_GAUSS_WORK", estimate)
    assert verify_document(delta_doc(law([0, 1, 2]), law([0, 3]), "0", "1")).verified  # decided at 128 bits
    mid = str((lo + hi) / 2)  # a point claim inside the 1024-bit ball: it never contains a ball
    with pytest.raises(InstanceTooLarge, match="MAX_GAUSS_WORK"):
        K.check_pufferfish_mechanisms(delta_doc(law([0, 1, 2]), law([0, 3]), mid, mid))


def reference_key(P: dict, Q: dict, delta: F, gamma: F, y: F) -> tuple:
    """The exponent rule e = ⌊r⌋ + [r − ⌊r⌋ ≥ γ], r = |y − d|/Δ, in Fractions."""
    polys: list[dict[int, F]] = [{}, {}]
    for poly, D in zip(polys, (P, Q)):
        for d, w in D.items():
            r = abs(y - d) / delta
            e = math.floor(r) + (r - math.floor(r) >= gamma)
            poly[e] = poly.get(e, F(0)) + w
    low = min(min(polys[0]), min(polys[1]))
    return tuple(tuple(sorted((e - low, w) for e, w in p.items())) for p in polys)


def test_integer_keys_match_the_fraction_rule() -> None:
    rng = random.Random(11)
    for _ in range(5):
        pts = [F(rng.randint(0, 400), rng.choice([1, 3, 7, 10])) for _ in range(7)]
        P = {p: F(rng.randint(1, 5), 17) for p in set(pts[:4])}
        Q = {p: F(rng.randint(1, 5), 13) for p in set(pts[3:])}
        P, Q = ({k: v / sum(D.values()) for k, v in D.items()} for D in (P, Q))
        delta, gamma = F(rng.randint(1, 30), rng.randint(1, 4)), F(rng.randint(0, 6), 6)
        mids = K.staircase_mids(P, Q, delta, gamma)
        assert K.staircase_keys(P, Q, delta, gamma, mids) == [reference_key(P, Q, delta, gamma, y) for y in mids]


def test_staircase_work_counts_denominators() -> None:
    rng = random.Random(3)
    small = {F(k, 100): F(1, 80) for k in range(80)}
    big = {F(rng.getrandbits(600) | 1, rng.getrandbits(600) | 1) % 1: F(1, 80) for _ in range(80)}
    assert K.staircase_work(small, small, F(1), F(1, 2), F(1, 3)) <= K.MAX_STAIR_WORK
    with pytest.raises(InstanceTooLarge, match="MAX_STAIR_WORK"):
        K.staircase_work(big, big, F(1), F(1, 2), F(1, 3))


# ------------------------------------------------------------------ F3: exact δ = 0
def test_equal_laws_have_delta_exactly_zero() -> None:
    same = law([0, 5, 9])
    assert verify_document(delta_doc(same, same, "0", "0")).verified
    assert not verify_document(delta_doc(same, same, "1/10", "1")).verified
    assert not verify_document(delta_doc(law([0]), law([1]), "0", "0", "1")).verified  # δ > 0 there
    scale = envelope("pufferfish-gaussian-scale", {"P": same, "Q": same, "level": {"eps": "1"}, "delta": "1/100"},
                     {"least": {"lo": "1", "hi": "2"}, "at_lo": {"lo": "1/50", "hi": "1"},
                      "at_hi": {"lo": "0", "hi": "0"}}, {"prec": [128, 128], "rel_tol": ["1/1000", "1/1000"]})
    assert not verify_document(scale).verified  # δ(σ) = 0 < target for every σ: no least σ
