"""Exact rational functions z(s) = Φ(s)⁻¹ b over Q(s) (polynomial case).

In the polynomial case every entry of Φ is a monomial s^k (s = e^{-ε/q}), so
Φ(s) = I + E(s) with E(0) = 0: Φ(s) is invertible over Q(s) for *every* metric
(det Φ(0) = 1), and z(s) = Φ(s)⁻¹ b is a vector of rational functions
z_i = N_i / D with a common denominator D. For b = 1 this is the diagonal of the
tight-constraints mechanism (Prop. 7); for b = π it is α(s) (Φ is symmetric, so
αΦ = π ⇔ Φα = π).

How it is computed (evaluation/interpolation à la Padé, multi-modular):

1. Modulo a prime p < 2^50, the power series z(s) = Σ_k z_k s^k satisfies
   z_0 = b and z_k = −Σ_{j≥1} E_j z_{k−j} (E_j the 0/1 matrix of entries s^j): one
   sparse pass over Φ's exponent pattern per coefficient, exact in int64.
2. The common denominator D mod p is the Padé denominator of a random combination
   Σ w_i z_i (extended Euclid on s^L and the series, stopped at half degree); then
   N_i = D·z_i truncated. Enough terms are taken that K extra coefficients vanish.
3. Several primes, Chinese remaindering and rational reconstruction (D normalised to
   D(0) = 1) give D and N_i over Q, scaled to a primitive integer form.
4. **Verification, exact and deterministic**: Φ(s)N(s) − D(s)b is an integer polynomial
   vector whose coefficients are bounded by B = max_i Σ_j ‖N_j‖₁ + ‖D‖₁‖b‖∞; it is
   checked to vanish modulo primes whose product exceeds 2B, so it vanishes over Z.
   Steps 1–3 are heuristics that can only make the computation fail (then more terms
   or primes are used), never make the returned answer wrong.

The result, :class:`RationalSolution`, carries ``verify()`` which repeats step 4.

Modules: :mod:`~exactdp.algebra.symbolic.modular` (steps 1–4 modulo primes),
:mod:`~exactdp.algebra.symbolic.solution` (the solve and the signs at a level) and
:mod:`~exactdp.algebra.symbolic.signs` (the exact sign pattern on (0, 1)); every name is
importable from here.

Examples
--------
>>> from exactdp.spaces.metrics import line
>>> sol = solve_symbolic(line(3))
>>> [str(p) for p in sol.numerators], str(sol.denominator)
(['1', '(-1)*x + 1', '1'], 'x + 1')
>>> sol.verify()
True
"""

from exactdp.algebra.symbolic.modular import verify_identity
from exactdp.algebra.symbolic.signs import Breakpoint, SignPattern, sign_pattern
from exactdp.algebra.symbolic.solution import (
    SYMBOLIC_MAX_N,
    RationalSolution,
    rational_function_signs,
    solve_pattern,
    solve_symbolic,
)

__all__ = [
    "RationalSolution",
    "solve_symbolic",
    "solve_pattern",
    "rational_function_signs",
    "verify_identity",
    "SYMBOLIC_MAX_N",
    "Breakpoint",
    "SignPattern",
    "sign_pattern",
]
