"""Capacities: the largest leakage of a channel over all priors, with the maximising prior.

* :func:`multiplicative_bayes_capacity` — ML(C) = Σ_y max_x C[x][y], attained at the
  uniform prior (exact; log2 of it in bits, labelled);
* :func:`additive_bayes_capacity` — max_π (V[π, C] − V(π)). Exact for small channels by
  the *sub-uniform rule* (``proofs/qif_capacities.py``): the maximum is attained at a prior
  uniform on a non-empty subset S of secrets, where it equals (Σ_y max_{x∈S} C[x][y] − 1)/|S|,
  so a search over the 2^n − 1 subsets is exact. Above ``max_exact`` secrets: certified
  bounds (a greedy subset below, max_k (min(ML, k) − 1)/k above);
* :func:`g_capacity` — additive or multiplicative g-capacity for one gain function, exact
  for small channels: V_g[π, C] = max over strategies σ: y ↦ w of a_σ·π (a_σ[x] =
  Σ_y C[x][y] g(σ(y), x)), so the capacity is the largest of |W|^|Y| small exact LPs
  (the multiplicative one after the Charnes–Cooper substitution ρ = π / V_g(π)).

Each result carries the witness prior; ``verify()`` recomputes the leakage at the witness
exactly (it must equal the value) and re-derives the maximum independently.

Examples
--------
>>> C = [["3/4", "1/4"], ["1/4", "3/4"]]
>>> M = multiplicative_bayes_capacity(C)
>>> M.value, M.witness, M.verify()
(Fraction(3, 2), (Fraction(1, 2), Fraction(1, 2)), True)
>>> additive_bayes_capacity(C).value
Fraction(1, 4)
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy

from exactdp.algebra.lp import solve_lp
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rationals import to_sympy
from exactdp.errors import (
    CertificateInvalid,
    InstanceTooLarge,
    InvalidArgument,
    InvalidGainFunction,
)
from exactdp.kernel.jsonio import (
    read_enclosure,
    read_rational,
    read_str,
    write_enclosure,
    write_rational,
)
from exactdp.kernel.qif import MAX_QIF_WORK, strategy_work, subset_work
from exactdp.kinds import CertificateKind, proved_by
from exactdp.qif.channel import (
    Matrix,
    prior_values,
    read_channel,
)
from exactdp.qif.documents import checked_parts, document, gain_json, kernel_verifies, probabilities, rows
from exactdp.qif.gain import GainFunction
from exactdp.qif.measures import (
    additive_leakage,
    log2_enclosure,
    multiplicative_leakage,
    read_matrix_json,
    write_matrix,
)

__all__ = ["Capacity", "multiplicative_bayes_capacity", "additive_bayes_capacity", "g_capacity",
           "subuniform_value"]

#: Largest number of secrets for the exact subset search of the additive Bayes capacity.
MAX_EXACT_SECRETS = 14
#: Largest number of strategies |W|^|Y| for the exact g-capacity.
MAX_STRATEGIES = 4096
#: Largest ``max_exact`` accepted (the search keeps 2^n column-maximum rows in memory).
MAX_EXACT_LIMIT = 18
CAPACITY = CertificateKind.QIF_CAPACITY.value
#: The measures a :class:`Capacity` can state.
MEASURES = ("multiplicative-bayes", "additive-bayes", "additive-g", "multiplicative-g")


@dataclass(frozen=True)
class Capacity:
    """A capacity: exact ``value`` (None when only bounded) inside ``bounds``, with its witness.

    Attributes
    ----------
    measure : str
        "multiplicative-bayes", "additive-bayes", "additive-g" or "multiplicative-g".
    value : Fraction | None
        The exact capacity (a ratio for multiplicative measures), or None.
    bounds : Enclosure
        Contains the capacity (degenerate when exact).
    witness : tuple of Fraction
        A prior whose leakage is ``bounds.lo`` (the maximiser when exact).
    bits : Enclosure | None
        Multiplicative measures: certified log2 of the ratio (bits); ``log2_ratio`` exact.
    method : str
        "closed-form", "subsets", "bounds" or "strategies-lp".
    channel : exact matrix; gain : GainFunction or None
    """

    measure: str
    value: Fraction | None
    bounds: Enclosure
    witness: tuple[Fraction, ...]
    method: str
    channel: Matrix
    gain: GainFunction | None = None

    @property
    def log2_ratio(self) -> sympy.Expr | None:
        """log2 of an exact multiplicative capacity, in bits (a closed form)."""
        if self.value is None or not self.measure.startswith("multiplicative"):
            return None
        return sympy.log(to_sympy(self.value)) / sympy.log(2)

    @property
    def bits(self) -> Enclosure | None:
        if not self.measure.startswith("multiplicative") or self.bounds.lo <= 0:
            return None
        return Enclosure(log2_enclosure(self.bounds.lo).lo, log2_enclosure(self.bounds.hi).hi)

    def leakage_at_witness(self) -> Fraction:
        """The leakage of the channel at the witness prior, recomputed exactly."""
        g = self.gain if self.gain is not None else GainFunction.identity(len(self.channel))
        fn = additive_leakage if self.measure.startswith("additive") else multiplicative_leakage
        return fn(g, self.channel, self.witness).value

    def verify(self) -> bool:
        """The kernel re-checks :meth:`to_document`: the witness prior's leakage is
        ``bounds.lo`` and ``bounds.hi`` is re-derived from the channel (the closed form, the
        sub-uniform search or its bound) or, for a g-capacity, proved by one exact dual per
        strategy (:func:`g_duals`); ``value`` is None or both ends."""
        return kernel_verifies(self.to_document)

    def to_document(self) -> dict[str, Any]:
        """The kernel document (kind ``qif-capacity``; the duals of a g-capacity are solved here).

        >>> cap = additive_bayes_capacity([["3/4", "1/4"], ["1/4", "3/4"]])
        >>> cap.to_document()["claim"]["bounds"], Capacity.from_document(cap.to_document()) == cap
        ({'lo': '1/4', 'hi': '1/4'}, True)
        """
        duals = None
        if self.gain is not None:
            duals = [probabilities(d) for d in g_duals(self.measure, self.gain, self.channel)]
        return document(CAPACITY, {"measure": self.measure, "channel": rows(self.channel),
                                   "gain": None if self.gain is None else gain_json(self.gain)},
                        {"value": None if self.value is None else write_rational(self.value),
                         "bounds": write_enclosure(self.bounds), "witness": probabilities(self.witness)},
                        {"method": self.method, "duals": duals})

    @classmethod
    def from_document(cls, doc: Any) -> Capacity:
        """Read a document the kernel verifies (else CertificateInvalid / InvalidArgument)."""
        q, c, e = checked_parts(doc, CAPACITY)
        return cls.from_json({**q, **c, "method": e["method"]})

    def to_json(self) -> dict[str, Any]:
        """Exact JSON.

        >>> multiplicative_bayes_capacity([[1, 0], [0, 1]]).to_json()["value"]
        '2'
        """
        return {"measure": self.measure, "method": self.method,
                "value": None if self.value is None else write_rational(self.value),
                "bounds": write_enclosure(self.bounds),
                "witness": [write_rational(p) for p in self.witness],
                "channel": write_matrix(self.channel),
                "gain": None if self.gain is None else self.gain.to_json()}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> Capacity:
        """Read and validate; raise :class:`CertificateInvalid` unless it verifies.

        >>> cap = additive_bayes_capacity([[1, 0], [0, 1]])
        >>> Capacity.from_json(cap.to_json()) == cap
        True
        """
        C = read_channel(read_matrix_json(doc["channel"]))
        out = cls(read_str(doc["measure"], "measure", MEASURES),
                  None if doc["value"] is None else read_rational(doc["value"], "value"),
                  read_enclosure(doc["bounds"], "bounds"),
                  prior_values([read_rational(p, "witness") for p in doc["witness"]], len(C)),
                  read_str(doc["method"], "method"), C,
                  None if doc["gain"] is None else GainFunction.from_json(doc["gain"]))
        if not out.verify():
            raise CertificateInvalid(
                f"this {out.measure} capacity does not check (value, bounds or witness edited, "
                "or another channel); recompute it.")
        return out


def multiplicative_bayes_capacity(channel: Any) -> Capacity:
    """ML(C) = Σ_y max_x C[x][y] (a ratio; log2 in bits), attained at the uniform prior."""
    C = read_channel(channel)
    value = sum((max(col) for col in zip(*C)), Fraction(0))
    n = len(C)
    return Capacity("multiplicative-bayes", value, Enclosure(value, value),
                    tuple([Fraction(1, n)] * n), "closed-form", C)


@proved_by("qif_capacities")
def subuniform_value(C: Matrix, S: tuple[int, ...]) -> Fraction:
    """Additive Bayes leakage at the prior uniform on S: (Σ_y max_{x∈S} C[x][y] − 1)/|S|.

    The sub-uniform rule of ``proofs/qif_capacities.py``: the additive Bayes capacity is the
    largest of these values.

    >>> subuniform_value(((1, 0), (0, 1)), (0, 1))
    Fraction(1, 2)
    """
    total = sum((max(C[x][y] for x in S) for y in range(len(C[0]))), Fraction(0))
    return (total - 1) / len(S)


def _best_subset(C: Matrix) -> tuple[Fraction, tuple[int, ...]]:
    """max over non-empty S of :func:`subuniform_value` (column maxima built up by bitmask)."""
    n, m = len(C), len(C[0])
    colsum = [Fraction(0)] * (1 << n)          # Σ_y max_{x∈S} C[x][y], S as a bitmask
    colmax: list[tuple[Fraction, ...]] = [()] * (1 << n)
    best: tuple[Fraction, int] = (Fraction(0), 1)
    for mask in range(1, 1 << n):
        low = (mask & -mask).bit_length() - 1
        rest = mask & (mask - 1)
        row = C[low]
        cur = row if rest == 0 else tuple(max(a, b) for a, b in zip(colmax[rest], row))
        colmax[mask] = cur
        colsum[mask] = sum(cur, Fraction(0)) if m else Fraction(0)
        if rest:
            v = (colsum[mask] - 1) / mask.bit_count()
            if v > best[0]:
                best = (v, mask)
    mask = best[1]
    return best[0], tuple(x for x in range(n) if mask >> x & 1)


def _additive_upper(C: Matrix) -> Fraction:
    ml = sum((max(col) for col in zip(*C)), Fraction(0))
    return max((min(ml, Fraction(k)) - 1) / k for k in range(1, len(C) + 1))


def _greedy(C: Matrix) -> tuple[Fraction, tuple[int, ...]]:
    n = len(C)
    best: tuple[Fraction, tuple[int, ...]] = (Fraction(0), (0,))
    for start in range(n):
        S = [start]
        while len(S) < n:
            cand = max((x for x in range(n) if x not in S),
                       key=lambda x: subuniform_value(C, (*S, x)))
            S.append(cand)
            v = subuniform_value(C, tuple(S))
            if v > best[0]:
                best = (v, tuple(sorted(S)))
    return best


def _uniform_on(S: tuple[int, ...], n: int) -> tuple[Fraction, ...]:
    return tuple(Fraction(1, len(S)) if x in S else Fraction(0) for x in range(n))


def additive_bayes_capacity(channel: Any, *, max_exact: int = MAX_EXACT_SECRETS) -> Capacity:
    """max_π V[π, C] − V(π): exact by the sub-uniform rule up to ``max_exact`` secrets.

    Above it, or when the search's counted work (``kernel.qif.subset_work``: 2^n × |Y|, weighted
    by digits) exceeds ``MAX_QIF_WORK`` so that the kernel would refuse the document, certified
    bounds (``value`` None unless they meet, method ``bounds``): a greedy sub-uniform prior (its
    leakage is the lower bound, it is the witness) and max_k (min(ML, k) − 1)/k above.

    >>> r = additive_bayes_capacity([[1, 0, 0], [0, 1, 0], [0, 0, 1]])
    >>> r.value, r.witness, r.verify()       # (3 − 1)/3 at the uniform prior
    (Fraction(2, 3), (Fraction(1, 3), Fraction(1, 3), Fraction(1, 3)), True)
    """
    if isinstance(max_exact, bool) or not isinstance(max_exact, int) or not (
            0 <= max_exact <= MAX_EXACT_LIMIT):
        raise InvalidArgument(
            f"Got max_exact={max_exact!r}; pass an integer 0 ≤ max_exact ≤ {MAX_EXACT_LIMIT} "
            "(the exact search keeps a table of 2^n column maxima).")
    C = read_channel(channel)
    n = len(C)
    if n <= max_exact and subset_work(C) <= MAX_QIF_WORK:
        value, S = _best_subset(C)
        return Capacity("additive-bayes", value, Enclosure(value, value), _uniform_on(S, n),
                        "subsets", C)
    lo, S = _greedy(C)
    hi = _additive_upper(C)
    return Capacity("additive-bayes", lo if lo == hi else None, Enclosure(lo, hi),
                    _uniform_on(S, n), "bounds", C)


def _strategy_lp(measure: str, gain: GainFunction, a: list[Fraction]
                 ) -> tuple[Fraction, tuple[Fraction, ...]]:
    """Exact LP for one strategy σ (its vector a); returns (value, maximising prior)."""
    n, W = gain.n_secrets, gain.n_actions
    G = gain.rows
    sgn = -1 if gain.is_loss else 1
    if measure == "multiplicative-g":
        # max a·ρ s.t. G_w·ρ + s_w = 1, ρ, s ≥ 0   (as min −a·ρ)
        A = [list(G[w]) + [Fraction(int(k == w)) for k in range(W)] for w in range(W)]
        res = solve_lp(A, [Fraction(1)] * W, [-v for v in a] + [Fraction(0)] * W)
        assert res.x is not None and res.value is not None
        rho = res.x[:n]
        total = sum(rho, Fraction(0))
        return -res.value, tuple(r / total for r in rho)
    # additive, gain: max a·π − t with G_w·π ≤ t; loss: max t − a·π with ℓ_w·π ≥ t.
    # variables π (n), t⁺, t⁻, slacks s_w; rows: sgn·(G_w·π − t) + s_w = 0, Σπ = 1.
    A = [[sgn * v for v in G[w]] + [Fraction(-sgn), Fraction(sgn)]
         + [Fraction(int(k == w)) for k in range(W)] for w in range(W)]
    A.append([Fraction(1)] * n + [Fraction(0)] * (2 + W))
    b = [Fraction(0)] * W + [Fraction(1)]
    c = [-sgn * v for v in a] + [Fraction(sgn), Fraction(-sgn)] + [Fraction(0)] * W
    res = solve_lp(A, b, c)
    assert res.x is not None and res.value is not None
    return -res.value, tuple(res.x[:n])


def _strategies(measure: str, gain: GainFunction, C: Matrix
                ) -> tuple[Fraction, tuple[Fraction, ...]]:
    n, m, W = len(C), len(C[0]), gain.n_actions
    cols = [y for y in range(m) if any(C[x][y] for x in range(n))]
    if W ** len(cols) > MAX_STRATEGIES:
        raise InstanceTooLarge(
            f"the exact g-capacity enumerates |W|^|Y| = {W}^{len(cols)} strategies "
            f"(> {MAX_STRATEGIES}); use a smaller channel or gain."
        )
    best: tuple[Fraction, tuple[Fraction, ...]] | None = None
    for sigma in itertools.product(range(W), repeat=len(cols)):
        a = [sum((C[x][y] * gain.rows[w][x] for y, w in zip(cols, sigma)), Fraction(0))
             for x in range(n)]
        v, pi = _strategy_lp(measure, gain, a)
        if best is None or v > best[0]:
            best = (v, pi)
    assert best is not None
    return best


def g_duals(measure: str, gain: GainFunction, C: Matrix) -> list[tuple[Fraction, ...]]:
    """One exact optimal dual per strategy σ (the order of :func:`_strategies`).

    Additive: a distribution λ over actions minimising max_x Σ_w λ_w·sgn·(a_σ − G_w)[x];
    multiplicative: μ ≥ 0 with Σ_w μ_w G_w ≥ a_σ minimising Σ μ (the duals of the
    strategy LPs, checked by :mod:`exactdp.kernel.qif`).
    """
    n, m, W = len(C), len(C[0]), gain.n_actions
    cols = [y for y in range(m) if any(C[x][y] for x in range(n))]
    if W ** len(cols) > MAX_STRATEGIES:
        raise InstanceTooLarge(f"{W}^{len(cols)} strategies (> {MAX_STRATEGIES}); use a smaller channel.")
    G, sgn, out = gain.rows, -1 if gain.is_loss else 1, []
    eye = [[Fraction(int(i == x)) for i in range(n)] for x in range(n)]
    for sigma in itertools.product(range(W), repeat=len(cols)):
        a = [sum((C[x][y] * G[w][x] for y, w in zip(cols, sigma)), Fraction(0)) for x in range(n)]
        if measure == "multiplicative-g":  # Σ_w μ_w G_w[x] − s_x = a[x]; min Σ μ
            res = solve_lp([[G[w][x] for w in range(W)] + [-v for v in eye[x]] for x in range(n)], a,
                           [Fraction(1)] * W + [Fraction(0)] * n)
        else:  # Σ_w λ_w H_w[x] − v⁺ + v⁻ + s_x = 0, Σ λ = 1; min v⁺ − v⁻
            A = [[sgn * (a[x] - G[w][x]) for w in range(W)] + [Fraction(-1), Fraction(1)] + eye[x]
                 for x in range(n)]
            A.append([Fraction(1)] * W + [Fraction(0)] * (2 + n))
            res = solve_lp(A, [Fraction(0)] * n + [Fraction(1)], [Fraction(0)] * W + [Fraction(1), Fraction(-1)]
                           + [Fraction(0)] * n)
        if res.x is None:
            raise InvalidGainFunction(f"the dual of strategy {sigma} is infeasible; the capacity is unbounded.")
        out.append(tuple(res.x[:W]))
    return out


def g_capacity(gain: Any, channel: Any, kind: str = "additive") -> Capacity:
    """Exact additive or multiplicative g-capacity of a small channel, with its witness prior.

    Multiplicative capacity needs a gain (not a loss) with entries ≥ 0.

    >>> from exactdp.spaces.metrics import line
    >>> g = GainFunction.distance_gain(line(3), 2)
    >>> r = g_capacity(g, [["1/2", "1/2", 0], [0, "1/2", "1/2"], [0, 0, 1]], "multiplicative")
    >>> r.value, r.verify()      # = the Bayes capacity 1/2 + 1/2 + 1 (the miracle bound)
    (Fraction(2, 1), True)
    """
    C = read_channel(channel)
    if not isinstance(gain, GainFunction):
        gain = GainFunction.from_matrix(gain)
    gain.check_secrets(len(C))
    if kind not in ("additive", "multiplicative"):
        raise InvalidArgument(f"Got kind={kind!r}; use 'additive' or 'multiplicative'.")
    measure = f"{kind}-g"
    if kind == "multiplicative" and (gain.is_loss or any(v < 0 for r in gain.rows for v in r)):
        raise InvalidGainFunction(
            "the exact multiplicative g-capacity needs a gain with entries ≥ 0 (not a loss); "
            "use kind='additive'."
        )
    if kind == "multiplicative" and not any(v for r in gain.rows for v in r):
        raise InvalidGainFunction(
            f"the gain {gain.name} is all zero, so every prior vulnerability is 0 and the "
            "multiplicative leakage (a ratio) is undefined; use kind='additive' or a gain with "
            "a positive entry."
        )
    work = strategy_work(C, gain.rows)  # the kernel's count: it refuses the same documents
    if work > MAX_QIF_WORK:
        raise InstanceTooLarge(f"the exact g-capacity's document asks for {work} counted operations "
                               f"(|W|^|Y| strategies × n·(|Y| + |W|) × digits; limit MAX_QIF_WORK = "
                               f"{MAX_QIF_WORK}); use a smaller channel or gain.")
    value, pi = _strategies(measure, gain, C)
    return Capacity(measure, value, Enclosure(value, value), pi, "strategies-lp", C, gain)
