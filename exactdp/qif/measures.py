"""g-vulnerability, g-leakage, Bayes risk and guessing entropy, exactly (rational inputs).

Definitions (secrets x, observations y, actions w; π a prior, C a channel, G a gain):

* prior g-vulnerability V_g(π) = max_w Σ_x π_x G[w][x] (a loss: min, "g-risk");
* posterior V_g[π, C] = Σ_y max_w Σ_x π_x C[x][y] G[w][x] (a loss: Σ_y min_w …);
* additive leakage V_g[π, C] − V_g(π); multiplicative leakage V_g[π, C] / V_g(π), whose
  log2 is returned as a labelled closed form (``log2_ratio``) with a certified enclosure;
  for a loss the leakages are U(π) − U[π, C] and U(π) / U[π, C];
* Bayes vulnerability/risk: the identity gain; risk = 1 − vulnerability;
* guessing entropy G(π) = Σ_i i·π_(i) (π sorted decreasingly, i from 1), posterior
  Σ_y Σ_i i·J_(i),y with J[x][y] = π_x C[x][y] sorted within each column.

Every result is a frozen dataclass holding its exact inputs; ``verify()`` recomputes from
them and checks the adversary's strategy is optimal column by column.

Examples
--------
>>> from exactdp.qif.gain import GainFunction
>>> C = [["3/4", "1/4"], ["1/4", "3/4"]]
>>> L = multiplicative_leakage(GainFunction.identity(2), C)
>>> L.value, L.log2_ratio, L.verify()
(Fraction(3, 2), log(3/2)/log(2), True)
>>> bayes_risk(C).value
Fraction(1, 4)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy
from flint import arb

from exactdp.arithmetic.ball import arb_from_fraction, arb_to_fraction_interval, workprec
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.rationals import to_sympy
from exactdp.errors import CertificateInvalid, InvalidArgument, InvalidGainFunction
from exactdp.kernel.jsonio import (
    loads,
    read_closed_form,
    read_enclosure,
    read_int,
    read_rational,
    write_closed_form,
    write_enclosure,
    write_rational,
)
from exactdp.kernel.qif_log import log_work
from exactdp.kinds import CertificateKind
from exactdp.qif.channel import (
    Matrix,
    is_channel,
    is_distribution,
    is_exact,
    prior_values,
    read_channel,
)
from exactdp.qif.documents import checked_parts, document, gain_json, kernel_verifies, probabilities, rows
from exactdp.qif.gain import GainFunction

__all__ = [
    "Vulnerability", "Leakage", "GuessingEntropy", "BayesRisk",
    "prior_vulnerability", "posterior_vulnerability", "additive_leakage",
    "multiplicative_leakage", "bayes_vulnerability", "bayes_risk", "guessing_entropy",
    "write_matrix", "read_matrix_json", "log2_enclosure", "log2_in",
]

#: Largest precision (bits) :func:`log2_in` tries before it gives up (returns False).
MAX_LOG2_PREC = 4096
#: The precision (bits) a leakage document states for re-checking ``bits`` (twice that of
#: :func:`log2_enclosure`'s default, so the recomputed ball lies strictly inside).
LOG2_CHECK_PREC = 256
VULNERABILITY, LEAKAGE, GUESSING = (CertificateKind.QIF_VULNERABILITY.value, CertificateKind.QIF_LEAKAGE.value,
                                    CertificateKind.QIF_GUESSING.value)
BAYES_RISK = CertificateKind.QIF_BAYES_RISK.value


def write_matrix(M: Matrix | None) -> list[list[str]] | None:
    """Rows of "p/q" strings (None stays None)."""
    return None if M is None else [[write_rational(v) for v in r] for r in M]


def read_matrix_json(doc: Any) -> Matrix | None:
    """Inverse of :func:`write_matrix`."""
    return None if doc is None else tuple(tuple(read_rational(v, "matrix") for v in r)
                                          for r in doc)


def log2_enclosure(q: Fraction, prec: int = 128) -> Enclosure:
    """A certified enclosure of log2(q), q > 0 rational.

    >>> log2_enclosure(Fraction(8)).contains(3)
    True
    """
    with workprec(prec):
        return Enclosure(*arb_to_fraction_interval(arb_from_fraction(q).log() / arb(2).log()))


def _log2_exact(q: Fraction) -> int | None:
    """k when q = 2^k (k an integer), else None (then log2 q is irrational)."""
    num, den = q.numerator, q.denominator
    if num & (num - 1) == 0 and den & (den - 1) == 0:
        return num.bit_length() - den.bit_length()
    return None


def log2_in(q: Fraction, enc: Enclosure) -> bool:
    """Decide exactly whether log2(q) ∈ [enc.lo, enc.hi] (q > 0 rational).

    log2 q is an integer when q is a power of 2 (compared exactly) and irrational otherwise,
    so it never equals a rational endpoint: balls of growing precision decide. False when
    an endpoint is not exact or ``MAX_LOG2_PREC`` bits do not decide.

    >>> log2_in(Fraction(3, 2), Enclosure(Fraction(58, 100), Fraction(59, 100)))
    True
    >>> log2_in(Fraction(3, 2), Enclosure(Fraction(100), Fraction(200)))
    False
    """
    if not (is_exact(q) and q > 0 and isinstance(enc, Enclosure)
            and is_exact(enc.lo) and is_exact(enc.hi)):
        return False
    k = _log2_exact(Fraction(q))
    if k is not None:
        return enc.lo <= k <= enc.hi
    prec = 64
    while prec <= MAX_LOG2_PREC:
        with workprec(prec):
            ball = arb_from_fraction(q).log() / arb(2).log()
            lo, hi = arb_from_fraction(enc.lo), arb_from_fraction(enc.hi)
            if (ball < lo) is True or (ball > hi) is True:
                return False
            if (ball > lo) is True and (ball < hi) is True:
                return True
        prec *= 2
    return False


def _joint_column(C: Matrix, prior: tuple[Fraction, ...], y: int) -> tuple[Fraction, ...]:
    return tuple(p * row[y] for p, row in zip(prior, C))


@dataclass(frozen=True)
class Vulnerability:
    """Prior (``channel`` None) or posterior g-vulnerability — g-risk for a loss — exactly.

    Attributes
    ----------
    value : Fraction
    strategy : tuple[int, ...]
        The adversary's optimal action: one entry (prior) or one per observation y.
    gain, prior, channel : the exact inputs (``channel`` None for the prior value).
    """

    value: Fraction
    strategy: tuple[int, ...]
    gain: GainFunction
    prior: tuple[Fraction, ...]
    channel: Matrix | None = None

    def verify(self) -> bool:
        """The kernel re-checks :meth:`to_document`: the inputs (a prior, a channel, a
        fitting gain), the value and each action, exactly. A non-exact or out-of-range stored
        entry gives False (never an exception)."""
        return kernel_verifies(self.to_document)

    def to_document(self) -> dict[str, Any]:
        """The kernel document (kind ``qif-vulnerability``; ``exactdp verify`` re-checks it).

        >>> v = bayes_vulnerability([["1/2", "1/2"], [0, 1]])
        >>> v.to_document()["claim"], Vulnerability.from_document(v.to_document()) == v
        ({'value': '3/4', 'strategy': [0, 1]}, True)
        """
        return document(VULNERABILITY, {"gain": gain_json(self.gain), "prior": probabilities(self.prior),
                                        "channel": rows(self.channel)},
                        {"value": write_rational(self.value), "strategy": list(self.strategy)}, {})

    @classmethod
    def from_document(cls, doc: Any) -> Vulnerability:
        """Read a document the kernel verifies (else CertificateInvalid / InvalidArgument)."""
        q, c, _ = checked_parts(doc, VULNERABILITY)
        return cls.from_json({**q, **c})

    def to_json(self) -> dict[str, Any]:
        """Exact JSON; :meth:`from_json` reads it back.

        >>> v = bayes_vulnerability([["1/2", "1/2"], [0, 1]])
        >>> Vulnerability.from_json(v.to_json()) == v
        True
        """
        return {"value": write_rational(self.value), "strategy": list(self.strategy),
                "gain": self.gain.to_json(), "prior": [write_rational(p) for p in self.prior],
                "channel": write_matrix(self.channel)}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> Vulnerability:
        """Read and validate (a prior, a channel, a fitting gain, strategy indices in range)."""
        gain = GainFunction.from_json(doc["gain"])
        prior, channel = _read_inputs(doc)
        gain.check_secrets(len(prior))
        strategy = tuple(read_int(w, "strategy", 0, gain.n_actions - 1)
                         for w in doc["strategy"])
        return cls(read_rational(doc["value"]), strategy, gain, prior, channel)


def _read_inputs(doc: dict[str, Any]) -> tuple[tuple[Fraction, ...], Matrix | None]:
    """The prior and (optional) channel of a JSON document, validated."""
    raw = tuple(read_rational(p, "prior") for p in doc["prior"])
    prior = prior_values(raw, len(raw), f"it needs {len(raw)}")
    channel = None if doc["channel"] is None else read_channel(read_matrix_json(doc["channel"]))
    if channel is not None and len(channel) != len(prior):
        raise InvalidArgument(
            f"the channel has {len(channel)} rows but the prior has {len(prior)} entries; "
            "they must match (one per secret).")
    return prior, channel


def _inputs_ok(gain: Any, prior: Any, channel: Any) -> bool:
    """A GainFunction, a distribution, a channel (or None) — all on the same secrets."""
    if not isinstance(gain, GainFunction) or not is_distribution(prior):
        return False
    if channel is not None and not (is_channel(channel) and len(channel) == len(prior)):
        return False
    return gain.n_secrets == len(prior)


def _gain(gain: Any, n: int) -> GainFunction:
    if not isinstance(gain, GainFunction):
        gain = GainFunction.from_matrix(gain)
    gain.check_secrets(n)
    return gain


def prior_vulnerability(gain: Any, prior: Any) -> Vulnerability:
    """V_g(π) = max_w Σ_x π_x g(w, x) (min for a loss).

    >>> prior_vulnerability(GainFunction.identity(3), ["1/2", "1/4", "1/4"]).value
    Fraction(1, 2)
    """
    g = gain if isinstance(gain, GainFunction) else GainFunction.from_matrix(gain)
    n = g.n_secrets
    pi = prior_values(prior, n, f"the gain matrix {g.name} has {n} columns (secrets)")
    value, w = g.best(pi)
    return Vulnerability(value, (w,), g, pi, None)


def posterior_vulnerability(gain: Any, channel: Any, prior: Any = "uniform") -> Vulnerability:
    """V_g[π, C] = Σ_y max_w Σ_x π_x C[x][y] g(w, x) (min for a loss).

    >>> posterior_vulnerability(GainFunction.identity(2), [[1, 0], [0, 1]]).value
    Fraction(1, 1)
    """
    C = read_channel(channel)
    pi = prior_values(prior, len(C))
    g = _gain(gain, len(C))
    total, strat = Fraction(0), []
    for y in range(len(C[0])):
        v, w = g.best(_joint_column(C, pi, y))
        total += v
        strat.append(w)
    return Vulnerability(total, tuple(strat), g, pi, C)


@dataclass(frozen=True)
class Leakage:
    """Additive (difference) or multiplicative (ratio) g-leakage, exactly.

    Attributes
    ----------
    kind : str
        "additive" or "multiplicative".
    value : Fraction
        V_g[π,C] − V_g(π), or V_g[π,C] / V_g(π) (for a loss: U(π) − U[π,C], U(π)/U[π,C]).
    log2_ratio : sympy.Expr | None
        Multiplicative only: log2 of the ratio, the leakage in *bits*, as a closed form.
    bits : Enclosure | None
        Multiplicative only: certified enclosure of ``log2_ratio``.
    prior_value, posterior_value : Vulnerability
    """

    kind: str
    value: Fraction
    log2_ratio: sympy.Expr | None
    bits: Enclosure | None
    prior_value: Vulnerability
    posterior_value: Vulnerability

    def verify(self) -> bool:
        """Both parts answer one question (the prior part without a channel, the posterior
        part with one, the same gain and prior) and verify; the kernel re-checks
        :meth:`to_document`: the value, both parts' values, ``log2_ratio`` (the closed form
        of log2 value) and ``bits`` (it contains log2 value; both None for additive leakage).
        """
        pv, qv = self.prior_value, self.posterior_value
        if not (isinstance(pv, Vulnerability) and isinstance(qv, Vulnerability)):
            return False
        if pv.channel is not None or qv.channel is None or pv.gain != qv.gain or pv.prior != qv.prior:
            return False
        return pv.verify() and qv.verify() and kernel_verifies(self.to_document)

    def to_document(self) -> dict[str, Any]:
        """The kernel document (kind ``qif-leakage``; bits checked at :data:`LOG2_CHECK_PREC`).

        >>> L = multiplicative_leakage(GainFunction.identity(2), [["3/4", "1/4"], ["1/4", "3/4"]])
        >>> L.to_document()["claim"]["log2"], Leakage.from_document(L.to_document()) == L
        ('log(3/2)/log(2)', True)
        """
        qv = self.posterior_value
        return document(LEAKAGE, {"measure": self.kind, "gain": gain_json(qv.gain),
                                  "prior": probabilities(qv.prior), "channel": rows(qv.channel)},
                        {"value": write_rational(self.value),
                         "prior_value": write_rational(self.prior_value.value),
                         "posterior_value": write_rational(qv.value),
                         "log2": None if self.log2_ratio is None else write_closed_form(self.log2_ratio),
                         "bits": None if self.bits is None else write_enclosure(self.bits)},
                        {"precision": None if self.bits is None else LOG2_CHECK_PREC})

    @classmethod
    def from_document(cls, doc: Any) -> Leakage:
        """Read a document the kernel verifies; the parts' strategies are recomputed."""
        q, c, _ = checked_parts(doc, LEAKAGE)
        g = GainFunction.from_json(q["gain"])
        fn = additive_leakage if q["measure"] == "additive" else multiplicative_leakage
        out = fn(g, read_matrix_json(q["channel"]), [read_rational(p, "prior") for p in q["prior"]])
        if out.to_document() != (loads(doc) if isinstance(doc, (str, bytes)) else doc):
            raise CertificateInvalid("the kernel accepted the leakage document but the library "
                                     "writes another; please report this as a bug.")
        return out

    def to_json(self) -> dict[str, Any]:
        """Exact JSON ("value" is the difference or the ratio; "bits" only when a ratio).

        >>> L = additive_leakage(GainFunction.identity(2), [["3/4", "1/4"], ["1/4", "3/4"]])
        >>> L.to_json()["value"], Leakage.from_json(L.to_json()) == L
        ('1/4', True)
        """
        return {"kind": self.kind, "value": write_rational(self.value),
                "log2_ratio": None if self.log2_ratio is None else write_closed_form(
                    self.log2_ratio),
                "bits": None if self.bits is None else write_enclosure(self.bits),
                "prior_value": self.prior_value.to_json(),
                "posterior_value": self.posterior_value.to_json()}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> Leakage:
        """Read the stored claim; raise :class:`CertificateInvalid` if it does not check.

        The value, closed form and bits are read as stored (never recomputed silently), so an
        edited file is refused.
        """
        prior_v = Vulnerability.from_json(doc["prior_value"])
        post_v = Vulnerability.from_json(doc["posterior_value"])
        log2 = None if doc["log2_ratio"] is None else read_closed_form(doc["log2_ratio"])
        bits = None if doc["bits"] is None else read_enclosure(doc["bits"], "bits")
        out = cls(doc["kind"], read_rational(doc["value"]), log2, bits, prior_v, post_v)
        if not out.verify():
            raise CertificateInvalid(
                f"this {out.kind} leakage states value {out.value} (bits {bits}), which its "
                "prior and posterior parts do not give; the file was edited or answers "
                "another question: recompute it with additive_leakage/multiplicative_leakage."
            )
        return out


def _combine(kind: str, prior_v: Vulnerability, post_v: Vulnerability) -> Fraction:
    a, b = (prior_v.value, post_v.value) if prior_v.gain.is_loss else (post_v.value, prior_v.value)
    if kind == "additive":
        return a - b
    if b <= 0 or a < 0:
        what = "posterior risk" if prior_v.gain.is_loss else "prior vulnerability"
        raise InvalidGainFunction(
            f"multiplicative leakage divides by the {what} = {b} (the other side is {a}); it "
            "needs both ≥ 0 and the divisor > 0: use additive leakage or a gain (loss) whose "
            "vulnerability (risk) is positive."
        )
    return a / b


def _log2_expr(value: Fraction) -> sympy.Expr:
    return sympy.log(to_sympy(value)) / sympy.log(2)


def _leakage(kind: str, prior_v: Vulnerability, post_v: Vulnerability) -> Leakage:
    if kind not in ("additive", "multiplicative"):
        raise InvalidArgument(f"Got kind={kind!r}; use 'additive' or 'multiplicative'.")
    value = _combine(kind, prior_v, post_v)
    if kind == "additive":
        return Leakage(kind, value, None, None, prior_v, post_v)
    if value <= 0:
        return Leakage(kind, value, None, None, prior_v, post_v)
    return Leakage(kind, value, _log2_expr(value), log2_enclosure(value), prior_v, post_v)


def additive_leakage(gain: Any, channel: Any, prior: Any = "uniform") -> Leakage:
    """V_g[π, C] − V_g(π) (for a loss, U_ℓ(π) − U_ℓ[π, C]), exactly."""
    post = posterior_vulnerability(gain, channel, prior)
    return _leakage("additive", prior_vulnerability(post.gain, post.prior), post)


def multiplicative_leakage(gain: Any, channel: Any, prior: Any = "uniform") -> Leakage:
    """V_g[π, C] / V_g(π) exactly (for a loss, U_ℓ(π)/U_ℓ[π, C]); log2 of it labelled in bits."""
    post = posterior_vulnerability(gain, channel, prior)
    return _leakage("multiplicative", prior_vulnerability(post.gain, post.prior), post)


def bayes_vulnerability(channel: Any, prior: Any = "uniform") -> Vulnerability:
    """Posterior Bayes vulnerability Σ_y max_x π_x C[x][y] (the identity gain)."""
    C = read_channel(channel)
    return posterior_vulnerability(GainFunction.identity(len(C)), C, prior)


@dataclass(frozen=True)
class BayesRisk:
    """Bayes risk 1 − V (prior when ``vulnerability.channel`` is None), exactly."""

    value: Fraction
    vulnerability: Vulnerability

    def verify(self) -> bool:
        """The kernel's verdict on :meth:`to_document` (kind ``qif-bayes-risk``): the prior a
        distribution, the channel one on its secrets, the vulnerability Σ_y max_x π_x C[x][y]
        and ``value`` = 1 − it recomputed exactly, each guess optimal. False (never an
        exception) when the vulnerability is not one of the identity gain (a gain)."""
        return kernel_verifies(self.to_document)

    def to_document(self) -> dict[str, Any]:
        """The kernel document (kind ``qif-bayes-risk``); also :meth:`to_json`.

        >>> r = bayes_risk([["1/2", "1/2"], [0, 1]])
        >>> r.to_document()["claim"], BayesRisk.from_document(r.to_document()) == r
        ({'value': '1/4', 'vulnerability': '3/4', 'strategy': [0, 1]}, True)
        """
        v = self.vulnerability
        if not (isinstance(v, Vulnerability) and isinstance(v.gain, GainFunction) and not v.gain.is_loss
                and v.gain.rows == GainFunction.identity(len(v.prior)).rows):
            raise CertificateInvalid("a Bayes risk holds the vulnerability of the identity gain on its secrets.")
        return document(BAYES_RISK, {"prior": probabilities(v.prior), "channel": rows(v.channel)},
                        {"value": write_rational(self.value), "vulnerability": write_rational(v.value),
                         "strategy": list(v.strategy)}, {})

    @classmethod
    def from_document(cls, doc: Any) -> BayesRisk:
        """Read a document the kernel verifies (else CertificateInvalid / InvalidArgument)."""
        q, c, _ = checked_parts(doc, BAYES_RISK)
        prior = tuple(read_rational(p, "prior") for p in q["prior"])
        v = Vulnerability(read_rational(c["vulnerability"]), tuple(c["strategy"]), GainFunction.identity(len(prior)),
                          prior, read_matrix_json(q["channel"]))
        return cls(read_rational(c["value"]), v)

    def to_json(self) -> dict[str, Any]:
        """The kernel document (:meth:`to_document`)."""
        return self.to_document()

    @classmethod
    def from_json(cls, doc: Any) -> BayesRisk:
        """:meth:`from_document`."""
        return cls.from_document(doc)


def bayes_risk(channel: Any = None, prior: Any = "uniform", *, n: int | None = None) -> BayesRisk:
    """Posterior Bayes risk 1 − Σ_y max_x π_x C[x][y]; prior risk 1 − max π when no channel.

    >>> bayes_risk(prior=["1/2", "1/4", "1/4"], n=3).value
    Fraction(1, 2)
    """
    if channel is None:
        if n is None:
            if isinstance(prior, str):
                raise InvalidArgument(
                    f"bayes_risk(prior={prior!r}) without a channel needs the number of "
                    "secrets: pass n= (e.g. bayes_risk(prior='uniform', n=4)).")
            n = len(list(prior))
        v = prior_vulnerability(GainFunction.identity(n), prior)
    else:
        v = bayes_vulnerability(channel, prior)
    terms = len(v.prior) * (1 if v.channel is None else len(v.channel[0]))
    log_work(0, terms, (v.prior, *(v.channel or ())), "this Bayes-risk document")  # the kernel's limit
    return BayesRisk(1 - v.value, v)


@dataclass(frozen=True)
class GuessingEntropy:
    """Expected number of guesses G (prior, or posterior when ``channel`` is set), exactly."""

    value: Fraction
    prior: tuple[Fraction, ...]
    channel: Matrix | None = None

    def verify(self) -> bool:
        """The kernel re-checks :meth:`to_document` (the prior a distribution, the channel a
        channel on its secrets, the value recomputed)."""
        return kernel_verifies(self.to_document)

    def to_document(self) -> dict[str, Any]:
        """The kernel document (kind ``qif-guessing-entropy``).

        >>> g = guessing_entropy(["1/2", "1/4", "1/4"])
        >>> GuessingEntropy.from_document(g.to_document()) == g
        True
        """
        return document(GUESSING, {"prior": probabilities(self.prior), "channel": rows(self.channel)},
                        {"value": write_rational(self.value)}, {})

    @classmethod
    def from_document(cls, doc: Any) -> GuessingEntropy:
        """Read a document the kernel verifies."""
        q, c, _ = checked_parts(doc, GUESSING)
        return cls.from_json({**q, **c})

    def to_json(self) -> dict[str, Any]:
        return {"value": write_rational(self.value),
                "prior": [write_rational(p) for p in self.prior],
                "channel": write_matrix(self.channel)}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> GuessingEntropy:
        """Read and validate the prior and channel (the value is checked by ``verify()``)."""
        prior, channel = _read_inputs(doc)
        return cls(read_rational(doc["value"]), prior, channel)


def _guessing(prior: tuple[Fraction, ...], C: Matrix | None) -> Fraction:
    cols = [prior] if C is None else [_joint_column(C, prior, y) for y in range(len(C[0]))]
    total = Fraction(0)
    for col in cols:
        for i, p in enumerate(sorted(col, reverse=True), start=1):
            total += i * p
    return total


def guessing_entropy(prior: Any, channel: Any = None) -> GuessingEntropy:
    """Guessing entropy Σ_i i·π_(i); posterior Σ_y Σ_i i·(π_x C[x][y])_(i) with a channel.

    >>> guessing_entropy(["1/2", "1/4", "1/4"]).value      # 1/2 + 2/4 + 3/4
    Fraction(7, 4)
    >>> guessing_entropy("uniform", [[1, 0], [0, 1]]).value
    Fraction(1, 1)
    """
    if channel is None:
        if isinstance(prior, str):
            raise InvalidArgument("pass the prior's probabilities (or a channel for 'uniform').")
        pi = prior_values(prior, len(list(prior)))
        return GuessingEntropy(_guessing(pi, None), pi, None)
    C = read_channel(channel)
    pi = prior_values(prior, len(C))
    return GuessingEntropy(_guessing(pi, C), pi, C)
