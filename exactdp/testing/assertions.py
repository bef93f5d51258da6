"""``assert_matches_exact``: the oracle as a pytest assertion, with hypothesis shrinking.

Hypothesis draws cases, runs :func:`~exactdp.testing.regression.check_case` on each, and on the
first failure shrinks it to the smallest failing case; the raised
:class:`~exactdp.errors.CrosscheckFailed` (an ``AssertionError``) shows that case and a
readable float-vs-exact diff.

>>> import numpy as np
>>> from hypothesis import strategies as st
>>> from exactdp.testing.strategies import line_metrics, rational_t
>>> def sloppy(D, eps):                       # rounds Φ to float32 before solving
...     Phi = np.exp(-eps * D).astype(np.float32)
...     return np.linalg.solve(Phi, np.ones(len(D), dtype=np.float32)).astype(float)
>>> try:
...     assert_matches_exact(sloppy, "tight-constraints", st.tuples(line_metrics(max_n=5), rational_t()),
...                          max_examples=10)
... except AssertionError as err:
...     print(str(err).splitlines()[0])
float function fails the exactdp oracle on tight-constraints (smallest failing case after shrinking):
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, example, given, settings

from exactdp.errors import CrosscheckFailed
from exactdp.spaces.metrics import FiniteMetric
from exactdp.testing.case_strategies import cases_for
from exactdp.testing.questions import read_question
from exactdp.testing.regression import (
    DEFAULT_ABS_SCALE,
    DEFAULT_ABS_TOL,
    DEFAULT_TOL,
    DEFAULT_TOL_LEVEL,
    check_case,
)

__all__ = ["assert_matches_exact"]


def _render_case(case: Any) -> str:
    parts = case if isinstance(case, tuple) else (case,)
    out = []
    for x in parts:
        if isinstance(x, FiniteMetric) and x.n <= 12:
            rows = [[str(x.values[k]) for k in row] for row in x.index.tolist()]
            out.append(f"  metric {x.name}, n = {x.n}, distances:\n"
                       + "\n".join("    " + " ".join(f"{v:>8}" for v in r) for r in rows))
        else:
            out.append(f"  {x!r:.400}")
    return "\n".join(out)


def assert_matches_exact(fn: Callable[..., Any], question: Any, cases: Any = None, *,
                         tol: Any = DEFAULT_TOL, tol_level: Any = DEFAULT_TOL_LEVEL,
                         inputs: str = "float", max_examples: int = 50, max_points: int = 8,
                         derandomize: bool = True, examples: tuple[Any, ...] = (),
                         abs_tol: Any = DEFAULT_ABS_TOL, abs_scale: Any = DEFAULT_ABS_SCALE) -> None:
    """Fail with the smallest failing case when ``fn`` disagrees with exactdp.

    Parameters
    ----------
    fn, question, tol, tol_level, inputs, abs_tol, abs_scale
        As for :func:`~exactdp.testing.regression.crosscheck`.
    cases : hypothesis strategy, optional
        Default :func:`~exactdp.testing.case_strategies.cases_for` ``(question, max_points)``
        (for tight constraints and regularity a third of them near or beyond the threshold,
        so a backend whose verdict is always "exists" is caught).
    max_examples : int
        Cases hypothesis tries before it stops looking.
    derandomize : bool
        Same cases on every run (default; CI-friendly).
    examples : tuple
        Cases always tried first (hypothesis ``@example``).

    Raises
    ------
    CrosscheckFailed
        With the shrunk case and the float-vs-exact diff (also as ``err.case`` and the
        :class:`~exactdp.testing.regression.CaseResult` ``err.result``). A case exactdp cannot decide
        (``exactdp-undecided``) never fails; a case on which exactdp itself raised
        (``exactdp-error``) fails too, with a message saying it is not the float function.
    """
    q = read_question(question)
    strategy = cases_for(q.name, max_points) if cases is None else cases
    def run(case: Any) -> None:
        r = check_case(fn, q, case, tol=tol, tol_level=tol_level, inputs=inputs, abs_tol=abs_tol,
                       abs_scale=abs_scale)
        if r.failed or r.outcome == "exactdp-error":
            head = (f"float function fails the exactdp oracle on {q.name}" if r.failed else
                    f"exactdp itself raised on {q.name} (side {r.side}; not the float function's fault)")
            err = CrosscheckFailed(
                f"{head} (smallest failing case after shrinking):\n{_render_case(case)}\n{r.diff()}")
            err.case, err.result = case, r
            raise err

    test = given(strategy)(run)
    for ex in reversed(examples):
        test = example(ex)(test)
    test = settings(max_examples=max_examples, database=None, derandomize=derandomize, deadline=None,
                    suppress_health_check=list(HealthCheck), print_blob=False)(test)
    test()
