"""Task 13H: the tampering helpers' own alarm (``call_with_timeout`` / ``judge``) must not
disarm an outer one. pytest-timeout's per-test limit (``timeout`` in ``pyproject.toml``) is a
SIGALRM timer too; the helper used to set the timer to 0 on the way out, so a test that hung
after its first ``judge`` call had no time limit left and could stall a CI run for ever."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator

import pytest

from exactdp.testing.tampering import Tally, VerifyTimeout, call_with_timeout, judge

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGALRM"), reason="needs SIGALRM")


class _Outer(Exception):
    pass


def _outer_handler(signum, frame):
    raise _Outer


@pytest.fixture
def outer_alarm() -> Iterator[None]:
    """An outer alarm like pytest-timeout's (handler + ITIMER_REAL), saved and restored."""
    assert threading.current_thread() is threading.main_thread()
    saved_handler = signal.signal(signal.SIGALRM, _outer_handler)
    saved_timer = signal.setitimer(signal.ITIMER_REAL, 0)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, saved_handler)
        if saved_timer[0]:
            signal.setitimer(signal.ITIMER_REAL, *saved_timer)


def test_a_later_outer_alarm_is_rearmed_after_the_call(outer_alarm):
    signal.setitimer(signal.ITIMER_REAL, 3600)
    assert call_with_timeout(lambda: 7, 30) == 7
    left, _ = signal.getitimer(signal.ITIMER_REAL)
    assert 0 < left <= 3600  # still armed (was 0 before the fix)
    assert signal.getsignal(signal.SIGALRM) is _outer_handler


def test_judge_leaves_the_outer_alarm_armed(outer_alarm):
    class Cert:
        def verify(self) -> bool:
            return True

    signal.setitimer(signal.ITIMER_REAL, 3600)
    tally = Tally("alarm")
    judge(tally, "genuine", Cert(), True, genuine=True)
    assert tally.failures == [] and tally.genuine_checked == 1
    assert signal.getitimer(signal.ITIMER_REAL)[0] > 0
    assert signal.getsignal(signal.SIGALRM) is _outer_handler


def test_an_outer_alarm_due_first_is_left_alone_and_fires(outer_alarm):
    """The outer limit is shorter: the helper sets no alarm of its own, the outer one fires."""
    signal.setitimer(signal.ITIMER_REAL, 0.05)
    with pytest.raises(_Outer):
        call_with_timeout(lambda: threading.Event().wait(30), 20)


def test_the_helpers_own_alarm_still_fires_without_an_outer_one(outer_alarm):
    with pytest.raises(VerifyTimeout, match="within 0.05 s"):
        call_with_timeout(lambda: threading.Event().wait(30), 0.05)
    assert signal.getitimer(signal.ITIMER_REAL)[0] == 0
    assert signal.getsignal(signal.SIGALRM) is _outer_handler
