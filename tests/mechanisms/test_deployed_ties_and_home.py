"""Issue 12, session 6: ``tight_constraints(...).mechanism`` is a Mechanism (the type moved to the
objects layer), and exact ratio ties of float-backed mechanisms are settled on the floats."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
from flint import fmpq
from hypothesis import example, given, settings
from hypothesis import strategies as st

import exactdp.mechanisms.mechanism as old_home
import exactdp.mechanisms.privacy_routes as routes
import exactdp.spaces.mechanism as home
from exactdp.arithmetic.ball import arb_to_fraction_interval
from exactdp.errors import EntryOutOfRange, InvalidArgument, PropertyNeverHolds
from exactdp.mechanisms import (
    is_private,
    mechanism_from_tight,
    privacy_level,
    tight_constraints_mechanism,
    utility,
)
from exactdp.mechanisms.dyadic import DyadicRatios
from exactdp.metrics import cycle, grid, line, sum_query
from exactdp.spaces.mechanism import Mechanism, MechanismKind
from exactdp.tight import tight_constraints


# --------------------------------------------------------------- the Mechanism's new home
def test_one_class_two_import_paths():
    assert old_home.Mechanism is home.Mechanism and old_home.MechanismKind is home.MechanismKind
    from exactdp.mechanisms.structure import TightForm
    from exactdp.spaces.mechanism_forms import TightForm as T2
    assert TightForm is T2


def test_objects_layer_imports_no_mechanisms_package():
    probe = ("import sys, exactdp.spaces.mechanism, exactdp.spaces.mechanism_forms\n"
             "print([m for m in sys.modules if m.startswith(('exactdp.mechanisms', "
             "'exactdp.engine', 'exactdp.tight', 'exactdp.linalg'))])")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "[]", out.stdout + out.stderr


def test_tight_mechanism_is_a_mechanism_exact():
    r = tight_constraints(line(4), t="1/3")
    H = r.mechanism
    assert isinstance(H, Mechanism) and H.kind is MechanismKind.EXACT
    assert H is r.mechanism is mechanism_from_tight(r)  # built once, cached
    assert tuple(H) == r.mechanism_exact and len(H) == 4
    assert H[1][2] == H[1, 2] == r.mechanism_exact[1][2] and H[-1] == H[3]
    assert all(sum(row) == 1 for row in H)
    assert H.rows_fraction() == tight_constraints_mechanism(line(4), t="1/3").rows_fraction()
    lv = privacy_level(H, line(4))
    assert lv.method == "monomial" and lv.ratio == 3 and lv.verify()
    assert utility(H).value == utility(r).value


def test_tight_mechanism_certified_keeps_its_exact_level():
    r = tight_constraints(sum_query(6, 2), eps="4/5")
    H = r.mechanism
    assert H.kind is MechanismKind.CERTIFIED and H.monomial is not None
    assert all(isinstance(x, type(H.entry(0, 0))) for x in H[0])
    for i, row in enumerate(r.mechanism_enclosure):  # both enclose the true entry: they meet
        for j, enc in enumerate(row):
            lo, hi = arb_to_fraction_interval(H[i, j])
            assert max(lo, enc.lo) <= min(hi, enc.hi)
    chk = is_private(H, sum_query(6, 2), eps="4/5")
    assert chk.private and privacy_level(H, sum_query(6, 2)).value == Fraction(4, 5)


def test_tight_mechanism_euclidean_carries_its_tight_form():
    g = grid(3, 3, "euclidean")
    H = tight_constraints(g, eps="9/10").mechanism
    assert H.structure is not None and H.monomial is None
    lv = privacy_level(H, g)
    assert lv.value == Fraction(9, 10) and lv.method == "tight" and lv.verify()


def test_tight_mechanism_none_exists_raises_with_the_certificate():
    r = tight_constraints(sum_query(30, 5), t="9/10")
    assert not r.exists
    with pytest.raises(PropertyNeverHolds) as info:
        _ = r.mechanism
    assert info.value.evidence is r.certificate
    with pytest.raises(PropertyNeverHolds) as info2:
        mechanism_from_tight(r)
    assert info2.value.evidence is r


def test_row_access_errors_are_specific():
    H = Mechanism(np.array([[0.75, 0.25], [0.5, 0.5]]), kind="exact")
    with pytest.raises(EntryOutOfRange, match="row 2 is out of range"):
        H[2]
    with pytest.raises(IndexError):
        H[0, 5]
    with pytest.raises(InvalidArgument, match="indexed by integers"):
        H["a"]
    assert list(H) == [(Fraction(3, 4), Fraction(1, 4)), (Fraction(1, 2), Fraction(1, 2))]


# --------------------------------------------------------------- exact ties on the floats
floats = st.floats(min_value=0, max_value=1e300, allow_nan=False, allow_infinity=False)
positive = st.floats(min_value=5e-324, max_value=1e300, allow_nan=False, allow_infinity=False)


@settings(max_examples=300, deadline=None)
@given(x=floats, y=positive, X=floats, Y=positive, k=st.integers(-40, 40))
@example(x=0.1, y=0.3, X=1.0, Y=3.0, k=0)
@example(x=5e-324, y=1.0, X=2.0**-1073, Y=2.0, k=3)
@example(x=3.0, y=6.0, X=5.0, Y=10.0, k=0)
def test_compare_is_the_exact_sign(x, y, X, Y, k):
    xs = np.array([x, X * 2.0**k, 0.0])  # the second is an exact tie when nothing rounds
    ys = np.array([y, Y * 2.0**k, y])
    if not (np.isfinite(xs).all() and np.isfinite(ys).all() and (ys > 0).all()):
        return
    got = DyadicRatios.of(xs, ys).compare(X, Y).tolist()
    want = []
    for a, b in zip(xs.tolist(), ys.tolist()):
        q, Q = Fraction(a) / Fraction(b), Fraction(X) / Fraction(Y)
        want.append((q > Q) - (q < Q))
    assert got == want


def test_bad_ratio_inputs_are_refused():
    with pytest.raises(InvalidArgument):
        DyadicRatios.of(np.array([1.0]), np.array([0.0]))
    with pytest.raises(InvalidArgument):
        DyadicRatios.of(np.array([1.0]), np.array([1.0])).compare(1.0, -1.0)
    with pytest.raises(InvalidArgument):
        DyadicRatios.of(np.array([]), np.array([])).argmax(np.array([]))


def _geometric_floats(n):
    m = cycle(n)
    D = m.distance_matrix_float()
    F = np.exp(-0.5 * D)
    F /= F.sum(axis=1, keepdims=True)
    return m, F


def test_cycle_ties_settled_without_forming_rationals(monkeypatch):
    """A float geometric mechanism on a cycle has thousands of exact ratio ties; the route
    forms exact rationals only for its witness (was: one fmpq per candidate)."""
    m, F = _geometric_floats(80)
    Hf = Mechanism(F, kind="exact", row_policy="as-is")
    Hq = Mechanism(np.array([[fmpq(*float(v).as_integer_ratio()) for v in r] for r in F],
                            dtype=object), kind="exact", row_policy="as-is")
    sizes: list[int] = []
    real = routes.floats_to_fmpq

    def counting(values):
        sizes.append(len(values))
        return real(values)

    monkeypatch.setattr(routes, "floats_to_fmpq", counting)
    rf = privacy_level(Hf, m)
    assert sizes and max(sizes) == 1  # only the witness's two entries
    rq = privacy_level(Hq, m)
    brute = max(Fraction(float(F[a, z])) / Fraction(float(F[b, z]))
                for a, b in m.check_edges() for a, b in ((a, b), (b, a)) for z in range(80))
    assert rf.ratio == rq.ratio == brute and rf.value == rq.value
    assert rf.verify() and rq.verify()


def test_verify_rejects_a_witness_below_the_tied_maximum():
    """The re-check compares the tied class exactly: a witness one notch below the true maximum
    (same distance, ratio just under it) is rejected."""
    import dataclasses

    import sympy as sp

    m, F = _geometric_floats(12)
    r = privacy_level(Mechanism(F, kind="exact", row_policy="as-is"), m)
    assert r.verify()
    below = sorted({Fraction(float(F[a, z])) / Fraction(float(F[b, z]))
                    for a, b in m.check_edges() for a, b in ((a, b), (b, a)) for z in range(12)
                    if Fraction(float(F[a, z])) / Fraction(float(F[b, z])) < r.ratio})
    low = below[-1]
    (a, b, z), = [(a, b, z) for a, b in m.check_edges() for a, b in ((a, b), (b, a))
                  for z in range(12)
                  if Fraction(float(F[a, z])) / Fraction(float(F[b, z])) == low][:1]
    fake = dataclasses.replace(r, witness=(a, b, z), ratio=low, enclosure=None,
                               value=sp.log(sp.Rational(low.numerator, low.denominator)))
    assert not fake.verify()


def test_json_of_a_tight_mechanism_round_trips():
    H = tight_constraints(line(3), t="1/2").mechanism
    doc = json.loads(json.dumps(H.to_json()))
    assert doc["rows"][0] == ["2/3", "1/6", "1/6"]


# --------------------------------------------------------------- row-normalized forms are checked
def test_a_forged_row_normalized_form_is_never_trusted():
    """Found this session: a Mechanism carrying the exponential mechanism's row-normalized
    form over other entries (here the identity, level ∞) was certified at the form's level
    log(16/7), and verify() agreed. The form is now read against the entries."""
    import dataclasses

    from exactdp.mechanisms import exponential_mechanism, from_rows

    E = exponential_mechanism(line(3), t="1/4")
    good = privacy_level(E, line(3))
    assert good.method == "row-monomial" and good.verify()
    ident = from_rows([[1, 0, 0], [0, 1, 0], [0, 0, 1]])
    forged = Mechanism(ident.entries_object(), kind="exact", row_normalized=E.row_normalized)
    r = privacy_level(forged, line(3))
    assert r.value == sp_oo() and r.method == "exact" and r.verify()
    assert not dataclasses.replace(good, _mechanism=forged).verify()
    with pytest.raises(InvalidArgument, match="does not describe its entries"):
        privacy_level(forged, line(3), method="row-monomial")
    # certified entries too: balls of another matrix under the certified form
    E2 = exponential_mechanism(line(3), eps="1/2")
    assert privacy_level(E2, line(3)).method == "row-monomial"
    other = from_rows([["1/2", "1/4", "1/4"], ["1/4", "1/2", "1/4"], ["1/4", "1/4", "1/2"]])
    forged2 = Mechanism(other.to_balls(), kind="certified", row_normalized=E2.row_normalized)
    r2 = privacy_level(forged2, line(3))
    assert r2.method == "ball"  # ln 2, read from the entries
    assert Fraction(69314, 10**5) <= r2.enclosure.lo <= r2.enclosure.hi <= Fraction(69315, 10**5)


def sp_oo():
    import sympy

    return sympy.oo
