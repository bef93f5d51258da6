"""Arithmetic layer: exact rationals, balls, floats and symbolic expressions.

Everything above this layer receives numbers through these helpers, so that the
three kinds of answer (exact, certified, float) never mix by accident.
"""
