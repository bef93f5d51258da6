"""The reader of the ``spd-point`` documents: moved to :mod:`exactdp.kernel.readers` (this
name stays importable from here)."""

from exactdp.kernel.readers import read_spd_point

__all__ = ["read_spd_point"]
