"""The kernel's check of an equitable-quotient exact threshold claim, and its JSON.

Kind ``quotient-threshold``: a metric in the polynomial case (s = e^{-ε/q}), b = 1 or a
prior, and a partition of the points into cells C_0 … C_{m−1}. The evidence is the cell
of every point, z̃_A = N_A/D for each cell A, the witness cell w, and s* (minimal
polynomial g, isolating interval (a, b)). Every part is re-proved from the metric's exact
distances (``proofs/equitable_quotient.py`` for the lifting lemma):

1. **equitable**: for every point i of cell A the multiset {(cell(j), q·d(i, j))}_j equals
   that of A's first point (rows of the exponent matrix, sorted, compared exactly), and b
   is constant on every cell; Φ̃[A, B](s) = Σ_{j∈B} s^{q·d(i, j)} (any i ∈ A) is then
   well defined;
2. **identity** Φ̃(s)N(s) = D(s)·b̃ over Z[s] (exact: Kronecker substitution s = 2^β with
   2^β above twice a bound on the coefficients, one pass over the quotient's terms).
   By the lifting lemma z_i = N_{cell(i)}/D satisfies Φ(s)z = b wherever D(s) ≠ 0;
3. **s\\***: g primitive, leading coefficient > 0, irreducible; exactly one root r of g in
   (0, b) (Descartes' rule with bisection, exact); g(a) has g's sign at 0+ (r ∈ (a, b));
4. **holds on (0, r]**: D has no root in (0, b]; for every cell, N_A = g^k·P with g ∤ P,
   P changes sign nowhere in (0, b] (its odd-multiplicity part has no root there), and
   N_A/D > 0 at 0+ (or N_A = 0): z ≥ 0 solves Φz = b. Without a witness (ε* = 0, the
   claim [0, 0]) the same holds on all of (0, 1) with every N_A and D;
5. **fails just after r**: g divides N_w to an odd power, so z_w < 0 on (r, b];
6. **ε\\* = −q·ln r ∈ [lo, hi]**: e^{-hi/q} < r and r < e^{-lo/q} ≤ b (signs of g at
   rational enclosures); at s = e^{-lo/q} (transcendental, Lindemann) det Φ(s) ≠ 0
   (det Φ is an integer polynomial with det Φ(0) = 1), so the lifted z is the unique
   solution and has negative entries: the property fails at lo.

>>> from exactdp.spaces.metrics import line
>>> terms = quotient_terms(line(3), (0, 1, 0))     # the two ends form one cell
>>> [(int(r), int(c), int(e), int(k)) for r, c, e, k in zip(*terms.coo())]
[(0, 0, 0, 1), (0, 0, 2, 1), (0, 1, 1, 1), (1, 0, 1, 2), (1, 1, 0, 1)]
>>> quotient_terms(line(3), (0, 0, 1)) is None       # not equitable
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import flint
import numpy as np

from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rationals import to_fmpq
from exactdp.errors import REJECTED_ERRORS, InvalidArgument
from exactdp.kernel.jsonio import (
    envelope,
    read_enclosure,
    read_envelope,
    read_int,
    read_list,
    read_object,
    read_verdict,
    write_enclosure,
)
from exactdp.kernel.question import ALL_EPS, ONES, Property, Question
from exactdp.kernel.threshold import CHECK_PRECISIONS, ThresholdClaim
from exactdp.kernel.threshold_structured import (
    eps_sides_hold,
    no_root_upto,
    read_int_poly,
    roots_01,
    scaled_poly,
    write_int_poly,
)
from exactdp.kinds import Verdict, proved_by
from exactdp.spaces.metrics import FiniteMetric

__all__ = ["QUOTIENT_KIND", "QuotientTerms", "quotient_terms", "quotient_identity_holds",
           "check_quotient", "write_quotient", "read_quotient"]

#: The ``kind`` of an equitable-quotient exact threshold certificate.
QUOTIENT_KIND = "quotient-threshold"


@dataclass(frozen=True)
class QuotientTerms:
    """Φ̃(s) = Σ counts·s^exps at (rows, cols): the quotient of an equitable partition.

    ``reps[A]`` is the first point of cell A; the exponent-0 terms are the diagonal's 1s.
    """

    size: int
    rows: np.ndarray
    cols: np.ndarray
    exps: np.ndarray
    counts: np.ndarray
    reps: np.ndarray

    def coo(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(rows, cols, exps, counts)."""
        return self.rows, self.cols, self.exps, self.counts

    def polys(self) -> list[dict[int, flint.fmpz_poly]]:
        """Row A as {B: Φ̃[A, B](s)} (nonzero entries only)."""
        acc: list[dict[int, list[int]]] = [{} for _ in range(self.size)]
        for a, b, e, k in zip(self.rows.tolist(), self.cols.tolist(), self.exps.tolist(),
                              self.counts.tolist()):
            co = acc[a].setdefault(b, [])
            co.extend([0] * (e + 1 - len(co)))
            co[e] += k
        return [{b: flint.fmpz_poly(co) for b, co in row.items()} for row in acc]


def _labels(cells: Any, n: int) -> np.ndarray | None:
    """cells as an int64 array of labels 0..m−1, each used, first uses in increasing order."""
    if not isinstance(cells, (tuple, list, np.ndarray)) or len(cells) != n or n == 0:
        return None
    if not all(isinstance(c, (int, np.integer)) and not isinstance(c, bool) for c in cells):
        return None
    lab = np.asarray(cells, dtype=np.int64)
    _, first = np.unique(lab, return_index=True)
    if lab.min() != 0 or lab.max() != len(first) - 1 or np.any(np.diff(first) <= 0):
        return None
    return lab


@proved_by("equitable_quotient")
def quotient_terms(metric: FiniteMetric, cells: Sequence[int]) -> QuotientTerms | None:
    """The quotient Φ̃ of ``cells`` (labels 0..m−1 numbered by first appearance), or None
    when the partition is not equitable for the metric's exact distances (module doc,
    step 1; O(n² log n) integer work, two n×n integer tables; ``proofs/equitable_quotient.py``)."""
    if metric.q is None:
        return None
    lab = _labels(cells, metric.n)
    if lab is None:
        return None
    E = np.asarray(metric.exponent_matrix(), dtype=np.int64)
    k1 = int(E.max()) + 1
    key = lab[None, :] * k1 + E
    key.sort(axis=1)
    _, reps = np.unique(lab, return_index=True)
    if not np.array_equal(key, key[reps[lab]]):
        return None
    parts = [np.unique(key[i], return_counts=True) for i in reps]
    rows = np.concatenate([np.full(len(u), a, dtype=np.int64) for a, (u, _) in enumerate(parts)])
    uk = np.concatenate([u for u, _ in parts])
    cnt = np.concatenate([c for _, c in parts]).astype(np.int64)
    return QuotientTerms(len(reps), rows, uk // k1, uk % k1, cnt, reps.astype(np.int64))


@proved_by("equitable_quotient")
def quotient_identity_holds(terms: QuotientTerms, nums: Sequence[flint.fmpz_poly],
                            den: flint.fmpz_poly, rhs_cells: Sequence[Fraction]) -> bool:
    """Φ̃(s)N(s) = D(s)·b̃ over Z[s], exactly; then z = N_{cell(i)}/D solves Φz = b (lifting
    lemma, ``proofs/equitable_quotient.py``).

    Both sides are multiplied by L (the lcm of b̃'s denominators) and evaluated at
    x = 2^β (Kronecker substitution): every coefficient of P = L·Φ̃N − D·(L b̃) is at most
    B = L·(max row sum of Φ̃(1))·max|N| + max|D|·max|L b̃| in absolute value, and β is chosen
    with 2^β > 2B, so P(2^β) = 0 forces every coefficient of P to vanish (balanced base-2^β
    digits are unique; ``proofs/equitable_quotient.py`` checks this step too).
    """
    m = terms.size
    if len(nums) != m or len(rhs_cells) != m:
        return False
    scale = math.lcm(*(Fraction(v).denominator for v in rhs_cells))
    bi = [int(Fraction(v) * scale) for v in rhs_cells]
    row_sum = int(np.bincount(terms.rows, weights=terms.counts, minlength=m).max(initial=0))
    top_n = max((abs(int(c)) for p in nums for c in p.coeffs()), default=0)
    top_d = max((abs(int(c)) for c in den.coeffs()), default=0)
    bound = scale * row_sum * top_n + top_d * max((abs(v) for v in bi), default=0)
    beta = bound.bit_length() + 2
    x = flint.fmpz(1) << beta
    at = [int(p(x)) for p in nums]
    dx = int(den(x))
    lhs = [0] * m
    for a, b, e, k in zip(terms.rows.tolist(), terms.cols.tolist(), terms.exps.tolist(),
                          terms.counts.tolist()):
        lhs[a] += (k * at[b]) << (beta * e)
    return all(lhs[a] * scale == dx * bi[a] for a in range(m))


def _sign_at(p: flint.fmpz_poly, x: Fraction) -> int:
    v = p(to_fmpq(x))
    return (v > 0) - (v < 0)


def _lowest_sign(p: flint.fmpz_poly) -> int:
    return next(((1 if c > 0 else -1) for c in p.coeffs() if c != 0), 0)


def _strip(p: flint.fmpz_poly, g: flint.fmpz_poly) -> tuple[int, flint.fmpz_poly]:
    """(k, P) with p = g^k·P and g ∤ P (p ≠ 0, deg g ≥ 1)."""
    k = 0
    while p.degree() >= g.degree():
        quo, rem = divmod(p, g)
        if rem.degree() >= 0:
            break
        p, k = quo, k + 1
    return k, p


def _odd_part(p: flint.fmpz_poly) -> flint.fmpz_poly:
    """The product of p's squarefree factors of odd multiplicity (where p changes sign)."""
    out = flint.fmpz_poly([1])
    for f, e in p.factor_squarefree()[1]:
        if int(e) % 2:
            out *= f
    return out


def _poly(coeffs: Any) -> flint.fmpz_poly:
    """An integer polynomial from descending coefficients ((0,) is zero)."""
    if not isinstance(coeffs, tuple) or not coeffs or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in coeffs):
        raise InvalidArgument("a polynomial is a nonempty tuple of int coefficients.")
    return flint.fmpz_poly(list(reversed(coeffs)))


def check_quotient(claim: ThresholdClaim) -> bool:
    """True when every part of the claim is re-proved (module doc); never raises."""
    try:
        return _check(claim)
    except REJECTED_ERRORS + (AssertionError,):
        return False


def _check(c: ThresholdClaim) -> bool:
    m, ev = c.metric, c.evidence
    n = m.n
    if (c.kind != QUOTIENT_KIND or not isinstance(m, FiniteMetric) or m.q is None
            or not isinstance(c.rhs, tuple) or len(c.rhs) != n
            or not isinstance(c.eps, Enclosure) or not 0 <= c.eps.lo <= c.eps.hi):
        return False
    terms = quotient_terms(m, ev["cells"])
    if terms is None:
        return False
    lab = np.asarray(ev["cells"], dtype=np.int64)
    rhs_cells = [Fraction(c.rhs[int(i)]) for i in terms.reps]
    if any(Fraction(v) != rhs_cells[int(a)] for v, a in zip(c.rhs, lab)):
        return False  # b is not constant on the cells
    nums = [_poly(p) for p in ev["numerators"]]
    den = _poly(ev["denominator"])
    w, star = ev["witness"], ev["s_star"]
    if w is None:  # ε* = 0: holds for every ε
        return (star is None and c.eps.hi == 0 and den.degree() >= 0
                and quotient_identity_holds(terms, nums, den, rhs_cells)
                and roots_01(den) == 0
                and all(p.degree() < 0 or (_lowest_sign(p) * _lowest_sign(den) > 0
                                           and roots_01(_odd_part(p)) == 0) for p in nums))
    if (isinstance(w, bool) or not isinstance(w, int) or not 0 <= w < terms.size
            or not 0 < c.eps.lo < c.eps.hi):
        return False
    q, gco, iv = star
    g = _poly(gco)
    if den.degree() < 0 or q != m.q or g.degree() < 1 or not isinstance(iv, Enclosure):
        return False
    if not quotient_identity_holds(terms, nums, den, rhs_cells):
        return False
    content, factors = g.factor()
    if content != 1 or len(factors) != 1 or factors[0][1] != 1 or factors[0][0] != g:
        return False  # not primitive with a positive leading coefficient, or reducible
    a, b = iv.lo, iv.hi
    s0 = _lowest_sign(g)
    if not 0 <= a < b < 1 or _sign_at(g, b) == 0 or roots_01(scaled_poly(g, b)) != 1:
        return False
    if (a > 0 and _sign_at(g, a) != s0) or not no_root_upto(den, b):
        return False
    sd = _lowest_sign(den)
    for k, p in enumerate(nums):
        if p.degree() < 0:
            if k == w:
                return False
            continue
        mult, rest = _strip(p, g)
        if _lowest_sign(p) * sd <= 0 or not no_root_upto(_odd_part(rest), b):
            return False
        if k == w and mult % 2 == 0:
            return False
    return any(eps_sides_hold(c.eps, m.q, g, s0, b, prec) for prec in CHECK_PRECISIONS)


# ------------------------------------------------------------------------------ JSON
def _question(c: ThresholdClaim) -> Question:
    if all(v == 1 for v in c.rhs):
        return Question(c.metric, Property.THRESHOLD_TIGHT, ONES, ALL_EPS)
    return Question(c.metric, Property.THRESHOLD_REGULAR, tuple(c.rhs), ALL_EPS)


def write_quotient(c: ThresholdClaim) -> dict[str, Any]:
    """The JSON document of a quotient claim (question ``threshold-tight`` or
    ``threshold-regular``)."""
    ev = c.evidence
    star = None
    if ev["s_star"] is not None:
        q, g, iv = ev["s_star"]
        star = {"q": q, "minimal_polynomial": write_int_poly(g), "isolating_interval": write_enclosure(iv)}
    claim = {"verdict": Verdict.HOLDS.value, "eps": write_enclosure(c.eps), "s_star": star}
    evidence = {"cells": [int(x) for x in ev["cells"]], "witness": ev["witness"],
                "numerators": [write_int_poly(p) for p in ev["numerators"]],
                "denominator": write_int_poly(ev["denominator"])}
    return envelope(QUOTIENT_KIND, _question(c).to_json(), claim, evidence)


def read_quotient(doc: Any) -> ThresholdClaim:
    """Read a document (raises :class:`~exactdp.errors.InvalidArgument` when malformed,
    :class:`~exactdp.errors.CertificateInvalid` when its question was altered)."""
    env = read_envelope(doc)
    if env.kind != QUOTIENT_KIND:
        raise InvalidArgument(f"kind: {env.kind!r} is not {QUOTIENT_KIND!r}.")
    claim = read_object(env.claim, "claim", ("verdict", "eps", "s_star"))
    evid = read_object(env.evidence, "evidence", ("cells", "witness", "numerators", "denominator"))
    qn = Question.from_json(env.question)
    if qn.prop not in (Property.THRESHOLD_TIGHT, Property.THRESHOLD_REGULAR) or qn.level != ALL_EPS:
        raise InvalidArgument("question: a quotient threshold answers threshold-tight or "
                              "threshold-regular for every ε > 0.")
    if read_verdict(claim["verdict"], "claim.verdict") is not Verdict.HOLDS:
        raise InvalidArgument("claim.verdict: a threshold certificate claims \"holds\".")
    n = qn.metric.n
    cells = tuple(read_int(x, f"evidence.cells[{k}]", 0, n - 1)
                  for k, x in enumerate(read_list(evid["cells"], "evidence.cells", n)))
    size = max(cells) + 1
    star = None if claim["s_star"] is None else read_object(
        claim["s_star"], "claim.s_star", ("q", "minimal_polynomial", "isolating_interval"))
    ev = {"cells": cells,
          "witness": None if evid["witness"] is None else read_int(
              evid["witness"], "evidence.witness", 0, size - 1),
          "numerators": tuple(read_int_poly(p, f"evidence.numerators[{k}]") for k, p in enumerate(
              read_list(evid["numerators"], "evidence.numerators", size))),
          "denominator": read_int_poly(evid["denominator"], "evidence.denominator"),
          "s_star": None if star is None else (
              read_int(star["q"], "claim.s_star.q", 1),
              read_int_poly(star["minimal_polynomial"], "claim.s_star.minimal_polynomial"),
              read_enclosure(star["isolating_interval"], "claim.s_star.isolating_interval"))}
    rhs = (tuple(Fraction(1) for _ in range(n)) if qn.rhs == ONES
           else tuple(qn.rhs) if isinstance(qn.rhs, tuple) else ())
    return ThresholdClaim(QUOTIENT_KIND, qn.metric, rhs,
                          read_enclosure(claim["eps"], "claim.eps"), ev)
