"""A deterministic work bound for tests: count calls instead of timing them.

Wall-clock bounds in tests flake under CI load; a regression that loops, builds a huge number
or raises the working precision without bound shows up as calls, bytes or bits instead.

>>> with call_budget(10_000) as made:
...     _ = sum(abs(k) for k in range(100))
>>> 0 < made[0] <= 10_000 and made[1] >= 0
True
>>> try:
...     with call_budget(50):
...         _ = [abs(k) for k in range(1000)]
... except OverBudget as exc:
...     print(exc)
over 50 calls
"""

from __future__ import annotations

import contextlib
import sys
import tracemalloc
from collections.abc import Iterator

import flint
import mpmath

__all__ = ["OverBudget", "call_budget"]


class OverBudget(BaseException):
    """The code under test went over its call budget (a hang turned into a failure).

    A ``BaseException`` so that library code catching ``Exception`` cannot swallow it."""


@contextlib.contextmanager
def call_budget(limit: int) -> Iterator[list[int]]:
    """Count the function calls (Python and C) made in the block and abort it past ``limit``.

    Parameters
    ----------
    limit : int
        The most calls the block may make.

    Yields
    ------
    list of int
        ``[calls, peak bytes allocated in the block (tracemalloc), the highest arb / mpmath
        working precision seen at any call]``, filled in as the block runs.

    Raises
    ------
    OverBudget
        As soon as the block makes more than ``limit`` calls.
    """
    made = [0, 0, 0]

    def count(frame: object, event: str, arg: object) -> None:
        if event in ("call", "c_call"):
            made[0] += 1
            made[2] = max(made[2], flint.ctx.prec, mpmath.mp.prec)
            if made[0] > limit:
                sys.setprofile(None)
                raise OverBudget(f"over {limit} calls")

    tracing = tracemalloc.is_tracing()
    if tracing:
        tracemalloc.reset_peak()
    else:
        tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    sys.setprofile(count)
    try:
        yield made
    finally:
        sys.setprofile(None)
        made[1] = tracemalloc.get_traced_memory()[1] - base
        if not tracing:
            tracemalloc.stop()
    if made[0] > limit:
        raise OverBudget(f"over {limit} calls")
