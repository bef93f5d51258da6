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
from exactdp.errors import InvalidArgument, InvalidGainFunction
from exactdp.kernel.jsonio import read_rational, write_closed_form, write_enclosure, write_rational
from exactdp.qif.channel import Matrix, prior_values, read_channel
from exactdp.qif.gain import GainFunction

__all__ = [
    "Vulnerability", "Leakage", "GuessingEntropy", "BayesRisk",
    "prior_vulnerability", "posterior_vulnerability", "additive_leakage",
    "multiplicative_leakage", "bayes_vulnerability", "bayes_risk", "guessing_entropy",
    "write_matrix", "read_matrix_json", "log2_enclosure",
]


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
        """Recompute the value and check each chosen action is optimal."""
        cols = ([self.prior] if self.channel is None else
                [_joint_column(self.channel, self.prior, y) for y in range(len(self.channel[0]))])
        if len(cols) != len(self.strategy):
            return False
        total = Fraction(0)
        for col, w in zip(cols, self.strategy):
            best, _ = self.gain.best(col)
            if self.gain.expected(w, col) != best:
                return False
            total += best
        return total == self.value

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
        return cls(read_rational(doc["value"]), tuple(int(w) for w in doc["strategy"]),
                   GainFunction.from_json(doc["gain"]),
                   tuple(read_rational(p) for p in doc["prior"]),
                   read_matrix_json(doc["channel"]))


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
    n = gain.n_secrets if isinstance(gain, GainFunction) else len(list(gain)[0])
    pi = prior_values(prior, n)
    g = _gain(gain, n)
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
        if not (self.prior_value.verify() and self.posterior_value.verify()):
            return False
        return self.value == _combine(self.kind, self.prior_value, self.posterior_value)

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
        prior_v = Vulnerability.from_json(doc["prior_value"])
        post_v = Vulnerability.from_json(doc["posterior_value"])
        return _leakage(doc["kind"], prior_v, post_v)


def _combine(kind: str, prior_v: Vulnerability, post_v: Vulnerability) -> Fraction:
    a, b = (prior_v.value, post_v.value) if prior_v.gain.is_loss else (post_v.value, prior_v.value)
    if kind == "additive":
        return a - b
    if b == 0:
        what = "posterior risk" if prior_v.gain.is_loss else "prior vulnerability"
        raise InvalidGainFunction(
            f"multiplicative leakage divides by the {what} = 0; use additive leakage or a "
            "gain with positive value."
        )
    return a / b


def _leakage(kind: str, prior_v: Vulnerability, post_v: Vulnerability) -> Leakage:
    if kind not in ("additive", "multiplicative"):
        raise InvalidArgument(f"Got kind={kind!r}; use 'additive' or 'multiplicative'.")
    value = _combine(kind, prior_v, post_v)
    if kind == "additive":
        return Leakage(kind, value, None, None, prior_v, post_v)
    if value <= 0:
        return Leakage(kind, value, None, None, prior_v, post_v)
    log2 = sympy.log(to_sympy(value)) / sympy.log(2)
    return Leakage(kind, value, log2, log2_enclosure(value), prior_v, post_v)


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
        return self.vulnerability.verify() and self.value == 1 - self.vulnerability.value


def bayes_risk(channel: Any = None, prior: Any = "uniform", *, n: int | None = None) -> BayesRisk:
    """Posterior Bayes risk 1 − Σ_y max_x π_x C[x][y]; prior risk 1 − max π when no channel.

    >>> bayes_risk(prior=["1/2", "1/4", "1/4"], n=3).value
    Fraction(1, 2)
    """
    if channel is None:
        if n is None:
            n = len(list(prior))
        v = prior_vulnerability(GainFunction.identity(n), prior)
    else:
        v = bayes_vulnerability(channel, prior)
    return BayesRisk(1 - v.value, v)


@dataclass(frozen=True)
class GuessingEntropy:
    """Expected number of guesses G (prior, or posterior when ``channel`` is set), exactly."""

    value: Fraction
    prior: tuple[Fraction, ...]
    channel: Matrix | None = None

    def verify(self) -> bool:
        return self.value == _guessing(self.prior, self.channel)

    def to_json(self) -> dict[str, Any]:
        return {"value": write_rational(self.value),
                "prior": [write_rational(p) for p in self.prior],
                "channel": write_matrix(self.channel)}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> GuessingEntropy:
        return cls(read_rational(doc["value"]), tuple(read_rational(p) for p in doc["prior"]),
                   read_matrix_json(doc["channel"]))


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
