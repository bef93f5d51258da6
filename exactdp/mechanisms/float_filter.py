"""Float to find, exact to prove: the float pre-filters of the exact mechanism routes.

Entries are converted to floats with correct rounding (:func:`~exactdp.arithmetic.rationals.fmpq_to_float`);
every candidate within a relative :data:`REL_MARGIN` of a float maximum, and every entry
below :data:`TINY` (where floats lose relative accuracy), is kept and then compared exactly.
The floats only choose what to compare; no answer rests on them.
"""

from __future__ import annotations

import numpy as np

from exactdp.arithmetic.rationals import fmpq_to_float
from exactdp.mechanisms.mechanism import Mechanism

__all__ = ["REL_MARGIN", "TINY", "float_and_masks", "column_argmax_exact"]

#: Relative margin below a float maximum within which every candidate is kept.
REL_MARGIN = 1e-12
#: Entries below this are always candidates (floats lose relative accuracy near underflow).
TINY = 2.0**-1000


def float_and_masks(mech: Mechanism) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Float matrix (correctly rounded), exact-zero mask, and 'unsafe' (tiny) mask."""
    ents = mech.entries_object()
    n, m = ents.shape
    F = np.empty((n, m), dtype=float)
    Z = np.zeros((n, m), dtype=bool)
    for i in range(n):
        row = ents[i]
        F[i, :] = [fmpq_to_float(v) for v in row]
        Z[i, :] = [v == 0 for v in row]
    unsafe = (~Z) & (F < TINY)
    return F, Z, unsafe


def column_argmax_exact(weighted: np.ndarray, Fw: np.ndarray) -> np.ndarray:
    """Exact argmax per column of an fmpq object matrix, float-guided."""
    m = weighted.shape[1]
    out = np.empty(m, dtype=np.int64)
    fmax = Fw.max(axis=0)
    for z in range(m):
        cand = np.nonzero((Fw[:, z] >= fmax[z] * (1 - REL_MARGIN)) | (Fw[:, z] < TINY))[0]
        best = int(cand[0])
        bv = weighted[best, z]
        for y in cand[1:].tolist():
            v = weighted[y, z]
            if v > bv:
                best, bv = y, v
        out[z] = best
    return out
