"""``exactdp verify CERT.json``: re-check a certificate document with the kernel only.

Exit codes (:mod:`exactdp.cli.exitcodes`): 0 verified, 1 rejected (well formed, but a
claim does not re-check or the question was altered), 2 undecided (the kernel refuses a
question too large to re-check, :class:`~exactdp.errors.InstanceTooLarge`; the writers
refuse such documents up front), 3 malformed (not this schema, or a kind without a JSON
form yet, or a number over the limit of :data:`~exactdp.kernel.jsonio.MAX_DIGITS` digits per
integer — the message names the field, its digit count and the limit; never a traceback).
With ``--json`` it prints one JSON object in every case: ``exit_code``, ``outcome``
(``verified`` / ``rejected``), ``kind`` and ``reason``; or, for a malformed document,
``{"exit_code": 3, "outcome": "error", "error": ..., "message": ...}``.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from exactdp.cli.exitcodes import ExitCode, HandlerResult
from exactdp.errors import ExactDPError, InvalidArgument
from exactdp.kernel.jsonio import MAX_DIGITS, document_numbers, shorten_numbers
from exactdp.kernel.verify import SUPPORTED_KINDS, verify_json

__all__ = ["register"]


def _verify(args: argparse.Namespace) -> HandlerResult:
    try:
        text = sys.stdin.buffer.read() if args.file == "-" else open(args.file, "rb").read()
    except OSError as exc:
        raise InvalidArgument(f"cannot read {args.file!r}: {exc.strerror}; pass the path of a "
                              "certificate document (to_json() of a threshold or grid-point result, "
                              "to_document() of a privacy level or check; - for stdin).") from exc
    try:
        with document_numbers():  # loads too: numbers up to the per-integer limit; messages shortened
            verdict = verify_json(text)
    except ExactDPError:
        raise
    except Exception as exc:  # noqa: BLE001 - not checkable: malformed (3), never "rejected" (1)
        raise InvalidArgument(f"{args.file}: the document could not be checked "
                              f"({type(exc).__name__}: {shorten_numbers(str(exc))[:500]}); it is not a "
                              "certificate this kernel can read.") from exc
    if args.json:
        print(json.dumps({"exit_code": 0 if verdict.verified else 1,
                          "outcome": "verified" if verdict.verified else "rejected",
                          "kind": verdict.kind, "reason": verdict.reason}))
    else:
        print(f"{verdict.kind}: verified" if verdict.verified
              else f"{verdict.kind}: REJECTED ({verdict.reason})")
    return ExitCode.OK if verdict.verified else ExitCode.FAILS


def register(subparsers: Any) -> None:
    """Add the ``verify`` subcommand."""
    p = subparsers.add_parser(
        "verify",
        help="re-check a certificate JSON document with the kernel (0 verified, 1 rejected, "
             "3 malformed)",
        description="Re-check a certificate document from scratch with the kernel "
                    f"(exactdp/kernel). Kinds with a JSON form: {', '.join(SUPPORTED_KINDS)}.",
    )
    p.add_argument("file", help="the certificate document (JSON), or - for stdin; numbers are exact "
                                f"strings \"p/q\" of at most {MAX_DIGITS} digits per integer")
    p.add_argument("--json", action="store_true", help="print one JSON object (also for a malformed "
                                                     "document: outcome \"error\", exit code 3)")
    p.set_defaults(func=_verify)
