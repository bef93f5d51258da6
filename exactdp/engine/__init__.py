"""The search: nonnegative solutions of Φx = b behind one backend chain, and the
certificates it emits."""

from exactdp.engine.core import METHODS, EngineResult, FloatEstimate, Verdict, float_solve, solve_nonnegative

__all__ = ["Verdict", "EngineResult", "FloatEstimate", "solve_nonnegative", "float_solve", "METHODS"]
