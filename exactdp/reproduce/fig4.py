"""Fig. 4: leakage bounds vs ε for Example 3 (databases of u = 5 individuals, 4 values).

Example 3's prior is the product π = p^{⊗u} of p = (3/10, 27/100, 23/100, 1/5) over V^u
with the Hamming metric. Φ = M^{⊗u} with M = (1 − t)I + tJ, so (proofs/mech_kronecker_prior.py)

* α = α₁^{⊗u} with α₁ = pM⁻¹ = (p − t/(1 + (k−1)t)) / (1 − t) (entrywise), unique;
* π is regular ⇔ α₁ ≥ 0 ⇔ min p ≥ t/(1 + (k−1)t) ⇔ t ≤ p_min/(1 − (k−1)p_min);
* Σα = (Σα₁)^u = (1 + (k−1)t)^{-u}, so Prop. 5 gives
  L(K, π) ≤ u·log2(1 / ((1 + (k−1)t)·max p)) = u·log2(e^ε / ((e^ε + k − 1)·max p)).

For Example 3 (p_min = 1/5, k = 4) the prior is regular exactly when t ≤ 1/2, i.e.
ε ≥ ln 2 ≈ 0.693 — not on all of 0.48 ≤ ε ≤ 1 as the paper reports (at ε = 0.5,
α₁ for the value of probability 1/5 is negative: (1/5 − t/(1+3t))/(1−t) < 0 with
t = e^{-1/2}). The paper's "1.2 bits at ε = 0.5" is the formula evaluated outside the
regular region, where Prop. 5 gives no guarantee. The rows below report the Prop. 5
bound only where regularity is certified.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy
from flint import arb

from exactdp.arithmetic.ball import (
    Sign,
    arb_from_fraction,
    arb_to_fraction_interval,
    certified_sign,
    workprec,
)
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rationals import to_sympy
from exactdp.kinds import Verdict, proved_by
from exactdp.mechanisms.bounds import database_leakage_bound
from exactdp.progress import Progress, report
from exactdp.reproduce.fig6 import eps_grid, fmt_interval
from exactdp.spaces.levels import PrivacyLevel, parse_level

__all__ = [
    "EXAMPLE3_P",
    "ProductRegularity",
    "product_prior_regularity",
    "Fig4Row",
    "fig4",
    "to_markdown",
]

#: The per-individual value distribution of Example 3.
EXAMPLE3_P = (Fraction(3, 10), Fraction(27, 100), Fraction(23, 100), Fraction(1, 5))


@dataclass(frozen=True)
class ProductRegularity:
    """Regularity of π = p^{⊗u} on V^u (Hamming), decided on the k-point factor.

    Attributes
    ----------
    regular : bool
        Certified: α₁ = pM⁻¹ ≥ 0.
    alpha1 : tuple
        α₁ exactly (Fractions, t rational) or as Enclosure enclosures.
    witness : int | None
        An index with α₁ < 0 when not regular.
    precision : int | None
        Bits used to decide the signs (None when exact).
    leakage_bound : Enclosure | None
        Prop. 5's bound u·log2(Σα₁/max p) in bits (certified), when regular.
    leakage_bound_exact : sympy.Expr | None
        Its closed form.

    ``verdict`` is ``regular`` as a :class:`~exactdp.kinds.Verdict`.
    """

    regular: bool
    alpha1: tuple[Any, ...]
    witness: int | None
    precision: int | None
    leakage_bound: Enclosure | None
    leakage_bound_exact: sympy.Expr | None
    level: PrivacyLevel
    p: tuple[Fraction, ...]
    individuals: int

    @property
    def verdict(self) -> Verdict:
        """``HOLDS`` when p^{⊗u} is regular, ``FAILS`` otherwise (certified)."""
        return Verdict.from_bool(self.regular)

    def verify(self) -> bool:
        """Re-check α₁M = p (exactly, or with balls) and the sign verdict."""
        k = len(self.p)
        if all(isinstance(a, Fraction) for a in self.alpha1):
            t = self.level.t
            assert t is not None
            back = [self.alpha1[i] * (1 - t) + t * sum(self.alpha1, Fraction(0))
                    for i in range(k)]
            signs_ok = (all(a >= 0 for a in self.alpha1) == self.regular)
            return back == list(self.p) and signs_ok
        with workprec(self.precision or 128):
            t_b = self.level.t_ball()
            c = t_b / (1 + (k - 1) * t_b)
            for i, iv in enumerate(self.alpha1):
                a = (arb_from_fraction(self.p[i]) - c) / (1 - t_b)
                if not a.overlaps(arb_from_fraction(iv.lo).union(arb_from_fraction(iv.hi))):
                    return False
            if self.regular:
                return all(
                    ((arb_from_fraction(pi) - c) > 0) for pi in self.p
                )
            assert self.witness is not None
            return bool((arb_from_fraction(self.p[self.witness]) - c) < 0)


@proved_by("mech_kronecker_prior")
def product_prior_regularity(
    p: Any, individuals: int, eps: Any = None, *, t: Any = None
) -> ProductRegularity:
    """Is p^{⊗u} regular on hamming(k, u) at ε? Exact (t rational) or certified.

    Closed forms: proofs/mech_kronecker_prior.py.

    >>> r = product_prior_regularity(EXAMPLE3_P, 5, t="1/2")     # the boundary: α₁ has a 0
    >>> r.regular, r.alpha1[-1], r.verify()
    (True, Fraction(0, 1), True)
    >>> product_prior_regularity(EXAMPLE3_P, 5, eps="1/2").regular
    False
    """
    level = parse_level(eps=eps, t=t)
    pf = tuple(Fraction(x) for x in p)
    k, u = len(pf), individuals
    pmax = max(pf)
    if level.t is not None:
        tq = level.t
        c = tq / (1 + (k - 1) * tq)
        alpha = tuple((pi - c) / (1 - tq) for pi in pf)
        neg = [i for i, a in enumerate(alpha) if a < 0]
        regular = not neg
        ratio = 1 / ((1 + (k - 1) * tq) * pmax)
        exact = u * sympy.log(to_sympy(ratio)) / sympy.log(2)
        with workprec(128):
            enc = Enclosure(*arb_to_fraction_interval(
                u * arb_from_fraction(ratio).log() / arb(2).log()))
        return ProductRegularity(regular, alpha, neg[0] if neg else None, None,
                                 enc if regular else None, exact if regular else None,
                                 level, pf, u)
    # t transcendental: p_i − t/(1+(k−1)t) ≠ 0 (equality would make t rational)
    signs = []
    used = 64
    for pi in pf:
        def ev(prec: int, pi: Fraction = pi) -> arb:
            tb = level.t_ball()
            return arb_from_fraction(pi) - tb / (1 + (k - 1) * tb)

        sgn, prec = certified_sign(ev, what="α₁ entry")
        used = max(used, prec)
        signs.append(sgn)
    with workprec(max(used, 128)):
        tb = level.t_ball()
        cb = tb / (1 + (k - 1) * tb)
        alpha_iv = tuple(
            Enclosure(*arb_to_fraction_interval((arb_from_fraction(pi) - cb) / (1 - tb)))
            for pi in pf
        )
        ratio_b = 1 / ((1 + (k - 1) * tb) * arb_from_fraction(pmax))
        enc = Enclosure(*arb_to_fraction_interval(u * ratio_b.log() / arb(2).log()))
    neg = [i for i, s in enumerate(signs) if s is Sign.NEGATIVE]
    regular = not neg
    E = sympy.exp(level.eps)
    exact = u * sympy.log(E / ((E + k - 1) * to_sympy(pmax)))
    exact = exact / sympy.log(2)
    return ProductRegularity(regular, alpha_iv, neg[0] if neg else None, used,
                             enc if regular else None, exact if regular else None,
                             level, pf, u)


@dataclass(frozen=True)
class Fig4Row:
    """One ε of Fig. 4: Thm. 3 (all priors) and Prop. 5 (Example 3's prior, if regular)."""

    eps: Fraction
    thm3: Enclosure
    thm3_exact: sympy.Expr
    regular: bool
    prop5: Enclosure | None


def fig4(
    eps_values: list[Fraction] | None = None, *, individuals: int = 5, quick: bool = False,
    progress: Progress = None,
) -> list[Fig4Row]:
    """Fig. 4's data (paper: ε = 0.48..1.00, step 0.01, u = 5, k = 4).

    >>> rows = fig4(quick=True)
    >>> [(float(r.eps), r.regular) for r in rows]
    [(0.5, False), (0.7, True), (1.0, True)]
    """
    if quick:
        eps_values = eps_values or [Fraction(1, 2), Fraction(7, 10), Fraction(1)]
    eps_values = eps_values or eps_grid("48/100", "1")
    rows = []
    for k, e in enumerate(eps_values, 1):
        report(progress, "fig4", f"ε = {e} ({k}/{len(eps_values)})")
        b = database_leakage_bound(len(EXAMPLE3_P), individuals, eps=e)
        r = product_prior_regularity(EXAMPLE3_P, individuals, eps=e)
        rows.append(Fig4Row(e, b.enclosure, b.value, r.regular, r.leakage_bound))
    return rows


def to_markdown(rows: list[Fig4Row]) -> str:
    """Markdown table (bits; digits shown are truncated, "…" marks more digits)."""

    def fmt(iv: Enclosure) -> str:
        return fmt_interval(iv, 4)

    out = ["| ε | Thm. 3 bound (all priors) | π regular | Prop. 5 bound for π |",
           "|---|---|---|---|"]
    for r in rows:
        p5 = fmt(r.prop5) if r.prop5 is not None else "— (not regular: no bound)"
        out.append(f"| {float(r.eps):.2f} | {fmt(r.thm3)} | {'yes' if r.regular else 'no'} "
                   f"| {p5} |")
    return "\n".join(out)


if __name__ == "__main__":  # pragma: no cover
    print(to_markdown(fig4()))
