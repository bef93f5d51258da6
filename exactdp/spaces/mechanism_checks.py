"""Validation of a mechanism's entries (probabilities, rows that are distributions) and
their exact encoding (pickling, equality).

Used by :class:`~exactdp.spaces.mechanism.Mechanism` when it is built (exact ``fmpq`` entries,
certified ``arb`` balls or binary floats). Objects layer: imports only
:mod:`exactdp.arithmetic` and :mod:`exactdp.errors`.

>>> import flint
>>> validate_objects(np.array([[flint.fmpq(1, 2), flint.fmpq(1, 3)]]), True, "exact")
Traceback (most recent call last):
...
exactdp.errors.InvalidMechanism: row 0 sums to 5/6, not 1 (each row of a mechanism is a ...
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import flint
import numpy as np
from flint import arb

from exactdp.arithmetic.ball import ball_from_key, ball_key
from exactdp.arithmetic.rationals import float_row_sums_exact, fmpq_to_fraction
from exactdp.errors import InvalidMechanism

__all__ = ["entries_from_state", "entries_key", "entries_state", "validate_floats",
           "validate_objects"]


def validate_floats(F: np.ndarray, row_policy: str) -> None:
    """Raise :class:`InvalidMechanism` unless the binary floats F are a valid matrix: finite,
    ≥ 0, no all-zero row, rows summing exactly to 1 unless ``row_policy="as-is"``."""
    bad = ~np.isfinite(F) | (F < 0)
    if bad.any():
        i, j = (int(x) for x in np.argwhere(bad)[0])
        raise InvalidMechanism(
            f"entry [{i}][{j}] = {float(F[i, j])!r} is not a finite number ≥ 0; entries "
            "are probabilities.")
    for i, total in enumerate(float_row_sums_exact(F)):
        if total == 0:
            raise InvalidMechanism(
                f"row {i} is all zeros; even an 'as-is' matrix needs a positive mass in "
                "every row.")
        if row_policy != "as-is" and total != 1:
            raise InvalidMechanism(
                f"row {i} sums to {total}, not 1 (each row of a mechanism is a "
                f"probability distribution over the outputs).")


def validate_objects(arr: np.ndarray, exact: bool, row_policy: str) -> None:
    """Raise :class:`InvalidMechanism` unless ``arr`` is a valid matrix: exact ``fmpq``
    entries ≥ 0 with rows summing to exactly 1 (``exact``), or finite balls not certainly
    negative whose row sums contain 1; ``row_policy="as-is"`` only needs a positive row."""
    if exact:
        for (i, j), v in np.ndenumerate(arr):
            if not isinstance(v, flint.fmpq):
                raise InvalidMechanism(f"entry [{i}][{j}] = {v!r} is not an exact rational.")
            if v < 0:
                raise InvalidMechanism(
                    f"entry [{i}][{j}] = {v} is negative; probabilities are ≥ 0."
                )
        for i in range(arr.shape[0]):
            total = sum(arr[i].tolist(), flint.fmpq(0))
            if row_policy == "as-is":
                if total == 0:
                    raise InvalidMechanism(
                        f"row {i} is all zeros; even an 'as-is' matrix needs a positive "
                        "mass in every row."
                    )
                continue
            if total != 1:
                raise InvalidMechanism(
                    f"row {i} sums to {total}, not 1 (each row of a mechanism is a "
                    f"probability distribution over the outputs)."
                )
        return
    for (i, j), v in np.ndenumerate(arr):
        if not isinstance(v, arb) or not v.is_finite():
            raise InvalidMechanism(f"entry [{i}][{j}] = {v!r} is not a finite ball.")
        if v < 0:
            raise InvalidMechanism(
                f"entry [{i}][{j}] = {v} is certainly negative; probabilities are ≥ 0."
            )
    for i in range(arr.shape[0]):
        total = arb(0)
        for v in arr[i]:
            total += v
        if not total.contains(1):
            raise InvalidMechanism(
                f"row {i} sums to {total}, a ball that excludes 1: not row-stochastic."
            )


def entries_state(arr: np.ndarray) -> dict[str, Any]:
    """The entries, exactly, in picklable form: float64 bytes, rationals as integer pairs,
    or balls as exact (midpoint, radius) keys (:func:`~exactdp.arithmetic.ball.ball_key`).

    >>> entries_from_state(entries_state(np.array([[0.5, 0.5]])))[0, 1]
    np.float64(0.5)
    """
    if arr.dtype == np.float64:
        return {"floats": (arr.tobytes(), arr.shape)}
    if all(isinstance(v, flint.fmpq) for v in arr.flat):
        return {"rationals": [[(int(v.p), int(v.q)) for v in row] for row in arr]}
    return {"balls": [[ball_key(v) for v in row] for row in arr]}


def entries_from_state(state: dict[str, Any]) -> np.ndarray:
    """The array :func:`entries_state` encoded (float64, or objects ``fmpq`` / ``arb``)."""
    if "floats" in state:
        data, shape = state["floats"]
        return np.frombuffer(bytes(data), dtype=np.float64).reshape(shape)
    if "rationals" in state:
        return np.array([[flint.fmpq(p, q) for p, q in row] for row in state["rationals"]],
                        dtype=object)
    return np.array([[ball_from_key(k) for k in row] for row in state["balls"]], dtype=object)


def entries_key(arr: np.ndarray) -> list[list[Any]]:
    """A value for equality: exact values (floats and rationals alike as Fractions) or the
    exact (midpoint, radius) of each ball — the same ball, not merely an overlapping one."""
    if arr.dtype == np.float64:
        return [[Fraction(v) for v in row] for row in arr.tolist()]
    return [[fmpq_to_fraction(v) if isinstance(v, flint.fmpq) else ball_key(v) for v in row]
            for row in arr]
