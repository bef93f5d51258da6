"""Re-check more Pufferfish documents: discrete Laplace, class laws and class-vs-absent scales.

Kinds (each question carried in full, every number exact):

* ``pufferfish-discrete-laplace`` — integer laws P, Q and a level; the claim: the least
  private discrete Laplace parameter α* ∈ (lo, hi] with the exact ratios R(lo), R(hi), or
  α* = 0 (no noise), and optionally α*'s closed form. R(α) = max_s max(h_P/h_Q, h_Q/h_P),
  h_D(s) = Σ_d D(d) α^{|s−d|} over the support points, is recomputed exactly; the loss ln R
  is non-increasing in α (``proofs/pufferfish_discrete_laplace.py`` (3)–(5)), so R(lo) > e^ε
  and R(hi) ≤ e^ε prove the bracket. A closed form α is proved by proving θ = −1/ln α to be
  the Laplace θ* (:func:`exactdp.kernel.pufferfish.closed_form_is_least`, (2), (5)).
* ``pufferfish-class-law`` — Bernoulli groups (p, count); the claim: the exact law of the
  class total, numerator polynomial (descending) over a denominator; re-multiplied with flint.
* ``pufferfish-class-pair`` — groups of class A and of class B and a level; the claim: θ* of
  A's total against B's ∈ (lo, hi] with an output j where the loss at lo exceeds ε, or θ* = 0.
  Both laws are rebuilt exactly (as for class laws) and the Laplace verdicts re-decided on
  them (:func:`exactdp.kernel.pufferfish.decide_laplace`); classes of at most
  ``MAX_POINTS`` − 1 members only.
* ``pufferfish-class-scale`` — groups and a level; the claim: θ* ∈ (lo, hi] for the whole
  class present against absent, optionally θ*'s closed form (one group). The loss is
  L(θ) = Σ count·ln(1 + p(e^{1/θ} − 1)), decreasing in θ (``proofs/pufferfish_class_mgf.py``);
  its sign against ε is decided by arb balls (undecided ⇒ rejected). The closed form must be
  1/ln(1 + (e^{ε/n} − 1)/p) built here, and it is proved by substituting it:
  1 − p + p·e^{1/θ} − e^{ε/n} expands to 0 and θ > 0, so L(θ) = ε.

>>> from exactdp.kernel.jsonio import envelope
>>> doc = envelope("pufferfish-class-law", {"groups": [{"p": "1/3", "count": 1},
...                {"p": "1/2", "count": 1}]}, {"numerator": ["1", "3", "2"], "denominator": "6"}, {})
>>> check_pufferfish_more(doc)
True
>>> doc["claim"]["numerator"] = ["2", "3", "1"]
>>> check_pufferfish_more(doc)
False
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import sympy
from flint import arb, fmpz_poly

from exactdp.arithmetic.ball import arb_from_fraction, certified_sign, sympy_to_arb
from exactdp.arithmetic.rationals import to_sympy
from exactdp.errors import InstanceTooLarge, InvalidArgument, PrecisionLimitReached
from exactdp.kernel.jsonio import (
    read_enclosure,
    read_envelope,
    read_int,
    read_list,
    read_object,
    read_poly,
    read_rational,
)
from exactdp.kernel.pufferfish import MAX_POINTS, closed_form_is_least, decide_laplace
from exactdp.kernel.question import read_form, read_level
from exactdp.kinds import CertificateKind, Sign, Verdict, proved_by
from exactdp.spaces.levels import PrivacyLevel

__all__ = ["MORE_KINDS", "MAX_BITS", "check_pufferfish_more", "class_theta_form",
           "class_loss_sign", "discrete_ratio"]

MORE_KINDS = (CertificateKind.PUFFERFISH_DISCRETE_LAPLACE.value,
              CertificateKind.PUFFERFISH_CLASS_LAW.value,
              CertificateKind.PUFFERFISH_CLASS_SCALE.value,
              CertificateKind.PUFFERFISH_CLASS_PAIR.value)
#: Largest exact size (bits) the kernel builds: α^span of a discrete Laplace ratio, and the
#: class-law numerator (its n + 1 coefficients together).
MAX_BITS = 2**24
_MAX_COUNT = 10**18
Groups = list[tuple[Fraction, int]]


# ------------------------------------------------------------------------ readers
def _dist(value: Any, where: str, integer: bool = False) -> dict[Fraction, Fraction]:
    obj = read_object(value, where, ("support", "probs"))
    xs = [read_rational(v, f"{where}.support", integer=integer)
          for v in read_list(obj["support"], where, None, MAX_POINTS)]
    ps = [read_rational(v, f"{where}.probs") for v in read_list(obj["probs"], where, len(xs))]
    if not xs or any(b <= a for a, b in zip(xs, xs[1:])) or min(ps) <= 0 or sum(ps) != 1:
        raise InvalidArgument(f"{where}: need a nonempty increasing support and masses > 0 "
                              "summing to 1.")
    return dict(zip(xs, ps))


def _groups(value: Any, where: str, some_positive: bool = True) -> Groups:
    """[{"p", "count"}], p in [0, 1] strictly increasing (some p > 0), 1 ≤ count ≤ 10¹⁸."""
    out = []
    for k, g in enumerate(read_list(value, where, None, MAX_POINTS)):
        obj = read_object(g, f"{where}[{k}]", ("p", "count"))
        out.append((read_rational(obj["p"], f"{where}[{k}].p"),
                    read_int(obj["count"], f"{where}[{k}].count", 1, _MAX_COUNT)))
    ps = [p for p, _ in out]
    if not out or any(b <= a for a, b in zip(ps, ps[1:])) or ps[0] < 0 or ps[-1] > 1 or (
            some_positive and ps[-1] == 0):
        raise InvalidArgument(f"{where}: need probabilities p in [0, 1], strictly "
                              "increasing, not all 0 (merge equal p's into one count).")
    return out


def _level(q: dict[str, Any]) -> PrivacyLevel:
    level = read_level(q["level"], strict=True)
    assert isinstance(level, PrivacyLevel)
    return level


def _sign(f: Any, what: str) -> Sign | None:
    """Certified sign of the ball ``f()`` (None when 2¹⁶ bits leave it open)."""
    try:
        return certified_sign(lambda _: f(), what=what)[0]
    except PrecisionLimitReached:
        return None


# ----------------------------------------------------------------- discrete Laplace
def _h(D: dict[Fraction, Fraction], pts: list[Fraction], steps: list[Fraction]) -> list[Fraction]:
    """h_D(x_i) = Σ_j D(x_j) α^{|x_i − x_j|} by one sweep from each side (steps: α^{gap})."""
    m = [D.get(x, Fraction(0)) for x in pts]
    left, acc = [], Fraction(0)
    for i, w in enumerate(m):
        acc = (acc * steps[i - 1] if i else acc) + w
        left.append(acc)
    right, acc = [Fraction(0)] * len(m), Fraction(0)
    for i in range(len(m) - 2, -1, -1):
        acc = (acc + m[i + 1]) * steps[i]
        right[i] = acc
    return [a + b for a, b in zip(left, right)]


@proved_by("pufferfish_discrete_laplace")
def discrete_ratio(P: dict[Fraction, Fraction], Q: dict[Fraction, Fraction], alpha: Fraction
                   ) -> Fraction:
    """R(α): the exact largest ratio of h_P and h_Q over the support points (integers);
    the loss is ln R(α) (``proofs/pufferfish_discrete_laplace.py`` (3), (4)).

    >>> discrete_ratio({Fraction(1): Fraction(1)}, {Fraction(0): Fraction(1)}, Fraction(1, 3))
    Fraction(3, 1)
    """
    pts = sorted(set(P) | set(Q))
    if (pts[-1] - pts[0]) * (alpha.numerator.bit_length() + alpha.denominator.bit_length()) > MAX_BITS:
        raise InstanceTooLarge(f"α = {alpha} over a support of span {pts[-1] - pts[0]}: the exact "
                               f"ratios need over MAX_BITS = {MAX_BITS} bits; use a shorter α.")
    steps = [alpha ** int(y - x) for x, y in zip(pts, pts[1:])]
    return max(max(a / b, b / a) for a, b in zip(_h(P, pts, steps), _h(Q, pts, steps)))


def _within(R: Fraction, level: PrivacyLevel) -> bool | None:
    """R ≤ e^ε: exact when t = e^-ε is rational, else the sign of ln R − ε (None: open)."""
    if level.t is not None:
        return R * level.t <= 1
    s = _sign(lambda: arb_from_fraction(R).log() - sympy_to_arb(level.eps), "ln R − ε")
    return None if s is None else s is not Sign.POSITIVE


def _check_discrete(q: dict[str, Any], c: dict[str, Any]) -> bool:
    read_object(q, "question", ("P", "Q", "level"))
    read_object(c, "claim", ("least", "ratios", "closed_form"))
    P, Q = _dist(q["P"], "question.P", True), _dist(q["Q"], "question.Q", True)
    level = _level(q)
    if c["least"] == "0":  # α → 0 is θ → 0: no noise needed iff the limit holds
        limit = decide_laplace(P, Q, Fraction(0), level)
        return (c["ratios"] is None and c["closed_form"] is None and limit is not None
                and limit[0] is Verdict.HOLDS)
    enc = read_enclosure(c["least"], "claim.least")
    ratios = [read_rational(r, "claim.ratios") for r in read_list(c["ratios"], "claim.ratios", 2)]
    if not 0 < enc.lo < enc.hi < 1:
        return False
    r_lo, r_hi = discrete_ratio(P, Q, enc.lo), discrete_ratio(P, Q, enc.hi)
    if ratios != [r_lo, r_hi] or _within(r_lo, level) is not False or _within(r_hi, level) is not True:
        return False
    if c["closed_form"] is None:
        return True
    alpha = read_form(c["closed_form"], "claim.closed_form", strict=True)
    above = _sign(lambda: sympy_to_arb(alpha) - arb_from_fraction(enc.lo), "α − lo")
    below = _sign(lambda: sympy_to_arb(alpha) - 1, "α − 1")
    return (above is Sign.POSITIVE and below is Sign.NEGATIVE  # real, in (lo, 1)
            and closed_form_is_least(P, Q, level, -1 / sympy.log(alpha)))


# ---------------------------------------------------------------------- class laws
def _law(groups: Groups) -> tuple[fmpz_poly, int]:
    """Π (b − a + a x)^count over Π b^count (p = a/b), refused beyond MAX_BITS."""
    n = sum(c for p, c in groups if p)
    bits = sum(c * p.denominator.bit_length() for p, c in groups)
    if (n + 1) * bits > MAX_BITS:
        raise InstanceTooLarge(f"a class law of degree {n} with {bits}-bit coefficients exceeds "
                               f"MAX_BITS = {MAX_BITS}; re-check a smaller class.")
    num, den = fmpz_poly([1]), 1
    for p, c in groups:
        num *= fmpz_poly([p.denominator - p.numerator, p.numerator]) ** c
        den *= p.denominator ** c
    return num, den


def class_theta_form(p: Fraction, n: int, level: PrivacyLevel) -> sympy.Expr:
    """θ* = 1/ln(1 + (e^{ε/n} − 1)/p) of a class of n Bernoulli(p) members against absent."""
    return 1 / sympy.log(1 + (sympy.exp(level.eps / n) - 1) / to_sympy(p))


@proved_by("pufferfish_class_mgf")
def class_loss_sign(groups: Groups, theta: Fraction, level: PrivacyLevel) -> Sign | None:
    """Sign of L(θ) − ε, L(θ) = Σ count·ln(1 + p·(e^{1/θ} − 1)) the class-vs-absent loss
    (``proofs/pufferfish_class_mgf.py``); None: undecided."""
    def f() -> Any:
        x = arb_from_fraction(1 / theta).expm1()
        return sum((c * (arb_from_fraction(p) * x).log1p() for p, c in groups),
                   -sympy_to_arb(level.eps))
    return _sign(f, "class loss − ε")


def _check_class_scale(q: dict[str, Any], c: dict[str, Any], ev: dict[str, Any]) -> bool:
    read_object(q, "question", ("groups", "level"))
    read_object(c, "claim", ("least", "closed_form"))
    read_object(ev, "evidence", ("tol", "prec"))
    groups, level = _groups(q["groups"], "question.groups"), _level(q)
    tol, _ = read_rational(ev["tol"], "evidence.tol"), read_int(ev["prec"], "evidence.prec", 0, 2**16)
    enc = read_enclosure(c["least"], "claim.least")
    if not (0 < enc.lo < enc.hi and enc.hi - enc.lo <= tol * enc.hi
            and class_loss_sign(groups, enc.lo, level) is Sign.POSITIVE
            and class_loss_sign(groups, enc.hi, level) is Sign.NEGATIVE):
        return False
    if c["closed_form"] is None:
        return True
    read_form(c["closed_form"], "claim.closed_form")  # compared as text with the form built here
    if len(groups) != 1:
        return False
    (p, n), = groups
    theta = class_theta_form(p, n, level)
    identity = 1 - to_sympy(p) + to_sympy(p) * sympy.exp(1 / theta) - sympy.exp(level.eps / n)
    return (c["closed_form"] == str(theta) and sympy.expand(identity) == 0
            and _sign(lambda: sympy_to_arb(theta), "θ") is Sign.POSITIVE)


def _pair_dist(groups: Groups) -> dict[Fraction, Fraction]:
    num, den = _law(groups)
    if num.degree() >= MAX_POINTS:
        raise InstanceTooLarge(f"a class of {num.degree()} members; the kernel re-checks class "
                               f"pairs of at most MAX_POINTS − 1 = {MAX_POINTS - 1}.")
    return {Fraction(j): Fraction(int(v), den) for j, v in enumerate(num.coeffs()) if v}


def _witness(A: dict[Fraction, Fraction], B: dict[Fraction, Fraction], theta: Fraction, j: int,
             level: PrivacyLevel) -> bool:
    """|ln g_A(j) − ln g_B(j)| > ε at θ, certified (g_D(j) = Σ_i D(i) e^{−|j − i|/θ})."""
    def f() -> arb:
        g = [sum((arb_from_fraction(m) * arb_from_fraction(-abs(j - i) / theta).exp()
                  for i, m in D.items()), arb(0)) for D in (A, B)]
        return abs(g[0].log() - g[1].log()) - sympy_to_arb(level.eps)
    return _sign(f, "witness loss − ε") is Sign.POSITIVE


def _check_class_pair(q: dict[str, Any], c: dict[str, Any], ev: dict[str, Any]) -> bool:
    read_object(q, "question", ("a", "b", "level"))
    read_object(c, "claim", ("least", "witness"))
    read_object(ev, "evidence", ("tol",))
    A, B = (_pair_dist(_groups(q[k], f"question.{k}", False)) for k in ("a", "b"))
    level, tol = _level(q), None if ev["tol"] is None else read_rational(ev["tol"], "evidence.tol")
    if c["least"] == "0":
        limit = decide_laplace(A, B, Fraction(0), level)
        return c["witness"] is None and limit is not None and limit[0] is Verdict.HOLDS
    enc = read_enclosure(c["least"], "claim.least")
    j = read_int(c["witness"], "claim.witness", 0, MAX_POINTS)
    at_lo, at_hi = decide_laplace(A, B, enc.lo, level), decide_laplace(A, B, enc.hi, level)
    return (0 < enc.lo < enc.hi and (tol is None or enc.hi - enc.lo <= tol * enc.hi)
            and at_lo is not None and at_lo[0] is Verdict.FAILS and at_hi is not None
            and at_hi[0] is Verdict.HOLDS and _witness(A, B, enc.lo, j, level))


# -------------------------------------------------------------------------- check
def check_pufferfish_more(doc: Any) -> bool:
    """Re-check a document of :data:`MORE_KINDS` (InvalidArgument when malformed,
    InstanceTooLarge beyond the limits, False when a claim does not re-check)."""
    env = read_envelope(doc, MORE_KINDS)
    q, c, ev = env.question, env.claim, env.evidence
    if env.kind == CertificateKind.PUFFERFISH_CLASS_SCALE.value:
        return _check_class_scale(q, c, ev)
    if env.kind == CertificateKind.PUFFERFISH_CLASS_PAIR.value:
        return _check_class_pair(q, c, ev)
    read_object(ev, "evidence", ())
    if env.kind == CertificateKind.PUFFERFISH_DISCRETE_LAPLACE.value:
        return _check_discrete(q, c)
    read_object(q, "question", ("groups",))
    read_object(c, "claim", ("numerator", "denominator"))
    num, den = _law(_groups(q["groups"], "question.groups", False))
    claimed = read_poly(c["numerator"], "claim.numerator", integer=True)
    return (list(reversed(claimed)) == [Fraction(int(v)) for v in num.coeffs()]
            and read_rational(c["denominator"], "claim.denominator", integer=True) == den)
