"""A grid threshold-regular question must carry a prior (session 29, hairline fuzz of grid documents).

Every dense ``threshold-regular`` question is bound by ``Question.bind``, which reads its
right-hand side as a prior (nonnegative, summing to 1; InvalidPrior otherwise). A grid question
travels as its shape and is read by ``threshold_grid.read_grid_threshold_claim`` instead, which
checked only that b was not all ones: a ``grid-threshold`` document whose prior was doubled (sum
2), or had one entry moved by 2⁻⁴⁰, verified, and ``ThresholdResult.from_json`` printed "the
prior is regular for every ε ≥ ε*" for a vector that is no prior. (The ε enclosure itself was
re-proved for the vector written, so no false number was printed; the question was malformed.)
The reader now applies the same prior check; ``exact-scaled`` documents whose question is a grid
share the reader.
"""

from __future__ import annotations

import copy
from fractions import Fraction

import pytest

from exactdp.errors import InvalidPrior
from exactdp.kernel.jsonio import dumps, loads
from exactdp.kernel.verify import verify_document
from exactdp.spaces.metrics import grid
from exactdp.threshold import epsilon_threshold

PRIOR = [Fraction(k + 1, 78) for k in range(12)]  # on the 4×3 grid


def _doc(spacing: Fraction) -> dict:
    metric = grid(4, 3, "manhattan", spacing=spacing)
    return loads(dumps(epsilon_threshold(metric, PRIOR, matrix_free=True).to_json()))


EDITS = {
    "doubled": lambda b: [2 * v for v in b],
    "one entry moved by 2^-40": lambda b: [b[0] + Fraction(1, 2**40)] + b[1:],
    "a negative entry, sum 1": lambda b: [b[0] - Fraction(1, 10)] + b[1:-1] + [b[-1] + Fraction(1, 10)],
}


@pytest.mark.parametrize("spacing, kind", [(Fraction(1), "grid-threshold"), (Fraction(1, 2**40), "exact-scaled")])
@pytest.mark.parametrize("edit", list(EDITS))
def test_a_grid_threshold_question_without_a_prior_is_malformed(spacing: Fraction, kind: str, edit: str) -> None:
    doc = _doc(spacing)
    assert doc["kind"] == kind and verify_document(doc).verified
    forged = copy.deepcopy(doc)
    b = [Fraction(v) for v in doc["question"]["rhs"]]
    new = EDITS[edit](b)
    assert new != b and (sum(new) != 1 or min(new) < 0)
    forged["question"]["rhs"] = [str(v) for v in new]
    if kind == "exact-scaled":  # the inner (unit) document states the same right-hand side
        forged["evidence"]["inner"]["question"]["rhs"] = [str(v) for v in new]
    with pytest.raises(InvalidPrior):
        verify_document(forged)
