"""The Mechanism type: a row-stochastic matrix from a metric's points to outputs, exact or certified.

A :class:`Mechanism` holds its entries in one of two arithmetics, never mixed; its
:class:`MechanismKind` says which:

* ``MechanismKind.EXACT`` — every entry is an exact rational (``flint.fmpq``), validated
  exactly: nonnegative, each row sums to exactly 1;
* ``MechanismKind.CERTIFIED`` — every entry is a ball (``flint.arb``) that provably contains
  the true probability; validated by ball arithmetic (no entry certainly negative, each
  row's sum ball contains 1). The precision used is recorded in ``precision``.

A mechanism may carry the exact structure of its entries
(:class:`~exactdp.spaces.mechanism_forms.MonomialForm`,
:class:`~exactdp.spaces.mechanism_forms.RowNormalizedForm`,
:class:`~exactdp.spaces.mechanism_forms.TightForm`, …), which keeps its privacy level exact
even when the entries are only certified balls (monomial h = c_z·s^E: ratios do not depend
on c_z). Exact entries are checked against their form value by value; balls only when they
were computed from the form by :meth:`Mechanism.from_form` (balls cannot tell forms apart).
A mechanism is immutable (every array read-only for good), compares by value, and pickles.

Objects layer (imports only :mod:`exactdp.arithmetic`, :mod:`exactdp.errors`,
:mod:`exactdp.spaces`); :mod:`exactdp.mechanisms.mechanism` re-exports it.
"""

from __future__ import annotations

import enum
import operator
import pickle
from collections.abc import Iterator, Mapping, Sequence
from fractions import Fraction
from types import MappingProxyType
from typing import Any

import flint
import numpy as np
import sympy
from flint import arb

from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rationals import (
    float_row_sums_exact,
    floats_to_fmpq,
    fmpq_to_float,
    fmpq_to_fraction,
    unlimited_int_digits,
)
from exactdp.errors import EntryOutOfRange, InvalidArgument, InvalidMechanism
from exactdp.spaces.mechanism_checks import (
    entries_from_state,
    entries_key,
    entries_state,
    validate_floats,
    validate_objects,
)
from exactdp.spaces.mechanism_forms import (
    CERTIFIED_PREC,
    MergedMonomialForm,
    MonomialForm,
    RowNormalizedForm,
    form_values,
    frozen_array,
)

__all__ = [
    "ROW_POLICIES",
    "Mechanism",
    "MechanismKind",
]

#: How the rows of a loaded matrix are read (see :mod:`exactdp.mechanisms.files`).
ROW_POLICIES = ("exact", "normalize", "as-is")

#: held only by :meth:`Mechanism.from_form`: a mechanism built with it has the entries that
#: its form defines, computed here from the form (never balls handed in by a caller)
_SEAL = object()


class MechanismKind(enum.StrEnum):
    """The arithmetic a mechanism's entries live in (the value is the JSON ``kind`` string)."""

    EXACT = "exact"
    CERTIFIED = "certified"


class Mechanism:
    """A validated row-stochastic matrix H (inputs × outputs), exact or certified.

    Build one with :func:`~exactdp.mechanisms.constructors.from_rows`,
    :func:`~exactdp.mechanisms.constructors.from_balls` or a named constructor;
    the instance is immutable.

    *Float-backed exact mechanisms.* An exact mechanism may be given as a ``float64`` array
    (what :func:`~exactdp.mechanisms.files.from_numpy` does for ``rows="exact"`` and
    ``"as-is"``): every binary float *is* an exact dyadic rational, so the array is the
    exact matrix. The ``fmpq`` entries are then built only on demand
    (:meth:`entries_object`); the privacy level reads the floats directly and forms exact
    rationals only for the few candidates of its float filter, and row sums are exact integer
    superaccumulations (:func:`~exactdp.arithmetic.rationals.float_row_sums_exact`).
    :attr:`binary_floats` is that array (None otherwise).

    Examples
    --------
    >>> from exactdp.mechanisms.constructors import from_rows
    >>> H = from_rows([[1, 0], ["1/3", "2/3"]])
    >>> H.kind, H.shape, H.entry(1, 1)
    (<MechanismKind.EXACT: 'exact'>, (2, 2), Fraction(2, 3))
    >>> from_rows([[1, 0], ["1/2", "1/3"]])
    Traceback (most recent call last):
    ...
    exactdp.errors.InvalidMechanism: row 1 sums to 5/6, not 1 (each row of a mechanism is ...
    """

    def __init__(
        self,
        entries: np.ndarray,
        *,
        kind: MechanismKind | str,
        inputs: Sequence[Any] | None = None,
        outputs: Sequence[Any] | None = None,
        name: str = "mechanism",
        monomial: MonomialForm | None = None,
        row_normalized: RowNormalizedForm | None = None,
        precision: int | None = None,
        parameters: Mapping[str, Any] | None = None,
        row_policy: str = "exact",
        structure: Any = None,
        _validated: bool = False,
        _seal: object = None,
    ) -> None:
        try:
            kind = MechanismKind(kind)
        except ValueError:
            raise InvalidArgument(f"Got kind={kind!r}; use 'exact' or 'certified'.") from None
        floats: np.ndarray | None = None
        if (isinstance(entries, np.ndarray) and entries.dtype == np.float64
                and kind is MechanismKind.EXACT and entries.ndim == 2):
            # a private immutable copy (bytes): no caller can re-flag it writeable
            floats = frozen_array(entries, np.float64)
            arr = floats
        else:
            arr = np.array(entries, dtype=object)  # our own array: the caller keeps none
        if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
            raise InvalidMechanism(
                f"A mechanism needs a non-empty 2-D matrix; got shape {arr.shape}."
            )
        if floats is None:
            arr.setflags(write=False)
        self._floats = floats
        self._objects: np.ndarray | None = None if floats is not None else arr
        self._shape = (int(arr.shape[0]), int(arr.shape[1]))
        self.kind: MechanismKind = kind
        self.name = name
        self.monomial = monomial
        self.row_normalized = row_normalized
        #: further exact structure (:mod:`exactdp.mechanisms.structure`: ``TightForm``,
        #: ``MergedMonomialForm``) that keeps the privacy level exact; None when absent
        self.structure = structure
        self.precision = precision
        #: free-form data of the construction (read-only); never used as a proof
        self.parameters: Mapping[str, Any] = MappingProxyType(dict(parameters or {}))
        self._form_sealed = _seal is _SEAL
        if row_policy not in ROW_POLICIES:
            raise InvalidArgument(
                f"Got row_policy={row_policy!r}; choose one of {', '.join(ROW_POLICIES)}."
            )
        if row_policy == "as-is" and kind is not MechanismKind.EXACT:
            raise InvalidMechanism("row_policy='as-is' needs exact entries.")
        #: "exact" (rows sum to 1 as given), "normalize" (rows were divided by their exact
        #: sums when loaded) or "as-is" (a nonnegative matrix whose rows need not sum to 1)
        self.row_policy = row_policy
        n, m = arr.shape
        self.inputs = tuple(range(n)) if inputs is None else tuple(inputs)
        self.outputs = tuple(range(m)) if outputs is None else tuple(outputs)
        if len(self.inputs) != n:
            raise InvalidMechanism(f"Got {len(self.inputs)} input labels for {n} rows.")
        if len(self.outputs) != m:
            raise InvalidMechanism(f"Got {len(self.outputs)} output labels for {m} columns.")
        if not _validated:
            self._validate()
        self._sealed = True

    def __setattr__(self, key: str, value: Any) -> None:
        if getattr(self, "_sealed", False):
            raise InvalidArgument(
                f"cannot assign to {key!r}: a Mechanism is immutable (its structure is checked "
                "against its entries); build a new Mechanism instead.")
        object.__setattr__(self, key, value)

    @classmethod
    def from_form(cls, form: Any, *, inputs: Sequence[Any] | None = None,
                  outputs: Sequence[Any] | None = None, name: str = "mechanism",
                  parameters: Mapping[str, Any] | None = None,
                  precision: int = CERTIFIED_PREC) -> Mechanism:
        """The mechanism whose entries a structure form defines, computed here from the form.

        Exact ``fmpq`` entries when the form's values are rational, else balls at
        ``precision`` bits. Only a mechanism built this way has its form *in force* when its
        entries are balls (:attr:`form_sealed`): balls cannot tell two forms whose values
        differ below their radius apart, so a form attached to balls handed in by a caller
        (``Mechanism(balls, monomial=...)``) proves nothing and its level is read from the
        balls. Exact entries are always checked against their form, value by value.

        >>> import sympy
        >>> from exactdp.spaces.mechanism_forms import RowNormalizedForm
        >>> H = Mechanism.from_form(RowNormalizedForm(sympy.exp(-1), np.array([[0, 1], [1, 0]])))
        >>> H.kind, H.form_sealed, H.row_normalized.s
        (<MechanismKind.CERTIFIED: 'certified'>, True, exp(-1))
        """
        built = form_values(form, precision)
        if built is None:
            raise InvalidMechanism(
                f"Got form {type(form).__name__}; its hypotheses fail (a factor not certified "
                "≥ 0, or overlapping column groups), so it defines no mechanism.")
        arr, exact = built
        forms: dict[str, Any] = {}
        if isinstance(form, MonomialForm):
            forms["monomial"] = form
        elif isinstance(form, RowNormalizedForm):
            forms["row_normalized"] = form
        else:
            forms["structure"] = form
            if (isinstance(form, MergedMonomialForm)
                    and form.groups == tuple((z,) for z in range(form.base.exponents.shape[1]))):
                forms["monomial"] = form.base
        H = cls(arr, kind=MechanismKind.EXACT if exact else MechanismKind.CERTIFIED,
                inputs=inputs, outputs=outputs, name=name, parameters=parameters,
                precision=None if exact else precision, _seal=_SEAL, **forms)
        object.__setattr__(H, "_defining_form", form)
        return H

    @property
    def form_sealed(self) -> bool:
        """True when the entries were computed from the structure form by :meth:`from_form`
        (the form is their definition); a form on balls is used only then."""
        return self._form_sealed

    def relabeled(self, *, inputs: Sequence[Any] | None = None,
                  outputs: Sequence[Any] | None = None, name: str | None = None) -> Mechanism:
        """The same mechanism (same entries and forms) with new row/column labels or name."""
        new = object.__new__(Mechanism)
        new.__dict__.update(self.__dict__)
        for attr, labels, size in (("inputs", inputs, self._shape[0]),
                                   ("outputs", outputs, self._shape[1])):
            if labels is not None:
                labels = tuple(labels)
                if len(labels) != size:
                    raise InvalidMechanism(f"Got {len(labels)} {attr} labels for {size}.")
                new.__dict__[attr] = labels
        if name is not None:
            new.__dict__["name"] = name
        return new

    def __reduce__(self) -> tuple[Any, tuple[dict[str, Any]]]:
        """Pickle/deepcopy support. A sealed mechanism is rebuilt from its form (so it stays
        sealed); other entries travel exactly (floats as bytes, rationals as integer pairs,
        balls as exact midpoint/radius). A parameter value that cannot be pickled (e.g. the
        tight-constraints certificate, which holds closures) is left out."""
        params = {}
        for k, v in self.parameters.items():
            try:
                pickle.dumps(v)
            except Exception:  # noqa: BLE001 — any unpicklable value is dropped, see above
                continue
            params[k] = v
        state: dict[str, Any] = {
            "kind": self.kind.value, "inputs": self.inputs, "outputs": self.outputs,
            "name": self.name, "precision": self.precision, "parameters": params,
            "row_policy": self.row_policy, "monomial": self.monomial,
            "row_normalized": self.row_normalized, "structure": self.structure}
        if self._form_sealed:
            state["form"] = self.__dict__["_defining_form"]
        else:
            state.update(entries_state(self._floats if self._floats is not None
                                       else self._entries))
        return (_restore, (state,))

    def _entries_key(self) -> Any:
        return entries_key(self._floats if self._floats is not None else self._entries)

    def __eq__(self, other: object) -> bool:
        """Same kind, labels, row policy, forms (and whether they are in force) and entries:
        the same rationals, or the very same balls (midpoint and radius). The name and the
        parameters are not compared."""
        if not isinstance(other, Mechanism):
            return NotImplemented
        return (self.kind is other.kind and self._shape == other._shape
                and self.inputs == other.inputs and self.outputs == other.outputs
                and self.row_policy == other.row_policy
                and self._form_sealed == other._form_sealed
                and self.monomial == other.monomial
                and self.row_normalized == other.row_normalized
                and self.structure == other.structure
                and self._entries_key() == other._entries_key())

    def __hash__(self) -> int:
        return hash((self.kind, self._shape, self.inputs, self.outputs, self.row_policy))

    @property
    def _entries(self) -> np.ndarray:
        """The object array of entries, built from the binary floats on first use."""
        if self._objects is None:
            F = self._floats
            assert F is not None
            flat = np.empty(F.size, dtype=object)
            flat[:] = floats_to_fmpq(F.ravel().tolist())
            flat.setflags(write=False)  # the owner too: views of it stay read-only
            obj: np.ndarray = flat.reshape(F.shape)
            obj.setflags(write=False)
            object.__setattr__(self, "_objects", obj)  # a cache of the immutable floats
        assert self._objects is not None
        return self._objects

    @property
    def binary_floats(self) -> np.ndarray | None:
        """The read-only float64 array whose exact values are the entries (float-backed
        exact mechanisms), else None.

        >>> Mechanism(np.array([[0.75, 0.25], [0.5, 0.5]]), kind="exact").binary_floats[0, 0]
        np.float64(0.75)

        Each access returns a fresh read-only view of a private copy kept as bytes: it
        cannot be made writeable, so the mechanism never changes after it is built.
        """
        return None if self._floats is None else self._floats.view()

    @property
    def shape(self) -> tuple[int, int]:
        """(number of inputs, number of outputs)."""
        return self._shape

    @property
    def n_inputs(self) -> int:
        return self.shape[0]

    @property
    def n_outputs(self) -> int:
        return self.shape[1]

    @property
    def is_exact(self) -> bool:
        return self.kind is MechanismKind.EXACT

    def __repr__(self) -> str:
        n, m = self.shape
        policy = "" if self.row_policy == "exact" else f" rows={self.row_policy}"
        return f"<Mechanism {self.name} {n}×{m} {self.kind}{policy}>"

    @property
    def is_stochastic(self) -> bool:
        """True unless the rows were kept as loaded (``row_policy="as-is"``).

        An "as-is" matrix is a nonnegative kernel whose rows need not sum to 1: its privacy
        level is the level of the entrywise inequalities h[y,z] ≤ e^{ε·d}·h[y',z]; utility
        and leakage (which need probabilities) refuse it.
        """
        return self.row_policy != "as-is"

    def row_sums(self) -> tuple[Fraction, ...]:
        """The exact sum of each row (all 1 unless ``row_policy="as-is"``; exact only).

        >>> from exactdp.mechanisms.constructors import from_rows
        >>> from_rows([["1/2", "1/2"]]).row_sums()
        (Fraction(1, 1),)
        """
        self._require_exact("row_sums")
        if self._floats is not None:
            return tuple(float_row_sums_exact(self._floats))
        return tuple(fmpq_to_fraction(sum(row.tolist(), flint.fmpq(0))) for row in self._entries)

    def require_stochastic(self, what: str) -> None:
        """Raise :class:`InvalidMechanism` when the rows are not distributions ("as-is")."""
        if not self.is_stochastic:
            raise InvalidMechanism(
                f"{what} needs a row-stochastic mechanism; {self.name} was loaded with "
                "rows='as-is' (its rows need not sum to 1). Load it with rows='normalize' to "
                "use the exactly normalised matrix."
            )

    def entry(self, i: int, j: int) -> Any:
        """Entry h[i, j]: a Fraction (exact) or an arb ball (certified)."""
        if self._floats is not None:
            return Fraction(float(self._floats[i, j]))
        v = self._entries[i, j]
        if self.kind is MechanismKind.EXACT:
            return fmpq_to_fraction(v)
        return v

    def _index(self, k: Any, axis: int) -> int:
        size = self._shape[axis]
        i = None if isinstance(k, (bool, np.bool_)) else getattr(k, "__index__", None)
        if i is None:  # not an integer (bools are refused too)
            raise InvalidArgument(
                f"Got index {k!r}; a mechanism is indexed by integers: H[i] (row i) or "
                "H[i, j] (entry).")
        i = operator.index(k)
        if not -size <= i < size:
            what = "row" if axis == 0 else "column"
            raise EntryOutOfRange(
                f"{what} {i} is out of range for {self.name} ({self._shape[0]}×{self._shape[1]}).")
        return i % size

    def row(self, i: int) -> tuple[Any, ...]:
        """Row i as a tuple of :meth:`entry` values (Fractions, or balls when certified)."""
        i = self._index(i, 0)
        if self._floats is not None:
            return tuple(Fraction(v) for v in self._floats[i].tolist())
        if self.kind is MechanismKind.EXACT:
            return tuple(fmpq_to_fraction(v) for v in self._entries[i].tolist())
        return tuple(self._entries[i].tolist())

    def __len__(self) -> int:
        """The number of inputs (rows)."""
        return self._shape[0]

    def __getitem__(self, key: Any) -> Any:
        """``H[i]`` is row i (a tuple, :meth:`row`) and ``H[i, j]`` is :meth:`entry`: a
        mechanism reads like its tuple of rows (integer indices only: no slices, no bools;
        ``tuple(H)`` gives the rows). For exact kinds ``H[i][j] == H[i, j]``; for certified
        kinds both are the same ball, but ``==`` on balls means "certainly equal" (use
        :meth:`entry_object` and compare ``is``, or :func:`~exactdp.arithmetic.ball.ball_key`).

        >>> H = Mechanism(np.array([[0.75, 0.25], [0.5, 0.5]]), kind="exact")
        >>> H[0], H[1, 1], H[-1][0], len(H)
        ((Fraction(3, 4), Fraction(1, 4)), Fraction(1, 2), Fraction(1, 2), 2)
        >>> [sum(row) for row in H]
        [Fraction(1, 1), Fraction(1, 1)]
        """
        if isinstance(key, tuple) and len(key) == 2:
            return self.entry(self._index(key[0], 0), self._index(key[1], 1))
        return self.row(key)

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        """The rows, in order (each as :meth:`row` gives it)."""
        return (self.row(i) for i in range(self._shape[0]))

    def entries_object(self) -> np.ndarray:
        """A read-only copy of the object array of entries (``fmpq`` or ``arb``).

        A read-only view of a fresh copy on each call: editing it (even through its
        ``.base``) never changes the mechanism. Use :meth:`entry_object` for single entries.
        """
        out = self._entries.copy()
        out.setflags(write=False)
        return out.view()

    def entry_object(self, i: int, j: int) -> Any:
        """Entry h[i, j] as stored: ``fmpq`` (exact) or ``arb`` (certified); both immutable."""
        return self._entries[self._index(i, 0), self._index(j, 1)]

    def rows_fraction(self) -> list[list[Fraction]]:
        """Exact entries as nested lists of Fractions (exact mechanisms only)."""
        self._require_exact("rows_fraction")
        return [[fmpq_to_fraction(v) for v in row] for row in self._entries]

    def to_fmpq_mat(self) -> flint.fmpq_mat:
        """Exact entries as a ``flint.fmpq_mat`` (exact mechanisms only)."""
        self._require_exact("to_fmpq_mat")
        return flint.fmpq_mat(self._entries.tolist())

    def as_sympy(self, symbol: sympy.Symbol | None = None) -> sympy.Matrix:
        """Exact closed form of the entries as a sympy matrix (small mechanisms).

        With ``symbol`` given, the parameter s is replaced by it, so the entries are
        rational functions of s (polynomials times closed-form column factors): the
        "polynomials in s" view. Available for exact mechanisms, for monomial forms with
        closed-form column factors, and for the exponential mechanism.

        >>> from exactdp.mechanisms.constructors import truncated_geometric
        >>> s = sympy.Symbol("s", positive=True)
        >>> truncated_geometric(2, eps=1).as_sympy(s)
        Matrix([
        [1/(s + 1), s/(s + 1)],
        [s/(s + 1), 1/(s + 1)]])
        """
        # a closed form is used only when the entries were built from it (from_form)
        form = self.monomial if self._form_sealed else None
        if form is not None and not any(isinstance(c, Enclosure) for c in form.column_factors):
            E = form.exponents.tolist()
            sv = form.s if symbol is None else symbol
            if form.symbol is not None:
                cols = [sympy.sympify(c).subs(form.symbol, sv) for c in form.column_factors]
            else:
                cols = [sympy.sympify(c) for c in form.column_factors]
            return sympy.Matrix([[cols[j] * sv**k for j, k in enumerate(row)] for row in E])
        rform = self.row_normalized if self._form_sealed else None
        if rform is not None:
            sv = rform.s if symbol is None else symbol
            rows = []
            for row in rform.exponents.tolist():
                w = [sv ** k for k in row]
                total = sympy.Add(*w)
                rows.append([x / total for x in w])
            return sympy.Matrix(rows)
        if self.kind is MechanismKind.EXACT:
            return sympy.Matrix([[sympy.Rational(int(v.p), int(v.q)) for v in row]
                                 for row in self._entries])
        raise InvalidMechanism(
            f"{self.name} has no exact closed form (certified entries only, and no structure "
            "form it was built from: see Mechanism.from_form)."
        )

    def to_json(self) -> dict[str, Any]:
        """Exact JSON form: rows of "p/q" strings (exact) or "[mid +/- rad]" strings (balls).

        ``row_policy`` is written only when it is not "exact" (older readers see no change).

        >>> from exactdp.mechanisms.constructors import from_rows
        >>> from_rows([["1/2", "1/2"]]).to_json()["rows"]
        [['1/2', '1/2']]
        """
        if self.kind is MechanismKind.EXACT:
            with unlimited_int_digits():  # exact entries of any size (e.g. 10^-5000)
                rows = [[str(fmpq_to_fraction(v)) for v in row] for row in self._entries]
        else:
            rows = [[v.str(45, radius=True) for v in row] for row in self._entries]
        doc: dict[str, Any] = {"name": self.name, "kind": self.kind.value,
                               "precision": self.precision, "rows": rows}
        if self.row_policy != "exact":
            doc["row_policy"] = self.row_policy
        return doc

    def to_float(self) -> np.ndarray:
        """Float64 matrix — uncertified (exact entries rounded; balls → midpoints).

        For a float-backed mechanism it is a copy of :attr:`binary_floats` (no rounding).
        """
        if self._floats is not None:
            return self._floats.copy()
        if self.kind is MechanismKind.EXACT:
            return np.array(
                [[fmpq_to_float(v) for v in row] for row in self._entries], dtype=float
            )
        return np.array([[float(v.mid()) for v in row] for row in self._entries], dtype=float)

    def to_balls(self) -> np.ndarray:
        """Object array of arb balls enclosing the entries (at the current precision)."""
        if self.kind is MechanismKind.CERTIFIED:
            return self.entries_object()
        out = np.empty(self._entries.shape, dtype=object)
        for idx, v in np.ndenumerate(self._entries):
            out[idx] = arb(v)
        return out

    def _require_exact(self, what: str) -> None:
        if self.kind is not MechanismKind.EXACT:
            raise InvalidMechanism(
                f"{what} needs an exact mechanism; {self.name} is certified (balls). "
                "Use to_balls() or build it at a rational parameter (t=...)."
            )

    def _validate(self) -> None:
        if self._floats is not None:
            validate_floats(self._floats, self.row_policy)
        else:
            validate_objects(self._entries, self.kind is MechanismKind.EXACT, self.row_policy)

    def compose(self, remap: Mechanism) -> Mechanism:
        """The mechanism H·R (exact when both are exact).

        >>> from exactdp.mechanisms.constructors import from_rows
        >>> H = from_rows([["1/2", "1/2"], [0, 1]])
        >>> R = from_rows([[0, 1], [1, 0]])
        >>> H.compose(R).rows_fraction()
        [[Fraction(1, 2), Fraction(1, 2)], [Fraction(1, 1), Fraction(0, 1)]]
        """
        if remap.n_inputs != self.n_outputs:
            raise InvalidMechanism(
                f"cannot compose a {self.shape} mechanism with a {remap.shape} remap: "
                f"the remap needs {self.n_outputs} rows."
            )
        if self.kind is MechanismKind.EXACT and remap.kind is MechanismKind.EXACT:
            prod = self.to_fmpq_mat() * remap.to_fmpq_mat()
            rows = [[prod[i, j] for j in range(prod.ncols())] for i in range(prod.nrows())]
            return Mechanism(
                np.array(rows, dtype=object), kind=MechanismKind.EXACT, inputs=self.inputs,
                outputs=remap.outputs, name=f"{self.name}∘remap",
            )
        a = flint.arb_mat(self.to_balls().tolist())
        b = flint.arb_mat(remap.to_balls().tolist())
        prod_b = a * b
        rows_b = [[prod_b[i, j] for j in range(prod_b.ncols())] for i in range(prod_b.nrows())]
        return Mechanism(
            np.array(rows_b, dtype=object), kind=MechanismKind.CERTIFIED, inputs=self.inputs,
            outputs=remap.outputs, name=f"{self.name}∘remap", precision=self.precision,
        )


def _restore(state: dict[str, Any]) -> Mechanism:
    """Rebuild a pickled :class:`Mechanism` (see :meth:`Mechanism.__reduce__`)."""
    labels = {k: state[k] for k in ("inputs", "outputs", "name")}
    if "form" in state:
        H = Mechanism.from_form(state["form"], parameters=state["parameters"],
                                precision=state["precision"] or CERTIFIED_PREC, **labels)
        return H
    return Mechanism(entries_from_state(state), kind=state["kind"], precision=state["precision"],
                     parameters=state["parameters"], row_policy=state["row_policy"],
                     monomial=state["monomial"], row_normalized=state["row_normalized"],
                     structure=state["structure"], **labels)
