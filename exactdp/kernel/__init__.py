"""The certificate-checking kernel.

Boundary (enforced by ``tests/repo/test_repo_structure.py``): modules here import nothing
from the rest of :mod:`exactdp` except :mod:`exactdp.arithmetic`, :mod:`exactdp.spaces`,
:mod:`exactdp.kinds` and :mod:`exactdp.errors`, so that re-checking a certificate never
runs the search's code. The certificates issue moves every ``verify()`` here.
"""
