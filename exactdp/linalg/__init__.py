"""Certified linear algebra in floating point (verified solves with rigorous bounds)."""

from exactdp.linalg.verified import (
    VERIFIED_METHOD,
    FloatEnclosure,
    check_enclosure_arb,
    float_enclosure,
    verified_solve,
)

__all__ = [
    "VERIFIED_METHOD",
    "FloatEnclosure",
    "check_enclosure_arb",
    "float_enclosure",
    "verified_solve",
]
