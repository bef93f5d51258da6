"""The first complete mutation run of exactdp/kernel/threshold_poly.py (session 17) left three
mutants that change an answer unkilled; each test here decides its case independently.

* ``strip``: a remainder that is a nonzero *constant* must stop the division ("rem.degree()
  ≥ 0" → "≥ 1" counts g | p when p = g·Q + c). A forged s* that is a root of 4s² − 16s + 3
  (2 − √13/2 = 0.1972…), where the witness's numerator N_2 = 4s² − 16s + 4 = g + 1 does not vanish,
  is rejected only by that count.
* ``sign_run_ok``: a nonzero *constant* numerator of the wrong sign is a negative z_k (the
  "N_k/D > 0 as s → 0+" test was skipped for degree 0 by "degree ≥ 0" → "> 0").
* ``no_root_upto``: on an open interval (0, b) with p(b) = 0, the Sturm fallback subtracts
  the root at b ("− at_b" → "+ at_b" rejected a true claim). p = (s − 1)(10s² − 10s + 3) has
  roots 1 and 1/2 ± i·√5/10 only, and Descartes' bound on (0, 1) is 2, so a zero budget takes
  the fallback.
"""

from __future__ import annotations

import copy
from fractions import Fraction as F

import flint
import sympy

from exactdp import epsilon_threshold
from exactdp.kernel.threshold_poly import no_root_upto, roots_01_within, scaled_poly, sign_run_ok, strip
from exactdp.kernel.verify import verify_document
from exactdp.spaces.metrics import line


def _p(*descending: int) -> flint.fmpz_poly:
    return flint.fmpz_poly(list(reversed(descending)))


def test_strip_stops_at_a_constant_remainder():
    assert strip(_p(4, -16, 4), _p(4, -16, 3)) == (0, _p(4, -16, 4))
    assert strip(_p(4, -16, 3) * _p(4, -16, 3) * _p(1, 1), _p(4, -16, 3)) == (2, _p(1, 1))


def test_forged_s_star_where_the_witness_does_not_vanish():
    doc = epsilon_threshold(line(5), prior=[F(k, 37) for k in (9, 4, 4, 12, 8)]).certificate.to_json()
    assert doc["evidence"]["witness"] == 2 and doc["evidence"]["numerators"][2] == ["4", "-16", "4"]
    assert verify_document(doc).verified
    s = sympy.Symbol("s")
    root = min(r for r in sympy.real_roots(4 * s**2 - 16 * s + 3))
    assert sympy.Rational(19, 100) < root < sympy.Rational(1, 5)
    assert sympy.expand(4 * root**2 - 16 * root + 4) == 1             # N_2(root) = 1 ≠ 0
    bad = copy.deepcopy(doc)
    bad["claim"]["s_star"] = {"q": 1, "minimal_polynomial": ["4", "-16", "3"],
                              "isolating_interval": {"lo": "19/100", "hi": "1/5"}}
    assert not verify_document(bad).verified


def test_a_negative_constant_numerator_is_not_a_nonnegative_run():
    assert not sign_run_ok([_p(-1)], _p(1), F(1, 2))               # z = −1 < 0
    assert not sign_run_ok([_p(1, 0), _p(3)], _p(-2), F(1, 2))     # z = (−s/2, −3/2)
    assert sign_run_ok([_p(3), _p(1, 1)], _p(2), F(1, 2))           # z = (3/2, (s + 1)/2) ≥ 0


def test_open_interval_root_at_the_end_in_the_sturm_fallback():
    p = _p(1, -1) * _p(10, -10, 3)
    s = sympy.Symbol("s")
    assert sympy.Poly(sympy.expand((s - 1) * (10 * s**2 - 10 * s + 3)), s).count_roots(0, 1) == 1  # s = 1 only
    assert roots_01_within(scaled_poly(p, F(1)), -1) is None         # the fallback is taken
    assert no_root_upto(p, F(1), closed=False, budget=-1)            # no root in (0, 1)
    assert no_root_upto(p, F(1), closed=False)
    assert not no_root_upto(p, F(1), closed=True, budget=-1)         # s = 1 is in (0, 1]
    assert not no_root_upto(p, F(2), closed=False, budget=-1)        # s = 1 is in (0, 2)
