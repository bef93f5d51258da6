"""Re-export of :mod:`exactdp.testing.strategies` (the public path ``exactdp.strategies`` stays)."""

from exactdp.testing import strategies as _home
from exactdp.testing.strategies import *  # noqa: F403 - the home module's __all__ is the list

__all__ = list(_home.__all__)
