"""Checking a stored enclosure against a recomputation at precisions chosen by the checker.

A certificate's ``verify()`` must not trust its own ``prec`` field (anyone can edit it): it
recomputes the truth enclosure at the fixed precisions :data:`VERIFY_PRECS` and accepts only
when every stored enclosure CONTAINS a recomputed one (not merely overlaps it). A stored
enclosure narrower than what the checker can compute at its highest precision is rejected.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from exactdp.arithmetic.interval import Enclosure

__all__ = ["VERIFY_PRECS", "stored_contains_truth"]

#: The precisions (bits) at which ``verify()`` recomputes, whatever the stored ``prec`` says.
VERIFY_PRECS: tuple[int, ...] = (128, 256, 512, 1024, 2048, 4096)


def stored_contains_truth(stored: Sequence[object],
                          recompute: Callable[[int], Sequence[Enclosure]]) -> bool:
    """True iff each stored enclosure contains the recomputed rigorous enclosure at some
    precision of :data:`VERIFY_PRECS`; False as soon as one is disjoint from it (it then
    excludes the truth) or when the highest precision still does not fit inside.

    >>> from fractions import Fraction as F
    >>> truth = lambda prec: [Enclosure(F(1, 3) - F(1, 2**prec), F(1, 3) + F(1, 2**prec))]
    >>> stored_contains_truth([Enclosure(F(0), F(1))], truth)
    True
    >>> stored_contains_truth([Enclosure(F(0), F(1, 4))], truth)   # leaves out 1/3
    False
    >>> stored_contains_truth([Enclosure(F(1, 3), F(1, 3))], truth)  # narrower than provable
    False
    """
    mine = [s for s in stored if isinstance(s, Enclosure)]
    if len(mine) != len(stored):
        return False
    for prec in VERIFY_PRECS:
        again = recompute(prec)
        if len(again) != len(stored):
            return False
        pairs = list(zip(mine, again))
        if any(s.hi < a.lo or a.hi < s.lo for s, a in pairs):
            return False
        if all(s.lo <= a.lo and a.hi <= s.hi for s, a in pairs):
            return True
    return False
