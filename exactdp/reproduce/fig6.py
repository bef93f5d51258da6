"""Fig. 6: utility of tight-constraints vs geometric mechanisms (uniform prior, optimal remap).

For each ε on the paper's grid (step 1/100) the tight-constraints mechanism's existence
is decided with a certificate (:func:`exactdp.tight.tight_constraints`). Where it exists
its utility under the uniform prior with the optimal remap is Σ_z z_z / n: the column
maximum of H = Φ·diag(z) is the diagonal entry z_z (Φ entries are ≤ 1), which is also
Thm. 2's bound Σα with α = z/n — so the value is certified from the enclosure of z.
Where it does not exist the row says so (the paper plots values there).

The comparators' utilities have exact closed forms (proofs/mech_geometric_utility.py):
the truncated geometric on N + 1 points with parameter a has uniform-prior optimal
utility (2/(1+a) + (N−1)(1−a)/(1+a)) / (N+1); the sum query uses a = e^{-ε/v} on
0..u·v, and the 2-count comparator is the square of the one-dimensional value on
0..u with a = e^{-ε/2}.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy

from exactdp.arithmetic.ball import arb_to_fraction_interval, sympy_to_arb, workprec
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rationals import to_sympy
from exactdp.kinds import proved_by
from exactdp.progress import Progress, report
from exactdp.spaces.metrics import FiniteMetric, count_queries, sum_query
from exactdp.tight import TightConstraintsResult, tight_constraints

__all__ = [
    "Fig6Row",
    "geometric_uniform_utility",
    "fig6_sum_query",
    "fig6_count_queries",
    "tight_constraints_uniform_utility",
    "eps_grid",
    "fmt_interval",
    "to_markdown",
]


@dataclass(frozen=True)
class Fig6Row:
    """One ε of Fig. 6.

    Attributes
    ----------
    eps : Fraction
    exists : bool
        Certified existence of the tight-constraints mechanism at ε.
    method : str
        Backend whose certificate decided existence.
    utility_tc : Enclosure | None
        Certified enclosure of the tight-constraints utility (None when it does not exist).
    utility_geometric : sympy.Expr
        Exact closed form of the comparator's utility.
    utility_geometric_enclosure : Enclosure
    """

    eps: Fraction
    exists: bool
    method: str
    utility_tc: Enclosure | None
    utility_geometric: sympy.Expr
    utility_geometric_enclosure: Enclosure
    certificate: Any = None

    @property
    def gain(self) -> float | None:
        """Float ratio U_tc / U_geometric (display only)."""
        if self.utility_tc is None:
            return None
        return float(self.utility_tc.mid) / float(self.utility_geometric_enclosure.mid)


@proved_by("mech_geometric_utility")
def geometric_uniform_utility(points: int, a: sympy.Expr) -> sympy.Expr:
    """Exact U* of the truncated geometric on ``points`` points, parameter a, uniform prior.

    Closed form (proofs/mech_geometric_utility.py): (2/(1+a) + (N−1)(1−a)/(1+a))/(N+1)
    with N + 1 = points (the column maximum is the diagonal entry).

    >>> geometric_uniform_utility(3, sympy.Rational(1, 2))
    5/9
    """
    if points == 1:
        return sympy.Integer(1)
    N = points - 1
    return sympy.simplify((2 / (1 + a) + (N - 1) * (1 - a) / (1 + a)) / (N + 1))


def _enclose(expr: sympy.Expr) -> Enclosure:
    with workprec(128):
        return Enclosure(*arb_to_fraction_interval(sympy_to_arb(expr)))


@proved_by("mech_geometric_utility")
def tight_constraints_uniform_utility(res: TightConstraintsResult) -> Enclosure:
    """Certified Σ_z z_z / n from the existence certificate's z (exact or enclosures).

    The column maximum of Φ·diag(z) is z_z: proofs/mech_geometric_utility.py.
    """
    n = res.metric.n
    lo = Fraction(0)
    hi = Fraction(0)
    for zi in res.z:
        if isinstance(zi, Enclosure):
            lo += zi.lo
            hi += zi.hi
        else:
            lo += zi
            hi += zi
    return Enclosure(lo / n, hi / n)


def eps_grid(start: str, stop: str, step: str = "1/100") -> list[Fraction]:
    """Exact grid start, start + step, ..., stop (inclusive).

    >>> eps_grid("9/10", "1", "1/20")
    [Fraction(9, 10), Fraction(19, 20), Fraction(1, 1)]
    """
    a, b, h = Fraction(start), Fraction(stop), Fraction(step)
    out = []
    x = a
    while x <= b:
        out.append(x)
        x += h
    return out


def _rows(metric: FiniteMetric, eps_values: list[Fraction], geo: Any,
          progress: Progress = None) -> list[Fig6Row]:
    rows = []
    for k, e in enumerate(eps_values, 1):
        report(progress, "fig6", f"{metric.name}: ε = {e} ({k}/{len(eps_values)})")
        res = tight_constraints(metric, eps=e)
        assert isinstance(res, TightConstraintsResult)
        g = geo(to_sympy(e))
        rows.append(
            Fig6Row(
                eps=e,
                exists=res.exists,
                method=res.method,
                utility_tc=tight_constraints_uniform_utility(res) if res.exists else None,
                utility_geometric=g,
                utility_geometric_enclosure=_enclose(g),
                certificate=res.certificate,
            )
        )
    return rows


def fig6_sum_query(
    u: int = 150, v: int = 5, eps_values: list[Fraction] | None = None, *, quick: bool = False,
    progress: Progress = None,
) -> list[Fig6Row]:
    """Fig. 6(a): sum query (paper: u = 150, v = 5, ε = 0.80..1.30 step 0.01).

    >>> rows = fig6_sum_query(quick=True)
    >>> rows[0].exists, rows[0].utility_tc.lo > rows[0].utility_geometric_enclosure.hi
    (True, True)
    """
    if quick:
        u, v = 6, 2
        eps_values = eps_values or [Fraction(4, 5), Fraction(1), Fraction(13, 10)]
    eps_values = eps_values or eps_grid("4/5", "13/10")
    metric = sum_query(u, v)
    n = metric.n

    def geo(eps: sympy.Expr) -> sympy.Expr:
        return geometric_uniform_utility(n, sympy.exp(-eps / v))

    return _rows(metric, eps_values, geo, progress)


def fig6_count_queries(
    u: int = 30, eps_values: list[Fraction] | None = None, *, quick: bool = False,
    progress: Progress = None,
) -> list[Fig6Row]:
    """Fig. 6(b): 2-count query (paper: u = 30, ε = 0.90..1.30 step 0.01).

    >>> rows = fig6_count_queries(quick=True)
    >>> rows[-1].exists
    True
    """
    if quick:
        u = 4
        eps_values = eps_values or [Fraction(9, 10), Fraction(13, 10)]
    eps_values = eps_values or eps_grid("9/10", "13/10")
    metric = count_queries(u)

    def geo(eps: sympy.Expr) -> sympy.Expr:
        return geometric_uniform_utility(u + 1, sympy.exp(-eps / 2)) ** 2

    return _rows(metric, eps_values, geo, progress)


def to_markdown(rows: list[Fig6Row], digits: int = 6) -> str:
    """A markdown table of certified values (rounded outward to ``digits`` decimals)."""
    lines = [
        "| ε | tight-constraints exists | U(tight-constraints) | U(geometric) | ratio (float) |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        geo = fmt_interval(r.utility_geometric_enclosure, digits)
        if r.utility_tc is None:
            lines.append(f"| {float(r.eps):.2f} | no ({r.method}) | — | {geo} | — |")
        else:
            lines.append(
                f"| {float(r.eps):.2f} | yes ({r.method}) | {fmt_interval(r.utility_tc, digits)} | {geo} "
                f"| {r.gain:.4f} |"
            )
    return "\n".join(lines)


def fmt_interval(iv: Enclosure, digits: int) -> str:
    """Outward-rounded decimal interval, collapsed to one number when both ends agree.

    >>> fmt_interval(Enclosure(Fraction(1, 3), Fraction(1, 3)), 4)
    '0.3333…'
    """
    scale = 10**digits
    lo = math.floor(iv.lo * scale)
    hi = math.ceil(iv.hi * scale)
    if hi - lo <= 1:
        return f"{lo / scale:.{digits}f}…"
    return f"[{lo / scale:.{digits}f}, {hi / scale:.{digits}f}]"


#: The former private name, kept while ``exactdp/reproduce/fig7.py`` still imports it.
_fmt = fmt_interval


if __name__ == "__main__":  # pragma: no cover
    which = sys.argv[1] if len(sys.argv) > 1 else "sum"
    quick = "--quick" in sys.argv
    data = fig6_sum_query(quick=quick) if which == "sum" else fig6_count_queries(quick=quick)
    print(to_markdown(data))
