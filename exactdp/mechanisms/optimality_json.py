"""Remap certificates of :func:`~exactdp.mechanisms.optimality.is_optimal` as kernel documents.

:func:`remap_document` writes a :class:`~exactdp.mechanisms.optimality.RemapCertificate`
(kind ``remap``) or :class:`~exactdp.mechanisms.optimality.FarkasRemapCertificate` (kind
``remap-farkas``) with its whole question (metric, exact level, exact rows of H);
``exactdp verify FILE`` re-checks it with the kernel alone (:mod:`exactdp.kernel.remap`:
H private at ε, then the remap or the Farkas vector, in exact rationals), and
:func:`remap_from_document` reads one back after the kernel accepted it.

Exact rows travel when H is exact and row-stochastic and s = e^{−ε/q} itself is rational
(q: the denominator of the metric's distances; rational Φ entries s^k with an irrational s,
e.g. ε = (3/2)·ln 2 on distances 2/3, 4/3, are not enough). At a rational ε (s then
transcendental) the question carries H as rational functions of its base x = e^{log_x}
(:func:`qx_question`: exact rows, a sealed monomial form, a sealed row-normalized form such
as the exponential mechanism, or the tight-constraints mechanism, whose z — known to it only
as balls — is solved exactly in Q(x) here; :mod:`exactdp.kernel.remap_qx`), and
:func:`remap_from_document` rebuilds that mechanism. Otherwise
:class:`~exactdp.errors.ExactnessRequired` (bare balls from a caller, or an algebraic s: the
certificate's ``verify()`` re-checks it in Python). A Φ table beyond the kernel's size limit
(:data:`~exactdp.kernel.remap.MAX_PHI_BITS`, :func:`~exactdp.kernel.remap_qx.require_qx`) or
a privacy scan beyond its work limit raises :class:`~exactdp.errors.InstanceTooLarge` before
anything is written (powers x^{a·E}, x^{b·k} beyond
:data:`~exactdp.kernel.remap_qx.MAX_QX_DEGREE`: from the integers, before any polynomial is built).

A ``remap-farkas`` document reuses the ``private`` question with the verdict ``fails``: it
says "H is *not optimal* for every regular prior" (no remap solves Thm. 4's condition), not
"H is not private" — only ``kind`` tells the two apart, so a reader must dispatch on
``kind`` (as :func:`~exactdp.kernel.verify.verify_document` does), never on the question and
verdict alone. Its H *is* private at ε: the kernel re-checks that first.

>>> from exactdp.spaces.metrics import line
>>> from exactdp.mechanisms.constructors import truncated_geometric
>>> from exactdp.mechanisms.optimality import RemapCertificate, is_optimal
>>> cert = is_optimal(truncated_geometric(3, t="1/2"), line(3), t="1/2").certificate
>>> doc = cert.to_json()
>>> doc["kind"], doc["claim"]["remap"][0]
('remap', ['1', '0', '0'])
>>> back = RemapCertificate.from_json(doc)
>>> back.remap == cert.remap, back.verify()
(True, True)
>>> doc = is_optimal(truncated_geometric(3, eps=1), line(3), eps=1).certificate.to_json()
>>> doc["question"]["level"], doc["question"]["mechanism"]["log_x"], doc["question"]["mechanism"]["entries"][0][1]
({'eps': '1'}, '-1', [0, [[1, '1'], [2, '-1']]])
>>> RemapCertificate.from_json(doc).verify()
True
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import flint
import numpy as np
import sympy

from exactdp.arithmetic.ball import DEFAULT_PREC, arb_from_fraction, workprec
from exactdp.arithmetic.rationals import fmpq_to_fraction, to_sympy
from exactdp.engine.documents import write_remap, write_remap_qx
from exactdp.engine.questions import make_question
from exactdp.errors import (
    CertificateInvalid,
    ExactnessRequired,
    InstanceTooLarge,
    InvalidArgument,
    PrecisionLimitReached,
)
from exactdp.kernel.jsonio import loads, read_envelope, read_rational
from exactdp.kernel.privacy import MAX_PREC as KERNEL_MAX_PREC
from exactdp.kernel.question import Property
from exactdp.kernel.remap import REMAP_KINDS
from exactdp.kernel.remap_qx import MAX_QX_DEGREE, MAX_QX_WORK, QxQuestion, read_qx_question, sign_work
from exactdp.kernel.verify import verify_document
from exactdp.kinds import CertificateKind
from exactdp.mechanisms.constructors import S_SYMBOL, from_rows
from exactdp.mechanisms.mechanism import Mechanism
from exactdp.mechanisms.optimality_field import QxField, poly_ball, tight_structure
from exactdp.mechanisms.privacy_json import accepted_document, exact_rows
from exactdp.spaces.levels import PrivacyLevel
from exactdp.spaces.mechanism_forms import MonomialForm, RowNormalizedForm
from exactdp.spaces.metrics import FiniteMetric

if TYPE_CHECKING:
    from exactdp.mechanisms.optimality import FarkasRemapCertificate, RemapCertificate

__all__ = ["remap_document", "remap_from_document", "qx_question"]


def remap_document(cert: RemapCertificate | FarkasRemapCertificate) -> dict[str, Any]:
    """The kernel document of a remap or Farkas remap certificate (at a rational ε: the
    mechanism as rational functions of x, :func:`qx_question`)."""
    holds = cert.kind is CertificateKind.REMAP
    evidence = cert.remap if holds else cert.w  # type: ignore[union-attr]
    if cert.level.eps_rational is not None:
        return write_remap_qx(qx_question(cert.mechanism, cert.metric, cert.level), holds, evidence)
    rows = tuple(tuple(r) for r in exact_rows(cert.mechanism))
    q = make_question(cert.metric, Property.PRIVATE, None, cert.level, rows)
    try:
        if cert.kind is CertificateKind.REMAP:
            return write_remap(q, True, cert.remap)  # type: ignore[union-attr]
        return write_remap(q, False, cert.w)  # type: ignore[union-attr]
    except InvalidArgument as exc:  # the kernel builds Φ = (s^k) from s itself
        raise ExactnessRequired(
            f"at {cert.level} on {cert.metric.name}, s = e^(-ε/q) is irrational (q = "
            f"{cert.metric.q}; even if every Φ entry e^(-ε·d) = s^k is rational), so the "
            "kernel cannot re-check this certificate in exact rationals; its verify() "
            f"re-checks it in Python (identities in Q(x), balls). Kernel: {exc}") from exc


def remap_from_document(cls: type[Any], doc: Any) -> Any:
    """The certificate a ``remap``/``remap-farkas`` document states (kernel-checked first;
    rejected: CertificateInvalid). ``cls`` is the certificate class the kind must match."""
    if isinstance(doc, (str, bytes)):
        doc = loads(doc)
    kind = read_envelope(doc).kind
    want = cls.__dataclass_fields__["kind"].default.value
    if kind not in REMAP_KINDS or kind != want:
        raise InvalidArgument(f"kind: got {kind!r}; {cls.__name__} reads {want!r} documents.")
    if isinstance(doc["question"].get("mechanism"), dict):
        return _qx_certificate(cls, doc, kind)
    q, claim = accepted_document(doc, kind)
    assert q.mechanism is not None and isinstance(q.level, PrivacyLevel)
    mech = from_rows(q.mechanism)
    if kind == CertificateKind.REMAP.value:
        remap = tuple(tuple(read_rational(x, "claim.remap") for x in r) for r in claim["remap"])
        return cls(remap, mech, q.metric, q.level)
    return cls(tuple(read_rational(x, "claim.w") for x in claim["w"]), mech, q.metric, q.level)


def qx_question(mechanism: Mechanism, metric: FiniteMetric, level: PrivacyLevel) -> QxQuestion:
    """The question with H[y, z] = N(x)/D(x) in the kernel's canonical spelling (lowest
    terms, monic denominators, gcd(b, exponents) = 1), from
    :class:`~exactdp.mechanisms.optimality_field.QxField` or a sealed row-normalized form
    (the exponential mechanism); ExactnessRequired when H has no closed form (balls alone do
    not define the entries)."""
    n, m = mechanism.shape
    try:
        b, pairs = (_row_normalized_pairs(mechanism, metric, level) or _tight_pairs(mechanism, metric, level)
                    or _field_pairs(mechanism, metric, level))
    except ExactnessRequired as exc:
        raise ExactnessRequired(f"not portable: {exc} (its verify() re-checks it in Python).") from exc
    reduced = []
    for N, D in pairs:
        common = N.gcd(D)
        N, D = N // common, D // common
        lead = D.coeffs()[-1]
        reduced.append((N / lead, D / lead))
    exps = [e for N, D in reduced for p in (N, D) for e, c in enumerate(p.coeffs()) if c != 0]
    g = math.gcd(b, *exps)  # x → x^g when every exponent is a multiple of g
    table: dict[str, int] = {}
    dens: list[flint.fmpq_poly] = []
    cells = []
    for N, D in reduced:
        N, D = flint.fmpq_poly(N.coeffs()[::g]), flint.fmpq_poly(D.coeffs()[::g])
        j = table.setdefault(str(D), len(dens))
        if j == len(dens):
            dens.append(D)
        cells.append((j, N))
    entries = tuple(tuple(cells[y * m:(y + 1) * m]) for y in range(n))
    return QxQuestion(metric, level, b // g, tuple(dens), entries)


_Pairs = tuple[int, list[tuple[flint.fmpq_poly, flint.fmpq_poly]]]
_X = sympy.Symbol("x")


def _field_pairs(mechanism: Mechanism, metric: FiniteMetric, level: PrivacyLevel) -> _Pairs:
    fld = QxField(mechanism, metric, level)  # (its Φ powers: built by is_optimal's own QxField too)
    n, m = mechanism.shape
    if fld.exact_h is None:
        _refuse_degrees(fld.a, fld.b, fld.E, metric)  # before h_poly builds x^{a·E}
    return fld.b, [(fld.col(z)[0] * fld.h_poly(y, z), fld.col(z)[1]) for y in range(n) for z in range(m)]


#: Largest n⁵·max k of the exact solve of Φ(x)z = 1 in Z[x] (:func:`solve_ones_zx`: n³ products
#: of polynomials of degree ≤ n·max k with coefficients of O(n) bits). Measured (session 17, load
#: ≈ 2): 25 points with random distances 100 … 200 (1.95·10⁹) 5.3–5.8 s and 110 MB; 10 points with
#: distances 5,000 … 10,000 (10⁹) 5.8–6.1 s; cycle(30) 0.26 s; line(30) 0.17 s.
MAX_TIGHT_WORK = 2_000_000_000


def _tight_pairs(mechanism: Mechanism, metric: FiniteMetric, level: PrivacyLevel) -> _Pairs | None:
    """H[y, z] = z_z(x)·x^{k(y, z)} (x = s = e^{-ε/q}, b = 1) when ``mechanism`` is the
    tight-constraints mechanism of the question (:func:`tight_structure`; its z known as
    balls), with z solved exactly: Φ(x)z = 1 over Q(x) (:func:`solve_ones_zx`). At a
    transcendental x, Φ(x) is nonsingular (det Φ(0) = 1), so this z is the unique solution:
    the certificate's enclosures must contain it (checked in balls; CertificateInvalid when
    proved outside). None for any other mechanism."""
    n, m = mechanism.shape
    if n != m or metric.q is None or not tight_structure(mechanism, metric, level):
        return None
    ks = [[int(k) for k in row] for row in metric.exponent_matrix().tolist()]
    top = max(max(row) for row in ks)
    # H[y, z] = N_z·x^k/D has degree ≥ k; det Φ has degree ≤ n·max k (= 2·MAX_QX_DEGREE keeps the
    # gcds below affordable; a document that needs more is refused, not written)
    if top > MAX_QX_DEGREE or n * top > 2 * MAX_QX_DEGREE or n**5 * top > MAX_TIGHT_WORK:
        raise InstanceTooLarge(f"the exact z of the tight-constraints mechanism on {metric.name} needs a solve "
                               f"of work n⁵·max k = {n**5 * top} over Z[x] (MAX_TIGHT_WORK = {MAX_TIGHT_WORK}) "
                               f"with det Φ of degree up to n·max k = {n * top} (at most {2 * MAX_QX_DEGREE}) "
                               f"and powers up to x^{top} (MAX_QX_DEGREE = {MAX_QX_DEGREE}); use its verify() "
                               "in Python.")
    N, D = solve_ones_zx(ks)
    z = []
    for zk, Nz in zip(mechanism.parameters["certificate"].z_enclosure, N):
        common = Nz.gcd(D)  # lowest terms first: near x = 1 the unreduced N, D both nearly vanish
        z.append((Nz // common, D // common))
        if not _inside(*z[-1], zk, level, metric.q):
            raise CertificateInvalid(f"the exact z of {metric.name} at {level} is proved outside the "
                                     f"tight-constraints certificate's enclosure [{zk.lo}, {zk.hi}] (please "
                                     "report the instance).")
    deg = max(max(Nz.degree() + max(row[j] for row in ks), Dz.degree()) for j, (Nz, Dz) in enumerate(z))
    if deg > MAX_QX_DEGREE or sign_work(metric, m, deg) > MAX_QX_WORK:  # the kernel's own limits, early
        raise InstanceTooLarge(f"the exact tight-constraints mechanism on {metric.name} has entries of degree "
                               f"{deg} (MAX_QX_DEGREE = {MAX_QX_DEGREE}) and about {sign_work(metric, m, deg)} sign "
                               f"terms to check (MAX_QX_WORK = {MAX_QX_WORK}); use its verify() in Python.")
    return 1, [(flint.fmpq_poly(z[j][0]) * _monomial(ks[y][j]), flint.fmpq_poly(z[j][1]))
               for y in range(n) for j in range(m)]


def solve_ones_zx(ks: list[list[int]]) -> tuple[list[flint.fmpz_poly], flint.fmpz_poly]:
    """(N, D) with Φ(x)·N = D·1 exactly in Z[x], Φ[i, j] = x^{ks[i][j]}, ks[i][i] = 0 < ks[i][j]:
    D = det Φ, N_j = D·z_j (Cramer). Bareiss' fraction-free elimination on [Φ | 1] in flint
    (every division exact; no pivoting: the k-th pivot is the leading k×k minor, a polynomial
    equal to 1 at x = 0 as Φ(0) = I), then fraction-free back substitution; the identity is
    checked before returning. Hand-written because sympy's DomainMatrix over ZZ[x] (pure
    Python polynomials) took minutes on 10 points with distances 100 … 200.

    >>> N, D = solve_ones_zx([[0, 1], [1, 0]])    # Φ = [[1, x], [x, 1]]: z = (1, 1)/(1 + x)
    >>> [str(p) for p in N], str(D)
    (['(-1)*x + 1', '(-1)*x + 1'], '(-1)*x^2 + 1')
    """
    n = len(ks)
    rows = [[_zmono(k) for k in row] + [flint.fmpz_poly([1])] for row in ks]
    prev = flint.fmpz_poly([1])
    for k in range(n - 1):
        piv = rows[k][k]
        for i in range(k + 1, n):
            a = rows[i][k]
            rows[i] = [flint.fmpz_poly([0])] * (k + 1) + [
                _exact_div(piv * rows[i][j] - a * rows[k][j], prev) for j in range(k + 1, n + 1)]
        prev = piv
    det = rows[n - 1][n - 1]
    num: list[flint.fmpz_poly] = [flint.fmpz_poly([0])] * n
    for i in range(n - 1, -1, -1):
        acc = det * rows[i][n] - sum((rows[i][j] * num[j] for j in range(i + 1, n)), flint.fmpz_poly([0]))
        num[i] = _exact_div(acc, rows[i][i])
    if any(sum((_zmono(k) * v for k, v in zip(row, num)), flint.fmpz_poly([0])) != det for row in ks):
        raise CertificateInvalid("solve_ones_zx: Φ·N ≠ det·1 (a bug; please report the distances).")
    return num, det


def _zmono(k: int) -> flint.fmpz_poly:
    return flint.fmpz_poly([0] * k + [1])


def _exact_div(a: flint.fmpz_poly, b: flint.fmpz_poly) -> flint.fmpz_poly:
    quo, rem = divmod(a, b)
    if rem != 0:
        raise CertificateInvalid("solve_ones_zx: an inexact division in Z[x] (a bug; please report the distances).")
    return quo


def _inside(N: flint.fmpz_poly, D: flint.fmpz_poly, enc: Any, level: PrivacyLevel, q: int) -> bool:
    """N(x)/D(x) ∈ [enc.lo, enc.hi] at x = e^{-ε/q}, proved in balls at 128 … 8,192 bits
    (False when proved outside; PrecisionLimitReached when still undecided at 8,192 bits)."""
    prec = DEFAULT_PREC
    while prec <= 8192:
        with workprec(prec):
            val = poly_ball(flint.fmpq_poly(N), level.s_ball(q)) / poly_ball(flint.fmpq_poly(D), level.s_ball(q))
            lo, hi = arb_from_fraction(enc.lo), arb_from_fraction(enc.hi)
            if val >= lo and val <= hi:
                return True
            if val < lo or val > hi:
                return False
        prec *= 2
    raise PrecisionLimitReached(f"the exact z entry N(x)/D(x) at {level} is not decided against its enclosure "
                                f"[{enc.lo}, {enc.hi}] at 8,192 bits; use its verify() in Python.")


def _row_normalized_pairs(mechanism: Mechanism, metric: FiniteMetric, level: PrivacyLevel) -> _Pairs | None:
    """x^{a·E[y, z]} / Σ_z' x^{a·E[y, z']} when H's entries were computed from a row-normalized
    form whose s is s_metric^{a/b} (b/q: x = e^{-ε/(q·b)}), else None."""
    form = mechanism.row_normalized
    if form is None or not mechanism.form_sealed or metric.q is None or int(form.exponents.min()) < 0:
        return None
    ratio = sympy.simplify(sympy.expand_log(sympy.log(form.s), force=True)
                           / sympy.expand_log(sympy.log(sympy.exp(-level.eps / metric.q)), force=True))
    if not (isinstance(ratio, sympy.Rational) and ratio > 0):
        return None
    a, b = int(ratio.p), int(ratio.q)
    rel = [[e - min(row) for e in row] for row in form.exponents.tolist()]  # x^{a·min} cancels
    g = _refuse_degrees(a, b, rel, metric)  # before any power of x is built
    out = []
    for row in rel:
        D = sum((_monomial(a * e // g) for e in row), flint.fmpq_poly([]))
        out += [(_monomial(a * e // g), D) for e in row]
    return b // g, out


def _refuse_degrees(a: int, b: int, E: list[list[int]], metric: FiniteMetric) -> int:
    """g = gcd(b, E) (x → x^g), after refusing (InstanceTooLarge, from the integers alone)
    powers x^{a·E/g} or Φ's x^{b·max k/g} beyond the kernel's
    :data:`~exactdp.kernel.remap_qx.MAX_QX_DEGREE`."""
    g = math.gcd(b, *(e for row in E for e in row))
    deg = max(a * max(max(row) for row in E), b * max(int(k) for k in metric.exponents)) // g
    if deg > MAX_QX_DEGREE:
        raise InstanceTooLarge(f"the closed form needs powers x^{deg} (limit {MAX_QX_DEGREE}; "
                               f"x = e^(-ε/(q·{b // g}))); check a smaller mechanism or metric, or an ε "
                               "closer to the mechanism's.")
    return g


def _monomial(e: int) -> flint.fmpq_poly:
    return flint.fmpq_poly(_zmono(e))


def _qx_mechanism(q: QxQuestion) -> Mechanism:
    """The mechanism a closed-form question states: exact rows when every entry is a
    rational constant, else a monomial form c_z(x)·x^{E[y, z]} or a row-normalized form
    x^{E[y, z]}/Σ_z' x^{E[y, z']} (x = e^{-ε/(q·b)}) when the entries have one;
    ExactnessRequired otherwise (the kernel re-checks such a document, but no Python
    mechanism is rebuilt from it)."""
    if all(p.degree() <= 0 and q.dens[j] == 1 for row in q.entries for j, p in row):
        return from_rows([[fmpq_to_fraction(p.coeffs()[0]) if p != 0 else 0 for _, p in row]
                          for row in q.entries])
    assert q.metric.q is not None and q.level.eps_rational is not None
    x = sympy.exp(-to_sympy(q.level.eps_rational) / (q.metric.q * q.b))
    form = _monomial_form(q, x) or _row_form(q, x)
    if form is None:
        raise ExactnessRequired("the document's entries have neither a monomial nor a row-normalized form; "
                                "the kernel re-checks it, but no Python mechanism is rebuilt from it.")
    return Mechanism.from_form(form, name="remap document mechanism")


def _low(p: flint.fmpq_poly) -> int:
    return min((e for e, c in enumerate(p.coeffs()) if c != 0), default=0)


def _monomial_form(q: QxQuestion, x: sympy.Expr) -> MonomialForm | None:
    n, m = len(q.entries), len(q.entries[0])
    E = np.zeros((n, m), dtype=np.int64)
    cols = []
    for z in range(m):
        col = [q.entries[y][z] for y in range(n)]
        low = [_low(p) for _, p in col]
        y0 = low.index(min(low))
        j0, P = col[y0]
        for y, (j, p) in enumerate(col):
            E[y, z] = low[y] - low[y0]
            if j != j0 or p != P * _monomial(int(E[y, z])):
                return None
        cols.append(_expr(P) / _expr(q.dens[j0]))
    return MonomialForm(x, E, tuple(cols), S_SYMBOL)


def _row_form(q: QxQuestion, x: sympy.Expr) -> RowNormalizedForm | None:
    E = np.array([[_low(p) for _, p in row] for row in q.entries], dtype=np.int64)
    for row, exps in zip(q.entries, E.tolist()):
        if (len({j for j, _ in row}) != 1 or any(p != _monomial(e) for (_, p), e in zip(row, exps))
                or q.dens[row[0][0]] != sum((_monomial(e) for e in exps), flint.fmpq_poly([]))):
            return None
    return RowNormalizedForm(x, E)


def _expr(p: flint.fmpq_poly) -> sympy.Expr:
    return sum((to_sympy(fmpq_to_fraction(c)) * S_SYMBOL**e for e, c in enumerate(p.coeffs()) if c != 0),
               sympy.Integer(0))


def _qx_certificate(cls: type[Any], doc: Any, kind: str) -> Any:
    """A certificate read back from a closed-form document the kernel accepted."""
    verdict = verify_document(doc)
    if not verdict.verified:
        raise CertificateInvalid(f"the {kind} document does not re-check: {verdict.reason}")
    q = read_qx_question(doc["question"])
    mech = _qx_mechanism(q)
    claim = doc["claim"]
    if kind == CertificateKind.REMAP.value:
        remap = tuple(tuple(read_rational(x, "claim.remap") for x in r) for r in claim["remap"])
        return cls(remap, mech, q.metric, q.level)
    w = tuple(read_rational(x, "claim.w") for x in claim["w"])
    prec = DEFAULT_PREC
    while prec < KERNEL_MAX_PREC and not cls(w, mech, q.metric, q.level, precision=prec).verify():
        prec *= 2  # the least precision at which the Python re-check decides it (up to the kernel's cap)
    return cls(w, mech, q.metric, q.level, precision=min(prec, KERNEL_MAX_PREC))
