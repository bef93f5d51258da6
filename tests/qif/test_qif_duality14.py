"""``DualityCertificate`` on its own is a kernel document (session 14, task 14D): ``verify()``
is the kernel's verdict on ``to_document()`` (kind ``qif-optimal-mechanism``, method
``unstated``), ``from_document`` reads it back, ``to_json`` keeps its layout.

Ground truth is independent of the kernel: :func:`_reference` re-checks weak duality in plain
exact Python (K a private channel on all pairs, λ ≥ 0, u_x + (Aᵀλ)_{x,w} ≥ c[x][w],
c·K = Σu), as the Python-only ``verify()`` did before; every tampered certificate below is
shown false by it before the library is asked.
"""

from __future__ import annotations

import copy
import dataclasses
from fractions import Fraction as F

import pytest

from exactdp.errors import CertificateInvalid, InvalidArgument
from exactdp.kernel.verify import KernelVerdict, verify_document
from exactdp.qif import DualityCertificate, GainFunction, OptimalMechanism, optimal_mechanism
from exactdp.spaces.metrics import line

PI = ["1/2", "1/3", "1/6"]


@pytest.fixture(scope="module")
def gain_case():
    return optimal_mechanism(line(3), PI, t="1/2")


@pytest.fixture(scope="module")
def loss_case():
    return optimal_mechanism(line(3), PI, t="1/3", gain=GainFunction.distance_loss(line(3)))


def _reference(cert: DualityCertificate) -> bool:
    """Weak duality, exactly, over the problem the question builds (all ordered pairs)."""
    P, K, u = cert.problem, cert.mechanism, cert.u
    n, m = P.n, P.m
    t = P.level.t
    d = [[abs(a - b) for b in range(n)] for a in range(n)]             # line(n): |a − b|
    phi = [[t ** d[a][b] for b in range(n)] for a in range(n)]
    sign = -1 if P.gain.is_loss else 1
    c = [[sign * P.prior[x] * P.gain.rows[w][x] for w in range(m)] for x in range(n)]
    if len(K) != n or any(len(r) != m or sum(r) != 1 or min(r) < 0 for r in K):
        return False
    if any(phi[a][b] * K[a][w] > K[b][w] for a in range(n) for b in range(n) for w in range(m)):
        return False
    slack = [[u[x] - c[x][w] for w in range(m)] for x in range(n)]
    for (e, w), lam in cert.lam.items():
        if lam < 0 or not 0 <= e < len(P.edges):
            return False
        a, b, _ = P.edges[e]
        slack[a][w] += phi[a][b] * lam
        slack[b][w] -= lam
    obj = sum(c[x][w] * K[x][w] for x in range(n) for w in range(m))
    return min(min(r) for r in slack) >= 0 and obj == sum(u)


def _tampered(cert: DualityCertificate, other: DualityCertificate) -> dict[str, DualityCertificate]:
    lam = dict(cert.lam)
    key = max(lam, key=lambda k: lam[k])
    K = [list(r) for r in cert.mechanism]
    top = K[0].index(max(K[0]))
    K[0][top] -= F(1, 9)                          # a channel still, with 1/9 moved in row 0
    K[0][(top + 1) % len(K[0])] += F(1, 9)
    return {
        "u": dataclasses.replace(cert, u=(cert.u[0] - F(1, 7), *cert.u[1:])),
        "u-up": dataclasses.replace(cert, u=(cert.u[0] + F(1, 7), *cert.u[1:])),
        "lambda-dropped": dataclasses.replace(cert, lam={k: v for k, v in lam.items() if k != key}),
        "lambda-negative": dataclasses.replace(cert, lam={**lam, key: -lam[key]}),
        "lambda-edge-out-of-range": dataclasses.replace(cert, lam={(-1, key[1]): lam[key], **lam}),
        "K-mass-moved": dataclasses.replace(cert, mechanism=tuple(tuple(r) for r in K)),
        "problem-of-another-question": dataclasses.replace(cert, problem=other.problem),
    }


def test_genuine_certificate_verifies_by_the_kernel(gain_case, loss_case):
    for r in (gain_case, loss_case):
        cert = r.certificate
        assert _reference(cert) and cert.verify()
        doc = cert.to_document()
        assert doc["kind"] == "qif-optimal-mechanism" and doc["evidence"]["method"] == "unstated"
        assert verify_document(doc).verified
        assert F(doc["claim"]["value"]) == r.value == cert.problem.sign * cert.objective
        back = DualityCertificate.from_document(doc)
        assert back.u == cert.u and back.lam == cert.lam and back.mechanism == cert.mechanism
        assert back.verify()


def test_verify_is_the_kernels_verdict(gain_case, monkeypatch):
    cert = gain_case.certificate
    assert cert.verify()
    monkeypatch.setattr("exactdp.qif.documents.verify_document",
                        lambda doc: KernelVerdict(False, doc["kind"], "refused by the test"))
    assert not cert.verify()


@pytest.mark.parametrize("which", ["gain", "loss"])
def test_tampered_certificates_do_not_verify(gain_case, loss_case, which):
    cert, other = ((gain_case, loss_case) if which == "gain" else (loss_case, gain_case))
    for name, bad in _tampered(cert.certificate, other.certificate).items():
        assert not _reference(bad), name           # false by the independent check ...
        assert not bad.verify(), name             # ... and the kernel's verdict agrees


def test_problem_with_another_prior_does_not_verify(gain_case):
    other = optimal_mechanism(line(3), ["1/6", "1/3", "1/2"], t="1/2").certificate
    bad = dataclasses.replace(gain_case.certificate, problem=other.problem)
    assert not _reference(bad) and not bad.verify()


def test_in_memory_fields_the_document_cannot_carry(gain_case):
    """The kernel never sees the stored edge list or a float: both fail here."""
    cert = gain_case.certificate
    P = cert.problem
    edges = tuple(reversed(P.edges))             # λ keys would name other pairs
    assert not dataclasses.replace(cert, problem=dataclasses.replace(P, edges=edges)).verify()
    floaty = tuple(tuple(float(v) for v in r) for r in cert.mechanism)
    assert not dataclasses.replace(cert, mechanism=floaty).verify()


def test_tampered_documents_are_not_read(gain_case):
    doc = gain_case.certificate.to_document()
    bad = copy.deepcopy(doc)
    bad["evidence"]["u"][0] = str(F(bad["evidence"]["u"][0]) - F(1, 7))
    assert not verify_document(bad).verified
    with pytest.raises(CertificateInvalid):
        DualityCertificate.from_document(bad)
    # a λ split in two entries: the kernel adds them (verified), a dict keeps one (refused)
    split = copy.deepcopy(doc)
    a, b, w, lam = max(split["evidence"]["lambda"], key=lambda e: F(e[3]))
    split["evidence"]["lambda"].remove([a, b, w, lam])
    split["evidence"]["lambda"] += [[a, b, w, str(F(lam) / 2)]] * 2
    assert verify_document(split).verified
    half = dataclasses.replace(gain_case.certificate,
                               lam={**gain_case.certificate.lam,
                                    next(k for k, v in gain_case.certificate.lam.items()
                                         if v == F(lam) and gain_case.certificate.problem.edges[k[0]][:2] == (a, b)
                                         and k[1] == w): F(lam) / 2})
    assert not _reference(half)
    with pytest.raises(CertificateInvalid):
        DualityCertificate.from_document(split)


def test_optimal_mechanism_reader_refuses_an_unstated_method(gain_case):
    with pytest.raises(InvalidArgument, match="method"):
        OptimalMechanism.from_document(gain_case.certificate.to_document())
    assert OptimalMechanism.from_document(gain_case.to_document()).value == gain_case.value


def test_to_json_layout_unchanged_and_read_back(gain_case):
    j = gain_case.certificate.to_json()
    assert j["kind"] == "lp-duality" and set(j) == {"kind", "mechanism", "u", "lambda"}
    E = gain_case.certificate.problem.edges
    assert j["lambda"] == [[E[e][0], E[e][1], w, str(v)] for (e, w), v in sorted(gain_case.certificate.lam.items())]
    again = OptimalMechanism.from_json(gain_case.to_json())
    assert again.value == gain_case.value and again.certificate.u == gain_case.certificate.u
