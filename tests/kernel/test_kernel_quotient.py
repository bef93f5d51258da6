"""The kernel's quotient-threshold kind: JSON round trip, and every tampering rejected."""

from fractions import Fraction

import pytest

from exactdp.algebra.equitable import coarsest_equitable_partition
from exactdp.errors import CertificateInvalid, InvalidArgument
from exactdp.kernel.jsonio import dumps, loads
from exactdp.kernel.threshold_quotient import quotient_terms
from exactdp.kernel.verify import SUPPORTED_KINDS, verify_document, verify_json
from exactdp.spaces.metrics import count_queries, grid
from exactdp.threshold.quotient import QuotientThresholdCertificate, quotient_route

TOL = Fraction(1, 10**9)


@pytest.fixture(scope="module")
def cert():
    r = quotient_route(count_queries(6), None, TOL)
    assert r is not None and r.certificate.witness is not None
    return r.certificate


def test_round_trip(cert):
    assert "quotient-threshold" in SUPPORTED_KINDS
    text = cert.dumps()
    assert verify_json(text).verified
    back = QuotientThresholdCertificate.from_json(text)
    assert back.verify() and back.dumps() == text
    assert loads(text)["question"]["property"] == "threshold-tight"


def test_round_trip_everywhere_and_prior():
    r = quotient_route(grid(6, 6, "manhattan"), None, TOL)
    assert r.holds_everywhere and verify_json(r.certificate.dumps()).verified
    m = count_queries(4)
    cells = coarsest_equitable_partition(m).cells
    w = [Fraction(1 + c) for c in cells]
    prior = tuple(x / sum(w) for x in w)
    rp = quotient_route(m, prior, TOL)
    doc = rp.certificate.to_json()
    assert doc["question"]["property"] == "threshold-regular" and verify_document(doc).verified


def _edit(cert, fn):
    doc = loads(cert.dumps())
    fn(doc)
    try:
        return verify_document(loads(dumps(doc))).verified
    except (InvalidArgument, CertificateInvalid):
        return False


def _move_point(doc):
    cells = doc["evidence"]["cells"]
    cells[1], cells[2] = cells[2], cells[1]  # two points in different cells swap


def _merge_cells(doc):
    """Cells 1 and 2 merged, labels canonical, one numerator dropped: a coarser partition
    that is not equitable."""
    ev = doc["evidence"]
    lab = [c if c != 2 else 1 for c in ev["cells"]]
    lab = [c - 1 if c > 2 else c for c in lab]
    ev["cells"] = lab
    del ev["numerators"][2]
    ev["witness"] = max(0, min(ev["witness"], len(ev["numerators"]) - 1))


def _nudge(doc):
    p = doc["evidence"]["numerators"][0]
    p[-1] = str(int(p[-1]) + 1)


def _nudge_den(doc):
    p = doc["evidence"]["denominator"]
    p[0] = str(int(p[0]) + 1)


def _poly(doc):
    g = doc["claim"]["s_star"]["minimal_polynomial"]
    g[-1] = str(int(g[-1]) + 1)


def _interval(doc):
    iv = doc["claim"]["s_star"]["isolating_interval"]
    iv["hi"] = iv["lo"]


def _interval_wide(doc):
    doc["claim"]["s_star"]["isolating_interval"]["hi"] = "99/100"


def _eps(doc):
    doc["claim"]["eps"]["lo"] = "1/100"


def _witness(doc):
    doc["evidence"]["witness"] = 0 if doc["evidence"]["witness"] != 0 else 1


def _question(doc):
    doc["question"] = loads(quotient_route(count_queries(5), None, TOL).certificate.dumps())["question"]


def _fingerprint(doc):
    doc["question"]["metric"]["params"]["u"] = 7


@pytest.mark.parametrize("fn", [_move_point, _merge_cells, _nudge, _nudge_den, _poly, _interval, _interval_wide,
                                _eps, _witness, _question, _fingerprint])
def test_tampering_rejected(cert, fn):
    assert not _edit(cert, fn)


def test_tampered_objects_rejected(cert):
    cells = list(cert.cells)
    i = cells.index(2)
    cells[i] = 1  # a point of cell 2 moved to cell 1 (labels stay canonical)
    bad = QuotientThresholdCertificate(cert.metric, cert.rhs, tuple(cells), cert.numerators,
                                       cert.denominator, cert.eps_lower, cert.eps_upper,
                                       cert.witness, cert.s_star)
    assert cert.verify() and not bad.verify()
    nudged = QuotientThresholdCertificate(cert.metric, cert.rhs, cert.cells,
                                          (cert.numerators[0] + 1,) + cert.numerators[1:],
                                          cert.denominator, cert.eps_lower, cert.eps_upper,
                                          cert.witness, cert.s_star)
    assert not nudged.verify()
    swapped = QuotientThresholdCertificate(count_queries(7), (Fraction(1),) * 64, cert.cells,
                                           cert.numerators, cert.denominator, cert.eps_lower,
                                           cert.eps_upper, cert.witness, cert.s_star)
    assert not swapped.verify()


def _canonical(cells):
    first = {}
    return all(first.setdefault(c, len(first)) == c for c in cells)


def _swaps_keeping_labels(cells, limit):
    """Pairs i < j in different cells, both after the first points of both cells: swapping
    their labels keeps every cell's first point, so the labels stay numbered by first
    appearance (and every cell keeps its size)."""
    firsts = {c: cells.index(c) for c in set(cells)}
    out = []
    for i in range(len(cells)):
        for j in range(i + 1, len(cells)):
            if (cells[i] != cells[j] and i > firsts[cells[i]] and i > firsts[cells[j]]
                    and j > firsts[cells[j]]):
                out.append((i, j))
                if len(out) == limit:
                    return out
    return out


def test_equitability_check_itself_rejects_label_canonical_swaps(cert):
    """Swaps that pass the label check must be caught by the equitability comparison:
    quotient_terms returns None (it would return the quotient if that check were removed)."""
    m, cells = cert.metric, list(cert.cells)
    assert quotient_terms(m, cert.cells) is not None
    swaps = _swaps_keeping_labels(cells, 40)
    assert len(swaps) == 40
    for i, j in swaps:
        moved = list(cells)
        moved[i], moved[j] = moved[j], moved[i]
        assert _canonical(moved) and sorted(moved) == sorted(cells)
        assert quotient_terms(m, tuple(moved)) is None
    i, j = swaps[0]
    moved = list(cells)
    moved[i], moved[j] = moved[j], moved[i]
    bad = QuotientThresholdCertificate(m, cert.rhs, tuple(moved), cert.numerators,
                                       cert.denominator, cert.eps_lower, cert.eps_upper,
                                       cert.witness, cert.s_star)
    assert not bad.verify()
    doc = loads(cert.dumps())
    doc["evidence"]["cells"] = moved
    assert not _edit_doc(doc)


def _edit_doc(doc):
    try:
        return verify_document(loads(dumps(doc))).verified
    except (InvalidArgument, CertificateInvalid):
        return False
