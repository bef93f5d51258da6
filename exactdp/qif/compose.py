"""Channel algebra: cascade, parallel composition, post-processing, and the refinement order.

* :func:`cascade` — A·B (the output of A is the input of B);
* :func:`post_process` — C·R for a channel R from C's outputs (a remap);
* :func:`parallel` — (A ∥ B)[x][(y, z)] = A[x][y]·B[x][z] (both run on the same secret);
* :func:`is_refined_by` — decide exactly whether B = A·R for some channel R ("A ⊑ B": B is
  a post-processing of A, so B leaks no more than A for every prior and gain function).
  The question is the feasibility of an LP in the |Y_A|·|Y_B| entries of R, decided by the
  exact simplex of :mod:`exactdp.algebra.lp`. Yes: the certificate is R (``verify()``
  re-checks R ≥ 0, R·1 = 1, A·R = B exactly). No: a Farkas vector w (over the equations of
  the LP, rebuilt independently in ``verify()``) with Aᵀw ≥ 0 and b·w < 0.

Examples
--------
>>> A = [["1/2", "1/2"], [0, 1]]
>>> r = is_refined_by(A, [[1], [1]])        # the constant channel refines everything
>>> r.refined, r.verify()
(True, True)
>>> r = is_refined_by([[1], [1]], A)        # nothing but a constant refines a constant
>>> r.refined, r.verdict, r.verify()
(False, <Verdict.FAILS: 'fails'>, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from exactdp.algebra.lp import solve_lp
from exactdp.errors import CertificateInvalid, InstanceTooLarge, InvalidChannel
from exactdp.kernel.jsonio import read_bool, read_rational, write_rational, write_verdict
from exactdp.kinds import CertificateKind, Verdict
from exactdp.mechanisms.constructors import from_rows
from exactdp.mechanisms.mechanism import Mechanism
from exactdp.qif.channel import Matrix, matmul, read_channel
from exactdp.qif.documents import checked_parts, document, kernel_verifies, probabilities, rows
from exactdp.qif.measures import read_matrix_json, write_matrix

__all__ = ["cascade", "post_process", "parallel", "is_refined_by", "Refinement"]

REFINEMENT = CertificateKind.QIF_REFINEMENT.value
#: Largest number of unknowns |Y_A|·|Y_B| of the exact refinement LP.
MAX_REFINEMENT_UNKNOWNS = 900
#: Largest size (rows × columns = (n·|Y_B| + |Y_A|)·|Y_A|·|Y_B|) of the dense exact simplex
#: tableau of the refinement LP; measured: 1–10 s near it on a loaded 2-core machine.
MAX_REFINEMENT_CELLS = 3_000


def cascade(A: Any, B: Any) -> Mechanism:
    """The cascade A·B, exactly (an exact :class:`Mechanism`).

    >>> cascade([["1/2", "1/2"]], [[1, 0], ["1/2", "1/2"]]).rows_fraction()
    [[Fraction(3, 4), Fraction(1, 4)]]
    """
    return from_rows(matmul(read_channel(A, "first channel"), read_channel(B, "second channel")),
                     name="cascade")


def post_process(C: Any, R: Any) -> Mechanism:
    """C·R: the channel C followed by the remap R (rows = C's outputs)."""
    Cm, Rm = read_channel(C), read_channel(R, "remap")
    if len(Cm[0]) != len(Rm):
        raise InvalidChannel(
            f"the remap has {len(Rm)} rows but the channel has {len(Cm[0])} outputs; a remap "
            "has one row per output."
        )
    return from_rows(matmul(Cm, Rm), name="post-processed")


def parallel(A: Any, B: Any) -> Mechanism:
    """(A ∥ B)[x][(y, z)] = A[x][y]·B[x][z]; outputs are the pairs (y, z) in row-major order.

    >>> parallel([[1, 0], [0, 1]], [["1/2", "1/2"], ["1/2", "1/2"]]).shape
    (2, 4)
    """
    Am, Bm = read_channel(A, "first channel"), read_channel(B, "second channel")
    if len(Am) != len(Bm):
        raise InvalidChannel(
            f"parallel composition needs the same secrets: {len(Am)} rows vs {len(Bm)} rows."
        )
    rows = [[a * b for a in ra for b in rb] for ra, rb in zip(Am, Bm)]
    outputs = [(y, z) for y in range(len(Am[0])) for z in range(len(Bm[0]))]
    return from_rows(rows, name="parallel", outputs=outputs)


def _system(A: Matrix, B: Matrix) -> tuple[list[list[Fraction]], list[Fraction]]:
    """A·R = B and R·1 = 1 in the unknowns x[y·k + z] = R[y][z]."""
    n, m, k = len(A), len(A[0]), len(B[0])
    rows: list[list[Fraction]] = []
    rhs: list[Fraction] = []
    for x in range(n):
        for z in range(k):
            row = [Fraction(0)] * (m * k)
            for y in range(m):
                row[y * k + z] = A[x][y]
            rows.append(row)
            rhs.append(B[x][z])
    for y in range(m):
        row = [Fraction(0)] * (m * k)
        for z in range(k):
            row[y * k + z] = Fraction(1)
        rows.append(row)
        rhs.append(Fraction(1))
    return rows, rhs


@dataclass(frozen=True)
class Refinement:
    """Whether B = A·R for a channel R, with the exact certificate either way.

    Attributes
    ----------
    refined : bool
    remap : exact matrix or None
        R (|Y_A| × |Y_B|) when ``refined``.
    farkas : tuple of Fraction or None
        When not refined: w with Mᵀw ≥ 0 and b·w < 0 for the LP M·vec(R) = b of the module
        docstring.
    A, B : the exact channels.
    """

    refined: bool
    remap: Matrix | None
    farkas: tuple[Fraction, ...] | None
    A: Matrix
    B: Matrix

    def __bool__(self) -> bool:
        return self.refined

    @property
    def verdict(self) -> Verdict:
        return Verdict.from_bool(self.refined)

    def verify(self) -> bool:
        """The kernel re-checks :meth:`to_document`: A and B channels on the same secrets,
        and the remap (R ≥ 0, R·1 = 1, A·R = B) or the Farkas vector of that system, exactly.
        A float or non-channel entry gives False."""
        return isinstance(self.refined, bool) and kernel_verifies(self.to_document)

    def to_document(self) -> dict[str, Any]:
        """The kernel document (kind ``qif-refinement``; verdict ``holds`` for A ⊑ B).

        >>> r = is_refined_by([["1/2", "1/2"], [0, 1]], [[1], [1]])
        >>> r.to_document()["evidence"]["remap"], Refinement.from_document(r.to_document()) == r
        ([['1'], ['1']], True)
        """
        return document(REFINEMENT, {"A": rows(self.A), "B": rows(self.B)},
                        {"verdict": write_verdict(self.verdict)},
                        {"remap": rows(self.remap) if self.refined else None,
                         "farkas": None if self.refined or self.farkas is None else probabilities(self.farkas)})

    @classmethod
    def from_document(cls, doc: Any) -> Refinement:
        """Read a document the kernel verifies (else CertificateInvalid / InvalidArgument)."""
        q, c, e = checked_parts(doc, REFINEMENT)
        return cls.from_json({**q, **e, "refined": c["verdict"] == "holds"})

    def to_json(self) -> dict[str, Any]:
        return {"refined": self.refined, "remap": write_matrix(self.remap),
                "farkas": None if self.farkas is None else [write_rational(v)
                                                            for v in self.farkas],
                "A": write_matrix(self.A), "B": write_matrix(self.B)}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> Refinement:
        """Read and validate; raise :class:`CertificateInvalid` unless it verifies.

        >>> r = is_refined_by([["1/2", "1/2"], [0, 1]], [[1], [1]])
        >>> Refinement.from_json(r.to_json()) == r
        True
        """
        A = read_channel(read_matrix_json(doc["A"]), "A")
        B = read_channel(read_matrix_json(doc["B"]), "B")
        remap = None if doc["remap"] is None else read_channel(read_matrix_json(doc["remap"]),
                                                                 "remap")
        farkas = None if doc["farkas"] is None else tuple(
            read_rational(v, "farkas") for v in doc["farkas"])
        out = cls(read_bool(doc["refined"], "refined"), remap, farkas, A, B)
        if not out.verify():
            raise CertificateInvalid(
                "this refinement certificate does not check (remap or Farkas vector edited, "
                "or another pair of channels); recompute it with is_refined_by().")
        return out


def is_refined_by(A: Any, B: Any) -> Refinement:
    """Decide A ⊑ B (B = A·R for some channel R) by an exact LP, certified either way."""
    Am, Bm = read_channel(A, "A"), read_channel(B, "B")
    if len(Am) != len(Bm):
        raise InvalidChannel(
            f"refinement compares channels on the same secrets: {len(Am)} rows vs {len(Bm)}."
        )
    unknowns = len(Am[0]) * len(Bm[0])
    cells = (len(Am) * len(Bm[0]) + len(Am[0])) * unknowns
    if unknowns > MAX_REFINEMENT_UNKNOWNS or cells > MAX_REFINEMENT_CELLS:
        raise InstanceTooLarge(
            f"the refinement LP has {unknowns} unknowns and a {cells}-cell exact simplex "
            f"tableau (limits MAX_REFINEMENT_UNKNOWNS = {MAX_REFINEMENT_UNKNOWNS}, "
            f"MAX_REFINEMENT_CELLS = {MAX_REFINEMENT_CELLS}); the dense exact simplex is meant "
            "for small channels: merge identical columns of A and B or compare smaller channels."
        )
    M, b = _system(Am, Bm)
    res = solve_lp(M, b)
    if res.feasible:
        assert res.x is not None
        k = len(Bm[0])
        R = tuple(tuple(res.x[y * k:(y + 1) * k]) for y in range(len(Am[0])))
        return Refinement(True, R, None, Am, Bm)
    return Refinement(False, None, res.farkas, Am, Bm)
