"""Re-export of :mod:`exactdp.testing.strategies` (the public path ``exactdp.strategies`` stays)."""

from exactdp.testing import strategies
from exactdp.testing.strategies import *  # noqa: F403 - the home module's __all__ is the list

__all__ = list(strategies.__all__)
