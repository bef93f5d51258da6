"""Testing helpers for users' own property tests: hypothesis strategies (needs ``hypothesis``)
and an independent exact ground-truth oracle for small instances (:mod:`exactdp.testing.oracle`).

Every strategy of :mod:`exactdp.testing.strategies` is importable from here (and from the older
public path ``exactdp.strategies``), e.g. ``from exactdp.testing import metrics, priors``.
"""

from exactdp.testing import strategies as strategies
from exactdp.testing.strategies import *  # noqa: F403 - the strategies' own __all__ is the list

__all__ = list(strategies.__all__)
