"""Shannon entropy and mutual information as certified enclosures (ball arithmetic).

Entropies of rational distributions are logarithms, irrational in general, so they are
*certified*: an :class:`~exactdp.arithmetic.interval.Enclosure` with exact rational
endpoints, computed with ``arb`` balls at a recorded precision. A
:class:`CertifiedQuantity` is a number, not a yes/no question: it carries no verdict.
``verify()`` recomputes the ball at the recorded precision from the exact inputs and checks
that the stored enclosure contains it (so it contains the true value).

* H(π) = −Σ_x π_x log2 π_x;
* H(X | Y) = −Σ_{x,y} J[x][y] log2(J[x][y] / p_y) with J[x][y] = π_x C[x][y], p_y = Σ_x J;
* I(X; Y) = H(X) − H(X | Y) = Σ_{x,y} J log2(J / (π_x p_y)).

Examples
--------
>>> H = shannon_entropy(["1/2", "1/4", "1/4"])
>>> H.enclosure.contains(Fraction(3, 2)), H.verify()
(True, True)
>>> mutual_information([[1, 0], [0, 1]]).enclosure.contains(1)
True
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from flint import arb

from exactdp.arithmetic.ball import arb_from_fraction, arb_to_fraction_interval, workprec
from exactdp.arithmetic.interval import Enclosure
from exactdp.arithmetic.validate import read_precision
from exactdp.errors import ExactDPError, InvalidArgument
from exactdp.kernel.jsonio import read_enclosure, read_rational, write_enclosure, write_rational
from exactdp.qif.channel import (
    Matrix,
    is_channel,
    is_distribution,
    is_exact,
    prior_values,
    read_channel,
)
from exactdp.qif.measures import read_matrix_json, write_matrix

__all__ = ["CertifiedQuantity", "shannon_entropy", "conditional_entropy", "mutual_information"]

QUANTITIES = ("shannon-entropy", "conditional-entropy", "mutual-information")


def _ball(quantity: str, prior: tuple[Fraction, ...], C: Matrix | None, prec: int) -> arb:
    with workprec(prec):
        log2 = arb(2).log()

        def plogp(num: Fraction, den: Fraction) -> arb:
            # num · log2(num / den), num > 0
            return arb_from_fraction(num) * (arb_from_fraction(num / den)).log() / log2

        total = arb(0)
        if quantity == "shannon-entropy":
            for p in prior:
                if p:
                    total -= plogp(p, Fraction(1))
            return total
        assert C is not None
        for y in range(len(C[0])):
            col = [p * row[y] for p, row in zip(prior, C)]
            py = sum(col, Fraction(0))
            for x, j in enumerate(col):
                if j:
                    if quantity == "conditional-entropy":
                        total -= plogp(j, py)
                    else:
                        total += plogp(j, prior[x] * py)
        return total


@dataclass(frozen=True)
class CertifiedQuantity:
    """A certified real number (in bits): the truth lies in ``enclosure``.

    Attributes
    ----------
    quantity : str
        "shannon-entropy", "conditional-entropy" or "mutual-information".
    enclosure : Enclosure
        Exact rational endpoints; contains the true value.
    precision : int
        Bits of the ball arithmetic used (``verify()`` recomputes at it).
    prior : tuple of Fraction
    channel : exact matrix or None (entropy of the prior alone)
    """

    quantity: str
    enclosure: Enclosure
    precision: int
    prior: tuple[Fraction, ...]
    channel: Matrix | None = None

    def __float__(self) -> float:
        return float(self.enclosure.mid)

    def verify(self) -> bool:
        """Re-check the inputs, recompute the ball; True when the enclosure contains it.

        False (never an exception) for a prior that is not a distribution, a channel that is
        not one (or not on the prior's secrets), an unknown quantity or a bad precision.
        """
        if self.quantity not in QUANTITIES or not isinstance(self.enclosure, Enclosure):
            return False
        if not (is_exact(self.enclosure.lo) and is_exact(self.enclosure.hi)):
            return False
        try:
            read_precision(self.precision, "precision")
        except ExactDPError:
            return False
        if not is_distribution(self.prior):
            return False
        if (self.channel is None) != (self.quantity == "shannon-entropy"):
            return False
        if self.channel is not None and not (is_channel(self.channel)
                                             and len(self.channel) == len(self.prior)):
            return False
        lo, hi = arb_to_fraction_interval(_ball(self.quantity, self.prior, self.channel,
                                                self.precision))
        return self.enclosure.lo <= lo and hi <= self.enclosure.hi

    def to_json(self) -> dict[str, Any]:
        """Exact JSON; :meth:`from_json` reads it back.

        >>> H = shannon_entropy(["1/3", "2/3"])
        >>> CertifiedQuantity.from_json(H.to_json()) == H
        True
        """
        return {"quantity": self.quantity, "unit": "bits",
                "enclosure": write_enclosure(self.enclosure), "precision": self.precision,
                "prior": [write_rational(p) for p in self.prior],
                "channel": write_matrix(self.channel)}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> CertifiedQuantity:
        if doc.get("quantity") not in QUANTITIES:
            raise InvalidArgument(f"unknown quantity {doc.get('quantity')!r}; use {QUANTITIES}.")
        raw = tuple(read_rational(p, "prior") for p in doc["prior"])
        prior = prior_values(raw, len(raw), f"it needs {len(raw)}")
        C = None if doc["channel"] is None else read_channel(read_matrix_json(doc["channel"]))
        return cls(doc["quantity"], read_enclosure(doc["enclosure"]),
                   read_precision(doc["precision"], "precision"), prior, C)


def _make(quantity: str, prior: tuple[Fraction, ...], C: Matrix | None,
          prec: int) -> CertifiedQuantity:
    prec = read_precision(prec, "prec")
    lo, hi = arb_to_fraction_interval(_ball(quantity, prior, C, prec))
    return CertifiedQuantity(quantity, Enclosure(lo, hi), prec, prior, C)


def shannon_entropy(prior: Any, *, prec: int = 128) -> CertifiedQuantity:
    """H(π) = −Σ π_x log2 π_x, certified."""
    if isinstance(prior, str):
        raise InvalidArgument("pass the prior's probabilities to shannon_entropy.")
    pi = prior_values(prior, len(list(prior)))
    return _make("shannon-entropy", pi, None, prec)


def conditional_entropy(channel: Any, prior: Any = "uniform", *,
                        prec: int = 128) -> CertifiedQuantity:
    """H(X | Y) = −Σ J log2(J / p_y), certified."""
    C = read_channel(channel)
    return _make("conditional-entropy", prior_values(prior, len(C)), C, prec)


def mutual_information(channel: Any, prior: Any = "uniform", *,
                       prec: int = 128) -> CertifiedQuantity:
    """I(X; Y) = Σ J log2(J / (π_x p_y)) (the Shannon leakage), certified."""
    C = read_channel(channel)
    return _make("mutual-information", prior_values(prior, len(C)), C, prec)
