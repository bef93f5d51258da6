"""Typed kinds of the mechanisms results: MechanismKind, Enclosure, Verdict, CertificateKind."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from exactdp.arithmetic.interval import Enclosure
from exactdp.errors import InvalidArgument, NoTruthValue
from exactdp.kinds import PROOF_LINKS, Certificate, CertificateKind, Verdict
from exactdp.mechanisms import (
    Mechanism,
    MechanismKind,
    from_rows,
    is_optimal,
    is_private,
    min_entropy_leakage,
    privacy_level,
    truncated_geometric,
    utility,
)
from exactdp.mechanisms.bounds import database_leakage_bound, leakage_bound, utility_bound
from exactdp.mechanisms.gain import parse_prior
from exactdp.spaces.metrics import line
from exactdp.spaces.priors import read_prior_values


def test_mechanism_kind_is_an_enum_with_the_old_strings() -> None:
    H = from_rows([["1/2", "1/2"]])
    assert H.kind is MechanismKind.EXACT and H.kind == "exact" and H.to_json()["kind"] == "exact"
    C = truncated_geometric(3, eps="4/5")
    assert C.kind is MechanismKind.CERTIFIED and C.kind == "certified"
    assert Mechanism(H.entries_object(), kind="exact").kind is MechanismKind.EXACT
    with pytest.raises(InvalidArgument, match="kind="):
        Mechanism(H.entries_object(), kind="float")


def test_exact_and_certified_results_differ_by_their_fields() -> None:
    m = line(4)
    exact = privacy_level(truncated_geometric(4, t="1/2"), m)
    ball = privacy_level(truncated_geometric(4, eps="4/5"), m, method="ball")
    assert exact.exact and exact.value is not None and isinstance(exact.enclosure, Enclosure)
    assert not ball.exact and ball.value is None and isinstance(ball.enclosure, Enclosure)
    assert ball.enclosure.contains(F(4, 5))
    U = utility(truncated_geometric(4, t="1/2"))
    assert U.exact and U.enclosure == Enclosure(U.value, U.value)
    Uc = utility(truncated_geometric(4, eps="4/5"))
    assert not Uc.exact and Uc.value is None and Uc.enclosure.width > 0
    L = min_entropy_leakage(truncated_geometric(4, eps="4/5"))
    assert not L.exact and isinstance(L.enclosure, Enclosure)
    for b in (utility_bound(line(3), "uniform", t="1/2"), leakage_bound(line(3), "uniform", t="1/2"),
              database_leakage_bound(2, 2, t="1/3")):
        assert isinstance(b.enclosure, Enclosure)


def test_verdicts_and_certificate_kinds() -> None:
    H = truncated_geometric(3, t="1/2")
    assert is_private(H, line(3), t="1/2").verdict is Verdict.HOLDS
    assert is_private(H, line(3), t="3/4").verdict is Verdict.FAILS
    with pytest.raises(NoTruthValue):
        bool(is_private(H, line(3), t="1/2").verdict)
    ok = is_optimal(H, line(3), t="1/2")
    assert ok.verdict is Verdict.HOLDS and ok.certificate is not None
    assert ok.certificate.kind is CertificateKind.REMAP and ok.certificate.verdict is Verdict.HOLDS
    flat = is_optimal(from_rows([["1/3"] * 3] * 3), line(3), t="1/2")
    assert flat.verdict is Verdict.FAILS and flat.certificate is not None
    assert flat.certificate.kind is CertificateKind.REMAP_FARKAS
    assert flat.certificate.verdict is Verdict.FAILS and flat.verify()
    cert = database_leakage_bound(2, 2, t="1/3").certificate
    assert cert.kind is CertificateKind.HAMMING_UNIFORM and cert.verdict is Verdict.HOLDS
    for c in (ok.certificate, flat.certificate, cert):
        assert isinstance(c, Certificate) and c.verify()


def test_parse_prior_is_the_shared_reader() -> None:
    assert parse_prior is read_prior_values
    assert parse_prior("uniform", 2) == (F(1, 2), F(1, 2))


def test_closed_form_fast_paths_name_their_proofs() -> None:
    links = PROOF_LINKS["mech_geometric_rows"]
    assert "exactdp.mechanisms.privacy_routes.level_monomial" in links
    assert "exactdp.mechanisms.constructors.truncated_geometric" in links
    assert "exactdp.mechanisms.bounds.database_leakage_bound" in PROOF_LINKS["mech_thm3_closed_form"]
