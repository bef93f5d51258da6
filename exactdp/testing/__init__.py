"""Testing helpers for users' own property tests: hypothesis strategies (needs ``hypothesis``)."""

from exactdp.testing.strategies import graph_metrics, priors, rational_t

__all__ = ["graph_metrics", "priors", "rational_t"]
