"""Privacy-level results and privacy checks as self-contained kernel documents.

:func:`level_document` turns a :class:`~exactdp.mechanisms.privacy_result.PrivacyLevelResult`
and :func:`check_document` a :class:`~exactdp.mechanisms.privacy.PrivacyCheck` into one JSON
document carrying the whole question (the metric as :mod:`exactdp.kernel.metricio` writes it,
the mechanism's exact entries as ``"p/q"``, the level) and the claim; ``exactdp verify FILE``
re-checks it with the kernel alone (:mod:`exactdp.kernel.privacy`);
:mod:`exactdp.mechanisms.privacy_json_read` reads one back, after the kernel accepted it.

Only exact, row-stochastic mechanisms travel: a certified (ball) mechanism's entries are not
known exactly, so no question the kernel could re-check from scratch describes it
(:class:`~exactdp.errors.ExactnessRequired`); a mechanism loaded ``rows="as-is"`` is not a
distribution per row (:class:`~exactdp.errors.InvalidMechanism`). A question the kernel would
not decide (more than :data:`~exactdp.kernel.privacy.MAX_WORK` entries to read) is refused
before writing (:class:`~exactdp.errors.InstanceTooLarge`, naming the size and the limit), and
an ε + slack whose exact form is too long to write (e.g. slack 10^-5000) raises
:class:`~exactdp.errors.InvalidArgument`: such verdicts have no portable form.

>>> from exactdp.spaces.metrics import line
>>> from exactdp.mechanisms.constructors import from_rows
>>> from exactdp.mechanisms.privacy import privacy_level, is_private
>>> H = from_rows([["3/4", "1/4"], ["1/4", "3/4"]])
>>> doc = level_document(privacy_level(H, line(2)))
>>> doc["kind"], doc["claim"]["value"], doc["claim"]["witness"]
('privacy-level', {'t': '1/3'}, [0, 1, 0])
>>> check_document(is_private(H, line(2), eps=1))["claim"]
{'verdict': 'fails', 'violation': [0, 1, 0]}
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

from exactdp.arithmetic.rationals import unlimited_int_digits
from exactdp.engine.documents import write_privacy_check, write_privacy_level
from exactdp.engine.questions import question_of
from exactdp.errors import CertificateInvalid, ExactnessRequired, InvalidArgument, InvalidMechanism
from exactdp.kernel.jsonio import loads
from exactdp.kernel.privacy import require_work, sufficient_pairs
from exactdp.kernel.question import Question
from exactdp.kernel.verify import verify_document
from exactdp.mechanisms.mechanism import Mechanism, MechanismKind

if TYPE_CHECKING:
    from exactdp.mechanisms.privacy import PrivacyCheck
    from exactdp.mechanisms.privacy_result import PrivacyLevelResult

__all__ = ["level_document", "check_document", "accepted_document", "exact_rows"]


def exact_rows(mech: Mechanism) -> list[list[Fraction]]:
    """The exact rows of a row-stochastic exact mechanism (what a portable question carries);
    ExactnessRequired for certified (ball) entries, InvalidMechanism for rows='as-is'."""
    if mech.kind is not MechanismKind.EXACT:
        raise ExactnessRequired(
            f"{mech.name} has certified (ball) entries: they are not known exactly, so no "
            "portable question describes this mechanism, and its level (an enclosure from "
            "balls or a structure form the kernel cannot re-derive from exact entries) cannot "
            "be re-checked from scratch. Build it from exact rationals (from_rows, or a "
            "constructor whose entries are rational) to get a portable certificate; verify() re-checks "
            "this result in Python.")
    if not mech.is_stochastic:
        raise InvalidMechanism(
            f"{mech.name} was loaded with rows='as-is' (rows need not sum to 1); the portable "
            "question carries distributions. Load it with rows='normalize' or rows='exact'.")
    return mech.rows_fraction()


def _decidable(q: Question) -> Question:
    """``q`` when the kernel would read it within its work limit, else InstanceTooLarge."""
    assert q.mechanism is not None
    require_work(len(sufficient_pairs(q.metric)), len(q.mechanism[0]))
    return q


def level_document(res: PrivacyLevelResult) -> dict[str, Any]:
    """The kernel document of a privacy level (kind ``privacy-level``)."""
    mech, metric = res._mechanism, res._metric
    q = _decidable(question_of(metric, "privacy-level", mechanism=exact_rows(mech)))
    if res.is_infinite:
        return write_privacy_level(q, "infinite", res.witness, None)
    if res.witness is None or res.value == 0:  # level 0: no pair is separated
        return write_privacy_level(q, "0", None, res.enclosure)
    a, b, z = res.witness
    R = mech.entry(a, z) / mech.entry(b, z)
    return write_privacy_level(q, Fraction(R), res.witness, res.enclosure)


def check_document(check: PrivacyCheck) -> dict[str, Any]:
    """The kernel document of an :func:`~exactdp.mechanisms.privacy.is_private` verdict
    (kind ``privacy-check``); the question's level is ε + slack (what the verdict is about)."""
    lvl = check.level
    rows = exact_rows(lvl._mechanism)
    try:
        with unlimited_int_digits():  # ε + slack of any size is printed, then size-checked
            q = question_of(lvl._metric, "private", eps=check.target, mechanism=rows)
    except InvalidArgument as exc:
        raise InvalidArgument(f"this verdict has no portable form: its level ε + slack cannot "
                              f"be written exactly ({exc}). Use a shorter ε or slack.") from exc
    q = _decidable(q)
    return write_privacy_check(q, check.private, check.violation)


def accepted_document(doc: Any, kind: str) -> tuple[Question, dict[str, Any]]:
    """(question, claim) of a document the kernel re-checked and accepted (a rejected one
    raises :class:`~exactdp.errors.CertificateInvalid`; another kind InvalidArgument)."""
    if isinstance(doc, (str, bytes)):
        doc = loads(doc)
    verdict = verify_document(doc)
    if verdict.kind != kind:
        raise InvalidArgument(f"kind: got {verdict.kind!r}; expected {kind!r}.")
    if not verdict.verified:
        raise CertificateInvalid(f"the {kind} document does not re-check: {verdict.reason}")
    return Question.from_json(doc["question"]), doc["claim"]
