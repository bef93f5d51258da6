"""Independent re-check of a float enclosure in flint ball arithmetic (the Krawczyk/Rump
argument F3 of :mod:`exactdp.linalg.verified`, evaluated with balls only; the bound itself,
:func:`~exactdp.kernel.linear.residual_enclosure_arb`, lives in the kernel)."""

from __future__ import annotations

import flint
import numpy as np

from exactdp.errors import InvalidArgument
from exactdp.kernel.linear import residual_enclosure_arb
from exactdp.linalg.enclosure import FloatEnclosure

__all__ = ["check_enclosure_arb", "check_enclosure_refined_arb", "residual_enclosure_arb"]


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
    with flint.ctx.workprec(max(2 * prec, prec + 64)):
        lo_a = [flint.arb(float(v)) for v in lo]
        hi_a = [flint.arb(float(v)) for v in hi]
        mid = [(x + y) / 2 for x, y in zip(lo_a, hi_a, strict=True)]
    with flint.ctx.workprec(prec):
        # arb(float) is exact (the binary value of the float), independent of precision
        Ra = flint.arb_mat(n, n, [flint.arb(float(v)) for v in Rf.ravel()])
    balls = residual_enclosure_arb(A, b, Ra, mid, prec)
    if balls is None:
        return False
    with flint.ctx.workprec(max(2 * prec, prec + 64)):
        return all(bool(x.lower() >= lo_i and x.upper() <= hi_i)
                   for x, lo_i, hi_i in zip(balls, lo_a, hi_a, strict=True))


def check_enclosure_refined_arb(
    A: flint.arb_mat,
    b: flint.arb_mat,
    R: np.ndarray,
    enclosure: FloatEnclosure,
    prec: int,
    steps: int = 2,
) -> bool:
    """:func:`check_enclosure_arb` around a refined centre, for enclosures tighter than it proves.

    The Krawczyk/Rump bound holds around *any* centre m̃ (argument F3), so the box's
    midpoint is first improved by ``steps`` refinement steps m̃ ← mid(m̃ + R(b − A m̃)) in
    balls at ``max(2 prec, prec + 64)`` bits (each m̃ taken as the exact midpoint of its
    ball), and the bound m̃ ± (|z| + |E|1δ) is then required to lie in ``[lo, hi]``. A
    solution entry that is exactly 0 with a box a few units of 10⁻³⁹ wide around it (a
    zero-entry prior at a large ε) is proved this way, at a precision that grows until
    the refined centre is accurate enough.

    >>> from flint import arb_mat
    >>> from exactdp.linalg.verified import verified_solve
    >>> A = np.array([[2.0, 1.0], [1.0, 3.0]])
    >>> enc = verified_solve(A, 0, [1.0, 2.0], 0)
    >>> check_enclosure_refined_arb(arb_mat(A.tolist()), arb_mat([[1], [2]]), np.linalg.inv(A), enc, 128)
    True
    """
    n = A.nrows()
    lo = np.asarray(enclosure.lo, dtype=np.float64)
    hi = np.asarray(enclosure.hi, dtype=np.float64)
    Rf = np.asarray(R, dtype=np.float64)
    if (Rf.shape != (n, n) or lo.shape != (n,) or hi.shape != (n,) or not bool(np.all(lo <= hi))
            or not (np.all(np.isfinite(Rf)) and np.all(np.isfinite(lo)) and np.all(np.isfinite(hi)))):
        return False
    if (b.nrows(), b.ncols()) == (1, n) and n != 1:
        b = b.transpose()
    rprec = max(2 * prec, prec + 64)
    with flint.ctx.workprec(rprec):
        Ra = flint.arb_mat(n, n, [flint.arb(float(v)) for v in Rf.ravel()])
        lo_a = [flint.arb(float(v)) for v in lo]
        hi_a = [flint.arb(float(v)) for v in hi]
        mid = [(x + y) / 2 for x, y in zip(lo_a, hi_a, strict=True)]
        for _ in range(steps):
            m = flint.arb_mat(n, 1, mid)
            y = m + Ra * (b - A * m)
            if not all(y[i, 0].is_finite() for i in range(n)):
                return False
            mid = [flint.arb(y[i, 0].mid()) for i in range(n)]
    balls = residual_enclosure_arb(A, b, Ra, mid, prec)
    if balls is None:
        return False
    with flint.ctx.workprec(rprec):
        return all(bool(x.lower() >= lo_i and x.upper() <= hi_i)
                   for x, lo_i, hi_i in zip(balls, lo_a, hi_a, strict=True))
