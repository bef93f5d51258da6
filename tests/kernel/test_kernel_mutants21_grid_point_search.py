"""Session 21: the float candidate search that ``verify()`` of a grid document runs
(``GridProducts.candidates`` in exactdp/kernel/grid_point.py: CG preconditioned by Strang's,
else T. Chan's, level-2 circulant of Φ_0 on the H×W torus, else none).

The kernel proves whatever y the search returns, so a broken search cannot make a forgery
verify; it makes genuine documents fail (y far from z) or makes ``verify()`` slow (a poor
preconditioner: on a 1,000×1,000 grid every CG iteration is two FFTs of 4·10⁶ points).
Session 20's complete mutation run left 43 survivors in this search; these tests pin the two
things a user depends on, each against ground truth computed here:

* **accuracy** — the Taylor vectors y_0, y_1, y_2 solve Σ_{j+k=m} Φ_j·y_k = δ_{m0}·b, with
  Φ_j = (−D)^j/j! ∘ e^{−cD} built densely in float64 from the grid's distances (no kernel
  code: D from the coordinates, e^{−cD} by numpy);
* **work** — the number of FFT-based operator and preconditioner applications
  (``irfft2`` calls) stays within 25 % of what the unmutated search needs (measured in
  session 21 with scipy 1.17.1: 205, 101, 265, 101 and 303 calls on the five instances below).
  A count, not a time: deterministic for a given scipy; the 25 % is slack for FFT rounding
  differences between versions (numpy.fft and perturbed inputs move them by ≤ 2 %), while
  each preconditioner mutant costs ≥ 38 % more on every instance and up to about 40×.

The instances cover each branch of the preconditioner's choice (checked here independently:
the dense eigenvalues of the Strang and Chan circulants), and ε so small (10⁻¹⁴) that
neither circulant is numerically positive definite, where the search falls back to
unpreconditioned CG.
"""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest

import exactdp.kernel.grid_point as gp
from exactdp.kernel.threshold_spd import _tables
from exactdp.kernel.threshold_taylor import SY
from exactdp.spaces.levels import parse_level
from exactdp.spaces.metrics.masked import GridShape

# (shape, ε centre c, irfft2 calls measured, the preconditioner the search must choose)
STRANG_E = (GridShape(16, 12, "euclidean", F(1)), F(2, 3), 205, "strang")
STRANG_M = (GridShape(12, 12, "manhattan", F(1)), F(1, 3), 101, "strang")
CHAN_E = (GridShape(12, 12, "euclidean", F(1, 10)), F(1), 265, "chan")
CHAN_M = (GridShape(12, 12, "manhattan", F(1)), F(1, 1000), 101, "chan")
CHAN_RECT = (GridShape(40, 10, "euclidean", F(1)), F(1, 3), 303, "chan")
NONE_E = (GridShape(6, 5, "euclidean", F(1)), F(1, 10**14), None, "none")
CASES = [STRANG_E, STRANG_M, CHAN_E, CHAN_M, CHAN_RECT]


def _coords(shape: GridShape) -> np.ndarray:
    cells = np.asarray(shape.cells)
    return np.stack([cells % shape.width, cells // shape.width], axis=1).astype(float)


def _distances(shape: GridShape) -> np.ndarray:
    """D_ij = h·‖p_i − p_j‖ from the coordinates (not from the kernel's offset table)."""
    diff = np.abs(_coords(shape)[:, None, :] - _coords(shape)[None, :, :])
    d = np.sqrt((diff**2).sum(axis=2)) if shape.norm == "euclidean" else diff.sum(axis=2)
    return d * float(shape.spacing)


def _search(shape: GridShape, c: F, monkeypatch: pytest.MonkeyPatch, K: int = 2):
    """(Taylor vectors as floats, number of irfft2 calls) of the kernel's search at c."""
    calls = [0]
    real = gp.irfft2

    def counted(*args, **kwargs):
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(gp, "irfft2", counted)
    g = gp.GridProducts(shape)
    mids, _, _ = _tables(g.values, c, c, K)
    ys = g.candidates((F(1),) * shape.n, mids, K)
    monkeypatch.setattr(gp, "irfft2", real)
    assert ys is not None, "the search gave up (a non-finite solve)"
    return [np.array([float(F(v, 1 << SY)) for v in y]) for y in ys], calls[0]


def _taylor_residuals(shape: GridShape, c: F, ys: list[np.ndarray]) -> list[float]:
    """max_i |Σ_{j+k=m} (Φ_j y_k)_i − δ_{m0}| / scale_m, m = 0..K, in dense float64, with
    scale_m = max_i Σ_{j+k=m} (|Φ_j|·|y_k|)_i (the size of the terms that cancel)."""
    d = _distances(shape)
    base = np.exp(-float(c) * d)
    phis = [base]
    for j in range(1, len(ys)):
        phis.append(phis[-1] * (-d) / j)
    out = []
    for m in range(len(ys)):
        s = sum(phis[j] @ ys[m - j] for j in range(m + 1)) - (1.0 if m == 0 else 0.0)
        scale = max(sum(np.abs(phis[j]) @ np.abs(ys[m - j]) for j in range(m + 1)))
        out.append(float(np.max(np.abs(s)) / scale))
    return out


def _circulant_min_ratio(shape: GridShape, c: F, chan: bool) -> float:
    """min/max eigenvalue of the level-2 Strang (or T. Chan) circulant of Φ_0, built here as
    a dense HW × HW matrix on the torus and diagonalised by numpy (not by the kernel's FFT)."""
    W, H = shape.width, shape.height

    def weight(j: int, n: int) -> float:
        return (n - j) / n if chan else float(2 * j <= n)

    def entry(a: int, b: int) -> float:  # first-column entry at torus offset (a rows, b cols)
        total = 0.0
        for p, wp in ((a, weight(a, H)), ((H - a) % H, 1 - weight(a, H))):
            for q, wq in ((b, weight(b, W)), ((W - b) % W, 1 - weight(b, W))):
                if wp and wq:
                    dist = np.hypot(p, q) if shape.norm == "euclidean" else p + q
                    total += wp * wq * np.exp(-float(c) * float(shape.spacing) * dist)
        return total

    col = np.array([[entry(a, b) for b in range(W)] for a in range(H)])
    idx = [(a, b) for a in range(H) for b in range(W)]
    C = np.array([[col[(a2 - a1) % H, (b2 - b1) % W] for a2, b2 in idx] for a1, b1 in idx])
    lam = np.linalg.eigvalsh((C + C.T) / 2)
    return float(lam.min() / np.abs(lam).max())


@pytest.mark.parametrize("case", [*CASES, NONE_E], ids=lambda c: f"{c[0].width}x{c[0].height}-"
                         f"{c[0].norm[0]}-{c[3]}")
def test_the_instances_exercise_each_preconditioner(case, monkeypatch):
    """Strang's circulant where it is numerically positive definite (the search's test:
    λ_min > 10⁻¹² λ_max), else T. Chan's, else none — so each branch below is reached. The
    deciding ratios, from dense eigenvalues computed here, are at least a factor 10 away from
    10⁻¹²; the kernel's own tries (the spectra it computes before its first solve) agree."""
    shape, c, _, which = case
    strang, chan = _circulant_min_ratio(shape, c, False), _circulant_min_ratio(shape, c, True)
    assert which == ("strang" if strang > 1e-12 else "chan" if chan > 1e-12 else "none"), (strang, chan)
    deciding = [strang] if which == "strang" else [strang, chan]
    assert all(r > 1e-11 or r < 1e-13 for r in deciding), (strang, chan)
    spectra, solving = [], [False]
    real_f, real_i = gp.rfft2, gp.irfft2

    def forward(x, *args, **kwargs):
        out = real_f(x, *args, **kwargs)
        if not args and not kwargs and not solving[0]:
            spectra.append(out.real)
        return out

    def inverse(*args, **kwargs):
        solving[0] = True
        return real_i(*args, **kwargs)

    monkeypatch.setattr(gp, "rfft2", forward)
    monkeypatch.setattr(gp, "irfft2", inverse)
    _search(shape, c, monkeypatch)
    tries = spectra[:-1]  # the last transform before the first solve is the solve's own
    assert len(tries) == (1 if which == "strang" else 2), len(tries)
    kernel = [float(t.min() / np.abs(t).max()) for t in tries]
    assert all(abs(k - d) < 1e-12 for k, d in zip(kernel, deciding)), (kernel, deciding)


# kills the survivors that break the search's result: "line 244: Add -> Sub" (an iteration cap
# 2W + 2H − 500 ≤ 0: y = 0), "line 245: 0 -> 1" (Φ_1 in place of Φ_0 in CG), "line 226: Sub ->
# Add" (the wrong window of the convolution), "line 243: Pow -> Mult" (stopping at a residual of
# ‖r‖² < 2·10⁻¹⁵‖v‖² instead of 10⁻³⁰‖v‖²: y_1 off by 10⁻⁷), "line 250: Div -> Mult"
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0].width}x{c[0].height}-{c[0].norm[0]}-{c[3]}")
def test_candidates_solve_the_taylor_system(case, monkeypatch):
    shape, c, _, _ = case
    ys, _ = _search(shape, c, monkeypatch)
    r0, r1, r2 = _taylor_residuals(shape, c, ys)
    assert r0 < 1e-13, r0  # y_0 is refined with exact residuals: float64 noise only
    assert r1 < 1e-10 and r2 < 1e-10, (r1, r2)  # one CG solve each, to 10⁻¹⁵


# kills the preconditioner survivors: every weight, offset and sign of the Strang and Chan
# circulants ("line 229" both, "line 230: Div -> Mult / Sub -> Add / 2 -> 3 / Mult -> Div",
# "line 232: Mult -> Div / 1 -> 2", "line 233", "line 234", "line 236: Mult -> Div"), the
# preconditioner applied as a product ("line 242: Div -> Mult", "line 250: Div -> Mult"), the
# stopping rule ("line 243: 2 -> 3", "line 245: Mult -> Div" in (r·r), "line 245: 0 -> 1" in p·0)
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0].width}x{c[0].height}-{c[0].norm[0]}-{c[3]}")
def test_preconditioned_cg_needs_few_ffts(case, monkeypatch):
    shape, c, measured, _ = case
    _, calls = _search(shape, c, monkeypatch)
    assert calls <= measured * 5 // 4, (calls, measured)


# kills "line 228: Add -> Sub", "line 228: 1 -> 2", "line 228: 2 -> 3": the fallback (no
# circulant positive definite) divides by ones of the shape of rfft2's output, (H, W//2 + 1);
# W = 6 makes every other shape fail to broadcast
def test_fallback_without_preconditioner_still_solves(monkeypatch):
    shape, c, _, _ = NONE_E
    ys, _ = _search(shape, c, monkeypatch)
    r0, r1, r2 = _taylor_residuals(shape, c, ys)
    # Φ_0 ≈ the all-ones matrix (cond ≈ 7·10¹⁵) and most CG solves hit the iteration cap; the
    # residuals are ≈ 2·10⁻¹⁶ here (≈ 2·10⁻¹⁴ at nearby ε), so the bounds leave room
    assert r0 < 1e-11 and r1 < 1e-10 and r2 < 1e-10, (r0, r1, r2)


# kills "line 244: Add -> Sub" where it gives the cap 2W − 2H + 500: a grid taller than W + 250
# then gets no CG iteration at all (y = 0). The other cap mutants (2W + 2H − 500 is killed above;
# 3W, 3H, 501) only move a budget that these instances never reach
@pytest.mark.parametrize("shape", [GridShape(1, 300, "euclidean", F(1)), GridShape(2, 280, "manhattan", F(1))],
                         ids=["1x300-e", "2x280-m"])
def test_tall_grids_are_solved(shape, monkeypatch):
    ys, calls = _search(shape, F(1, 2), monkeypatch)
    r0, r1, r2 = _taylor_residuals(shape, F(1, 2), ys)
    assert r0 < 1e-13 and r1 < 1e-10 and r2 < 1e-10, (r0, r1, r2)
    assert calls > 4  # the search iterated (y = 0 is caught by the residuals too)


# kills "line 282: Sub -> Add" (bits from numerator + denominator sizes: a 126-bit bracket). The
# documented contract of _eps_bracket: ends on multiples of 2^-bits, 65–66 significant bits
# relative to ε when ε < 1 and 64–65 bits after the point when ε ≥ 1; a bracket far finer only
# makes every later λ proof carry longer rationals. The ±1-bit variants (64 → 65, + 2,
# max(1, ·), − 1) stay within the window below and are listed as sound.
@pytest.mark.parametrize("level", [dict(t="1/2"), dict(eps=F(1, 3)), dict(eps=F(1, 10**30)),
                                   dict(eps=F(10**6, 3))], ids=["ln2", "1/3", "1e-30", "1e6/3"])
def test_eps_bracket_has_about_64_bits(level):
    lo, hi = gp._eps_bracket(parse_level(**level))
    assert 0 < lo < hi
    scale = min(lo, F(1))  # relative below 1, absolute above
    assert F(1, 2**68) <= (hi - lo) / scale <= F(1, 2**62), float((hi - lo) / scale)
