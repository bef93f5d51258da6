"""Differential privacy for finite sets in Rⁿ: the Laplacian Perturbation Mechanism.

(arXiv 1710.01114; see docs/readme/sets.md for the verdict on its Theorem 1.)
"""

from exactdp.sets._boxes import Box, BoxUnion, region_diameter
from exactdp.sets._capacity import (
    CapacityResult,
    box_probability,
    capacity_functional,
    interval_probability,
    laplace_cdf,
    union_probability,
)
from exactdp.sets._exppoly import ExpPoly, exp_poly_sign
from exactdp.sets._mechanism import (
    MonteCarloEstimate,
    capacity_monte_carlo_float,
    noise_density,
    sample_mechanism_float,
    sample_noise_float,
)
from exactdp.sets._points import (
    DiameterResult,
    HausdorffResult,
    PointSet,
    diameter,
    distance,
    hausdorff_distance,
    parse_norm,
    point_set,
)
from exactdp.sets._privacy import (
    BOUNDS,
    BoundInputs,
    SetPrivacyResult,
    bound_factor,
    check_set_privacy,
    is_translate,
    theorem1_counterexample,
)
from exactdp.sets._real import (
    CertifiedCapacityResult,
    CertifiedHausdorffResult,
    CertifiedSetPrivacyResult,
    RealPointSet,
    capacity_functional_certified,
    check_set_privacy_certified,
    hausdorff_distance_certified,
    real_point_set,
)
from exactdp.sets._search import (
    ViolationSearch,
    candidate_boxes,
    find_violation,
    find_violation_random,
)

__all__ = [
    "CertifiedCapacityResult",
    "CertifiedHausdorffResult",
    "CertifiedSetPrivacyResult",
    "RealPointSet",
    "capacity_functional_certified",
    "check_set_privacy_certified",
    "hausdorff_distance_certified",
    "real_point_set",
    "MonteCarloEstimate",
    "ViolationSearch",
    "candidate_boxes",
    "capacity_monte_carlo_float",
    "find_violation",
    "find_violation_random",
    "noise_density",
    "sample_mechanism_float",
    "sample_noise_float",
    "BOUNDS",
    "BoundInputs",
    "SetPrivacyResult",
    "bound_factor",
    "check_set_privacy",
    "is_translate",
    "theorem1_counterexample",
    "Box",
    "BoxUnion",
    "CapacityResult",
    "DiameterResult",
    "ExpPoly",
    "HausdorffResult",
    "PointSet",
    "box_probability",
    "capacity_functional",
    "diameter",
    "distance",
    "exp_poly_sign",
    "hausdorff_distance",
    "interval_probability",
    "laplace_cdf",
    "parse_norm",
    "point_set",
    "region_diameter",
    "union_probability",
]
