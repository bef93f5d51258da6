"""Exit codes of every ``exactdp`` command, in one table.

======  =====================================================================================
code    meaning
======  =====================================================================================
``0``   the property holds (exact or certified); for a command that computes a value rather
        than a yes/no answer (a scale, a capacity, a table): success
``1``   the property fails (exact or certified)
``2``   undecided within the precision/time limits (e.g.
        :class:`~exactdp.errors.PrecisionLimitReached`): neither holds nor fails was proved
``3``   bad input or usage: an :class:`~exactdp.errors.ExactDPError` about the input, or one
        of argparse's own errors (unknown option, bad value, missing argument); the usage
        printed is the subcommand's
``4``   internal error: a certificate failed its own re-check, or an unexpected exception (a
        bug: please report it). Kept apart so that ``1`` always means a proved failure.
======  =====================================================================================

A handler returns a :class:`~exactdp.kinds.Verdict` (mapped by :func:`exit_code_for`), an
:class:`ExitCode`, or None (success); :func:`exit_code_for_result` reads any of them, and
:func:`exit_code_for_exception` maps what a handler raises.

Examples
--------
>>> from exactdp.kinds import Verdict
>>> exit_code_for(Verdict.HOLDS), exit_code_for(Verdict.FAILS), exit_code_for(Verdict.UNDECIDED)
(0, 1, 2)
>>> from exactdp.errors import InvalidPrivacyLevel, PrecisionLimitReached
>>> exit_code_for_exception(PrecisionLimitReached("64 bits")), exit_code_for_exception(
...     InvalidPrivacyLevel("eps=-1"))
(2, 3)
"""

from __future__ import annotations

import argparse
import enum
import json
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from exactdp.errors import (
    CertificateInvalid,
    ExactDPError,
    InstanceTooLarge,
    InvalidArgument,
    NotRegular,
    PrecisionLimitReached,
    PropertyNeverHolds,
)
from exactdp.kinds import Verdict

__all__ = [
    "ExitCode",
    "EXCEPTION_CODES",
    "HandlerResult",
    "exit_code_for",
    "exit_code_for_exception",
    "exit_code_for_result",
    "checked_verdict",
    "ArgumentParser",
    "SubcommandParser",
]


class ExitCode(enum.IntEnum):
    """The process exit codes (see the module docstring)."""

    HOLDS = 0
    FAILS = 1
    UNDECIDED = 2
    BAD_INPUT = 3
    INTERNAL_ERROR = 4

    #: success of a command with no yes/no answer (the same code as HOLDS)
    OK = 0


#: What a CLI handler may return.
HandlerResult = Verdict | ExitCode | int | None

_BY_VERDICT = {
    Verdict.HOLDS: ExitCode.HOLDS,
    Verdict.FAILS: ExitCode.FAILS,
    Verdict.UNDECIDED: ExitCode.UNDECIDED,
}

#: Exception class -> exit code; the first matching row wins (subclasses before bases).
EXCEPTION_CODES: tuple[tuple[type[BaseException], ExitCode], ...] = (
    (CertificateInvalid, ExitCode.INTERNAL_ERROR),  # a certificate failed its re-check: a bug
    (PrecisionLimitReached, ExitCode.UNDECIDED),  # balls could not decide within max_prec
    (InstanceTooLarge, ExitCode.UNDECIDED),  # beyond the size/time limits of the method
    (MemoryError, ExitCode.UNDECIDED),  # beyond this machine's memory: nothing was decided
    (PropertyNeverHolds, ExitCode.FAILS),  # proved: the property holds nowhere asked
    (NotRegular, ExitCode.FAILS),  # proved: the prior is not regular (certificate attached)
    (ExactDPError, ExitCode.BAD_INPUT),  # every other library error is about the input
    (OSError, ExitCode.BAD_INPUT),  # --file missing or unreadable
    (json.JSONDecodeError, ExitCode.BAD_INPUT),  # --file is not JSON
)


def exit_code_for(verdict: Verdict) -> int:
    """0 for HOLDS, 1 for FAILS, 2 for UNDECIDED."""
    if not isinstance(verdict, Verdict):
        raise InvalidArgument(f"Got {verdict!r}; exit_code_for takes an exactdp.kinds.Verdict.")
    return int(_BY_VERDICT[verdict])


def exit_code_for_exception(exc: BaseException) -> int:
    """The exit code for an exception raised by a handler (4 for anything unexpected)."""
    for cls, code in EXCEPTION_CODES:
        if isinstance(exc, cls):
            return int(code)
    return int(ExitCode.INTERNAL_ERROR)


def exit_code_for_result(result: HandlerResult) -> int:
    """The exit code for what a handler returned: a Verdict, an exit code, or None (0).

    >>> exit_code_for_result(Verdict.FAILS), exit_code_for_result(None), exit_code_for_result(3)
    (1, 0, 3)
    """
    if isinstance(result, Verdict):
        return exit_code_for(result)
    if result is None:
        return int(ExitCode.OK)
    if isinstance(result, int) and not isinstance(result, bool) and result in set(ExitCode):
        return int(result)
    raise CertificateInvalid(
        f"a handler returned {result!r}; it must return a Verdict, an ExitCode or None (a bug)"
    )


def checked_verdict(verdict: Verdict, verified: bool | None) -> HandlerResult:
    """The handler result for a verdict whose certificate was re-checked.

    ``verified`` is the result of ``certificate.verify()`` (None: not re-checked). A
    certificate that fails its own re-check is a bug: exit code 4, never 0 or 1.

    >>> checked_verdict(Verdict.FAILS, True), checked_verdict(Verdict.HOLDS, False)
    (<Verdict.FAILS: 'fails'>, <ExitCode.INTERNAL_ERROR: 4>)
    """
    if verified is False:
        return ExitCode.INTERNAL_ERROR
    return verdict


class ArgumentParser(argparse.ArgumentParser):
    """An argparse parser whose usage errors exit with code 3 and show the right usage.

    Subparsers made with :meth:`add_subparsers` are of this class too, and an unknown
    option after a subcommand is reported by that subcommand's parser (with its usage),
    not by the top-level one as plain argparse does.
    """

    def __init__(self, *args: Any, subcommand: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._subcommand = subcommand

    def add_subparsers(self, **kwargs: Any) -> Any:
        """As argparse's, with subcommand parsers of this class (``parser_class=``)."""
        kwargs.setdefault("parser_class", SubcommandParser)
        return super().add_subparsers(**kwargs)

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        """As argparse's; a subcommand's parser rejects unknown arguments itself."""
        ns, extras = super().parse_known_args(args, namespace)
        if extras and self._subcommand:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return ns, extras

    def error(self, message: str) -> NoReturn:
        """Print this parser's usage and the message to stderr; exit with code 3."""
        self.print_usage(sys.stderr)
        self.exit(int(ExitCode.BAD_INPUT), f"{self.prog}: error: {message}\n")


class SubcommandParser(ArgumentParser):
    """The parser of a subcommand: reports unknown options itself, with its own usage."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["subcommand"] = True
        super().__init__(*args, **kwargs)
