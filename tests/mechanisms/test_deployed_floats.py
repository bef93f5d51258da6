"""Float-backed exact mechanisms (issue 12, speed): the float64 array is the exact matrix.

Checked against the fmpq route and brute force; the privacy level must not build the 10⁶
rationals (a monkeypatched converter fails the test if it does)."""

from __future__ import annotations

import warnings
from fractions import Fraction

import flint
import numpy as np
import pytest

import exactdp.spaces.mechanism as mechanism_module
from exactdp.errors import InexactInputWarning, InvalidMechanism
from exactdp.mechanisms import from_numpy, is_private, privacy_level
from exactdp.mechanisms.mechanism import Mechanism
from exactdp.spaces.metrics import discrete, grid, line


def _load(a: np.ndarray, rows: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InexactInputWarning)
        return from_numpy(a, rows=rows)


def _geometric_float(n: int) -> np.ndarray:
    F = np.exp(-0.5 * np.abs(np.arange(n)[:, None] - np.arange(n)[None, :]))
    return F / F.sum(axis=1, keepdims=True)


def test_as_is_is_float_backed_and_exact() -> None:
    F = _geometric_float(6)
    L = _load(F, "as-is")
    H = L.mechanism
    assert H.binary_floats is not None and (H.binary_floats == F).all()
    assert H.entry(2, 3) == Fraction(float(F[2, 3]))
    assert H.row_sums() == tuple(sum((Fraction(x) for x in r), Fraction(0)) for r in F.tolist())
    assert L.rows.defects == tuple(s - 1 for s in H.row_sums())
    # the object view (built on demand) holds the same exact values
    assert H.entries_object()[1, 4] == flint.fmpq(*float(F[1, 4]).as_integer_ratio())


def test_normalize_stays_exact_rationals() -> None:
    F = _geometric_float(5)
    H = _load(F, "normalize").mechanism
    assert H.binary_floats is None
    assert all(s == 1 for s in H.row_sums())


def test_exact_policy_refuses_float_rows_that_miss_one() -> None:
    B = np.array([[0.7, 0.3], [0.3, 0.7]])
    with pytest.raises(InvalidMechanism, match="row 0 sums to 1 - 1/18014398509481984"):
        _load(B, "exact")
    assert _load(np.array([[0.75, 0.25], [0.5, 0.5]]), "exact").mechanism.binary_floats is not None


def test_float_backed_level_equals_fmpq_route_and_brute_force() -> None:
    rng = np.random.default_rng(7)
    for _ in range(40):
        n, m = int(rng.integers(2, 5)), int(rng.integers(1, 6))
        X = rng.random((n, m)) * np.exp2(rng.integers(-1070, 900, (n, m)).astype(float))
        X[:, 0] += 0.5
        Hf = Mechanism(X, kind="exact", row_policy="as-is")
        Hq = Mechanism(np.array([[flint.fmpq(*x.as_integer_ratio()) for x in r]
                                 for r in X.tolist()], dtype=object),
                       kind="exact", row_policy="as-is")
        rf, rq = privacy_level(Hf, discrete(n)), privacy_level(Hq, discrete(n))
        assert rf.value == rq.value and rf.ratio == rq.ratio
        brute = max((Fraction(X[a, z]) / Fraction(X[b, z]) for a in range(n) for b in range(n)
                     for z in range(m) if a != b and X[b, z] > 0), default=None)
        assert rf.ratio == brute
        assert rf.verify()


def test_privacy_level_builds_no_rationals_for_a_float_matrix(monkeypatch) -> None:
    metric = grid(10, 12, "manhattan")
    F = np.exp(-0.5 * metric.distance_matrix_float())
    F /= F.sum(axis=1, keepdims=True)
    H = _load(F, "as-is").mechanism

    def refuse(values):
        raise AssertionError(f"built {len(values)} fmpq entries")

    monkeypatch.setattr(mechanism_module, "floats_to_fmpq", refuse)
    r = privacy_level(H, metric)
    edges = np.asarray(metric.check_edges())
    L = np.log(F)
    float_level = float(np.abs(L[edges[:, 0]] - L[edges[:, 1]]).max())  # all edges: d = 1
    assert r.ratio is not None and abs(float(r) - float_level) < 1e-12
    assert H.binary_floats is not None


def test_loaded_mechanism_is_accepted_directly() -> None:
    L = _load(np.array([[0.75, 0.25], [0.25, 0.75]]), "exact")
    assert privacy_level(L, line(2)).value == privacy_level(L.mechanism, line(2)).value
    c = is_private(L, line(2), eps="log(3)")
    assert c.private and c.excess == 0 and "equals ε exactly" in str(c)
    assert not is_private(L, line(2), eps="109/100")


def test_float_backed_validation_names_the_entry() -> None:
    with pytest.raises(InvalidMechanism, match=r"entry \[0\]\[1\] = -0.5"):
        Mechanism(np.array([[1.5, -0.5]]), kind="exact")
    with pytest.raises(InvalidMechanism, match="row 0 sums to 3/4"):
        Mechanism(np.array([[0.5, 0.25]]), kind="exact")
