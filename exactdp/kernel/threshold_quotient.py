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
>>> [(int(r), int(c), int(e), int(k)) for r, c, e, k in zip(terms.rows, terms.cols, terms.exps, terms.counts)]
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

from exactdp.kernel.jsonio import read_envelope, read_int, read_list
from exactdp.kernel.read_common import read_polys, read_s_star, read_threshold_parts
from exactdp.kernel.threshold_poly import ThresholdClaim, frame_ok, guarded, int_poly, is_index, sign_run_ok
from exactdp.kernel.threshold_roots import root_run_holds
from exactdp.kinds import proved_by
from exactdp.spaces.metrics import FiniteMetric

__all__ = ["QUOTIENT_KIND", "QuotientTerms", "quotient_terms", "quotient_identity_holds",
           "check_quotient", "read_quotient"]

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


@proved_by("equitable_quotient")
def quotient_terms(metric: FiniteMetric, cells: Sequence[int]) -> QuotientTerms | None:
    """The quotient Φ̃ of ``cells`` (labels 0..m−1 numbered by first appearance), or None
    when the partition is not equitable for the metric's exact distances (module doc,
    step 1; O(n² log n) integer work, two n×n integer tables; ``proofs/equitable_quotient.py``)."""
    if (metric.q is None or not isinstance(cells, (tuple, list, np.ndarray)) or len(cells) != metric.n
            or metric.n == 0 or not all(isinstance(c, (int, np.integer)) and not isinstance(c, bool) for c in cells)):
        return None
    lab = np.asarray(cells, dtype=np.int64)
    _, reps = np.unique(lab, return_index=True)  # labels 0..m−1, each used, first uses in order
    if lab.min() != 0 or lab.max() != len(reps) - 1 or np.any(np.diff(reps) <= 0):
        return None
    E = np.asarray(metric.exponent_matrix(), dtype=np.int64)
    k1 = int(E.max()) + 1
    key = lab[None, :] * k1 + E
    key.sort(axis=1)
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
    for a, b, e, k in zip(terms.rows.tolist(), terms.cols.tolist(), terms.exps.tolist(), terms.counts.tolist()):
        lhs[a] += (k * at[b]) << (beta * e)
    return all(lhs[a] * scale == dx * bi[a] for a in range(m))


def check_quotient(claim: ThresholdClaim) -> bool:
    """True when every part of the claim is re-proved (module doc); never raises."""
    return guarded(_check, claim)


def _check(c: ThresholdClaim) -> bool:
    m, ev = c.metric, c.evidence
    if not frame_ok(c, (QUOTIENT_KIND,)) or m.q is None:
        return False
    terms = quotient_terms(m, ev["cells"])
    if terms is None:
        return False
    rhs_cells = [c.rhs[int(i)] for i in terms.reps]
    if any(v != rhs_cells[int(a)] for v, a in zip(c.rhs, np.asarray(ev["cells"], dtype=np.int64))):
        return False  # b is not constant on the cells
    nums, den, w = [int_poly(p) for p in ev["numerators"]], int_poly(ev["denominator"]), ev["witness"]
    if not quotient_identity_holds(terms, nums, den, rhs_cells):
        return False
    if w is None:  # ε* = 0: holds for every ε, on (0, 1)
        return ev["s_star"] is None and c.eps.hi == 0 and sign_run_ok(nums, den, Fraction(1), closed=False)
    return is_index(w, terms.size) and 0 < c.eps.lo < c.eps.hi and root_run_holds(
        c.eps, m.q, ev["s_star"], nums, den, w, odd=True)


# ------------------------------------------------------------------------------ JSON
def read_quotient(doc: Any) -> ThresholdClaim:
    """Read a document (raises :class:`~exactdp.errors.InvalidArgument` when malformed,
    :class:`~exactdp.errors.CertificateInvalid` when its question was altered)."""
    qn, rhs, eps, claim, evid = read_threshold_parts(
        read_envelope(doc), QUOTIENT_KIND, ("verdict", "eps", "s_star"),
        ("cells", "witness", "numerators", "denominator"))
    n = qn.metric.n
    cells = tuple(read_int(x, f"evidence.cells[{k}]", 0, n - 1)
                  for k, x in enumerate(read_list(evid["cells"], "evidence.cells", n)))
    size = max(cells) + 1
    ev = {"cells": cells,
          "witness": None if evid["witness"] is None else read_int(
              evid["witness"], "evidence.witness", 0, size - 1),
          "s_star": read_s_star(claim["s_star"]), **read_polys(evid, size)}
    return ThresholdClaim(QUOTIENT_KIND, qn.metric, rhs, eps, ev)
