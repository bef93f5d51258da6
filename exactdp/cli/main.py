"""The ``exactdp`` command line.

Each area of the library registers its own subcommands through a ``register``
function (``register(subparsers)``), listed in ``_SUBCOMMAND_MODULES``; the
handlers print human-readable output by default and exact JSON with ``--json``
(rationals as "p/q" strings).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from exactdp.errors import ExactDPError

__all__ = ["main", "build_parser"]

_SUBCOMMAND_MODULES: tuple[str, ...] = (
    "exactdp.cli.core",
    "exactdp.cli.mechanisms",
    "exactdp.cli.threshold",
    "exactdp.cli.pufferfish",
    "exactdp.cli.sets",
)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every registered subcommand."""
    parser = argparse.ArgumentParser(
        prog="exactdp",
        description="Exact and certified verification of privacy mechanisms.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for name in _SUBCOMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the process exit code (2 for bad input)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except ExactDPError as exc:
        print(f"exactdp: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
