"""Thresholds: the least ε at which tight constraints hold or a prior is regular.

Modules (each imports only the ones above it in this list):

* :mod:`~exactdp.threshold.results` — ``ThresholdResult``, ``EpsilonSet``, ``EpsilonInterval``;
* :mod:`~exactdp.threshold.float_bounds`, :mod:`~exactdp.threshold.lemmas` — rigorous float
  sums/products and the perturbation lemma near t = 0;
* :mod:`~exactdp.threshold.krawczyk` — mean-value Krawczyk ranges (any invertible Φ);
* :mod:`~exactdp.threshold.lambda_bounds`, :mod:`~exactdp.threshold.providers`,
  :mod:`~exactdp.threshold.taylor`, :mod:`~exactdp.threshold.exact_checks` — the SPD cover's
  λ_min bounds, dense / matrix-free Φ, Taylor ranges and their exact re-checks;
* :mod:`~exactdp.threshold.binding` — exact question binding: same distances, same rhs,
  Kronecker and grid structure checked against the distances;
* :mod:`~exactdp.threshold.krawczyk_check` — the Krawczyk ranges re-proved in arb balls
  (the cover certificate's independent verifier);
* :mod:`~exactdp.threshold.exact_certificate`, :mod:`~exactdp.threshold.certificates` —
  every threshold certificate and its ``verify()``;
* :mod:`~exactdp.threshold.spd_cover` — the SPD Taylor cover of [eps_upper, −ln t0];
* :mod:`~exactdp.threshold.exact`, :mod:`~exactdp.threshold.certified`,
  :mod:`~exactdp.threshold.structured` — the exact, the certified and the structured exact
  (repeating Toeplitz, any n) routes;
* :mod:`~exactdp.threshold.api` — ``epsilon_threshold``, ``regular_epsilons``,
  ``tight_constraints_epsilons``.
"""

from exactdp.threshold.api import (
    THRESHOLD_METHODS,
    epsilon_threshold,
    regular_epsilons,
    tight_constraints_epsilons,
)
from exactdp.threshold.certificates import (
    CoverCertificate,
    ExactThresholdCertificate,
    KroneckerThresholdCertificate,
    Prop9Certificate,
    SpdCoverCertificate,
    SpdPointCertificate,
)
from exactdp.threshold.results import DEFAULT_TOL, EpsilonInterval, EpsilonSet, ThresholdResult
from exactdp.threshold.structured import StructuredThresholdCertificate

__all__ = [
    "ThresholdResult",
    "EpsilonInterval",
    "EpsilonSet",
    "ExactThresholdCertificate",
    "CoverCertificate",
    "Prop9Certificate",
    "KroneckerThresholdCertificate",
    "SpdCoverCertificate",
    "SpdPointCertificate",
    "StructuredThresholdCertificate",
    "epsilon_threshold",
    "regular_epsilons",
    "tight_constraints_epsilons",
    "DEFAULT_TOL",
    "THRESHOLD_METHODS",
]
