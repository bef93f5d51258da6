"""Re-check more Pufferfish documents: discrete Laplace, class laws, class scales, class pairs.

Kinds (each question carried in full, every number exact):

* ``pufferfish-discrete-laplace`` — integer laws P, Q and a level; the claim: the least
  private discrete Laplace parameter α* ∈ (lo, hi] with the exact ratios R(lo), R(hi), or
  α* = 0 (no noise), and optionally α*'s closed form. R(α) = max_s max(h_P/h_Q, h_Q/h_P),
  h_D(s) = Σ_d D(d) α^{|s−d|} over the support points, is recomputed exactly in integers
  (scaled by b^span for α = a/b, compared by cross-multiplying, no gcd) after a work bound:
  support size × span × bits of α ≤ ``MAX_BITS`` (else InstanceTooLarge); the loss ln R
  is non-increasing in α (``proofs/pufferfish_discrete_laplace.py`` (3)–(5)), so R(lo) > e^ε
  and R(hi) ≤ e^ε prove the bracket (its width is not bounded: a loose bracket is a true,
  weaker claim). A closed form α is proved by proving θ = −1/ln α to be
  the Laplace θ* (:func:`exactdp.kernel.pufferfish.closed_form_is_least`, (2), (5)).
* ``pufferfish-class-law`` — Bernoulli groups (p, count); the claim: the exact law of the
  class total, numerator polynomial (descending) over a denominator; re-multiplied with flint.
* ``pufferfish-class-pair`` — groups of class A and of class B and a level; the claim: θ* of
  A's total against B's ∈ (lo, hi] with an output 0 ≤ j ≤ N (the larger class size) where
  the loss at lo exceeds ε, or θ* = 0; evidence ``tol`` null or in (0, 1), hi − lo ≤ tol·hi.
  Both laws are rebuilt exactly (as for class laws) and the Laplace verdicts re-decided on
  them (:func:`exactdp.kernel.pufferfish.decide_laplace`); classes of at most
  ``MAX_POINTS`` − 1 members only.
* ``pufferfish-class-scale`` — groups and a level; the claim: θ* ∈ (lo, hi] for the whole
  class present against absent, optionally θ*'s closed form (one group). The loss is
  L(θ) = Σ count·ln(1 + p(e^{1/θ} − 1)), decreasing in θ (``proofs/pufferfish_class_mgf.py``);
  its sign against ε is decided by arb balls (undecided ⇒ rejected, except the exact tie
  L = n₁/θ = ε when every p is 0 or 1 and ε is rational); hi − lo ≤ tol·hi with evidence
  ``tol`` in (0, 1) as in the library (``prec`` is the writer's note, not checked). The
  closed form must be 1/ln(1 + (e^{ε/n} − 1)/p) built here, and it is proved by substituting it:
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

import math
from fractions import Fraction
from typing import Any

import sympy
from flint import arb, fmpz, fmpz_poly

from exactdp.arithmetic.ball import MAX_PREC, arb_from_fraction, sympy_to_arb
from exactdp.arithmetic.rationals import to_sympy
from exactdp.arithmetic.validate import read_tol
from exactdp.errors import InstanceTooLarge, InvalidArgument
from exactdp.kernel.jsonio import (
    Envelope,
    read_enclosure,
    read_envelope,
    read_int,
    read_list,
    read_object,
    read_poly,
    read_rational,
)
from exactdp.kernel.privacy import sign_in_balls
from exactdp.kernel.pufferfish import (
    MAX_POINTS,
    brackets,
    closed_form_is_least,
    integer_sweep,
    read_laws,
    read_least,
    read_parts,
    strict_level,
)
from exactdp.kernel.question import read_form
from exactdp.kinds import CertificateKind, proved_by
from exactdp.spaces.levels import PrivacyLevel

__all__ = ["MORE_KINDS", "MAX_BITS", "check_pufferfish_more", "class_theta_form", "class_law_work",
           "class_loss_sign", "discrete_ratio", "discrete_work"]

MORE_KINDS = (CertificateKind.PUFFERFISH_DISCRETE_LAPLACE.value,
              CertificateKind.PUFFERFISH_CLASS_LAW.value,
              CertificateKind.PUFFERFISH_CLASS_SCALE.value,
              CertificateKind.PUFFERFISH_CLASS_PAIR.value)
#: Largest exact size (bits) the kernel builds: the support size times the bits of α^span
#: of a discrete Laplace ratio (all its integers together), and the class-law numerator
#: (its n + 1 coefficients together).
MAX_BITS = 2**24
_MAX_COUNT = 10**18
Groups = list[tuple[Fraction, int]]


# ------------------------------------------------------------------------ readers
def _groups(value: Any, where: str, some_positive: bool = True) -> Groups:
    """[{"p", "count"}], p in [0, 1] strictly increasing (some p > 0), 1 ≤ count ≤ 10¹⁸."""
    out = []
    for k, g in enumerate(read_list(value, where, limit=MAX_POINTS)):
        obj = read_object(g, f"{where}[{k}]", ("p", "count"))
        out.append((read_rational(obj["p"], f"{where}[{k}].p"),
                    read_int(obj["count"], f"{where}[{k}].count", 1, _MAX_COUNT)))
    ps = [p for p, _ in out]
    if not out or any(b <= a for a, b in zip(ps, ps[1:])) or ps[0] < 0 or ps[-1] > 1 or (some_positive and ps[-1] == 0):
        raise InvalidArgument(f"{where}: need probabilities p in [0, 1], strictly increasing, not all 0.")
    return out


# ----------------------------------------------------------------- discrete Laplace
def discrete_work(P: dict[Fraction, Fraction], Q: dict[Fraction, Fraction], alpha: Fraction) -> int:
    """m·span·bits(α): the bits of all the integers behind R(α) (m support points);
    InstanceTooLarge beyond MAX_BITS. Checked before any exact work (a few products of at
    most MAX_BITS bits follow).

    >>> discrete_work({Fraction(0): Fraction(1)}, {Fraction(10**6): Fraction(1)}, Fraction(1, 2))
    6000000
    """
    pts = sorted(set(P) | set(Q))
    span, bits = int(pts[-1] - pts[0]), alpha.numerator.bit_length() + alpha.denominator.bit_length()
    if len(pts) * span * bits > MAX_BITS:
        raise InstanceTooLarge(f"α = {alpha} over {len(pts)} support points spanning {span}: the exact ratios need "
                               f"{len(pts)}·{span}·{bits} bits, over MAX_BITS = {MAX_BITS}; use a shorter α.")
    return len(pts) * span * bits


def _ratio(P: dict[Fraction, Fraction], Q: dict[Fraction, Fraction], alpha: Fraction) -> tuple[fmpz, fmpz]:
    """R(α) as an unreduced fraction N/D of integers (no gcd; :func:`discrete_work` first)."""
    pts = sorted(set(P) | set(Q))
    discrete_work(P, Q, alpha)
    gaps = [int(y - x) for x, y in zip(pts, pts[1:])]
    W = [math.lcm(*(v.denominator for v in D.values())) for D in (P, Q)]  # masses' denominators
    hp, hq = (integer_sweep([int(D.get(x, 0) * w) for x in pts], gaps, alpha.numerator, alpha.denominator)
              for D, w in zip((P, Q), W))
    best = (fmpz(0), fmpz(1))
    for u, v in zip(hp, hq):  # h_P/h_Q = u·W_Q/(v·W_P)
        n, d = sorted((u * W[1], v * W[0]), reverse=True)
        best = (n, d) if n * best[1] > best[0] * d else best
    return best


@proved_by("pufferfish_discrete_laplace")
def discrete_ratio(P: dict[Fraction, Fraction], Q: dict[Fraction, Fraction], alpha: Fraction) -> Fraction:
    """R(α): the exact largest ratio of h_P and h_Q over the support points (integers);
    the loss is ln R(α) (``proofs/pufferfish_discrete_laplace.py`` (3), (4)).

    >>> discrete_ratio({Fraction(1): Fraction(1)}, {Fraction(0): Fraction(1)}, Fraction(1, 3))
    Fraction(3, 1)
    """
    n, d = _ratio(P, Q, alpha)
    return Fraction(int(n), int(d))


def _within(R: tuple[fmpz, fmpz], level: PrivacyLevel) -> bool | None:
    """R = N/D ≤ e^ε: exact when t = e^-ε is rational, else the sign of ln R − ε (None: open)."""
    if level.t is not None:
        return R[0] * level.t.numerator <= R[1] * level.t.denominator
    s = sign_in_balls(lambda: arb(R[0]).log() - arb(R[1]).log() - sympy_to_arb(level.eps), MAX_PREC)
    return None if s is None else s != 1


def _check_discrete(env: Envelope) -> bool:
    q, c, _ = read_parts(env, ("P", "Q", "level"), ("least", "ratios", "closed_form"))
    P, Q = read_laws(q, True)
    level, enc = strict_level(q["level"]), read_least(c["least"])
    if enc is None:  # α → 0 is θ → 0: no noise needed iff the limit holds
        return c["ratios"] is None and c["closed_form"] is None and brackets(P, Q, level, None)
    ratios = [read_rational(r, "claim.ratios") for r in read_list(c["ratios"], "claim.ratios", 2)]
    if not 0 < enc.lo < enc.hi < 1:
        return False
    r_lo, r_hi = _ratio(P, Q, enc.lo), _ratio(P, Q, enc.hi)
    if (any(r.numerator * d != n * r.denominator for r, (n, d) in zip(ratios, (r_lo, r_hi)))
            or _within(r_lo, level) is not False or _within(r_hi, level) is not True):
        return False
    if c["closed_form"] is None:
        return True
    alpha = read_form(c["closed_form"], "claim.closed_form", strict=True)
    return (sign_in_balls(lambda: sympy_to_arb(alpha) - arb_from_fraction(enc.lo), MAX_PREC) == 1  # real, in (lo, 1)
            and sign_in_balls(lambda: sympy_to_arb(alpha) - 1, MAX_PREC) == -1
            and closed_form_is_least(P, Q, level, -1 / sympy.log(alpha)))


# ---------------------------------------------------------------------- class laws
def class_law_work(groups: Groups) -> int:
    """(degree + 1)·bits of the class law Π (b − a + a x)^count (p = a/b): InstanceTooLarge
    beyond MAX_BITS. The kernel's check before it builds the law, and the writer's before it
    writes a class-law or class-pair document.

    >>> class_law_work([(Fraction(1, 3), 100)])  # degree 100, 100·2 bits
    20200
    """
    n = sum(c for p, c in groups if p)  # p = 0 and p = 1 give 1 and x^count: no bits
    bits = max(1, sum(c * p.denominator.bit_length() for p, c in groups if 0 < p < 1))
    if (n + 1) * bits > MAX_BITS:
        raise InstanceTooLarge(f"a class law of degree {n} with {bits}-bit coefficients exceeds MAX_BITS = {MAX_BITS}.")
    return (n + 1) * bits


def _law(groups: Groups) -> tuple[fmpz_poly, int]:
    """Π (b − a + a x)^count over Π b^count (p = a/b), refused beyond MAX_BITS."""
    class_law_work(groups)
    num, den = fmpz_poly([1]), 1
    for p, c in groups:
        num *= fmpz_poly([p.denominator - p.numerator, p.numerator]) ** c
        den *= p.denominator ** c
    return num, den


def class_theta_form(p: Fraction, n: int, level: PrivacyLevel) -> sympy.Expr:
    """θ* = 1/ln(1 + (e^{ε/n} − 1)/p) of a class of n Bernoulli(p) members against absent."""
    return 1 / sympy.log(1 + (sympy.exp(level.eps / n) - 1) / to_sympy(p))


@proved_by("pufferfish_class_mgf")
def class_loss_sign(groups: Groups, theta: Fraction, level: PrivacyLevel) -> int | None:
    """Sign of L(θ) − ε, L(θ) = Σ count·ln(1 + p·(e^{1/θ} − 1)) the class-vs-absent loss
    (``proofs/pufferfish_class_mgf.py``); None: undecided."""
    def f() -> Any:
        x = arb_from_fraction(1 / theta).expm1()
        return sum((c * (arb_from_fraction(p) * x).log1p() for p, c in groups), -sympy_to_arb(level.eps))
    return sign_in_balls(f, MAX_PREC)


def _class_holds(groups: Groups, theta: Fraction, level: PrivacyLevel) -> bool:
    """L(θ) ≤ ε: certified sign < 0, or exactly L(θ) = n₁/θ = ε (every p is 0 or 1, rational ε)."""
    s = class_loss_sign(groups, theta, level)
    if s is None and all(p in (0, 1) for p, _ in groups) and isinstance(level.eps, sympy.Rational):
        return bool(to_sympy(Fraction(sum(c for p, c in groups if p), 1) / theta) <= level.eps)
    return s == -1


def _evidence_tol(value: Any) -> Fraction:
    """``evidence.tol``: a rational in (0, 1)."""
    return read_tol(read_rational(value, "evidence.tol"), "evidence.tol", below_one=True)


def _check_class_scale(env: Envelope) -> bool:
    q, c, ev = read_parts(env, ("groups", "level"), ("least", "closed_form"), ("tol", "prec"))
    groups, level, tol = _groups(q["groups"], "question.groups"), strict_level(q["level"]), _evidence_tol(ev["tol"])
    read_int(ev["prec"], "evidence.prec", 0, 2**16)  # the writer's note, not a claim
    enc = read_enclosure(c["least"], "claim.least")
    if not (0 < enc.lo < enc.hi and enc.hi - enc.lo <= tol * enc.hi
            and class_loss_sign(groups, enc.lo, level) == 1
            and _class_holds(groups, enc.hi, level)):
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
            and sign_in_balls(lambda: sympy_to_arb(theta), MAX_PREC) == 1)


def _pair_dist(groups: Groups) -> dict[Fraction, Fraction]:
    num, den = _law(groups)
    if num.degree() >= MAX_POINTS:
        raise InstanceTooLarge(f"a class of {num.degree()} members; at most MAX_POINTS − 1 = {MAX_POINTS - 1}.")
    return {Fraction(j): Fraction(int(v), den) for j, v in enumerate(num.coeffs()) if v}


def _witness(A: dict[Fraction, Fraction], B: dict[Fraction, Fraction], theta: Fraction, j: int,
             level: PrivacyLevel) -> bool:
    """|ln g_A(j) − ln g_B(j)| > ε at θ, certified (g_D(j) = Σ_i D(i) e^{−|j − i|/θ})."""
    def f() -> arb:
        g = [sum((arb_from_fraction(m) * arb_from_fraction(-abs(j - i) / theta).exp()
                  for i, m in D.items()), arb(0)) for D in (A, B)]
        return abs(g[0].log() - g[1].log()) - sympy_to_arb(level.eps)
    return sign_in_balls(f, MAX_PREC) == 1


def _check_class_pair(env: Envelope) -> bool:
    q, c, ev = read_parts(env, ("a", "b", "level"), ("least", "witness"), ("tol",))
    ga, gb = (_groups(q[k], f"question.{k}", False) for k in ("a", "b"))
    A, B = _pair_dist(ga), _pair_dist(gb)
    level, tol = strict_level(q["level"]), None if ev["tol"] is None else _evidence_tol(ev["tol"])
    enc = read_least(c["least"])
    if enc is None:
        return c["witness"] is None and brackets(A, B, level, None)
    j = read_int(c["witness"], "claim.witness", 0, max(sum(n for _, n in g) for g in (ga, gb)))
    return brackets(A, B, level, enc, tol) and _witness(A, B, enc.lo, j, level)


# -------------------------------------------------------------------------- check
def check_pufferfish_more(doc: Any) -> bool:
    """Re-check a document of :data:`MORE_KINDS` (InvalidArgument when malformed,
    InstanceTooLarge beyond the limits, False when a claim does not re-check)."""
    env = read_envelope(doc, MORE_KINDS)
    check = {CertificateKind.PUFFERFISH_CLASS_SCALE.value: _check_class_scale,
             CertificateKind.PUFFERFISH_CLASS_PAIR.value: _check_class_pair,
             CertificateKind.PUFFERFISH_DISCRETE_LAPLACE.value: _check_discrete}.get(env.kind)
    if check is not None:
        return check(env)
    q, c, _ = read_parts(env, ("groups",), ("numerator", "denominator"))
    num, den = _law(_groups(q["groups"], "question.groups", False))
    claimed = read_poly(c["numerator"], "claim.numerator", integer=True)
    return (list(reversed(claimed)) == [Fraction(int(v)) for v in num.coeffs()]
            and read_rational(c["denominator"], "claim.denominator", integer=True) == den)
