"""The code an auditor must read to trust one document's verdict stays small, per kind.

``scripts/kernel_closure.py`` computes, for every kind the kernel re-checks, the kernel
modules behind its verdict (verify.py, jsonio, the modules of its reader and checker taken
from the dispatch table ``verify.KIND_CHECKS``, their static kernel import closure, and the
closures of every kind its documents may embed) and their code lines. Issue 11 asks for a
kernel an auditor can read in an afternoon (< 2,000 code lines); these tests hold every kind
to 2,000 lines where the restructuring reached it, and to a stated, reasoned bound where it
did not — so a closure that grows past its bound fails here.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from exactdp.kernel import verify
from exactdp.kernel.grid_point import GRID_POINT
from exactdp.kernel.grid_point_exact import GRID_POINT_EXACT
from exactdp.kernel.linear import LINEAR_KINDS
from exactdp.kernel.privacy import PRIVACY_KINDS
from exactdp.kernel.pufferfish import PUFFERFISH_KINDS
from exactdp.kernel.pufferfish_integrals import INTEGRAL_KINDS
from exactdp.kernel.pufferfish_mechanisms import MECHANISM_KINDS
from exactdp.kernel.pufferfish_more import MORE_KINDS
from exactdp.kernel.qif import QIF_KINDS
from exactdp.kernel.qif_log import QIF_LOG_KINDS
from exactdp.kernel.remap import REMAP_KINDS
from exactdp.kernel.sets import SET_FUNCTIONALS, SET_PRIVACY
from exactdp.kernel.sets_real import REAL_SET_KINDS
from exactdp.kernel.threshold import THRESHOLD_KINDS
from exactdp.kernel.threshold_grid import GRID_THRESHOLD
from exactdp.kernel.threshold_quotient import QUOTIENT_KIND
from exactdp.kernel.threshold_scaled import SCALED_KIND
from exactdp.kernel.threshold_spd import SPD_POINT
from exactdp.kernel.threshold_structured import STRUCTURED_KIND

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("kernel_closure15", ROOT / "scripts" / "kernel_closure.py")
assert _spec is not None and _spec.loader is not None
kc = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = kc
_spec.loader.exec_module(kc)

#: The goal of issue 11, per kind.
GOAL = 2000
#: Kinds over the goal, each with its own bound (a little headroom over today's figure) and why.
#: Each reason names modules outside this restructuring (not split here), so the figure is the
#: floor of honest reader restructuring.
OVER = {
    # Session 16 gave exact/prop9 (threshold_exact.py) and the two covers
    # (threshold_cover_claims.py) their own readers and dispatch rows, moved the claim frame to
    # threshold_claim.py and the covers' fail side out of threshold_spd.py (so spd-point and
    # grid-threshold no longer import linear.py): those five kinds and grid-threshold are now
    # under the goal. The two kinds left over *compose* other kinds' complete documents:
    # a kronecker-threshold factor may be of every threshold kind (exact, prop9, either cover,
    # or a kronecker-threshold), so its closure is the union of the exact and cover closures
    # plus threshold.py/threshold_json.py (2,218);
    "kronecker-threshold": 2250,
    # the inner document of exact-scaled may be of any threshold kind, structured, quotient or
    # grid: the union (3,070; it grew by the split modules' headers and imports).
    SCALED_KIND: 3100,
}


@pytest.fixture(scope="module")
def table() -> dict[str, dict]:
    return kc.measure(ROOT)


def test_dispatch_table_is_every_family_once():
    families = (LINEAR_KINDS + THRESHOLD_KINDS + (STRUCTURED_KIND, SPD_POINT, GRID_POINT, QUOTIENT_KIND,
                GRID_THRESHOLD, SET_PRIVACY, GRID_POINT_EXACT, SCALED_KIND) + PRIVACY_KINDS + PUFFERFISH_KINDS
                + REMAP_KINDS + MORE_KINDS + INTEGRAL_KINDS + MECHANISM_KINDS + SET_FUNCTIONALS + QIF_KINDS
                + QIF_LOG_KINDS + REAL_SET_KINDS)
    # disjoint rows: the old if-chain's first match and the table's entry are the same check
    assert len(families) == len(set(families)) == len(verify.KIND_CHECKS)
    assert set(families) == set(verify.SUPPORTED_KINDS) == set(verify.KIND_CHECKS)
    # the dispatch looks the table's functions up by name in verify.py: the same objects
    for fns in verify.KIND_CHECKS.values():
        assert all(vars(verify)[f.__name__] is f for f in fns if f is not None)


def test_every_kind_is_mapped_to_entry_modules(table):
    assert set(table) == set(verify.SUPPORTED_KINDS)
    for kind, row in table.items():
        assert row["entry"], kind
        for m in row["entry"]:
            assert m.startswith("exactdp.kernel."), (kind, m)
            assert m in row["kernel_modules"], (kind, m)
        assert {"exactdp.kernel.verify", "exactdp.kernel.jsonio"} <= set(row["kernel_modules"]), kind
    emb = kc.embeds()
    assert set(emb) <= set(verify.SUPPORTED_KINDS)
    assert all(v and set(v) <= set(verify.SUPPORTED_KINDS) for v in emb.values())


def test_every_closure_within_its_bound(table):
    over = {kind: (row["kernel_lines"], OVER.get(kind, GOAL)) for kind, row in table.items()
            if row["kernel_lines"] > OVER.get(kind, GOAL)}
    assert not over, over


def test_bounds_over_the_goal_are_still_needed(table):
    """A kind brought under the goal drops out of OVER (its bound tightens to 2,000)."""
    assert {k for k in OVER if table[k]["kernel_lines"] <= GOAL} == set()


def test_closure_sees_known_dependencies(table):
    """Not vacuous: known imports and embeddings are in the closures."""
    linear = set(table["exact-solution"]["kernel_modules"])
    assert {"exactdp.kernel.linear", "exactdp.kernel.linear_json", "exactdp.kernel.read_common",
            "exactdp.kernel.question", "exactdp.kernel.metricio", "exactdp.kernel.axioms"} <= linear
    assert "exactdp.kernel.threshold" not in linear and "exactdp.kernel.privacy" not in linear
    # a cover embeds an spd-point document: its reader is in the closure
    assert "exactdp.kernel.threshold_spd_json" in table["certified-cover"]["kernel_modules"]
    assert table["kronecker"]["embeds"] == sorted(set(LINEAR_KINDS) - {"kronecker"})
    assert set(table["certified-cover"]["embeds"]) == {SPD_POINT, *LINEAR_KINDS}
    # exact-scaled embeds every threshold kind: its closure holds theirs
    scaled = set(table[SCALED_KIND]["kernel_modules"])
    for k in THRESHOLD_KINDS + (STRUCTURED_KIND, QUOTIENT_KIND, GRID_THRESHOLD):
        assert set(table[k]["kernel_modules"]) <= scaled, k
    # the kinds that need only the polynomial helpers / Taylor candidates do not pull in the
    # linear-system, SPD or cover checks (threshold_poly.py, threshold_taylor.py)
    for k in (STRUCTURED_KIND, QUOTIENT_KIND, *REAL_SET_KINDS, GRID_POINT, GRID_POINT_EXACT):
        mods = set(table[k]["kernel_modules"])
        assert not mods & {"exactdp.kernel.threshold", "exactdp.kernel.threshold_spd",
                           "exactdp.kernel.threshold_cover", "exactdp.kernel.linear"}, k
    assert "exactdp.kernel.threshold_poly" in table[STRUCTURED_KIND]["kernel_modules"]
    assert "exactdp.kernel.threshold_taylor" in table[GRID_POINT]["kernel_modules"]
    assert "exactdp.kernel.threshold_spd" in table[GRID_THRESHOLD]["kernel_modules"]
    # session 16: exact/prop9 read and check apart from the covers, the covers apart from the
    # exact-polynomial checks, and spd-point/grid-threshold without the linear-system checks
    for k in ("exact", "prop9"):
        assert not set(table[k]["kernel_modules"]) & {
            "exactdp.kernel.threshold", "exactdp.kernel.threshold_json", "exactdp.kernel.threshold_spd",
            "exactdp.kernel.threshold_cover", "exactdp.kernel.threshold_cover_claims", "exactdp.kernel.linear_json"}, k
        assert "exactdp.kernel.threshold_exact" in table[k]["kernel_modules"]
    for k in ("certified-cover", "spd-taylor-cover"):
        assert not set(table[k]["kernel_modules"]) & {
            "exactdp.kernel.threshold", "exactdp.kernel.threshold_json", "exactdp.kernel.threshold_exact",
            "exactdp.kernel.threshold_poly"}, k
    for k in (SPD_POINT, GRID_THRESHOLD):
        assert "exactdp.kernel.linear" not in table[k]["kernel_modules"], k
    assert set(table["kronecker-threshold"]["embeds"]) >= set(THRESHOLD_KINDS) - {"kronecker-threshold"}
    assert "exactdp.arithmetic.ball" in table["exact-solution"]["trusted_modules"]
    lines = {kind: row["kernel_lines"] for kind, row in table.items()}
    assert lines[SCALED_KIND] > lines["exact"] > lines["exact-solution"] > 500


def test_closure_of_a_toy_package(tmp_path):
    """The import walk follows ``from pkg.kernel import x``, nested imports and packages."""
    k = tmp_path / "exactdp" / "kernel"
    k.mkdir(parents=True)
    (tmp_path / "exactdp" / "__init__.py").write_text("")
    (k / "__init__.py").write_text("")
    (k / "a.py").write_text("from exactdp.kernel import b\n")
    (k / "b.py").write_text("def f():\n    from exactdp.kernel.c import g\n    return g\n")
    (k / "c.py").write_text("x = 1\n")
    (k / "d.py").write_text("y = 2\n")
    mods = kc.closure(tmp_path, {"exactdp.kernel.a"})
    assert {"exactdp.kernel.a", "exactdp.kernel.b", "exactdp.kernel.c"} <= mods
    assert "exactdp.kernel.d" not in mods
    assert kc.lines(tmp_path, {"exactdp.kernel.b"}) == 3
