"""Remap certificates at an irrational s: the mechanism as rational functions of a base x.

A ``remap`` / ``remap-farkas`` document (:mod:`exactdp.kernel.remap`) whose ``private``
question carries the mechanism as its exact closed form instead of rational rows::

    "level": {"eps": "p/q"},                       ε rational (t = e^{-ε} is then irrational)
    "mechanism": {"log_x": "-r", "denominators": [D_0, D_1, ...],
                  "entries": n rows of m [j, N]}   H[y, z] = N(x) / D_j(x),  x = e^{-r}

each polynomial sparse, ``[[e, "c"], ...]`` (exponents strictly increasing, coefficients
nonzero rationals; ``[]`` is 0). The mechanism's base x = e^{-r} is its own (editing ε does
not move H); the kernel derives b = ε/(q·r), q the denominator of the metric's distances
k/q, and requires a positive integer, so Φ[y, y'] = e^{-ε·d(y, y')} = x^{b·k(y, y')}; x's
balls come from arb's exp of the exact −r. One spelling per question: denominators
distinct, monic and numbered in first-use order (row-major), every entry in lowest terms
(gcd(N, D_j) = 1), gcd(b, every exponent) = 1 (else x could be replaced by a power).

Checks (``proofs/kernel_remap_qx.py``): every D_j(x) ≠ 0; H ≥ 0 with rows ≡ 1; H private
at ε on the sufficient pairs (x^{b·k}·H[y, z] ≤ H[y', z] both ways); then, as in
:mod:`exactdp.kernel.remap`, the remap R ≥ 0, R·1 = 1 with Φ·diag(HR) ≡ 1 (n identities in
Q(x), exact), or the Farkas vector w: Σw < 0 (exact) and H[y, z]·Σ_r w_r x^{b·k(r, y)} +
w_{n+z} ≥ 0. A sign is 0 when its numerator is the zero polynomial, else decided by balls
(x's ball from arb's exp of the exact −ε/(q·b)) at 64 … :data:`~exactdp.kernel.privacy.MAX_PREC`
bits; undecided at the cap: not verified (never accepted). Soundness needs only that;
termination needs x transcendental (Lindemann–Weierstrass: ε/(q·b) ≠ 0 rational), so a
nonzero polynomial is nonzero at x. Sizes are refused up front (:func:`require_qx`),
including the exact sums: a row's sum lives over the product of its distinct denominators
(degree Σ deg D_j), the remap identity over the product of all of them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import flint

from exactdp.arithmetic.ball import arb_from_fraction
from exactdp.arithmetic.rationals import to_fmpq
from exactdp.errors import CertificateInvalid, InstanceTooLarge, InvalidArgument
from exactdp.kernel.jsonio import dumps, read_int, read_list, read_object, read_rational, rows_of
from exactdp.kernel.metricio import fingerprint, read_metric_json, write_metric
from exactdp.kernel.privacy import sign_in_balls, sufficient_pairs
from exactdp.kernel.question import read_level, write_level
from exactdp.kinds import proved_by
from exactdp.spaces.levels import PrivacyLevel
from exactdp.spaces.metrics import FiniteMetric

__all__ = ["QxQuestion", "MAX_QX_DEGREE", "MAX_COEF_BITS", "MAX_QX_WORK", "MAX_QX_ENTRIES", "MAX_QX_SLOTS",
           "MAX_QX_SUM", "read_qx_question", "sign_work",
           "require_qx", "check_remap_qx"]

#: Largest exponent of x in a polynomial of the document or in Φ (x^{b·k}).
MAX_QX_DEGREE = 10_000
#: Most bits (numerator + denominator) of one polynomial coefficient.
MAX_COEF_BITS = 4_096
#: Most (sign or identity term) × (degree + 1) a document may ask for.
MAX_QX_WORK = 20_000_000
#: Most mechanism entries (n·m).
MAX_QX_ENTRIES = 1_000_000
#: Most coefficients (degree + 1, summed over the document's polynomials) read.
MAX_QX_SLOTS = 10_000_000
#: Most products × (degree + 1) × (bits + 1), summed over the identities (rows ≡ 1 and
#: Φ·diag(HR) ≡ 1, times the product L of their distinct D_j; deg L ≤ MAX_QX_DEGREE too).
MAX_QX_SUM = 2_000_000_000
Poly = flint.fmpq_poly


@dataclass(frozen=True)
class QxQuestion:
    """The ``private`` question with H[y, z] = N(x)/D_j(x): ``entries[y][z] = (j, N)``,
    x = e^{-ε/(q·b)} (the document states log_x = −ε/(q·b))."""

    metric: FiniteMetric
    level: PrivacyLevel
    b: int
    dens: tuple[Poly, ...]
    entries: tuple[tuple[tuple[int, Poly], ...], ...]


def _poly(value: Any, where: str, budget: list[int]) -> Poly:
    """A sparse polynomial; ``budget[0]`` (coefficient slots left, all polynomials of the
    document) is charged deg + 1 before the polynomial is built."""
    raw = read_list(value, where, max_length=MAX_QX_DEGREE + 1)
    terms = [read_list(t, f"{where}[{k}]", 2) for k, t in enumerate(raw)]
    exps = [read_int(e, f"{where}[{k}][0]", 0, MAX_QX_DEGREE) for k, (e, _) in enumerate(terms)]
    budget[0] -= exps[-1] + 1 if exps else 1
    if budget[0] < 0:
        raise InstanceTooLarge(f"{where}: the polynomials hold over {MAX_QX_SLOTS} coefficients (the kernel's limit).")
    p = Poly([])
    for k, (e, (_, c_raw)) in enumerate(zip(exps, terms)):
        c = read_rational(c_raw, f"{where}[{k}][1]")
        if c == 0 or (k and e <= exps[k - 1]):
            raise InvalidArgument(f"{where}[{k}]: list the nonzero terms only, exponents strictly increasing.")
        if c.numerator.bit_length() + c.denominator.bit_length() > MAX_COEF_BITS:
            raise InstanceTooLarge(f"{where}[{k}]: a coefficient over {MAX_COEF_BITS} bits (the kernel's limit).")
        p[e] = to_fmpq(c)
    return p


def _exponents(p: Poly) -> list[int]:
    return [e for e, c in enumerate(p.coeffs()) if c != 0]


def read_qx_question(value: Any) -> QxQuestion:
    """Read the question of a closed-form remap document (malformed: InvalidArgument; another
    metric than its fingerprint: CertificateInvalid; over a limit: InstanceTooLarge)."""
    obj = read_object(value, "question", ("metric", "property", "rhs", "level", "mechanism"))
    metric, spec, stated = read_metric_json(obj["metric"])
    if fingerprint(metric) != stated:
        raise CertificateInvalid("question.metric: the fingerprint does not match the metric.")
    level = read_level(obj["level"])
    if dumps([write_metric(metric, spec, stated), write_level(level)]) != dumps([obj["metric"], obj["level"]]):
        raise InvalidArgument("question: the metric or level is not in the canonical form this version writes.")
    if obj["property"] != "private" or obj["rhs"] is not None or metric.q is None or not (
            isinstance(level, PrivacyLevel) and level.eps_rational is not None):
        raise InvalidArgument("question: a closed-form mechanism needs property 'private', rhs null, rational "
                              "distances and a rational ε ({\"eps\": \"p/q\"}).")
    w, budget = "question.mechanism", [MAX_QX_SLOTS]
    mech = read_object(obj["mechanism"], w, ("log_x", "denominators", "entries"))
    log_x = read_rational(mech["log_x"], w + ".log_x")  # the mechanism's own base x = e^{log_x}
    ratio = level.eps_rational / (metric.q * -log_x) if log_x < 0 else Fraction(0)
    if ratio.denominator != 1 or ratio <= 0:
        raise InvalidArgument(f"{w}.log_x: need log_x < 0 with b = ε/(q·(−log_x)) a positive integer "
                              "(Φ = x^{b·k}); got b = " + str(ratio) + ".")
    b = int(ratio)
    raw = mech["entries"]  # counted here first: over the limit is InstanceTooLarge, not malformed
    if isinstance(raw, list) and raw and isinstance(raw[0], list) and len(raw) * len(raw[0]) > MAX_QX_ENTRIES:
        raise InstanceTooLarge(f"{w}.entries: {len(raw)}×{len(raw[0])} entries, over {MAX_QX_ENTRIES} "
                               "(the kernel's limit).")
    rows = rows_of(raw, w + ".entries", metric.n, MAX_QX_ENTRIES)
    dens = tuple(_poly(d, f"{w}.denominators[{j}]", budget) for j, d in enumerate(
        read_list(mech["denominators"], w + ".denominators", max_length=metric.n * len(rows[0]))))
    entries = tuple(tuple((read_int(read_list(v, f"{w}.entries[{y}][{z}]", 2)[0], f"{w}.entries[{y}][{z}][0]",
                                    0, len(dens) - 1), _poly(v[1], f"{w}.entries[{y}][{z}][1]", budget))
                          for z, v in enumerate(r)) for y, r in enumerate(rows))
    exps = [e for p in dens + tuple(p for r in entries for _, p in r) for e in _exponents(p)]
    if (len({str(d) for d in dens}) < len(dens) or any(d.is_zero() or d.coeffs()[-1] != 1 for d in dens)
            or list(dict.fromkeys(j for r in entries for j, _ in r)) != list(range(len(dens)))
            or any(not p.gcd(dens[j]).is_one() for r in entries for j, p in r) or math.gcd(b, *exps) != 1):
        raise InvalidArgument(f"{w}: not canonical (denominators distinct, monic, numbered in first-use order; "
                              "entries in lowest "
                              "terms; gcd(b, exponents) = 1).")
    return QxQuestion(metric, level, b, dens, entries)


def _bits(p: Poly) -> int:
    """Bits bounding p's coefficients in a product: the largest coefficient's (numerator +
    denominator) bits plus log₂ of its number of terms (‖p‖₁ ≤ terms · max |c|)."""
    return max((c.p.bit_length() + c.q.bit_length() for c in p.coeffs()), default=0) + len(_exponents(p)).bit_length()


def _sum_size(terms: int, dens: list[Poly], nums: list[Poly], extra: tuple[int, int] = (0, 0)) -> tuple[int, int]:
    """(Σ deg D_j, work) of an identity Σ N·(L/D_j) = L over the distinct ``dens`` (L their
    product: degree Σ deg D_j, bits ≤ Σ bits(D_j)): ``terms`` products, each about
    (degree + 1)·(bits + 1) with the numerators' degree and bits."""
    dd = sum(max(d.degree(), 0) for d in dens)
    deg = dd + max([max(p.degree(), 0) for p in nums] + [0]) + extra[0]
    bits = sum(_bits(d) for d in dens) + max([_bits(p) for p in nums] + [0]) + extra[1] + terms.bit_length()
    return dd, terms * (deg + 1) * (bits + 1)


def require_qx(q: QxQuestion, remap: Any = None) -> None:
    """Refuse (InstanceTooLarge) a question over a limit: Φ's power x^{b·max k} or a degree
    beyond :data:`MAX_QX_DEGREE`, a coefficient over :data:`MAX_COEF_BITS`, more than
    :data:`MAX_QX_ENTRIES` entries or :data:`MAX_QX_SLOTS` coefficients, a sign check over
    :data:`MAX_QX_WORK`, exact sums over :data:`MAX_QX_SUM` (each row over its distinct
    denominators; with a remap R, Φ·diag(HR) over all of them) — before any polynomial
    arithmetic (the writer calls it too)."""
    n, m, top = q.metric.n, len(q.entries[0]), q.b * max(int(k) for k in q.metric.exponents)
    polys = list(q.dens) + [p for r in q.entries for _, p in r]
    deg = max([top] + [p.degree() for p in polys])
    bits = max((c.p.bit_length() + c.q.bit_length() for p in polys for c in p.coeffs()), default=0)
    work = sign_work(q.metric, m, deg)
    rows = [_sum_size(3 * m, [q.dens[j] for j in dict.fromkeys(j for j, _ in r)], [p for _, p in r])
            for r in q.entries]  # per row: cofactors and m products over its distinct D_j
    if remap is not None:  # cofactors of all D_j, n·m products (R's bits), n² shifted sums
        rbits = max((v.numerator.bit_length() + v.denominator.bit_length() for r in remap for v in r), default=0)
        rows.append(_sum_size(n * (n + m) + 3 * len(q.dens), list(q.dens), polys[len(q.dens):],
                              (top, rbits + m.bit_length())))
    sdeg, swork = max(d for d, _ in rows), sum(c for _, c in rows)
    if (deg > MAX_QX_DEGREE or bits > MAX_COEF_BITS or n * m > MAX_QX_ENTRIES or work > MAX_QX_WORK
            or sum(max(p.degree(), 0) + 1 for p in polys) > MAX_QX_SLOTS
            or sdeg > MAX_QX_DEGREE or swork > MAX_QX_SUM):
        raise InstanceTooLarge(f"question: degree {deg} (Φ: x^{top}; limit {MAX_QX_DEGREE}), {bits}-bit coefficients "
                               f"(limit {MAX_COEF_BITS}), {n}×{m} entries, about {work} term operations (limit "
                               f"{MAX_QX_WORK}), identities over denominators of degree {sdeg} (limit {MAX_QX_DEGREE}) "
                               f"costing about {swork} (limit {MAX_QX_SUM}); check a smaller mechanism or metric.")


def sign_work(metric: FiniteMetric, m: int, deg: int) -> int:
    """The sign and identity terms of an n×m question times (2·deg + 1): compared with
    :data:`MAX_QX_WORK` by :func:`require_qx` (the writer calls it before building a question)."""
    n = metric.n
    return (2 * len(sufficient_pairs(metric)) * m + 2 * n * m + n * n) * (2 * deg + 1)


def _cofactors(dens: list[Poly]) -> tuple[Poly, list[Poly]]:
    """L = Π D_j and every L/D_j (products of the others: no division, no gcd)."""
    pre, suf = [Poly([1])], [Poly([1])]
    for d, e in zip(dens, dens[::-1]):
        pre.append(pre[-1] * d)
        suf.append(suf[-1] * e)
    return pre[-1], [pre[i] * suf[len(dens) - 1 - i] for i in range(len(dens))]


def _row_is_one(row: tuple[tuple[int, Poly], ...], dens: tuple[Poly, ...]) -> bool:
    """Σ_z N_z/D_{j_z} ≡ 1 in Q(x): with L the product of the row's distinct D_j (each ≠ 0),
    iff Σ_z N_z·(L/D_{j_z}) = L as polynomials."""
    used = {j: k for k, j in enumerate(dict.fromkeys(j for j, _ in row))}
    big, co = _cofactors([dens[j] for j in used])
    return sum((p * co[used[j]] for j, p in row), Poly([])) == big


@proved_by("kernel_remap_qx")
def check_remap_qx(q: QxQuestion, holds: bool, ev: tuple[Any, ...]) -> bool:
    """Re-prove a closed-form remap claim (module doc; ``proofs/kernel_remap_qx.py``): the
    denominators are nonzero at x, H is a private mechanism, then R solves (*) identically in
    Q(x) or w is a Farkas vector of it at x."""
    require_qx(q, ev if holds else None)
    H, dens, idx, n, m = q.entries, q.dens, q.metric.index.tolist(), len(q.entries), len(q.entries[0])
    assert q.level.eps_rational is not None and q.metric.q is not None
    r = q.level.eps_rational / (q.metric.q * q.b)  # x = e^{-r}

    def sign(p: Poly) -> int | None:  # sign of p(x): 0 only for the zero polynomial
        return 0 if p.is_zero() else sign_in_balls(lambda: flint.arb_poly(p)((-arb_from_fraction(r)).exp()))

    def at_least(p: Poly, s: int) -> bool:  # sign(p(x))·s ≥ 0, decided
        v = sign(p)
        return v is not None and v * s >= 0

    pw = [Poly([0] * (q.b * int(k)) + [1]) for k in q.metric.exponents]  # x^{b·k}
    ds = [sign(d) or 0 for d in dens]
    if 0 in ds or any(not at_least(p, ds[j]) for row in H for j, p in row):
        return False  # a denominator zero (or undecided) at x, or a negative entry
    if not all(_row_is_one(row, dens) for row in H):
        return False  # rows ≡ 1
    for a, c in sufficient_pairs(q.metric):
        for y, y2 in ((a, c), (c, a)):  # x^{b·k}·H[y, z] − H[y2, z] ≤ 0
            for (j, p), (j2, p2) in zip(H[y], H[y2]):
                same = j == j2
                diff = pw[idx[y][y2]] * p * (1 if same else dens[j2]) - p2 * (1 if same else dens[j])
                if not at_least(diff, -ds[j] * (1 if same else ds[j2])):
                    return False
    if holds:  # R ≥ 0, rows sum to 1, Φ·diag(HR) ≡ 1
        if len(ev) != m or any(len(row) != n or min(row) < 0 or sum(row) != 1 for row in ev):
            return False
        big, co = _cofactors(list(dens))  # times L = Π D_j: Σ_y2 x^{b·k}·L·diag[y2] = L
        diag = [sum((p * co[j] * to_fmpq(ev[z][y]) for z, (j, p) in enumerate(H[y]) if ev[z][y]), Poly([]))
                for y in range(n)]
        return all(sum((pw[idx[y][y2]] * dg for y2, dg in enumerate(diag)), Poly([])) == big for y in range(n))
    if len(ev) != n + m or sum(ev, Fraction(0)) >= 0:  # b·w < 0 (b = ones)
        return False
    g = [sum((pw[idx[yr][y]] * to_fmpq(ev[yr]) for yr in range(n)), Poly([])) for y in range(n)]
    return all(at_least(g[y] * p + dens[j] * to_fmpq(ev[n + z]), ds[j])
               for y in range(n) for z, (j, p) in enumerate(H[y]))
