"""Review 17S of 18737a6 (``solve_ones_zx``, the tight-constraints remap writer).

Both findings are fixed (session 17); the tests pin the fixes.

Finding 1: the commit dropped the writer's up-front degree refusal (``n·max k > MAX_QX_DEGREE``)
and kept only the work bound n⁵·max k ≤ MAX_TIGHT_WORK, which does not bound the degrees
(n·max k) when n is small. A tight-constraints certificate on few points at large distances
is then solved in full in Z[x] — polynomials of degree up to n·max k — before
``require_qx`` refuses the document anyway (Φ's x^{max k} alone is beyond the kernel's
MAX_QX_DEGREE = 10,000). Measured (nice 5, 2 cores): two points at distance 4·10⁶ (work
1.3·10⁸, 15× under the limit): ``to_json`` 103 s and 1.4 GB before InstanceTooLarge; three
points at distance 10⁶: 69 s, 0.86 GB; ``solve_ones_zx`` on two points at 6.25·10⁷ (exactly at
the limit): 224 s, 8.2 GB. The module's contract ("powers beyond MAX_QX_DEGREE: refused from the
integers, before any polynomial is built") is broken for this path.

Finding 2: MAX_TIGHT_WORK bounded the solve only; the rest of the writer (gcds, qx_question's
lowest-terms reduction of n² entries, require_qx) on a high-degree output ran for minutes and
GBs before refusing. Fixed: det Φ's degree bound n·max k ≤ 2·MAX_QX_DEGREE before the solve, and
the kernel's degree and sign-work limits (``remap_qx.sign_work``) right after it.

The first reproducer is deterministic and fast: the solve is replaced by a tripwire, and the
document must still be refused with InstanceTooLarge (from the integers alone). It fails at
18737a6 and at HEAD 647ad12; it passes with the uncommitted edit found in the working tree
during the review (``top > MAX_QX_DEGREE`` refused before the solve), hence a plain test.
"""

from __future__ import annotations

import pytest

import exactdp.mechanisms.optimality_json as oj
from exactdp.errors import InstanceTooLarge
from exactdp.mechanisms.constructors import tight_constraints_mechanism
from exactdp.mechanisms.optimality import is_optimal
from exactdp.spaces.metrics import from_matrix
from exactdp.testing.tampering import call_with_timeout


def test_a_degree_beyond_the_kernel_limit_is_refused_before_the_solve(monkeypatch):
    d = 100_000  # Φ = [[1, x^d], [x^d, 1]]: x^d alone is beyond MAX_QX_DEGREE; n⁵·d = 3.2·10⁶
    assert d > oj.MAX_QX_DEGREE and 2**5 * d <= oj.MAX_TIGHT_WORK
    metric = from_matrix([[0, d], [d, 0]])
    cert = is_optimal(tight_constraints_mechanism(metric, eps=1), metric, eps=1).certificate

    def _tripwire(ks):
        raise AssertionError("solve_ones_zx ran on a question the kernel refuses by its degree")

    monkeypatch.setattr(oj, "solve_ones_zx", _tripwire)
    with pytest.raises(InstanceTooLarge):
        cert.to_json()


def _spread(n, lo, hi, seed=7):
    """Distances lo … hi with hi ≤ 2·lo (a metric), pseudo-random."""
    d = [[0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            d[i][j] = d[j][i] = lo + (7919 * (i + 1) * (j + 3) + seed * 104729) % (hi - lo + 1)
    return from_matrix(d)


def test_the_writer_is_bounded_on_the_commits_own_benchmark():
    """10 points at distances 5,000 … 10,000 (n⁵·max k = 10⁹, half the limit; the commit measured
    its solve at 6 s). Measured by review 17S before the fix: ``to_json`` 277 s and 2.6 GB (solve
    5.8 s, gcds in _tight_pairs 21 s, qx_question's lowest-terms reduction 213 s, require_qx 18 s),
    then InstanceTooLarge (degree 95,875). Now refused from the integers (det Φ of degree up to
    n·max k ≈ 10⁵ > 2·MAX_QX_DEGREE) before the solve."""
    metric = _spread(10, 5000, 10000)
    assert 10**5 * int(metric.exponent_matrix().max()) <= oj.MAX_TIGHT_WORK
    cert = is_optimal(tight_constraints_mechanism(metric, eps=1), metric, eps=1).certificate
    with pytest.raises(InstanceTooLarge, match="det Φ of degree up to"):
        call_with_timeout(cert.to_json, 20)  # VerifyTimeout: the writer ran for minutes again


def test_a_question_over_the_kernels_sign_work_is_refused_after_the_solve_before_the_question():
    """12 points at 300 … 600: the solve is cheap (n⁵·max k ≈ 1.5·10⁸) but the exact entries have
    degree ≈ 7,000, so the kernel's sign work (MAX_QX_WORK) is exceeded: refused by the kernel's own
    formula (``sign_work``) right after the solve, before qx_question reduces n² entries."""
    metric = _spread(12, 300, 600)
    cert = is_optimal(tight_constraints_mechanism(metric, eps=1), metric, eps=1).certificate
    with pytest.raises(InstanceTooLarge, match="has entries of degree"):
        call_with_timeout(cert.to_json, 60)
