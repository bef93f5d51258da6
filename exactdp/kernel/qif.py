"""Re-check the QIF documents (vulnerability, leakage, guessing entropy, capacity,
refinement, Kantorovich distance, optimal mechanism) from their question alone.

Channels are row-stochastic matrices of exact rationals (rows = secrets), priors exact
distributions, a gain ``{"rows": actions × secrets, "loss": bool}``. Each kind is one row of
:data:`_TABLE`: (question keys, claim keys, evidence keys, checker); the checker re-derives
every claim exactly (no search code is shared with :mod:`exactdp.qif`). Layouts are in
``docs/readme/certificate_schema.md``. Malformed or ill-posed: InvalidArgument (exit 3);
a claim that does not re-check: False (exit 1); over a work limit: InstanceTooLarge (exit 2).

* vulnerability: V = Σ_y best_w Σ_x π_x C[x][y] G[w][x] (best = max, min for a loss), and
  each stated action attains the best of its column;
* leakage: additive V[π,C] − V(π) or multiplicative V[π,C]/V(π) (a loss: U(π) − U[π,C],
  U(π)/U[π,C]); ``bits`` must contain log2 of the ratio (exact when a power of 2, else a
  ball at the stated precision strictly inside), ``log2`` is its closed form;
* capacity: the witness prior's leakage is ``bounds.lo``; ``bounds.hi`` is re-derived:
  Σ_y max_x C (multiplicative Bayes, ``proofs/qif_capacities`` Thm 1), the best sub-uniform
  prior (additive Bayes, Thm 2) or max_k (min(ML, k) − 1)/k (method ``bounds``); a
  g-capacity proves hi with one dual per strategy σ: y ↦ w (weak duality, see
  :func:`_g_upper`); ``multiplicative-g`` takes only a gain ≥ 0 (a loss is malformed);
* refinement: ``holds`` — R ≥ 0, R·1 = 1, A·R = B; ``fails`` — a Farkas vector y of that
  system (Mᵀy ≥ 0, b·y < 0);
* kantorovich: a coupling of (p, q) of cost ``value`` and potentials f_i + g_j ≤ d_ij with
  p·f + q·g = ``value``;
* optimal mechanism: K a channel with φ_ab K[a][w] ≤ K[b][w] for all pairs (φ = s^k exact),
  u, λ ≥ 0 (on any pairs: fewer constraints only relax) dual feasible, c·K = Σu = ±value;
  φ is refused above :data:`MAX_PHI_BITS` bits before it is built.

Work is counted up front (:data:`MAX_QIF_WORK`, digits included; :data:`MAX_PHI_BITS`,
:data:`MAX_SUBSET_SECRETS`) and refused with InstanceTooLarge (undecided, exit 2, as the
Pufferfish kinds). Labels the kernel does not certify: ``question.gain.name`` and the optimal
mechanism's ``evidence.method`` (how the certificate was found, ``unstated`` for a duality
certificate on its own; any listed value verifies).
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import sympy
from flint import arb

from exactdp.arithmetic.ball import arb_from_fraction, workprec
from exactdp.arithmetic.rationals import to_sympy
from exactdp.errors import CertificateInvalid, InstanceTooLarge, InvalidArgument
from exactdp.kernel.jsonio import (
    read_bool,
    read_closed_form,
    read_enclosure,
    read_int,
    read_list,
    read_object,
    read_rational,
    read_rationals,
    read_str,
    read_tabled,
    read_verdict,
    rows_of,
)
from exactdp.kernel.linear import MAX_STATED_PREC
from exactdp.kernel.metricio import fingerprint, read_metric_json
from exactdp.kinds import CertificateKind as K
from exactdp.kinds import Verdict, proved_by
from exactdp.spaces.levels import parse_level

__all__ = ["QIF_KINDS", "check_qif", "MAX_QIF_WORK", "MAX_PHI_BITS", "subset_work", "strategy_work",
           "phi_bits", "check_phi", "check_qif_work"]

#: Most counted operations a QIF document may ask for: loop passes × entries touched, each
#: weighted by the 64-bit words of the largest number it multiplies or compares (the
#: sub-uniform search, the g-capacity duals, φ of an optimal mechanism). A count, not a time
#: bound: per-step cost still varies with the machine and with digit growth inside sums.
#: The writers refuse the same documents.
MAX_QIF_WORK = 4_000_000
#: Most bits of one exact entry φ = s^k of an optimal-mechanism document (k × bits of s).
MAX_PHI_BITS = 1 << 16
#: Most secrets of an exact sub-uniform search (2^n subsets).
MAX_SUBSET_SECRETS = 18
Matrix = tuple[tuple[Fraction, ...], ...]
_Z = Fraction(0)


def check_qif_work(*counts: int, what: str = "the document") -> None:
    """Raise InstanceTooLarge (exit 2) when the counted operations exceed :data:`MAX_QIF_WORK`."""
    if sum(counts) > MAX_QIF_WORK:
        raise InstanceTooLarge(f"{what} asks for {sum(counts)} counted operations (limit MAX_QIF_WORK = "
                               f"{MAX_QIF_WORK}); use a smaller channel or entries with fewer digits.")


def _bits(*Ms: Matrix) -> int:
    """Bits of the largest entry (numerator + denominator) of the matrices."""
    return max((v.numerator.bit_length() + v.denominator.bit_length() for M in Ms for r in M for v in r),
               default=1)


def _words(bits: int) -> int:
    return 1 + bits // 64


def subset_work(C: Matrix) -> int:
    """Counted operations of the exact sub-uniform search: 2^n masks × |Y| maxima, each
    weighted by the words of a column sum (|Y| entries, denominators multiply).

    >>> subset_work(((Fraction(1), Fraction(0)), (Fraction(0), Fraction(1))))
    8
    """
    m = len(C[0])
    return (1 << len(C)) * m * _words(m * _bits(C))


def strategy_work(C: Matrix, G: Matrix) -> int:
    """Counted operations of the g-capacity duals: |W|^|cols| strategies × n·(|cols| + |W|)
    products (a_σ and the dual's mix), weighted by the words of the entries of C and G.

    >>> strategy_work(((Fraction(1), Fraction(0)), (Fraction(0), Fraction(1))), ((Fraction(1), Fraction(0)),))
    6
    """
    n, W = len(C), len(G)
    cols = sum(1 for y in range(len(C[0])) if any(C[x][y] for x in range(n)))
    if cols >= 64:
        return MAX_QIF_WORK + 1
    return int(W ** cols) * n * (cols + W) * _words(_bits(C) + _bits(G))


def phi_bits(s: Fraction, exponents: Any) -> int:
    """Bits of the largest exact φ = s^k: max k × bits of s (numerator or denominator).

    >>> phi_bits(Fraction(1, 2), [0, 1, 3])
    6
    """
    k = max((int(e) for e in exponents), default=0)
    return max(k, 0) * max(s.numerator.bit_length(), s.denominator.bit_length())


def check_phi(s: Fraction, exponents: Any, n: int, m: int) -> None:
    """Refuse (InstanceTooLarge) an optimal-mechanism φ = s^k too large to build or use."""
    bits = phi_bits(s, exponents)
    if bits > MAX_PHI_BITS:
        raise InstanceTooLarge(f"question.metric: φ = s^k needs {bits} bits (largest distance exponent × bits "
                               f"of s; limit MAX_PHI_BITS = {MAX_PHI_BITS}); use smaller distances or t.")
    check_qif_work(n * n * m * _words(bits), what="the optimal mechanism")


def _matrix(v: Any, w: str, rows: int | None = None, cols: int | None = None) -> Matrix:
    grid = rows_of(v, w, rows, sys.maxsize)
    if len(grid) * len(grid[0]) > MAX_QIF_WORK:  # a work limit (exit 2), checked before any entry is read
        raise InstanceTooLarge(f"{w}: {len(grid)}×{len(grid[0])} entries, over MAX_QIF_WORK = {MAX_QIF_WORK}.")
    out = tuple(read_rationals(r, f"{w}[{i}]") for i, r in enumerate(grid))
    if cols is not None and len(out[0]) != cols:
        raise InvalidArgument(f"{w}: has {len(out[0])} columns; expected {cols}.")
    return out


def _probabilities(p: tuple[Fraction, ...], w: str) -> tuple[Fraction, ...]:
    if not p or any(x < 0 for x in p) or sum(p, _Z) != 1:
        raise InvalidArgument(f"{w}: need probabilities ≥ 0 summing to exactly 1.")
    return p


def _dist(v: Any, w: str, n: int | None = None) -> tuple[Fraction, ...]:
    return _probabilities(read_rationals(v, w, n), w)


def _channel(v: Any, w: str, rows: int | None = None, cols: int | None = None) -> Matrix:
    C = _matrix(v, w, rows, cols)
    return tuple(_probabilities(r, f"{w}[{i}]") for i, r in enumerate(C))


def _gain(v: Any, n: int) -> tuple[Matrix, bool]:
    g = read_object(v, "question.gain", ("rows", "loss", "name"))  # the name is a label
    read_str(g["name"], "question.gain.name")
    return _matrix(g["rows"], "question.gain.rows", None, n), read_bool(g["loss"], "question.gain.loss")


def _cols(prior: tuple[Fraction, ...], C: Matrix | None) -> list[tuple[Fraction, ...]]:
    """The joint columns π_x C[x][y] (the prior itself without a channel)."""
    return [prior] if C is None else [tuple(p * r[y] for p, r in zip(prior, C)) for y in range(len(C[0]))]


def _values(G: Matrix | None, col: tuple[Fraction, ...]) -> list[Fraction]:
    """Each action's expected gain on the column (G None: the identity gain, Bayes)."""
    return list(col) if G is None else [sum((a * b for a, b in zip(col, row) if a and b), _Z) for row in G]


def _v(G: Matrix | None, loss: bool, prior: tuple[Fraction, ...], C: Matrix | None) -> Fraction:
    best = min if loss else max
    return sum((best(_values(G, col)) for col in _cols(prior, C)), _Z)


def _inputs(q: dict[str, Any], channel: bool = True) -> tuple[Matrix, bool, tuple[Fraction, ...], Matrix | None]:
    """(gain, loss, prior, channel) of a question (the channel may be null when allowed)."""
    prior = _dist(q["prior"], "question.prior")
    C = None if q["channel"] is None and not channel else _channel(q["channel"], "question.channel", len(prior))
    G, loss = _gain(q["gain"], len(prior))
    check_qif_work(2 * len(prior) * (1 if C is None else len(C[0])) * len(G))
    return G, loss, prior, C


def _vulnerability(q: dict[str, Any], c: dict[str, Any], e: dict[str, Any]) -> bool:
    G, loss, prior, C = _inputs(q, channel=False)
    cols = _cols(prior, C)
    items = read_list(c["strategy"], "claim.strategy", len(cols))
    strategy = [read_int(w, "claim.strategy", 0, len(G) - 1) for w in items]
    best = min if loss else max
    return (all(_values(G, col)[w] == best(_values(G, col)) for col, w in zip(cols, strategy))
            and read_rational(c["value"], "claim.value") == _v(G, loss, prior, C))


def _combine(measure: str, loss: bool, prior_v: Fraction, post_v: Fraction) -> Fraction:
    """The leakage a − b (additive) or a / b (multiplicative), a, b = (V[π,C], V(π)) for a gain
    and (U(π), U[π,C]) for a loss. With C's rows summing to 1 (:func:`_channel`), Σ_y best_w
    f_w(y) ≥ best_w Σ_y f_w(y) (max; ≤ for min) gives a ≥ b, so b > 0 makes a > 0, ratio ≥ 1."""
    a, b = (prior_v, post_v) if loss else (post_v, prior_v)
    if measure.startswith("additive"):
        return a - b
    if b <= 0:  # then a ≥ b > 0 (see the docstring): the ratio is ≥ 1
        raise CertificateInvalid(f"a multiplicative leakage needs a divisor > 0 (got {b}).")
    return a / b


def _bits_ok(value: Fraction, c: dict[str, Any], prec: int) -> bool:
    """``claim.bits`` (an enclosure of log2 value) and ``claim.log2`` (its closed form)."""
    bits = read_enclosure(c["bits"], "claim.bits")
    if read_closed_form(c["log2"], "claim.log2") != sympy.log(to_sympy(value)) / sympy.log(2):
        return False
    n, d = value.numerator, value.denominator
    if n & (n - 1) == 0 and d & (d - 1) == 0:  # a power of 2: log2 is the integer k
        return bits.lo <= n.bit_length() - d.bit_length() <= bits.hi
    with workprec(prec):
        ball = arb_from_fraction(value).log() / arb(2).log()
        return bool(ball > arb_from_fraction(bits.lo)) and bool(ball < arb_from_fraction(bits.hi))


def _leakage(q: dict[str, Any], c: dict[str, Any], e: dict[str, Any]) -> bool:
    measure = read_str(q["measure"], "question.measure", ("additive", "multiplicative"))
    G, loss, prior, C = _inputs(q)
    pv, qv = _v(G, loss, prior, None), _v(G, loss, prior, C)
    value = _combine(measure, loss, pv, qv)
    ok = [read_rational(c[k], "claim." + k) for k in ("value", "prior_value", "posterior_value")] == [value, pv, qv]
    if measure == "additive":  # a multiplicative value is ≥ 1 (:func:`_combine`)
        return ok and c["bits"] is None and c["log2"] is None and e["precision"] is None
    return ok and _bits_ok(value, c, read_int(e["precision"], "evidence.precision", 2, MAX_STATED_PREC))


def _guessing(q: dict[str, Any], c: dict[str, Any], e: dict[str, Any]) -> bool:
    prior = _dist(q["prior"], "question.prior")
    C = None if q["channel"] is None else _channel(q["channel"], "question.channel", len(prior))
    total = sum((i * p for col in _cols(prior, C) for i, p in enumerate(sorted(col, reverse=True), 1)), _Z)
    return read_rational(c["value"], "claim.value") == total


@proved_by("qif_capacities")
def _subuniform(C: Matrix) -> Fraction:
    """max over non-empty S of (Σ_y max_{x∈S} C[x][y] − 1)/|S| (``proofs/qif_capacities.py`` Thm 2).

    Method ``bounds`` uses its corollary: Σ_y max_{x∈S} C ≤ min(ML, |S|), so the capacity is at
    most max_k (min(ML, k) − 1)/k.
    """
    colmax: dict[int, tuple[Fraction, ...]] = {0: (_Z,) * len(C[0])}
    best = _Z  # the singletons give 0
    for mask in range(1, 1 << len(C)):
        low = (mask & -mask).bit_length() - 1
        colmax[mask] = tuple(max(a, b) for a, b in zip(colmax[mask & (mask - 1)], C[low]))
        best = max(best, (sum(colmax[mask], _Z) - 1) / mask.bit_count())
    return best


def _g_upper(measure: str, G: Matrix, loss: bool, C: Matrix, duals: Any) -> Fraction:
    """The largest bound proved by the duals, one per strategy σ over C's non-zero columns.

    With a_σ[x] = Σ_y C[x][y] G[σ(y)][x], V_g[π,C] = max_σ a_σ·π (min for a loss). Additive:
    a distribution λ over actions gives a·π − max_w G_w·π ≤ max_x Σ_w λ_w (a − G_w)[x]
    (a loss: Σ_w λ_w (ℓ_w − a)[x]). Multiplicative: μ ≥ 0 with Σ_w μ_w G_w ≥ a gives
    a·π / max_w G_w·π ≤ Σ_w μ_w — a gain-side bound only, so :func:`_capacity` refuses a loss
    or a negative gain for ``multiplicative-g`` (malformed, as the library refuses it).
    """
    n, W = len(C), len(G)
    cols = [y for y in range(len(C[0])) if any(C[x][y] for x in range(n))]
    check_qif_work(strategy_work(C, G))  # also counted by _capacity; kept here so no caller can skip it
    items = read_list(duals, "evidence.duals", W ** len(cols))
    top = None
    for k, sigma in enumerate(itertools.product(range(W), repeat=len(cols))):
        lam = read_rationals(items[k], f"evidence.duals[{k}]", W)
        a = [sum((C[x][y] * G[w][x] for y, w in zip(cols, sigma)), _Z) for x in range(n)]
        mix = [sum((lam[w] * G[w][x] for w in range(W)), _Z) for x in range(n)]
        if any(v < 0 for v in lam):
            raise CertificateInvalid(f"evidence.duals[{k}] has a negative multiplier.")
        if measure == "multiplicative-g":
            if any(m < ax for m, ax in zip(mix, a)):
                raise CertificateInvalid(f"evidence.duals[{k}] does not cover a_σ.")
            bound = sum(lam, _Z)
        else:
            if sum(lam, _Z) != 1:
                raise CertificateInvalid(f"evidence.duals[{k}] is not a distribution.")
            bound = max((m - ax) if loss else (ax - m) for m, ax in zip(mix, a))
        top = bound if top is None else max(top, bound)
    assert top is not None
    return top


_BAYES = {"multiplicative-bayes": ("closed-form",), "additive-bayes": ("subsets", "bounds")}


def _capacity(q: dict[str, Any], c: dict[str, Any], e: dict[str, Any]) -> bool:
    measure = read_str(q["measure"], "question.measure", ("multiplicative-bayes", "additive-bayes",
                                                           "additive-g", "multiplicative-g"))
    C = _channel(q["channel"], "question.channel")
    n = len(C)
    method = read_str(e["method"], "evidence.method", _BAYES.get(measure, ("strategies-lp",)))
    if measure in _BAYES:
        if q["gain"] is not None or e["duals"] is not None:
            raise InvalidArgument("a Bayes capacity has gain null and evidence.duals null.")
        G, loss = None, False
    else:
        G, loss = _gain(q["gain"], n)
        if measure == "multiplicative-g" and (loss or any(v < 0 for r in G for v in r)):
            raise InvalidArgument("question.gain.loss: a multiplicative g-capacity needs a gain (loss false) "
                                  "with entries ≥ 0 (question.gain.rows); its duals bound only that case.")
    check_qif_work(n * len(C[0]) * (1 if G is None else len(G)) * 2 * _words(_bits(C, G or ())))
    if method == "subsets" and n > MAX_SUBSET_SECRETS:
        raise InstanceTooLarge(f"evidence.method: the sub-uniform search takes ≤ {MAX_SUBSET_SECRETS} secrets.")
    check_qif_work(subset_work(C) if method == "subsets" else 0, strategy_work(C, G) if G is not None else 0)
    bounds, witness = read_enclosure(c["bounds"], "claim.bounds"), _dist(c["witness"], "claim.witness", n)
    value = None if c["value"] is None else read_rational(c["value"], "claim.value")
    if (value is None) == (bounds.lo == bounds.hi) or value not in (None, bounds.lo):
        return False
    kind = measure.split("-")[0]
    at_witness = _combine(kind, loss, _v(G, loss, witness, None), _v(G, loss, witness, C))
    ml = sum((max(col) for col in zip(*C)), _Z)
    if at_witness != bounds.lo:
        return False
    upper = (ml if method == "closed-form" else _subuniform(C) if method == "subsets"
             else max((min(ml, k) - 1) / k for k in range(1, n + 1)) if method == "bounds"
             else _g_upper(measure, G or (), loss, C, e["duals"]))
    return bounds.hi == upper


def _refinement(q: dict[str, Any], c: dict[str, Any], e: dict[str, Any]) -> bool:
    A = _channel(q["A"], "question.A")
    B = _channel(q["B"], "question.B", len(A))
    n, m, k = len(A), len(A[0]), len(B[0])
    check_qif_work(n * m * k * 2)
    if read_verdict(c["verdict"], "claim.verdict") is Verdict.HOLDS:
        if e["farkas"] is not None:
            raise InvalidArgument("evidence.farkas: null when the verdict holds.")
        R = _channel(e["remap"], "evidence.remap", m, k)
        return all(sum((A[x][y] * R[y][z] for y in range(m)), _Z) == B[x][z] for x in range(n) for z in range(k))
    if e["remap"] is not None or c["verdict"] != "fails":
        raise InvalidArgument("evidence.remap: null when the verdict fails (and a verdict is holds or fails).")
    y = read_rationals(e["farkas"], "evidence.farkas", n * k + m)  # rows (x, z) of A·R = B, then rows y of R·1 = 1
    b = sum((B[x][z] * y[x * k + z] for x in range(n) for z in range(k)), _Z) + sum(y[n * k:], _Z)
    return b < 0 and all(sum((A[x][j] * y[x * k + z] for x in range(n)), _Z) + y[n * k + j] >= 0
                         for j in range(m) for z in range(k))


def _kantorovich(q: dict[str, Any], c: dict[str, Any], e: dict[str, Any]) -> bool:
    D = _matrix(q["distances"], "question.distances")
    n = len(D)
    if len(D[0]) != n or any(D[i][j] < 0 or D[i][j] != D[j][i] or (i == j and D[i][i])
                             for i in range(n) for j in range(n)):
        raise InvalidArgument("question.distances: need a square symmetric matrix ≥ 0 with a zero diagonal.")
    p, pq = _dist(q["p"], "question.p", n), _dist(q["q"], "question.q", n)
    X = _matrix(e["plan"], "evidence.plan", n, n)
    f, g = read_rationals(e["f"], "evidence.f", n), read_rationals(e["g"], "evidence.g", n)
    value = read_rational(c["value"], "claim.value")
    return (all(v >= 0 for r in X for v in r) and all(sum(X[i], _Z) == p[i] for i in range(n))
            and all(sum((X[i][j] for i in range(n)), _Z) == pq[j] for j in range(n))
            and all(f[i] + g[j] <= D[i][j] for i in range(n) for j in range(n))
            and sum((X[i][j] * D[i][j] for i in range(n) for j in range(n)), _Z) == value
            == sum((a * b for a, b in zip(p + pq, f + g)), _Z))


def _optimal(q: dict[str, Any], c: dict[str, Any], e: dict[str, Any]) -> bool:
    read_str(e["method"], "evidence.method", ("float-basis", "exact-simplex", "unstated"))  # a label
    metric, _, fp = read_metric_json(q["metric"], "question.metric")
    if fingerprint(metric) != fp:
        raise CertificateInvalid("question.metric: the fingerprint does not match the metric.")
    prior = _dist(q["prior"], "question.prior", metric.n)
    G, loss = _gain(q["gain"], metric.n)
    check_qif_work(metric.n * metric.n * len(G))
    t = read_rational(q["t"], "question.t")
    s = parse_level(t=t).s_rational(metric.q) if 0 < t < 1 and metric.q is not None else None
    if s is None:
        raise InvalidArgument("question.t: need a rational 0 < t < 1 with s = t^(1/q) rational.")
    n, m, idx = metric.n, len(G), metric.index.tolist()
    check_phi(s, metric.exponents, n, m)
    phi = [[s ** metric.exponents[k] for k in row] for row in idx]
    Km = _channel(c["mechanism"], "claim.mechanism", n, m)
    u = read_rationals(e["u"], "evidence.u", n)
    sign = -1 if loss else 1
    slack = [[u[x] - sign * prior[x] * G[w][x] for w in range(m)] for x in range(n)]
    for k, item in enumerate(read_list(e["lambda"], "evidence.lambda", max_length=n * n * m)):
        entry = read_list(item, f"evidence.lambda[{k}]", 4)
        a, b, w = (read_int(v, f"evidence.lambda[{k}]", 0, hi) for v, hi in zip(entry, (n - 1, n - 1, m - 1)))
        lam = read_rational(item[3], f"evidence.lambda[{k}][3]")
        if a == b or lam < 0:
            return False
        slack[a][w] += phi[a][b] * lam
        slack[b][w] -= lam
    obj = sum((prior[x] * G[w][x] * Km[x][w] for x in range(n) for w in range(m)), _Z)
    return (all(phi[a][b] * Km[a][w] <= Km[b][w] for a in range(n) for b in range(n) for w in range(m))
            and all(v >= 0 for r in slack for v in r) and sign * obj == sum(u, _Z)
            and read_rational(c["value"], "claim.value") == obj)


_Check = Callable[[dict[str, Any], dict[str, Any], dict[str, Any]], bool]
#: kind -> (question keys, claim keys, evidence keys, checker).
_TABLE: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], _Check]] = {
    K.QIF_VULNERABILITY: (("gain", "prior", "channel"), ("value", "strategy"), (), _vulnerability),
    K.QIF_LEAKAGE: (("measure", "gain", "prior", "channel"),
                    ("value", "prior_value", "posterior_value", "log2", "bits"), ("precision",), _leakage),
    K.QIF_GUESSING: (("prior", "channel"), ("value",), (), _guessing),
    K.QIF_CAPACITY: (("measure", "channel", "gain"), ("value", "bounds", "witness"), ("method", "duals"), _capacity),
    K.QIF_REFINEMENT: (("A", "B"), ("verdict",), ("remap", "farkas"), _refinement),
    K.QIF_KANTOROVICH: (("distances", "p", "q"), ("value",), ("plan", "f", "g"), _kantorovich),
    K.QIF_OPTIMAL: (("metric", "prior", "t", "gain"), ("value", "mechanism"), ("method", "u", "lambda"), _optimal),
}
#: The QIF kinds the kernel re-checks.
QIF_KINDS: tuple[str, ...] = tuple(str(k) for k in _TABLE)


def check_qif(doc: Any) -> bool:
    """Re-check a QIF document (malformed: InvalidArgument; altered: False or CertificateInvalid)."""
    _, q, c, e, check = read_tabled(doc, _TABLE)
    return check(q, c, e)
