"""The readers of the linear-system, spd-point, threshold and privacy documents, by family.

Each family's reader lives beside its checks (so trusting one kind's verdict needs no other
family's code): :mod:`exactdp.kernel.linear_json`, :mod:`exactdp.kernel.threshold_spd_json`,
:mod:`exactdp.kernel.threshold_json` and :mod:`exactdp.kernel.privacy_json`; what they share
(field readers, the parts every document has, ``MAX_DEPTH``) is in
:mod:`exactdp.kernel.read_common`. This module keeps the names importable from one place; no
kernel module imports it.
"""

from exactdp.kernel.linear_json import read_linear
from exactdp.kernel.privacy_json import read_privacy_check, read_privacy_level
from exactdp.kernel.read_common import (
    MAX_DEPTH,
    MAX_PIECES,
    located,
    read_document,
    read_int_poly,
    read_polys,
    read_s_star,
    read_threshold_parts,
)
from exactdp.kernel.threshold_json import read_threshold
from exactdp.kernel.threshold_spd_json import read_spd_point

__all__ = ["MAX_DEPTH", "MAX_PIECES", "located", "read_document", "read_linear", "read_spd_point", "read_threshold",
           "read_threshold_parts", "read_s_star", "read_int_poly", "read_polys", "read_privacy_level",
           "read_privacy_check"]
