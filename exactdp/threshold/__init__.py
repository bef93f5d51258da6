"""Thresholds: the least ε at which tight constraints hold or a prior is regular."""

from exactdp.threshold.core import (
    DEFAULT_TOL,
    CoverCertificate,
    EpsilonInterval,
    EpsilonSet,
    ExactThresholdCertificate,
    KroneckerThresholdCertificate,
    Prop9Certificate,
    ThresholdResult,
    epsilon_threshold,
    regular_epsilons,
    tight_constraints_epsilons,
)

__all__ = [
    "ThresholdResult",
    "EpsilonInterval",
    "EpsilonSet",
    "ExactThresholdCertificate",
    "CoverCertificate",
    "Prop9Certificate",
    "KroneckerThresholdCertificate",
    "epsilon_threshold",
    "regular_epsilons",
    "tight_constraints_epsilons",
    "DEFAULT_TOL",
]
