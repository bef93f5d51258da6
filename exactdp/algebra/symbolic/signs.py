"""The exact sign pattern of z(s) = N(s)/D(s) on (0, 1): every root of N_i and D isolated
exactly (no floats), and the status of the property on each gap and at each root."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from flint import fmpz_poly

from exactdp.algebra.algebraic import (
    AlgebraicNumber,
    descartes_root_count,
    irreducible_roots_between,
    lowest_sign,
    primitive_positive,
    separate_roots,
)
from exactdp.algebra.symbolic.solution import RationalSolution
from exactdp.errors import InvalidArgument
from exactdp.progress import Progress, report

__all__ = ["Breakpoint", "SignPattern", "sign_pattern"]


# ------------------------------------------------------------------------------------
# exact sign pattern of z(s) on (0, 1)
@dataclass(frozen=True)
class Breakpoint:
    """A root in (0, 1) of some N_i or of D, with the status of the property there.

    ``status`` is "holds", "fails" or "singular" (a pole of z: Φ(s) is singular and
    the unique-solution argument does not apply; reported, not decided).
    """

    s: AlgebraicNumber
    status: str
    witness: int | None = None


@dataclass(frozen=True)
class SignPattern:
    """Where z(s) ≥ 0 on (0, 1): breakpoints in increasing order and the open gaps between.

    ``gaps[k]`` is the status on the open interval between breakpoint k−1 and k
    (gap 0 starts at s = 0, the last gap ends at s = 1); ``gap_witness[k]`` names a
    component that is negative on a failing gap.
    """

    breakpoints: tuple[Breakpoint, ...]
    gaps: tuple[bool, ...]
    gap_witness: tuple[int | None, ...]
    gap_samples: tuple[Fraction, ...]


def sign_pattern(sol: RationalSolution, progress: Progress = None) -> SignPattern:
    """Exact signs of every z_i = N_i / D on (0, 1) (roots isolated exactly, no floats).

    Signs start from the lowest-order coefficient (s → 0+) and flip at the roots of odd
    multiplicity of each polynomial; the roots come from the irreducible factors over Z.

    >>> from exactdp.spaces.metrics import line
    >>> from exactdp.algebra.symbolic import solve_symbolic
    >>> pat = sign_pattern(solve_symbolic(line(3)))
    >>> pat.breakpoints, pat.gaps
    ((), (True,))
    """
    if not isinstance(sol, RationalSolution):
        raise InvalidArgument(f"Got sol={sol!r}; pass the RationalSolution of solve_symbolic(...).")
    polys: list[fmpz_poly] = [sol.denominator, *sol.numerators]
    key_of: dict[tuple[int, ...], int] = {}
    distinct: list[fmpz_poly] = []
    which: list[int] = []
    for p in polys:
        pk = tuple(int(c) for c in p.coeffs())
        if pk not in key_of:
            key_of[pk] = len(distinct)
            distinct.append(p)
        which.append(key_of[pk])
    # factor every distinct polynomial that can have a root in (0, 1)
    mults: list[dict[tuple[int, ...], int]] = []
    factors: dict[tuple[int, ...], fmpz_poly] = {}
    zero, one = Fraction(0), Fraction(1)
    for idx, p in enumerate(distinct):
        m: dict[tuple[int, ...], int] = {}
        if p.degree() >= 1 and descartes_root_count(p, zero, one) > 0:
            _, fl = p.factor()
            for g, e in fl:
                g = primitive_positive(g)
                gk = tuple(int(c) for c in g.coeffs())
                m[gk] = m.get(gk, 0) + int(e)
                factors[gk] = g
        mults.append(m)
        if idx % 50 == 0:
            report(progress, "signs", f"factored {idx + 1}/{len(distinct)} polynomials")
    roots: list[tuple[AlgebraicNumber, tuple[int, ...]]] = []
    for gk, g in factors.items():
        for a in irreducible_roots_between(g, zero, one):
            roots.append((a, gk))
    items = [(a, 1) for a, _ in roots]
    keys = [gk for _, gk in roots]
    order = sorted(range(len(items)), key=lambda k: _mid(items[k][0]))
    items = [items[k] for k in order]
    keys = [keys[k] for k in order]
    separate_roots(items)
    # after separation the order is preserved (distinct roots); recompute keys by poly
    keys = [tuple(a.minimal_polynomial) for a, _ in items]
    sgn0 = [lowest_sign(p) for p in distinct]
    cur = list(sgn0)
    n = sol.n
    gaps: list[bool] = []
    gap_w: list[int | None] = []
    samples: list[Fraction] = []
    bps: list[Breakpoint] = []
    prev_hi = zero

    def status_now() -> tuple[bool, int | None]:
        sd = cur[which[0]]
        for i in range(n):
            if cur[which[i + 1]] * sd < 0:
                return False, i
        return True, None

    for k, (a, _) in enumerate(items):
        lo, hi = a.isolating_interval
        ok, w = status_now()
        gaps.append(ok)
        gap_w.append(w)
        samples.append(_sample_between(prev_hi, lo))
        gk = keys[k]
        mD = mults[which[0]].get(gk, 0)
        pole = any(mults[which[i + 1]].get(gk, 0) < mD for i in range(n)) if mD else False
        if pole:
            bps.append(Breakpoint(a, "singular"))
        else:
            # z_i(root) = 0 where N_i vanishes to higher order, else the (unchanged) side sign
            bad = None
            sd = cur[which[0]]
            for i in range(n):
                if mults[which[i + 1]].get(gk, 0) > mD:
                    continue
                if cur[which[i + 1]] * sd < 0:
                    bad = i
                    break
            bps.append(Breakpoint(a, "holds" if bad is None else "fails", bad))
        for idx in range(len(distinct)):
            if mults[idx].get(gk, 0) % 2 == 1:
                cur[idx] = -cur[idx]
        prev_hi = hi
    ok, w = status_now()
    gaps.append(ok)
    gap_w.append(w)
    samples.append(_sample_between(prev_hi, one))
    return SignPattern(tuple(bps), tuple(gaps), tuple(gap_w), tuple(samples))


def _mid(a: AlgebraicNumber) -> Fraction:
    lo, hi = a.isolating_interval
    return (lo + hi) / 2


def _sample_between(a: Fraction, b: Fraction) -> Fraction:
    return (a + b) / 2
