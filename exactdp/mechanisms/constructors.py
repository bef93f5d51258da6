"""Constructors of mechanisms: from exact rows or balls, the classical families, and metric-built ones.

* :func:`from_rows` (any exact matrix), :func:`from_balls` (certified entries);
* the monomial family h[y, z] = c_z·s^{E[y, z]}: :func:`geometric_line`,
  :func:`truncated_geometric`, :func:`sum_query_geometric`, :func:`count_queries_geometric`,
  :func:`randomized_response` (closed forms: proofs/mech_geometric_rows.py);
* built from a metric: :func:`exponential_mechanism`, :func:`tight_constraints_mechanism`
  and :func:`planar_laplace_grid`.

Each is exact when its parameter is rational, else certified (balls), with the exact
structure attached (:class:`~exactdp.mechanisms.mechanism.MonomialForm`,
:class:`~exactdp.mechanisms.mechanism.RowNormalizedForm`) so that the privacy level stays exact.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import flint
import numpy as np
import sympy
from flint import arb

from exactdp.arithmetic.ball import arb_from_fraction, sympy_to_arb, workprec
from exactdp.arithmetic.rationals import to_fmpq, to_fraction, to_sympy
from exactdp.errors import InvalidArgument, InvalidMechanism, PropertyNeverHolds
from exactdp.kinds import proved_by
from exactdp.mechanisms.mechanism import (
    CERTIFIED_PREC,
    Mechanism,
    MechanismKind,
    MonomialForm,
    RowNormalizedForm,
)
from exactdp.spaces.levels import parse_level
from exactdp.spaces.mechanism_forms import monomial_parameter
from exactdp.spaces.metrics import FiniteMetric, sum_query
from exactdp.tight import TightConstraintsResult, tight_constraints

__all__ = [
    "from_rows",
    "from_balls",
    "truncated_geometric",
    "geometric_line",
    "sum_query_geometric",
    "count_queries_geometric",
    "randomized_response",
    "exponential_mechanism",
    "tight_constraints_mechanism",
    "mechanism_from_tight",
    "planar_laplace_grid",
]

#: The symbol standing for s in closed-form column factors.
S_SYMBOL = sympy.Symbol("s", positive=True)


def _as_fmpq(value: Any, where: str) -> flint.fmpq:
    """An exact entry as ``fmpq`` (anything :func:`to_fraction` reads), as InvalidMechanism."""
    if isinstance(value, flint.fmpq):
        return value
    try:
        f = to_fraction(value, where)
    except InvalidArgument as exc:
        raise InvalidMechanism(f"{where}: {exc}") from exc
    return to_fmpq(f)


def from_rows(
    rows: Any,
    *,
    inputs: Sequence[Any] | None = None,
    outputs: Sequence[Any] | None = None,
    name: str = "matrix",
) -> Mechanism:
    """An exact mechanism from rows of exact numbers (ints, Fractions, ``"p/q"`` strings).

    Validates exactly: rectangular shape, every entry ≥ 0, every row sums to 1.

    >>> from_rows([["1/2", "1/2"]]).shape
    (1, 2)
    >>> from_rows([[1, 0], [1]])
    Traceback (most recent call last):
    ...
    exactdp.errors.InvalidMechanism: row 1 has 1 entries, expected 2 (a mechanism is ...
    >>> from_rows([["3/2", "-1/2"]])
    Traceback (most recent call last):
    ...
    exactdp.errors.InvalidMechanism: entry [0][1] = -1/2 is negative; probabilities are ≥ 0.
    """
    rows, m = _rectangular_rows(rows)
    arr = np.empty((len(rows), m), dtype=object)
    for i, r in enumerate(rows):
        for j, v in enumerate(r):
            arr[i, j] = _as_fmpq(v, f"entry [{i}][{j}]")
    return Mechanism(arr, kind=MechanismKind.EXACT, inputs=inputs, outputs=outputs, name=name)


def _rectangular_rows(rows: Any) -> tuple[list[list[Any]], int]:
    """Rows as lists (from nested sequences, numpy or fmpq_mat), checked to be rectangular."""
    if isinstance(rows, flint.fmpq_mat):
        rows = [[rows[i, j] for j in range(rows.ncols())] for i in range(rows.nrows())]
    elif isinstance(rows, np.ndarray):
        rows = rows.tolist()
    if rows is None or isinstance(rows, (str, bytes)):
        raise InvalidMechanism(
            f"Got rows={rows!r}; pass a matrix: a list of rows such as [['1/2', '1/2']], a "
            "numpy array or a flint.fmpq_mat."
        )
    try:
        rows = [list(r) for r in rows]
    except TypeError:
        raise InvalidMechanism(
            f"Got rows={rows!r}, which is not a list of rows; pass e.g. [['1/2', '1/2']]."
        ) from None
    if not rows or not rows[0]:
        raise InvalidMechanism("A mechanism needs at least one row and one column.")
    m = len(rows[0])
    for i, r in enumerate(rows):
        if len(r) != m:
            raise InvalidMechanism(
                f"row {i} has {len(r)} entries, expected {m} (a mechanism is a rectangular "
                f"matrix)."
            )
    return rows, m


def from_balls(
    rows: Any,
    *,
    inputs: Sequence[Any] | None = None,
    outputs: Sequence[Any] | None = None,
    name: str = "balls",
    precision: int | None = None,
) -> Mechanism:
    """A certified mechanism from rows of ``flint.arb`` balls containing the true entries.

    >>> H = from_balls([[arb("0.5 +/- 1e-20"), arb("0.5 +/- 1e-20")]])
    >>> H.kind
    <MechanismKind.CERTIFIED: 'certified'>
    """
    rows, m = _rectangular_rows(rows)
    arr = np.empty((len(rows), m), dtype=object)
    for i, r in enumerate(rows):
        for j, v in enumerate(r):
            if isinstance(v, float):
                raise InvalidMechanism(
                    f"entry [{i}][{j}] is a binary float; pass arb balls (from strings or "
                    "fmpq) so that they provably contain the true value."
                )
            arr[i, j] = v if isinstance(v, arb) else arb(_as_fmpq(v, f"entry [{i}][{j}]"))
    return Mechanism(
        arr, kind=MechanismKind.CERTIFIED, inputs=inputs, outputs=outputs, name=name, precision=precision
    )


def _from_monomial(
    form: MonomialForm,
    *,
    name: str,
    inputs: Sequence[Any] | None,
    outputs: Sequence[Any] | None,
    parameters: dict[str, Any],
    prec: int = CERTIFIED_PREC,
) -> Mechanism:
    """Build the entries of a monomial-form mechanism (exact when everything is rational)."""
    return Mechanism.from_form(form, inputs=inputs, outputs=outputs, name=name,
                               parameters=parameters, precision=prec)


#: The symbol standing for s in closed-form column factors.

def _geometric_form(n: int) -> tuple[np.ndarray, tuple[sympy.Expr, ...]]:
    """Exponents |y − z| and column factors (in S_SYMBOL) of the truncated geometric."""
    idx = np.arange(n)
    E = np.abs(idx[:, None] - idx[None, :]).astype(np.int64)
    if n == 1:
        return E, (sympy.Integer(1),)
    s = S_SYMBOL
    end = 1 / (1 + s)
    mid = (1 - s) / (1 + s)
    return E, tuple(end if z in (0, n - 1) else mid for z in range(n))


@proved_by("mech_geometric_rows")
def geometric_line(n: int, s: Any) -> Mechanism:
    """Truncated geometric mechanism on 0..n−1 with an explicit parameter 0 < s < 1.

    h[y, z] = s^{|y−z|}·(1−s)/(1+s) inside, s^{|y−z|}/(1+s) at the two ends
    (Ghosh, Roughgarden, Sundararajan 2009). ``s`` is an exact rational or a sympy
    expression (then the entries are certified balls). Rows sum to 1:
    proofs/mech_geometric_rows.py.

    >>> H = geometric_line(3, "1/2")
    >>> H.rows_fraction()[0]
    [Fraction(2, 3), Fraction(1, 6), Fraction(1, 6)]
    """
    n = _positive(n, "n")
    s_expr = _parse_parameter(s, "s")
    E, cols = _geometric_form(n)
    E.setflags(write=False)
    form = MonomialForm(s_expr, E, cols, S_SYMBOL)
    return _from_monomial(
        form, name=f"geometric_line({n}, s={s_expr})", inputs=None, outputs=None,
        parameters={"n": n, "s": s_expr},
    )


@proved_by("mech_geometric_rows")
def truncated_geometric(n: int, eps: Any = None, *, t: Any = None) -> Mechanism:
    """The truncated geometric mechanism on the line 0..n−1 at level ε (s = e^{-ε}).

    It is ε·|y−y'|-private and is the tight-constraints mechanism of ``line(n)``
    (closed form: proofs/mech_geometric_rows.py).

    >>> truncated_geometric(2, t="1/3").rows_fraction()
    [[Fraction(3, 4), Fraction(1, 4)], [Fraction(1, 4), Fraction(3, 4)]]
    >>> truncated_geometric(3, eps="4/5").kind
    <MechanismKind.CERTIFIED: 'certified'>
    """
    level = parse_level(eps=eps, t=t)
    n = _positive(n, "n")
    s = monomial_parameter(level, 1)
    E, cols = _geometric_form(n)
    E.setflags(write=False)
    return _from_monomial(
        MonomialForm(s, E, cols, S_SYMBOL), name=f"truncated_geometric({n}, ε={level.eps})",
        inputs=None, outputs=None, parameters={"n": n, "eps": level.eps},
    )


@proved_by("mech_geometric_rows")
def sum_query_geometric(u: int, v: int, eps: Any = None, *, t: Any = None) -> Mechanism:
    """The geometric comparator of the sum query: parameter e^{-ε/v}, truncated to 0..u·v.

    Adding noise with P(k) ∝ e^{-ε|k|/v} makes neighbouring sums (|y − y'| ≤ v) at most
    e^{ε} apart, so it is ε·d-private for ``sum_query(u, v)``
    (proofs/mech_geometric_rows.py).

    >>> H = sum_query_geometric(1, 2, t="1/4")     # s = (1/4)^(1/2) = 1/2
    >>> H.rows_fraction()[0]
    [Fraction(2, 3), Fraction(1, 6), Fraction(1, 6)]
    """
    level = parse_level(eps=eps, t=t)
    u = _positive(u, "u")
    v = _positive(v, "v")
    n = u * v + 1
    s = monomial_parameter(level, v)
    E, cols = _geometric_form(n)
    E.setflags(write=False)
    metric = sum_query(u, v)
    return _from_monomial(
        MonomialForm(s, E, cols, S_SYMBOL), name=f"sum_query_geometric({u}, {v}, ε={level.eps})",
        inputs=metric.points, outputs=metric.points,
        parameters={"u": u, "v": v, "eps": level.eps},
    )


@proved_by("mech_geometric_rows")
def count_queries_geometric(u: int, eps: Any = None, *, t: Any = None, k: int = 2) -> Mechanism:
    """k independent truncated geometric mechanisms at ε/k each, on {0..u}^k.

    The comparator of the paper's k-count (k = 2) query: ε·d∞-private for the
    Chebyshev (king-move) metric of :func:`exactdp.spaces.metrics.count_queries`, since one
    king move changes each coordinate by at most 1. Points are ordered as in
    ``count_queries(u, k)``. Closed form: proofs/mech_geometric_rows.py.

    >>> H = count_queries_geometric(1, t="1/4")      # s = e^{-ε/2} = 1/2
    >>> H.shape, H.entry(0, 0)
    ((4, 4), Fraction(4, 9))
    """
    level = parse_level(eps=eps, t=t)
    u = _positive(u, "u")
    k = _positive(k, "k")
    s = monomial_parameter(level, k)
    E1, cols1 = _geometric_form(u + 1)
    pts = list(itertools.product(range(u + 1), repeat=k))
    arr = np.array(pts, dtype=np.int64).reshape(len(pts), k)
    E = np.zeros((len(pts), len(pts)), dtype=np.int64)
    for c in range(k):
        E += E1[arr[:, c][:, None], arr[:, c][None, :]]
    E.setflags(write=False)
    cols = tuple(sympy.Mul(*(cols1[z] for z in p)) for p in pts)
    return _from_monomial(
        MonomialForm(s, E, cols, S_SYMBOL), name=f"count_queries_geometric({u}, k={k}, ε={level.eps})",
        inputs=pts, outputs=pts, parameters={"u": u, "k": k, "eps": level.eps},
    )


@proved_by("mech_geometric_rows")
def randomized_response(n: int, eps: Any = None, *, t: Any = None) -> Mechanism:
    """k-ary randomized response: report the truth with probability e^ε/(e^ε + n − 1).

    It is ε·d-private for the discrete metric (all distances 1), and is that metric's
    tight-constraints mechanism (Prop. 9). Closed form: proofs/mech_geometric_rows.py.

    >>> randomized_response(2, t="1/3").rows_fraction()
    [[Fraction(3, 4), Fraction(1, 4)], [Fraction(1, 4), Fraction(3, 4)]]
    """
    level = parse_level(eps=eps, t=t)
    n = _positive(n, "n")
    s = monomial_parameter(level, 1)
    E = 1 - np.eye(n, dtype=np.int64)
    E.setflags(write=False)
    c = 1 / (1 + (n - 1) * S_SYMBOL)
    return _from_monomial(
        MonomialForm(s, E, tuple([c] * n), S_SYMBOL), name=f"randomized_response({n}, ε={level.eps})",
        inputs=None, outputs=None, parameters={"n": n, "eps": level.eps},
    )


def exponential_mechanism(
    metric: FiniteMetric, eps: Any = None, *, t: Any = None, prec: int = CERTIFIED_PREC
) -> Mechanism:
    """The exponential mechanism over a metric: h[y, z] ∝ e^{-ε d(y, z)/2}, outputs = points.

    Convention (McSherry–Talwar with score −d(y, z), which is 1-Lipschitz in y): the
    factor 1/2 makes it ε·d-private for every metric. Exact when s = e^{-ε/(2q)} is
    rational (e.g. ``t="1/4"`` on an integer metric), otherwise certified balls.

    >>> from exactdp.spaces.metrics import line
    >>> exponential_mechanism(line(2), t="1/4").rows_fraction()
    [[Fraction(2, 3), Fraction(1, 3)], [Fraction(1, 3), Fraction(2, 3)]]
    """
    level = parse_level(eps=eps, t=t)
    n = metric.n
    idx = metric.index
    params: dict[str, Any] = {"eps": level.eps}
    rform: RowNormalizedForm | None = None
    if metric.q is not None:
        # s = e^{-ε/(2q)}, E = q·d: the entries are computed from the form (so it is in force)
        rform = RowNormalizedForm(monomial_parameter(level, 2 * metric.q),
                                  metric.exponent_matrix())
        return Mechanism.from_form(rform, inputs=metric.points, outputs=metric.points,
                                   name=f"exponential({metric.name}, ε={level.eps})",
                                   parameters=params, precision=prec)
    with workprec(prec):
        eps_b = level.eps_ball()
        vals_b = [(-eps_b * v.ball() / 2).exp() for v in metric.values]
        arr = np.empty((n, n), dtype=object)
        for i, row in enumerate(idx.tolist()):
            w = [vals_b[k] for k in row]
            total = arb(0)
            for x in w:
                total += x
            arr[i, :] = [x / total for x in w]
        return Mechanism(
            arr, kind=MechanismKind.CERTIFIED, inputs=metric.points, outputs=metric.points,
            name=f"exponential({metric.name}, ε={level.eps})", precision=prec,
            parameters=params,
        )


def tight_constraints_mechanism(
    metric: FiniteMetric, eps: Any = None, *, t: Any = None, method: str = "auto"
) -> Mechanism:
    """The tight-constraints mechanism H = Φ·diag(z) with Φz = 1, z ≥ 0 (Def. 6, Prop. 7).

    Built from :func:`exactdp.tight.tight_constraints`. Exact when t (or s = e^{-ε/q})
    is rational; otherwise certified, with the exact monomial form
    h[y, z] = z_z · s^{q·d(y, z)} attached (so its privacy level is still exact).
    Raises :class:`~exactdp.errors.PropertyNeverHolds` when no tight-constraints
    mechanism exists at that level (the certificate is attached as ``evidence``).

    >>> from exactdp.spaces.metrics import line
    >>> tight_constraints_mechanism(line(2), t="1/3").rows_fraction()
    [[Fraction(3, 4), Fraction(1, 4)], [Fraction(1, 4), Fraction(3, 4)]]
    """
    if method == "float":
        raise InvalidArgument("method='float' gives no certified mechanism; use 'auto'.")
    res = tight_constraints(metric, eps=eps, t=t, method=method)
    assert isinstance(res, TightConstraintsResult)
    return mechanism_from_tight(res)


def mechanism_from_tight(res: TightConstraintsResult) -> Mechanism:
    """The :class:`Mechanism` H = Φ·diag(z) of a :func:`~exactdp.tight.tight_constraints` result.

    The same object as ``res.mechanism`` (built there, with its exact structure: a
    :class:`~exactdp.mechanisms.mechanism.MonomialForm`, or a
    :class:`~exactdp.mechanisms.structure.TightForm` for irrational distances). Raises
    :class:`~exactdp.errors.PropertyNeverHolds` (the result as ``evidence``) when none exists.

    >>> from exactdp.spaces.metrics import line
    >>> r = tight_constraints(line(2), t="1/3")
    >>> mechanism_from_tight(r).rows_fraction()[0], mechanism_from_tight(r) is r.mechanism
    ([Fraction(3, 4), Fraction(1, 4)], True)
    """
    if not res.exists:
        raise PropertyNeverHolds(
            f"No tight-constraints mechanism exists for {res.metric.name} at {res.level}: "
            f"Φz = 1 has no solution z ≥ 0 (certificate attached as .evidence).",
            evidence=res,
        )
    return res.mechanism


def planar_laplace_grid(
    width: int, height: int, eps: Any = None, *, spacing: Any = 1, subdivisions: int = 4
) -> Mechanism:
    """Planar Laplace noise discretised to a grid — certified cell probabilities.

    Construction (documented, certified): the input is a grid point x; planar Laplace
    noise with density ε²/(2π)·e^{-ε|w|} is added; the output is the grid point whose
    square cell (side = spacing, centred on it) contains x + w, and noise that lands
    outside the grid's cells is *conditioned away* (each row is renormalised by the
    mass that lands inside). Each cell's mass is enclosed rigorously by splitting the
    cell into ``subdivisions``² squares and bounding the density on each square by its
    values at the square's nearest and farthest points from x (the density is radially
    decreasing); the row is then divided by the enclosure of its total. So every entry
    is a ball that provably contains the probability of this renormalised mechanism;
    the radii shrink like 1/subdivisions.

    Renormalisation changes the privacy guarantee (the paper's "slightly adjusted ε");
    :func:`exactdp.mechanisms.privacy.privacy_level` measures it exactly on the result.

    >>> H = planar_laplace_grid(2, 1, eps=1)
    >>> H.kind, H.shape
    (<MechanismKind.CERTIFIED: 'certified'>, (2, 2))
    """
    level = parse_level(eps=eps)
    width = _positive(width, "width")
    height = _positive(height, "height")
    m = _positive(subdivisions, "subdivisions")
    h = to_fraction(spacing, "spacing")
    if h <= 0:
        raise InvalidArgument(f"Got spacing={spacing!r}; it must be > 0.")
    n = width * height
    pts = [(x * h, y * h) for y in range(height) for x in range(width)]
    with workprec(CERTIFIED_PREC):
        eps_b = level.eps_ball()
        coef = eps_b * eps_b / (2 * arb.pi())
        area = arb_from_fraction((h / m) ** 2)
        # mass of the cell at offset (dx, dy) cells from the input: depends on |dx|, |dy|
        cache: dict[tuple[int, int], arb] = {}
        unit = arb_from_fraction(h / (2 * m))  # coordinates below are integers × unit
        dens: dict[int, arb] = {}

        def density(q: int) -> arb:
            """e^{-ε·√q·unit}, cached by the integer q (many sub-squares share it)."""
            if q not in dens:
                dens[q] = (-eps_b * arb(q).sqrt() * unit).exp()
            return dens[q]

        def cell_mass(dx: int, dy: int) -> arb:
            key = (abs(dx), abs(dy))
            if key in cache:
                return cache[key]
            total = arb(0)
            for a in range(m):
                x0 = 2 * key[0] * m - m + 2 * a
                x1 = x0 + 2
                nx = 0 if x0 < 0 < x1 else min(abs(x0), abs(x1))
                fx = max(abs(x0), abs(x1))
                for b in range(m):
                    y0 = 2 * key[1] * m - m + 2 * b
                    y1 = y0 + 2
                    ny = 0 if y0 < 0 < y1 else min(abs(y0), abs(y1))
                    fy = max(abs(y0), abs(y1))
                    # density is radially decreasing: between its values at the farthest
                    # and the nearest point of the sub-square
                    total += density(fx * fx + fy * fy).union(density(nx * nx + ny * ny))
            cache[key] = total * coef * area
            return cache[key]

        arr = np.empty((n, n), dtype=object)
        for i in range(n):
            gx, gy = i % width, i // width
            row = [cell_mass(j % width - gx, j // width - gy) for j in range(n)]
            total = arb(0)
            for v in row:
                total += v
            arr[i, :] = [v / total for v in row]
        return Mechanism(
            arr, kind=MechanismKind.CERTIFIED, inputs=pts, outputs=pts,
            name=f"planar_laplace_grid({width}×{height}, ε={level.eps})",
            precision=CERTIFIED_PREC,
            parameters={"eps": level.eps, "spacing": h, "subdivisions": m},
        )


def _positive(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or int(value) < 1:
        raise InvalidArgument(f"Got {name}={value!r}; it must be an integer ≥ 1.")
    return int(value)


def _parse_parameter(s: Any, name: str) -> sympy.Expr:
    if isinstance(s, sympy.Basic):
        expr = sympy.sympify(s)
    else:
        f = to_fraction(s, name)
        expr = to_sympy(f)
    with workprec(128):
        b = sympy_to_arb(expr)
        ok = b > 0 and b < 1
    if not ok:
        raise InvalidArgument(f"Got {name}={s!r}; the parameter must lie strictly in (0, 1).")
    return expr
