"""Mean-value (first-order Taylor) Krawczyk certification of "z(ε) > 0 on a whole ε-range".

The fallback cover of the certified threshold route when Φ(ε) is not provably symmetric
positive definite (any invertible Φ; two O(n³) products per range).

Rounding model (IEEE double, round to nearest, subnormals kept; the one of
:mod:`exactdp.arithmetic.rounding`, proved in ``proofs/linalg_verified_bounds.py``):
F1: the exact result of one + − × ÷ lies in [pred(fl), succ(fl)];
F2: for any summation order, |fl(P@Q) − PQ| ≤ γ_{k+2}|P||Q| + 2kη (η = 2^-1074),
so for P, Q ≥ 0: PQ ≤ (fl(PQ) + 2kη)/(1 − γ_{k+2}) (:class:`~exactdp.threshold.float_bounds.ProductBounds`).

Argument. On [a, b] with centre c and h = ε − c, |h| ≤ w/2, every entry e^{-εd} equals
e^{-cd} − h·d·e^{-cd} + (h²/2)d²e^{-ξd} (ξ in [a, b]), so Φ(ε) = Φ0 + hΦ1 + h²Φ2 with
0 ≤ Φ2 ≤ P2 := (1/2)d²e^{-ad}. With y(h) = x + h·u (x ≈ Φ0⁻¹b, u ≈ −Φ0⁻¹Φ1x floats),
the error e = z(ε) − y(h) satisfies Φ(ε)e = ρ(h) := r0 − h·r1 − h²(Φ1u + Φ2x) − h³Φ2u
with r0 = b − Φ0x, r1 = Φ0u + Φ1x; Krawczyk with any R: e = Rρ + (I − RΦ(ε))e, so with
G ≥ |I − RΦ0| + |h||R||Φ1| + h²|R|P2 and β = ‖G‖∞ < 1, ‖e‖ ≤ ‖|R||ρ|‖/(1 − β) =: δ and
|e| ≤ |R||ρ| + G·1·δ. Hence z(ε) ≥ x − (w/2)|u| − |e| componentwise on the whole range.
The first-order term h·u carries no |R|-inflation, so ranges can be wide.
Each step is checked in ``proofs/krawczyk_mean_value.py``.

Examples
--------
>>> from fractions import Fraction
>>> from exactdp.spaces.metrics import line
>>> ok, R = mean_value_piece(line(3), (Fraction(1),) * 3, Fraction(1), Fraction(11, 10), None)
>>> ok
True
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
from flint import arb

from exactdp.arithmetic.ball import workprec
from exactdp.arithmetic.rationals import to_fmpq
from exactdp.arithmetic.rounding import float_up, pred, require_subnormals, succ
from exactdp.errors import PrecisionLimitReached
from exactdp.linalg.verified import float_enclosure
from exactdp.progress import Progress, report
from exactdp.spaces.metrics import FiniteMetric
from exactdp.threshold.float_bounds import ProductBounds

__all__ = ["mean_value_piece", "krawczyk_cover"]


def _enclose_values(vals: list[Any]) -> tuple[np.ndarray, np.ndarray]:
    mids, rads = float_enclosure(vals)
    return np.asarray(mids, dtype=np.float64), np.asarray(rads, dtype=np.float64)


def mean_value_piece(metric: FiniteMetric, rhs: tuple[Fraction, ...], a: Fraction,
                     b: Fraction, R: np.ndarray | None) -> tuple[bool, np.ndarray | None]:
    """Certify z(ε) > 0 for all ε in [a, b] by the mean-value argument (module docstring,
    ``proofs/krawczyk_mean_value.py``).

    ``R`` is an approximate inverse to reuse (None: a fresh one); returns (proved, R).
    """
    require_subnormals("mean-value Krawczyk range check")
    c = (a + b) / 2
    half_w = float_up((b - a) / 2)
    with workprec(128):
        ca, aa = arb(to_fmpq(c)), arb(to_fmpq(a))
        e0, e1, p2 = [], [], []
        for v in metric.values:
            d = v.ball()
            f = (-ca * d).exp()
            e0.append(f)
            e1.append(-d * f)
            p2.append(arb((d * d * (-aa * d).exp() / 2).upper()))
        m0, r0v = _enclose_values(e0)
        m1, r1v = _enclose_values(e1)
        pm, pr = _enclose_values(p2)
        bm, br = _enclose_values([arb(to_fmpq(x)) for x in rhs])
    p2v = np.asarray(succ(pm + pr))
    idx = metric.index
    M0, E0 = m0[idx], r0v[idx]
    M1, E1 = m1[idx], r1v[idx]
    P2 = p2v[idx]
    n = metric.n
    rig = ProductBounds(n)
    ones = np.ones(n)
    with np.errstate(all="ignore"):
        if R is None:
            try:
                R = np.linalg.inv(M0)
            except np.linalg.LinAlgError:
                return False, None
        absR = np.abs(R)
        x = R @ bm
        x = x + R @ (bm - M0 @ x)
        u = -(R @ (M1 @ x))
        u = u - R @ (M0 @ u + M1 @ x)
        ax, au = np.abs(x), np.abs(u)
        absM0 = np.abs(M0)
        absM1 = np.asarray(succ(np.abs(M1) + E1))
        three = np.stack([ones, ax, au], axis=1)
        m0p = rig.nonneg(absM0, three)  # |M0|·[1, |x|, |u|]
        e0p = rig.nonneg(E0, three)
        m1p = rig.nonneg(absM1, three)
        p2p = rig.nonneg(P2, three)
        e1x = rig.nonneg(E1, ax)
        m1x = rig.nonneg(np.abs(M1), ax)
        # residual bounds (no R needed)
        w0 = M0 @ x
        r0b = succ(np.abs(bm - w0))
        r0b = succ(r0b + succ(succ(rig.gamma * m0p[:, 1]) + rig.tail))
        r0b = succ(r0b + e0p[:, 1])
        r0b = succ(r0b + br)
        s12 = M0 @ u + M1 @ x
        r1b = succ(np.abs(s12))
        r1b = succ(r1b + succ(succ(rig.gamma * m0p[:, 2]) + rig.tail))
        r1b = succ(r1b + succ(succ(rig.gamma * m1x) + rig.tail))
        r1b = succ(r1b + succ(e0p[:, 2] + e1x))
        sec = succ(m1p[:, 2] + p2p[:, 1])
        # one |R| product for everything
        m1rows = rig.nonneg(np.abs(M1), ones)
        e1rows = rig.nonneg(E1, ones)
        V = np.stack([m0p[:, 0], e0p[:, 0], m1p[:, 0], p2p[:, 0], r0b, r1b, sec, p2p[:, 2],
                      m1rows, e1rows], axis=1)
        RV = rig.nonneg(absR, V)
        # G1 ≥ |I − RΦ(ε)| 1
        C = R @ M0
        diag = np.diagonal(C).copy()
        offd = np.abs(C)
        np.fill_diagonal(offd, 0.0)
        g = succ(succ(np.abs(1.0 - diag)) + rig.nonneg(offd, ones))
        g = succ(g + succ(succ(rig.gamma * RV[:, 0]) + rig.tail))
        g = succ(g + float_up(n * Fraction(rig.tail)))
        g = succ(g + RV[:, 1])
        # |R Φ1| ≤ |fl(R M1)| + γ|R||M1| + tail + |R| E1: keeps the cancellation in R·Φ1
        Pm = R @ M1
        prow = succ(rig.nonneg(np.abs(Pm), ones) + succ(rig.gamma * RV[:, 8]))
        prow = succ(prow + float_up(n * Fraction(rig.tail)))
        prow = succ(prow + RV[:, 9])
        g = succ(g + succ(half_w * np.minimum(prow, RV[:, 2])))
        hw2 = succ(half_w * half_w)
        g = succ(g + succ(hw2 * RV[:, 3]))
        if not np.all(np.isfinite(g)):
            return False, R
        beta = Fraction(float(np.max(g)))
        if beta >= 1:
            return False, R
        Rr = RV[:, 4]
        Rr = succ(Rr + succ(half_w * RV[:, 5]))
        Rr = succ(Rr + succ(hw2 * RV[:, 6]))
        hw3 = succ(hw2 * half_w)
        Rr = succ(Rr + succ(hw3 * RV[:, 7]))
        if not np.all(np.isfinite(Rr)):
            return False, R
        delta = float_up(Fraction(float(np.max(Rr))) / (1 - beta))
        ebound = succ(Rr + succ(g * delta))
        low = pred(pred(x - succ(half_w * au)) - ebound)
        ok = bool(np.all(np.isfinite(low)) and np.all(low > 0))
    return ok, R


def krawczyk_cover(metric: FiniteMetric, b: tuple[Fraction, ...], e_hi: Fraction,
                   e_end: Fraction, tol: Fraction, progress: Progress,
                   max_pieces: int) -> list[tuple[Fraction, Fraction]]:
    """Mean-value Krawczyk pieces covering [e_hi, e_end] (any invertible Φ).

    Step-size control: pieces [a, a + w] from ``e_hi`` up to the lemma's range; w grows
    after a certified piece and shrinks after a failure (first retried with a fresh
    approximate inverse when the cached one came from elsewhere).
    """
    done: list[tuple[Fraction, Fraction]] = []
    R = None
    R_at = e_hi
    checks = 0
    failed_once = False
    a = e_hi
    w = 4 * tol
    while a < e_end:
        bb = min(e_end, a + w)
        checks += 1
        if checks > max_pieces:
            raise PrecisionLimitReached(
                f"cover of [{float(e_hi)}, ∞) needed more than {max_pieces} verified solves"
            )
        centre = (a + bb) / 2
        ok, R_new = mean_value_piece(metric, b, a, bb, R)
        if not ok and R is not None and abs(centre - R_at) > (bb - a):
            checks += 1  # the cached inverse came from elsewhere: retry with a fresh one
            ok, R_new = mean_value_piece(metric, b, a, bb, None)
            R_at = centre
        if R is None:
            R_at = centre
        R = R_new
        if ok:
            done.append((a, bb))
            a = bb
            w *= 8 if not failed_once else 2
            if len(done) % 5 == 0:
                report(progress, "cover", f"{len(done)} ranges certified, up to ε = {float(bb):.6f}")
        else:
            w /= 2 if failed_once else 4
            failed_once = True
            if w < tol / 2**20:
                raise PrecisionLimitReached(
                    f"could not certify the property on ε ∈ [{float(a)}, {float(a + w)}]: Φ(ε) "
                    "may be singular there (Φ is not positive definite on this range), or the "
                    "property may fail (non-monotone existence). Try the exact route if available."
                )
    return done
