"""Session 14 (14M2's first mutation sample of ``kernel/remap_qx.py``): two survivors showed
missing tests. A one-point metric has no privacy pairs, so only the entry-sign check stops a
non-stochastic H there (the mutant ``or → and`` on that check verified H = [2, −1]); and no test
used a one-row mechanism (the mutant ``raw[0] → raw[1]`` crashed on it)."""

from __future__ import annotations

import copy

from exactdp.kernel.verify import verify_document
from exactdp.spaces.metrics import line

_FP = "sha256:de846ceafb56d67ae8966fc9c2b89c160b194ee8160ff8155e0341b70e2c5ba0"


def _doc(entries, remap):
    return {"schema": "exactdp-certificate", "version": 1, "kind": "remap",
            "question": {"metric": {"encoding": "builtin", "constructor": "line", "params": {"n": 1},
                                    "n": 1, "fingerprint": _FP},
                         "property": "private", "rhs": None, "level": {"eps": "1"},
                         "mechanism": {"log_x": "-1", "denominators": [[[0, "1"]]],
                                       "entries": entries}},
            "claim": {"verdict": "holds", "remap": remap}, "evidence": {}}


def test_the_fixture_fingerprint_is_line_1():
    from exactdp.kernel.metricio import fingerprint
    assert fingerprint(line(1)) == _FP


def test_one_point_genuine_mechanism_verifies():
    # H = [1] (one row, one column): kills "line 130: raw[0] -> raw[1]" (IndexError on one row)
    assert verify_document(_doc([[[0, [[0, "1"]]]]], [["1"]])).verified is True


def test_one_point_non_stochastic_mechanism_is_rejected():
    # H = [2, -1]: rows sum to 1 but an entry is negative; no privacy pair exists on line(1),
    # so only the sign check rejects it. Kills "line 229: Or -> And".
    doc = _doc([[[0, [[0, "2"]]], [0, [[0, "-1"]]]]], [["1"], ["1"]])
    assert verify_document(copy.deepcopy(doc)).verified is False
