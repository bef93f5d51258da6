"""Tampering helpers for soundness tests of certificates (``tests/soundness/test_tamper_*.py``).

A tampering replaces one stored claim of a certificate — a number nudged up or down, set
to 0, negated or made huge; a verdict flipped; a witness index moved; a sub-certificate
or the question (metric, prior, level) replaced by another of the same shape — and the
test decides, independently of exactdp's solvers, whether the tampered claim is still
TRUE. The rule checked by :func:`judge`:

* an untampered certificate must verify;
* a tampered certificate whose claim is false must be rejected (``verify()`` is False);
* a tampered certificate whose claim is still true (e.g. a wider enclosure) may verify;
* ``verify()`` returns a bool and never raises.

:class:`Tally` counts what happened; with ``EXACTDP_TAMPER_REPORT=path`` set, every test
process appends its counts there (one JSON line per test) for the long run's report.

Examples
--------
>>> from fractions import Fraction as F
>>> sorted(nudges(F(1, 2)))[:3]
[Fraction(-1000000000000000000000000000000, 1), Fraction(-1, 2), Fraction(0, 1)]
>>> t = Tally("doc")
>>> class Cert:
...     def __init__(self, ok): self.ok = ok
...     def verify(self): return self.ok
>>> judge(t, "genuine", Cert(True), True, genuine=True)
>>> judge(t, "nudged", Cert(False), False)
>>> t.tried, t.forgeries, t.genuine_rejected
(1, 0, 0)
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import signal
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from exactdp.errors import ExactDPError
from exactdp.kernel.verify import verify_document

__all__ = [
    "HUGE",
    "examples",
    "nudges",
    "float_nudges",
    "int_nudges",
    "replace",
    "Tally",
    "judge",
    "TamperingAccepted",
    "VerifyTimeout",
    "call_with_timeout",
    "VERIFY_SECONDS",
    "kernel_accepts",
]

#: A huge rational (any claim moved to it is far from the truth).
HUGE = Fraction(10**30)


def examples(default: int) -> int:
    """Hypothesis ``max_examples``: ``default`` in CI, times ``EXACTDP_TAMPER_EXAMPLES``
    (a multiplier, e.g. 20) for a longer run."""
    factor = int(os.environ.get("EXACTDP_TAMPER_EXAMPLES", "1") or "1")
    return max(1, default * max(1, factor))


def nudges(v: Fraction) -> list[Fraction]:
    """Distinct tampered values of an exact number: ±relative 10⁻⁶ and ±1 (up/down), 0,
    −v, ±:data:`HUGE` (the original value excluded)."""
    v = Fraction(v)
    step = abs(v) / 10**6 if v else Fraction(1, 10**6)
    out = {v + step, v - step, v + 1, v - 1, Fraction(0), -v, HUGE, -HUGE}
    out.discard(v)
    return sorted(out)


def float_nudges(v: float) -> list[float]:
    """The same for a float: relative ±10⁻⁶, ±1, 0, −v, ±1e30 (finite values only)."""
    step = abs(v) * 1e-6 if v else 1e-6
    out = {v + step, v - step, v + 1.0, v - 1.0, 0.0, -v, 1e30, -1e30}
    out.discard(v)
    return sorted(x for x in out if math.isfinite(x))


def int_nudges(v: int, n: int) -> list[int]:
    """Other indices in [0, n) and out-of-range ones (−1, n)."""
    return [k for k in range(-1, n + 1) if k != v]


def replace(obj: Any, **changes: Any) -> Any:
    """``dataclasses.replace`` without running ``__init__`` checks (frozen fields set
    directly), so that malformed values reach ``verify()``."""
    new = object.__new__(type(obj))
    for f in dataclasses.fields(obj):
        if hasattr(obj, f.name):
            object.__setattr__(new, f.name, changes.get(f.name, getattr(obj, f.name)))
    for k, v in changes.items():
        object.__setattr__(new, k, v)
    for k, v in getattr(obj, "__dict__", {}).items():
        if k not in changes and not hasattr(new, k):
            object.__setattr__(new, k, v)
    return new


class TamperingAccepted(AssertionError):
    """A certificate with a false claim verified (a soundness bug), or a genuine one did not."""


@dataclass
class Tally:
    """Counts of one test: tamperings tried, forgeries accepted, genuine ones rejected,
    true-claim tamperings accepted/rejected, undecided (oracle too close to call)."""

    name: str
    tried: int = 0
    forgeries: int = 0
    genuine_checked: int = 0
    genuine_rejected: int = 0
    true_claims: int = 0
    true_claims_accepted: int = 0
    undecided: int = 0
    failures: list[str] = field(default_factory=list)

    def write(self) -> None:
        """Append the counts to ``$EXACTDP_TAMPER_REPORT`` (one JSON line), when set."""
        path = os.environ.get("EXACTDP_TAMPER_REPORT")
        if path:
            with open(path, "a", encoding="utf-8") as fh:
                fh.write(json.dumps({k: v for k, v in dataclasses.asdict(self).items()}) + "\n")

    def raise_if_failed(self) -> None:
        """Fail the test listing every forgery accepted and genuine certificate rejected."""
        self.write()
        if self.failures:
            raise TamperingAccepted(f"{self.name}: {len(self.failures)} failures:\n" + "\n".join(self.failures[:20]))


class _VerifyTimeout(BaseException):
    """Raised by the alarm when one ``verify()`` runs longer than :data:`VERIFY_SECONDS`."""


#: A ``verify()`` of a small certificate taking longer than this is recorded as a failure
#: (a tampered number must not make the checker hang: denial of service).
VERIFY_SECONDS = 20


def _alarm(signum: int, frame: Any) -> None:
    raise _VerifyTimeout


class VerifyTimeout(Exception):
    """:func:`call_with_timeout` ran out of time."""


def call_with_timeout(fn: Any, seconds: float = VERIFY_SECONDS) -> Any:
    """``fn()``, raising :class:`VerifyTimeout` after ``seconds`` (SIGALRM; main thread only,
    elsewhere no limit)."""
    try:
        return _timed_verify(fn, seconds)
    except _VerifyTimeout:
        raise VerifyTimeout(f"did not return within {seconds} s") from None


def _timed_verify(fn: Any, seconds: float = VERIFY_SECONDS) -> Any:
    """``fn()`` under our own alarm, leaving an outer one (pytest-timeout's per-test limit uses
    the same SIGALRM timer) armed: if it is due first we set none, else we re-arm it afterwards
    with what is left of it (cancelling it left a hanging test with no time limit at all)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "SIGALRM"):
        return fn()
    outer, interval = signal.getitimer(signal.ITIMER_REAL)
    if outer and outer <= seconds:
        return fn()
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn()
    finally:
        left, _ = signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        if outer:  # the outer alarm lost the (seconds - left) s our own ran
            signal.setitimer(signal.ITIMER_REAL, max(outer - (seconds - left), 1e-3), interval)


def judge(tally: Tally, label: str, cert: Any, truth: bool | None, genuine: bool = False) -> None:
    """Verify ``cert`` and record the outcome against the ground truth ``truth`` (True: the
    stored claims are true; False: some claim is false; None: undecided by the oracle).

    A ``verify()`` that raises, returns a non-bool, or runs longer than
    :data:`VERIFY_SECONDS` (checked with ``SIGALRM`` in the main thread) is a failure."""
    try:
        ok = _timed_verify(cert.verify)
    except _VerifyTimeout:
        tally.failures.append(f"{label}: verify() did not return within {VERIFY_SECONDS} s")
        return
    except Exception as exc:  # noqa: BLE001 - verify() must never raise
        tally.failures.append(f"{label}: verify() raised {type(exc).__name__}: {exc}")
        return
    if not isinstance(ok, bool):
        tally.failures.append(f"{label}: verify() returned {ok!r}, not a bool")
        return
    if genuine:
        tally.genuine_checked += 1
        if not ok:
            tally.genuine_rejected += 1
            tally.failures.append(f"{label}: GENUINE certificate rejected")
        return
    if truth is None:
        tally.undecided += 1
        return
    tally.tried += 1
    if truth:
        tally.true_claims += 1
        tally.true_claims_accepted += ok
    elif ok:
        tally.forgeries += 1
        tally.failures.append(f"{label}: FORGERY accepted")


def pairs(items: list[Any]) -> Iterator[tuple[Any, Any]]:
    """Ordered pairs of distinct positions (for swapping sub-certificates)."""
    for i in range(len(items)):
        for j in range(len(items)):
            if i != j:
                yield items[i], items[j]


def kernel_accepts(doc: Any) -> bool | None:
    """The kernel's answer on an (edited) JSON document: True verified, False rejected, None
    malformed or over a work limit (an :class:`~exactdp.errors.ExactDPError`, the documented
    refusals). Any other exception propagates: a crash is a bug.

    >>> kernel_accepts({"kind": "exact"}) is None
    True
    """
    try:
        return verify_document(doc).verified
    except ExactDPError:
        return None
