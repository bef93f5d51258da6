"""One progress facility for every computation that can run for more than a few seconds.

A long computation takes ``progress: Progress = None`` and reports through :func:`report`
(a no-op when ``progress`` is None). A report is a stage name and a message; results never
contain progress text. The CLI passes :func:`stderr_progress` (silenced by ``--quiet``),
which prefixes the elapsed time and writes to standard error, never to standard output.

Examples
--------
>>> seen = []
>>> report(lambda stage, msg: seen.append((stage, msg)), "cover", "3 ranges certified")
>>> seen
[('cover', '3 ranges certified')]
>>> report(None, "cover", "nothing happens")
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

__all__ = ["Progress", "ProgressFn", "report", "stderr_progress"]

#: A progress callback: ``fn(stage, message)``.
ProgressFn = Callable[[str, str], None]
#: What long computations accept: a callback or None (silent).
Progress = ProgressFn | None


def report(progress: Progress, stage: str, message: str) -> None:
    """Send one progress line to ``progress`` (nothing when it is None)."""
    if progress is not None:
        progress(stage, message)


def stderr_progress(stream: TextIO | None = None) -> ProgressFn:
    """A callback printing ``[  12.3 s] stage: message`` lines to standard error.

    Parameters
    ----------
    stream : text stream, optional
        Where to write (default ``sys.stderr``, looked up at each call).
    """
    start = time.perf_counter()

    def emit(stage: str, message: str) -> None:
        out = stream if stream is not None else sys.stderr
        print(f"[{time.perf_counter() - start:7.1f} s] {stage}: {message}", file=out, flush=True)

    return emit
