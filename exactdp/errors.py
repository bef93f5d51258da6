"""Every exception and warning that exactdp raises, in one module.

Each error also subclasses the builtin that fits it, so ``except ValueError`` in
user code keeps working. Messages name the offending value and say how to fix it.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "ExactDPError",
    "InvalidArgument",
    "InvalidPrivacyLevel",
    "InvalidMetric",
    "InvalidPrior",
    "InvalidMechanism",
    "InvalidDistribution",
    "InvalidScale",
    "InvalidTolerance",
    "InvalidSet",
    "InvalidBox",
    "ExactnessRequired",
    "NotRegular",
    "PropertyNeverHolds",
    "InstanceTooLarge",
    "PrecisionLimitReached",
    "CertificateInvalid",
    "NoTruthValue",
    "UnboundedObjective",
    "REJECTED_ERRORS",
    "InexactInputWarning",
    "FallbackWarning",
    "InvalidOutputPath",
    "NoNoiseNeeded",
    "InvalidChannel",
    "InvalidGainFunction",
    "LPNotCertified",
    "CrosscheckFailed",
]


class ExactDPError(Exception):
    """Base class of every exactdp error."""


class InvalidArgument(ExactDPError, ValueError):
    """An argument has a value exactdp cannot work with."""


class InvalidPrivacyLevel(InvalidArgument):
    """ε ≤ 0, NaN, ∞, or t = e^-ε outside (0, 1)."""


class InvalidMetric(InvalidArgument):
    """A distance matrix that is not a metric (the message says which axiom fails, where)."""


class InvalidPrior(InvalidArgument):
    """A prior that is not a probability distribution on the metric's points."""


class InvalidMechanism(InvalidArgument):
    """A matrix that is not row-stochastic, or has the wrong shape."""


class InvalidDistribution(InvalidArgument):
    """A discrete distribution with bad support or probabilities."""


class InvalidScale(InvalidArgument):
    """A noise scale θ ≤ 0, NaN or ∞."""


class InvalidTolerance(InvalidArgument):
    """A tolerance that is not a positive rational."""


class InvalidSet(InvalidArgument):
    """An empty point set, mixed dimensions, or non-finite coordinates."""


class InvalidBox(InvalidArgument):
    """A box whose lower corner is not strictly below its upper corner."""


class ExactnessRequired(ExactDPError, TypeError):
    """A value that cannot be represented exactly where exactness is required."""


class NotRegular(ExactDPError, ValueError):
    """A bound was asked for a prior that is not regular; carries the certificate."""

    def __init__(self, message: str, certificate: Any = None) -> None:
        super().__init__(message)
        self.certificate = certificate


class PropertyNeverHolds(ExactDPError, ValueError):
    """The property asked about does not hold anywhere on the range searched."""

    def __init__(self, message: str, evidence: Any = None) -> None:
        super().__init__(message)
        self.evidence = evidence


class InstanceTooLarge(ExactDPError, ValueError):
    """The instance exceeds what the requested exact method can handle."""


class PrecisionLimitReached(ExactDPError, ArithmeticError):
    """Ball arithmetic could not decide within the precision limit.

    Distinct from a mathematical failure: the question is undecided, not answered.
    """


class CertificateInvalid(ExactDPError, AssertionError):
    """A certificate failed its independent verification (a bug: please report it)."""


class NoTruthValue(ExactDPError, TypeError):
    """A three-valued answer (a :class:`~exactdp.kinds.Verdict`) was used as a bool."""


class InexactInputWarning(UserWarning):
    """A binary float was taken at its exact binary value, which is rarely what was meant."""


class FallbackWarning(UserWarning):
    """A faster route was not applicable and a slower (still exact/certified) one ran."""


class UnboundedObjective(ExactDPError, ArithmeticError):
    """An exact LP whose objective is unbounded below on its feasible set."""


#: What a certificate's ``verify()`` turns into ``False``: a malformed (tampered) certificate is
#: rejected, never answered with an exception.
REJECTED_ERRORS: tuple[type[Exception], ...] = (
    ExactDPError, ArithmeticError, ValueError, TypeError, IndexError, AttributeError, KeyError,
)


class InvalidOutputPath(InvalidArgument):
    """An output folder that is a file, or cannot be created or written."""


class NoNoiseNeeded(ExactDPError, ValueError):
    """The target is met with no noise at all (e.g. δ ≥ the noiseless δ); ``evidence`` holds it."""

    def __init__(self, message: str, evidence: Any = None) -> None:
        super().__init__(message)
        self.evidence = evidence


class InvalidChannel(InvalidMechanism):
    """A channel matrix that is not row-stochastic, is empty, or does not fit its partner."""


class InvalidGainFunction(InvalidArgument):
    """A gain/loss matrix of the wrong shape, with non-finite entries, or a bad radius."""


class LPNotCertified(ExactDPError, ArithmeticError):
    """A float LP answer whose active set could not be turned into an exact certificate."""


class CrosscheckFailed(ExactDPError, AssertionError):
    """A float implementation disagrees with exactdp (raised by ``assert_matches_exact`` with the
    smallest failing case and a float-vs-exact diff); ``case`` and ``result`` hold them."""

    case: Any = None
    result: Any = None


class EntryOutOfRange(InvalidArgument, IndexError):
    """A row or entry index outside a mechanism's shape (``H[i]``, ``H[i, j]``)."""


class InvalidOrder(InvalidArgument):
    """A Rényi order that is not an integer α ≥ 2 (``exactdp.pufferfish.renyi``)."""


class ExponentTooLarge(InstanceTooLarge):
    """A distance whose exponent q·d (Φ = s^{q·d}, s = e^{-ε/q}) does not fit in a signed
    64-bit integer, which the exact polynomial threshold routes need."""


class ToleranceTooFine(PrecisionLimitReached):
    """An absolute ``tol`` finer than the certificate's checker can resolve (the kernel's
    exact threshold check encloses s = e^{-ε/q} to a bounded number of bits); the message
    names the finest ``tol`` that can be certified."""
