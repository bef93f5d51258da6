"""Channels and priors read exactly: the shared input layer of :mod:`exactdp.qif`.

A *channel* C is a row-stochastic matrix, rows = secrets x, columns = observations y
(libqif's convention). Every function of :mod:`exactdp.qif` accepts an exact
:class:`~exactdp.mechanisms.mechanism.Mechanism`, a nested sequence of exact numbers
(``"1/3"``, ``Fraction``, ``int``) or a numpy array; numpy floats are read as their exact
binary values through :func:`exactdp.mechanisms.files.from_numpy` (so a float row such as
``[0.1, 0.9]`` does not sum to exactly 1 and is refused unless ``rows="normalize"``).

Examples
--------
>>> read_channel([["1/2", "1/2"], [0, 1]])
((Fraction(1, 2), Fraction(1, 2)), (Fraction(0, 1), Fraction(1, 1)))
>>> read_channel([["1/2", "1/3"]])
Traceback (most recent call last):
...
exactdp.errors.InvalidChannel: channel row 0 sums to 5/6, not 1 (a channel's rows are ...
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from exactdp.arithmetic.rationals import to_fraction
from exactdp.errors import ExactnessRequired, InvalidArgument, InvalidChannel
from exactdp.mechanisms.files import from_numpy
from exactdp.mechanisms.mechanism import Mechanism, MechanismKind
from exactdp.spaces.priors import read_prior_values

__all__ = ["Matrix", "read_channel", "read_matrix", "prior_values", "matmul", "channel_to_float",
           "is_exact", "is_exact_matrix", "is_channel", "is_distribution"]

#: An exact matrix: a tuple of rows of Fractions.
Matrix = tuple[tuple[Fraction, ...], ...]


def is_exact(v: Any) -> bool:
    """True for a ``Fraction`` or an ``int`` (not a bool, float or float-like number).

    Certificates' ``verify()`` methods call it on every stored number before deciding
    anything, so that no inequality is ever decided in floating point.

    >>> is_exact(Fraction(1, 3)), is_exact(3), is_exact(0.5), is_exact(True)
    (True, True, False, False)
    """
    return isinstance(v, Fraction) or (isinstance(v, int) and not isinstance(v, bool))


def is_exact_matrix(M: Any) -> bool:
    """A non-empty rectangular tuple/list of rows of exact numbers (see :func:`is_exact`)."""
    if not isinstance(M, (tuple, list)) or not M:
        return False
    if not all(isinstance(r, (tuple, list)) and r for r in M):
        return False
    return (all(len(r) == len(M[0]) for r in M)
            and all(is_exact(v) for r in M for v in r))


def is_distribution(p: Any, n: int | None = None) -> bool:
    """Exact entries ≥ 0 summing to exactly 1 (and n of them when n is given).

    >>> is_distribution((Fraction(1, 2), Fraction(1, 2))), is_distribution((2, -1))
    (True, False)
    """
    if not isinstance(p, (tuple, list)) or not p or (n is not None and len(p) != n):
        return False
    return all(is_exact(v) and v >= 0 for v in p) and sum(p, Fraction(0)) == 1


def is_channel(C: Any) -> bool:
    """An exact non-empty rectangular matrix whose rows are distributions.

    >>> is_channel(((Fraction(1), Fraction(0)), (Fraction(1, 2), Fraction(1, 2))))
    True
    >>> is_channel(((5, 0), (0, 5)))
    False
    """
    return is_exact_matrix(C) and all(is_distribution(r) for r in C)


def read_matrix(M: Any, what: str = "matrix") -> Matrix:
    """An exact rectangular matrix (no row-sum check); floats taken at their binary value.

    >>> read_matrix([[1, "1/2"]])
    ((Fraction(1, 1), Fraction(1, 2)),)
    """
    if isinstance(M, Mechanism):
        if M.kind is not MechanismKind.EXACT:
            raise ExactnessRequired(
                f"{what}: {M.name} has certified (ball) entries; exactdp.qif needs exact ones "
                "(build it with t= rational, or load floats with from_numpy)."
            )
        return tuple(tuple(r) for r in M.rows_fraction())
    if isinstance(M, np.ndarray) and M.dtype != object:
        if M.ndim != 2 or M.size == 0:
            raise InvalidChannel(f"{what}: need a non-empty 2-D array; got shape {M.shape}.")
        if not np.all(np.isfinite(M)):
            raise InvalidChannel(f"{what}: has a non-finite entry; pass finite numbers.")
        return tuple(tuple(Fraction(float(v)) for v in row) for row in M.tolist())
    try:
        rows = [list(r) for r in M]
    except TypeError:
        raise InvalidChannel(
            f"{what}: got {type(M).__name__}; pass a 2-D matrix (nested lists, numpy array or "
            "Mechanism)."
        ) from None
    if not rows or not rows[0] or any(len(r) != len(rows[0]) for r in rows):
        raise InvalidChannel(f"{what}: need a non-empty rectangular matrix (equal row lengths).")
    try:
        return tuple(tuple(to_fraction(v, f"{what}[{i}][{j}]") for j, v in enumerate(r))
                     for i, r in enumerate(rows))
    except InvalidArgument as exc:
        raise InvalidChannel(f"{what}: {exc}") from exc


def read_channel(C: Any, what: str = "channel", *, rows: str = "exact") -> Matrix:
    """An exact channel: nonnegative, every row sums to exactly 1.

    ``rows="normalize"`` divides float rows by their exact sums (libqif matrices written
    with floats), as :func:`exactdp.mechanisms.files.from_numpy` does.
    """
    if isinstance(C, np.ndarray) and C.dtype != object and rows != "exact":
        C = from_numpy(C, rows=rows, name=what).mechanism
    if isinstance(C, Mechanism):
        C.require_stochastic(what)
    M = read_matrix(C, what)
    for i, r in enumerate(M):
        if any(v < 0 for v in r):
            j = next(j for j, v in enumerate(r) if v < 0)
            raise InvalidChannel(
                f"{what} entry [{i}][{j}] = {r[j]} is negative; a channel holds probabilities."
            )
        s = sum(r, Fraction(0))
        if s != 1:
            raise InvalidChannel(
                f"{what} row {i} sums to {s}, not 1 (a channel's rows are distributions; "
                "pass exact fractions, or rows='normalize' for float rows)."
            )
    return M


def prior_values(prior: Any, n: int, what: str = "") -> tuple[Fraction, ...]:
    """``"uniform"`` or n exact probabilities (the one prior reader of the library).

    >>> prior_values(["1/2", "-1/2", 1], 3)
    Traceback (most recent call last):
    ...
    exactdp.errors.InvalidPrior: prior[1] = -1/2 is negative; probabilities must be ≥ 0.
    """
    if isinstance(prior, np.ndarray) and prior.dtype != object:
        prior = [Fraction(float(v)) for v in prior.ravel().tolist()]
    return read_prior_values(prior, n, what or f"the channel has {n} secrets (rows)")


def matmul(A: Matrix, B: Matrix) -> Matrix:
    """The exact product A·B (sparse in zeros of A).

    >>> h = Fraction(1, 2)
    >>> matmul(((h, h),), ((1, 0), (0, 1)))
    ((Fraction(1, 2), Fraction(1, 2)),)
    """
    if len(A[0]) != len(B):
        raise InvalidChannel(
            f"cannot compose: the first matrix has {len(A[0])} columns, the second {len(B)} rows."
        )
    m = len(B[0])
    out = []
    for row in A:
        acc = [Fraction(0)] * m
        for a, brow in zip(row, B):
            if a:
                for k, b in enumerate(brow):
                    if b:
                        acc[k] += a * b
        out.append(tuple(acc))
    return tuple(out)


def channel_to_float(C: Matrix) -> np.ndarray:
    """Float64 copy of an exact matrix (uncertified; for plotting and float cross-checks)."""
    return np.array([[float(v) for v in r] for r in C], dtype=float)
