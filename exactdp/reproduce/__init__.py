"""Regenerate the data behind the paper's figures, exact or certified.

* :mod:`exactdp.reproduce.fig6` — utility of the tight-constraints mechanism against
  the geometric comparators (sum query, 2-count query), uniform prior, optimal remap;
* :mod:`exactdp.reproduce.fig4` (``fig4.fig4()``) — leakage bounds vs ε for Example 3 (Thm. 3 and Prop. 5,
  the latter only where the prior is certified regular);
* :mod:`exactdp.reproduce.regions` — Fig. 2 and 3 (corner priors and regularity of
  sample priors);
* :mod:`exactdp.reproduce.fig7` — Fig. 7 at a reduced grid size (certified).

Every function takes ``quick=True`` for small sizes (tests) and defaults to the paper's sizes.
"""

from exactdp.reproduce.fig4 import Fig4Row, product_prior_regularity
from exactdp.reproduce.fig6 import Fig6Row, fig6_count_queries, fig6_sum_query

__all__ = [
    "Fig4Row",
    "product_prior_regularity",
    "Fig6Row",
    "fig6_sum_query",
    "fig6_count_queries",
]
