"""Regenerate the data behind the paper's figures, exact or certified.

* :mod:`exactdp.reproduce.fig6` — utility of the tight-constraints mechanism against
  the geometric comparators (sum query, 2-count query), uniform prior, optimal remap;
* :mod:`exactdp.reproduce.fig4` (``fig4.fig4()``) — leakage bounds vs ε for Example 3
  (Thm. 3 and Prop. 5, the latter only where the prior is certified regular);
* :mod:`exactdp.reproduce.regions` — Fig. 2 and 3 (corner priors and regularity of
  sample priors);
* :mod:`exactdp.reproduce.fig7` — Fig. 7 at a reduced grid size (certified);
* :mod:`exactdp.reproduce.report` — every figure and claim in one report folder
  (``report.md``, ``report.json``, PNG figures drawn by :mod:`exactdp.reproduce.figures`):
  ``exactdp reproduce --output DIR`` (``--full`` for the paper's sizes).

Every function takes ``quick=True`` for small sizes (tests) and defaults to the paper's sizes.
Run one as ``python -m exactdp.reproduce.fig6 sum`` or ``exactdp reproduce fig6-sum``.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = [
    "Fig4Row",
    "product_prior_regularity",
    "Fig6Row",
    "fig6_sum_query",
    "fig6_count_queries",
    "build_report",
    "write_report",
]

_LAZY = {
    "Fig4Row": "exactdp.reproduce.fig4",
    "product_prior_regularity": "exactdp.reproduce.fig4",
    "Fig6Row": "exactdp.reproduce.fig6",
    "fig6_sum_query": "exactdp.reproduce.fig6",
    "fig6_count_queries": "exactdp.reproduce.fig6",
    "build_report": "exactdp.reproduce.report",
    "write_report": "exactdp.reproduce.report",
}


def __getattr__(name: str) -> Any:
    """Import on first use (keeps ``python -m exactdp.reproduce.fig6`` free of warnings)."""
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)  # deferred: python -m exactdp.reproduce.figN
    raise AttributeError(f"module 'exactdp.reproduce' has no attribute {name!r}")
