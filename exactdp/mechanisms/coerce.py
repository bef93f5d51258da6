"""What a question about "a mechanism" accepts, turned into a :class:`Mechanism`.

Questions (``privacy_level``, ``is_private``, ``utility``, ``min_entropy_leakage``) take a
:class:`~exactdp.mechanisms.mechanism.Mechanism`, and also:

* a :class:`~exactdp.tight.TightConstraintsResult` — it stands for its mechanism
  H = Φ·diag(z) (:func:`~exactdp.mechanisms.constructors.mechanism_from_tight`, with the exact
  structure that keeps its level exact);
* a :class:`~exactdp.mechanisms.files.LoadedMechanism` — it stands for the mechanism it loaded
  (its row-sum report stays on the ``LoadedMechanism``).

``tight_constraints(...).mechanism`` is itself a :class:`Mechanism` (built in the objects
layer, :mod:`exactdp.spaces.mechanism`, which :mod:`exactdp.tight` may import); the result and
its ``.mechanism`` are the same mechanism here.
"""

from __future__ import annotations

from typing import Any

from exactdp.mechanisms.constructors import mechanism_from_tight
from exactdp.mechanisms.files import LoadedMechanism
from exactdp.tight import TightConstraintsResult

__all__ = ["as_mechanism"]


def as_mechanism(mechanism: Any) -> Any:
    """A tight-constraints result → its mechanism; a loaded file → the mechanism it loaded;
    anything else unchanged (the caller validates it).

    >>> from exactdp.spaces.metrics import line
    >>> from exactdp.tight import tight_constraints
    >>> as_mechanism(tight_constraints(line(2), t="1/3")).rows_fraction()[0]
    [Fraction(3, 4), Fraction(1, 4)]
    """
    if isinstance(mechanism, TightConstraintsResult):
        return mechanism_from_tight(mechanism)
    if isinstance(mechanism, LoadedMechanism):
        return mechanism.mechanism
    return mechanism
