"""Session 11 review of 15F (``/work/notes/review15F11.md``, F1–F8): the scaled exact route
and the kernel kind ``exact-scaled`` at extreme spacings.

Ground truth: ε* of the L-shaped masked grid is ln 2 at spacing 1, so ln 2/h at spacing h
(``proofs/grid_spacing_scaling.py``).
"""

import copy
import re
from fractions import Fraction as F

import mpmath
import pytest

from exactdp.errors import InstanceTooLarge, InvalidArgument, PrecisionLimitReached, ToleranceTooFine
from exactdp.kernel.jsonio import dumps
from exactdp.kernel.threshold import check_threshold
from exactdp.kernel.verify import verify_document
from exactdp.spaces.metrics import grid, line_scaled
from exactdp.spaces.metrics.masked import masked_grid
from exactdp.threshold import ThresholdResult, epsilon_threshold
from exactdp.threshold.exact import ScaledExactCertificate, ScaledThresholdResult, exact_route

L_MASK = ["1111", "1111", "1100", "1100"]


def _L(h):
    return masked_grid(4, 4, "manhattan", h, mask=L_MASK)


def _unit_cert(h):
    return exact_route(_L(h), None, F(1, 10**9), None, [], 160)[0].certificate


def _ln2_inside(lo, hi, digits):
    with mpmath.workdps(digits):
        ln2 = mpmath.log(2)
        return mpmath.mpf(lo.numerator) / lo.denominator < ln2 < mpmath.mpf(hi.numerator) / hi.denominator


# ---------------------------------------------------------------- F1: tiny spacing, kernel precision
def test_f1_tiny_spacing_at_default_tol_is_refused_with_the_fix():
    """At 10⁻²⁶⁰⁰ the default tol = 10⁻⁹ needs the unit metric's ε* to 10⁻²⁶⁰⁹, beyond the
    kernel's 8192-bit check: 15F returned a certificate its kernel rejects. Now the route
    refuses and names the spacing, the tol and a tol that works; that tol certifies."""
    h = F(1, 10**2600)
    with pytest.raises(ToleranceTooFine) as info:
        epsilon_threshold(_L(h))
    msg = str(info.value)
    assert isinstance(info.value, PrecisionLimitReached)
    assert "tol = 1/1000000000" in msg and "c = ≈ 1e-2600" in msg and "8192 bits" in msg
    fix = re.search(r"tol=Fraction\(10\*\*(\d+)\)", msg)
    assert fix is not None, msg
    tol = F(10 ** int(fix.group(1)))
    r = epsilon_threshold(_L(h), tol=tol)
    assert r.eps_upper - r.eps_lower <= tol and r.verify()
    assert verify_document(r.to_json()).verified
    assert _ln2_inside(r.eps_lower * h, r.eps_upper * h, 2700)


def test_f1_just_inside_the_limit_still_certifies_and_unit_metrics_are_refused_too():
    r = epsilon_threshold(_L(F(1, 10**2400)))  # unit width 10⁻²⁴⁰⁹ ≈ 2⁻⁸⁰⁰⁰: checkable
    assert r.verify() and verify_document(r.to_json()).verified
    with pytest.raises(ToleranceTooFine, match="Pass a coarser absolute tol") as info:
        epsilon_threshold(_L(1), tol=F(1, 10**2600))  # the old limit at spacing 1
    assert "multiples of c" not in str(info.value)


# ---------------------------------------------------------------- F2: huge spacing, the reader's bound
def test_f2_huge_spacing_travels_as_a_grid_shape_and_verify_agrees_with_the_kernel():
    """Session 12 (15H): a library grid beyond the metric reader's 10^300 travels as its
    shape (it was refused up front); a non-grid metric there is still refused."""
    r = epsilon_threshold(_L(F(10**299)))  # largest distance 6·10²⁹⁹: a document holds it
    assert r.verify() and verify_document(r.to_json()).verified
    big = epsilon_threshold(_L(F(10**301)))
    doc = big.to_json()
    assert doc["question"]["metric"]["encoding"] == "grid" and verify_document(doc).verified
    assert _ln2_inside(big.eps_lower * 10**301, big.eps_upper * 10**301, 320)
    c = F(10**301)
    inner = _unit_cert(1)
    cert = ScaledExactCertificate(_L(c), None, c, inner, inner.eps_lower / c, inner.eps_upper / c)
    assert cert.verify() and verify_document(cert.to_json()).verified
    with pytest.raises(InstanceTooLarge, match=r"10\^300.*unit_metric"):
        epsilon_threshold(line_scaled(3, F(10**301)), method="exact")


# ---------------------------------------------------------------- F4: the stride uses the inner q′
def test_f4_threshold_claim_stride_uses_the_inner_denominator():
    inner = _unit_cert(F(1, 2))  # q′ = 2; d = 7·d′ on the 7/2 grid
    assert inner.solution.q == 2
    cert = ScaledExactCertificate(_L(F(7, 2)), None, F(7), inner, inner.eps_lower / 7, inner.eps_upper / 7)
    assert cert.verify()
    back = ScaledExactCertificate.from_json(cert.to_json())
    assert check_threshold(back.threshold_claim())  # g = 7·2/2 = 7 (15F used 14: a false claim)
    # c = 7/4 with the spacing-2 unit metric: g = (7/4)·2/1 = 7/2 is no integer stride
    two = _unit_cert(2)
    odd = ScaledExactCertificate(_L(F(7, 2)), None, F(7, 4), two, two.eps_lower * 4 / 7, two.eps_upper * 4 / 7)
    assert odd.verify()
    with pytest.raises(InvalidArgument, match="not an integer"):
        odd.threshold_claim()


# ---------------------------------------------------------------- F5 / F8: kernel messages
@pytest.fixture(scope="module")
def doc():
    return epsilon_threshold(_L(1000)).to_json()


def test_f5_huge_fractions_in_messages_reject_instead_of_crashing(doc):
    huge = "1/" + "9" * 5000
    d = copy.deepcopy(doc)
    d["claim"]["eps"] = {"lo": huge, "hi": d["claim"]["eps"]["hi"]}
    v = verify_document(d)
    assert not v.verified and "is not the inner" in v.reason and "2^" in v.reason
    d = copy.deepcopy(doc)
    d["evidence"]["unit"] = huge
    v = verify_document(d)
    assert not v.verified and "divided by c = 2^" in v.reason


def test_f8_inner_errors_name_their_location(doc):
    d = copy.deepcopy(doc)
    d["evidence"]["inner"] = copy.deepcopy(doc)
    with pytest.raises(InvalidArgument, match=r"^evidence\.inner: "):
        verify_document(d)


# ---------------------------------------------------------------- F7: the closed form through JSON
def test_f7_closed_form_survives_json():
    r = epsilon_threshold(_L(F(7, 2)))
    back = ThresholdResult.from_json(dumps(r.to_json()))
    assert isinstance(back, ScaledThresholdResult) and back.verified
    assert str(back.as_sympy()) == str(r.as_sympy()) == "2*log(2)/7"


# ---------------------------------------------------------------- F3: the Kronecker document
def test_f3_kronecker_at_a_huge_spacing_has_a_json_form():
    """Session 12 (15H): the whole product is solved at spacing 1 and wrapped (it had no
    JSON form: its factors' exact documents would have degree 10⁶·3)."""
    r = epsilon_threshold(grid(4, 3, "manhattan", spacing=10**6))
    assert r.verify()
    doc = r.to_json()
    assert doc["kind"] == "exact-scaled" and doc["evidence"]["inner"]["kind"] == "kronecker-threshold"
    assert verify_document(doc).verified


# ---------------------------------------------------------------- F6: printing at huge ε*
def test_f6_str_of_a_huge_threshold():
    r = epsilon_threshold(_L(F(1, 10**400)))
    text = str(r)
    assert "6.931471805599e399" in text and "width" in text
