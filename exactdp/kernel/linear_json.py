"""The reader of the linear-system documents: moved to :mod:`exactdp.kernel.readers` (these
names stay importable from here)."""

from exactdp.kernel.readers import MAX_DEPTH, read_document, read_int_poly, read_linear, read_polys

__all__ = ["read_linear", "MAX_DEPTH", "read_document", "read_int_poly", "read_polys"]
