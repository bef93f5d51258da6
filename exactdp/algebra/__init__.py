"""Exact algebra: Φ(ε), structure (Kronecker/Toeplitz/FFT), symbolic Q(s) solves,
algebraic numbers, the exact LP and the lattice λ_min bound."""
