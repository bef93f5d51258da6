"""Distances between distributions: total variation, multiplicative TV, Kantorovich — exact.

* :func:`total_variation` — ½ Σ_x |p_x − q_x| (exact rational);
* :func:`multiplicative_total_variation` — max_x |ln p_x − ln q_x| = ln r with the exact
  rational r = max_x max(p_x/q_x, q_x/p_x) over the common support (0 when both are 0,
  ∞ when exactly one is: libqif's conventions), a closed form with a certified enclosure;
  its kernel document (kind ``qif-multiplicative-tv``) binds r and the enclosure to (p, q)
  and ``verify()`` is the kernel's verdict on it (:mod:`exactdp.kernel.qif_log`);
* :func:`kantorovich` — min over couplings X (rows p, columns q) of Σ X[i][j] d(i, j), an
  exact transportation LP (the plan by the exact simplex; the potentials found by HiGHS
  and rounded, else by the exact simplex). The answer carries the plan and a dual (f, g) with
  f_i + g_j ≤ d(i, j) and Σ p f + Σ q g = the cost: ``verify()`` checks both exactly
  (weak duality makes the pair a proof of optimality).

Examples
--------
>>> total_variation(["1/2", "1/2"], ["1/4", "3/4"])
Fraction(1, 4)
>>> from exactdp.spaces.metrics import line
>>> k = kantorovich(line(3), [1, 0, 0], [0, 0, 1])
>>> k.value, k.verify()
(Fraction(2, 1), True)
>>> multiplicative_total_variation(["1/2", "1/2"], ["1/4", "3/4"]).ratio
Fraction(2, 1)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import sympy
from scipy.optimize import linprog

from exactdp.algebra.lp import solve_lp
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rationals import to_sympy
from exactdp.errors import CertificateInvalid, InstanceTooLarge, InvalidPrior
from exactdp.kernel.jsonio import read_enclosure, read_rational, write_enclosure, write_rational
from exactdp.kernel.qif_log import ln_enclosure, log_work
from exactdp.kinds import CertificateKind
from exactdp.qif.channel import Matrix, prior_values
from exactdp.qif.documents import checked_parts, document, kernel_verifies, probabilities, rows
from exactdp.qif.gain import metric_matrix
from exactdp.qif.measures import read_matrix_json, write_matrix

__all__ = ["total_variation", "multiplicative_total_variation", "MultiplicativeTV",
           "kantorovich", "Kantorovich"]

#: Largest support size for the exact transportation LP (n² unknowns). Measured on the
#: shared 2-core machine: n = 14 takes 4 s, n = 20 took 49 s (dense exact simplex).
MAX_KANTOROVICH = 14
KANTOROVICH = CertificateKind.QIF_KANTOROVICH.value
MULTIPLICATIVE_TV = CertificateKind.QIF_MULTIPLICATIVE_TV.value
#: Bits of the ball whose ends are the enclosure of ln(ratio) (stated in the document).
MTV_PREC = 128


def _pair(p: Any, q: Any, n: int | None = None) -> tuple[tuple[Fraction, ...], ...]:
    if n is None:
        n = len(list(p))
    what = f"the distributions compared need {n} entries (one per point)"
    a, b = prior_values(p, n, what), prior_values(q, n, what)
    return a, b


def total_variation(p: Any, q: Any) -> Fraction:
    """½ Σ |p_x − q_x|, exactly (p, q distributions of the same length)."""
    a, b = _pair(p, q)
    return sum((abs(x - y) for x, y in zip(a, b)), Fraction(0)) / 2


@dataclass(frozen=True)
class MultiplicativeTV:
    """max_x |ln p_x − ln q_x| = ln(ratio); ``ratio`` None means +∞ (different supports).

    ``p`` and ``q`` are the distributions compared: the question the document binds to.
    """

    ratio: Fraction | None
    p: tuple[Fraction, ...] = ()
    q: tuple[Fraction, ...] = ()

    @property
    def value(self) -> sympy.Expr:
        """ln(ratio) exactly (``sympy.oo`` when infinite)."""
        return sympy.oo if self.ratio is None else sympy.log(to_sympy(self.ratio))

    @property
    def enclosure(self) -> Enclosure | None:
        """Certified enclosure of ln(ratio) (natural log), None when infinite."""
        return None if self.ratio is None else ln_enclosure(self.ratio, MTV_PREC)

    def verify(self) -> bool:
        """The kernel's verdict on :meth:`to_document`: p, q distributions of one length, the
        ratio recomputed exactly (None iff the supports differ), the ball of ln ratio at
        :data:`MTV_PREC` bits inside the enclosure. False (never an exception) otherwise.

        >>> m = multiplicative_total_variation(["1/2", "1/2"], ["1/4", "3/4"])
        >>> m.verify(), MultiplicativeTV(Fraction(3), m.p, m.q).verify()
        (True, False)
        """
        return kernel_verifies(self.to_document)

    def to_document(self) -> dict[str, Any]:
        """The kernel document (kind ``qif-multiplicative-tv``); also :meth:`to_json`.

        >>> m = multiplicative_total_variation(["1/2", "1/2"], [1, 0])
        >>> m.to_document()["claim"], MultiplicativeTV.from_document(m.to_document()) == m
        ({'ratio': None, 'enclosure': None}, True)
        """
        enc = self.enclosure
        return document(MULTIPLICATIVE_TV, {"p": probabilities(self.p), "q": probabilities(self.q), "unit": "nats"},
                        {"ratio": None if self.ratio is None else write_rational(self.ratio),
                         "enclosure": None if enc is None else write_enclosure(enc)},
                        {"precision": None if self.ratio is None else MTV_PREC})

    @classmethod
    def from_document(cls, doc: Any) -> MultiplicativeTV:
        """Read a document the kernel verifies (else CertificateInvalid / InvalidArgument)."""
        q, c, _ = checked_parts(doc, MULTIPLICATIVE_TV)
        out = cls(None if c["ratio"] is None else read_rational(c["ratio"], "ratio"),
                  tuple(read_rational(v, "p") for v in q["p"]), tuple(read_rational(v, "q") for v in q["q"]))
        if c["enclosure"] is not None and read_enclosure(c["enclosure"]) != out.enclosure:
            raise CertificateInvalid(f"the document's enclosure is not the ball at {MTV_PREC} bits this "
                                     "result states; recompute it with multiplicative_total_variation().")
        return out

    def to_json(self) -> dict[str, Any]:
        """The kernel document (:meth:`to_document`)."""
        return self.to_document()

    @classmethod
    def from_json(cls, doc: Any) -> MultiplicativeTV:
        """:meth:`from_document`."""
        return cls.from_document(doc)


def multiplicative_total_variation(p: Any, q: Any) -> MultiplicativeTV:
    """max_x |ln p_x − ln q_x| as ln of an exact ratio (libqif's ``mult_total_variation``).

    Refuses (InvalidArgument) what the kernel would refuse to re-check (its work count,
    :data:`~exactdp.kernel.qif_log.MAX_LOG_WORK`: distributions with huge entries).
    """
    a, b = _pair(p, q)
    log_work(MTV_PREC, 2 * len(a), (a, b), "this multiplicative-TV document")
    ratio = Fraction(1)
    for x, y in zip(a, b):
        if x == 0 and y == 0:
            continue
        if x == 0 or y == 0:
            return MultiplicativeTV(None, a, b)
        ratio = max(ratio, x / y, y / x)
    return MultiplicativeTV(ratio, a, b)


@dataclass(frozen=True)
class Kantorovich:
    """The Kantorovich (earth mover's) distance with an optimal plan and a dual certificate."""

    value: Fraction
    plan: Matrix
    f: tuple[Fraction, ...]
    g: tuple[Fraction, ...]
    distances: Matrix
    p: tuple[Fraction, ...]
    q: tuple[Fraction, ...]

    def verify(self) -> bool:
        """The kernel re-checks :meth:`to_document`: the plan is a coupling of (p, q) with
        cost = value, f_i + g_j ≤ d_ij, and p·f + q·g = value, exactly."""
        return kernel_verifies(self.to_document)

    def to_document(self) -> dict[str, Any]:
        """The kernel document (kind ``qif-kantorovich``).

        >>> from exactdp.spaces.metrics import line
        >>> k = kantorovich(line(3), ["1/2", "1/2", 0], [0, 0, 1])
        >>> k.to_document()["claim"], Kantorovich.from_document(k.to_document()) == k
        ({'value': '3/2'}, True)
        """
        return document(KANTOROVICH, {"distances": rows(self.distances), "p": probabilities(self.p),
                                      "q": probabilities(self.q)},
                        {"value": write_rational(self.value)},
                        {"plan": rows(self.plan), "f": probabilities(self.f), "g": probabilities(self.g)})

    @classmethod
    def from_document(cls, doc: Any) -> Kantorovich:
        """Read a document the kernel verifies (else CertificateInvalid / InvalidArgument)."""
        q, c, e = checked_parts(doc, KANTOROVICH)
        return cls.from_json({**q, **c, **e})

    def to_json(self) -> dict[str, Any]:
        """Exact JSON (distances, p, q, plan, potentials, value).

        >>> from exactdp.spaces.metrics import line
        >>> k = kantorovich(line(3), ["1/2", "1/2", 0], [0, 0, 1])
        >>> Kantorovich.from_json(k.to_json()) == k
        True
        """
        return {"kind": "kantorovich", "value": write_rational(self.value),
                "plan": write_matrix(self.plan), "f": [write_rational(v) for v in self.f],
                "g": [write_rational(v) for v in self.g],
                "distances": write_matrix(self.distances),
                "p": [write_rational(v) for v in self.p], "q": [write_rational(v) for v in self.q]}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> Kantorovich:
        """Read and validate; raise :class:`CertificateInvalid` unless it verifies."""
        D = metric_matrix(read_matrix_json(doc["distances"]))
        a, b = _pair([read_rational(v, "p") for v in doc["p"]],
                     [read_rational(v, "q") for v in doc["q"]], len(D))
        plan = read_matrix_json(doc["plan"])
        if plan is None:
            raise InvalidPrior("a Kantorovich document needs its transport plan (\"plan\").")
        out = cls(read_rational(doc["value"], "value"), plan,
                  tuple(read_rational(v, "f") for v in doc["f"]),
                  tuple(read_rational(v, "g") for v in doc["g"]), D, a, b)
        if not out.verify():
            raise CertificateInvalid(
                f"this Kantorovich certificate does not prove value {out.value} (plan, "
                "potentials or value edited); recompute it with kantorovich().")
        return out


def kantorovich(metric: Any, p: Any, q: Any) -> Kantorovich:
    """Exact Kantorovich distance between p and q on a rational metric (transportation LP)."""
    D = metric_matrix(metric)
    n = len(D)
    a, b = _pair(p, q, n)
    if n > MAX_KANTOROVICH:
        raise InstanceTooLarge(
            f"the exact transportation LP has {n * n} unknowns (n = {n} > MAX_KANTOROVICH = "
            f"{MAX_KANTOROVICH}; n = 20 takes about a minute); compare distributions on at "
            "most 14 points, or raise qif.distances.MAX_KANTOROVICH knowingly."
        )
    N = n * n
    A = [[Fraction(int(v // n == i)) for v in range(N)] for i in range(n)]
    A += [[Fraction(int(v % n == j)) for v in range(N)] for j in range(n)]
    primal = solve_lp(A, list(a) + list(b), [D[v // n][v % n] for v in range(N)])
    if not primal.feasible or primal.x is None or primal.value is None:
        raise InvalidPrior("p and q admit no coupling (they must both sum to 1).")
    plan = tuple(tuple(primal.x[i * n:(i + 1) * n]) for i in range(n))
    found = _float_dual(D, a, b, primal.value)
    if found is None:
        found = _exact_dual(D, a, b)
    f, g = found
    return Kantorovich(primal.value, plan, f, g, D, a, b)


def _float_dual(D: Matrix, a: tuple[Fraction, ...], b: tuple[Fraction, ...],
                value: Fraction) -> tuple[tuple[Fraction, ...], tuple[Fraction, ...]] | None:
    """Potentials found by HiGHS and rounded to nearby rationals; None unless exactly optimal."""
    n = len(D)
    A = np.zeros((n * n, 2 * n))
    for i in range(n):
        for j in range(n):
            A[i * n + j, i] = A[i * n + j, n + j] = 1.0
    c = -np.array([float(v) for v in a] + [float(v) for v in b])
    res = linprog(c, A_ub=A, b_ub=[float(D[i][j]) for i in range(n) for j in range(n)],
                  bounds=(None, None), method="highs")
    if res.status != 0:
        return None
    for denom in (10**3, 10**6, 10**9):
        pot = [Fraction(float(v)).limit_denominator(denom) for v in res.x]
        f, g = tuple(pot[:n]), tuple(pot[n:])
        if all(f[i] + g[j] <= D[i][j] for i in range(n) for j in range(n)) and sum(
                (x * y for x, y in zip(a + b, f + g)), Fraction(0)) == value:
            return f, g
    return None


def _exact_dual(D: Matrix, a: tuple[Fraction, ...], b: tuple[Fraction, ...]
                ) -> tuple[tuple[Fraction, ...], tuple[Fraction, ...]]:
    """max a·f + b·g s.t. f_i + g_j ≤ d_ij by the exact simplex (f = f⁺ − f⁻, g = g⁺ − g⁻)."""
    n = len(D)
    N = n * n
    cols = 4 * n + N
    rows = []
    for i in range(n):
        for j in range(n):
            r = [Fraction(0)] * cols
            r[i], r[n + i], r[2 * n + j], r[3 * n + j] = (Fraction(1), Fraction(-1),
                                                          Fraction(1), Fraction(-1))
            r[4 * n + i * n + j] = Fraction(1)
            rows.append(r)
    c = [-v for v in a] + list(a) + [-v for v in b] + list(b) + [Fraction(0)] * N
    dual = solve_lp(rows, [D[i][j] for i in range(n) for j in range(n)], c)
    assert dual.x is not None
    return (tuple(dual.x[i] - dual.x[n + i] for i in range(n)),
            tuple(dual.x[2 * n + j] - dual.x[3 * n + j] for j in range(n)))
