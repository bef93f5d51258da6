"""The reader of the threshold documents: moved to :mod:`exactdp.kernel.readers` (these
names stay importable from here)."""

from exactdp.kernel.readers import MAX_DEPTH, MAX_PIECES, read_s_star, read_threshold, read_threshold_parts

__all__ = ["read_threshold", "MAX_DEPTH", "MAX_PIECES", "read_s_star", "read_threshold_parts"]
