"""Session 11 (15F): scaled exact threshold certificates as the kernel kind ``exact-scaled``.

A masked Manhattan grid at spacing 1000 has no ``exact`` document of its own (z(s^1000) is
too long); its scaled document carries the unit metric's exact document and the unit c.
Ground truth: ε* of the L-shaped grid is ln 2 at spacing 1 (``proofs/grid_spacing_scaling.py``),
so ln 2/1000 at spacing 1000; the holed grid holds for every ε.
"""

import copy
import math
import subprocess
import sys
from fractions import Fraction as F

import pytest

from exactdp.errors import InvalidArgument
from exactdp.kernel.jsonio import dumps
from exactdp.kernel.verify import verify_document
from exactdp.spaces.metrics.masked import masked_grid
from exactdp.testing.budget import call_budget
from exactdp.threshold import ThresholdResult, epsilon_threshold
from exactdp.threshold.exact import ScaledExactCertificate

L_MASK = ["1111", "1111", "1100", "1100"]
L_MIRROR = ["1111", "1111", "0011", "0011"]  # same n, same distances, another point order
HOLE_MASK = ["11111", "11011", "10001", "11111"]
PRIOR = tuple(F(k + 1, 78) for k in range(12))  # Σ (k+1)/78 over 12 points = 1


@pytest.fixture(scope="module")
def docs():
    out = {}
    for name, mask, h, prior in (("L", L_MASK, 1000, None), ("mirror", L_MIRROR, 1000, None),
                                 ("L-prior", L_MASK, 1000, PRIOR), ("L-7/2", L_MASK, F(7, 2), None),
                                 ("hole", HOLE_MASK, 1000, None)):
        r = epsilon_threshold(masked_grid(len(mask[0]), len(mask), "manhattan", h, mask=mask), prior=prior)
        assert isinstance(r.certificate, ScaledExactCertificate) and r.verify()
        out[name] = (r, r.to_json())
    return out


def _verified(doc):
    return verify_document(doc).verified


def test_round_trip_and_ground_truth(docs):
    r, doc = docs["L"]
    assert doc["kind"] == "exact-scaled" and doc["evidence"]["unit"] == "1000"
    assert doc["evidence"]["inner"]["kind"] == "exact"
    assert r.eps_lower < F(math.log(2)) / 1000 < r.eps_upper
    back = ThresholdResult.from_json(dumps(doc))
    assert back.verified and back.eps_enclosure == r.eps_enclosure
    assert ScaledExactCertificate.from_json(doc).to_json() == doc
    for name in ("L-prior", "L-7/2", "hole"):
        assert _verified(docs[name][1]), name
    assert docs["hole"][0].holds_everywhere


def test_exactdp_verify_in_a_fresh_process(docs, tmp_path):
    good, bad, broken = tmp_path / "good.json", tmp_path / "bad.json", tmp_path / "broken.json"
    good.write_text(dumps(docs["L"][1]))
    forged = copy.deepcopy(docs["L"][1])
    forged["evidence"]["unit"] = "999"
    bad.write_text(dumps(forged))
    forged["evidence"]["unit"] = "-1000"
    broken.write_text(dumps(forged))
    # one fresh process (imports cost seconds), the CLI entry point once per file
    code = "import sys; from exactdp.cli.app import main; print([main(['verify', f]) for f in sys.argv[1:]])"
    out = subprocess.run([sys.executable, "-c", code, str(good), str(bad), str(broken)],
                         capture_output=True, text=True, timeout=120)
    assert out.stdout.strip().splitlines()[-1] == "[0, 1, 3]", out.stdout + out.stderr


def test_forgeries_rejected(docs):
    doc = docs["L"][1]
    inner_eps = doc["evidence"]["inner"]["claim"]["eps"]

    def forged(**edits):
        d = copy.deepcopy(doc)
        for key, value in edits.items():
            part, field = key.split("__")
            d[part][field] = value
        return d

    # wrong c, with the outer enclosure made consistent with it
    wrong = forged(evidence__unit="999", claim__eps={
        k: str(F(v) / 999) for k, v in inner_eps.items()})
    assert not _verified(wrong)
    assert "divided by c = 999" in verify_document(wrong).reason
    # the outer enclosure is not inner/c (a nudge, and a wider but true one)
    lo, hi = F(doc["claim"]["eps"]["lo"]), F(doc["claim"]["eps"]["hi"])
    assert not _verified(forged(claim__eps={"lo": str(lo * 2), "hi": str(hi * 2)}))
    assert not _verified(forged(claim__eps={"lo": str(lo / 2), "hi": str(hi)}))
    # the inner document of another metric (same n, same distances, mirrored points),
    # of another rhs (a prior), of another spacing's unit (7/2: the unit metric is the same,
    # so it is bound: c and eps say which), and an altered inner document
    assert not _verified(forged(evidence__inner=docs["mirror"][1]["evidence"]["inner"]))
    assert not _verified(forged(evidence__inner=docs["L-prior"][1]["evidence"]["inner"]))
    inner = copy.deepcopy(doc["evidence"]["inner"])
    inner["evidence"]["numerators"][0][-1] = str(int(inner["evidence"]["numerators"][0][-1]) + 1)
    assert not _verified(forged(evidence__inner=inner))
    # the unit metric's own exact document is not a certificate of the spacing-1000 question
    assert not _verified(forged(evidence__inner=docs["hole"][1]["evidence"]["inner"]))
    # the prior's outer document with the tight constraints' inner one
    d = copy.deepcopy(docs["L-prior"][1])
    d["evidence"]["inner"] = doc["evidence"]["inner"]
    assert not _verified(d)


@pytest.mark.parametrize("unit", ["0", "-1000", "1000/1", "1e3", 1000])
def test_bad_unit_is_malformed(docs, unit):
    d = copy.deepcopy(docs["L"][1])
    d["evidence"]["unit"] = unit
    with pytest.raises(InvalidArgument, match="unit"):
        verify_document(d)


@pytest.mark.parametrize("unit", ["1" + "0" * 400, "1/1" + "0" * 400])
def test_huge_and_tiny_units_are_rejected_with_a_reason(docs, unit):
    d = copy.deepcopy(docs["L"][1])
    d["evidence"]["unit"] = unit
    c = F(unit)
    d["claim"]["eps"] = {k: str(F(v) / c) for k, v in d["evidence"]["inner"]["claim"]["eps"].items()}
    v = verify_document(d)
    assert not v.verified and "divided by c" in v.reason


def test_inner_must_be_exact(docs):
    d = copy.deepcopy(docs["L"][1])
    d["evidence"]["inner"] = copy.deepcopy(d)  # an exact-scaled document inside
    with pytest.raises(InvalidArgument):
        verify_document(d)


def test_spacing_ten_to_minus_400_is_fast_and_travels():
    """masked L at spacing 10⁻⁴⁰⁰ ran > 200 s (ε* ≈ 6.9·10³⁹⁹ to an absolute 10⁻⁹: the
    enclosure's log ran at too low a precision, forever). Now: solved in the unit 10⁻⁴⁰⁰,
    s* refined in one bisection run, and the document is exact-scaled."""

    import mpmath

    h = F(1, 10**400)
    with call_budget(150_000):
        r = epsilon_threshold(masked_grid(4, 4, "manhattan", h, mask=L_MASK))
    assert r.eps_upper - r.eps_lower <= F(1, 10**9)
    with mpmath.workdps(450):
        ln2 = mpmath.log(2)
        lo, hi = r.eps_lower * h, r.eps_upper * h
        assert mpmath.mpf(lo.numerator) / lo.denominator < ln2 < mpmath.mpf(hi.numerator) / hi.denominator
    doc = r.to_json()
    assert doc["kind"] == "exact-scaled" and _verified(doc) and "e-400" in r.method


def test_one_eps_masked_grid_at_spacing_ten_to_minus_400():
    """tight_constraints on a matrix-free masked grid at spacing 10⁻⁴⁰⁰ and ε = 10⁴⁰⁰ (ε·h = 1):
    the float kernel multiplied ε by float(h) = 0 and spent ≈ 15 s before PrecisionLimitReached."""
    from exactdp import tight_constraints

    k = 40  # n = 1200: the matrix-free route
    mask = ["1" * k] * (k // 2) + ["1" * (k // 2) + "0" * (k // 2)] * (k // 2)
    one = tight_constraints(masked_grid(k, k, "manhattan", mask=mask), eps=1)
    tiny = tight_constraints(masked_grid(k, k, "manhattan", F(1, 10**400), mask=mask), eps="10**400")
    assert tiny.exists == one.exists and tiny.verify()
