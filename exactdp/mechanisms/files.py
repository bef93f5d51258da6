"""Load the mechanism you deploy, exactly: numpy arrays, CSV, NPY and JSON files.

A deployed mechanism is usually a float matrix. Every binary float is an exact dyadic
rational m·2^e, and that exact value is what the deployed code holds: :func:`from_numpy`
reads each entry as its exact binary value (one aggregated
:class:`~exactdp.errors.InexactInputWarning` for the whole matrix, never one per entry).

Rows of a float matrix rarely sum to exactly 1. What to certify is then an explicit choice
(``rows=``), never a silent change of the mechanism:

``rows="exact"`` (default)
    The exact binary values must sum to exactly 1 in every row; otherwise
    :class:`~exactdp.errors.InvalidMechanism` reports the row with the largest defect, the
    exact defect Σ_z h[y, z] − 1, how many rows miss, and the two other policies.
``rows="normalize"``
    Certify the exactly normalised matrix h[y, z] / Σ_z h[y, z] (exact rationals; the
    distribution of a sampler that draws from the row's cumulative sums scaled by their
    total, up to that sampler's own rounding). The exact defects are kept in the report.
``rows="as-is"``
    Certify the exact loaded entries as a nonnegative matrix whose rows need not sum to 1.
    Its privacy level is the least ε with h[y, z] ≤ e^{ε·d(y, y')}·h[y', z] for the entries
    *as loaded*; utility and leakage refuse it (they need probabilities).

Every load returns a :class:`LoadedMechanism`: the :class:`Mechanism` and a
:class:`RowSumReport` (the exact row-sum defects of the matrix as given).

Examples
--------
>>> import numpy as np, warnings
>>> from exactdp.spaces.metrics import line
>>> from exactdp.mechanisms.privacy import privacy_level
>>> A = np.array([[0.75, 0.25], [0.25, 0.75]])
>>> loaded = from_numpy(A)                      # 0.75 and 0.25 are exact binary values
>>> privacy_level(loaded.mechanism, line(2)).value
log(3)
>>> B = np.array([[0.7, 0.3], [0.3, 0.7]])      # 0.7 + 0.3 is not exactly 1 in binary
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     from_numpy(B)
Traceback (most recent call last):
...
exactdp.errors.InvalidMechanism: array: row 0 sums to 1 - 1/18014398509481984 ...
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     loaded = from_numpy(B, rows="normalize")
>>> loaded.rows.max_defect
Fraction(-1, 18014398509481984)
>>> loaded.mechanism.row_sums()
(Fraction(1, 1), Fraction(1, 1))
"""

from __future__ import annotations

import csv
import json
import math
import os
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import flint
import numpy as np

from exactdp.arithmetic.rationals import (
    MAX_DECIMAL_EXPONENT,
    binary_float_to_fraction,
    decimal_exponent_too_large,
    float_row_sums_exact,
    floats_to_fmpq,
    fmpq_to_fraction,
    to_fmpq,
    to_fraction,
    unlimited_int_digits,
)
from exactdp.errors import InexactInputWarning, InvalidArgument, InvalidMechanism
from exactdp.mechanisms.level_compare import approx_decimal
from exactdp.mechanisms.mechanism import ROW_POLICIES, Mechanism, MechanismKind

__all__ = [
    "RowSumReport",
    "LoadedMechanism",
    "from_numpy",
    "from_csv",
    "from_npy",
    "from_json",
    "load_mechanism",
    "to_csv",
    "MECHANISM_FILE_TYPES",
]

#: File extensions :func:`load_mechanism` reads.
MECHANISM_FILE_TYPES = (".csv", ".npy", ".json")


@dataclass(frozen=True)
class RowSumReport:
    """The exact row sums of a matrix as loaded, and the policy applied to them.

    Attributes
    ----------
    policy : str
        "exact", "normalize" or "as-is".
    defects : tuple[Fraction, ...]
        Σ_z h[y, z] − 1 for each row of the matrix *as given* (exact).
    """

    policy: str
    defects: tuple[Fraction, ...]

    @property
    def rows_off(self) -> int:
        """How many rows do not sum to exactly 1 as given."""
        return sum(1 for d in self.defects if d != 0)

    @property
    def max_defect(self) -> Fraction:
        """The defect of largest absolute value (0 when every row sums to 1)."""
        return max(self.defects, key=abs, default=Fraction(0))

    def max_defect_text(self) -> str:
        """The largest defect for messages: exact when short, else a 3-digit decimal of any
        size (a defect of 10⁻⁴⁰⁰ is not printed as 0).

        >>> RowSumReport("as-is", (Fraction(1, 10**400),)).max_defect_text()
        '1.00e-400 (exact: .max_defect)'
        >>> RowSumReport("as-is", (Fraction(-1, 8),)).max_defect_text()
        '-1/8'
        """
        d = self.max_defect
        text = str(d)
        if len(text) <= 40:
            return text
        return f"{'-' if d < 0 else ''}{approx_decimal(abs(d))} (exact: .max_defect)"

    def to_json(self) -> dict[str, Any]:
        """Exact JSON: the policy, the count of rows off and the largest defect ("p/q")."""
        return {"policy": self.policy, "rows_off": self.rows_off,
                "max_defect": str(self.max_defect)}


@dataclass(frozen=True)
class LoadedMechanism:
    """A loaded mechanism and the report of how its rows were read.

    ``mechanism`` is what every question takes; ``rows`` is the exact row-sum report.
    """

    mechanism: Mechanism
    rows: RowSumReport
    source: str


def _check_policy(rows: str | None) -> str:
    """The policy to use ("exact" when not given), after checking it."""
    if rows is None:
        return "exact"
    if rows not in ROW_POLICIES:
        raise InvalidArgument(
            f"Got rows={rows!r}; choose 'exact' (rows must sum to 1 exactly), 'normalize' "
            "(certify the exactly normalised matrix) or 'as-is' (certify the entries as loaded)."
        )
    return rows


def _float_entries(a: np.ndarray, where: str) -> np.ndarray:
    """The float64 array itself (its exact binary values are the entries), validated (finite,
    ≥ 0), with one summary warning. No ``fmpq`` is formed here: a float-backed
    :class:`Mechanism` builds exact entries only where a question needs them."""
    bad = ~np.isfinite(a)
    if bad.any():
        i, j = (int(x) for x in np.argwhere(bad)[0])
        raise InvalidMechanism(
            f"{where}: entry [{i}][{j}] = {float(a[i, j])!r} is not a finite number; every entry "
            "must be a probability."
        )
    neg = a < 0
    if neg.any():
        i, j = (int(x) for x in np.argwhere(neg)[0])
        raise InvalidMechanism(
            f"{where}: entry [{i}][{j}] = {float(a[i, j])!r} is negative; probabilities are ≥ 0."
        )
    out = np.array(a, dtype=np.float64)
    flat = out.ravel()
    hit = _first_long_decimal(flat)  # the first entry that is not a short decimal
    example = None if hit is None else (hit, float(flat[hit]))
    if example is not None:
        k, x = example
        i, j = divmod(k, a.shape[1])
        warnings.warn(
            f"{where}: the {a.size} entries are binary floats and are read as their exact "
            f"binary values (e.g. entry [{i}][{j}] = {x!r} is exactly {Fraction(x)}); this is "
            "the mechanism the float matrix deploys. Pass exact strings or Fractions to "
            "certify decimal values instead.",
            InexactInputWarning, stacklevel=3,
        )
    return out


def _check_finite_nonneg(a: np.ndarray, where: str) -> None:
    bad = ~np.isfinite(a) | (a < 0)
    if bad.any():
        i, j = (int(x) for x in np.argwhere(bad)[0])
        raise InvalidMechanism(
            f"{where}: entry [{i}][{j}] = {a[i, j]!r} is not a finite number ≥ 0; every entry "
            "must be a probability.")


def _wide_float_entries(a: np.ndarray, where: str) -> np.ndarray:
    """A longdouble / float128 matrix read EXACTLY (its binary values do not fit float64):
    exact rationals, never rounded to float64."""
    _check_finite_nonneg(a, where)
    out = np.empty(a.shape, dtype=object)
    for idx, x in np.ndenumerate(a):
        out[idx] = to_fmpq(binary_float_to_fraction(x))
    warnings.warn(
        f"{where}: the {a.size} entries are {a.dtype} binary floats and are read as their "
        "exact binary values (exact rationals; no rounding to float64).",
        InexactInputWarning, stacklevel=3)
    return out


def _first_long_decimal(flat: np.ndarray) -> int | None:
    """Index of the first float whose shortest repr is not its exact value (None: all are).

    x = m·2^e with m odd has an exact decimal expansion of about D = log10(m) + |e|·log10(5)
    (e < 0; at most that when e ≥ 0) significant digits; D ≤ 14 means the exact expansion is
    the shortest round-trip repr, D ≥ 18 with e < 0 means it cannot be (repr has ≤ 17
    digits). Only the other entries are compared exactly (vectorised scan)."""
    mant, ex = np.frexp(flat)
    M = np.ldexp(mant, 53).astype(np.int64)
    nz = M != 0
    Mn = np.where(nz, M, 1)
    low = Mn & -Mn
    tz = np.log2(low.astype(np.float64)).astype(np.int64)
    m = Mn >> tz
    e = ex.astype(np.int64) - 53 + tz
    D = np.log10(m.astype(np.float64)) + np.where(e < 0, -e * np.log10(5.0), e * np.log10(2.0))
    D = np.where(nz, D, 0.0)
    long_ = (D >= 18.0) & (e < 0)  # integers (e ≥ 0) may end in zeros: compared exactly
    for k in np.nonzero((D > 14.0) & ~long_)[0].tolist():
        x = float(flat[k])
        if Fraction(repr(x)) != Fraction(x):
            long_[k] = True
    hits = np.nonzero(long_)[0]
    return int(hits[0]) if len(hits) else None


def _exact_object_entries(a: np.ndarray, where: str) -> np.ndarray:
    with unlimited_int_digits():  # exact "p/q" strings of any size (e.g. 1/10^5000)
        return _exact_object_loop(a, where)


def _exact_object_loop(a: np.ndarray, where: str) -> np.ndarray:
    out = np.empty(a.shape, dtype=object)
    for (i, j), v in np.ndenumerate(a):
        if isinstance(v, float) or isinstance(v, np.floating):
            raise InvalidMechanism(
                f"{where}: entry [{i}][{j}] = {v!r} is a float inside an object array; pass a "
                "float array (read exactly) or exact values (Fractions, 'p/q' strings)."
            )
        try:
            f = to_fraction(v, f"entry [{i}][{j}]")
        except InvalidArgument as exc:
            raise InvalidMechanism(f"{where}: {exc}") from exc
        if f < 0:
            raise InvalidMechanism(
                f"{where}: entry [{i}][{j}] = {f} is negative; probabilities are ≥ 0.")
        out[i, j] = to_fmpq(f)
    return out


def _apply_policy(
    ents: np.ndarray, rows: str, where: str, inputs: Sequence[Any] | None,
    outputs: Sequence[Any] | None, name: str,
) -> LoadedMechanism:
    if ents.dtype == np.float64:  # exact dyadic entries: an integer superaccumulator
        sums_q = float_row_sums_exact(ents)
        sums = [to_fmpq(x) for x in sums_q]
        defects = tuple(x - 1 for x in sums_q)
    else:
        sums = [sum(r.tolist(), flint.fmpq(0)) for r in ents]
        defects = tuple(fmpq_to_fraction(s - 1) for s in sums)
    report = RowSumReport(rows, defects)
    for i, s in enumerate(sums):
        if s == 0:
            raise InvalidMechanism(
                f"{where}: row {i} is all zeros; a row must be a probability distribution.")
    if rows == "exact" and report.rows_off:
        i = max(range(len(defects)), key=lambda k: abs(defects[k]))
        d = defects[i]
        sign = "+" if d > 0 else "-"
        raise InvalidMechanism(
            f"{where}: row {i} sums to 1 {sign} {abs(d)} (≈ 1 {sign} {float(abs(d)):.3g}; "
            f"{report.rows_off} of {len(defects)} rows do not sum to exactly 1). Pass "
            "rows='normalize' to certify the exactly normalised matrix, or rows='as-is' to "
            "certify the entries as loaded (a matrix whose rows need not sum to 1)."
        )
    if rows == "normalize":  # normalised entries are not floats: exact rationals
        if ents.dtype == np.float64:
            obj = np.empty(ents.size, dtype=object)
            obj[:] = floats_to_fmpq(ents.ravel().tolist())
            ents = obj.reshape(ents.shape)
        ents = np.array([[v / s for v in r.tolist()] for r, s in zip(ents, sums)], dtype=object)
    mech = Mechanism(ents, kind=MechanismKind.EXACT, inputs=inputs, outputs=outputs, name=name,
                     row_policy=rows, _validated=True)
    return LoadedMechanism(mech, report, where)


def from_numpy(
    array: Any, *, rows: str | None = None, inputs: Sequence[Any] | None = None,
    outputs: Sequence[Any] | None = None, name: str = "matrix", where: str = "array",
) -> LoadedMechanism:
    """The mechanism a numpy matrix deploys, read exactly (floats as exact binary values).

    Parameters
    ----------
    array : array_like
        A 2-D float or integer array (or an object array of exact values).
    rows : {"exact", "normalize", "as-is"}
        What to do when rows do not sum to exactly 1 (module docstring).
    inputs, outputs : sequence, optional
        Labels of the rows (usually ``metric.points``) and columns.
    name : str
        The mechanism's name.

    Returns
    -------
    LoadedMechanism

    Examples
    --------
    >>> import numpy as np
    >>> from_numpy(np.array([[1, 0], [0, 1]])).mechanism.entry(0, 0)
    Fraction(1, 1)
    >>> from_numpy(np.array([[0.5, float("nan")]]))
    Traceback (most recent call last):
    ...
    exactdp.errors.InvalidMechanism: array: entry [0][1] = nan is not a finite number; ...
    """
    rows = _check_policy(rows)
    if isinstance(array, Mechanism):
        raise InvalidArgument("Got a Mechanism; from_numpy takes a matrix (array) of entries.")
    try:
        a = np.asarray(array)
    except ValueError as exc:  # ragged nested lists
        raise InvalidMechanism(f"{where}: not a rectangular matrix ({exc}).") from None
    if a.ndim != 2 or a.shape[0] == 0 or a.shape[1] == 0:
        raise InvalidMechanism(
            f"{where}: a mechanism needs a non-empty 2-D matrix; got shape {a.shape}.")
    for labels, count, what in ((inputs, a.shape[0], "rows"), (outputs, a.shape[1], "columns")):
        if labels is not None and len(labels) != count:
            raise InvalidMechanism(
                f"{where}: the matrix has {count} {what} but {len(labels)} labels were given "
                f"for them (e.g. the metric's points); the shapes must agree.")
    if a.dtype.kind == "f" and a.dtype.itemsize > 8:
        ents = _wide_float_entries(a, where)
    elif a.dtype.kind == "f":
        ents = _float_entries(a, where)
    elif a.dtype.kind in "iub":
        if a.dtype.kind == "b":
            raise InvalidMechanism(f"{where}: got a boolean array; pass probabilities.")
        if (a < 0).any():
            i, j = (int(x) for x in np.argwhere(a < 0)[0])
            raise InvalidMechanism(
                f"{where}: entry [{i}][{j}] = {a[i, j]} is negative; probabilities are ≥ 0.")
        ents = np.empty(a.shape, dtype=object)
        ents[:] = [[to_fmpq(int(v)) for v in r] for r in a.tolist()]
    elif a.dtype.kind == "O":
        ents = _exact_object_entries(a, where)
    else:
        raise InvalidMechanism(
            f"{where}: entries of dtype {a.dtype} are not numbers; pass floats, integers or "
            "exact values.")
    return _apply_policy(ents, rows, where, inputs, outputs, name)


#: a plain decimal: sign, integer digits, fraction digits, exponent
_DECIMAL = re.compile(r"^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$")


def _read_cell(text: str, where: str, i: int, j: int, exact: bool = False) -> Any:
    """One CSV cell: a Fraction ("p/q"; any decimal when ``exact``) or the float of a decimal.

    A nonzero decimal whose float is 0 (``1e-400``) is refused, naming the cell: a float
    reader would deploy 0, and the file says otherwise; ``decimals="exact"`` reads it exactly.
    """
    t = text.strip()
    if not t:
        raise InvalidMechanism(f"{where}: row {i}, column {j} is empty; every cell needs a number.")
    if "/" in t:
        try:
            return Fraction(t)
        except (ValueError, ZeroDivisionError):
            raise InvalidMechanism(
                f"{where}: row {i}, column {j}: {t!r} is not a number (write 0.25, 1/4 or "
                "2.5e-1).") from None
    try:
        x = float(t)
    except ValueError:
        raise InvalidMechanism(
            f"{where}: row {i}, column {j}: {t!r} is not a number (write 0.25, 1/4 or "
            "2.5e-1).") from None
    if not math.isfinite(x):
        raise InvalidMechanism(
            f"{where}: row {i}, column {j}: {t!r} is not a finite number.")
    m = _DECIMAL.match(t)
    if m is None:  # float() accepts more (e.g. "1_0"); the exact reader does not
        raise InvalidMechanism(
            f"{where}: row {i}, column {j}: {t!r} is not a plain decimal (write 0.25, 1/4 "
            "or 2.5e-1).")
    sign, whole, frac, expo = m.group(1), m.group(2) or "", m.group(3) or "", m.group(4)
    nonzero = any(c != "0" for c in whole + frac)  # decided on the digits: no 10^|e| built
    if nonzero and sign == "-":
        raise InvalidMechanism(
            f"{where}: entry [{i}][{j}] = {t} is negative; probabilities are ≥ 0.")
    if expo is not None and decimal_exponent_too_large(t):
        if not nonzero:
            return Fraction(0) if exact else 0.0
        if exact:
            shown = t if len(t) <= 40 else t[:40] + "…"
            raise InvalidMechanism(
                f"{where}: row {i}, column {j}: {shown} has a decimal exponent beyond "
                f"±{MAX_DECIMAL_EXPONENT} (reading it exactly would build 10^|exponent|); "
                "write the entry as a fraction p/q, or read decimals as floats.")
    if exact:
        return Fraction(t)
    if x == 0 and nonzero:
        raise InvalidMechanism(
            f"{where}: row {i}, column {j}: {t} underflows to 0 as a binary float (a program "
            "reading this file deploys 0, not the value written); read decimals exactly "
            "(decimals='exact', CLI --decimals exact) to certify it, or write 0.")
    return x


def from_csv(
    path: str | os.PathLike[str], *, rows: str | None = None, decimals: str = "float",
    inputs: Sequence[Any] | None = None, outputs: Sequence[Any] | None = None,
    name: str | None = None,
) -> LoadedMechanism:
    """A mechanism from a CSV file of numbers (one row per input, no header).

    Cells are decimals (``0.25``, ``2.5e-1``) or exact fractions (``1/4``).
    ``decimals="float"`` (default) reads a decimal as the binary float a program reading
    this file deploys (the exact dyadic value of ``float(text)``); ``decimals="exact"`` reads
    it as the exact decimal (``0.1`` = 1/10). Errors name the file, row and column.
    """
    rows = _check_policy(rows)
    if decimals not in ("float", "exact"):
        raise InvalidArgument(f"Got decimals={decimals!r}; choose 'float' or 'exact'.")
    where = os.fspath(path)
    try:
        with open(where, encoding="utf-8", newline="") as fh:
            table = [r for r in csv.reader(fh) if r and any(c.strip() for c in r)]
    except (UnicodeDecodeError, csv.Error) as exc:
        raise InvalidMechanism(f"{where}: not a text CSV file ({exc}).") from None
    if not table:
        raise InvalidMechanism(f"{where}: the file has no rows.")
    width = len(table[0])
    for i, r in enumerate(table):
        if len(r) != width:
            raise InvalidMechanism(
                f"{where}: row {i} has {len(r)} columns, row 0 has {width}; a mechanism is a "
                "rectangular matrix.")
    with unlimited_int_digits():  # exact fractions of any size (e.g. 1/10^5000)
        cells = [[_read_cell(c, where, i, j, decimals == "exact") for j, c in enumerate(r)]
                 for i, r in enumerate(table)]
    if decimals == "exact":
        return from_numpy(np.array(cells, dtype=object), rows=rows, inputs=inputs,
                          outputs=outputs, name=name or where, where=where)
    if all(isinstance(c, float) for r in cells for c in r):
        arr: np.ndarray = np.array(cells, dtype=np.float64)
    else:  # some exact fractions: floats become their exact binary values
        arr = np.empty((len(cells), width), dtype=object)
        for i, r in enumerate(cells):
            for j, c in enumerate(r):
                arr[i, j] = Fraction(c)
        if any(isinstance(c, float) for r in cells for c in r):
            warnings.warn(f"{where}: decimal cells are read as exact binary floats.",
                          InexactInputWarning, stacklevel=2)
    return from_numpy(arr, rows=rows, inputs=inputs, outputs=outputs, name=name or where,
                      where=where)


def from_npy(
    path: str | os.PathLike[str], *, rows: str | None = None, inputs: Sequence[Any] | None = None,
    outputs: Sequence[Any] | None = None, name: str | None = None,
) -> LoadedMechanism:
    """A mechanism from a ``.npy`` file (numpy's own format; pickled objects are refused)."""
    where = os.fspath(path)
    try:
        a = np.load(where, allow_pickle=False)
    except ValueError as exc:
        raise InvalidMechanism(f"{where}: not a numeric .npy matrix ({exc}).") from None
    return from_numpy(a, rows=rows, inputs=inputs, outputs=outputs, name=name or where,
                      where=where)


def from_json(
    source: Any, *, rows: str | None = None, inputs: Sequence[Any] | None = None,
    outputs: Sequence[Any] | None = None, name: str | None = None,
) -> LoadedMechanism:
    """A mechanism from JSON: a list of rows, or ``{"rows": [...]}`` (``Mechanism.to_json``).

    ``source`` is a path or an already-parsed document. Entries are exact ``"p/q"`` strings
    or integers; JSON decimals are refused (a JSON float is not exact: write "1/4" or use CSV).
    ``rows`` unset uses the document's ``row_policy`` (else "exact"); an explicit ``rows`` that
    contradicts the document's ``row_policy`` is an error, never silently overridden.
    """
    where = "JSON document"
    doc = source
    if isinstance(source, (str, os.PathLike)):
        where = os.fspath(source)
        try:
            with open(where, encoding="utf-8") as fh:
                text = fh.read()
        except UnicodeDecodeError as exc:
            raise InvalidMechanism(f"{where}: not a UTF-8 JSON file ({exc}).") from None
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidMechanism(
                f"{where}: not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); a "
                "JSON mechanism is a list of rows of 'p/q' strings, or use a .csv file."
            ) from None
    if isinstance(doc, dict):
        if "rows" not in doc:
            raise InvalidMechanism(
                f"{where}: a JSON object needs a 'rows' key (as Mechanism.to_json() writes); "
                f"got keys {sorted(doc)}.")
        if doc.get("kind", "exact") != "exact":
            raise InvalidMechanism(f"{where}: only exact mechanisms load from JSON; got "
                                   f"kind {doc.get('kind')!r}.")
        stated = doc.get("row_policy")
        if stated is not None and rows is not None and stated != rows:
            raise InvalidArgument(
                f"{where}: the document states row_policy={stated!r} but rows={rows!r} was "
                f"asked for; pass rows={stated!r} (or leave rows unset to use the document's), "
                "or remove row_policy from the file.")
        rows = stated if rows is None else rows
        name = name or doc.get("name")
        doc = doc["rows"]
    if not isinstance(doc, list) or not doc or not all(isinstance(r, list) for r in doc):
        raise InvalidMechanism(
            f"{where}: expected a list of rows, e.g. [[\"1/2\", \"1/2\"], [\"1/4\", \"3/4\"]]; "
            f"got {type(doc).__name__}.")
    width = len(doc[0])
    for i, r in enumerate(doc):
        if len(r) != width:
            raise InvalidMechanism(
                f"{where}: row {i} has {len(r)} entries, row 0 has {width}; a mechanism is a "
                "rectangular matrix.")
        for j, v in enumerate(r):
            if isinstance(v, float) or isinstance(v, bool) or not isinstance(v, (int, str)):
                raise InvalidMechanism(
                    f"{where}: row {i}, column {j} is {v!r}; write exact entries as 'p/q' "
                    "strings or integers.")
    arr = np.empty((len(doc), width), dtype=object)
    for i, r in enumerate(doc):
        for j, v in enumerate(r):
            arr[i, j] = v
    return from_numpy(arr, rows=rows, inputs=inputs, outputs=outputs, name=name or where,
                      where=where)


def load_mechanism(
    path: str | os.PathLike[str], *, rows: str | None = None, **kwargs: Any
) -> LoadedMechanism:
    """Load a mechanism file by its extension: ``.csv``, ``.npy`` or ``.json`` (``rows`` unset:
    a JSON document's own ``row_policy``, else "exact")."""
    where = os.fspath(path)
    ext = os.path.splitext(where)[1].lower()
    if ext == ".csv":
        return from_csv(where, rows=rows, **kwargs)
    if ext == ".npy":
        return from_npy(where, rows=rows, **kwargs)
    if ext == ".json":
        return from_json(where, rows=rows, **kwargs)
    raise InvalidMechanism(
        f"{where}: unknown mechanism file type {ext or '(none)'!r}; use one of "
        f"{', '.join(MECHANISM_FILE_TYPES)}.")


def to_csv(mechanism: Mechanism, path: str | os.PathLike[str]) -> None:
    """Write an exact mechanism as CSV of exact fractions (``from_csv`` reads it back)."""
    rows = mechanism.rows_fraction()
    with open(os.fspath(path), "w", encoding="utf-8", newline="") as fh, \
            unlimited_int_digits():  # exact entries of any size (e.g. 10^-5000)
        w = csv.writer(fh)
        for r in rows:
            w.writerow([str(v) for v in r])

