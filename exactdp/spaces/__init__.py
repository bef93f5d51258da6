"""Objects a question is about: finite metric spaces, exact distances and privacy levels.

This layer imports only :mod:`exactdp.arithmetic` and :mod:`exactdp.errors`.
"""
