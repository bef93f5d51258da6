"""Theorem (scaling of distances): let d be a metric on n points, c > 0 and d' = d/c. Then
Φ_d(ε) = Φ_d'(c·ε) entrywise for every ε > 0, so for every b the property
"Φ(ε)x = b has a solution x ≥ 0" holds for d at ε iff it holds for d' at c·ε; hence the
threshold ε* = inf{ε : the property holds on [ε, ∞)} satisfies ε*_d = ε*_d'/c, an enclosure
[lo', hi'] ∋ ε*_d' gives [lo'/c, hi'/c] ∋ ε*_d, a failure at lo' is a failure of d at
lo'/c and "holds on [hi', ∞)" is "holds on [hi'/c, ∞)" for d.

Proof. Φ_d(ε)_ij = e^{−ε·d(i, j)} = e^{−(c·ε)·(d(i, j)/c)} = Φ_d'(c·ε)_ij, so the two linear
systems are the same system and have the same solution sets; ε ↦ c·ε is an increasing
bijection of (0, ∞) onto itself, so it maps {ε : the property holds on [ε, ∞)} onto the same
set for d' and preserves infima (scaled by c). ∎

Polynomial form (the exact route): with d = h·m (m integer) and s = e^{−ε/q}, q the common
denominator, the exponents q·d are all multiples of g = gcd(q·d); in the unit c = g/q,
d' = q·d/g is an integer and u = e^{−c·ε} = s^g, so z(s) = N(s^g)/D(s^g) whenever
z'(u) = N(u)/D(u) — which is how a scaled certificate writes its JSON form.

A grid with spacing h is the spacing-1 grid with d' = d/h (c = h), so ε*(h) = ε*(1)/h.

Checked below: the entrywise identity symbolically; exact solutions z at rational t of
Manhattan grids (and a masked one) with spacings 1, 1/3, 7/2, 1000 against the spacing-1
grid at t^{c}; the substitution u = s^g on the real code's exact solution
(exactdp.threshold.exact.unit_metric, exponent_stride); and a threshold of the real route at
spacing h times h against spacing 1.

The identity needs nothing of the route that solves d': any certificate of "ε*_d' ∈ [lo', hi']"
(exact, Kronecker, SPD Taylor cover, matrix-free grid cover, …) proves ε*_d ∈ [lo'/c, hi'/c].
For two grid shapes d = c·d' pair by pair iff they have the same width, height, norm and mask
and spacing h = c·h' (every distance is h·‖(dx, dy)‖ of the same offsets).

Justifies: exactdp.threshold.exact.unit_metric, exactdp.threshold.exact.exact_threshold,
exactdp.threshold.exact_certificate.ScaledExactCertificate, the general wrapper
(exactdp.threshold.certified.unit_of / scaled_route: any route on the unit metric) and the
kernel kind exact-scaled (exactdp.kernel.threshold_scaled.check_scaled: lo = lo'/c,
hi = hi'/c, d' = d/c pair by pair or by the shapes, any inner threshold kind).
"""

import sys
from fractions import Fraction

import sympy as sp
from flint import fmpq, fmpq_mat

from exactdp.algebra.symbolic import solve_symbolic
from exactdp.kernel.threshold import check_threshold
from exactdp.kernel.threshold_scaled import scaled_question_ok, shape_metric
from exactdp.kernel.verify import verify_document
from exactdp.spaces.metrics import grid
from exactdp.spaces.metrics.masked import GridShape, masked_grid
from exactdp.threshold.api import epsilon_threshold
from exactdp.threshold.certified import scaled_route, unit_of
from exactdp.threshold.exact import ScaledExactCertificate, exact_route, exact_threshold, exponent_stride, unit_metric

PROVES = [
    "exactdp.threshold.exact.unit_metric",
    "exactdp.threshold.exact.exact_threshold",
    "exactdp.threshold.exact_certificate.ScaledExactCertificate",
    "exactdp.kernel.threshold_scaled.check_scaled",
    "exactdp.threshold.certified.unit_of",
    "exactdp.threshold.certified.scaled_route",
]

ok = True


def check(cond, what):
    global ok
    if not cond:
        print("FAILED:", what)
        ok = False


# ---- the entrywise identity ----------------------------------------------------------------
eps, c, d = sp.symbols("epsilon c d", positive=True)
check(sp.simplify(sp.exp(-eps * d) - sp.exp(-(c * eps) * (d / c))) == 0, "e^{-εd} = e^{-(cε)(d/c)}")
# u = s^g with s = e^{-ε/q}, u = e^{-cε}, c = g/q
g, q = sp.symbols("g q", positive=True, integer=True)
check(sp.simplify(sp.exp(-eps / q) ** g - sp.exp(-(g / q) * eps)) == 0, "s^g = e^{-(g/q)ε}")
# an inner metric with its own denominator q′ (ε′ = c·ε, s′ = e^{-ε′/q′}): s′ = s^{c·q/q′}
# (ScaledExactCertificate.threshold_claim's stride; an integer, else no polynomial in s)
q1 = sp.symbols("q1", positive=True, integer=True)
check(sp.simplify(sp.exp(-eps / q) ** (c * q / q1) - sp.exp(-(c * eps) / q1)) == 0, "s′ = s^{c·q/q′}")


# ---- exact solutions at rational t: spacing h at t vs spacing 1 at t^h (h integer) / t^{1/h}
def z_exact(metric, s):
    """z = Φ⁻¹1 exactly, Φ_ij = s^{q·d(i,j)} (polynomial case, rational s)."""
    e = metric.exponent_matrix()
    n = metric.n
    phi = fmpq_mat(n, n, [fmpq(s.numerator, s.denominator) ** int(k) for k in e.ravel()])
    z = phi.solve(fmpq_mat(n, 1, [1] * n))
    return [Fraction(int(z[i, 0].p), int(z[i, 0].q)) for i in range(n)]


mask = ["1111", "1111", "1100", "1100"]
for h in (Fraction(1, 3), Fraction(7, 2), Fraction(1000)):
    for make in (lambda hh: grid(3, 3, "manhattan", spacing=hh),
                 lambda hh: masked_grid(4, 4, "manhattan", hh, mask=mask)):
        mh, m1 = make(h), make(Fraction(1))
        unit, cc = unit_metric(mh)
        check(cc == h and unit.exponents == m1.exponents, f"unit metric of spacing {h}")
        check(exponent_stride(mh) == h.numerator, f"stride of spacing {h}")
        for u in (Fraction(1, 2), Fraction(2, 3)):
            # Φ_h at s with s^{g} = u  ⇔  Φ_1 at u (the entries are u^{k})
            check(z_exact(unit, u) == z_exact(m1, u), f"z of the unit metric at u = {u}, h = {h}")

# ---- z(s) = N(s^g)/D(s^g): the real solver on the unit metric, substituted ---------------------
mh = masked_grid(4, 4, "manhattan", Fraction(7, 2), mask=mask)
unit, cc = unit_metric(mh)
sol = solve_symbolic(unit)
gg = exponent_stride(mh)
s = Fraction(9, 10)
u = s ** gg
zs = z_exact(mh, s)  # Φ_h at s = e^{-ε/q}: entries s^{q·d}
den = sol.denominator(fmpq(u.numerator, u.denominator))
for i, p in enumerate(sol.numerators):
    v = p(fmpq(u.numerator, u.denominator)) / den
    check(Fraction(int(v.p), int(v.q)) == zs[i], f"z_{i}(s) = N_{i}(s^g)/D(s^g)")

# ---- the real route: the threshold of spacing h is the spacing-1 threshold over h ---------------
tol = Fraction(1, 10**12)
one = exact_threshold(masked_grid(4, 4, "manhattan", 1, mask=mask), None, tol, None, [], 160)
for h in (Fraction(7, 2), Fraction(1000)):
    r = exact_threshold(masked_grid(4, 4, "manhattan", h, mask=mask), None, tol, None, [], 160)
    check(isinstance(r.certificate, ScaledExactCertificate) and r.certificate.scale == h,
          f"spacing {h}: solved in its unit")
    check(r.eps_lower * h <= one.eps_upper and one.eps_lower <= r.eps_upper * h,
          f"spacing {h}: h·[lo, hi] overlaps the spacing-1 enclosure")
    check(r.verify(), f"spacing {h}: the scaled certificate verifies")

# ---- the kernel kind exact-scaled: inner document in the unit, outer = inner / c ----------------
# (the kernel derives d/c from the outer question: the same identity Φ_d(ε) = Φ_{d/c}(c·ε))
r = exact_threshold(masked_grid(4, 4, "manhattan", 1000, mask=mask), None, tol, None, [], 160)
doc = r.certificate.to_json()
check(doc["kind"] == "exact-scaled" and verify_document(doc).verified, "exact-scaled document verifies")
inner_eps = doc["evidence"]["inner"]["claim"]["eps"]
check(all(Fraction(doc["claim"]["eps"][k]) * 1000 == Fraction(inner_eps[k]) for k in ("lo", "hi")),
      "outer enclosure = inner enclosure / c")
doc["evidence"]["unit"] = "999"
doc["claim"]["eps"] = {k: str(Fraction(v) / 999) for k, v in inner_eps.items()}
check(not verify_document(doc).verified, "a wrong unit c is rejected")

# ---- the stride with q′ ≠ 1: d = 7·d′ with d′ of spacing 1/2 (q′ = 2), outer q = 2: g = 7 ---------
m_half = masked_grid(4, 4, "manhattan", Fraction(1, 2), mask=mask)
inner = exact_route(m_half, None, tol, None, [], 160)[0].certificate
sc = ScaledExactCertificate(masked_grid(4, 4, "manhattan", Fraction(7, 2), mask=mask), None, Fraction(7), inner,
                            inner.eps_lower / 7, inner.eps_upper / 7)
check(inner.solution.q == 2 and sc.verify() and check_threshold(sc.threshold_claim()),
      "the expanded claim of a q′ = 2 inner certificate (stride c·q/q′ = 7) re-checks")

# ---- any inner route: a certified (SPD cover) inner at spacing 10^40, and grid shapes ----------

g40 = grid(4, 3, "euclidean", spacing=10**40)
r1 = epsilon_threshold(grid(4, 3, "euclidean"))
r40 = scaled_route(g40, None, tol, None, unit_of(g40), lambda m, t: epsilon_threshold(m, tol=t))
check(r40.eps_lower * 10**40 <= r1.eps_upper and r1.eps_lower <= r40.eps_upper * 10**40,
      "spacing 10^40 through the SPD-cover route: 10^40·[lo, hi] overlaps the spacing-1 enclosure")
d40 = r40.to_json()
check(d40["evidence"]["inner"]["kind"] == "spd-taylor-cover" and verify_document(d40).verified,
      "exact-scaled with an spd-taylor-cover inner document verifies")
# shapes: the O(1) rule agrees with the pairwise identity on small grids (masked and not)
for sh in (GridShape(3, 2, "manhattan", Fraction(7, 2)), GridShape(3, 3, "euclidean", Fraction(5), (0, 1, 3, 4, 8))):
    for cc in (Fraction(7, 2), Fraction(5), Fraction(1, 3)):
        unit_shape = GridShape(sh.width, sh.height, sh.norm, sh.spacing / cc, sh.mask)
        pair = scaled_question_ok(shape_metric(sh), shape_metric(unit_shape), cc)
        check(pair and scaled_question_ok(sh, unit_shape, cc), f"shape rule = pairwise ({sh}, c = {cc})")
        wrong = GridShape(sh.width, sh.height, sh.norm, sh.spacing / cc * 2, sh.mask)
        check(not scaled_question_ok(sh, wrong, cc)
              and not scaled_question_ok(shape_metric(sh), shape_metric(wrong), cc),
              f"a wrong spacing ratio is refused by both rules ({sh}, c = {cc})")

print("grid_spacing_scaling:", "all checks passed" if ok else "FAILED")
sys.exit(0 if ok else 1)
