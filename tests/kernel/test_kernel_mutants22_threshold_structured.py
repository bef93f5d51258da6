"""Session 22: survivors of the first complete ``scripts/mutation.py`` run on
exactdp/kernel/threshold_structured.py (the structured Toeplitz exact threshold check:
structure, the mirrored identity Φ(s)N(s) = D(s)·1, the witness, the reader). Each test
names the mutants it kills.

Ground truth is computed here with sympy over Z[s]: Φ(s)[i, j] = s^{e_|i−j|} from the
metric's exponents, its adjugate, and the products ΦN. The genuine certificates come from
the library's structured route (sum_query(3, 2): n = 7, s* = 1/√2; sum_query(5, 3): n = 16).
"""

from __future__ import annotations

import copy
import dataclasses
from fractions import Fraction

import flint
import numpy as np
import pytest
import sympy

from exactdp.errors import InvalidArgument, InvalidMetric
from exactdp.kernel.threshold_structured import (
    check_structured,
    mirror_identity_holds,
    read_structured,
    structure_holds,
)
from exactdp.kernel.verify import verify_document
from exactdp.spaces.metrics import FiniteMetric, from_matrix, line, sum_query
from exactdp.threshold.structured import structured_route

S = sympy.Symbol("s")
STAR = from_matrix([[0, 1, 1, 1], [1, 0, 2, 2], [1, 2, 0, 2], [1, 2, 2, 0]])


@pytest.fixture(scope="module")
def odd():
    m = sum_query(3, 2)
    return m, structured_route(m, Fraction(1, 10**12)).certificate.to_json()


@pytest.fixture(scope="module")
def even():
    m = sum_query(5, 3)
    return m, structured_route(m, Fraction(1, 10**12)).certificate.to_json()


def _exps(m) -> list[int]:
    return [int(x) for x in np.asarray(m.exponents)[np.asarray(m.index)[0]]]


def _expr(desc: list[str]) -> sympy.Expr:
    """A polynomial from its coefficients in descending order (the schema's order)."""
    return sympy.Poly([int(c) for c in desc], S).as_expr()


def _desc(p: sympy.Expr) -> list[str]:
    return [str(c) for c in sympy.Poly(p, S).all_coeffs()]


def _verified(doc) -> bool:
    try:
        return check_structured(read_structured(doc))
    except InvalidArgument:
        return False


def test_the_genuine_certificates_verify(odd, even):
    """Controls, and kill "line 153: 1 -> 2" ((n + 2)//2 numerators read: an even n = 16
    document, whose 8 numerators are then too few, refused)."""
    for _, doc in (odd, even):
        assert verify_document(doc).verified and _verified(doc)
    assert even[0].n % 2 == 0 and len(even[1]["evidence"]["numerators"]) == 8


# kills "line 115: Add -> Sub" (range((n − 1)//2): the middle row of the identity never
# checked) and "line 115: 2 -> 3" (range((n + 1)//3)): N' = N + q·adj(Φ)·e_mid, q = g·s^K,
# is mirrored (e_mid is its own mirror image), and ΦN' = D·1 + q·det(Φ)·e_mid. The identity is
# false in the middle row only; every other check still passes (N'_w keeps g to an odd power,
# and the added term has the factor s^K). Both mutants verified these forgeries
@pytest.mark.parametrize("K", [0, 8])
def test_a_forged_middle_row_is_refused(odd, K):
    m, doc = odd
    n, exps = m.n, _exps(m)
    phi = sympy.Matrix(n, n, lambda i, j: S ** exps[abs(i - j)])
    adj = phi.adjugate()
    q = _expr(doc["claim"]["s_star"]["minimal_polynomial"]) * S**K
    half = [_expr(p) for p in doc["evidence"]["numerators"]]
    forged = [sympy.expand(half[i] + q * adj[i, n // 2]) for i in range(len(half))]
    full = [forged[min(i, n - 1 - i)] for i in range(n)]
    res = [sympy.expand(x) for x in phi * sympy.Matrix(full) - _expr(doc["evidence"]["denominator"])
           * sympy.ones(n, 1)]
    assert [i for i, x in enumerate(res) if x != 0] == [n // 2]  # false exactly there
    bad = copy.deepcopy(doc)
    bad["evidence"]["numerators"] = [_desc(p) for p in forged]
    assert not verify_document(bad).verified and not _verified(bad)


# kills both "line 135: Sub -> Add" (the witness read at n + 1 − w or n − 1 + w instead of its
# mirror n − 1 − w): z is mirrored, so the witness's mirror image witnesses too
def test_a_witness_in_the_second_half_verifies(odd, even):
    for m, doc in (odd, even):
        mirrored = copy.deepcopy(doc)
        mirrored["evidence"]["witness"] = m.n - 1 - doc["evidence"]["witness"]
        assert mirrored["evidence"]["witness"] > (m.n - 1) // 2
        assert verify_document(mirrored).verified


# kills "line 128: 0 -> 1" (a claim without "offset" read as k0 = 1) and "line 129: Or -> And"
# (a bool step accepted): claims built in memory, as the library's own certificates are
def test_claims_built_in_memory(odd):
    claim = read_structured(odd[1])
    evidence = {k: v for k, v in claim.evidence.items() if k != "offset"}
    assert check_structured(dataclasses.replace(claim, evidence=evidence))
    assert not check_structured(dataclasses.replace(claim, evidence={**evidence, "step": True}))
    assert not check_structured(dataclasses.replace(claim, evidence={**evidence, "step": 2.0}))
    assert evidence["shift"] == 1  # True == 1, but a bool is not an exponent
    assert not check_structured(dataclasses.replace(claim, evidence={**evidence, "shift": True}))


# kills "line 145: Or -> And" (a document without s_star read) and "line 152: Sub -> Add" (a
# witness up to n + 1 read): malformed documents are refused by the reader (InvalidArgument,
# exit 3), not read and then rejected (exit 1)
def test_malformed_documents_are_refused_by_the_reader(odd):
    m, doc = odd
    for edit in (lambda d: d["claim"].__setitem__("s_star", None),
                 lambda d: d["evidence"].__setitem__("witness", m.n),
                 lambda d: d["evidence"].__setitem__("witness", -1)):
        bad = copy.deepcopy(doc)
        edit(bad)
        with pytest.raises(InvalidArgument):
            read_structured(bad)
        with pytest.raises(InvalidArgument):
            verify_document(bad)


# kills "line 84: 1 -> 2" (Toeplitz rows checked from row 2): the kernel reads metrics built
# in memory, and does not assume a symmetric index. sum_query(3, 2) with index[1, 3] :=
# index[1, 4] (row 1 only): the genuine claim's structure no longer holds there. The public
# constructor now refuses such a table (session 22, review 22R2); the kernel check is built
# here as a library constructor would build it, without that check
def test_a_change_in_row_one_alone_is_refused(odd):
    m, doc = odd
    idx = np.array(m.index, dtype=np.int64)
    assert idx[1, 3] != idx[1, 4]
    idx[1, 3] = idx[1, 4]
    with pytest.raises(InvalidMetric, match="symmetric"):
        FiniteMetric("bent", list(range(m.n)), list(m.values), idx)
    bent = FiniteMetric._from_library("bent", list(range(m.n)), list(m.values), idx)
    claim = read_structured(doc)
    assert check_structured(claim)  # control
    assert not check_structured(dataclasses.replace(claim, metric=bent))


# kills "line 74: 0 -> 1" (the default offset k0 = 1: the line is then "not the least offset"),
# "line 78: Or -> And" (v = 0, k0 < 0 or c < 0 accepted), "line 86" (a row that is not
# Toeplitz accepted), "line 88: Gt -> GtE" (c = max e refused: line(3) with v = 2, c = 2 is a
# true, non-minimal encoding) and "line 90: Gt -> GtE" (the least-offset test applied at
# k0 = 0, where it reads e_{−1}: the metric e = (0, 2, 1) with v = 2, c = 1 holds from k0 = 0)
def test_structure_by_its_definition():
    assert structure_holds(line(5), 1, 1)  # e_k = k: v = 1, c = 1, from k0 = 0
    assert structure_holds(line(5), 1, 1, 0) and not structure_holds(line(5), 1, 1, 1)
    assert not structure_holds(line(5), 0, 0) and not structure_holds(line(5), 1, 1, -1)
    assert not structure_holds(line(5), 1, -1)
    assert not structure_holds(line(5), 1, 1, 10)  # "line 78: Add -> Sub": an IndexError there
    assert not structure_holds(line(5), 5, 5)  # v ≥ n
    assert not structure_holds(STAR, 1, 0, 1)  # row 0 is (0, 1, 1, 1); row 1 is not Toeplitz
    assert structure_holds(line(3), 2, 2)
    tri = from_matrix([[0, 2, 1], [2, 0, 2], [1, 2, 0]])
    assert _exps(tri) == [0, 2, 1] and structure_holds(tri, 2, 1)


# kills "line 102: Or -> And", "line 102: Gt -> GtE", "line 102: Add -> Sub" and "line 103"
# (return True for a wrong number of numerators): the identity's own argument checks, on a
# genuine (exps, v, c, N, D) and on the same with one argument changed
def test_identity_arguments(odd):
    m, doc = odd
    exps, ev = _exps(m), doc["evidence"]
    fh = [flint.fmpz_poly([int(c) for c in reversed(p)]) for p in ev["numerators"]]
    den = flint.fmpz_poly([int(c) for c in reversed(ev["denominator"])])
    v, c = ev["step"], ev["shift"]
    assert len(fh) == 4 and mirror_identity_holds(exps, v, c, fh, den)
    assert not mirror_identity_holds(exps, v, c, fh[:3], den)
    assert not mirror_identity_holds(exps, v, c, fh + fh[:1], den)
    assert not mirror_identity_holds(exps, 0, c, fh, den)
    assert not mirror_identity_holds(exps, v, c, fh, den, -1)
    assert not mirror_identity_holds(exps, v, c, fh, den, m.n - v + 1)
    assert mirror_identity_holds(exps, v, c, fh, den, m.n - v)  # v + k0 = n: full sums
