"""The ``exactdp`` command line.

Each area of the library registers its own subcommands through a ``register``
function (``register(subparsers)``), listed in ``_SUBCOMMAND_MODULES``; the
handlers print human-readable output by default and exact JSON with ``--json``
(rationals as "p/q" strings).

Every command exits through one table (:mod:`exactdp.cli.exitcodes`): 0 the property
holds (or, for a command that computes a value, success), 1 it fails, 2 undecided within
the precision/time limits, 3 bad input or usage, 4 internal error. A handler returns a
:class:`~exactdp.kinds.Verdict`, an :class:`~exactdp.cli.exitcodes.ExitCode` or None;
what it raises is mapped by :func:`~exactdp.cli.exitcodes.exit_code_for_exception`.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import traceback
from collections.abc import Sequence

from exactdp.cli.exitcodes import (
    ArgumentParser,
    ExitCode,
    SubcommandParser,
    exit_code_for_exception,
    exit_code_for_result,
)

__all__ = ["main", "build_parser"]

_SUBCOMMAND_MODULES: tuple[str, ...] = (
    "exactdp.cli.core",
    "exactdp.cli.mechanisms",
    "exactdp.cli.threshold",
    "exactdp.cli.pufferfish",
    "exactdp.cli.sets",
    "exactdp.cli.verify",
    "exactdp.cli.reproduce",
)

_LABEL = {
    ExitCode.FAILS: "fails",
    ExitCode.UNDECIDED: "undecided",
    ExitCode.BAD_INPUT: "error",
}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every registered subcommand (usage errors exit with 3)."""
    parser = ArgumentParser(
        prog="exactdp",
        description="Exact and certified verification of privacy mechanisms. Exit codes: "
                    "0 holds (or success), 1 fails, 2 undecided, 3 bad input, 4 internal error.",
    )
    sub = parser.add_subparsers(dest="command", required=True, parser_class=SubcommandParser)
    for name in _SUBCOMMAND_MODULES:
        importlib.import_module(name).register(sub)  # deferred: the registry names each command module
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the process exit code (see :mod:`exactdp.cli.exitcodes`)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help (0) or a usage error (3, usage printed)
        return exc.code if isinstance(exc.code, int) else int(ExitCode.BAD_INPUT)
    try:
        return exit_code_for_result(args.func(args))
    except Exception as exc:  # noqa: BLE001 - every exception maps to an exit code
        code = exit_code_for_exception(exc)
        if code == ExitCode.INTERNAL_ERROR:
            traceback.print_exc(file=sys.stderr)
            print(f"exactdp: internal error: {exc} (a bug: please report it)", file=sys.stderr)
        else:
            print(f"exactdp: {_LABEL[ExitCode(code)]}: {exc}", file=sys.stderr)
        if getattr(args, "json", False):  # --json: stdout stays one parseable JSON object
            print(json.dumps({"exit_code": int(code), "outcome": _LABEL.get(ExitCode(code), "internal error"),
                              "error": type(exc).__name__, "message": str(exc)}))
        return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
