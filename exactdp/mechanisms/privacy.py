"""The privacy level of a mechanism, exactly, and the privacy verdict at a given ε.

* :func:`privacy_level` — the least ε such that H is ε·d0-private:
  max over checked pairs (y, y') and outputs z of ln(h[y,z]/h[y',z]) / d0(y, y'),
  with the witness (y, y', z). Only the graph's edges are checked for graph metrics
  (``metric.check_edges()``; the path argument: if the inequality holds on every edge
  it holds along every shortest path, whose lengths add up to d0).
* :func:`is_private` — the verdict at a given ε, with a violation witness.

How the privacy level is computed exactly (:mod:`exactdp.mechanisms.privacy_routes`)
------------------------------------------------------------------------------------
*Monomial mechanisms* (h[y,z] = c_z s^{E[y,z]}, see :class:`exactdp.mechanisms.mechanism.MonomialForm`):
the ratio is s^{E[y,z] − E[y',z]}, so the level is (−ln s)·max Δ/d0 over integer Δ —
integer arithmetic only, exact for any s, even when the entries are only certified.

*Exact rational mechanisms*: float to find, exact to prove. Entries are converted to
floats with correct rounding, ratios are formed with one correctly rounded division,
so a float ratio is within a relative 2⁻⁵⁰ of the true ratio (entries whose float is below
2⁻¹⁰⁰⁰ — including every entry that underflows to 0 — are unknown and always treated as
candidates; proofs/mech_float_filter.py, lemma E1). For each
distance class, every (pair, z) whose float ratio is within a relative 10⁻¹² of the
class's float maximum is a *candidate*; the true maximum is among them. Candidates are
then compared exactly (``fmpq`` cross-multiplication), and the classes' maxima are
compared exactly as ln(R1)/d1 vs ln(R2)/d2 (certified balls, and exact integer powers
R1^a vs R2^b when the balls cannot separate them).

*Row-normalized mechanisms* (h = s^E / S_y(s), the exponential mechanism): the level is
max over edges of (Δ·(−ln s) + ln S_b(s) − ln S_a(s))/d; candidates are separated with balls of
rising precision and ties are decided exactly as polynomial identities in s (s transcendental)
or as identities of rationals (s rational).

*Certified mechanisms* (ball entries): candidates are chosen with directed float bounds of the
entries' *logarithms* (an entry whose ball reaches 0 is unknown and always kept — never read
as small, so entries of 10⁻⁴⁰⁰ or 10⁻⁸⁰⁰ are never dropped), then enclosed with balls; the
result is an enclosure, not an exact value. Every float filter is proved sound for every
representable input in ``proofs/mech_float_filter.py``.

*The verdict at ε* (:func:`is_private`) compares an exact level ln(R)/d with ε = ln(T)/d′
exactly (integer powers when d/d′ is rational, balls otherwise), with no float and no
simplification of large integers.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import sympy
from flint import arb

from exactdp.arithmetic.ball import Sign, arb_from_fraction, certified_sign, sympy_to_arb
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rationals import to_fraction, to_sympy, unlimited_int_digits
from exactdp.errors import CertificateInvalid, InvalidArgument, InvalidMechanism, PrecisionLimitReached
from exactdp.kernel.jsonio import write_closed_form, write_enclosure, write_rational
from exactdp.kinds import Verdict, proved_by
from exactdp.mechanisms.coerce import as_mechanism
from exactdp.mechanisms.constructors import from_rows
from exactdp.mechanisms.level_compare import approx_decimal, compare_log_ratio
from exactdp.mechanisms.mechanism import Mechanism, MechanismKind
from exactdp.mechanisms.privacy_json import accepted_document, check_document
from exactdp.mechanisms.privacy_result import PrivacyLevelResult, enclose_value
from exactdp.mechanisms.privacy_routes import level_ball, level_exact, level_monomial, level_rownorm
from exactdp.mechanisms.privacy_structured import form_in_force, level_merged, level_tight
from exactdp.mechanisms.structure import TightForm
from exactdp.spaces.distances import Distance
from exactdp.spaces.levels import parse_epsilon, parse_level
from exactdp.spaces.metrics import FiniteMetric

__all__ = ["PrivacyLevelResult", "PrivacyCheck", "privacy_level", "is_private"]


_METHODS = ("auto", "monomial", "row-monomial", "tight", "merged-monomial", "exact", "ball")


def _as_mechanism(mechanism: Any) -> Any:
    """A tight-constraints result stands for its mechanism H = Φ·diag(z), a loaded file for
    the mechanism it loaded (its row-sum report stays on the ``LoadedMechanism``); the rest
    unchanged."""
    return as_mechanism(mechanism)


def _check_shapes(mechanism: Mechanism, metric: FiniteMetric) -> None:
    if not isinstance(mechanism, Mechanism):
        raise InvalidMechanism(
            f"Got {type(mechanism).__name__}; pass an exactdp Mechanism "
            "(exactdp.mechanisms.from_rows(...) or from_numpy(...) turns a matrix into one; "
            "a tight_constraints(...) result or its .mechanism is accepted as it is)."
        )
    if mechanism.n_inputs != metric.n:
        raise InvalidMechanism(
            f"The mechanism has {mechanism.n_inputs} inputs but {metric.name} has "
            f"{metric.n} points; rows must correspond to the metric's points."
        )


def _pairs(metric: FiniteMetric) -> tuple[np.ndarray, np.ndarray]:
    edges = metric.check_edges()
    if not edges:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    arr = np.asarray(edges, dtype=np.int64).reshape(len(edges), 2)
    return arr[:, 0], arr[:, 1]


@proved_by("mech_geometric_rows")
def privacy_level(
    mechanism: Mechanism, metric: FiniteMetric, *, method: str = "auto"
) -> PrivacyLevelResult:
    """The smallest ε such that ``mechanism`` is ε·d0-private for ``metric``, exactly.

    The monomial closed form and the edges-only path argument: proofs/mech_geometric_rows.py.

    Parameters
    ----------
    mechanism : Mechanism
        Rows indexed by the metric's points.
    metric : FiniteMetric
        The metric d0; for graph metrics only the graph's edges are checked.
    method : {"auto", "monomial", "row-monomial", "tight", "merged-monomial", "exact", "ball"}
        "auto" uses the monomial form (h = c_z s^E), the tight-constraints structure
        (h = e^{-ε d}·z on its own metric: level exactly ε), merged monomial columns (the
        rectangular/offset geometric) or the row-normalized form (h = s^E / S_y(s), the
        exponential mechanism) when the mechanism has one — all exact for any s — else
        "exact" for exact mechanisms and "ball" for certified ones.

    Returns
    -------
    PrivacyLevelResult

    Examples
    --------
    >>> from exactdp.spaces.metrics import line
    >>> from exactdp.mechanisms.constructors import from_rows, truncated_geometric
    >>> H = from_rows([["3/4", "1/4"], ["1/4", "3/4"]])
    >>> r = privacy_level(H, line(2))
    >>> r.value, r.witness, r.verify()
    (log(3), (0, 1, 0), True)
    >>> privacy_level(truncated_geometric(5, eps="4/5"), line(5)).value
    4/5
    >>> privacy_level(from_rows([[1, 0], [0, 1]]), line(2)).value
    oo
    """
    mechanism = _as_mechanism(mechanism)
    _check_shapes(mechanism, metric)
    if method not in _METHODS:
        raise InvalidArgument(
            f"Got method={method!r}; choose one of {', '.join(map(repr, _METHODS))}."
        )
    I, J = _pairs(metric)
    if method in ("tight", "merged-monomial") or (
            method == "auto" and mechanism.monomial is None and mechanism.structure is not None):
        route = level_tight if isinstance(mechanism.structure, TightForm) else level_merged
        res = route(mechanism, metric, I, J)
        if res is not None:
            return res
        if method != "auto":
            raise InvalidArgument(
                f"method={method!r} does not apply to {mechanism.name} on {metric.name} (no "
                "such structure for this metric, or its bounds do not meet); use 'auto'.")
    if method == "auto":
        if mechanism.monomial is not None and form_in_force(mechanism, "monomial"):
            method = "monomial"
        elif (mechanism.row_normalized is not None
              and form_in_force(mechanism, "row-normalized")):
            method = "row-monomial"
        else:
            method = "exact" if mechanism.kind is MechanismKind.EXACT else "ball"
    if method == "row-monomial":
        if mechanism.row_normalized is None:
            raise InvalidArgument(f"{mechanism.name} has no row-normalized form.")
        if not form_in_force(mechanism, "row-normalized"):
            raise InvalidArgument(
                f"{mechanism.name}'s row-normalized form does not describe its entries (they "
                "are not provably s^E/S(s)); use method='auto' to read the level from the "
                "entries.")
        return level_rownorm(mechanism, metric, I, J)
    if method == "monomial":
        if mechanism.monomial is None:
            raise InvalidArgument(f"{mechanism.name} has no monomial form; use method='exact'.")
        if not form_in_force(mechanism, "monomial"):
            raise InvalidArgument(
                f"{mechanism.name}'s monomial form does not describe its entries (they are not "
                "provably c·s^E); use method='auto' to read the level from the entries.")
        return level_monomial(mechanism, metric, I, J)
    if method == "exact":
        if mechanism.kind is not MechanismKind.EXACT:
            raise InvalidMechanism(
                f"{mechanism.name} is certified (balls): its level can only be enclosed; "
                "use method='ball'."
            )
        return level_exact(mechanism, metric, I, J)
    return level_ball(mechanism, metric, I, J)


#: Precisions (bits) at which an exact nonzero excess is enclosed until its sign is proved.
EXCESS_PRECISIONS = (128, 512, 2048, 8192, 32768)


def _short_form(ex: sympy.Expr) -> bool:
    """True when the closed form is small enough to print (no integer over 400 bits)."""
    return all(abs(int(a.p)).bit_length() <= 400 and abs(int(a.q)).bit_length() <= 400
               for a in ex.atoms(sympy.Rational))


def _enc_text(enc: Enclosure) -> str:
    """[lo, hi] with 3-digit decimals (the exact ends are in ``excess_enclosure``)."""
    return f"[{approx_decimal(enc.lo) if enc.lo >= 0 else '-' + approx_decimal(-enc.lo)}, " \
           f"{approx_decimal(enc.hi) if enc.hi >= 0 else '-' + approx_decimal(-enc.hi)}]"


@dataclass(frozen=True)
class PrivacyCheck:
    """Verdict of :func:`is_private`.

    Attributes
    ----------
    private : bool
        Certified verdict: H is ε·d0-private.
    eps : sympy.Expr
        The level asked about.
    level : PrivacyLevelResult
        The mechanism's own (least) level.
    violation : tuple[int, int, int] | None
        (y, y', z) with h[y, z] > e^{ε·d0(y, y')}·h[y', z] when not private.
    precision : int | None
        Bits used by the ball comparison that settled the verdict (None if exact).
    slack : Fraction
        The stated margin: the verdict is about ε + slack (0 unless ``slack=`` was given).

    ``excess`` is level − ε exactly (None when the level is only enclosed) and
    ``excess_enclosure`` a certified enclosure of it: by how much the level exceeds ε
    (negative when it is below). ``verdict`` is the same answer as a :class:`~exactdp.kinds.Verdict` (always decided:
    an undecidable comparison raises :class:`~exactdp.errors.PrecisionLimitReached`).
    """

    private: bool
    eps: sympy.Expr
    level: PrivacyLevelResult
    violation: tuple[int, int, int] | None
    precision: int | None
    slack: Fraction = Fraction(0)

    def __bool__(self) -> bool:
        return self.private

    @property
    def target(self) -> sympy.Expr:
        """ε + slack: the level the verdict is about."""
        return self.eps + to_sympy(self.slack) if self.slack else self.eps

    @property
    def excess(self) -> sympy.Expr | None:
        """level − ε exactly (``oo`` for an infinite level; None when only enclosed)."""
        if self.level.is_infinite:
            return sympy.oo
        if self.level.value is None:
            return None
        return self.level.value - self.eps

    @property
    def excess_enclosure(self) -> Enclosure | None:
        """Certified enclosure of level − ε (None for an infinite level).

        >>> from exactdp.spaces.metrics import line
        >>> from exactdp.mechanisms.constructors import truncated_geometric
        >>> c = is_private(truncated_geometric(3, eps=1), line(3), eps="9/10")
        >>> c.excess, c.excess_enclosure.contains(Fraction(1, 10))
        (1/10, True)
        """
        if self.level.is_infinite or self.level.enclosure is None:
            return None
        ex = self.excess
        if ex is not None:
            # the exact excess: enclose it at rising precision until its sign is proved
            # (a nonzero exact difference), so the text never contradicts the verdict
            with unlimited_int_digits():
                if ex == 0:
                    return Enclosure(Fraction(0), Fraction(0))
                enc = None
                for prec in EXCESS_PRECISIONS:
                    enc = enclose_value(ex, prec)
                    if enc.lo > 0 or enc.hi < 0:
                        return enc
            assert enc is not None
            return enc  # sign not proved (an exact 0 sympy does not recognise)
        e = enclose_value(self.eps)
        return Enclosure(self.level.enclosure.lo - e.hi, self.level.enclosure.hi - e.lo)

    def excess_text(self) -> str:
        """level − ε in words: exact when the level is exact (0 prints as "equals ε
        exactly"), else the certified enclosure.

        >>> from exactdp.spaces.metrics import line
        >>> from exactdp.mechanisms.constructors import truncated_geometric
        >>> H = truncated_geometric(3, eps=1)
        >>> is_private(H, line(3), eps=1).excess_text()
        'the level equals ε exactly'
        >>> is_private(H, line(3), eps="9/10").excess_text()
        'the level exceeds ε by 1/10 exactly'
        """
        ex = self.excess
        if ex is sympy.oo:
            return "the level is infinite"
        enc = self.excess_enclosure
        if ex is not None and ex == 0:
            return "the level equals ε exactly"
        if enc is None:
            return "level − ε unknown"
        word = ("exceeds ε by" if enc.lo > 0 else "is below ε by" if enc.hi < 0
                else "differs from ε by")
        mag = approx_decimal(abs(enc.mid))
        if ex is not None:
            with unlimited_int_digits():
                text = (str(ex if enc.lo > 0 else -ex)
                        if (enc.lo > 0 or enc.hi < 0) and _short_form(ex) else "")
            if text and len(text) <= 40:
                return f"the level {word} {text} exactly" + (
                    "" if isinstance(ex, sympy.Rational) else f" (≈ {mag})")
            return (f"the level {word} ≈ {mag} (certified {_enc_text(enc)}; the exact "
                    "difference is in .excess)")
        return f"the level {word} ≈ {mag} (certified {_enc_text(enc)})"

    def at_text(self) -> str:
        """"ε = … + slack …" for messages; a slack whose exact form is long (over 40
        characters) is shown as a 3-digit decimal (the exact value is ``.slack``).

        >>> from exactdp.mechanisms.constructors import truncated_geometric
        >>> from exactdp.spaces.metrics import line
        >>> c = is_private(truncated_geometric(2, eps=1), line(2), eps=1, slack=Fraction(1, 3 * 10**60))
        >>> c.at_text()
        'ε = 1 + slack ≈ 3.33e-61 (exact: .slack)'
        """
        if not self.slack:
            return f"ε = {self.eps}"
        text = str(self.slack)
        if len(text) > 40:
            text = f"≈ {approx_decimal(self.slack)} (exact: .slack)"
        return f"ε = {self.eps} + slack {text}"

    def __str__(self) -> str:
        said = "private" if self.private else "NOT private"
        at = self.at_text()
        text = f"{said} at {at}; least ε = {self.level.short()}"
        enc = self.excess_enclosure
        if self.excess == 0 or (enc is not None and enc.hi > 0) or self.excess is sympy.oo:
            text += "; " + self.excess_text()
        if self.violation is not None:
            text += f"; witness (y, y', z) = {self.violation}"
        return text

    def to_document(self) -> dict[str, Any]:
        """The self-contained kernel document (kind ``privacy-check``; ``exactdp verify``):
        :func:`~exactdp.mechanisms.privacy_json.check_document`."""
        return check_document(self)

    @classmethod
    def from_document(cls, doc: Any) -> PrivacyCheck:
        """Read :meth:`to_document` back: the kernel re-checks it first (rejected:
        :class:`~exactdp.errors.CertificateInvalid`), then the verdict is recomputed with
        :func:`is_private` on the same question and must agree."""
        q, claim = accepted_document(doc, "privacy-check")
        assert q.mechanism is not None and q.level is not None
        eps = q.level.eps  # type: ignore[union-attr]
        chk = is_private(from_rows(q.mechanism), q.metric, eps=eps)
        if chk.private != (claim["verdict"] == "holds"):
            raise CertificateInvalid("the kernel accepted the document but is_private "
                                     "disagrees; please report this as a bug.")
        return chk

    def to_json(self) -> dict[str, Any]:
        """Exact JSON (not a kernel document; see :meth:`to_document`): verdict, ε, slack,
        the level, the excess (closed form + enclosure)."""
        enc = self.excess_enclosure
        ex = self.excess
        with unlimited_int_digits():
            return self._json(enc, ex)

    def _json(self, enc: Enclosure | None, ex: sympy.Expr | None) -> dict[str, Any]:
        return {
            "verdict": self.verdict.value, "private": self.private,
            "eps": write_closed_form(self.eps), "slack": write_rational(self.slack),
            # null when level − ε is infinite, unknown or too long to write (the exact level
            # is in "level"; the certified enclosure is always here)
            "excess": None if ex is None or ex is sympy.oo or not _short_form(ex)
            else write_closed_form(ex),
            "excess_infinite": ex is sympy.oo,
            "excess_enclosure": None if enc is None else write_enclosure(enc),
            "violation": None if self.violation is None else list(self.violation),
            "precision": self.precision, "level": self.level.to_json(),
        }

    @property
    def verdict(self) -> Verdict:
        """``HOLDS`` when H is ε·d0-private, ``FAILS`` otherwise."""
        return Verdict.from_bool(self.private)

    def verify(self) -> bool:
        """Re-verify the level, and the comparison with ε."""
        if not self.level.verify():
            return False
        expected_violation = None if self.private else self.level.witness
        if self.violation != expected_violation:
            return False
        if self.level.is_infinite:
            return not self.private
        try:
            return self.private == (_level_le_eps(self.level, self.target)[0])
        except PrecisionLimitReached:
            return False


def _log_form(eps: sympy.Expr) -> tuple[Fraction, Distance] | None:
    """ε = ln(T)/d exactly, with T > 1 rational and d = c·√r, when ε = k·√r·ln(T′); else None.

    Reads the sympy tree without evaluating or simplifying anything (no float, no factoring of
    large integers): factors are a rational k, at most one √r (r a positive integer) and
    exactly one log of a positive rational.
    """
    k = Fraction(1)
    radicand = 1
    log_arg: Fraction | None = None
    for f in sympy.Mul.make_args(eps):
        if isinstance(f, sympy.Rational):
            k *= to_fraction(f)
        elif (isinstance(f, sympy.Pow) and f.exp == sympy.Rational(1, 2)
              and isinstance(f.base, sympy.Integer) and f.base > 1 and radicand == 1):
            radicand = int(f.base)
        elif (isinstance(f, sympy.log) and log_arg is None
              and isinstance(f.args[0], sympy.Rational) and f.args[0] > 0):
            log_arg = to_fraction(f.args[0])
        else:
            return None
    if log_arg is None or log_arg == 1 or k == 0:
        return None
    if log_arg < 1:
        log_arg, k = 1 / log_arg, -k
    if k < 0:
        return None
    # ε = k √r ln T = ln T / d with d = 1/(k √r) = √r/(k r)
    if radicand.bit_length() <= 64:
        root = Distance.sqrt_of(Fraction(radicand))  # squarefree radicand (small: cheap)
        d = Distance(1 / (k * root.coef * root.radicand), root.radicand)  # √r = c·√r′
    else:
        d = Distance(1 / (k * radicand), radicand)
    return log_arg, d


def _level_le_eps(level: PrivacyLevelResult, eps: sympy.Expr) -> tuple[bool, int | None]:
    """Decide level ≤ ε exactly (or with balls of rising precision where the values differ).

    No float and no ``sympy.simplify`` of large rationals: an exact level ln(R)/d is compared
    with ε = ln(T)/d′ by :func:`~exactdp.mechanisms.level_compare.compare_log_ratio` (integer
    powers when d/d′ is rational; balls otherwise, where Gelfond–Schneider rules out equality).
    """
    if level.is_infinite:
        return False, None
    if level.value is not None and level.value == eps:
        return True, None  # the same closed form
    R, dist = level.ratio, level.distance
    if level.value is not None and R is not None and dist is not None and R >= 1:
        # value = ln(R)/d exactly (exact, monomial with rational s, row-monomial)
        form = _log_form(eps)
        if form is not None:
            return compare_log_ratio(R, dist, form[0], form[1]) <= 0, None
        if isinstance(eps, sympy.Rational) and R != 1:
            # ln(R)/d = rational q > 0 would make e^{q·d} algebraic: impossible (Lindemann)
            sign, prec = certified_sign(
                lambda p: arb_from_fraction(R).log() / dist.ball() - sympy_to_arb(eps),
                what="level − ε")
            return sign is Sign.NEGATIVE, prec
    if level.value is not None:
        diff = level.value - eps
        if diff == 0:
            return True, None
        if diff.is_number and diff.is_comparable is not False:
            try:
                sign, prec = certified_sign(lambda p: sympy_to_arb(diff), max_prec=1024,
                                            what="level − ε")
                return sign is not Sign.POSITIVE, prec
            except PrecisionLimitReached:
                pass
            if _is_zero_symbolically(diff):
                return True, None
            raise PrecisionLimitReached(
                f"could not decide whether the level {level.value} is ≤ ε = {eps}: they agree "
                "to 1024 bits and sympy cannot prove them equal; pass ε as the level's own "
                "closed form (privacy_level(H, d).value) or a rational."
            )
    assert level.enclosure is not None
    lo, hi = level.enclosure.lo, level.enclosure.hi

    def ev_hi(prec: int) -> arb:
        return sympy_to_arb(eps) - arb_from_fraction(hi)

    sign, prec = certified_sign(ev_hi, what="ε − level upper bound")
    if sign in (Sign.POSITIVE, Sign.ZERO):
        return True, prec
    sign2, prec2 = certified_sign(
        lambda p: arb_from_fraction(lo) - sympy_to_arb(eps), what="level lower bound − ε"
    )
    if sign2 is Sign.POSITIVE:
        return False, prec2
    raise PrecisionLimitReached(
        f"the certified level enclosure [{float(lo)!r}, {float(hi)!r}] (≈) contains ε = "
        f"{eps}; nothing was decided. Pass ε as a rational or as ln(T)/d (decided exactly), "
        "or, for a certified (ball) mechanism, rebuild it at a higher precision."
    )


def _is_zero_symbolically(diff: sympy.Expr) -> bool:
    """sympy's simplification of a small expression; large integers are never factored."""
    if any(isinstance(a, sympy.Integer) and abs(int(a)).bit_length() > 64
           for a in diff.atoms(sympy.Integer)):
        return False
    try:
        return bool(sympy.simplify(diff) == 0)
    except (OverflowError, RecursionError):
        return False


def is_private(
    mechanism: Mechanism, metric: FiniteMetric, eps: Any = None, *, t: Any = None,
    slack: Any = None,
) -> PrivacyCheck:
    """Decide whether ``mechanism`` is ε·d0-private, with a violation witness if not.

    ``slack`` (an exact rational ≥ 0, e.g. ``"1e-12"``) asks instead whether it is
    (ε + slack)·d0-private: a stated margin for float rounding, recorded in the result.
    The result reports the exact excess level − ε either way.

    >>> from exactdp.spaces.metrics import line
    >>> from exactdp.mechanisms.constructors import truncated_geometric
    >>> H = truncated_geometric(4, t="1/2")
    >>> bool(is_private(H, line(4), t="1/2")), bool(is_private(H, line(4), t="3/4"))
    (True, False)
    >>> is_private(H, line(4), t="3/4").violation     # h[0,0] = 2·h[1,0] > e^ε·h[1,0]
    (0, 1, 0)
    >>> from exactdp.mechanisms.constructors import from_rows
    >>> G = from_rows([["3/4", "1/4"], ["1/4", "3/4"]])         # level ln 3 ≈ 1.0986
    >>> bool(is_private(G, line(2), eps="11/10")), bool(is_private(G, line(2), eps=1))
    (True, False)
    >>> bool(is_private(G, line(2), eps=1, slack="1/10"))
    True
    """
    mechanism = _as_mechanism(mechanism)
    _check_shapes(mechanism, metric)
    if t is None and eps is not None:
        # parse_epsilon, not parse_level: nothing here needs t = e^-ε, and parse_level's
        # simplification of e^-ε factors the integers of ε (OverflowError at 10^101 digits)
        eps_expr = parse_epsilon(eps)
    else:
        eps_expr = parse_level(eps=eps, t=t).eps
    margin = Fraction(0) if slack is None else to_fraction(slack, "slack")
    if margin < 0:
        raise InvalidArgument(
            f"Got slack={slack!r}; a slack is a margin ≥ 0 added to ε (e.g. '1e-12').")
    level = privacy_level(mechanism, metric)
    target = eps_expr + to_sympy(margin) if margin else eps_expr
    ok, prec = _level_le_eps(level, target)
    return PrivacyCheck(
        private=ok, eps=eps_expr, level=level, violation=None if ok else level.witness,
        precision=prec, slack=margin,
    )
