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

import sympy

from exactdp.arithmetic.ball import (
    arb_from_fraction,
    arb_to_fraction_interval,
    sympy_to_arb,
    workprec,
)
from exactdp.arithmetic.interval import Enclosure
from exactdp.mechanisms.level_compare import (
    compare_kappa,
    compare_log_ratio,
    rownorm_equal,
    rownorm_value_ball,
)
from exactdp.mechanisms.mechanism import Mechanism, MechanismKind
from exactdp.spaces.distances import Distance
from exactdp.spaces.metrics import FiniteMetric

__all__ = ["PrivacyLevelResult", "zero_level", "enclose_value"]


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
        "monomial", "row-monomial", "exact" or "ball".
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

    def verify(self) -> bool:
        """Re-check the claim by brute force over every checked pair and output.

        Independent of the search: checks that the witness attains the value, and that
        no (y, y', z) exceeds it (exact rationals; balls for certified mechanisms).
        Cost is O(pairs × outputs) Python operations: meant for small and medium sizes.
        """
        return _verify_level(self)

    def to_json(self) -> dict[str, Any]:
        return {
            "value": None if self.value is None else str(self.value),
            "enclosure": None if self.enclosure is None
            else [str(self.enclosure.lo), str(self.enclosure.hi)],
            "witness": None if self.witness is None else list(self.witness),
            "ratio": None if self.ratio is None else str(self.ratio),
            "distance": None if self.distance is None else str(self.distance),
            "exact": self.exact,
            "method": self.method,
            "pairs_checked": self.pairs_checked,
        }


def zero_level(
    mech: Mechanism, metric: FiniteMetric, npairs: int, method: str
) -> PrivacyLevelResult:
    """The level 0 (no pair to check, or no output that separates two inputs)."""
    return PrivacyLevelResult(
        value=sympy.Integer(0), enclosure=Enclosure(Fraction(0), Fraction(0)), witness=None,
        ratio=None, distance=None, method=method, pairs_checked=npairs,
        _mechanism=mech, _metric=metric,
    )


def enclose_value(value: sympy.Expr, prec: int = 128) -> Enclosure:
    """Certified enclosure of a closed-form real value at ``prec`` bits."""
    with workprec(prec):
        return Enclosure(*arb_to_fraction_interval(sympy_to_arb(value)))


def _verify_level(res: PrivacyLevelResult) -> bool:
    mech, metric = res._mechanism, res._metric
    if res.method == "row-monomial":
        return _verify_rownorm(res)
    edges = metric.check_edges()
    if res.value is sympy.oo:
        assert res.witness is not None
        a, b, z = res.witness
        if mech.kind is MechanismKind.EXACT:
            return mech.entry(a, z) > 0 and mech.entry(b, z) == 0
        return bool(mech.entry(a, z) > 0 and mech.entry(b, z).is_zero())
    if mech.kind is MechanismKind.EXACT and res.value is not None:
        # every ratio r on a pair at distance d must satisfy ln r / d ≤ value
        rows = mech.rows_fraction()
        if res.witness is None:
            return all(
                rows[a][z] == rows[b][z]
                for a, b in edges
                for z in range(mech.n_outputs)
            )
        a0, b0, z0 = res.witness
        if rows[b0][z0] == 0:
            return False
        r0 = rows[a0][z0] / rows[b0][z0]
        d0 = metric.distance(a0, b0)
        with workprec(256):
            if not sympy_to_arb(res.value).overlaps(arb_from_fraction(r0).log() / d0.ball()):
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
    if mech.monomial is not None and res.method == "monomial":
        # exact integer re-check: every Δ/d ≤ κ/d* with Δ = E[y,z] − E[x,z] on active columns
        form = mech.monomial
        if res.witness is None or res.distance is None:
            return False
        a0, b0, z0 = res.witness
        E = form.exponents
        kappa = Fraction(int(E[b0, z0]) - int(E[a0, z0]))
        with workprec(256):
            claim = sympy_to_arb(-sympy.log(form.s)) * int(kappa) / res.distance.ball()
            if res.value is None or not sympy_to_arb(res.value).overlaps(claim):
                return False
        active = [z for z in range(mech.n_outputs) if not form.zero_columns[z]]
        for a, b in edges:
            d = metric.distance(a, b)
            for x, y in ((a, b), (b, a)):
                delta = max(int(E[y, z]) - int(E[x, z]) for z in active)
                if compare_kappa(Fraction(delta), d, kappa, res.distance) > 0:
                    return False
        return True
    # certified entries: every ratio's ball must lie below the enclosure's upper end
    if res.enclosure is None:
        return False
    hi = res.enclosure.hi
    balls = mech.to_balls()
    with workprec(mech.precision or 128):
        bound = arb_from_fraction(hi)
        for a, b in edges:
            db = metric.distance(a, b).ball()
            for x, y in ((a, b), (b, a)):
                for z in range(mech.n_outputs):
                    hx, hy = balls[x, z], balls[y, z]
                    if hx.is_zero():
                        continue
                    if not ((hx / hy).log() / db <= bound):
                        return False
    return True


def _verify_rownorm(res: PrivacyLevelResult) -> bool:
    """Independent re-check: every directed edge's value is ≤ the witness's, exactly."""
    mech, metric = res._mechanism, res._metric
    form = mech.row_normalized
    if form is None or res.witness is None or res.distance is None:
        return False
    E = form.exponents.tolist()
    polys, pid = form.row_polynomials
    # the witness's own key, recomputed from scratch
    a0, b0, z0 = res.witness
    m = len(E[0])
    d0 = metric.index[a0, b0]
    k0 = (max(E[b0][z] - E[a0][z] for z in range(m)), int(pid[a0]), int(pid[b0]), int(d0))
    if E[b0][z0] - E[a0][z0] != k0[0]:
        return False
    with workprec(256):
        if res.value is None or not sympy_to_arb(res.value).overlaps(
            rownorm_value_ball(form, metric, k0)
        ):
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
