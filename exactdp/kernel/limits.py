"""Limits on the size of the documents the readers accept (the kernel's work bounds on input).

Here, with no import, so a checker that needs only a limit pulls in no reader.
"""

__all__ = ["MAX_DEPTH", "MAX_PIECES"]

#: Deepest nesting of factor documents accepted (a Kronecker factor of a factor …, the fail
#: side of a cover).
MAX_DEPTH = 8
#: Most ranges of a certified cover read.
MAX_PIECES = 100_000
