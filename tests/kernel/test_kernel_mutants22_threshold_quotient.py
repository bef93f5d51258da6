"""Session 22: survivors of the first complete ``scripts/mutation.py`` run on
exactdp/kernel/threshold_quotient.py (the equitable-quotient exact threshold check: the
quotient of the cells, the identity Φ̃N = D·b̃ by Kronecker substitution, the reader). Each
test names the mutants it kills.

Ground truth is computed here with sympy over Z[s]. On the 5-cycle C5 every point has
distances (1, 1, 2, 2), so the single cell is equitable and Φ̃(s) = r(s) = 1 + 2s + 2s²;
the true solution of Φz = 1 is z = 1/r(s) (N = 1, D = r).
"""

from __future__ import annotations

import copy
import dataclasses
from fractions import Fraction

import flint
import pytest
import sympy

from exactdp.errors import InvalidArgument
from exactdp.kernel.threshold_quotient import (
    check_quotient,
    quotient_identity_holds,
    quotient_terms,
    read_quotient,
)
from exactdp.kernel.verify import verify_document
from exactdp.spaces.metrics import count_queries, from_matrix
from exactdp.threshold.quotient import quotient_route

S = sympy.Symbol("s")
TOL = Fraction(1, 10**9)
C5 = from_matrix([[min(abs(i - j), 5 - abs(i - j)) for j in range(5)] for i in range(5)])
#: three points with three different distances: the only equitable partition is discrete
SCALENE = from_matrix([[0, 1, 2], [1, 0, 3], [2, 3, 0]])


def test_the_cycle_and_its_quotient():
    terms = quotient_terms(C5, [0] * 5)
    assert terms is not None and terms.size == 1
    r = sum(int(k) * S ** int(e) for e, k in zip(terms.exps, terms.counts))
    assert sympy.expand(r - (1 + 2 * S + 2 * S**2)) == 0
    assert quotient_identity_holds(terms, [flint.fmpz_poly([1])], flint.fmpz_poly([1, 2, 2]), [Fraction(1)])


def _false_identity(nums: list[int], den: list[int]) -> bool:
    """r·N − D ≠ 0 in Z[s] (coefficients in ascending order, as flint takes them)."""
    n = sum(c * S**k for k, c in enumerate(nums))
    d = sum(c * S**k for k, c in enumerate(den))
    return sympy.expand((1 + 2 * S + 2 * S**2) * n - d) != 0


# kills "line 121: Add -> Sub" (the coefficient bound B = L·rowsum·max|N| − max|D|·max|L b̃|)
# and "line 122: Add -> Sub" (β = bitlen(B) − 2): with β too small, x = 2^β no longer
# separates the coefficients of P = Φ̃N − D, and a false identity evaluates to 0.
# N = 1, D = 5 + s + 2s²: P = s − 4, B_mut = 5 − 5 = 0, β = 2, P(4) = 0.
# N = 16, D = 80 + 31s + 32s²: P = s − 64, B = 160, bitlen − 2 = 6, P(64) = 0.
# Both identities are false (z is not N/D); the right bound (β = 6 and 10) refuses them
def test_a_false_identity_that_vanishes_at_a_small_power_of_two_is_refused():
    terms = quotient_terms(C5, [0] * 5)
    assert terms is not None
    for nums, den in (([1], [5, 1, 2]), ([16], [80, 31, 32])):
        assert _false_identity(nums, den)
        assert not quotient_identity_holds(terms, [flint.fmpz_poly(nums)], flint.fmpz_poly(den),
                                           [Fraction(1)])


# kills "line 82: And -> Or": labels must be integers, not floats (nor bools)
def test_cell_labels_are_integers():
    assert quotient_terms(C5, [0] * 5) is not None
    assert quotient_terms(C5, [0.0] * 5) is None
    assert quotient_terms(C5, [False] * 5) is None


# "line 61: True -> False" (QuotientTerms not frozen) is a dataclass option the tool does not
# apply; applied by hand it is killed here
def test_quotient_terms_are_frozen():
    terms = quotient_terms(C5, [0] * 5)
    with pytest.raises(dataclasses.FrozenInstanceError):
        terms.size = 2  # type: ignore[misc, union-attr]


@pytest.fixture(scope="module")
def counts_doc():
    return quotient_route(count_queries(6), None, TOL).certificate.to_json()


# kills "line 146: return True" and "line 146: False -> True": the identity is checked with
# b̃ read at each cell's first point, so b must be constant on the cells. Here b differs
# from 1 at a point that is not a cell's first point: Φz = b then has another solution
# than the certificate's z = N/D of Φz = 1
def test_a_right_hand_side_not_constant_on_the_cells_is_refused(counts_doc):
    claim = read_quotient(counts_doc)
    assert check_quotient(claim)  # control
    cells = claim.evidence["cells"]
    firsts = {cells.index(c) for c in set(cells)}
    other = next(i for i in range(len(cells)) if i not in firsts)
    rhs = tuple(Fraction(2) if i == other else x for i, x in enumerate(claim.rhs))
    assert not check_quotient(dataclasses.replace(claim, rhs=rhs))


# kills "line 164: 1 -> 2" (cells up to n − 2: the discrete partition's last label refused):
# on SCALENE the only equitable partition is (0, 1, 2), and its certificate verifies
def test_the_discrete_partition_verifies():
    doc = quotient_route(SCALENE, None, TOL).certificate.to_json()
    assert doc["evidence"]["cells"] == [0, 1, 2] and verify_document(doc).verified


# kills "line 164: Sub -> Add" (cells up to n + 1 read) and "line 169: Sub -> Add" (a witness
# up to size + 1 read): malformed documents are refused by the reader (InvalidArgument, exit 3).
# The label n comes with n + 1 numerators, so that only the label's own bound refuses it
def test_out_of_range_labels_and_witnesses_are_refused_by_the_reader(counts_doc):
    ev = counts_doc["evidence"]
    n, size = len(ev["cells"]), max(ev["cells"]) + 1
    assert ev["witness"] is not None
    edits = ({"cells": ev["cells"][:-1] + [n],
              "numerators": ev["numerators"] + [["1"]] * (n + 1 - len(ev["numerators"]))},
             {"witness": size})
    for edit in edits:
        bad = copy.deepcopy(counts_doc)
        bad["evidence"].update(edit)
        with pytest.raises(InvalidArgument):
            read_quotient(bad)
        with pytest.raises(InvalidArgument):
            verify_document(bad)
