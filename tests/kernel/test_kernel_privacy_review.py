"""Regression tests for review 11A (privacy-level / privacy-check kernel documents)."""

from __future__ import annotations

import tracemalloc
from fractions import Fraction as F

import pytest

from exactdp.engine.documents import write_level_value
from exactdp.errors import InstanceTooLarge, InvalidArgument
from exactdp.kernel.privacy import MAX_WORK, edges_suffice
from exactdp.kernel.verify import verify_document
from exactdp.mechanisms.constructors import from_rows
from exactdp.mechanisms.privacy import PrivacyCheck, is_private, privacy_level
from exactdp.mechanisms.privacy_json import check_document, level_document
from exactdp.spaces.distances import Distance
from exactdp.spaces.metrics import discrete, from_matrix, grid, line
from exactdp.testing.budget import call_budget

H2 = [["3/4", "1/4"], ["1/4", "3/4"]]


@pytest.mark.parametrize("coef", [F(10**10), F(10**299), F(1, 10**299)])
def test_level_value_with_huge_distance_is_fast_and_exact(coef: F) -> None:
    # finding 1: _iroot formed 2**k (k = the distance's numerator) before the size guard
    with call_budget(25_000) as seen:
        v = write_level_value(F(3), Distance.rational(coef))
    assert seen[1] < 2**20  # bytes: 2**k is never formed (1.25 GB at k = 10¹⁰)
    assert set(v) <= {"eps", "log_ratio"}  # 3^(1/k) is not rational: never a "t"


def test_level_document_discrete_huge_distance_verifies() -> None:
    r = privacy_level(from_rows(H2), discrete(2, 10**10))
    with call_budget(6_000) as seen:
        doc = level_document(r)
    assert seen[1] < 2**20
    assert verify_document(doc).verified


def test_level_value_perfect_power_still_rational() -> None:
    assert write_level_value(F(9), Distance.rational(2)) == {"t": "1/3"}


@pytest.mark.parametrize("kw", [{"eps": "log(6)", "slack": F(1, 10**5000)},
                                {"eps": "log(6)+1/10**6000"}])
def test_check_document_long_rational_is_specific_error(kw: dict[str, object]) -> None:
    # finding 2: bare ValueError (int too long to print) before the fix
    H = from_rows([["6/7", "1/7"], ["1/7", "6/7"]])
    c = is_private(H, line(2), **kw)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="no portable form"):
        check_document(c)


def _mechanism(n: int, m: int) -> tuple[object, object]:
    """An n×m exact mechanism on |i − j| distances (n(n − 1)/2 unordered pairs)."""
    rows = [[F(1 + (i * z) % 7, 1) for z in range(m)] for i in range(n)]
    rows = [[x / sum(r) for x in r] for r in rows]
    d = from_matrix([[abs(i - j) for j in range(n)] for i in range(n)])
    return from_rows(rows), d


def test_writer_refuses_what_the_kernel_would_not_decide(monkeypatch: pytest.MonkeyPatch) -> None:
    # findings 3 and 6: a document the kernel refuses is not written. The limit is lowered
    # to just below this small question's work (2·15 pairs·5 outputs = 150 entries): the
    # writer reads the kernel's MAX_WORK at call time (the 20,000,000 default is the
    # doctest of require_work; a question that size took 217 s of CI to build here).
    import exactdp.kernel.privacy as kp
    assert MAX_WORK == 20_000_000
    H, d = _mechanism(6, 5)  # 15 pairs
    r = privacy_level(H, d)
    check = is_private(H, d, eps=100)
    monkeypatch.setattr(kp, "MAX_WORK", 149)
    with pytest.raises(InstanceTooLarge, match="exceeds the kernel's limit of 149"):
        r.to_document()
    with pytest.raises(InstanceTooLarge, match="pairs × 5 outputs"):
        check.to_document()
    monkeypatch.setattr(kp, "MAX_WORK", 150)  # at the limit: written
    assert verify_document(r.to_document()).verified


def test_kernel_refuses_over_limit_document(monkeypatch: pytest.MonkeyPatch) -> None:
    # finding 6: the kernel itself refuses an over-limit document (InstanceTooLarge → exit 2)
    import exactdp.kernel.privacy as kp
    from exactdp.cli.exitcodes import ExitCode, exit_code_for_exception
    doc = level_document(privacy_level(from_rows(H2), line(2)))
    assert verify_document(doc).verified
    monkeypatch.setattr(kp, "MAX_WORK", 3)  # 2 pairs-directions × 2 outputs = 4 > 3
    with pytest.raises(InstanceTooLarge) as exc:
        verify_document(doc)
    assert exit_code_for_exception(exc.value) == ExitCode.UNDECIDED


def test_edges_suffice_large_grid_is_row_by_row() -> None:
    # finding 4: edges_suffice built an n×n object array (1.2 GB at n = 4900)
    # (a memory bound, not a timing one: an n×n array at n = 1,600 is ≥ 20 MB of pointers)
    g = grid(40, 40, norm="manhattan")
    edges = g.graph_edges
    assert edges is not None
    _ = (g.index, g.values)  # build the metric's own tables before measuring
    tracemalloc.start()
    try:
        assert edges_suffice(g, edges)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * 2**20, peak


def test_privacy_check_document_round_trip() -> None:
    # finding 5: PrivacyCheck.to_document / from_document
    H = from_rows(H2)
    c = is_private(H, line(2), eps=1)
    back = PrivacyCheck.from_document(c.to_document())
    assert back.private is False and back.violation == c.violation
