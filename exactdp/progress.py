"""One progress facility for every computation that can run for more than a few seconds.

A long computation takes ``progress: Progress = None`` and reports through :func:`report`
(a no-op when ``progress`` is None or False; ``True`` prints to standard error, like the
CLI). A report is a stage name and a message; results never
contain progress text. The CLI passes :func:`stderr_progress` (silenced by ``--quiet``),
which prefixes the elapsed time and writes to standard error, never to standard output.

Examples
--------
>>> seen = []
>>> report(lambda stage, msg: seen.append((stage, msg)), "cover", "3 ranges certified")
>>> seen
[('cover', '3 ranges certified')]
>>> report(None, "cover", "nothing happens")
>>> report("yes", "cover", "x")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
exactdp.errors.InvalidArgument: progress='yes' is not a callback: pass fn(stage, message), ...
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from types import ModuleType
from typing import TextIO

from exactdp.errors import InvalidArgument

resource: ModuleType | None
try:  # POSIX only: peak memory for progress messages
    import resource
except ImportError:  # pragma: no cover - Windows
    resource = None

__all__ = ["Progress", "ProgressFn", "report", "stderr_progress", "peak_rss_mb", "memory_note"]

#: A progress callback: ``fn(stage, message)``.
ProgressFn = Callable[[str, str], None]
#: What long computations accept: a callback, True (lines on standard error) or None / False
#: (silent).
Progress = ProgressFn | bool | None

_STDERR: list[ProgressFn] = []  # the shared stderr printer for ``progress=True``, made once


def report(progress: Progress, stage: str, message: str) -> None:
    """Send one progress line to ``progress`` (nothing when it is None or False).

    ``True`` prints through one shared :func:`stderr_progress` (its clock starts at the
    first line); anything else that is not callable raises :class:`InvalidArgument`.
    """
    if progress is None or progress is False:
        return
    if progress is True:
        if not _STDERR:
            _STDERR.append(stderr_progress())
        _STDERR[0](stage, message)
    elif callable(progress):
        progress(stage, message)
    else:
        raise InvalidArgument(f"progress={progress!r} is not a callback: pass fn(stage, message), "
                              "True (print to stderr) or None")


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


def peak_rss_mb() -> float | None:
    """Peak resident set size of this process in MB (None where it cannot be read).

    >>> v = peak_rss_mb(); v is None or v > 0
    True
    """
    if resource is None:  # pragma: no cover - Windows
        return None
    kb = float(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    return kb / 1024 if sys.platform != "darwin" else kb / 2**20


def memory_note() -> str:
    """``"peak RSS 123 MB"`` for progress messages (empty when unknown).

    >>> memory_note().startswith("peak RSS") or memory_note() == ""
    True
    """
    mb = peak_rss_mb()
    return "" if mb is None else f"peak RSS {mb:.0f} MB"
