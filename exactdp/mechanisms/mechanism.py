"""The Mechanism type and its exact structures — re-exported from the objects layer.

:class:`Mechanism` and :class:`MechanismKind` live in :mod:`exactdp.spaces.mechanism`, the
forms (:class:`MonomialForm`, :class:`RowNormalizedForm`) in
:mod:`exactdp.spaces.mechanism_forms`: below :mod:`exactdp.tight`, so that
``tight_constraints(...).mechanism`` is a :class:`Mechanism`. This module keeps the names
importable from here (the same objects, not copies).

>>> from exactdp.spaces.mechanism import Mechanism as Home
>>> Mechanism is Home
True
"""

from exactdp.arithmetic.rationals import fmpq_to_float
from exactdp.spaces.mechanism import ROW_POLICIES, Mechanism, MechanismKind
from exactdp.spaces.mechanism_forms import (
    CERTIFIED_PREC,
    MonomialForm,
    RowNormalizedForm,
    factor_ball,
)

__all__ = [
    "CERTIFIED_PREC",
    "ROW_POLICIES",
    "Mechanism",
    "MechanismKind",
    "MonomialForm",
    "RowNormalizedForm",
    "factor_ball",
    "fmpq_to_float",
]
