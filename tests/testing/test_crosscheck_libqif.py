"""One libqif comparison through the oracle (skipped when the optional peer is absent)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from exactdp.spaces.metrics import from_matrix
from exactdp.testing import crosscheck

STAR = from_matrix([[0, 1, 1, 1], [1, 0, 2, 2], [1, 2, 0, 2], [1, 2, 2, 0]])  # ε* = ln 2


def test_libqif_tight_constraints_near_the_threshold() -> None:
    qif = pytest.importorskip("qif", reason="libqif is not installed (pip install qif, the 'peers' extra)")

    def qif_tight(D: np.ndarray, eps: float) -> tuple[np.ndarray, bool]:
        C = np.asarray(qif.mechanism.d_privacy.tight_constraints(len(D), lambda i, j: eps * D[i, j]))
        return (np.diag(C).copy(), True) if C.size else (np.full(len(D), np.nan), False)

    below = Fraction(693147180559945309, 10**18) * (1 - Fraction(1, 10**9))  # < ln 2: no mechanism
    ok = crosscheck(qif_tight, "tight-constraints", [(STAR, 2), (STAR, below)])
    assert [r.outcome for r in ok.results] == ["agrees", "within-tolerance-of-boundary"]
    strict = crosscheck(qif_tight, "tight-constraints", [(STAR, below)], tol_level=Fraction(1, 10**12))
    r = strict.results[0]
    assert r.outcome == "disagrees" and r.exact_verdict.value == "fails" and min(r.float_value) < 0
