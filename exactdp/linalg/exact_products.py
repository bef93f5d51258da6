"""Exact integer products through floating-point matrix products (limb splitting).

A structured product (block-Toeplitz grid, dense gather) computes every output as a float
sum of the products ``table[code(i, l)] · V[l]`` over l, in some order (BLAS, FMA, blocked
partial sums). When every table entry and every entry of V is an integer with
|table| < 2^L, |V| < 2^L and ``n_terms · (2^L − 1)² < 2^53``, each partial sum, whatever the
order, is an integer of magnitude below 2^53, hence representable, so every floating-point
operation is exact and the float result *is* the exact integer product (no rounding
analysis at all; ``proofs/grid_exact_products.py``). Integers of any size are cut into
L-bit limbs (Ozaki-style splitting) and the limb products recombined over Python
integers: memory O(n·columns), time (#limbs of the table) products of the structured kind.

Examples
--------
>>> import numpy as np
>>> M = np.array([[0, 1], [1, 0]])                  # value codes of a 2-point metric
>>> mv = lambda table, V: table[M] @ V
>>> got = exact_table_matvec(mv, 2, [3**40, 5**30], [[7**25, -(2**70)]])[0]
>>> got == [3**40 * 7**25 - 5**30 * 2**70, 5**30 * 7**25 - 3**40 * 2**70]
True"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from exactdp.arithmetic.rounding import U
from exactdp.errors import InvalidArgument
from exactdp.kinds import proved_by

__all__ = ["limb_bits", "exact_table_matvec"]

#: 2^53: every integer of smaller magnitude is a binary64 number (U = 2^-53 is the unit
#: roundoff of :mod:`exactdp.arithmetic.rounding`).
_EXACT_INT = U.denominator

#: ``matvec(table, V)``: float (n, m) array, each output a float sum of n products
#: table[code(i, l)]·V[l, c].
TableMatvec = Callable[[np.ndarray, np.ndarray], np.ndarray]


def limb_bits(n_terms: int) -> int:
    """The largest L with ``n_terms·(2^L − 1)² < 2^53`` (limb size of exact products).

    >>> limb_bits(10_000), limb_bits(10**6)
    (19, 16)
    """
    if n_terms < 1 or n_terms >= 2**51:
        raise InvalidArgument(f"Got n_terms={n_terms}; exact limb products need 1 ≤ n < 2^51.")
    L = 1
    while n_terms * ((1 << (L + 1)) - 1) ** 2 < _EXACT_INT:
        L += 1
    return L


def _limbs(values: Sequence[int], L: int) -> list[np.ndarray]:
    """Signed L-bit limbs: v = Σ_j sign(v)·limb_j·2^{jL}, 0 ≤ limb_j < 2^L (float arrays)."""
    mags = [abs(int(v)) for v in values]
    sign = np.array([-1.0 if v < 0 else 1.0 for v in values])
    top = max(mags, default=0).bit_length()
    mask = (1 << L) - 1
    return [sign * np.array([float((m >> s) & mask) for m in mags])
            for s in range(0, max(top, 1), L)]


@proved_by("grid_exact_products")
def exact_table_matvec(matvec: TableMatvec, n_terms: int, table: Sequence[int],
                       columns: Sequence[Sequence[int]]) -> list[list[int]]:
    """Exact integer products M·v for M[i, l] = table[code(i, l)] ≥ 0 (module docstring;
    the exactness lemma is checked in ``proofs/grid_exact_products.py``).

    Parameters
    ----------
    matvec : callable(table, V) -> (n, m) float array
        The structured float product (e.g. ``GridProvider.matvec``); each output must be a
        float sum of at most ``n_terms`` products table[code]·V[l].
    n_terms : int
        Bound on the number of products in each output.
    table : sequence of int ≥ 0
        One integer per distinct distance value.
    columns : sequence of int sequences
        The vectors v (signed integers of any size).

    Returns
    -------
    list of list of int
        M·v exactly, one list per column.

    Raises
    ------
    InvalidArgument
        When a table entry is negative, or the float product returned a non-integer (the
        ``matvec`` does not compute sums of products as required).
    """
    for what, vals in (("table", table), *(("column", col) for col in columns)):
        bad = next((v for v in vals if isinstance(v, bool) or int(v) != v), None)
        if bad is not None:  # int(1.5) would silently truncate to 1
            raise InvalidArgument(f"exact_table_matvec: {what} entry {bad!r} is not an integer; "
                                  "scale the values to integers first.")
    if any(int(t) < 0 for t in table):
        raise InvalidArgument("exact_table_matvec needs a nonnegative integer table; shift it first.")
    if columns and any(len(col) != len(columns[0]) for col in columns):
        raise InvalidArgument("exact_table_matvec: the columns have different lengths "
                              f"{sorted({len(col) for col in columns})}; pass vectors of one size.")
    L = limb_bits(n_terms)
    t_limbs = _limbs(table, L)
    v_limbs = [_limbs(col, L) for col in columns]
    J = max(len(v) for v in v_limbs) if v_limbs else 0
    n = len(columns[0]) if columns else 0
    zero = np.zeros(n)
    V = np.stack([v[j] if j < len(v) else zero for v in v_limbs for j in range(J)], axis=1)
    out = [np.zeros(n, dtype=object) for _ in columns]
    for i, tl in enumerate(t_limbs):
        if not np.any(tl):
            continue
        Z = np.asarray(matvec(tl, V))
        if not np.all(np.isfinite(Z)) or np.any(np.abs(Z) >= float(_EXACT_INT)) or np.any(Z != np.rint(Z)):
            raise InvalidArgument("the float product is not an exact integer sum of products "
                                  "(matvec breaks exact_table_matvec's contract)")
        Zi = Z.astype(np.int64)
        for c in range(len(columns)):
            for j in range(J):
                col = Zi[:, c * J + j]
                if np.any(col):
                    out[c] += col.astype(object) * (1 << ((i + j) * L))
    return [[int(x) for x in o] for o in out]
