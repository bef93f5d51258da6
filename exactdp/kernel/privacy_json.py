"""The readers of the privacy documents: moved to :mod:`exactdp.kernel.readers` (these names
stay importable from here)."""

from exactdp.kernel.readers import read_privacy_check, read_privacy_level

__all__ = ["read_privacy_level", "read_privacy_check"]
