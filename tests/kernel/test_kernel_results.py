"""Results → JSON → re-checked in a fresh process → read back: tight constraints, regularity
(every engine route), and threshold results through their certificates."""

from __future__ import annotations

import copy
import subprocess
import sys

import pytest

from exactdp import epsilon_threshold, is_regular, tight_constraints
from exactdp.errors import CertificateInvalid, InvalidArgument
from exactdp.kernel.jsonio import dumps
from exactdp.regularity import RegularityResult
from exactdp.spaces.metrics import count_queries, grid, hamming, line, sum_query
from exactdp.tight import TightConstraintsResult


@pytest.fixture(scope="module")
def results():
    return [
        tight_constraints(line(4), t="1/2"),                       # exact, holds
        tight_constraints(sum_query(6, 3), eps="1/2"),             # certified, fails
        tight_constraints(count_queries(4), eps="6/5"),            # certified
        tight_constraints(grid(3, 3, "manhattan"), eps="1/2"),     # Kronecker
        is_regular(line(4), [1, 0, 0, 0], t="1/3"),                # exact, fails
        is_regular(line(5), "uniform", eps="4/5"),                 # certified, holds
        is_regular(hamming(3, 2), "uniform", t="1/2"),             # Kronecker
    ]


def test_results_round_trip(results):
    for r in results:
        doc = r.to_json()
        cls = TightConstraintsResult if isinstance(r, TightConstraintsResult) else RegularityResult
        again = cls.from_json(dumps(doc))
        assert again.verdict == r.verdict and again.verify() and again.to_json() == doc
        bad = copy.deepcopy(doc)
        bad["claim"]["verdict"] = "fails" if doc["claim"]["verdict"] == "holds" else "holds"
        with pytest.raises(CertificateInvalid):
            cls.from_json(bad)
    with pytest.raises(InvalidArgument):  # a regularity document is not a tight-constraints one
        TightConstraintsResult.from_json(results[4].to_json())


def test_results_and_thresholds_verify_in_a_fresh_kernel_process(results, tmp_path):
    docs = [r.to_json() for r in results]
    docs += [epsilon_threshold(m).certificate.to_json()
             for m in (sum_query(2, 2), line(3), grid(2, 2, "manhattan"))]
    paths = []
    for k, doc in enumerate(docs):
        p = tmp_path / f"r{k}.json"
        p.write_text(dumps(doc))
        paths.append(str(p))
    out = subprocess.run([sys.executable, "-m", "exactdp.kernel", *paths], capture_output=True,
                         text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    assert sum(line.endswith(": verified") for line in out.stdout.splitlines()) == len(paths)
