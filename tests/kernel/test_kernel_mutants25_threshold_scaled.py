"""Session 25: the survivor of exactdp/kernel/threshold_scaled.py that the mutation tool
could not apply before (a lambda inside the module's ``_INNER`` table; scripts/mutation.py
now swaps the code of such lambdas, tests/repo/test_mutation_tool25.py).

Ground truth: documents nest at most 8 levels deep (``exactdp/kernel/limits.py``, written
here as the number 8: the tool rebinds module constants, so an imported limit would move
with a mutant). A scaled document's inner document is itself one level deep, so a Kronecker
threshold document nested k levels reads inside it for k ≤ 7 and is refused for k = 8 —
while on its own it reads for k = 8 (tests/kernel/test_kernel_size11_readers.py).
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from exactdp.arithmetic.interval import Enclosure
from exactdp.engine.documents import write_threshold
from exactdp.errors import InvalidArgument
from exactdp.kernel.threshold import ThresholdClaim
from exactdp.kernel.threshold_json import read_threshold
from exactdp.kernel.threshold_scaled import read_inner
from exactdp.spaces.metrics import cycle


def _kronecker_nested(levels):
    """A Kronecker threshold document whose factor is nested ``levels`` deep (reading only:
    the numbers are not a true claim)."""
    ones = (F(1),) * 4
    claim = ThresholdClaim("prop9", cycle(4), ones, Enclosure(F(0), F(0)), {})
    for _ in range(levels):
        claim = ThresholdClaim("kronecker-threshold", cycle(4), ones, Enclosure(F(0), F(0)),
                               {"factors": (claim,), "binding": 0})
    return write_threshold(claim)


# kills "line 70: 1 -> 2" (the inner document read two levels deep instead of one)
def test_an_inner_document_is_one_level_deep():
    assert read_threshold(_kronecker_nested(8)).kind == "kronecker-threshold"  # alone: 8 levels read
    inner = read_inner(_kronecker_nested(7))
    assert inner.kind == "kronecker-threshold"
    depth, c = 0, inner
    while c.kind == "kronecker-threshold":
        depth, c = depth + 1, c.evidence["factors"][0]
    assert depth == 7 and c.kind == "prop9"
    with pytest.raises(InvalidArgument, match="evidence.inner: .*nested more than 8 deep"):
        read_inner(_kronecker_nested(8))
