"""exactdp: exact and certified verification of privacy mechanisms.

Answers come in three kinds that never mix: exact (Fractions, algebraic numbers,
sympy closed forms), certified (rigorous enclosures with a verdict and a
certificate whose ``verify()`` re-checks it), and float (labelled uncertified).
"""

from exactdp import metrics
from exactdp.arithmetic.interval import Interval
from exactdp.engine import EngineResult, FloatEstimate, solve_nonnegative
from exactdp.errors import ExactDPError
from exactdp.levels import PrivacyLevel, parse_level
from exactdp.metrics import FiniteMetric
from exactdp.regularity import RegularityResult, is_regular, uniform_prior, validate_prior
from exactdp.tight import TightConstraintsResult, tight_constraints

__all__ = [
    "EngineResult",
    "ExactDPError",
    "FiniteMetric",
    "FloatEstimate",
    "Interval",
    "PrivacyLevel",
    "RegularityResult",
    "TightConstraintsResult",
    "is_regular",
    "metrics",
    "parse_level",
    "solve_nonnegative",
    "tight_constraints",
    "uniform_prior",
    "validate_prior",
]
__version__ = "0.1.0"
