"""Review of task 11R (session 12): the ``jsonio.document_numbers()`` digit-limit scope.

Python's int↔str limit is process-wide; ``exactdp.batch`` / ``exactdp.testing.crosscheck``
run ``verify_document`` on thread executors. The interleavings are forced with events (no
timing), and the ground truth is plain ``str(10**k)`` and ``sys.get_int_max_str_digits()``.
The first two were strict xfails until task 11R-fix: the scopes now share one lock-protected
list of open requests in ``exactdp/arithmetic/rationals.py`` (the highest is in force while any
is open; the user's own limit is back when the last closes). Also here: the fixes of review
findings 4 (verdict reasons shortened) and 5 (``readers.located`` always prefixes).
"""

from __future__ import annotations

import sys
import threading
from fractions import Fraction as F

import pytest

from exactdp import tight_constraints
from exactdp.arithmetic.rationals import int_digits_at_least, unlimited_int_digits
from exactdp.errors import CertificateInvalid, InvalidArgument
from exactdp.kernel import jsonio as J
from exactdp.kernel import verify as V
from exactdp.kernel.read_common import located
from exactdp.spaces.metrics import line

PY_LIMIT = sys.int_info.default_max_str_digits  # 4300
N = 10**4500  # 4501 digits: inside the kernel's stated limit of 10^5 digits per integer


def _run(*targets):
    threads = [threading.Thread(target=t) for t in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads)


@pytest.fixture(autouse=True)
def _python_limit():
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(PY_LIMIT)
    yield
    sys.set_int_max_str_digits(old)


def test_a_scope_left_by_another_thread_keeps_the_limit_of_one_still_open():
    entered, inside, left = threading.Event(), threading.Event(), threading.Event()
    out: dict[str, object] = {}

    def first():  # enters first, leaves while `second` is still inside its scope
        with J.document_numbers():
            entered.set()
            inside.wait(30)
        left.set()

    def second():
        entered.wait(30)
        try:
            with J.document_numbers():
                inside.set()
                left.wait(30)
                out["digits"] = len(str(N))
        except InvalidArgument as exc:
            out["digits"] = str(exc)

    _run(first, second)
    assert out["digits"] == 4501


def test_interleaved_with_the_writers_scope_the_limit_is_restored():
    a, b, c = threading.Event(), threading.Event(), threading.Event()

    def kernel():
        with J.document_numbers():
            a.set()
            b.wait(30)
        c.set()

    def writer():
        a.wait(30)
        with unlimited_int_digits():
            b.set()
            c.wait(30)

    _run(kernel, writer)
    assert sys.get_int_max_str_digits() == PY_LIMIT


def test_user_limits_are_kept_and_restored():
    """Held: a custom or lifted limit is never lowered and is restored as it was."""
    for user in (0, 5000, 200_000, PY_LIMIT):
        sys.set_int_max_str_digits(user)
        with J.document_numbers():
            expected = user if user == 0 or user >= J.MAX_DIGITS else J.MAX_DIGITS
            assert sys.get_int_max_str_digits() == expected
        assert sys.get_int_max_str_digits() == user


def test_limit_restored_after_exceptions_and_nesting():
    """Held: any exception (ExactDPError, ValueError, KeyError), nested scopes, int_digits_at_least."""
    for exc in (KeyError("x"), InvalidArgument("got " + "7" * 50), RuntimeError("r")):
        with pytest.raises(type(exc)), J.document_numbers(), J.document_numbers(10), int_digits_at_least(50_000):
            raise exc
        assert sys.get_int_max_str_digits() == PY_LIMIT
    with pytest.raises(InvalidArgument, match="more than"), J.document_numbers(), J.document_numbers():
        str(10**J.MAX_DIGITS)
    assert sys.get_int_max_str_digits() == PY_LIMIT


def test_shortened_messages_keep_the_path_and_the_other_text():
    """Held: only runs of > 40 digits change; paths, hex fingerprints and 40-digit runs survive."""
    text = ("evidence.factors[1].claim.solution[12]: got " + "9" * 41 + " vs sha256:" + "ab12" * 16
            + " and " + "1" * 40 + "/3 (t=" + str(F(1, 7)) + ")")
    out = J.shorten_numbers(text)
    assert out.startswith("evidence.factors[1].claim.solution[12]: got 9999999999…999999 (41 digits) vs sha256:")
    assert ("ab12" * 16) in out and ("1" * 40 + "/3 (t=1/7)") in out


# ------------------------------------------------------------------ task 11R-fix (session 12)
def test_writer_scope_inside_kernel_scope_in_the_other_order_is_restored():
    """The writer opens first and closes first: the kernel's request stays in force, then the
    user's limit (here a custom 6000) is back."""
    sys.set_int_max_str_digits(6000)
    a, b, c = threading.Event(), threading.Event(), threading.Event()
    seen: dict[str, int] = {}

    def writer():
        with unlimited_int_digits():
            a.set()
            b.wait(30)
        c.set()

    def kernel():
        a.wait(30)
        with J.document_numbers():
            b.set()
            c.wait(30)
            seen["inside"] = sys.get_int_max_str_digits()
            seen["digits"] = len(str(N))

    _run(writer, kernel)
    assert seen == {"inside": J.MAX_DIGITS, "digits": 4501}
    assert sys.get_int_max_str_digits() == 6000


def test_many_threads_mixing_both_scopes_restore_the_user_limit():
    """12 threads, each opening the kernel's or the writers' scope 30 times and converting a
    4,501-digit number inside: no conversion fails, and the limit is Python's after all."""
    errors: list[BaseException] = []
    start = threading.Barrier(12)

    def work(k: int):
        start.wait(30)
        for _ in range(30):
            try:
                with J.document_numbers() if k % 2 else unlimited_int_digits():
                    assert len(str(N)) == 4501
            except BaseException as exc:  # noqa: BLE001 - collected and asserted below
                errors.append(exc)

    _run(*[lambda k=k: work(k) for k in range(12)])
    assert errors == [] and sys.get_int_max_str_digits() == PY_LIMIT


def test_verdict_reasons_are_shortened(monkeypatch):
    """Finding 4: a reason built from a CertificateInvalid inside the scope names a huge number
    shortened, not in its 5,001 digits."""
    doc = tight_constraints(line(4), t="1/2").to_json()
    assert V.verify_document(doc).verified

    def refuse(*args, **kwargs):
        raise CertificateInvalid(f"claim.solution[0]: got {10**5000}, expected 1/2")

    monkeypatch.setitem(V.KIND_CHECKS, doc["kind"], (V.read_linear, refuse))
    verdict = V.verify_document(doc)
    assert not verdict.verified
    assert verdict.reason == "claim.solution[0]: got 1000000000…000000 (5001 digits), expected 1/2"


@pytest.mark.parametrize("inner", ["evidence.factors[12].claim.solution[0]: bad",
                                   "evidence.factors[1].evidence.precision: got 1",
                                   "evidence.factors[1]: got 3"])
def test_located_prefixes_a_message_that_starts_with_the_same_text(inner):
    """Finding 5: a message from inside a sub-document is relative to it, even when it begins
    with the outer path's text (factor 1 of factor 1, factor 12 inside factor 1)."""
    with pytest.raises(InvalidArgument) as info, located("evidence.factors[1]"):
        raise InvalidArgument(inner)
    assert str(info.value) == "evidence.factors[1]." + inner
