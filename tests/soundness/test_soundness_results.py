"""Results are bound to their certificates (found by the second review of issue 11):
a certificate of another question cannot stand behind a result, planted metadata cannot make a
wrong privacy level verify, and a malformed certificate is rejected without an exception."""

import dataclasses as dc
from fractions import Fraction as F

import exactdp.threshold as T
from exactdp import is_regular, metrics, privacy_level, tight_constraints
from exactdp.mechanisms import from_rows
from exactdp.pufferfish import ValuePair, exact_scale

PI = [F(1, 10), F(2, 5), F(2, 5), F(1, 10)]  # not regular on line(4) at ε = 1 (α₀ < 0)


def test_regularity_result_rejects_a_certificate_of_another_prior():
    m = metrics.line(4)
    r = is_regular(m, PI, eps=1)
    u = is_regular(m, "uniform", eps=1)
    assert not r.regular and r.verify() and u.verify()
    forged = dc.replace(r, certificate=u.certificate, regular=True)
    assert forged.certificate.verify()  # the certificate itself is genuine ...
    assert not forged.verify()  # ... but not about this prior
    assert not dc.replace(r, regular=True).verify()


def test_tight_constraints_result_bound_to_metric_level_and_claim():
    t = tight_constraints(metrics.line(4), eps=1)
    assert t.verify()
    assert not dc.replace(t, exists=not t.exists).verify()
    assert not dc.replace(t, metric=metrics.cycle(4)).verify()
    other_level = tight_constraints(metrics.line(4), eps=2)
    assert not dc.replace(t, certificate=other_level.certificate).verify()


def test_threshold_result_bound_to_its_question():
    m = metrics.line(4)
    good = T.epsilon_threshold(m, PI)
    other = T.epsilon_threshold(m)
    assert good.verify() and other.verify()
    # "π is regular for every ε" backed by the certificate of the ones question
    assert not dc.replace(good, certificate=other.certificate, eps_lower=F(0), eps_upper=F(0)).verify()
    wrong_s = T.epsilon_threshold(m, [F(1, 10), F(1, 5), F(3, 10), F(2, 5)]).exact
    assert wrong_s is not None and not dc.replace(good, exact=wrong_s).verify()
    assert not dc.replace(good, metric=metrics.cycle(4)).verify()


def test_planted_graph_edges_cannot_make_a_wrong_privacy_level_verify():
    m = metrics.line(3)
    object.__setattr__(m, "graph_edges", ((0, 1),))  # bypasses the construction check
    H = from_rows([[F(1, 2)] * 2, [F(1, 2)] * 2, [F(99, 100), F(1, 100)]])
    assert not privacy_level(H, m).verify()  # true level ln 50, the planted edges give 0
    honest = privacy_level(H, metrics.line(3))
    assert honest.verify() and honest.value != 0


def test_malformed_certificates_are_rejected_not_raised():
    r = is_regular(metrics.line(3), [1, 0, 0], eps=16)
    cert = r.certificate
    assert type(cert).__name__ == "VerifiedFloatCertificate" and cert.verify()
    assert not dc.replace(cert, verify_precision=1 << 26).verify()  # refused, not attempted
    s = exact_scale(ValuePair(3, 1), 1)
    assert s.verify()
    assert dc.replace(s, lo=None).verify() is False
