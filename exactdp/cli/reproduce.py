"""CLI subcommand ``reproduce``: the paper's figures and claims, as a report folder or one table.

Register with ``register(subparsers)``. Examples::

    exactdp reproduce                        # quick report in ./exactdp-report (< 2 min)
    exactdp reproduce --full --output DIR    # the paper's sizes
    exactdp reproduce fig6-sum               # one figure's data as a markdown table (quick)

Quick sizes are the default both for the report and for one figure (``--full``: the paper's
sizes). With no figure, writes ``report.md`` (claims table), ``report.json`` and the PNG figures
(:mod:`exactdp.reproduce.report`, :mod:`exactdp.reproduce.figures`) into ``--output``; the
sizes used are always printed first on stdout, progress goes to stderr (``--quiet``
silences it). The output folder is created and checked writable before anything is computed
(exit 3, :class:`~exactdp.errors.InvalidOutputPath`); ``--output`` or ``--profile`` with one
figure is exit 3 (a figure's table goes to stdout). Exits 0 on success
(:mod:`exactdp.cli.exitcodes`).
"""

from __future__ import annotations

import argparse
from typing import Any

from exactdp.cli.exitcodes import ExitCode, HandlerResult
from exactdp.errors import InvalidArgument
from exactdp.progress import stderr_progress
from exactdp.reproduce import fig4, fig6, fig7
from exactdp.reproduce.report import (
    PROFILES,
    check_output_dir,
    claims_markdown,
    sizes_text,
    write_report,
)

__all__ = ["register"]

#: The sizes each single-figure table uses (quick, paper), printed before the table.
_FIGURE_SIZES = {
    "fig4": ("hamming(4, 5), ε ∈ {0.5, 0.7, 1}", "hamming(4, 5), ε = 0.48 … 1 step 0.01"),
    "fig6-sum": ("sum_query(6, 2), ε ∈ {0.8, 1, 1.3}", "sum_query(150, 5), ε = 0.8 … 1.3 step 0.01"),
    "fig6-count": ("count_queries(4), ε ∈ {0.9, 1.3}", "count_queries(30), ε = 0.9 … 1.3 step 0.01"),
    "fig7": ("grid 4×4 (8² sub-squares), ε = 1.3", "grid 12×12 (64² sub-squares), ε ∈ {0.4, 0.7, 1, 1.3}"),
}


def register(sub: Any) -> None:
    """Add the ``reproduce`` subcommand to an argparse subparsers object."""
    r = sub.add_parser("reproduce", help="the paper's figures and claims: a report folder "
                                         "(no argument) or one figure's data (markdown table)")
    r.add_argument("figure", nargs="?", choices=("fig4", "fig6-sum", "fig6-count", "fig7"),
                   help="one figure's table only (default: the whole report)")
    size = r.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true",
                      help="small sizes (the default, for the report and for one figure)")
    size.add_argument("--full", action="store_true", help="the paper's sizes")
    size.add_argument("--profile", choices=sorted(PROFILES),
                      help="report sizes by name (report only)")
    r.add_argument("--output", default=None,
                   help="report folder, created (default ./exactdp-report; report only: a "
                        "figure's table goes to stdout)")
    r.add_argument("--quiet", action="store_true", help="no progress on stderr")
    r.set_defaults(func=_reproduce)


def _reproduce(args: argparse.Namespace) -> HandlerResult:
    prog = None if args.quiet else stderr_progress()
    if args.figure is None:
        profile = args.profile or ("full" if args.full else "quick")
        outdir = check_output_dir(args.output or "exactdp-report")  # before computing
        print(f"sizes: {sizes_text(PROFILES[profile])}", flush=True)
        rep = write_report(outdir, profile, progress=prog)
        print(claims_markdown(rep))
        print(f"wrote {', '.join(rep['files'])} to {outdir} (computed in {rep['seconds']:.1f} s, "
              f"drawn in {rep['draw_seconds']:.1f} s)")
        return ExitCode.OK
    if args.profile is not None:
        raise InvalidArgument(f"--profile applies to the report only, not to {args.figure}; "
                              "use --quick or --full.")
    if args.output is not None:
        raise InvalidArgument(f"Got --output {args.output!r} with figure {args.figure}; a single "
                              "figure's table is printed on stdout (redirect it), --output is "
                              "for the report: drop the figure or drop --output.")
    quick = not args.full
    print(f"sizes: {_FIGURE_SIZES[args.figure][0 if quick else 1]}", flush=True)
    if args.figure == "fig7":
        print(fig7.to_markdown(fig7.fig7(quick=quick, progress=prog)))
    elif args.figure == "fig4":
        print(fig4.to_markdown(fig4.fig4(quick=quick, progress=prog)))
    elif args.figure == "fig6-sum":
        print(fig6.to_markdown(fig6.fig6_sum_query(quick=quick, progress=prog)))
    else:
        print(fig6.to_markdown(fig6.fig6_count_queries(quick=quick, progress=prog)))
    return ExitCode.OK
