"""Pufferfish results → JSON document → ``exactdp verify`` in a fresh process → verified;
``from_document`` re-checks in the kernel and rebuilds a result whose ``verify()`` holds."""

from __future__ import annotations

import copy
import subprocess
import sys

import pytest
import sympy

from exactdp.arithmetic.ball import MAX_PREC
from exactdp.errors import CertificateInvalid, InvalidArgument
from exactdp.kernel.jsonio import dumps
from exactdp.pufferfish import (
    ConservativeScale,
    DistributionPair,
    DistributionVsAbsent,
    ExactScale,
    Population,
    ValuePair,
    bernoulli,
    certify,
    conservative_scale,
    exact_scale,
)
from exactdp.pufferfish.distributions import DiscreteDistribution
from exactdp.pufferfish.documents import from_document, to_document

P3 = DiscreteDistribution.from_lists(["0", "1", "3"], ["1/4", "1/4", "1/2"])
RESULTS = [
    exact_scale(DistributionVsAbsent(bernoulli("1/2")), 1),
    exact_scale(DistributionPair(bernoulli("1/2"), bernoulli("1/3")), "1/10", releases=2),
    exact_scale(DistributionPair(P3, bernoulli("1/3")), 1),
    exact_scale(DistributionPair(bernoulli("1/2"), bernoulli("1/3")), 3),  # θ* = 0
    conservative_scale(ValuePair(3, 1), "ln(2)", releases=3),
    certify(Population.bernoulli(["1/2"] * 3, presences=["9/10"] * 3),
            DistributionVsAbsent(bernoulli("1/2")), 1, "ln(2)"),
]


def _run(path):
    return subprocess.run([sys.executable, "-m", "exactdp", "verify", str(path)],
                          capture_output=True, text=True, timeout=120)


def test_fresh_process_verifies_rejects_and_refuses(tmp_path):
    paths = []
    for k, r in enumerate(RESULTS):
        paths.append(tmp_path / f"cert{k}.json")
        paths[-1].write_text(dumps(to_document(r)))
    for path in (paths[0], paths[4], paths[5]):  # one per kind, through the CLI
        proc = _run(path)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    forged = copy.deepcopy(to_document(RESULTS[0]))
    forged["claim"]["closed_form"] = forged["claim"]["least"]["hi"]  # the forgery
    (tmp_path / "forged.json").write_text(dumps(forged))
    (tmp_path / "bad.json").write_text(dumps(to_document(RESULTS[0])).replace('"1/2"', '"2/4"'))
    proc = subprocess.run([sys.executable, "-m", "exactdp.kernel", *map(str, paths),
                           str(tmp_path / "forged.json"), str(tmp_path / "bad.json")],
                          capture_output=True, text=True, timeout=120)  # the kernel alone
    assert proc.returncode == 3 and proc.stdout.count(": verified") == len(RESULTS), proc.stdout
    assert "forged.json: pufferfish-scale: REJECTED" in proc.stdout
    assert "bad.json: malformed" in proc.stderr


@pytest.mark.parametrize("k", range(len(RESULTS)))
def test_round_trip_rechecks_and_rebuilds(k):
    r = RESULTS[k]
    again = from_document(to_document(r))
    assert type(again) is type(r) and again.verify()
    if isinstance(r, ExactScale):
        assert (again.lo, again.hi, again.zero_noise, again.releases) == (
            r.lo, r.hi, r.zero_noise, r.releases)
        assert (again.theta_expr is None) == (r.theta_expr is None)
        if r.theta_expr is not None:  # the same number (the text may print another tree)
            assert abs(sympy.N(again.theta_expr - r.theta_expr, 40)) < 1e-35
    elif isinstance(r, ConservativeScale):
        assert (again.theta, again.winf, again.w1) == (r.theta, r.winf, r.w1)
    else:
        assert (again.verdict, again.tight, again.theta) == (r.verdict, r.tight, r.theta)


def test_from_document_refuses_a_rejected_document():
    doc = to_document(RESULTS[-1])
    doc["claim"]["verdict"] = "fails"
    with pytest.raises(CertificateInvalid):
        from_document(doc)


def test_fails_with_a_tie_round_trips_and_its_flipped_tight_is_refused():
    """Review R11E F3: FAILS at one output and an exact tie at another is not ``tight``."""
    P = DiscreteDistribution.from_lists(["2", "3"], ["1/2", "1/2"])
    Q = DiscreteDistribution.from_lists(["0", "1"], ["1/2", "1/2"])
    doc = to_document(certify(Population([]), DistributionPair(P, Q), 1, 1, least=False))
    again = from_document(doc)
    assert (again.verdict.value, again.tight) == ("fails", False) == (
        doc["claim"]["verdict"], doc["claim"]["tight"])
    doc["claim"]["tight"] = True
    with pytest.raises(CertificateInvalid):
        from_document(doc)


def test_from_document_never_carries_an_unbounded_prec():
    """Review R11E F4: ``evidence.prec`` is bounded by the kernel (≤ MAX_PREC)."""
    doc = to_document(RESULTS[0])
    assert from_document(doc).prec <= MAX_PREC
    doc["evidence"]["prec"] = 10**100
    with pytest.raises(InvalidArgument):
        from_document(doc)
