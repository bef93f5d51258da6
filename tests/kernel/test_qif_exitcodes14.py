"""Exit codes of ``python -m exactdp verify`` on QIF documents (session 14, task 14D): work
over a limit is undecided (InstanceTooLarge, exit 2) as for the Pufferfish kinds; malformed
stays 3, tampered 1, genuine 0. Each document is checked in a fresh process.

Ground truth: the limits are the documented ones (MAX_PHI_BITS = 2^16 bits of φ = s^k,
MAX_SUBSET_SECRETS = 18, MAX_QIF_WORK = 4·10⁶, MAX_LOG_WORK = 5·10⁷ counted operations); a
document over one is built by hand with a known size, a malformed one breaks the schema.
"""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction as F

import pytest

from exactdp.errors import InstanceTooLarge
from exactdp.kernel.jsonio import dumps
from exactdp.kernel.metricio import fingerprint, write_metric
from exactdp.kernel.verify import verify_document
from exactdp.qif import mutual_information, optimal_mechanism
from exactdp.spaces.metrics import from_matrix


def _optimal_far(d: int) -> dict:
    """A 2-secret optimal-mechanism document at distance d, t = 1/2: φ = 2^-d has d + 1 bits."""
    metric = from_matrix([[0, d], [d, 0]])
    return {"schema": "exactdp-certificate", "version": 1, "kind": "qif-optimal-mechanism",
            "question": {"metric": write_metric(metric, None, fingerprint(metric)), "prior": ["1/2", "1/2"],
                         "t": "1/2", "gain": {"rows": [["1", "0"], ["0", "1"]], "loss": False, "name": "identity"}},
            "claim": {"value": "1", "mechanism": [["1", "0"], ["0", "1"]]},
            "evidence": {"method": "exact-simplex", "u": ["1/2", "1/2"], "lambda": []}}


def _subsets(n: int) -> dict:
    """The additive Bayes capacity (0) of an n × 1 channel by the exact sub-uniform search."""
    return {"schema": "exactdp-certificate", "version": 1, "kind": "qif-capacity",
            "question": {"measure": "additive-bayes", "channel": [["1"]] * n, "gain": None},
            "claim": {"value": "0", "bounds": {"lo": "0", "hi": "0"}, "witness": ["1"] + ["0"] * (n - 1)},
            "evidence": {"method": "subsets", "duals": None}}


def _log_over() -> dict:
    """I(X;Y) of a 40 × 2 channel whose entries have ~3000-digit denominators, at 4000 bits."""
    doc = mutual_information([["1/2", "1/2"]] * 40, [str(F(1, 40))] * 40).to_document()
    doc["question"]["channel"] = [[str(1 - F(1, 10**3000 + 2 * x + 1)), str(F(1, 10**3000 + 2 * x + 1))]
                                  for x in range(40)]
    doc["evidence"]["precision"] = 4000
    return doc


def _codes(tmp_path, docs: dict[str, dict]) -> dict[str, int]:
    """Exit code of ``python -m exactdp verify FILE`` for each document, each in a fresh process."""
    out = {}
    for name, doc in docs.items():
        path = tmp_path / f"{name}.json"
        path.write_text(dumps(doc))
        run = subprocess.run([sys.executable, "-m", "exactdp", "verify", str(path)],
                             capture_output=True, text=True, timeout=300)
        out[name] = run.returncode
        assert "Traceback" not in run.stderr, run.stderr
    return out


def test_qif_work_over_a_limit_is_instance_too_large_in_process():
    for doc in (_optimal_far(1 << 16), _subsets(19), _log_over()):
        with pytest.raises(InstanceTooLarge):
            verify_document(doc)
    assert verify_document(_genuine()).verified and verify_document(_subsets(3)).verified


def _genuine() -> dict:
    return optimal_mechanism(from_matrix([[0, 3], [3, 0]]), t="1/2").to_document()


def test_qif_exit_codes_fresh_process(tmp_path):
    tampered = _genuine()
    tampered["claim"]["value"] = str(F(tampered["claim"]["value"]) + F(1, 3))  # a value is unique
    malformed = _subsets(3)
    malformed["question"]["channel"] = [["1/2"]] * 3  # rows not summing to 1: not a channel
    codes = _codes(tmp_path, {"genuine": _genuine(), "tampered": tampered, "malformed": malformed,
                              "phi-bits": _optimal_far(1 << 16), "secrets": _subsets(19),
                              "log-work": _log_over()})
    assert codes == {"genuine": 0, "tampered": 1, "malformed": 3, "phi-bits": 2, "secrets": 2, "log-work": 2}
