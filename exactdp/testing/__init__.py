"""Testing helpers for users' own tests (needs ``hypothesis`` for the strategies):

* the regression oracle — :func:`crosscheck` (many cases, any ``concurrent.futures`` executor),
  :func:`check_case`, :func:`assert_matches_exact` (pytest, hypothesis shrinking) and the
  :class:`CrosscheckReport`; the questions and their float signatures are listed in
  :mod:`exactdp.testing.questions`;
* hypothesis strategies of exact instances (:mod:`exactdp.testing.strategies`, also at the older
  public path ``exactdp.strategies``) and of whole oracle cases (:func:`cases_for`);
* plain float64 reference implementations (:mod:`exactdp.testing.float_reference`);
* an independent exact ground-truth oracle for small instances (:mod:`exactdp.testing.oracle`).

>>> from exactdp.testing import crosscheck, metrics, priors
>>> "tight-constraints" in QUESTION_NAMES
True
"""

from exactdp.testing import strategies as strategies
from exactdp.testing.assertions import assert_matches_exact
from exactdp.testing.case_strategies import cases_for
from exactdp.testing.questions import QUESTION_NAMES, QUESTIONS, ExactValue, Question
from exactdp.testing.regression import (
    OUTCOMES,
    CaseResult,
    CrosscheckReport,
    check_case,
    crosscheck,
    draw_cases,
)
from exactdp.testing.strategies import *  # noqa: F403 - the strategies' own __all__ is the list

__all__ = list(strategies.__all__) + [
    "crosscheck", "check_case", "assert_matches_exact", "CrosscheckReport", "CaseResult",
    "OUTCOMES", "QUESTIONS", "QUESTION_NAMES", "Question", "ExactValue", "cases_for", "draw_cases",
]
