"""The threshold family's shared checks (session 11 compaction, 11K2): every reject path of the
helpers that now serve several kinds — ``frame_ok``, ``int_poly``, ``min_poly_ok``, ``strip``,
``no_root_upto`` (open/closed end, Descartes budget with the Sturm fallback), ``sign_run_ok``
(the holding run of the exact, structured and quotient kinds), ``is_index`` — reached through
each kind that uses it.

Ground truth is written down per case and is independent of the kernel:

* line(3), cells (0, 1, 0), b = 1: N = (1 − s, (1 − s)²), D = 1 − s² (Φ̃N = D·1 by hand, as in
  test_kernel_mut_quotient.py): z = (1, 1 − s, 1)/(1 + s) ≥ 0 on (0, 1), ε* = 0.
* the same cells, b = (1/4, 1/2, 1/4): N = (1 − 2s, 2s² − 2s + 2), D = 4(1 − s²); z_0 < 0 exactly
  for s > 1/2, so ε* = ln 2, s* = 1/2 (g = 2s − 1), witness cell 0; e^{-7/10} < 1/2 < e^{-69/100}.
* line(3), trivial cells (0, 1, 2), b = (1, 0, 0): x = (1, −s, 0)/(1 − s²), x_1 < 0 for every ε.
* sum_query(3, 2) (structured route): ε* = ln 2 / 2 (s* = 1/√2, g = 2s² − 1).
* synthetic polynomials for ``root_run_holds`` / ``sign_run_ok``: products of known factors.
"""

from __future__ import annotations

import dataclasses
import random
from fractions import Fraction as F

import flint
import pytest

from exactdp.arithmetic.interval import Enclosure
from exactdp.errors import InvalidArgument
from exactdp.kernel.threshold import (
    ThresholdClaim,
    check_threshold,
    count_roots,
    frame_ok,
    int_poly,
    is_index,
    min_poly_ok,
    no_root_upto,
    scaled_poly,
    sign_run_ok,
    strip,
)
from exactdp.kernel.threshold_quotient import QUOTIENT_KIND, check_quotient
from exactdp.kernel.threshold_structured import STRUCTURED_KIND, check_structured, root_run_holds
from exactdp.spaces.metrics import line, sum_query

PRIOR = (F(1, 4), F(1, 2), F(1, 4))
ONES3 = (F(1),) * 3


def _poly(*roots, lead=1):
    """lead · ∏ (den·s − num) over rational roots (with repetition)."""
    p = flint.fmpz_poly([lead])
    for r in roots:
        p *= flint.fmpz_poly([-r.numerator, r.denominator])
    return p


def _quotient(rhs=ONES3, eps=(0, 0), **ev):
    base = {"cells": (0, 1, 0), "numerators": ((-1, 1), (1, -2, 1)), "denominator": (-1, 0, 1),
            "witness": None, "s_star": None}
    return ThresholdClaim(QUOTIENT_KIND, line(3), rhs, Enclosure(F(eps[0]), F(eps[1])), {**base, **ev})


def _quotient_prior(**ev):
    base = {"numerators": ((-2, 1), (2, -2, 2)), "denominator": (-4, 0, 4), "witness": 0,
            "s_star": (1, (2, -1), Enclosure(F(1, 4), F(3, 4)))}
    return _quotient(PRIOR, (F(69, 100), F(7, 10)), **{**base, **ev})


# --------------------------------------------------------------------- shared helpers
def test_int_poly_and_is_index():
    assert int_poly((2, 0, -1)) == flint.fmpz_poly([-1, 0, 2]) and int_poly((0,)) == 0
    for bad in ((0, 1), (), [1, 2], (1.0,), (True, 1), "1", None):
        with pytest.raises(InvalidArgument):
            int_poly(bad)
    assert is_index(0, 1) and is_index(2, 3)
    assert not any(is_index(x, 3) for x in (3, -1, True, 1.0, "1", None))


def test_min_poly_ok():
    assert min_poly_ok(flint.fmpz_poly([-1, 2])) and min_poly_ok(flint.fmpz_poly([-1, 0, 2]))
    for g in (flint.fmpz_poly([1, -2]),            # negative leading coefficient
              flint.fmpz_poly([-2, 4]),            # not primitive
              _poly(F(1, 2), F(-1)),               # reducible
              _poly(F(1, 2), F(1, 2)),             # a square
              flint.fmpz_poly([3]), flint.fmpz_poly([])):
        assert not min_poly_ok(g), g


def test_strip():
    g = _poly(F(1, 2))
    assert strip(g**3 * _poly(F(1, 3)), g) == (3, _poly(F(1, 3)))
    assert strip(_poly(F(1, 3)), g) == (0, _poly(F(1, 3)))
    assert strip(flint.fmpz_poly([5]), g) == (0, flint.fmpz_poly([5]))


@pytest.mark.parametrize("budget", [None, 64, -1])  # -1: the Sturm fallback only
def test_no_root_upto_open_and_closed(budget):
    p = _poly(F(1, 2), F(3, 4))
    assert no_root_upto(p, F(1, 2), False, budget)      # the root 1/2 is the open end
    assert not no_root_upto(p, F(1, 2), True, budget)
    assert not no_root_upto(p, F(2, 3), False, budget)
    assert no_root_upto(p, F(1, 3), True, budget)
    assert not no_root_upto(flint.fmpz_poly([]), F(1), False, budget)  # zero: roots everywhere
    assert no_root_upto(flint.fmpz_poly([-7]), F(1), True, budget)
    clustered = _poly(*(F(k, 101) for k in range(40, 49)))            # needs > 2 pieces
    assert not no_root_upto(clustered, F(1, 2), True, budget)
    assert no_root_upto(clustered, F(39, 101), True, budget)


def test_sign_run_ok_each_reject_path():
    den, b = _poly(F(2)), F(3, 4)                       # D = s − 2 < 0 on (0, 1)
    good = [_poly(F(2), lead=3), _poly(F(5, 4), F(3, 2), lead=-1)]  # N/D > 0 on (0, b]
    assert sign_run_ok(good, den, b)
    assert not sign_run_ok(good, _poly(F(1, 2)), b)                 # D has a root in (0, b]
    assert not sign_run_ok(good, flint.fmpz_poly([]), b)            # D = 0
    assert not sign_run_ok([*good, -good[0]], den, b)               # N/D < 0 as s → 0+
    assert sign_run_ok([*good, flint.fmpz_poly([])], den, b)        # z ≡ 0 is ≥ 0
    even = _poly(F(1, 3), F(1, 3), F(5, 2))                          # (3s − 1)²(2s − 5): no sign change
    assert sign_run_ok([even], den, b) and not sign_run_ok([even], den, b, odd=False)
    odd = _poly(F(1, 3), F(5, 2), lead=-1)                           # N/D > 0 near 0+, < 0 past 1/3
    assert not sign_run_ok([odd], den, b)
    assert sign_run_ok([odd], den, F(1, 3), closed=False) and not sign_run_ok([odd], den, F(1, 3))
    g = _poly(F(1, 3))                                               # g's powers are taken out
    assert sign_run_ok([odd], den, b, g=g) and sign_run_ok([-odd * g], den, b, g=g, odd=False)


def test_scaled_poly_matches_its_definition():
    rng = random.Random(11)
    for _ in range(60):
        p = flint.fmpz_poly([rng.randint(-9, 9) for _ in range(rng.randint(1, 8))])
        p *= flint.fmpz_poly([0, 1]) ** rng.randint(0, 2)           # zeros at the low end too
        b = F(rng.randint(1, 30), rng.randint(1, 30))
        d = p.degree()
        want = [F(int(c)) * b.numerator**k * b.denominator ** (d - k) for k, c in enumerate(p.coeffs())]
        assert [F(int(c)) for c in scaled_poly(p, b).coeffs()] == want[:len(scaled_poly(p, b).coeffs())]
        assert all(c == 0 for c in want[len(scaled_poly(p, b).coeffs()):])


# ------------------------------------------------------------- the claim frame, per kind
def test_frame_ok_rejects_for_every_kind():
    q = _quotient()
    assert frame_ok(q, (QUOTIENT_KIND,)) and check_quotient(q)
    edits = {"kind": "exact", "metric": "line(3)", "eps": (F(0), F(0)), "rhs": [F(1)] * 3,
             "evidence": list(q.evidence.items())}
    for field, value in edits.items():
        assert not check_quotient(dataclasses.replace(q, **{field: value})), field
    assert not check_quotient(dataclasses.replace(q, rhs=(1, 1, 1)))          # ints, not Fractions
    assert not check_quotient(dataclasses.replace(q, rhs=ONES3[:2]))
    assert not check_quotient(dataclasses.replace(q, eps=Enclosure(F(-1), F(0))))
    assert not check_quotient(("quotient-threshold", line(3)))                 # not a claim
    s = _structured()
    assert check_structured(s)
    for field, value in {**edits, "kind": QUOTIENT_KIND, "rhs": tuple(1 for _ in s.rhs)}.items():
        assert not check_structured(dataclasses.replace(s, **{field: value})), field
    assert not check_threshold(dataclasses.replace(s, kind="exact", evidence={}))


# ------------------------------------------------------------------ quotient kind
def test_quotient_holding_run_rejects():
    assert check_quotient(_quotient())
    assert not check_quotient(_quotient(numerators=((0, -1, 1), (1, -2, 1))))  # leading zero
    # b = (1/4, 1/2, 1/4) with its true N, D: z_0 changes sign at s = 1/2 — "[0, 0]" is false
    assert not check_quotient(_quotient(PRIOR, numerators=((-2, 1), (2, -2, 2)), denominator=(-4, 0, 4)))
    # b = (1, 0, 0) on trivial cells: x_1 = −s/(1 − s²) < 0 near 0+ — "[0, 0]" is false
    assert not check_quotient(_quotient((F(1), F(0), F(0)), cells=(0, 1, 2),
                                        numerators=((1,), (-1, 0), (0,)), denominator=(-1, 0, 1)))
    # the true z of b = 1 written over D·(2s − 1): a root of D inside (0, 1) is "not proved"
    h = flint.fmpz_poly([-1, 2])
    nums = tuple(tuple(int(c) for c in reversed((p * h).coeffs())) for p in
                 (flint.fmpz_poly([1, -1]), flint.fmpz_poly([1, -2, 1])))
    den = tuple(int(c) for c in reversed((flint.fmpz_poly([1, 0, -1]) * h).coeffs()))
    assert not check_quotient(_quotient(numerators=nums, denominator=den))
    # s* stated without a witness, or hi > 0 with no witness (the [0, 0] form only)
    assert not check_quotient(_quotient(s_star=(1, (2, -1), Enclosure(F(1, 4), F(3, 4)))))
    assert not check_quotient(_quotient(eps=(0, 1)))


def test_quotient_root_run_rejects():
    assert check_quotient(_quotient_prior())
    bad = [{"witness": 1},                   # z_1 > 0 always: g ∤ N_1 (even multiplicity 0)
           {"witness": 2}, {"witness": True}, {"witness": 0.0},
           {"s_star": (1, (4, -2), Enclosure(F(1, 4), F(3, 4)))},          # not primitive
           {"s_star": (1, (-2, 1), Enclosure(F(1, 4), F(3, 4)))},          # negative leading
           {"s_star": (1, (2, 1, -1), Enclosure(F(1, 4), F(3, 4)))},       # (2s − 1)(s + 1)
           {"s_star": (2, (2, -1), Enclosure(F(1, 4), F(3, 4)))},          # another q
           {"s_star": (1, (0, 2, -1), Enclosure(F(1, 4), F(3, 4)))},       # leading zero
           {"s_star": (1, (2, -1), Enclosure(F(1, 4), F(1)))},             # b = 1: D(1) = 0
           {"s_star": (1, (2, -1), Enclosure(F(1, 8), F(1, 4)))}]          # no root of g there
    for change in bad:
        assert not check_quotient(_quotient_prior(**change)), change
    assert not check_quotient(dataclasses.replace(_quotient_prior(), eps=Enclosure(F(7, 10), F(8, 10))))
    assert not check_quotient(dataclasses.replace(_quotient_prior(), eps=Enclosure(F(69, 100), F(69, 100))))


def test_root_run_holds_odd_flag_and_zero_entries():
    """g = 2s − 1 (s* = 1/2), D = 1, N_0 = 1 − 2s (the witness), N_1 = (3s − 1)²: N_1 touches 0
    at 1/3 without changing sign — enough for the quotient kind (odd parts), not for the
    structured kind, which asks every stripped N_k to have no root in (0, b]."""
    eps, star, den = Enclosure(F(69, 100), F(7, 10)), (1, (2, -1), Enclosure(F(1, 4), F(3, 4))), flint.fmpz_poly([1])
    n0, n1 = flint.fmpz_poly([1, -2]), _poly(F(1, 3), F(1, 3))
    assert root_run_holds(eps, 1, star, [n0, n1], den, 0, odd=True)
    assert not root_run_holds(eps, 1, star, [n0, n1], den, 0, odd=False)
    assert root_run_holds(eps, 1, star, [n0, _poly(F(5, 4), F(5, 4))], den, 0)
    assert not root_run_holds(eps, 1, star, [flint.fmpz_poly([]), n1], den, 0, odd=True)  # N_w = 0
    assert root_run_holds(eps, 1, star, [n0, flint.fmpz_poly([])], den, 0, odd=True)      # z_1 ≡ 0
    assert not root_run_holds(eps, 1, star, [n0 * n0 * n0 * n0, n1], den, 0, odd=True)   # even power
    assert root_run_holds(eps, 1, star, [n0 * n0 * n0, n1], den, 0, odd=True)             # odd power
    assert not root_run_holds(eps, 1, star, [n0, n1], flint.fmpz_poly([]), 0, odd=True)    # D = 0
    assert not root_run_holds(eps, 1, star, [n0, n1], _poly(F(1, 5), lead=-1), 0, odd=True)
    assert not root_run_holds(eps, 1, star, [n0, -n1], den, 0, odd=True)                # N_1/D < 0


# ---------------------------------------------------------------- structured kind
def _structured():
    from exactdp.threshold.structured import structured_route

    res = structured_route(sum_query(3, 2), F(1, 10**6))
    assert res is not None
    return res.certificate.threshold_claim()


def test_structured_rejects_through_the_shared_checks():
    c = _structured()
    assert c.kind == STRUCTURED_KIND and check_structured(c)
    ev = c.evidence

    def with_(**change):
        return dataclasses.replace(c, evidence={**ev, **change})

    lead0 = ((0, *ev["numerators"][0]), *ev["numerators"][1:])
    q, g, iv = ev["s_star"]
    for bad in (with_(numerators=lead0), with_(denominator=(0, *ev["denominator"])),
                with_(witness=True), with_(witness=c.metric.n), with_(step=True), with_(offset=-1),
                with_(s_star=(q, tuple(2 * x for x in g), iv)),            # not primitive
                with_(s_star=(q, tuple(-x for x in g), iv)),               # negative leading
                with_(s_star=(q, (2, 2, -1, -1), iv)),                     # (2s² − 1)(s + 1)
                with_(s_star=(q + 1, g, iv))):
        assert not check_structured(bad)


# ---------------------------------------------------------------------- exact kind
def test_exact_s_star_minimal_polynomial_and_multiplicity():
    """line(3), b = (1/2, 1, 1/2): ε* = ln 2, s* = 1/2 (test_kernel_mutants9_threshold.py)."""
    ev = {"numerators": ((-2, 1), (2, -2, 2), (-2, 1)), "denominator": (-2, 0, 2), "witness": 0,
          "s_star": (1, (2, -1), Enclosure(F(1, 4), F(3, 4)))}
    b = (F(1, 2), F(1), F(1, 2))

    def claim(**change):
        return ThresholdClaim("exact", line(3), b, Enclosure(F(69, 100), F(7, 10)), {**ev, **change})

    assert check_threshold(claim())
    iv = Enclosure(F(1, 4), F(3, 4))
    assert count_roots(_poly(F(1, 2), F(-1)), iv.lo, iv.hi) == 1  # isolated, but reducible
    for star in ((1, (2, 1, -1), iv), (1, (4, -2), iv), (1, (-2, 1), iv),
                 (1, (3, -1), Enclosure(F(1, 4), F(1, 2))),      # 1/3: no factor of N_w
                 (1, (0, 2, -1), iv)):
        assert not check_threshold(claim(s_star=star)), star
    assert not check_threshold(claim(numerators=((0, -2, 1), (2, -2, 2), (-2, 1))))
    assert not check_threshold(claim(witness=3)) and not check_threshold(claim(witness=False))
