"""The ``exactdp`` command line (``exactdp …`` or ``python -m exactdp``)."""

from exactdp.cli.app import build_parser, main

__all__ = ["main", "build_parser"]
