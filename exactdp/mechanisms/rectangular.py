"""Rectangular and offset geometric and exponential mechanisms (inputs and outputs on different
integer ranges), as libqif builds them, with their exact structure.

* :func:`geometric_rectangular` — libqif's ``geometric(n_rows, ε, n_cols, first_x, first_y)``:
  secrets first_x..first_x+n_rows−1, outputs first_y..first_y+n_cols−1. It is the truncated
  geometric mechanism on the smallest range containing both, h = c_v·s^{|v−x|} (s = e^{-ε},
  c = 1/(1+s) at the two ends, (1−s)/(1+s) inside), with the outputs outside the output range
  merged into the first/last output (post-processing). It carries a
  :class:`~exactdp.mechanisms.structure.MergedMonomialForm`, so its level on ``line(n_rows)``
  is exact: ε whenever two neighbouring secrets are separated by an unmerged side of some
  output (libqif's 10×20 and 20×10 instances: exactly ε).
* :func:`exponential_rectangular` — h[x, y] ∝ e^{-ε|x − y|/2} over the output range (libqif's
  ``exponential(n_rows, ε·d, n_cols)``, with offsets): a rectangular
  :class:`~exactdp.mechanisms.mechanism.RowNormalizedForm`, exact level.

Both are exact when s is rational (``t=``), otherwise certified balls with the exact form
attached. Closed forms: proofs/mech_tight_level.py (merged columns), proofs/mech_geometric_rows.py.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy

from exactdp.arithmetic.rationals import to_sympy
from exactdp.errors import InvalidArgument
from exactdp.kinds import proved_by
from exactdp.mechanisms.constructors import S_SYMBOL
from exactdp.mechanisms.mechanism import (
    Mechanism,
    MonomialForm,
    RowNormalizedForm,
)
from exactdp.mechanisms.structure import MergedMonomialForm
from exactdp.spaces.levels import PrivacyLevel, parse_level

__all__ = ["geometric_rectangular", "exponential_rectangular"]


#: Largest gap (span of secrets and outputs minus the larger of the two ranges) that
#: :func:`geometric_rectangular` builds: far offsets would otherwise take O(n_rows × offset)
#: time and memory (a gap of 5000 takes about 2 s).
MAX_OFFSET_GAP = 5000


def _count(value: Any, name: str, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
        raise InvalidArgument(f"Got {name}={value!r}; {name} must be an integer ≥ {least}.")
    return int(value)


def _offset(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise InvalidArgument(f"Got {name}={value!r}; {name} must be an integer.")
    return int(value)


def _s_of(level: PrivacyLevel, q: int) -> sympy.Expr:
    s = level.s_rational(q)
    return to_sympy(s) if s is not None else sympy.exp(-level.eps / q)


@proved_by("mech_tight_level")
def geometric_rectangular(
    n_rows: int, eps: Any = None, *, t: Any = None, n_cols: int | None = None,
    first_x: int = 0, first_y: int = 0,
) -> Mechanism:
    """The geometric mechanism from secrets first_x.. to outputs first_y.. (libqif's geometric).

    Rows sum to 1 and the merged-column level is exact: proofs/mech_tight_level.py
    (construction R, theorem M).

    Parameters
    ----------
    n_rows : int
        Number of secrets first_x, ..., first_x + n_rows − 1 (rows; privacy is for
        ``line(n_rows)``: neighbouring secrets at distance 1).
    eps, t : level
        ε, or t = e^{-ε} (exact entries when t is rational).
    n_cols : int, optional
        Number of outputs first_y, ..., first_y + n_cols − 1 (default n_rows; at least 2).
    first_x, first_y : int
        The first secret and the first output.

    Examples
    --------
    >>> from exactdp.spaces.metrics import line
    >>> from exactdp.mechanisms.privacy import privacy_level
    >>> H = geometric_rectangular(10, eps="9/10", n_cols=20)
    >>> H.shape, privacy_level(H, line(10)).value
    ((10, 20), 9/10)
    >>> G = geometric_rectangular(3, t="1/2", n_cols=2, first_y=1)   # outputs 1, 2
    >>> G.rows_fraction()[0]                       # secret 0 lands on 1 unless noise ≥ 2
    [Fraction(5, 6), Fraction(1, 6)]
    >>> privacy_level(G, line(3)).value
    log(2)
    """
    level = parse_level(eps=eps, t=t)
    n = _count(n_rows, "n_rows", 1)
    m = n if n_cols is None else _count(n_cols, "n_cols", 2)
    if m < 2:
        raise InvalidArgument(f"Got n_cols={m}; a geometric mechanism needs at least 2 outputs.")
    fx, fy0 = _offset(first_x, "first_x"), _offset(first_y, "first_y")
    fy = fy0 - fx  # shift so that the secrets are 0..n−1
    lo, hi = min(fy, 0), max(fy + m - 1, n - 1)
    if (hi - lo + 1) - max(n, m) > MAX_OFFSET_GAP:
        raise InvalidArgument(
            f"Got first_x={fx}, first_y={fy0}: the secrets and outputs span {hi - lo + 1} "
            f"integers, {hi - lo + 1 - max(n, m)} more than the larger range; the construction "
            f"works on the whole span (O(n_rows × span) time and memory), so the gap is "
            f"limited to {MAX_OFFSET_GAP}. Shift first_x and first_y together (only their "
            "difference matters) or bring the ranges closer.")
    values = np.arange(lo, hi + 1)
    E = np.abs(values[None, :] - np.arange(n)[:, None]).astype(np.int64)
    E.setflags(write=False)
    s_sym = S_SYMBOL
    end, mid = 1 / (1 + s_sym), (1 - s_sym) / (1 + s_sym)
    cols = tuple(end if v in (lo, hi) else mid for v in values.tolist())
    s = _s_of(level, 1)
    form = MonomialForm(s, E, cols, S_SYMBOL)
    target = np.clip(values - fy, 0, m - 1)
    groups = tuple(tuple(np.nonzero(target == j)[0].tolist()) for j in range(m))
    merged = MergedMonomialForm(form, groups)
    # the entries are computed from the form (so it is in force, even for balls)
    return Mechanism.from_form(
        merged, inputs=range(fx, fx + n), outputs=range(fy0, fy0 + m),
        name=f"geometric_rectangular({n}×{m}, first_x={fx}, first_y={fy0}, ε={level.eps})",
        parameters={"n_rows": n, "n_cols": m, "first_x": fx, "first_y": fy0,
                    "eps": level.eps},
    )


def exponential_rectangular(
    n_rows: int, eps: Any = None, *, t: Any = None, n_cols: int | None = None,
    first_x: int = 0, first_y: int = 0,
) -> Mechanism:
    """h[x, y] ∝ e^{-ε|x − y|/2} from secrets first_x.. to outputs first_y.. (libqif's exponential).

    Row-normalized form h = s^{|x−y|}/S_x(s) with s = e^{-ε/2}: its privacy level on
    ``line(n_rows)`` is exact (at most ε; libqif's test value 0.64197… for 10×10 at ε = 0.9).

    >>> from exactdp.spaces.metrics import line
    >>> from exactdp.mechanisms.privacy import privacy_level
    >>> H = exponential_rectangular(2, t="1/4", n_cols=3)          # s = 1/2
    >>> H.rows_fraction()[0]
    [Fraction(4, 7), Fraction(2, 7), Fraction(1, 7)]
    >>> privacy_level(H, line(2)).value
    log(16/7)
    """
    level = parse_level(eps=eps, t=t)
    n = _count(n_rows, "n_rows", 1)
    m = n if n_cols is None else _count(n_cols, "n_cols", 1)
    fx, fy = _offset(first_x, "first_x"), _offset(first_y, "first_y")
    E = np.abs((np.arange(fy, fy + m))[None, :] - np.arange(fx, fx + n)[:, None]).astype(np.int64)
    E.setflags(write=False)
    s = _s_of(level, 2)
    form = RowNormalizedForm(s, E)
    name = f"exponential_rectangular({n}×{m}, first_x={fx}, first_y={fy}, ε={level.eps})"
    return Mechanism.from_form(form, inputs=range(fx, fx + n), outputs=range(fy, fy + m),
                               name=name, parameters={"eps": level.eps})

