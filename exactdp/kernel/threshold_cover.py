"""The certified cover of a threshold claim, re-checked in arb balls and exact rationals.

The kernel's check of a ``certified-cover`` claim (:mod:`exactdp.kernel.threshold`) does not
reuse the search's floating-point rounding analysis (F1/F2 and γ_k bounds on float
products). It re-proves each range [a, b] with the same mathematics in
ball arithmetic (python-flint ``arb``/``arb_mat``): floats appear only as *candidates*
(an approximate inverse R and the vectors x ≈ Φ0⁻¹b, u ≈ −Φ0⁻¹Φ1x), each converted
exactly to a ball (a double is a dyadic rational), and every product, residual and bound
is a ball enclosure, rounded outward by arb itself. So no subnormal or rounding-model
hypothesis is involved.

Argument (the one of the search's mean-value Krawczyk ranges, restated here; checked
step by step in ``proofs/krawczyk_mean_value.py``). On [a, b] with centre c, h = ε − c, |h| ≤ w = (b − a)/2:
Φ(ε) = Φ0 + hΦ1 + h²Φ2 with 0 ≤ Φ2 ≤ P2 = d²e^{−ad}/2 entrywise (Taylor with Lagrange
remainder, ξ ∈ [a, b]). With y(h) = x + hu and e = z(ε) − y(h), Φ(ε)e = ρ(h),
|ρ| ≤ ρ̄ := |b − Φ0x| + w|Φ0u + Φ1x| + w²(|Φ1||u| + P2|x|) + w³P2|u|. For any R,
|I − RΦ(ε)| ≤ G := |I − RΦ0| + w|RΦ1| + w²|R|P2; if β = ‖G‖∞ < 1 then Φ(ε) is invertible,
‖e‖∞ ≤ δ := ‖|R|ρ̄‖∞/(1 − β) and |e| ≤ |R|ρ̄ + (G·1)δ. Hence z(ε) ≥ x − w|u| − |e|
componentwise for every ε in [a, b].

Perturbation lemma (``proofs/threshold_lemmas.py``): with Φ = I + E, E ≥ 0 off-diagonal
and e ≥ ‖E(t0)‖∞ (max row sum, increasing in t), e < 1 and e·‖b‖∞ < min b·(1 − e) prove
z(t) > 0 for every t = e^{-ε} in (0, t0]. :func:`lemma_row_sum_bound` bounds e exactly:
integer distance counts per row times rational upper bounds of t0^d (arb, outward).

Examples
--------
>>> from fractions import Fraction
>>> from exactdp.spaces.metrics import line, sum_query
>>> arb_mean_value_check(line(3), (Fraction(1),) * 3, Fraction(1), Fraction(11, 10))
True
>>> arb_mean_value_check(sum_query(2, 2), (Fraction(1),) * 5, Fraction(40, 100), Fraction(47, 100))
False
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import numpy as np
from flint import arb, arb_mat, fmpq_mat, fmpz_mat

from exactdp.arithmetic.ball import arb_to_fraction_interval, workprec
from exactdp.arithmetic.rationals import fmpq_to_fraction, to_fmpq
from exactdp.spaces.distances import Distance
from exactdp.spaces.metrics import FiniteMetric

__all__ = ["arb_mean_value_check", "lemma_row_sum_bound", "cover_frame_ok", "CountRows"]

#: Count rows (r × k integers, each dominating a metric's per-row distance counts) and the
#: k distances they count.
CountRows = tuple[np.ndarray, Sequence[Distance]]


def _gather(vals: list[arb], idx: np.ndarray, n: int) -> arb_mat:
    return arb_mat(n, n, [vals[int(k)] for k in idx.ravel()])


def _float_mat(A: np.ndarray) -> arb_mat:
    """A float matrix as balls of radius 0 (a double is an exact dyadic)."""
    r, c = A.shape
    return arb_mat(r, c, [arb(float(v)) for v in A.ravel()])


def _col(v: list[arb]) -> arb_mat:
    return arb_mat(len(v), 1, v)


def _uppers(M: arb_mat) -> list[arb]:
    """Exact upper bounds of |entry| (arb's own outward rounding)."""
    return [e.abs_upper() for e in M.entries()]


def arb_mean_value_check(metric: FiniteMetric, rhs: tuple[Fraction, ...], a: Fraction,
                         b: Fraction, prec: int = 128) -> bool:
    """True when the mean-value Krawczyk argument proves z(ε) > 0 for every ε in [a, b],
    evaluated entirely in arb ball arithmetic (module docstring).

    Floats are candidates only; a wrong candidate can make the check fail, never pass.
    """
    n = metric.n
    if not (isinstance(a, Fraction) and isinstance(b, Fraction)) or not 0 < a < b:
        return False
    if len(rhs) != n or n < 1:
        return False
    idx = np.asarray(metric.index)
    with workprec(prec):
        ca, aa = arb(to_fmpq((a + b) / 2)), arb(to_fmpq(a))
        w = arb(to_fmpq((b - a) / 2))
        f0: list[arb] = []
        f1: list[arb] = []
        af1: list[arb] = []
        p2: list[arb] = []
        for v in metric.values:
            d = v.ball()
            f = (-ca * d).exp()
            f0.append(f)
            f1.append(-d * f)
            af1.append((d * f).abs_upper())
            p2.append((d * d * (-aa * d).exp() / 2).abs_upper())
        # float candidates (uncertified; only their exact values enter the proof)
        mid0 = np.array([float(x.mid()) for x in f0])[idx]
        mid1 = np.array([float(x.mid()) for x in f1])[idx]
        bf = np.array([float(x) for x in rhs])
        with np.errstate(all="ignore"):
            try:
                Rf = np.linalg.inv(mid0)
            except np.linalg.LinAlgError:
                return False
            xf = Rf @ bf
            xf = xf + Rf @ (bf - mid0 @ xf)
            uf = -(Rf @ (mid1 @ xf))
            uf = uf - Rf @ (mid0 @ uf + mid1 @ xf)
        if not (np.all(np.isfinite(Rf)) and np.all(np.isfinite(xf)) and np.all(np.isfinite(uf))):
            return False
        Phi0, Phi1 = _gather(f0, idx, n), _gather(f1, idx, n)
        absPhi1, P2 = _gather(af1, idx, n), _gather(p2, idx, n)
        R = _float_mat(Rf)
        absR = _float_mat(np.abs(Rf))
        x, u = _float_mat(xf[:, None]), _float_mat(uf[:, None])
        ax, au = _float_mat(np.abs(xf)[:, None]), _float_mat(np.abs(uf)[:, None])
        bb = _col([arb(to_fmpq(Fraction(v))) for v in rhs])
        ones = _col([arb(1)] * n)
        r0 = _uppers(bb - Phi0 * x)
        r1 = _uppers(Phi0 * u + Phi1 * x)
        t2 = (absPhi1 * au + P2 * ax).entries()
        t3 = (P2 * au).entries()
        w2, w3 = w * w, w * w * w
        rho = _col([r0[i] + w * r1[i] + w2 * t2[i] + w3 * t3[i] for i in range(n)])
        ident = arb_mat(n, n, [arb(1) if i == j else arb(0) for i in range(n) for j in range(n)])
        g0m = arb_mat(n, n, _uppers(ident - R * Phi0))
        g1m = arb_mat(n, n, _uppers(R * Phi1))
        G0 = (g0m * ones).entries()
        G1 = (g1m * ones).entries()
        G2 = (absR * (P2 * ones)).entries()
        grow = [(G0[i] + w * G1[i] + w2 * G2[i]).abs_upper() for i in range(n)]
        beta = _max_exact(grow)
        if not beta < 1:
            return False
        Rr = [r.abs_upper() for r in (absR * rho).entries()]
        delta = _max_exact(Rr) / (1 - beta)
        xe, ue = x.entries(), au.entries()
        for i in range(n):
            low = xe[i] - w * ue[i] - (Rr[i] + grow[i] * delta)
            if not low > 0:
                return False
    return True


def _max_exact(vals: list[arb]) -> arb:
    """The largest of exact (radius-0) upper bounds (comparisons of exact balls decide)."""
    best = vals[0]
    for v in vals[1:]:
        if v > best:
            best = v
    return best


#: Upper bounds of t0^d below 2^-TINY_BITS are replaced by 2^-TINY_BITS (a tiny t0 made
#: the exact ends of t0^d enormous, issue 11; the lemma's test loses nothing by it).
TINY_BITS = 4096


def _small_upper(x: arb) -> Fraction:
    """A rational upper bound of the finite ball x: its exact upper end, or 2^-TINY_BITS
    when arb proves x < 2^-TINY_BITS (so that the bound stays small)."""
    cap = Fraction(1, 1 << TINY_BITS)
    if x < arb(to_fmpq(cap)):
        return cap
    return arb_to_fraction_interval(x)[1]


def lemma_row_sum_bound(metric: FiniteMetric | CountRows, t0: Fraction, prec: int = 128) -> Fraction:
    """A rational e ≥ max_i Σ_{j≠i} t0^{d(i, j)}: exact integer counts of each distance per
    row (``np.bincount``) times rational upper bounds of t0^d, summed in ``fmpq_mat``.

    ``metric`` may also be ``(rows, values)``: count rows (r × k integers) that dominate
    every row of the metric entrywise, over the distances ``values`` (a grid: the counts
    of its W×H offset window, O(n), never the n×n index).

    >>> from exactdp.spaces.metrics import line
    >>> e = lemma_row_sum_bound(line(3), Fraction(1, 8))  # the middle row: 2·(1/8)
    >>> Fraction(1, 4) <= e < Fraction(1, 4) + Fraction(1, 10**30)
    True
    """
    if isinstance(metric, FiniteMetric):
        n, values = metric.n, list(metric.values)
        k = len(values)
        codes = (np.arange(n, dtype=np.int64)[:, None] * k + np.asarray(metric.index)).ravel()
        rows = np.unique(np.bincount(codes, minlength=n * k).reshape(n, k), axis=0)
    else:
        rows, values = np.asarray(metric[0], dtype=np.int64), list(metric[1])
        k = len(values)
    with workprec(prec):
        lt = arb(to_fmpq(t0)).log()
        ups = [Fraction(0) if v.coef == 0 else _small_upper((lt * v.ball()).exp()) for v in values]
    prod = fmpq_mat(fmpz_mat(len(rows), k, [int(x) for x in rows.ravel()])) * fmpq_mat(k, 1, [to_fmpq(u) for u in ups])
    return max(fmpq_to_fraction(prod[i, 0]) for i in range(len(rows)))


def cover_frame_ok(metric: FiniteMetric | CountRows, rhs: tuple[Fraction, ...], eps_hi: Fraction,
                   t0: Fraction, pieces: tuple[tuple[Fraction, Fraction], ...]) -> bool:
    """The perturbation lemma holds at t0 and the proper ranges (a < b) cover
    [eps_hi, −ln t0] without gaps (−ln t0 bounded above in arb). ``metric``: a metric or
    dominating count rows (:func:`lemma_row_sum_bound`)."""
    bmin, bmax = min(rhs), max(abs(v) for v in rhs)
    if bmin <= 0 or not 0 < t0 < 1 or any(not a < b for a, b in pieces):
        return False
    e = lemma_row_sum_bound(metric, t0)
    if not (e < 1 and e * bmax < bmin * (1 - e)):
        return False
    with workprec(128):
        end = arb_to_fraction_interval(-arb(to_fmpq(t0)).log())[1]
    cur = eps_hi
    for a, b in sorted(pieces):
        if a > cur:
            return False
        cur = max(cur, b)
    return cur >= end
