"""Review 17R of 3753da5 (remap documents of the tight-constraints mechanism at an irrational s).

Ground truth here is independent of the writer: mpmath at 50 digits solves Φz = 1 with
Φ[i, j] = e^{-ε·d(i, j)} and compares H = Φ·diag(z) with the document's N(x)/D(x) at
x = e^{log_x}. Two findings, both fixed in session 17 (these tests were strict xfails before):
the writer's work limit (then n³·n·max k ≤ 2·10⁷, "about 1 µs a unit") did not bound sympy's
ZZ[x] solve once the distances (hence the degrees) were large — a 10-point metric far below
the limit ran for minutes; the solve is now a fraction-free elimination in flint
(``solve_ones_zx``: that metric in ≈ 0.1 s) under a limit on n⁵·max k. And at a tiny ε the
writer called a valid certificate invalid, because ``_inside`` evaluated the unreduced
fraction-free N and D (sharing a factor (1 − x)^k, x ≈ 1) and gave up at 8,192 bits; it now
reduces each z_k to lowest terms first, and "undecided" is PrecisionLimitReached, not
CertificateInvalid.
"""

from __future__ import annotations

import copy
from fractions import Fraction

import mpmath
import pytest

from exactdp.errors import InstanceTooLarge
from exactdp.kernel.verify import verify_document
from exactdp.mechanisms.constructors import tight_constraints_mechanism
from exactdp.mechanisms.optimality import is_optimal
from exactdp.mechanisms.optimality_json import MAX_TIGHT_WORK
from exactdp.spaces.metrics import from_matrix, line
from exactdp.testing.tampering import call_with_timeout


def _star(n):
    return from_matrix([[0 if i == j else (1 if 0 in (i, j) else 2) for j in range(n)] for i in range(n)])


def _sevenths():
    F = Fraction
    return from_matrix([[0, F(3, 7), F(5, 7), 1], [F(3, 7), 0, F(4, 7), F(6, 7)],
                        [F(5, 7), F(4, 7), 0, F(5, 7)], [1, F(6, 7), F(5, 7), 0]])


def _doc(metric, eps):
    result = is_optimal(tight_constraints_mechanism(metric, eps=eps), metric, eps=eps)
    assert result.optimal
    return result.certificate.to_json()


def _mp(c):
    c = Fraction(c)
    return mpmath.mpf(c.numerator) / c.denominator


def _value(poly, x):
    return sum((_mp(c) * x**e for e, c in poly), mpmath.mpf(0))


@pytest.mark.parametrize("metric,eps", [(_star(4), 1), (_sevenths(), "3/2"), (_star(3), "1/2")],
                         ids=["star4@1", "sevenths@3/2", "star3@1/2"])
def test_the_written_entries_are_the_true_tight_mechanism(metric, eps):
    doc = _doc(metric, eps)
    assert verify_document(doc).verified
    with mpmath.workdps(50):
        n, K, e = metric.n, metric.exponent_matrix().tolist(), _mp(eps)
        phi = mpmath.matrix([[mpmath.e ** (-e * k / metric.q) for k in row] for row in K])
        z = mpmath.lu_solve(phi, mpmath.matrix([1] * n))
        mech = doc["question"]["mechanism"]
        x = mpmath.e ** _mp(mech["log_x"])
        for i in range(n):
            for j in range(n):
                d, N = mech["entries"][i][j]
                got = _value(N, x) / _value(mech["denominators"][d], x)
                assert abs(got - phi[i, j] * z[j]) < mpmath.mpf(10) ** -40


def test_a_consistent_edit_of_eps_and_log_x_is_another_true_claim():
    """Doubling ε and log_x together states the tight mechanism at 2ε (the same polynomials in
    x = e^{-2ε}), which is optimal at 2ε: accepted. Doubling ε alone: rejected."""
    doc = _doc(_star(4), 1)
    both = copy.deepcopy(doc)
    both["question"]["level"]["eps"] = "2"
    both["question"]["mechanism"]["log_x"] = "-2"
    assert verify_document(both).verified
    eps_only = copy.deepcopy(doc)
    eps_only["question"]["level"]["eps"] = "2"  # b = 2: Φ = x^{2k}, H no longer tight
    assert not verify_document(eps_only).verified


def _spread(n=10):
    """Distances 100 … 200 (a metric: any two sum to ≥ 200), all distinct-ish."""
    return from_matrix([[0 if i == j else 100 + (37 * min(i, j) + 61 * max(i, j) + 11 * i * j) % 101
                         for j in range(n)] for i in range(n)])


def test_the_writer_refuses_or_finishes_quickly_below_the_limit():
    metric = _spread()
    top = int(metric.exponent_matrix().max())
    assert metric.n**4 * top <= MAX_TIGHT_WORK // 5
    doc_cert = is_optimal(tight_constraints_mechanism(metric, eps=1), metric, eps=1).certificate

    try:
        doc = call_with_timeout(doc_cert.to_json, 30)  # VerifyTimeout: the writer hung
    except InstanceTooLarge:
        return
    assert verify_document(doc).verified


def test_a_tiny_eps_certificate_is_not_called_invalid():
    eps = Fraction(1, 10**400)
    metric = line(6)
    mech = tight_constraints_mechanism(metric, eps=eps)
    cert = is_optimal(mech, metric, eps=eps).certificate
    assert cert.verify()
    with mpmath.workdps(4000):  # independent: the exact z is inside the certificate's enclosures
        x = mpmath.e ** (-_mp(eps))
        z = mpmath.lu_solve(mpmath.matrix([[x ** abs(i - j) for j in range(6)] for i in range(6)]),
                            mpmath.matrix([1] * 6))
        assert all(_mp(e.lo) <= z[i] <= _mp(e.hi)
                   for i, e in enumerate(mech.parameters["certificate"].z_enclosure))
    assert verify_document(cert.to_json()).verified
