"""Session 12 (15H): thresholds of metrics d = c·d′ far from unit scale, solved in the unit.

Every route's certificate of the unit metric d′ travels inside an ``exact-scaled`` document
(inner kinds exact, kronecker-threshold, spd-taylor-cover, grid-threshold); a grid travels
as its shape when its distances exceed what a metric encoding holds (10^300).

Ground truth (``proofs/grid_spacing_scaling.py``: ε*(d) = ε*(d′)/c): the L-shaped masked
Manhattan grid and the 3×3 Manhattan grid with the product prior (1, 2, 3)⊗(1, 2, 3) have
ε* = ln 2 at spacing 1 (the exact route's closed forms, checked here at 450 digits against
the enclosures times c); other grids are checked against the spacing-1 result of the same
code (both enclosures contain ε*(d′), so c·[lo, hi] must meet the unit enclosure).
"""

from __future__ import annotations

import copy
import subprocess
import sys
from fractions import Fraction as F

import mpmath
import pytest

from exactdp.errors import InvalidArgument, ToleranceTooFine
from exactdp.kernel.jsonio import dumps
from exactdp.kernel.threshold_scaled import scaled_question_ok
from exactdp.kernel.verify import verify_document
from exactdp.spaces.metrics import grid
from exactdp.spaces.metrics.masked import GridShape, masked_grid
from exactdp.threshold import ThresholdResult, epsilon_threshold
from exactdp.threshold.exact import ScaledExactCertificate

SPACINGS = [F(1, 10**400), F(1, 10**35), F(10**4), F(10**40), F(10**400)]
IDS = ["h=1e-400", "h=1e-35", "h=1e4", "h=1e40", "h=1e400"]
L_MASK = ["1111", "1111", "1100", "1100"]
PRIOR = [F(a * b, 36) for a in (1, 2, 3) for b in (1, 2, 3)]


def _tol(h):
    """10⁻⁹ in the unit metric's ε (an absolute 10⁻⁹ at ε* ≈ 10⁴⁰⁰ would be 409 digits)."""
    return F(1, 10**9) if h >= 1 else F(1, 10**9) / h


def _ln2_inside(lo, hi):
    with mpmath.workdps(450):
        ln2 = mpmath.log(2)
        return mpmath.mpf(lo.numerator) / lo.denominator < ln2 < mpmath.mpf(hi.numerator) / hi.denominator


def _verified(doc):
    return verify_document(doc).verified


@pytest.mark.parametrize("h", SPACINGS, ids=IDS)
def test_exact_and_kronecker_inner_contain_ln2(h):
    for make, prior, inner_kind in ((lambda s: masked_grid(4, 4, "manhattan", s, mask=L_MASK), None, "exact"),
                                    (lambda s: grid(3, 3, "manhattan", spacing=s), PRIOR, "kronecker-threshold")):
        r = epsilon_threshold(make(h), prior=prior, tol=_tol(h))
        assert r.eps_upper - r.eps_lower <= _tol(h)
        assert _ln2_inside(r.eps_lower * h, r.eps_upper * h)
        doc = r.to_json()
        assert doc["kind"] == "exact-scaled" and doc["evidence"]["inner"]["kind"] == inner_kind
        assert _verified(doc) and r.verify()


@pytest.fixture(scope="module")
def unit_euclidean():
    return epsilon_threshold(grid(4, 3))


@pytest.mark.parametrize("h", SPACINGS, ids=IDS)
def test_certified_inner_agrees_with_the_unit_result(h, unit_euclidean):
    r = epsilon_threshold(grid(4, 3, spacing=h), tol=_tol(h))
    one = unit_euclidean
    assert r.eps_upper - r.eps_lower <= _tol(h)
    assert r.eps_lower * h <= one.eps_upper and one.eps_lower <= r.eps_upper * h
    assert r.verify() and _verified(r.to_json())
    if h != F(10**4):  # 10⁴ is within 2^±20 of 1: the route runs at that scale, as before
        assert r.to_json()["evidence"]["inner"]["kind"] == "spd-taylor-cover"


def test_masked_grid_above_the_exact_size_at_ten_to_minus_400():
    """n = 169 > max_exact_n: the dense certified route on the unit grid (it was refused)."""
    mask = ["1" * 15] * 8 + ["1" * 7 + "0" * 8] * 7
    h = F(1, 10**400)
    r = epsilon_threshold(masked_grid(15, 15, "manhattan", h, mask=mask), tol=_tol(h))
    assert "certified" in r.method and "1e-400" in r.method
    assert _ln2_inside(r.eps_lower * h, r.eps_upper * h)  # the L-shaped family: ε*(1) = ln 2
    assert _verified(r.to_json())


@pytest.fixture(scope="module")
def matrix_free_docs():
    """A masked Euclidean grid with n = 992 > 900 (the matrix-free route) at 10⁴⁰, its
    spacing-1 result, and the same grid at 10⁻⁴⁰⁰."""
    mask = ["1" * 32] * 30 + ["1" * 16 + "0" * 16] * 2
    one = epsilon_threshold(masked_grid(32, 32, "euclidean", 1, mask=mask))
    out = {}
    for h in (F(10**40), F(1, 10**400)):
        r = epsilon_threshold(masked_grid(32, 32, "euclidean", h, mask=mask), tol=_tol(h))
        out[h] = (r, r.to_json())
    return one, out


def test_matrix_free_inner_travels_as_shapes(matrix_free_docs):
    one, out = matrix_free_docs
    for h, (r, doc) in out.items():
        assert doc["question"]["metric"]["encoding"] == "grid"
        assert doc["evidence"]["inner"]["kind"] == "grid-threshold"
        assert doc["evidence"]["inner"]["question"]["metric"]["spacing"] == "1"
        assert r.eps_lower * h <= one.eps_upper and one.eps_lower <= r.eps_upper * h
        back = ThresholdResult.from_json(dumps(doc))
        assert back.verified and back.eps_enclosure == r.eps_enclosure


def test_tampering_is_rejected(matrix_free_docs):
    _, out = matrix_free_docs
    doc = out[F(10**40)][1]
    other = out[F(1, 10**400)][1]
    lo, hi = F(doc["claim"]["eps"]["lo"]), F(doc["claim"]["eps"]["hi"])
    inner_eps = {k: F(v) for k, v in doc["evidence"]["inner"]["claim"]["eps"].items()}

    def edit(f):
        d = copy.deepcopy(doc)
        f(d)
        return verify_document(d)

    # c edited, the outer enclosure made consistent with it
    def wrong_unit(d):
        d["evidence"]["unit"] = str(10**39)
        d["claim"]["eps"] = {k: str(v / 10**39) for k, v in inner_eps.items()}
    v = edit(wrong_unit)
    assert not v.verified and "divided by c" in v.reason
    # the outer enclosure nudged, or widened (true but not the inner one divided by c)
    assert not edit(lambda d: d["claim"]["eps"].update(lo=str(lo + (hi - lo) / 3))).verified
    assert not edit(lambda d: d["claim"]["eps"].update(lo=str(lo / 2), hi=str(hi * 2))).verified
    # the question's spacing edited (with c and the enclosure consistent: another grid then
    # has the inner one as its unit; with them unchanged: not d/c)
    assert not edit(lambda d: d["question"]["metric"].update(spacing=str(10**41))).verified

    # the inner document of another metric: another mask (same spacing 1)
    def swap_mask(d):
        inner = copy.deepcopy(d["evidence"]["inner"])
        inner["question"]["metric"]["mask"] = ["1" * 32] * 31 + ["1" * 16 + "0" * 16]
        d["evidence"]["inner"] = inner
    assert not edit(swap_mask).verified
    # the same unit grid's inner document from the 10⁻⁴⁰⁰ question is the same true claim (both
    # solved to 10⁻⁹ at spacing 1): accepted; another grid's inner document, or the inner
    # grid's spacing edited: rejected
    assert edit(lambda d: d["evidence"].update(inner=other["evidence"]["inner"])).verified
    small = epsilon_threshold(grid(4, 3, spacing=10**40)).to_json()["evidence"]["inner"]
    assert not edit(lambda d: d["evidence"].update(inner=small)).verified
    assert not edit(lambda d: d["evidence"]["inner"]["question"]["metric"].update(spacing="2")).verified
    # the inner enclosure edited (and the outer made consistent): the inner check fails
    def inner_nudge(d):
        d["evidence"]["inner"]["claim"]["eps"]["hi"] = str(inner_eps["lo"] + (inner_eps["hi"] - inner_eps["lo"]) / 4)
        d["claim"]["eps"]["hi"] = str(F(d["evidence"]["inner"]["claim"]["eps"]["hi"]) / 10**40)
    assert not edit(inner_nudge).verified


def test_swapped_inner_documents_between_questions():
    L = epsilon_threshold(masked_grid(4, 4, "manhattan", F(10**40), mask=L_MASK)).to_json()
    mirror = epsilon_threshold(masked_grid(4, 4, "manhattan", F(10**40),
                                           mask=["1111", "1111", "0011", "0011"])).to_json()
    kron = epsilon_threshold(grid(3, 3, "manhattan", spacing=10**40), prior=PRIOR).to_json()
    tight = epsilon_threshold(grid(3, 3, "manhattan", spacing=10**40)).to_json()
    for outer, inner in ((L, mirror), (mirror, L), (kron, tight), (tight, kron)):
        d = copy.deepcopy(outer)
        d["evidence"]["inner"] = inner["evidence"]["inner"]
        assert not _verified(d)
    for d in (L, mirror, kron, tight):
        assert _verified(d)


def test_shape_rule_is_exact():
    s = GridShape(5, 4, "euclidean", F(10**40), (0, 1, 2, 5, 6, 7))
    u = GridShape(5, 4, "euclidean", F(1), (0, 1, 2, 5, 6, 7))
    assert scaled_question_ok(s, u, F(10**40))
    assert not scaled_question_ok(s, u, F(10**40) + 1)
    assert not scaled_question_ok(s, GridShape(5, 4, "manhattan", F(1), u.mask), F(10**40))
    assert not scaled_question_ok(s, GridShape(5, 4, "euclidean", F(1), (0, 1, 2, 5, 6, 8)), F(10**40))
    assert not scaled_question_ok(s, GridShape(4, 5, "euclidean", F(1), u.mask), F(10**40))


def test_nested_scaled_inner_is_malformed():
    doc = epsilon_threshold(grid(4, 3, spacing=10**40)).to_json()
    d = copy.deepcopy(doc)
    d["evidence"]["inner"] = copy.deepcopy(doc)
    with pytest.raises(InvalidArgument, match=r"^evidence\.inner: kind 'exact-scaled'"):
        verify_document(d)


def test_tiny_spacing_with_an_absolute_tol_names_the_fix():
    with pytest.raises(ToleranceTooFine, match=r"tol=Fraction\(10\*\*26\)"):
        epsilon_threshold(grid(4, 3, spacing=F(1, 10**35)))


def test_exactdp_verify_in_a_fresh_process(tmp_path, matrix_free_docs):
    _, out = matrix_free_docs
    good = epsilon_threshold(grid(3, 3, "manhattan", spacing=10**400), prior=PRIOR).to_json()
    files = []
    for name, doc in (("kron", good), ("mf", out[F(10**40)][1]), ("tiny", out[F(1, 10**400)][1])):
        files.append(tmp_path / f"{name}.json")
        files[-1].write_text(dumps(doc))
    forged = copy.deepcopy(good)
    forged["evidence"]["unit"] = str(10**399)
    files.append(tmp_path / "forged.json")
    files[-1].write_text(dumps(forged))
    forged["evidence"]["unit"] = "0"
    files.append(tmp_path / "broken.json")
    files[-1].write_text(dumps(forged))
    code = "import sys; from exactdp.cli.app import main; print([main(['verify', f]) for f in sys.argv[1:]])"
    res = subprocess.run([sys.executable, "-c", code, *map(str, files)], capture_output=True, text=True,
                         timeout=600)
    assert res.stdout.strip().splitlines()[-1] == "[0, 0, 0, 1, 3]", res.stdout + res.stderr


def test_python_object_round_trip_with_a_cover_inner():
    r = epsilon_threshold(grid(4, 3, spacing=10**40))
    doc = r.to_json()
    with pytest.raises(InvalidArgument, match="inner_from_json"):
        ScaledExactCertificate.from_json(doc)  # a cover inner needs the library's reader
    back = ThresholdResult.from_json(doc).certificate
    assert isinstance(back, ScaledExactCertificate) and back.to_json() == doc and back.verify()
