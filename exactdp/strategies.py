"""Re-export of :mod:`exactdp.testing.strategies` (the public path ``exactdp.strategies`` stays)."""

from exactdp.testing.strategies import graph_metrics, priors, rational_t

__all__ = ["graph_metrics", "priors", "rational_t"]
