"""The result of :func:`exactdp.mechanisms.privacy.privacy_level`, and its independent re-check.

:class:`PrivacyLevelResult` carries the level's exact value (a sympy expression: ``log(R)/d``,
``κ·(−log s)``, ``oo``) when one is known, and always a certified
:class:`~exactdp.arithmetic.interval.Enclosure` of it (unless infinite): a certified-only result
(ball mechanisms) has ``value=None``. ``verify()`` re-checks every pair by brute force.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
import sympy

from exactdp.arithmetic.ball import (
    arb_from_fraction,
    arb_to_fraction_interval,
    sympy_to_arb,
    workprec,
)
from exactdp.arithmetic.expressions import structural_sign
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rationals import to_fraction, unlimited_int_digits
from exactdp.arithmetic.rounding import require_subnormals, succ
from exactdp.errors import REJECTED_ERRORS
from exactdp.mechanisms.dyadic import DyadicRatios
from exactdp.mechanisms.float_filter import float_below, log_bounds, log_ratio_upper
from exactdp.mechanisms.level_compare import (
    compare_kappa,
    compare_log_ratio,
    log_ratio_bounds,
    log_ratio_value,
    monomial_value,
    rownorm_equal,
    rownorm_value,
    rownorm_value_ball,
)
from exactdp.mechanisms.mechanism import Mechanism, MechanismKind
from exactdp.mechanisms.privacy_json import level_document
from exactdp.mechanisms.privacy_level_io import (
    LEVEL_METHODS,
    VALUE_BY_RATIO,
    level_from_json,
    level_from_kernel_document,
    level_hash,
    level_to_json,
    same_level,
)
from exactdp.mechanisms.structure import (
    monomial_matches,
    rownorm_matches,
    verify_merged_claim,
    verify_tight_claim,
)
from exactdp.spaces.distances import Distance
from exactdp.spaces.metrics import FiniteMetric
from exactdp.spaces.metrics.claims import graph_claim_error

__all__ = ["PrivacyLevelResult", "zero_level", "enclose_value", "VALUE_BY_RATIO"]


@dataclass(frozen=True)
class PrivacyLevelResult:
    """The least ε for which a mechanism is ε·d0-private.

    Attributes
    ----------
    value : sympy.Expr | None
        The exact value (``log(R)/d`` or ``κ·(−log s)``), ``sympy.oo`` when no ε works;
        ``None`` when only an enclosure is known (certified mechanisms).
    enclosure : Enclosure | None
        Certified rational interval containing the level (None when infinite).
    witness : tuple[int, int, int] | None
        (y, y', z) attaining the maximum: h[y, z] = e^{level·d0(y, y')}·h[y', z]
        (or h[y, z] > 0 = h[y', z] when the level is infinite). None for a one-point space.
    ratio : Fraction | None
        h[y, z]/h[y', z] at the witness (exact mechanisms).
    distance : Distance | None
        d0(y, y') at the witness.
    method : str
        "monomial", "row-monomial", "exact", "ball", "tight" (tight-constraints structure)
        or "merged-monomial" (merged monomial columns: rectangular/offset geometric).
    pairs_checked : int
        Number of unordered pairs examined (edges of the graph, or all pairs).

    ``exact`` (a property) is True when the exact ``value`` is known: the kind of the answer
    is read from which fields are set, never from a separate flag.
    """

    value: sympy.Expr | None
    enclosure: Enclosure | None
    witness: tuple[int, int, int] | None
    ratio: Fraction | None
    distance: Distance | None
    method: str
    pairs_checked: int
    _mechanism: Mechanism = field(repr=False, compare=False)
    _metric: FiniteMetric = field(repr=False, compare=False)

    @property
    def exact(self) -> bool:
        """True when the exact value is known (``value`` is set); False for an enclosure only."""
        return self.value is not None

    @property
    def is_infinite(self) -> bool:
        return self.value is sympy.oo

    def __float__(self) -> float:
        if self.is_infinite:
            return float("inf")
        assert self.enclosure is not None
        return float(self.enclosure.mid)

    def short(self, digits: int = 15) -> str:
        """The level in a readable form: the closed form when short, else a certified decimal.

        A level ``log(R)/d`` with a 400-digit R prints as ``≈ 1.00000000000000022 (certified
        [lo, hi]; exact: log of a 41-digit rational)``; ``value`` (or ``to_json()``) keeps the
        exact form.

        >>> from exactdp.spaces.metrics import line
        >>> from exactdp.mechanisms.constructors import from_rows
        >>> from exactdp.mechanisms.privacy import privacy_level
        >>> privacy_level(from_rows([["3/4", "1/4"], ["1/4", "3/4"]]), line(2)).short()
        'log(3)'
        """
        if self.is_infinite:
            return "∞ (an output some input never produces)"
        bits = 0 if self.ratio is None else (self.ratio.numerator.bit_length()
                                             + self.ratio.denominator.bit_length())
        text = None
        if self.value is not None and bits <= 400:  # never print a huge rational in full
            with unlimited_int_digits():
                text = str(self.value)
        if text is not None and len(text) <= 40:
            return text
        assert self.enclosure is not None
        enc = self.enclosure
        approx = f"≈ {float(enc.mid):.{digits}g} (certified {enc}"
        if self.value is None:
            return approx + "; enclosure only)"
        if self.ratio is None:
            what = "closed form"
        elif bits <= 400:
            what = f"log of a {len(str(self.ratio))}-character rational"
        else:
            what = f"log of a rational of about {int(bits * 0.30103)} digits"
        return approx + f"; exact: {what}, in .value)"

    def __str__(self) -> str:
        return self.short()

    def verify(self) -> bool:
        """Re-check the claim by brute force over every checked pair and output.

        Independent of the search: checks that the witness attains the value, and that
        no (y, y', z) exceeds it (exact rationals; balls for certified mechanisms).
        Cost is O(pairs × outputs) Python operations: meant for small and medium sizes.
        """
        try:
            return _verify_level(self)
        except REJECTED_ERRORS:
            return False  # a malformed (tampered) result is rejected, never an exception

    def to_json(self) -> dict[str, Any]:
        """Exact JSON (:mod:`exactdp.kernel.jsonio` forms): the closed form, the enclosure,
        the rational ratio and the distance c·√r; :meth:`from_json` reads it back
        (:mod:`exactdp.mechanisms.privacy_level_io`).

        >>> from exactdp.spaces.metrics import line
        >>> from exactdp.mechanisms.constructors import from_rows
        >>> from exactdp.mechanisms.privacy import privacy_level
        >>> H = from_rows([["3/4", "1/4"], ["1/4", "3/4"]])
        >>> doc = privacy_level(H, line(2)).to_json()
        >>> doc["value"], doc["ratio"]
        ('log(3)', '3')
        >>> back = PrivacyLevelResult.from_json(doc, H, line(2))
        >>> back == privacy_level(H, line(2)), back.verify()
        (True, True)
        """
        return level_to_json(self)

    def to_document(self) -> dict[str, Any]:
        """The self-contained kernel document (``exactdp verify``): :mod:`exactdp.mechanisms.privacy_json`."""
        return level_document(self)

    @classmethod
    def from_json(cls, doc: Any, mechanism: Mechanism, metric: FiniteMetric
                  ) -> PrivacyLevelResult:
        """Read :meth:`to_json` back, for the mechanism and metric it is about (then call
        :meth:`verify` to re-check it against them). Malformed documents raise
        :class:`~exactdp.errors.InvalidArgument` naming the field."""
        return level_from_json(cls, doc, mechanism, metric)

    @classmethod
    def from_document(cls, doc: Any) -> PrivacyLevelResult:
        """Read :meth:`to_document` back (a dict or its JSON text): the kernel re-checks it
        first (rejected: :class:`~exactdp.errors.CertificateInvalid`; another kind or a
        malformed document: :class:`~exactdp.errors.InvalidArgument`). The result is about
        the document's own mechanism (exact rows) and metric, and equals the original
        (``==``: the same exact value, enclosure, witness and distance; ``method`` says
        ``"exact"``, the document does not carry the route) when the document is the
        original's :meth:`to_document`. An enclosure with a lower end below 0 (which the
        kernel accepts) is cut to [0, hi], so the result's :meth:`verify` holds.

        >>> from exactdp.spaces.metrics import line
        >>> from exactdp.mechanisms.constructors import from_rows
        >>> from exactdp.mechanisms.privacy import privacy_level
        >>> r = privacy_level(from_rows([["3/4", "1/4"], ["1/4", "3/4"]]), line(2))
        >>> back = PrivacyLevelResult.from_document(r.to_document())
        >>> back.value, back == r, back.verify()
        (log(3), True, True)
        """
        return level_from_kernel_document(cls, doc)

    def __eq__(self, other: object) -> bool:
        """Equal answers: the same exact value (decided exactly), enclosure, witness and
        distance (:func:`~exactdp.mechanisms.privacy_level_io.same_level`); ``method`` and
        ``pairs_checked`` are provenance. The mechanism and metric are NOT compared (two
        results about different mechanisms can be equal): compare them yourself."""
        if not isinstance(other, PrivacyLevelResult):
            return NotImplemented
        return same_level(self, other)

    def __hash__(self) -> int:
        return level_hash(self)


def zero_level(mech: Mechanism, metric: FiniteMetric, npairs: int, method: str) -> PrivacyLevelResult:
    """The level 0 (no pair to check, or no output that separates two inputs)."""
    return PrivacyLevelResult(
        value=sympy.Integer(0), enclosure=Enclosure(Fraction(0), Fraction(0)), witness=None,
        ratio=None, distance=None, method=method, pairs_checked=npairs,
        _mechanism=mech, _metric=metric,
    )


def enclose_value(value: sympy.Expr, prec: int = 128) -> Enclosure:
    """Certified enclosure of a closed-form real value at ``prec`` bits."""
    with workprec(prec):
        lo, hi = arb_to_fraction_interval(sympy_to_arb(value))
    # a level ≥ 0: clamp only when the ball dips below 0 and the structure proves it (never
    # sympy's is_nonnegative: it may test a huge integer for primality, for hours)
    return Enclosure(max(lo, Fraction(0)) if lo < 0 and structural_sign(value) in (0, 1) else lo, hi)



def _encloses(enc: Enclosure | None, value: sympy.Expr) -> bool:
    """True when the rational interval ``enc`` provably contains the closed form ``value``."""
    if enc is None or enc.lo > enc.hi:
        return False
    if isinstance(value, sympy.Rational):
        return enc.lo <= to_fraction(value) <= enc.hi
    for prec in (128, 256, 512, 1024):
        with workprec(prec):
            lo, hi = arb_to_fraction_interval(sympy_to_arb(value))
        lo = max(lo, Fraction(0)) if lo < 0 and structural_sign(value) in (0, 1) else lo
        if enc.lo <= lo and hi <= enc.hi:
            return True
        if hi < enc.lo or lo > enc.hi:
            return False
    return False


def _valid_witness(w: Any, n: int, m: int) -> bool:
    return (isinstance(w, tuple) and len(w) == 3 and all(isinstance(i, int) for i in w)
            and 0 <= w[0] < n and 0 <= w[1] < n and w[0] != w[1] and 0 <= w[2] < m)


def _verify_level(res: PrivacyLevelResult) -> bool:
    """Re-derive every stored claim (value, enclosure, witness, ratio, distance) from H and d0."""
    mech, metric = res._mechanism, res._metric
    if res.method not in LEVEL_METHODS or res.pairs_checked != len(metric.check_edges()):
        return False
    if metric.graph_edges is not None and graph_claim_error(metric, metric.graph_edges) is not None:
        return False  # only edges proved to carry every shortest path may stand for all pairs
    n, m = mech.shape
    if res.value is sympy.oo:
        w = res.witness
        if res.enclosure is not None or w is None or not _valid_witness(w, n, m):
            return False
        # only the entry routes find an infinite level, and they store no ratio
        if res.ratio is not None or res.method != (
                "exact" if mech.kind is MechanismKind.EXACT else "ball"):
            return False
        a, b, z = w
        if res.distance != metric.distance(a, b):
            return False
        if mech.kind is MechanismKind.EXACT:
            return mech.entry(a, z) > 0 and mech.entry(b, z) == 0
        return bool(mech.entry(a, z) > 0 and mech.entry(b, z).is_zero())
    if res.witness is not None and not _valid_witness(res.witness, n, m):
        return False
    if res.method == "ball":
        return res.value is None and _verify_ball(res)
    if res.value is None or not _encloses(res.enclosure, res.value):
        return False
    assert res.enclosure is not None
    if res.enclosure.lo < 0:
        return False  # a level is ≥ 0: the enclosure is bound to that
    if res.method == "monomial" and mech.monomial is None:
        return False  # the label names a form the mechanism does not have
    if res.method == "row-monomial":
        return _verify_rownorm(res)
    if res.method == "tight":
        return verify_tight_claim(res)
    if res.method == "merged-monomial":
        return verify_merged_claim(res)
    if mech.kind is MechanismKind.EXACT:
        return _verify_exact(res)
    if res.method == "monomial":
        return _verify_monomial(res)
    return False


def _verify_exact(res: PrivacyLevelResult) -> bool:
    """Exact entries: the witness attains the value and no ratio exceeds it (exact rationals)."""
    mech, metric = res._mechanism, res._metric
    if mech.binary_floats is not None and res.method == "exact":
        return _verify_float_backed(res, mech.binary_floats)
    edges = metric.check_edges()
    rows = mech.rows_fraction()
    if res.witness is None:
        return res.value == 0 and all(
            rows[a][z] == rows[b][z] for a, b in edges for z in range(mech.n_outputs))
    a0, b0, z0 = res.witness
    if rows[b0][z0] == 0 or rows[a0][z0] == 0:
        return False
    r0 = rows[a0][z0] / rows[b0][z0]
    d0 = metric.distance(a0, b0)
    if res.distance != d0 or (res.ratio is not None and res.ratio != r0):
        return False
    if res.method == "exact" and res.ratio is None:
        return False
    if r0 < 1 or (res.value != log_ratio_value(r0, d0) and not (
        res.method == "monomial" and _monomial_value_ok(res)
    )):
        return False
    for a, b in edges:
        d = metric.distance(a, b)
        for x, y in ((a, b), (b, a)):
            for z in range(mech.n_outputs):
                hx, hy = rows[x][z], rows[y][z]
                if hx == 0:
                    continue
                if hy == 0:
                    return False
                if compare_log_ratio(hx / hy, d, r0, d0) > 0:
                    return False
    return True


def _verify_float_backed(res: PrivacyLevelResult, F: np.ndarray) -> bool:
    """Float-backed exact entries (the floats ARE the entries), re-checked without the search's
    filter: a ratio whose directed upper bound succ(fl(F_x/F_y)) is ≤ a float below
    R0^{d/d0} is settled; every other ratio is compared exactly (proofs/mech_float_filter.py,
    lemma V) — at the witness's own distance on the floats themselves, vectorised
    (proofs/mech_dyadic_ratio.py). Zero tests and the witness are exact."""
    mech, metric = res._mechanism, res._metric
    require_subnormals("privacy level re-check")
    edges = metric.check_edges()
    arr = np.asarray(edges, dtype=np.int64).reshape(len(edges), 2)
    A = np.concatenate([arr[:, 0], arr[:, 1]])
    B = np.concatenate([arr[:, 1], arr[:, 0]])
    if res.witness is None:
        return res.value == 0 and bool((F[A] == F[B]).all())
    a0, b0, z0 = res.witness
    ha, hb = mech.entry(a0, z0), mech.entry(b0, z0)
    if ha == 0 or hb == 0:
        return False
    r0, d0 = ha / hb, metric.distance(a0, b0)
    if res.distance != d0 or res.ratio is None or res.ratio != r0 or r0 < 1:
        return False
    if res.value != log_ratio_value(r0, d0):
        return False
    vidx = metric.index[A, B]
    for v in np.unique(vidx).tolist():
        sel = np.nonzero(vidx == v)[0]
        d = metric.values[int(v)]
        with workprec(128):
            bound = float_below((arb_from_fraction(r0).log() * d.ball() / d0.ball()).exp())
        Fx, Fy = F[A[sel]], F[B[sel]]
        if ((Fx > 0) & (Fy == 0)).any():
            return False
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            ru = succ(Fx / Fy)
        open_ = (Fx > 0) & ~(ru <= bound)  # NaN/inf never settle
        if d == d0 and open_.any():
            # same distance: ln(x/y)/d > ln(r0)/d0 ⇔ x/y > r0, decided exactly on the floats
            # in one vectorised pass (ties included; proofs/mech_dyadic_ratio.py)
            rr, zz = np.nonzero(open_)
            worse = DyadicRatios.of(Fx[rr, zz], Fy[rr, zz]).compare(F[a0, z0], F[b0, z0])
            if (worse > 0).any():
                return False
            continue
        for r, z in zip(*np.nonzero(open_)):
            x, y = Fraction(float(Fx[r, z])), Fraction(float(Fy[r, z]))
            if compare_log_ratio(x / y, d, r0, d0) > 0:
                return False
    return True


def _monomial_value_ok(res: PrivacyLevelResult) -> bool:
    """The stored value is κ·(−ln s)/d for the witness's exponent difference κ."""
    form = res._mechanism.monomial
    if form is None or res.witness is None or res.distance is None:
        return False
    a0, b0, z0 = res.witness
    E = form.exponents
    kappa = Fraction(int(E[b0, z0]) - int(E[a0, z0]))
    if kappa < 0 or form.zero_columns[z0]:
        return False
    return bool(res.value == monomial_value(form.s, kappa, res.distance))


def _verify_monomial(res: PrivacyLevelResult) -> bool:
    """Monomial form: exact integer re-check, every Δ/d ≤ κ/d* on active columns."""
    mech, metric = res._mechanism, res._metric
    form = mech.monomial
    if form is None or not monomial_matches(mech):
        return False  # the form proves nothing about entries that are not its values
    E = form.exponents
    active = [z for z in range(mech.n_outputs) if not form.zero_columns[z]]
    if res.witness is None:
        if res.value != 0:
            return False
        kappa, dstar = Fraction(0), Distance.rational(1)
    else:
        a0, b0, z0 = res.witness
        if res.distance != metric.distance(a0, b0) or not _monomial_value_ok(res):
            return False
        s_rat = form.s_rational
        kappa = Fraction(int(E[b0, z0]) - int(E[a0, z0]))
        if res.ratio is not None and (s_rat is None or res.ratio != s_rat ** (-int(kappa))):
            return False
        dstar = res.distance
    for a, b in metric.check_edges():
        d = metric.distance(a, b)
        for x, y in ((a, b), (b, a)):
            delta = max((int(E[y, z]) - int(E[x, z]) for z in active), default=0)
            if compare_kappa(Fraction(max(delta, 0)), d, kappa, dstar) > 0:
                return False
    return True


def _verify_ball(res: PrivacyLevelResult) -> bool:
    """Certified entries: the witness's ratio reaches the lower end, every ratio stays below
    the upper end (balls, at the mechanism's precision and then at twice and four times it)."""
    enc = res.enclosure
    if enc is None or enc.lo > enc.hi or enc.hi < 0:
        return False
    if enc.lo > 0 and res.witness is None:
        return False
    base = res._mechanism.precision or 128
    return any(_ball_bounds_hold(res, prec) for prec in (base, 2 * base, 4 * base))


def _ball_bounds_hold(res: PrivacyLevelResult, prec: int) -> bool:
    mech, metric = res._mechanism, res._metric
    enc = res.enclosure
    assert enc is not None
    with workprec(prec):
        balls = mech.to_balls()
        if res.witness is not None:
            a0, b0, z0 = res.witness
            d0 = metric.distance(a0, b0)
            if res.distance != d0:
                return False
            lo, _ = log_ratio_bounds(balls[a0, z0], balls[b0, z0], d0)
            if lo is None or lo < enc.lo:
                return False
        elif res.distance is not None:
            return False
        edges = metric.check_edges()
        if not edges:
            return True
        arr = np.asarray(edges, dtype=np.int64).reshape(len(edges), 2)
        A = np.concatenate([arr[:, 0], arr[:, 1]])
        B = np.concatenate([arr[:, 1], arr[:, 0]])
        L, U = log_bounds(balls)
        hi_ball = arb_from_fraction(enc.hi)
        vidx = metric.index[A, B]
        for v in np.unique(vidx).tolist():
            sel = np.nonzero(vidx == v)[0]
            d = metric.values[int(v)]
            # every ratio whose proved float upper bound ru satisfies ru ≤ hi·d is settled
            # (proofs/mech_float_filter.py, lemma B); the rest are enclosed with balls
            ru = log_ratio_upper(L, U, A[sel], B[sel])
            rows, zs = np.nonzero(ru > float_below(hi_ball * d.ball()))
            for r, z in zip(rows.tolist(), zs.tolist()):
                hx = balls[int(A[sel[r]]), z]
                if not hx.upper() > 0:
                    continue
                _, hi = log_ratio_bounds(hx, balls[int(B[sel[r]]), z], d)
                if hi is None or hi > enc.hi:
                    return False
    return True


def _verify_rownorm(res: PrivacyLevelResult) -> bool:
    """Independent re-check: every directed edge's value is ≤ the witness's, exactly."""
    mech, metric = res._mechanism, res._metric
    form = mech.row_normalized
    if form is None or res.witness is None or res.distance is None:
        return False
    if not rownorm_matches(mech):
        return False  # the entries are not the form's: the form proves nothing about them
    E = form.exponents.tolist()
    polys, pid = form.row_polynomials
    # the witness's own key, recomputed from scratch
    a0, b0, z0 = res.witness
    m = len(E[0])
    d0 = metric.index[a0, b0]
    k0 = (max(E[b0][z] - E[a0][z] for z in range(m)), int(pid[a0]), int(pid[b0]), int(d0))
    if E[b0][z0] - E[a0][z0] != k0[0] or res.distance != metric.values[k0[3]]:
        return False
    if res.value != rownorm_value(form, metric, k0):
        return False
    s_rat = form.s_rational
    if res.ratio is not None:
        if s_rat is None:
            return False

        def ev(v: Any) -> Fraction:
            return sum((int(c) * s_rat**k for k, c in enumerate(v.tolist()) if c), Fraction(0))

        if res.ratio != s_rat ** (-k0[0]) * ev(polys[k0[2]]) / ev(polys[k0[1]]):
            return False
    seen = set()
    for a, b in metric.check_edges():
        for x, y in ((a, b), (b, a)):
            key = (max(E[y][z] - E[x][z] for z in range(m)), int(pid[x]), int(pid[y]),
                   int(metric.index[x, y]))
            if key in seen or key == k0:
                continue
            seen.add(key)
            if rownorm_equal(form, metric, key, k0):
                continue
            prec = 128
            while True:
                with workprec(prec):
                    diff = rownorm_value_ball(form, metric, key) - rownorm_value_ball(
                        form, metric, k0)
                    if diff < 0:
                        break
                    if diff > 0:
                        return False
                prec *= 2
                if prec > 4096:
                    return False
    return True
