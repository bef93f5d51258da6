"""exactdp: exact and certified verification of privacy mechanisms.

Answers come in three kinds that never mix: exact (Fractions, algebraic numbers,
sympy closed forms), certified (rigorous enclosures with a verdict and a
certificate whose ``verify()`` re-checks it), and float (labelled uncertified).
"""

from exactdp import metrics  # public re-export of exactdp.spaces.metrics
from exactdp.algebra.algebraic import AlgebraicNumber
from exactdp.arithmetic.interval import Interval
from exactdp.engine.core import EngineResult, FloatEstimate, solve_nonnegative
from exactdp.errors import ExactDPError
from exactdp.mechanisms.bounds import database_leakage_bound, leakage_bound, uniform_leakage_bound, utility_bound
from exactdp.mechanisms.gain import min_entropy_leakage, utility
from exactdp.mechanisms.mechanism import Mechanism
from exactdp.mechanisms.optimality import is_optimal
from exactdp.mechanisms.privacy import is_private, privacy_level
from exactdp.regularity import RegularityResult, is_regular, uniform_prior, validate_prior
from exactdp.spaces.levels import PrivacyLevel, parse_level
from exactdp.spaces.metrics import FiniteMetric
from exactdp.threshold import (
    EpsilonSet,
    ThresholdResult,
    epsilon_threshold,
    regular_epsilons,
    tight_constraints_epsilons,
)
from exactdp.tight import TightConstraintsResult, tight_constraints

__all__ = [
    "AlgebraicNumber",
    "EpsilonSet",
    "ThresholdResult",
    "epsilon_threshold",
    "regular_epsilons",
    "tight_constraints_epsilons",
    "EngineResult",
    "ExactDPError",
    "FiniteMetric",
    "FloatEstimate",
    "Interval",
    "Mechanism",
    "PrivacyLevel",
    "RegularityResult",
    "TightConstraintsResult",
    "database_leakage_bound",
    "is_optimal",
    "is_private",
    "is_regular",
    "leakage_bound",
    "min_entropy_leakage",
    "privacy_level",
    "uniform_leakage_bound",
    "utility",
    "utility_bound",
    "metrics",
    "parse_level",
    "solve_nonnegative",
    "tight_constraints",
    "uniform_prior",
    "validate_prior",
]
__version__ = "0.1.0"
