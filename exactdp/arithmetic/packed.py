"""Exact integer products by Kronecker substitution on byte digits: the one home of the packing.

Signed integers v_t are placed at slots p_t of one flint integer, P = Σ_t v_t·z^{p_t} with
z = 2^(8·nb) (:func:`pack_signed`), two such integers are multiplied ONCE, and the product's
base-z digits are read back from its bytes with a bias (:func:`biased_digits`,
:func:`signed_values`): when every coefficient c_e of the polynomial product has
|c_e| < z/2, the digits of P_a·P_b + Σ_{e < nout} (z/2)·z^e are c_e + z/2 (digit width,
biased read-back: ``proofs/kernel_grid_kronecker.py``, Lemmas 1–2; the primitives on their
own, and the ℓ1 bound of the coefficients: ``proofs/packed_products.py``). :func:`digit_bytes`
is the digit width of Lemma 1 for integers below 2^bits.

The kernel's grid products (:meth:`exactdp.kernel.grid_point.GridProducts.sums`) and the
search's blocked Taylor products (:meth:`exactdp.threshold.providers.GridProvider.exact_block_products`)
both use these; each keeps its own layout and its own checks.

Examples
--------
>>> import numpy as np
>>> nb = digit_bytes((2 * 7 * 5).bit_length())     # (3 + 2·z)·(5 − z): |c| ≤ 2·7·5
>>> a = pack_signed([3, 2], np.array([0, 1]), np.array([0, 1]), 2, nb)
>>> b = pack_signed([5, -1], np.array([0, 1]), np.array([0, 1]), 2, nb)
>>> signed_values(biased_digits(a, b, 3, nb))       # 15 + 7z − 2z²
[15, 7, -2]
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import repeat
from typing import Any, Literal, overload

import numpy as np
from flint import fmpz
from numpy.typing import NDArray

from exactdp.errors import InvalidArgument
from exactdp.kinds import proved_by

__all__ = ["digit_bytes", "pack_signed", "biased_digits", "signed_values", "PackedBlocks"]


@proved_by("packed_products")
def digit_bytes(bits: int) -> int:
    """nb = ⌊(bits + 8)/8⌋: every integer of absolute value below 2^bits has
    |·| < 2^(8nb − 1), so it is one biased base-2^(8nb) digit and fits in nb bytes
    (``proofs/kernel_grid_kronecker.py``, Lemma 1, with B = bits). Pass bits ≥ the bit length
    of every coefficient of the product and of every packed value: bits(max|a|) + bits(max|b|)
    + bits(#terms) (the kernel), or the bit length of min(‖a‖₁·max|b|, ‖b‖₁·max|a|) (the search;
    ``proofs/packed_products.py``, Lemma 1).

    >>> digit_bytes(190), digit_bytes(191)
    (24, 24)
    >>> digit_bytes(0), digit_bytes(7), digit_bytes(8)
    (1, 1, 2)
    """
    if isinstance(bits, bool) or not isinstance(bits, (int, np.integer)) or bits < 0:
        raise InvalidArgument(f"digit_bytes: got {bits!r} bits; pass a whole bit count ≥ 0.")
    return (int(bits) + 8) // 8


def _whole(x: Any, least: int, who: str, what: str) -> int:
    """x as an int ≥ ``least`` (a digit width, a slot or digit count), else InvalidArgument."""
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or x < least:
        raise InvalidArgument(f"{who}: got {what}={x!r}; pass a whole number ≥ {least}.")
    return int(x)


@proved_by("packed_products")
def pack_signed(vals: Sequence[int], idx: NDArray[Any], pos: NDArray[Any], nslots: int,
                nb: int) -> fmpz:
    """Σ_t vals[idx[t]]·2^(8·nb·pos[t]) exactly, as a flint integer (|vals| < 2^(8·nb),
    positions distinct and < ``nslots``): the magnitudes' bytes are written into two byte
    buffers (positive and negative values), read as two integers and subtracted
    (``proofs/packed_products.py``).

    Raises
    ------
    InvalidArgument
        When nb < 1 or nslots < 0, ``idx`` and ``pos`` differ in length or are not integer
        arrays, an index is outside ``vals``, a position is outside [0, nslots) or repeated
        (slots are never overwritten or wrapped), or a value is not an int of magnitude
        below 2^(8·nb).

    >>> pack_signed([1, -2], np.array([0, 1, 1]), np.array([0, 1, 3]), 4, 1) == 1 - 2 * 256 - 2 * 256**3
    True
    >>> pack_signed([1, 2], np.array([0, 1]), np.array([0, 0]), 1, 1)
    Traceback (most recent call last):
    ...
    exactdp.errors.InvalidArgument: pack_signed: 2 positions fill only 1 distinct slot(s); ...
    """
    nb, nslots = _whole(nb, 1, "pack_signed", "nb"), _whole(nslots, 0, "pack_signed", "nslots")
    idx, pos = np.asarray(idx), np.asarray(pos)
    if idx.shape != pos.shape or idx.ndim != 1:
        raise InvalidArgument(f"pack_signed: idx {idx.shape} and pos {pos.shape} must be 1-D "
                              "arrays of the same length.")
    if len(idx) == 0:
        return fmpz(0)
    if idx.dtype.kind not in "iu" or pos.dtype.kind not in "iu":
        raise InvalidArgument(f"pack_signed: idx ({idx.dtype}) and pos ({pos.dtype}) must be "
                              "integer arrays.")
    if int(idx.min()) < 0 or int(idx.max()) >= len(vals):
        raise InvalidArgument(f"pack_signed: an index in [{idx.min()}, {idx.max()}] is outside "
                              f"the {len(vals)} values.")
    if int(pos.min()) < 0 or int(pos.max()) >= nslots:
        raise InvalidArgument(f"pack_signed: a position in [{pos.min()}, {pos.max()}] is "
                              f"outside the {nslots} slots [0, {nslots}).")
    used = np.zeros(nslots, bool)
    used[pos] = True
    if int(np.count_nonzero(used)) != len(pos):
        raise InvalidArgument(f"pack_signed: {len(pos)} positions fill only "
                              f"{int(np.count_nonzero(used))} distinct slot(s); every position "
                              "must be distinct (a repeated slot would be overwritten).")
    del used
    order: Literal["little"] = "little"
    try:
        flat = b"".join(map(int.to_bytes, map(abs, vals), repeat(nb), repeat(order)))
    except (OverflowError, TypeError) as exc:
        raise InvalidArgument(f"pack_signed: every value must be an int of magnitude below "
                              f"2^{8 * nb} (digits of {nb} bytes): {exc}") from exc
    mag = np.frombuffer(flat, np.uint8).reshape(-1, nb)
    del flat
    neg = np.fromiter(map((0).__gt__, vals), dtype=bool, count=len(vals))[idx]
    out = fmpz(0)
    for sel, sign in ((~neg, 1), (neg, -1)):
        if not sel.any():
            continue
        buf = np.zeros((nslots, nb), np.uint8)
        buf[pos[sel]] = mag[idx[sel]]
        part = fmpz(int.from_bytes(buf.data, "little"))
        del buf
        out = out + part if sign > 0 else out - part
    return out


@proved_by("packed_products")
def biased_digits(a: fmpz, b: fmpz, nout: int, nb: int) -> NDArray[np.uint8]:
    """The (nout, nb) little-endian base-2^(8nb) digits of a·b + Σ_{e<nout} 2^(8nb−1)·z^e.

    When a·b = Σ_{e<nout} c_e z^e with every |c_e| < z/2, z = 2^(8nb), digit e is
    c_e + z/2 (``proofs/kernel_grid_kronecker.py``, Lemma 2; ``proofs/packed_products.py``);
    read the wanted rows with
    :func:`signed_values`. A product that does not fit in nout digits is refused
    (InvalidArgument: the layout or the digit width is wrong).

    >>> signed_values(biased_digits(fmpz(-3), fmpz(256 + 1), 2, 1))   # −3 − 3z
    [-3, -3]
    """
    nb, nout = _whole(nb, 1, "biased_digits", "nb"), _whole(nout, 0, "biased_digits", "nout")
    q = a * b
    q += fmpz(int.from_bytes((bytes(nb - 1) + b"\x80") * nout, "little"))
    try:
        data = int(q).to_bytes(nout * nb, "little")
    except OverflowError:
        data = b""
    if not data or q < 0:
        raise InvalidArgument(f"biased_digits: the product does not fit in {nout} digits of "
                              f"{nb} bytes; the packing's slots or digit width are wrong.")
    return np.frombuffer(data, np.uint8).reshape(nout, nb)


@proved_by("packed_products")
def signed_values(digits: NDArray[np.uint8]) -> list[int]:
    """Rows of biased digits (k, nb) as the integers d − 2^(8nb−1) (little-endian rows;
    ``proofs/kernel_grid_kronecker.py``, Lemma 2; ``proofs/packed_products.py``).

    >>> signed_values(np.array([[0, 128], [255, 127]], dtype=np.uint8))
    [0, -1]
    """
    nb = digits.shape[-1]
    half = 1 << (8 * nb - 1)
    raw = memoryview(np.ascontiguousarray(digits).tobytes())
    fb = int.from_bytes
    return [fb(raw[i:i + nb], "little") - half for i in range(0, len(raw), nb)]


class PackedBlocks(Sequence[list[int]]):
    """Blocks of integers kept as biased digits until read: block m is
    ``signed_values(digits[m]) + adds[m]`` (a list of Python ints, built on each access; the
    digits take nb bytes per value instead of a Python int each).

    >>> d = np.array([[[1, 128], [0, 128]]], dtype=np.uint8)     # one block: 1, 0
    >>> pb = PackedBlocks(d, [5])
    >>> len(pb), pb[0], pb == [[6, 5]]
    (1, [6, 5], True)
    """

    def __init__(self, digits: NDArray[np.uint8], adds: Sequence[int]) -> None:
        if digits.ndim != 3 or len(adds) != digits.shape[0]:
            raise InvalidArgument(f"PackedBlocks: digits of shape {digits.shape} need one "
                                  f"addend per block; got {len(adds)}.")
        self.digits, self.adds = digits, [int(x) for x in adds]

    def __len__(self) -> int:
        return int(self.digits.shape[0])

    @overload
    def __getitem__(self, m: int) -> list[int]: ...

    @overload
    def __getitem__(self, m: slice) -> list[list[int]]: ...

    def __getitem__(self, m: int | slice) -> list[int] | list[list[int]]:
        if isinstance(m, slice):
            return [self[i] for i in range(len(self))[m]]
        vals = signed_values(self.digits[m])
        add = self.adds[m]
        return [v + add for v in vals] if add else vals

    def __iter__(self) -> Iterator[list[int]]:
        return (self[m] for m in range(len(self)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return len(other) == len(self) and all(a == list(b) for a, b in zip(self, other))

    __hash__ = None  # type: ignore[assignment]
