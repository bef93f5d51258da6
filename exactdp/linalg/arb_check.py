"""Independent re-check of a float enclosure in flint ball arithmetic (the Krawczyk/Rump
argument F3 of :mod:`exactdp.linalg.verified`, evaluated with balls only)."""

from __future__ import annotations

import flint
import numpy as np

from exactdp.errors import InvalidArgument
from exactdp.linalg.enclosure import FloatEnclosure

__all__ = ["check_enclosure_arb"]


def check_enclosure_arb(
    A: flint.arb_mat,
    b: flint.arb_mat,
    R: np.ndarray,
    enclosure: FloatEnclosure,
    prec: int = 53,
) -> bool:
    """Independent re-check of an enclosure with flint ball arithmetic (O(n^3) arb work).

    Recomputes, in arb at ``prec`` bits, ``E = I - R A`` (``R`` is taken as its exact
    binary value; ``A`` and ``b`` are the ball data, so every matrix/vector in them is
    covered) and ``beta = max_i sum_j |E_ij|``; requires ``beta < 1`` (so ``A`` is
    nonsingular). With the midpoint ``m = (lo + hi) / 2`` it computes ``z = R (b - A m)``
    (at ``max(2 prec, prec + 64)`` bits, the residual suffers cancellation),
    ``delta = max|z| / (1 - beta)`` and checks, componentwise and with certain ball
    comparisons, ``lo <= m - (|z| + |E| 1 delta)`` and ``m + (|z| + |E| 1 delta) <= hi``.
    This is the Krawczyk/Rump argument F3 (module docstring) evaluated with ball
    arithmetic only: no float rounding analysis is shared with :func:`verified_solve`.

    Parameters
    ----------
    A : flint.arb_mat (n, n)
    b : flint.arb_mat (n, 1) (a 1 x n row is accepted too)
    R : numpy.ndarray (n, n)
        The approximate inverse used (any float matrix).
    enclosure : FloatEnclosure
    prec : int
        Working precision in bits for the O(n^3) product ``R A``.

    Returns
    -------
    bool
        True only if the ball computation proves that ``[lo, hi]`` contains
        ``A^{-1} b`` for every ``A``, ``b`` in the balls. False means "not proved".

    Examples
    --------
    >>> from flint import arb_mat
    >>> from exactdp.linalg.verified import verified_solve
    >>> A = np.array([[2.0, 1.0], [1.0, 3.0]])
    >>> enc = verified_solve(A, 0, [1.0, 2.0], 0)
    >>> check_enclosure_arb(arb_mat(A.tolist()), arb_mat([[1], [2]]), np.linalg.inv(A), enc)
    True
    >>> shrunk = FloatEnclosure(enc.lo + 1e-3, enc.hi, enc.beta, enc.x_approx, enc.method)
    >>> check_enclosure_arb(arb_mat(A.tolist()), arb_mat([[1], [2]]), np.linalg.inv(A), shrunk)
    False
    """
    n = A.nrows()
    if A.ncols() != n:
        raise InvalidArgument(f"A must be square; got {n} x {A.ncols()}")
    if (b.nrows(), b.ncols()) == (1, n) and n != 1:
        b = b.transpose()
    if (b.nrows(), b.ncols()) != (n, 1):
        raise InvalidArgument(f"b must be an ({n}, 1) arb_mat; got {b.nrows()} x {b.ncols()}")
    Rf = np.asarray(R, dtype=np.float64)
    lo = np.asarray(enclosure.lo, dtype=np.float64)
    hi = np.asarray(enclosure.hi, dtype=np.float64)
    if Rf.shape != (n, n) or lo.shape != (n,) or hi.shape != (n,):
        raise InvalidArgument(f"R must be ({n}, {n}) and lo, hi of length {n}; got {Rf.shape}, {lo.shape}, {hi.shape}")
    if not (np.all(np.isfinite(Rf)) and np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))):
        return False
    if not bool(np.all(lo <= hi)):
        return False
    zero = flint.arb(0)
    one = flint.arb(1)
    with flint.ctx.workprec(prec):
        # arb(float) is exact (the binary value of the float), independent of precision
        Ra = flint.arb_mat(n, n, [flint.arb(float(v)) for v in Rf.ravel()])
        E = Ra * A
        entries = E.entries()
        row_abs: list[flint.arb] = []
        for i in range(n):
            total = zero
            for j in range(n):
                e = entries[i * n + j]
                total += (one - e).abs_upper() if i == j else e.abs_upper()
            row_abs.append(total)
        beta = row_abs[0]
        for v in row_abs[1:]:
            beta = beta.max(v)
        if not beta < 1:
            return False
    rprec = max(2 * prec, prec + 64)
    with flint.ctx.workprec(rprec):
        lo_a = [flint.arb(float(v)) for v in lo]
        hi_a = [flint.arb(float(v)) for v in hi]
        m = flint.arb_mat(n, 1, [(x + y) / 2 for x, y in zip(lo_a, hi_a, strict=True)])
        z = Ra * (b - A * m)
        z_abs = [z[i, 0].abs_upper() for i in range(n)]
        zmax = z_abs[0]
        for v in z_abs[1:]:
            zmax = zmax.max(v)
        delta = zmax / (one - beta)
        for i in range(n):
            bound = z_abs[i] + row_abs[i] * delta
            if not (m[i, 0] - bound >= lo_a[i] and m[i, 0] + bound <= hi_a[i]):
                return False
    return True
