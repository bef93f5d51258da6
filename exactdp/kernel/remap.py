"""Re-check Thm. 4 remap certificates: is an ε·d-private H optimal for every regular prior?

The question is the ``private`` question (metric, exact level ε, mechanism H: n inputs, m
outputs), and the claim is the verdict of

    (*)  some R ≥ 0 (m × n, rows summing to 1) has Φ·diag(HR) = 1,   Φ[y, y'] = e^{−ε·d(y, y')},

which, for a private H, is "H attains Thm. 2's bound Σα for every regular prior". Two kinds
(JSON ``claim``; ``evidence`` is ``{}``):

* ``remap`` — ``{"verdict": "holds", "remap": R}``: R is read and (*) checked exactly;
* ``remap-farkas`` — ``{"verdict": "fails", "w": [w_1..w_n, w_{n+1}..w_{n+m}]}``: a Farkas
  vector of (*) as {A x = b, x ≥ 0}: b·w = Σ w < 0 and, for every (z, y),
  (Aᵀw)[z, y] = H[y, z]·Σ_{y_r} w_{y_r} Φ[y_r, y] + w_{n+z} ≥ 0 (if some x ≥ 0 solved
  A x = b then b·w = xᵀAᵀw ≥ 0; ``proofs/qif_optimality_reduction.py``).

Both kinds first re-check that H is private at ε (:func:`~exactdp.kernel.privacy.check_privacy`,
the theorem's hypothesis). Everything is exact: with rational rows, only levels where s = e^{−ε/q}
is rational (Φ = (s^k), the metric's distances k/q) travel; others are refused as malformed. At a
rational ε (s irrational) the question's mechanism is a closed form in x = e^{−ε/(q·b)} instead
(an object, not rows): :mod:`exactdp.kernel.remap_qx` reads and checks it. A table
Φ of more than :data:`MAX_PHI_BITS` bits is refused before any power is formed
(InstanceTooLarge, like the privacy scan's :data:`~exactdp.kernel.privacy.MAX_WORK`). Cost
O(n² + n·m) rational operations, plus the privacy scan.

>>> from fractions import Fraction as F
>>> from exactdp.spaces.metrics import line
>>> from exactdp.engine.questions import question_of
>>> q = question_of(line(2), "private", t="1/2", mechanism=[["2/3", "1/3"], ["1/3", "2/3"]])
>>> check_remap(RemapClaim(q, True, ((F(1), F(0)), (F(0), F(1)))))
True
>>> check_remap(RemapClaim(q, False, (F(-1), F(-1), F(2, 3), F(2, 3))))  # Σw = -2/3, Aᵀw = 0
False
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from exactdp.errors import CertificateInvalid, InstanceTooLarge, InvalidArgument
from exactdp.kernel.jsonio import (
    read_envelope,
    read_object,
    read_rationals,
    read_verdict,
    rows_of,
    write_verdict,
)
from exactdp.kernel.privacy import CheckClaim, check_privacy
from exactdp.kernel.question import Property, Question
from exactdp.kernel.remap_qx import QxQuestion, check_remap_qx, read_qx_question
from exactdp.kinds import CertificateKind, Verdict
from exactdp.spaces.levels import PrivacyLevel

__all__ = ["REMAP_KINDS", "MAX_PHI_BITS", "RemapClaim", "check_remap", "read_remap", "phi_values"]

REMAP_KINDS = (CertificateKind.REMAP.value, CertificateKind.REMAP_FARKAS.value)
#: Most bits (numerators + denominators) the exact table Φ = (s^k) may hold (a distance of
#: 10^12 units would need 10^12 bits: refused before any power is formed, like MAX_WORK).
MAX_PHI_BITS = 20_000_000


@dataclass(frozen=True)
class RemapClaim:
    """(*) holds with the remap R (``holds``, evidence m rows of n), or fails with w (n + m)."""

    question: Question | QxQuestion
    holds: bool
    evidence: tuple[Any, ...]


def phi_values(question: Question) -> list[Fraction]:
    """e^{−ε·d} for each distinct distance, exactly (s^k); InvalidArgument when s = e^{−ε/q}
    is not rational, InstanceTooLarge (before any power is formed) when the table would hold
    more than :data:`MAX_PHI_BITS` bits.

    >>> from exactdp.engine.questions import question_of
    >>> from exactdp.spaces.metrics import line_scaled
    >>> phi_values(question_of(line_scaled(2, 10**12), "private", t="1/2",
    ...                        mechanism=[["1/2", "1/2"], ["1/2", "1/2"]]))
    Traceback (most recent call last):
    ...
    exactdp.errors.InstanceTooLarge: question: the remap table e^{-ε·d} = s^k needs ...
    """
    q, level = question.metric.q, question.level
    s = None if q is None or not isinstance(level, PrivacyLevel) else level.s_rational(q)
    if s is None:
        raise InvalidArgument("question.level: remap documents need s = e^{-ε/q} rational (q: the denominator of the "
                              "metric's distances k/q); it is irrational here, even if some e^{-ε·d} are rational. "
                              "Pick a level whose t = e^{-ε} is a rational q-th power.")
    ks = [int(k) for k in question.metric.exponents]
    bits = sum(ks) * (s.numerator.bit_length() + s.denominator.bit_length())
    if bits > MAX_PHI_BITS:
        raise InstanceTooLarge(f"question: the remap table e^{{-ε·d}} = s^k needs about {bits} bits (s = {s}, largest "
                               f"exponent k = {max(ks)}), beyond the kernel's limit of {MAX_PHI_BITS}; use a metric "
                               "with smaller distances (in units of 1/q) or a simpler level.")
    return [s ** k for k in ks]


def check_remap(claim: RemapClaim) -> bool:
    """Re-prove the claim: H private at ε, then R solves (*) or w is a Farkas vector of it."""
    q = claim.question
    if isinstance(q, QxQuestion):  # the mechanism as rational functions of x (irrational s)
        return check_remap_qx(q, claim.holds, claim.evidence)
    if q.prop is not Property.PRIVATE or q.mechanism is None:
        raise CertificateInvalid("a remap claim needs a 'private' question.")
    vals, H = phi_values(q), q.mechanism
    n, m, idx = len(H), len(H[0]), q.metric.index.tolist()
    ev = claim.evidence
    if len(ev) != (m if claim.holds else n + m) or not check_privacy(CheckClaim(q, True, None)):
        return False
    if claim.holds:  # R ≥ 0, rows sum to 1, Φ·diag(HR) = 1
        if any(len(r) != n or min(r) < 0 or sum(r) != 1 for r in ev):
            return False
        diag = [sum((H[y][z] * ev[z][y] for z in range(m)), Fraction(0)) for y in range(n)]
        return all(sum((vals[idx[y][y2]] * diag[y2] for y2 in range(n)), Fraction(0)) == 1 for y in range(n))
    if sum(ev, Fraction(0)) >= 0:  # b·w < 0 (b = ones, w = the evidence)
        return False
    g = [sum((ev[yr] * vals[idx[yr][y]] for yr in range(n)), Fraction(0)) for y in range(n)]
    return all(g[y] * H[y][z] + ev[n + z] >= 0 for y in range(n) for z in range(m))


def read_remap(doc: Any) -> RemapClaim:
    """Read a remap document (malformed: InvalidArgument; altered question, or a verdict that
    is not the kind's: CertificateInvalid, i.e. rejected)."""
    env = read_envelope(doc)
    if env.kind not in REMAP_KINDS:
        raise InvalidArgument(f"kind: got {env.kind!r}; expected one of {list(REMAP_KINDS)}.")
    holds = env.kind == CertificateKind.REMAP.value
    key = "remap" if holds else "w"
    claim = read_object(env.claim, "claim", ("verdict", key))
    read_object(env.evidence, "evidence", ())
    q = (read_qx_question(env.question) if isinstance(env.question.get("mechanism"), dict)
         else Question.from_json(env.question))
    if read_verdict(claim["verdict"], "claim.verdict") is not Verdict.from_bool(holds):
        raise CertificateInvalid(f"claim.verdict: a {env.kind} document claims "
                                 f"{write_verdict(Verdict.from_bool(holds))!r}.")
    if holds:
        return RemapClaim(q, holds, tuple(read_rationals(r, f"claim.remap[{i}]")
                                          for i, r in enumerate(rows_of(claim[key], "claim.remap"))))
    return RemapClaim(q, holds, read_rationals(claim[key], "claim.w"))
