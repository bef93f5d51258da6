"""The kernel's check of a structured (repeating Toeplitz) exact threshold claim, and its JSON.

Kind ``structured-threshold``: tight constraints (b = 1) on a metric whose Φ(s) is
symmetric Toeplitz, Φ[i, j] = s^{e_|i−j|}, with e_{k+v} = e_k + c for every k ≥ k0 (the
sum query, the line: k0 = 0; the band metric min(|i − j|, w): v = 1, c = 0, k0 = w),
s = e^{-ε/q}. The evidence is (v, c, k0) — k0 is the JSON field ``offset``, absent
(= 0) in documents of symbols that repeat from the start, as before it existed —, z_i =
N_i/D for the persymmetric half i < ⌈n/2⌉ (N_{n−1−i} := N_i), the witness w, and s*
(minimal polynomial g, isolating interval (a, b)). Every part is re-proved from the
metric's exact distances:

1. **structure**: Φ is Toeplitz (row by row) and e_{k+v} = e_k + c for k ≥ k0, c ≥ 0,
   with k0 the least such offset for this v (v itself need not be the least period: every
   true encoding makes step 2 check the same identity ΦN = D·1, so it is not unique);
2. **identity** Φ(s)N(s) = D(s)·1 over Z[s] for the mirrored N, through the left sums
   P_i = Σ_{j≤i} a_{i−j} N_j = Σ_{d<v+k0} a_d N_{i−d} − s^c Σ_{d<k0} a_d N_{i−v−d}
   + s^c P_{i−v}; the right sums are P_{n−1−i} (N is mirrored), so the check is
   P_i + P_{n−1−i} − a_0 N_i = D for i < ⌈n/2⌉ (``proofs/toeplitz_recurrence.py``);
3. **s\\***: g primitive, leading coefficient > 0, irreducible (flint factorisation);
   exactly one root of g in (0, b) (Descartes' rule with bisection, exact); g(a) has the
   sign of g at 0+ (so the root r lies in (a, b));
4. **holds on (0, r]**: D has no root in (0, b]; for every i, N_i = g^k·P with g ∤ P,
   P has no root in (0, b], and N_i/D > 0 at 0+ (or N_i = 0) — so no z_i changes sign
   on (0, r), z ≥ 0 there and Φz = 1;
5. **fails just after r**: g divides N_w to an odd power, so z_w < 0 on (r, b];
6. **ε\\* = −q·ln r ∈ [lo, hi]**: e^{-hi/q} < r (g has the sign at 0+ at an upper
   bound of e^{-hi/q}) and r < e^{-lo/q} ≤ b (g has the other sign at a lower bound of
   e^{-lo/q}): the property holds on [hi, ∞) and fails at lo (Φ(e^{-lo/q}) is
   nonsingular: e^{-lo/q} is transcendental, det Φ(0) = 1).

>>> from exactdp.kernel.threshold_structured import roots_01
>>> roots_01(flint.fmpz_poly([1, -4, 4, 0]) * flint.fmpz_poly([-1, 3]))  # 1/3 and 1/2 (double)
2
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import flint
import numpy as np

from exactdp.errors import InvalidArgument
from exactdp.kernel.jsonio import read_envelope, read_int
from exactdp.kernel.question import ONES, Property
from exactdp.kernel.read_common import read_int_poly, read_polys, read_s_star, read_threshold_parts
from exactdp.kernel.threshold_poly import (
    ThresholdClaim,
    frame_ok,
    guarded,
    int_poly,
    is_index,
    no_root_upto,
    roots_01,
    scaled_poly,
)
from exactdp.kernel.threshold_roots import eps_sides_hold, root_run_holds
from exactdp.kinds import proved_by

__all__ = ["STRUCTURED_KIND", "check_structured", "read_structured",
           "eps_sides_hold", "read_int_poly", "int_poly", "guarded",
           "roots_01", "mirror_identity_holds", "no_root_upto", "scaled_poly",
           "structure_holds", "root_run_holds"]

#: The ``kind`` of a structured exact threshold certificate.
STRUCTURED_KIND = "structured-threshold"


def _mono(k: int) -> flint.fmpz_poly:
    return flint.fmpz_poly([0] * k + [1])


def structure_holds(metric: Any, v: int, c: int, k0: int = 0) -> bool:
    """Φ is Toeplitz with e_{k+v} = e_k + c for k ≥ k0 (c ≥ 0), k0 the least such offset,
    from the metric's exact distances (row by row: O(n) memory beyond the index)."""
    n = metric.n
    if metric.q is None or not 1 <= v or not 0 <= k0 or v + k0 >= n or c < 0:
        return False
    exps = np.asarray(metric.exponents, dtype=np.int64)
    idx = np.asarray(metric.index)
    ar = np.arange(n)
    e = exps[idx[0]]
    for i in range(1, n):
        if not np.array_equal(exps[idx[i]], e[np.abs(ar - i)]):
            return False
    ek = [int(x) for x in e]  # Python ints: e_k + c never wraps around int64
    if c > max(ek):
        return False  # e_{k0+v} = e_{k0} + c ≤ max e is then impossible
    if k0 > 0 and ek[k0 - 1 + v] == ek[k0 - 1] + c:
        return False  # not the least offset: a smaller k0 encodes the same metric
    return all(ek[k + v] == ek[k] + c for k in range(k0, n - v))


@proved_by("toeplitz_recurrence")
def mirror_identity_holds(exps: Sequence[int], v: int, c: int, half: Sequence[Any], den: Any, k0: int = 0) -> bool:
    """Φ(s)N(s) = D(s)·1 for N = (half, mirrored), Φ[i, j] = s^{exps[|i−j|]} with
    e_{k+v} = e_k + c for k ≥ k0 (already checked); O(n·(v + 2k0)) polynomial operations
    through the left-sum recurrence of ``proofs/toeplitz_recurrence.py`` (the right sums of
    a mirrored N are the left sums read backwards)."""
    n = len(exps)
    if len(half) != (n + 1) // 2 or v < 1 or k0 < 0 or v + k0 > n:
        return False
    N = [half[min(i, n - 1 - i)] for i in range(n)]
    a = [_mono(int(x)) for x in exps[:v + k0]]
    sc = _mono(c)
    zero = flint.fmpz_poly([])
    left: list[Any] = []
    for i in range(n):  # left[i] = Σ_{j ≤ i} a_{i−j} N_j
        acc = sum((a[d] * N[i - d] for d in range(min(v + k0, i + 1))), zero)
        if i >= v:
            tail = left[i - v] - sum((a[d] * N[i - v - d] for d in range(min(k0, i - v + 1))), zero)
            acc += sc * tail
        left.append(acc)
    return all(left[i] + left[n - 1 - i] - a[0] * N[i] == den for i in range((n + 1) // 2))


def check_structured(claim: ThresholdClaim) -> bool:
    """True when every part of the claim is re-proved (module doc); never raises."""
    return guarded(_check, claim)


def _check(c: ThresholdClaim) -> bool:
    m, ev = c.metric, c.evidence
    if (not frame_ok(c, (STRUCTURED_KIND,)) or not all(x == 1 for x in c.rhs) or not 0 < c.eps.lo < c.eps.hi
            or m.q is None):
        return False
    n, v, cc, w, k0 = m.n, ev["step"], ev["shift"], ev["witness"], ev.get("offset", 0)
    if (any(isinstance(x, bool) or not isinstance(x, int) for x in (v, cc, k0)) or not is_index(w, n)
            or not structure_holds(m, v, cc, k0)):
        return False
    half, den = [int_poly(p) for p in ev["numerators"]], int_poly(ev["denominator"])
    exps = [int(x) for x in np.asarray(m.exponents, dtype=np.int64)[np.asarray(m.index)[0]]]
    return (mirror_identity_holds(exps, v, cc, half, den, k0)
            and root_run_holds(c.eps, m.q, ev["s_star"], half, den, min(w, n - 1 - w)))


# ------------------------------------------------------------------------------ JSON
def read_structured(doc: Any) -> ThresholdClaim:
    """Read a document (raises :class:`~exactdp.errors.InvalidArgument` when malformed,
    :class:`~exactdp.errors.CertificateInvalid` when its question was altered)."""
    qn, rhs, eps, claim, evid = read_threshold_parts(
        read_envelope(doc), STRUCTURED_KIND, ("verdict", "eps", "s_star"),
        ("step", "shift", "witness", "numerators", "denominator"), ("offset",))
    if qn.prop is not Property.THRESHOLD_TIGHT or qn.rhs != ONES or claim["s_star"] is None:
        raise InvalidArgument("question/claim: a structured threshold answers threshold-tight "
                              "(rhs \"ones\") for every ε > 0 and claims an s_star.")
    n = qn.metric.n
    ev = {"step": read_int(evid["step"], "evidence.step", 1, n),
          "shift": read_int(evid["shift"], "evidence.shift", 0),
          "offset": read_int(evid.get("offset", 0), "evidence.offset", 0, n),
          "witness": read_int(evid["witness"], "evidence.witness", 0, n - 1),
          "s_star": read_s_star(claim["s_star"]), **read_polys(evid, (n + 1) // 2)}
    return ThresholdClaim(STRUCTURED_KIND, qn.metric, rhs, eps, ev)
