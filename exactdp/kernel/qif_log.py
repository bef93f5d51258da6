"""Re-check the QIF documents whose answers are logarithms (entropies, Shannon capacity,
multiplicative total variation) and the Bayes risk, from their question alone.

Layouts (rationals "p/q"; a channel is rows = secrets of exact probabilities; schema in
``docs/readme/certificate_schema.md``):

* ``qif-entropy`` — question ``quantity`` (``shannon-entropy`` | ``conditional-entropy`` |
  ``mutual-information``), ``unit`` ("bits"), ``prior``, ``channel`` (null exactly for the
  Shannon entropy); claim ``enclosure``; evidence ``precision``;
* ``qif-shannon-capacity`` — question ``channel``, ``unit`` ("bits"); claim ``enclosure``;
  evidence ``witness`` (a prior), ``output`` (a distribution q on the columns), ``precision``;
* ``qif-multiplicative-tv`` — question ``p``, ``q``, ``unit`` ("nats"); claim ``ratio`` (null:
  +∞) and ``enclosure`` of ln ratio (null with it); evidence ``precision`` (null with it);
* ``qif-bayes-risk`` — question ``prior``, ``channel`` (or null); claim ``value``,
  ``vulnerability``, ``strategy`` (a guess per column); evidence ``{}``.

The checks (verified iff every claim re-derives; malformed: InvalidArgument, exit 3):

* a quantity is a sum of terms ±a·ln r with exact rationals a > 0, r > 0 (H: −π_x ln π_x;
  H(X|Y): −J ln(J/p_y); I: J ln(C[x][y]/p_y) with J = π_x C[x][y], p_y = Σ_x J exact; the
  dual bound: C[x][y] ln(C[x][y]/q_y)), evaluated here in ``arb`` at the stated precision
  (÷ ln 2 for bits). The ball contains the truth, so the claim holds when the ball lies in
  the claimed enclosure (the writers state exactly this ball, so nothing looser is asked;
  an enclosure cut inside it is rejected even where it would still hold). An r = 1 term
  is exactly 0.
* capacity (``proofs/qif_shannon_capacity.py``): 0 ≤ lo ≤ the lower end of I(witness; C)
  (or 0) and hi ≥ the upper end of max_x D(C_x ‖ q); q_y = 0 where some C[x][y] > 0 makes
  the bound infinite: rejected.
* multiplicative TV: ratio = max over the common support of max(p/q, q/p) (1 without one),
  null iff the supports differ; ln ratio in the enclosure as above.
* Bayes risk: vulnerability = Σ_y max_x π_x C[x][y], value = 1 − it, each guess attains
  its column's maximum.

Precision lies in [:data:`MIN_LOG_PREC`, :data:`MAX_LOG_PREC`]; work is counted before any
arithmetic (:func:`log_work`, refused over :data:`MAX_LOG_WORK` with InstanceTooLarge, exit 2); the
writers in :mod:`exactdp.qif` evaluate through :func:`entropy_enclosure`,
:func:`capacity_ends` and :func:`ln_enclosure`, so they refuse the same documents.

>>> from fractions import Fraction as F
>>> H = entropy_enclosure("shannon-entropy", (F(1, 2), F(1, 2)), None, 64)  # 1 bit
>>> H.contains(1), H.width < F(1, 10**15)
(True, True)
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from typing import Any

from flint import arb

from exactdp.arithmetic.ball import MAX_PREC, arb_from_fraction, arb_to_fraction_interval, workprec
from exactdp.arithmetic.interval import Enclosure
from exactdp.errors import InstanceTooLarge, InvalidArgument
from exactdp.kernel.jsonio import (
    read_enclosure,
    read_int,
    read_list,
    read_rational,
    read_str,
    read_tabled,
    rows_of,
)
from exactdp.kinds import CertificateKind as K
from exactdp.kinds import proved_by

__all__ = ["QIF_LOG_KINDS", "QUANTITIES", "MIN_LOG_PREC", "MAX_LOG_PREC", "MAX_LOG_WORK",
           "log_work", "entropy_terms", "entropy_enclosure", "capacity_ends", "ln_enclosure",
           "mtv_ratio", "check_qif_log"]

QUANTITIES = ("shannon-entropy", "conditional-entropy", "mutual-information")
#: Stated precisions (bits) a document may ask for; the writers take the same range.
MIN_LOG_PREC, MAX_LOG_PREC = 53, MAX_PREC
#: Most counted operations of one document (:func:`log_work`): measured 1.3–7.1 s at load 4–7
#: for the worst mixes tried (180,000 entropy terms at 53 bits; a 100×100 channel at 4096 bits;
#: review 11L: a 400×400 channel sharing one 200-bit denominator at 0.99 of the limit, 6–7 s).
MAX_LOG_WORK = 50_000_000
#: Most entries of one vector or matrix read (each term is charged ≥ 256 operations).
MAX_LOG_ENTRIES = MAX_LOG_WORK // 256
Vector = tuple[Fraction, ...]
Matrix = tuple[Vector, ...]
Term = tuple[int, Fraction, Fraction]  # (sign, a, r): the term sign · a · ln r
_Z = Fraction(0)


def _cost(bits: int) -> int:
    """Counted operations of one exact step on numbers of ``bits`` bits (w words: w·(1 + w/64))."""
    w = 1 + bits // 64
    return w * (1 + w // 64)


def _over(work: int, what: str) -> None:
    if work > MAX_LOG_WORK:
        raise InstanceTooLarge(f"{what} asks for more than {work} counted operations (limit MAX_LOG_WORK = "
                               f"{MAX_LOG_WORK}): a smaller channel, entries with fewer digits or a lower precision.")


def log_work(prec: int, terms: int, parts: Iterable[Iterable[Fraction]], what: str = "the document") -> int:
    """Count (and refuse over :data:`MAX_LOG_WORK`) the work of ``terms`` terms over ``parts``.

    The lcm L of every denominator is built first, charged step by step. A derived rational
    (a partial or column sum, a ratio C/p_y) has at most S = 2·bits(L) + 3·B + 64 bits (B: the
    largest entry's bits): each term is charged 256 (its fixed Python work) + a log at prec
    ((1 + prec/64)²) + two exact steps on S bits.

    >>> log_work(128, 4, [(Fraction(1, 2), Fraction(1, 2))])
    1077
    """
    vals = [v for p in parts for v in p]
    big = max((v.numerator.bit_length() + v.denominator.bit_length() for v in vals), default=1)
    work, lcm = 0, 1
    for d in sorted({v.denominator for v in vals}):
        work += _cost(lcm.bit_length() + d.bit_length())
        _over(work, what)
        lcm = lcm // math.gcd(lcm, d) * d
    w = 1 + prec // 64
    work += terms * (256 + w * w + 2 * _cost(2 * lcm.bit_length() + 3 * big + 64))
    _over(work, what)
    return work


def entropy_terms(quantity: str, prior: Vector, C: Matrix | None) -> list[Term]:
    """The terms ±a·ln r of a quantity (nats), exact; zero-probability terms are left out."""
    if C is None:
        return [(-1, p, p) for p in prior if p]
    out: list[Term] = []
    for y in range(len(C[0])):
        col = [p * row[y] for p, row in zip(prior, C)]
        py = sum(col, _Z)
        out += [(-1, j, j / py) if quantity == "conditional-entropy" else (1, j, C[x][y] / py)
                for x, j in enumerate(col) if j]
    return out


def _ends(terms: Sequence[Term], prec: int, bits: bool = True) -> tuple[Fraction, Fraction]:
    """Exact ends of the ball Σ sign·a·ln r (÷ ln 2 when ``bits``) at ``prec`` bits."""
    with workprec(prec):
        total = arb(0)
        for s, a, r in terms:
            total += s * arb_from_fraction(a) * arb_from_fraction(r).log()
        return arb_to_fraction_interval(total / arb(2).log() if bits else total)


def _fits(enc: Enclosure, ends: tuple[Fraction, Fraction]) -> bool:
    """The ball's ends lie inside ``enc``."""
    return enc.lo <= ends[0] and ends[1] <= enc.hi


def _dual_upper(C: Matrix, q: Vector, prec: int) -> Fraction:
    """Upper end of max_x D(C_x ‖ q) in bits (q_y > 0 wherever C[x][y] > 0)."""
    return max(_ends([(1, c, c / qy) for c, qy in zip(row, q) if c], prec)[1] for row in C)


def _matrix_work(prec: int, terms: int, prior: Vector, C: Matrix | None, *more: Vector) -> None:
    log_work(prec, terms, (prior, *(C or ()), *more))


def entropy_enclosure(quantity: str, prior: Vector, C: Matrix | None, prec: int) -> Enclosure:
    """The ball of a quantity (bits) at ``prec`` as an enclosure: what a writer states."""
    _matrix_work(prec, len(prior) * (1 if C is None else len(C[0])), prior, C)
    return Enclosure(*_ends(entropy_terms(quantity, prior, C), prec))


def capacity_ends(C: Matrix, witness: Vector, output: Vector, prec: int) -> tuple[Fraction, Fraction]:
    """(max(0, lower end of I(witness; C)), upper end of max_x D(C_x ‖ output)): what a writer states."""
    _matrix_work(prec, 2 * len(C) * len(C[0]), witness, C, output)
    return (max(_Z, _ends(entropy_terms("mutual-information", witness, C), prec)[0]),
            _dual_upper(C, output, prec))


def ln_enclosure(ratio: Fraction, prec: int) -> Enclosure:
    """The ball of ln ratio (ratio > 0) at ``prec`` as an enclosure."""
    return Enclosure(*_ends([(1, Fraction(1), ratio)], prec, bits=False))


def mtv_ratio(p: Vector, q: Vector) -> Fraction | None:
    """max over the common support of max(p/q, q/p) (1 on none); None (+∞) when the supports differ."""
    if any((a == 0) != (b == 0) for a, b in zip(p, q)):
        return None
    return max((max(a / b, b / a) for a, b in zip(p, q) if a), default=Fraction(1))


# ------------------------------------------------------------------------------ readers
def _vector(v: Any, w: str, n: int | None = None) -> Vector:
    items = read_list(v, w, n, limit=MAX_LOG_ENTRIES)  # a work limit (≥ 256 operations an entry): exit 2
    if not items:
        raise InvalidArgument(f"{w}: empty; need at least one entry.")
    return tuple(read_rational(x, f"{w}[{k}]") for k, x in enumerate(items))


def _matrix(v: Any, w: str, rows: int | None = None) -> Matrix:
    grid = rows_of(v, w, rows, sys.maxsize)
    if len(grid) * len(grid[0]) > MAX_LOG_ENTRIES:  # a work limit (exit 2), checked before any entry is read
        raise InstanceTooLarge(f"{w}: {len(grid)}×{len(grid[0])} entries, over MAX_LOG_ENTRIES = {MAX_LOG_ENTRIES}.")
    return tuple(_vector(r, f"{w}[{i}]") for i, r in enumerate(grid))


def _dist(p: Vector, w: str) -> Vector:
    """``p`` when it is a distribution (entries ≥ 0 summing to exactly 1), else InvalidArgument."""
    if any(x < 0 for x in p) or sum(p, _Z) != 1:
        raise InvalidArgument(f"{w}: need probabilities ≥ 0 summing to exactly 1.")
    return p


def _channel(C: Matrix, w: str) -> Matrix:
    return tuple(_dist(r, f"{w}[{i}]") for i, r in enumerate(C))


def _prec(v: Any) -> int:
    return read_int(v, "evidence.precision", MIN_LOG_PREC, MAX_LOG_PREC)


def _prior_channel(q: dict[str, Any], prec: int, null: bool | None = None) -> tuple[Vector, Matrix | None]:
    """The question's prior, read first, then (given ``null``) the rule "channel null iff ``null``", the
    channel (or None) read, their work counted (:func:`log_work`), then each checked to be a distribution."""
    prior = _vector(q["prior"], "question.prior")
    if null is not None and (q["channel"] is None) != null:
        raise InvalidArgument("question.channel: null for the Shannon entropy, a channel otherwise.")
    C = None if q["channel"] is None else _matrix(q["channel"], "question.channel", len(prior))
    _matrix_work(prec, len(prior) * (1 if C is None else len(C[0])), prior, C)
    return _dist(prior, "question.prior"), None if C is None else _channel(C, "question.channel")


# ------------------------------------------------------------------------------ checkers
def _entropy(q: dict[str, Any], c: dict[str, Any], e: dict[str, Any]) -> bool:
    quantity = read_str(q["quantity"], "question.quantity", QUANTITIES)
    read_str(q["unit"], "question.unit", ("bits",))
    prec = _prec(e["precision"])
    prior, C = _prior_channel(q, prec, null=quantity == "shannon-entropy")
    return _fits(read_enclosure(c["enclosure"], "claim.enclosure"), _ends(entropy_terms(quantity, prior, C), prec))


@proved_by("qif_shannon_capacity")
def _capacity(q: dict[str, Any], c: dict[str, Any], e: dict[str, Any]) -> bool:
    """I(p; C) ≤ capacity ≤ max_x D(C_x ‖ q) for every prior p and every q (``proofs/qif_shannon_capacity.py``)."""
    read_str(q["unit"], "question.unit", ("bits",))
    prec, C = _prec(e["precision"]), _matrix(q["channel"], "question.channel")
    p, out = _vector(e["witness"], "evidence.witness", len(C)), _vector(e["output"], "evidence.output", len(C[0]))
    _matrix_work(prec, 2 * len(C) * len(C[0]), p, C, out)
    C, p, out = _channel(C, "question.channel"), _dist(p, "evidence.witness"), _dist(out, "evidence.output")
    enc = read_enclosure(c["enclosure"], "claim.enclosure")
    if enc.lo < 0 or any(cy and not qy for row in C for cy, qy in zip(row, out)):
        return False  # a negative lower end is never written; a zero q_y under C[x][y] > 0 bounds nothing
    terms = entropy_terms("mutual-information", p, C)
    return enc.lo <= max(_Z, _ends(terms, prec)[0]) and _dual_upper(C, out, prec) <= enc.hi


def _mtv(q: dict[str, Any], c: dict[str, Any], e: dict[str, Any]) -> bool:
    read_str(q["unit"], "question.unit", ("nats",))
    prec = None if e["precision"] is None else _prec(e["precision"])
    p = _vector(q["p"], "question.p")
    pq = _vector(q["q"], "question.q", len(p))
    log_work(prec or 0, 2 * len(p), (p, pq))
    ratio = mtv_ratio(_dist(p, "question.p"), _dist(pq, "question.q"))
    if (c["ratio"] is None) != (c["enclosure"] is None) or (c["ratio"] is None) != (prec is None):
        raise InvalidArgument("claim.ratio, claim.enclosure and evidence.precision are null together (+∞).")
    if c["ratio"] is None or ratio is None:
        return c["ratio"] is None and ratio is None
    return (read_rational(c["ratio"], "claim.ratio") == ratio and prec is not None
            and _fits(read_enclosure(c["enclosure"], "claim.enclosure"), _ends([(1, Fraction(1), ratio)], prec, False)))


def _bayes_risk(q: dict[str, Any], c: dict[str, Any], e: dict[str, Any]) -> bool:
    prior, rows = _prior_channel(q, 0)  # C validated once: not once per column (review 11L)
    cols = [prior] if rows is None else [tuple(p * r[y] for p, r in zip(prior, rows)) for y in range(len(rows[0]))]
    guesses = read_list(c["strategy"], "claim.strategy", len(cols))
    strategy = [read_int(w, f"claim.strategy[{k}]", 0, len(prior) - 1) for k, w in enumerate(guesses)]
    v = sum((max(col) for col in cols), _Z)
    return (all(col[w] == max(col) for col, w in zip(cols, strategy))
            and read_rational(c["vulnerability"], "claim.vulnerability") == v
            and read_rational(c["value"], "claim.value") == 1 - v)


_Check = Callable[[dict[str, Any], dict[str, Any], dict[str, Any]], bool]
#: kind -> (question keys, claim keys, evidence keys, checker).
_TABLE: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], _Check]] = {
    K.QIF_ENTROPY: (("quantity", "unit", "prior", "channel"), ("enclosure",), ("precision",), _entropy),
    K.QIF_SHANNON_CAPACITY: (("channel", "unit"), ("enclosure",), ("witness", "output", "precision"), _capacity),
    K.QIF_MULTIPLICATIVE_TV: (("p", "q", "unit"), ("ratio", "enclosure"), ("precision",), _mtv),
    K.QIF_BAYES_RISK: (("prior", "channel"), ("value", "vulnerability", "strategy"), (), _bayes_risk),
}
#: The kinds this module re-checks.
QIF_LOG_KINDS: tuple[str, ...] = tuple(str(k) for k in _TABLE)


def check_qif_log(doc: Any) -> bool:
    """Re-check a document of :data:`QIF_LOG_KINDS` (malformed: InvalidArgument; altered: False)."""
    _, q, c, e, check = read_tabled(doc, _TABLE)
    return check(q, c, e)
