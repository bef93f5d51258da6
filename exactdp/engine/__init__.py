"""The search: nonnegative solutions of Φx = b behind one backend chain, and the
certificates it emits."""

from exactdp.engine.core import (
    CERTIFIED_METHODS,
    METHODS,
    EngineResult,
    FloatEstimate,
    Verdict,
    float_solve,
    read_method,
    solve_nonnegative,
)

__all__ = [
    "Verdict",
    "EngineResult",
    "FloatEstimate",
    "solve_nonnegative",
    "float_solve",
    "METHODS",
    "CERTIFIED_METHODS",
    "read_method",
]
