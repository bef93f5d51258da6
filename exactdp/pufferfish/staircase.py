"""Staircase noise (Geng–Viswanath) for a Pufferfish secret pair: the exact privacy loss.

The staircase law with sensitivity Δ > 0, design level ε₀ > 0 and γ ∈ [0, 1] has density
f(x) = a·b^{e(|x|)}, b = e^{−ε₀}, a = (1 − b)/(2Δ(γ + (1 − γ)b)), with the step index
e(r) = k + [r − kΔ ≥ γΔ] for r ∈ [kΔ, (k + 1)Δ) (``proofs/pufferfish_staircase.py`` (0)).

For a secret pair (P, Q) the release X + Z loses, for every population, exactly
L = sup_y |ln Σ_d P(d) b^{e(|y−d|)} − ln Σ_d Q(d) b^{e(|y−d|)}| (the mediant argument of
``proofs/pufferfish_supremum.py`` (1)–(2) holds for any noise density; a point-mass rest
attains it; L is an essential supremum — densities are defined up to null sets, so the
break points themselves do not count). The density ratio is PIECEWISE CONSTANT: between consecutive break points
d ± kΔ, d ± (k + γ)Δ it is a ratio of two polynomials in b with rational coefficients, and
beyond the support it is periodic with period Δ ((2)), so L is a maximum over finitely many
pieces of [s_0 − Δ, s_m + Δ] ((3)). What is certified:

- each piece's ratio EXACTLY, as two polynomials in b (``StaircaseLoss.numerator`` /
  ``denominator`` at the worst piece);
- when b is rational (ε₀ = ln of a rational, e.g. ``"ln(2)"``) the loss is ln of an exact
  rational (``ratio_exact``); otherwise an arb enclosure of it;
- a verdict L ≤ ε, decided by certified balls, and exactly (sympy-proved equality) where a
  piece's ball meets ε — e.g. L = ε₀ for a point pair at Δ = |a − b| (``(4)`` proves only
  L ≤ ε₀ for Δ ≥ W∞; equality is then a property of the instance, decided by sympy).

``StaircaseLoss.verify()`` recomputes everything from the stored inputs (P, Q, Δ, ε₀, γ) at
precisions it chooses (:data:`~exactdp.pufferfish.containment.VERIFY_PRECS`; the stored
``prec`` is ignored): the worst output must be a piece midpoint whose exact ratio is the
stored numerator/denominator, that ratio must be the maximum (exactly when b is rational; no
piece certified larger at 1024 bits otherwise), and the stored enclosure must CONTAIN the
recomputed one.

The "least parameter" is NOT offered: L is not monotone in Δ for mixtures (a certified
counterexample is in ``tests/pufferfish/test_pufferfish_staircase.py``), so a least Δ is
not the threshold above which every Δ is private. Δ = W∞(P, Q) with ε₀ = ε is always
private ((4), the staircase is ε₀-DP for shifts ≤ Δ).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy
from flint import arb

from exactdp.arithmetic.ball import arb_from_fraction, arb_to_fraction_interval, sympy_to_arb, workprec
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rationals import to_sympy
from exactdp.arithmetic.validate import read_positive, read_probability
from exactdp.engine.documents import write_dist
from exactdp.errors import REJECTED_ERRORS, CertificateInvalid, InstanceTooLarge, InvalidArgument, InvalidScale
from exactdp.kernel.jsonio import envelope, read_enclosure, read_poly, write_enclosure, write_rational
from exactdp.kernel.pufferfish_mechanisms import staircase_work
from exactdp.kernel.question import read_level, write_level
from exactdp.kernel.verify import verify_document
from exactdp.kinds import CertificateKind, Sign, Verdict, proved_by
from exactdp.pufferfish.bernoulli_forms import exact_sign
from exactdp.pufferfish.containment import VERIFY_PRECS, stored_contains_truth
from exactdp.pufferfish.distributions import DiscreteDistribution
from exactdp.pufferfish.loss import union_points
from exactdp.pufferfish.secrets import pair_laws
from exactdp.spaces.levels import PrivacyLevel, parse_level

__all__ = ["Staircase", "StaircaseLoss", "staircase_loss", "MAX_PIECES", "read_checked"]

#: Refuse windows with more break points than this (support span / Δ too large).
MAX_PIECES = 200_000


@dataclass(frozen=True)
class Staircase:
    """The staircase noise law: sensitivity Δ, design level ε₀ (b = e^{−ε₀}), γ ∈ [0, 1].

    >>> z = Staircase.of(1, "ln(2)", "1/2")
    >>> z.b, z.step(Fraction(3, 2)), z.step(Fraction(-1, 4))
    (Fraction(1, 2), 2, 0)
    """

    delta: Fraction
    eps: sympy.Expr
    gamma: Fraction

    @classmethod
    def of(cls, delta: Any, eps: Any, gamma: Any) -> Staircase:
        """Read and check the three parameters (specific errors naming the bad one)."""
        d = read_positive(delta, "delta (the staircase sensitivity Δ)", InvalidScale)
        try:
            level = parse_level(eps=eps)
        except InvalidArgument as exc:  # name the staircase's own parameter, not a target ε
            raise type(exc)(f"Bad staircase design level eps0 (ε₀; --eps0 on the command "
                            f"line): {exc}") from exc
        g = read_probability(gamma, "gamma (the staircase γ, in [0, 1])", InvalidScale)
        return cls(d, level.eps, g)

    @property
    def b(self) -> Fraction | None:
        """b = e^{−ε₀} when it is rational, else None."""
        return parse_level(eps=self.eps).t

    def b_expr(self) -> sympy.Expr:
        """b = e^{−ε₀} exactly."""
        return sympy.exp(-self.eps)

    def step(self, x: Fraction) -> int:
        """e(|x|): the density at x is a·b^{e(|x|)}."""
        r = abs(Fraction(x)) / self.delta
        k = math.floor(r)
        return k + (1 if r - k >= self.gamma else 0)

    def normalizer(self) -> sympy.Expr:
        """a = (1 − b)/(2Δ(γ + (1 − γ)b)) (``proofs/pufferfish_staircase.py`` (0))."""
        b = self.b_expr()
        g = to_sympy(self.gamma)
        return (1 - b) / (2 * to_sympy(self.delta) * (g + (1 - g) * b))


def _poly(dist: DiscreteDistribution, z: Staircase, y: Fraction, shift: int) -> dict[int, Fraction]:
    out: dict[int, Fraction] = {}
    for d, w in zip(dist.support, dist.probs):
        e = z.step(y - d) - shift
        out[e] = out.get(e, Fraction(0)) + w
    return out


def _pieces(P: DiscreteDistribution, Q: DiscreteDistribution, z: Staircase) -> list[Fraction]:
    """Midpoints of the pieces of [s_0 − Δ, s_m + Δ] between consecutive break points."""
    pts = union_points(P, Q)
    lo, hi = pts[0] - z.delta, pts[-1] + z.delta
    span = (hi - lo) / z.delta
    if 4 * len(pts) * (span + 2) > MAX_PIECES:
        steps = int(span)
        shown = str(steps) if steps < 10**12 else f"about 10^{len(str(steps)) - 1}"
        raise InstanceTooLarge(
            f"Got a support spanning {shown} staircase steps of Δ = {_short(z.delta)}; at most "
            f"about {MAX_PIECES} break points are enumerated. Use a larger Δ or fewer points.")
    breaks = {lo, hi}
    for d in pts:
        kmin = math.floor((lo - d) / z.delta) - 1
        kmax = math.ceil((hi - d) / z.delta) + 1
        for k in range(kmin, kmax + 1):
            for off in (Fraction(k), k + z.gamma, k - z.gamma):
                x = d + off * z.delta
                if lo < x < hi:
                    breaks.add(x)
    cuts = sorted(breaks)
    return [(u + v) / 2 for u, v in zip(cuts, cuts[1:])]


def _short(q: Fraction) -> str:
    """A rational for a message: itself when short, else its order of magnitude."""
    text = str(q)
    if len(text) <= 40:
        return text
    return f"about 2^{q.numerator.bit_length() - q.denominator.bit_length()}"


_Poly = tuple[tuple[int, Fraction], ...]


def _key(P: DiscreteDistribution, Q: DiscreteDistribution, z: Staircase, y: Fraction
         ) -> tuple[_Poly, _Poly]:
    """The exact ratio at output y as (numerator, denominator) polynomials in b (shifted so
    the lowest exponent is 0)."""
    allp, allq = _poly(P, z, y, 0), _poly(Q, z, y, 0)
    shift = min(min(allp), min(allq))
    return (tuple(sorted((e - shift, w) for e, w in allp.items())),
            tuple(sorted((e - shift, w) for e, w in allq.items())))


def _ratios(P: DiscreteDistribution, Q: DiscreteDistribution, z: Staircase
            ) -> dict[tuple[_Poly, _Poly], Fraction]:
    """Each distinct exact ratio (num, den) in b over the pieces, with one output y for it."""
    out: dict[tuple[_Poly, _Poly], Fraction] = {}
    for y in _pieces(P, Q, z):
        out.setdefault(_key(P, Q, z, y), y)
    return out


def _eval(poly: dict[int, Fraction], b: arb) -> arb:
    return sum((arb_from_fraction(w) * b**e for e, w in poly.items() if w), arb(0))


def _exact_ratio(key: tuple[_Poly, _Poly], b: Fraction) -> Fraction:
    """max(R, 1/R) for the piece ratio R = num(b)/den(b), b rational."""
    rn = sum((w * b**e for e, w in key[0]), Fraction(0))
    rd = sum((w * b**e for e, w in key[1]), Fraction(0))
    return max(rn / rd, rd / rn)


def _abs_log_ball(key: tuple[_Poly, _Poly], b: arb) -> arb:
    return abs((_eval(dict(key[0]), b) / _eval(dict(key[1]), b)).log())


def _loss_enclosure(keys: list[tuple[_Poly, _Poly]], z: Staircase, prec: int) -> Enclosure:
    """lo ≤ L = max over pieces of |ln R| ≤ hi at ``prec`` bits (exact max first when b is
    rational)."""
    b_exact = z.b
    with workprec(prec):
        if b_exact is not None:
            best = max(_exact_ratio(k, b_exact) for k in keys)
            return Enclosure(*arb_to_fraction_interval(arb_from_fraction(best).log()))
        b = sympy_to_arb(z.b_expr())
        ends = [arb_to_fraction_interval(_abs_log_ball(k, b)) for k in keys]
        return Enclosure(max(lo for lo, _ in ends), max(hi for _, hi in ends))


def _top_pieces(keys: list[tuple[_Poly, _Poly]], z: Staircase) -> list[tuple[_Poly, _Poly]]:
    """The pieces that may attain max |ln R| for irrational b: those whose ball is not
    certified below another's, at the first of 128…1024 bits leaving one (a
    tie closer than 2^−1024 is treated as equality: all tied pieces are returned)."""
    top = keys
    for prec in VERIFY_PRECS[:4]:
        with workprec(prec):
            b = sympy_to_arb(z.b_expr())
            ends = [arb_to_fraction_interval(_abs_log_ball(k, b)) for k in keys]
        floor = max(lo for lo, _ in ends)
        top = [k for k, (_, hi) in zip(keys, ends) if hi >= floor]
        if len(top) == 1:
            break
    return top


def _attains_max(key: tuple[_Poly, _Poly], keys: list[tuple[_Poly, _Poly]], z: Staircase) -> bool:
    """Does the piece ``key`` attain max |ln R|? Exactly for rational b; otherwise it must be
    one of :func:`_top_pieces`."""
    if z.b is not None:
        return _exact_ratio(key, z.b) == max(_exact_ratio(k, z.b) for k in keys)
    return key in _top_pieces(keys, z)


def read_checked(doc: Any, kind: CertificateKind) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """(question, claim, evidence) of a ``kind`` document once the kernel verifies it
    (InvalidArgument for another kind, CertificateInvalid when the kernel rejects it)."""
    if not isinstance(doc, dict) or doc.get("kind") != kind.value:
        got = doc.get("kind") if isinstance(doc, dict) else type(doc).__name__
        raise InvalidArgument(f"Got a document of kind {got!r}; this reads {kind.value!r} documents "
                              "(exactdp.pufferfish.documents.from_document reads every Pufferfish kind).")
    verdict = verify_document(doc)
    if not verdict.verified:
        raise CertificateInvalid(f"the kernel rejects this {kind.value} document: {verdict.reason}; do not use it.")
    return doc["question"], doc["claim"], doc["evidence"]


def _dense(poly: _Poly) -> list[str]:
    """Sparse (exponent, coefficient) pairs as descending coefficient strings."""
    coeffs = dict(poly)
    return [write_rational(coeffs.get(e, Fraction(0))) for e in range(max(coeffs), -1, -1)]


def _law(obj: dict[str, list[str]]) -> DiscreteDistribution:
    return DiscreteDistribution.from_lists(obj["support"], obj["probs"])


@dataclass(frozen=True)
class StaircaseLoss:
    """The exact privacy loss of X + staircase noise for a secret pair, every population.

    Attributes
    ----------
    P, Q : DiscreteDistribution
    noise : Staircase
    worst_output : Fraction
        An output y (midpoint of a worst piece) where |ln(num(b)/den(b))| = L.
    numerator, denominator : tuple of (exponent, coefficient)
        The exact ratio g_P(y)/g_Q(y) at the worst output as polynomials in b (a cancels).
    ratio_exact : Fraction or None
        max(R, 1/R) at the worst output when b is rational: L = ln(ratio_exact) exactly.
    loss : Enclosure
        lo ≤ L ≤ hi.
    pieces : int
        Number of pieces examined.
    prec : int
    """

    P: DiscreteDistribution
    Q: DiscreteDistribution
    noise: Staircase
    worst_output: Fraction
    numerator: tuple[tuple[int, Fraction], ...]
    denominator: tuple[tuple[int, Fraction], ...]
    ratio_exact: Fraction | None
    loss: Enclosure
    pieces: int
    prec: int

    def log_ratio_expr(self) -> sympy.Expr:
        """ln(num(b)/den(b)) at the worst output, exactly (sympy, b = e^{−ε₀})."""
        b = self.noise.b_expr()
        num = sum(to_sympy(w) * b**e for e, w in self.numerator)
        den = sum(to_sympy(w) * b**e for e, w in self.denominator)
        return sympy.log(num / den)

    def to_document(self) -> dict[str, Any]:
        """The ``pufferfish-staircase`` kernel document (question P, Q, Δ, ε₀, γ; every claim;
        ``prec`` as the writer's note), re-checked by ``exactdp verify`` in
        ``exactdp/kernel/pufferfish_mechanisms.py``; InstanceTooLarge beyond the kernel's limits.

        >>> from exactdp.pufferfish.secrets import ValuePair
        >>> r = staircase_loss(ValuePair(1, 0), 1, "ln(2)", "1/2")
        >>> doc = r.to_document()
        >>> doc["claim"]["ratio"], StaircaseLoss.from_document(doc) == r
        ('2', True)
        """
        P, Q = self.P.as_dict(), self.Q.as_dict()
        staircase_work(P, Q, self.noise.delta, self.noise.b, self.noise.gamma)
        return envelope(CertificateKind.PUFFERFISH_STAIRCASE,
                        {"P": write_dist(P), "Q": write_dist(Q), "delta": write_rational(self.noise.delta),
                         "eps0": write_level(parse_level(eps=self.noise.eps)),
                         "gamma": write_rational(self.noise.gamma)},
                        {"pieces": self.pieces, "worst_output": write_rational(self.worst_output),
                         "numerator": _dense(self.numerator), "denominator": _dense(self.denominator),
                         "ratio": None if self.ratio_exact is None else write_rational(self.ratio_exact),
                         "loss": write_enclosure(self.loss)}, {"prec": self.prec})

    @classmethod
    def from_document(cls, doc: Any) -> StaircaseLoss:
        """Re-check ``doc`` in the kernel, then rebuild the result (CertificateInvalid when
        the kernel rejects it)."""
        q, c, ev = read_checked(doc, CertificateKind.PUFFERFISH_STAIRCASE)
        level = read_level(q["eps0"], strict=True)
        assert isinstance(level, PrivacyLevel)  # the kernel read it
        noise = Staircase.of(Fraction(q["delta"]), level.eps, Fraction(q["gamma"]))

        def sparse(key: str) -> _Poly:
            coeffs = read_poly(c[key])
            return tuple((len(coeffs) - 1 - i, v) for i, v in reversed(list(enumerate(coeffs))) if v)
        return cls(_law(q["P"]), _law(q["Q"]), noise, Fraction(c["worst_output"]), sparse("numerator"),
                   sparse("denominator"), None if c["ratio"] is None else Fraction(c["ratio"]),
                   read_enclosure(c["loss"]), c["pieces"], ev["prec"])

    def decide(self, eps: Any) -> Verdict:
        """L ≤ ε? HOLDS / FAILS, proved piece by piece: balls first, and for every piece
        whose ball meets ε the exact sign of |ln R| − ε (sympy recognises equality, e.g.
        L = ε₀ for a point pair at Δ ≥ |a − b|)."""
        level = parse_level(eps=eps)
        prec = min(max(self.prec, 64), VERIFY_PRECS[-1]) if type(self.prec) is int else 128
        with workprec(prec):
            e_ball = sympy_to_arb(level.eps)
            if arb_from_fraction(self.loss.lo) > e_ball:
                return Verdict.FAILS
            if arb_from_fraction(self.loss.hi) < e_ball:
                return Verdict.HOLDS
        b = self.noise.b_expr()
        for num, den in _ratios(self.P, self.Q, self.noise):
            with workprec(prec):
                bb = sympy_to_arb(b)
                v = abs((_eval(dict(num), bb) / _eval(dict(den), bb)).log())
                if v < sympy_to_arb(level.eps):
                    continue
            expr = sympy.log(sum(to_sympy(w) * b**e for e, w in num)
                             / sum(to_sympy(w) * b**e for e, w in den))
            if Sign.POSITIVE in (exact_sign(expr - level.eps, max_prec=512),
                                 exact_sign(-expr - level.eps, max_prec=512)):
                return Verdict.FAILS
        return Verdict.HOLDS

    def verify(self) -> bool:
        """Recompute from the stored inputs at precisions chosen here (``prec`` is ignored):
        the piece count; the worst output is a piece midpoint whose exact ratio IS the stored
        numerator/denominator and attains the maximum; ``ratio_exact`` equals the exact
        maximum (b rational) or is None; the stored loss CONTAINS the recomputed enclosure."""
        try:
            P, Q = pair_laws((self.P, self.Q))
            z = Staircase.of(self.noise.delta, self.noise.eps, self.noise.gamma)
            if z != self.noise or not isinstance(self.worst_output, Fraction):
                return False
            mids = _pieces(P, Q, z)
            if type(self.pieces) is not int or self.pieces != len(mids):
                return False
            key = (self.numerator, self.denominator)
            if self.worst_output not in set(mids) or _key(P, Q, z, self.worst_output) != key:
                return False
            keys = list(_ratios(P, Q, z))
            if not _attains_max(key, keys, z):
                return False
            expected = None if z.b is None else _exact_ratio(key, z.b)
            if self.ratio_exact != expected or type(self.ratio_exact) is not type(expected):
                return False
            return stored_contains_truth((self.loss,), lambda prec: (_loss_enclosure(keys, z, prec),))
        except REJECTED_ERRORS:
            return False


@proved_by("pufferfish_staircase")
def staircase_loss(pair: Any, delta: Any, eps0: Any, gamma: Any, *, prec: int = 128) -> StaircaseLoss:
    """Exact privacy loss of X + staircase(Δ, ε₀, γ) for a secret pair, every population.

    Piecewise-constant ratios of polynomials in b = e^{−ε₀}, periodic beyond the support
    (``proofs/pufferfish_staircase.py``).

    >>> from exactdp.pufferfish.secrets import ValuePair
    >>> r = staircase_loss(ValuePair(1, 0), 1, "ln(2)", "1/2")   # Δ = |a − b|: loss ε₀
    >>> r.ratio_exact, r.decide("ln(2)"), r.verify()
    (Fraction(2, 1), <Verdict.HOLDS: 'holds'>, True)
    """
    P, Q = pair_laws(pair)
    z = Staircase.of(delta, eps0, gamma)
    ratios = _ratios(P, Q, z)
    keys = list(ratios)
    b_exact = z.b
    if b_exact is not None:
        worst = max(keys, key=lambda k: _exact_ratio(k, b_exact))
        ratio_best: Fraction | None = _exact_ratio(worst, b_exact)
    else:
        worst = _top_pieces(keys, z)[0]
        ratio_best = None
    return StaircaseLoss(P, Q, z, ratios[worst], worst[0], worst[1], ratio_best,
                         _loss_enclosure(keys, z, prec), len(_pieces(P, Q, z)), prec)
