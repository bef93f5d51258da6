"""Objects a question is about: finite metric spaces, exact distances, privacy levels, priors.

This layer imports only :mod:`exactdp.arithmetic`, :mod:`exactdp.kinds` and
:mod:`exactdp.errors`.
"""
