"""exactdp: exact and certified verification of privacy mechanisms.

Answers come in three kinds that never mix: exact (Fractions, algebraic numbers,
sympy closed forms), certified (rigorous enclosures with a verdict and a
certificate whose ``verify()`` re-checks it), and float (labelled uncertified).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

#: Public name -> the module that defines it. Imported on first use (PEP 562), so that
#: ``import exactdp.kernel`` — the certificate checker — loads no search code.
_HOMES = {
    "metrics": "exactdp.metrics",
    "AlgebraicNumber": "exactdp.algebra.algebraic",
    "Interval": "exactdp.arithmetic.interval",
    "EngineResult": "exactdp.engine.core",
    "FloatEstimate": "exactdp.engine.core",
    "solve_nonnegative": "exactdp.engine.core",
    "ExactDPError": "exactdp.errors",
    "database_leakage_bound": "exactdp.mechanisms.bounds",
    "leakage_bound": "exactdp.mechanisms.bounds",
    "uniform_leakage_bound": "exactdp.mechanisms.bounds",
    "utility_bound": "exactdp.mechanisms.bounds",
    "min_entropy_leakage": "exactdp.mechanisms.gain",
    "utility": "exactdp.mechanisms.gain",
    "Mechanism": "exactdp.mechanisms.mechanism",
    "is_optimal": "exactdp.mechanisms.optimality",
    "is_private": "exactdp.mechanisms.privacy",
    "privacy_level": "exactdp.mechanisms.privacy",
    "RegularityResult": "exactdp.regularity",
    "is_regular": "exactdp.regularity",
    "uniform_prior": "exactdp.regularity",
    "validate_prior": "exactdp.regularity",
    "PrivacyLevel": "exactdp.spaces.levels",
    "parse_level": "exactdp.spaces.levels",
    "FiniteMetric": "exactdp.spaces.metrics",
    "EpsilonSet": "exactdp.threshold",
    "ThresholdResult": "exactdp.threshold",
    "epsilon_threshold": "exactdp.threshold",
    "regular_epsilons": "exactdp.threshold",
    "tight_constraints_epsilons": "exactdp.threshold",
    "TightConstraintsResult": "exactdp.tight",
    "tight_constraints": "exactdp.tight",
}

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from exactdp import metrics  # noqa: F401
    from exactdp.algebra.algebraic import AlgebraicNumber  # noqa: F401
    from exactdp.arithmetic.interval import Interval  # noqa: F401
    from exactdp.engine.core import EngineResult, FloatEstimate, solve_nonnegative  # noqa: F401
    from exactdp.errors import ExactDPError  # noqa: F401
    from exactdp.mechanisms.bounds import (  # noqa: F401
        database_leakage_bound,
        leakage_bound,
        uniform_leakage_bound,
        utility_bound,
    )
    from exactdp.mechanisms.gain import min_entropy_leakage, utility  # noqa: F401
    from exactdp.mechanisms.mechanism import Mechanism  # noqa: F401
    from exactdp.mechanisms.optimality import is_optimal  # noqa: F401
    from exactdp.mechanisms.privacy import is_private, privacy_level  # noqa: F401
    from exactdp.regularity import (  # noqa: F401
        RegularityResult,
        is_regular,
        uniform_prior,
        validate_prior,
    )
    from exactdp.spaces.levels import PrivacyLevel, parse_level  # noqa: F401
    from exactdp.spaces.metrics import FiniteMetric  # noqa: F401
    from exactdp.threshold import (  # noqa: F401
        EpsilonSet,
        ThresholdResult,
        epsilon_threshold,
        regular_epsilons,
        tight_constraints_epsilons,
    )
    from exactdp.tight import TightConstraintsResult, tight_constraints  # noqa: F401

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


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'exactdp' has no attribute {name!r}")
    module = importlib.import_module(home)  # deferred: PEP 562 lazy public API (the kernel loads alone)
    value = module if name == "metrics" else getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES))
