"""The shared vocabulary of answers: verdicts, signs, methods, certificate kinds.

One definition of each, used by every module:

* :class:`Verdict` — the three-valued answer of a yes/no question (holds / fails / undecided).
  Every result and certificate exposes ``verdict: Verdict`` under that name.
* :class:`Sign` — the three-valued sign of a certified number (−1, 0, +1, or undecided).
* :data:`Method` — the algorithm names accepted by ``method=``.
* :class:`CertificateKind` — the type tag of every certificate (its JSON ``kind`` string).
* :class:`Certificate` — the protocol every certificate follows.
* :func:`proved_by` — marks a closed-form fast path with the name of its proof in ``proofs/``.

Examples
--------
>>> Verdict.from_bool(True)
<Verdict.HOLDS: 'holds'>
>>> Verdict.HOLDS.decided, Verdict.UNDECIDED.decided
(True, False)
>>> Sign.of(-3), Sign.UNDECIDED.decided
(<Sign.NEGATIVE: -1>, False)
>>> str(CertificateKind.FARKAS)
'farkas'
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Literal, Protocol, TypeVar, runtime_checkable

from exactdp.errors import InvalidArgument, NoTruthValue

__all__ = [
    "Verdict",
    "Sign",
    "Method",
    "METHODS",
    "CertificateKind",
    "Certificate",
    "proved_by",
    "PROOF_LINKS",
]


class Verdict(enum.Enum):
    """Three-valued answer: the property holds, fails, or is undecided at the limits used.

    A decided verdict (``HOLDS`` / ``FAILS``) is exact or certified; ``UNDECIDED`` is never
    read as either.
    """

    HOLDS = "holds"
    FAILS = "fails"
    UNDECIDED = "undecided"

    @classmethod
    def from_bool(cls, holds: bool) -> Verdict:
        """``HOLDS`` for True, ``FAILS`` for False (a decided answer)."""
        if not isinstance(holds, bool):
            raise InvalidArgument(f"Got holds={holds!r}; Verdict.from_bool takes a bool.")
        return cls.HOLDS if holds else cls.FAILS

    @property
    def decided(self) -> bool:
        """True for ``HOLDS`` and ``FAILS``."""
        return self is not Verdict.UNDECIDED

    def __bool__(self) -> bool:
        raise NoTruthValue(
            f"{self!r} has no truth value (UNDECIDED is neither); compare with Verdict.HOLDS"
        )


class Sign(enum.Enum):
    """Three-valued sign of a certified number: the undecided case is explicit."""

    NEGATIVE = -1
    ZERO = 0
    POSITIVE = 1
    UNDECIDED = None

    @classmethod
    def of(cls, value: int | None) -> Sign:
        """The sign of an exact number's sign value (−1, 0, +1), or ``UNDECIDED`` for None."""
        if value is None:
            return cls.UNDECIDED
        return cls.POSITIVE if value > 0 else cls.NEGATIVE if value < 0 else cls.ZERO

    @property
    def decided(self) -> bool:
        """True unless ``UNDECIDED``."""
        return self is not Sign.UNDECIDED


#: Algorithm names accepted by ``method=`` of the engine's questions.
Method = Literal["auto", "exact", "symbolic", "ball", "verified-float", "float"]
#: The same names, in the order the automatic choice tries the certified ones.
METHODS: tuple[str, ...] = ("auto", "exact", "symbolic", "ball", "verified-float", "float")


class CertificateKind(enum.StrEnum):
    """Type tag of each certificate; the value is the ``kind`` string of its JSON form.

    Each value names one certificate type only (two types never share a tag).
    """

    EXACT_SOLUTION = "exact-solution"
    FARKAS = "farkas"
    BALL = "ball"
    VERIFIED_FLOAT = "verified-float"
    KRONECKER = "kronecker"
    SYMBOLIC = "symbolic"
    REMAP = "remap"
    REMAP_FARKAS = "remap-farkas"
    HAMMING_UNIFORM = "hamming-uniform"
    PROP9 = "prop9"
    EXACT_THRESHOLD = "exact"
    EXACT_SCALED = "exact-scaled"
    CERTIFIED_COVER = "certified-cover"
    KRONECKER_THRESHOLD = "kronecker-threshold"
    SPD_POINT = "spd-point"
    SPD_TAYLOR_COVER = "spd-taylor-cover"
    STRUCTURED_THRESHOLD = "structured-threshold"
    QUOTIENT_THRESHOLD = "quotient-threshold"
    GRID_POINT = "grid-point"
    GRID_THRESHOLD = "grid-threshold"
    GRID_POINT_EXACT = "grid-point-exact"
    SET_PRIVACY = "set-privacy"
    SET_HAUSDORFF = "set-hausdorff"
    SET_DIAMETER = "set-diameter"
    SET_CAPACITY = "set-capacity"
    SET_HAUSDORFF_REAL = "set-hausdorff-real"
    SET_CAPACITY_REAL = "set-capacity-real"
    SET_PRIVACY_REAL = "set-privacy-real"
    PUFFERFISH_SCALE = "pufferfish-scale"
    PUFFERFISH_WASSERSTEIN = "pufferfish-wasserstein"
    PUFFERFISH_POPULATION = "pufferfish-population"
    PUFFERFISH_DISCRETE_LAPLACE = "pufferfish-discrete-laplace"
    PUFFERFISH_CLASS_LAW = "pufferfish-class-law"
    PUFFERFISH_CLASS_SCALE = "pufferfish-class-scale"
    PUFFERFISH_CLASS_PAIR = "pufferfish-class-pair"
    PUFFERFISH_RENYI = "pufferfish-renyi"
    PUFFERFISH_DISCRETE_RENYI = "pufferfish-discrete-renyi"
    PUFFERFISH_STAIRCASE = "pufferfish-staircase"
    PUFFERFISH_GAUSSIAN_DELTA = "pufferfish-gaussian-delta"
    PUFFERFISH_GAUSSIAN_SCALE = "pufferfish-gaussian-scale"
    QIF_VULNERABILITY = "qif-vulnerability"
    QIF_LEAKAGE = "qif-leakage"
    QIF_GUESSING = "qif-guessing-entropy"
    QIF_CAPACITY = "qif-capacity"
    QIF_REFINEMENT = "qif-refinement"
    QIF_KANTOROVICH = "qif-kantorovich"
    QIF_OPTIMAL = "qif-optimal-mechanism"
    QIF_ENTROPY = "qif-entropy"
    QIF_SHANNON_CAPACITY = "qif-shannon-capacity"
    QIF_MULTIPLICATIVE_TV = "qif-multiplicative-tv"
    QIF_BAYES_RISK = "qif-bayes-risk"


@runtime_checkable
class Certificate(Protocol):
    """What every certificate offers: its kind, the verdict it certifies, and ``verify()``.

    ``verify()`` re-checks every claim from scratch and returns True, or False when a claim
    does not hold (it never raises on a tampered certificate).
    """

    @property
    def kind(self) -> CertificateKind: ...

    @property
    def verdict(self) -> Verdict: ...

    def verify(self) -> bool: ...


_F = TypeVar("_F", bound=Callable[..., object])

#: proof name (a script ``proofs/<name>.py``) -> qualified names of the code it justifies;
#: filled by :func:`proved_by` and read by ``tests/repo/test_repo_proofs.py``.
PROOF_LINKS: dict[str, list[str]] = {}


def proved_by(*proofs: str, registry: dict[str, list[str]] | None = None) -> Callable[[_F], _F]:
    """Mark a closed-form fast path with the proof script(s) in ``proofs/`` that justify it.

    The link is recorded in ``registry`` (default :data:`PROOF_LINKS`, which the proof-link
    test reads: every named script must exist and list the code in its ``PROVES``).

    >>> links: dict[str, list[str]] = {}
    >>> @proved_by("prop9_ball_symmetric", registry=links)
    ... def f(): ...
    >>> links["prop9_ball_symmetric"][-1].endswith("f")
    True
    """
    for p in proofs:
        if not isinstance(p, str) or not p.isidentifier():
            raise InvalidArgument(f"Got proof name {p!r}; pass the stem of a script in proofs/.")
    target = PROOF_LINKS if registry is None else registry

    def mark(fn: _F) -> _F:
        name = f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', repr(fn))}"
        for p in proofs:
            target.setdefault(p, []).append(name)
        return fn

    return mark
