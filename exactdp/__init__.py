"""exactdp: exact and certified verification of privacy mechanisms."""

from exactdp.errors import ExactDPError
from exactdp.levels import PrivacyLevel, parse_level

__all__ = ["ExactDPError", "PrivacyLevel", "parse_level"]
__version__ = "0.1.0"
