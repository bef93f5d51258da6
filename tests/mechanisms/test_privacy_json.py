"""Privacy-level results and privacy checks → JSON → ``exactdp verify`` in a fresh process
(exit 0 verified, 1 rejected, 3 malformed), read back, and refused when not portable."""

from __future__ import annotations

import copy
import subprocess
import sys
from fractions import Fraction as F

import numpy as np
import pytest

from exactdp.errors import CertificateInvalid, ExactnessRequired, InvalidMechanism
from exactdp.kernel.jsonio import dumps
from exactdp.mechanisms.constructors import (
    exponential_mechanism,
    from_balls,
    from_rows,
    randomized_response,
    truncated_geometric,
)
from exactdp.mechanisms.files import from_numpy
from exactdp.mechanisms.privacy import is_private, privacy_level
from exactdp.mechanisms.privacy_json import check_document, level_document
from exactdp.mechanisms.privacy_json_read import check_from_document, level_from_document
from exactdp.spaces.metrics import cycle, from_matrix, grid, hamming, line


@pytest.fixture(scope="module")
def cases():
    return [
        (truncated_geometric(5, t="1/3"), line(5)),
        (randomized_response(3, t="1/4"), cycle(3)),
        (exponential_mechanism(line(4), t="1/4"), line(4)),
        (from_rows([[1, 0], [0, 1]]), line(2)),                              # infinite
        (from_rows([["1/2", "1/2"]] * 4), hamming(2, 2)),                  # zero
        (from_rows([["1/2", "1/2"], ["3/4", "1/4"], ["1/4", "3/4"], ["1/2", "1/2"]]),
         grid(2, 2, "euclidean")),                                          # ln3/√2
        (from_rows([[1 - F(1, 10**400), F(1, 10**400)],
                    [1 - F(1, 10**800), F(1, 10**800)]]), line(2)),         # issue 11, point 1
        (from_numpy(np.array([[0.75, 0.25], [0.5, 0.5]])), from_matrix([[0, "1/2"], ["1/2", 0]])),
    ]


def _docs(cases):
    docs = []
    for H, m in cases:
        r = privacy_level(H, m)
        docs.append(level_document(r))
        at_level = r.value if r.value is not None and r.value.is_finite and r.value != 0 else "7"
        for eps in ("1", "log(3)/2", at_level):
            docs.append(check_document(is_private(H, m, eps=eps)))
    return docs


def _run(*args):
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True)


def test_every_document_verifies_in_a_fresh_kernel_process(cases, tmp_path):
    paths = []
    for k, doc in enumerate(_docs(cases)):
        p = tmp_path / f"p{k}.json"
        p.write_text(dumps(doc))
        paths.append(str(p))
    out = _run("exactdp.kernel", *paths)
    assert out.returncode == 0, out.stdout + out.stderr
    assert sum(s.endswith(": verified") for s in out.stdout.splitlines()) == len(paths)


def test_exactdp_verify_exit_codes(cases, tmp_path):
    H, m = cases[5]
    good = level_document(privacy_level(H, m))
    bad = copy.deepcopy(good)
    bad["claim"]["witness"] = [0, 1, 0]        # ratio 3/2 at distance 1: not the level
    worse = copy.deepcopy(good)
    worse["claim"]["value"] = {"eps": "log(3) + 1"}  # not a level an exact mechanism can have
    chk = check_document(is_private(H, m, eps="3/4"))
    flipped = copy.deepcopy(chk)
    flipped["claim"] = {"verdict": "holds", "violation": None}
    for k, (doc, code) in enumerate(((good, 0), (bad, 1), (worse, 3))):  # the CLI: 3 processes
        p = tmp_path / f"c{k}.json"
        p.write_text(dumps(doc))
        out = _run("exactdp", "verify", str(p))
        assert out.returncode == code, (doc["claim"], out.stdout + out.stderr)
    paths = []
    for k, doc in enumerate((chk, flipped, good, bad, worse)):  # the kernel: one process
        p = tmp_path / f"k{k}.json"
        p.write_text(dumps(doc))
        paths.append(str(p))
    out = _run("exactdp.kernel", *paths)
    assert out.returncode == 3
    said = {s.split(":")[0]: s for s in (out.stdout + out.stderr).splitlines()}
    outcome = {p: "malformed" if ": malformed" in said[p] else
               "REJECTED" if "REJECTED" in said[p] else "verified" for p in paths}
    assert [outcome[p] for p in paths] == [
        "verified", "REJECTED", "verified", "REJECTED", "malformed"]


def test_the_kernel_process_loads_no_search_code(cases, tmp_path):
    p = tmp_path / "k.json"
    p.write_text(dumps(check_document(is_private(*cases[0], eps="1"))))
    code = ("import sys; from exactdp.kernel.verify import verify_json; "
            f"assert verify_json(open({str(p)!r}).read()).verified; "
            "print(sorted({m.split('.')[1] for m in sys.modules if m.startswith('exactdp.')}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    loaded = set(eval(out.stdout))  # noqa: S307 - our own printed list
    assert loaded <= {"kernel", "arithmetic", "spaces", "kinds", "errors"}, loaded


def test_read_back(cases):
    for H, m in cases:
        r = privacy_level(H, m)
        assert r.to_document() == level_document(r)  # the result's own method
        back = level_from_document(dumps(r.to_document()))
        assert back.verify() and back.value == r.value
        assert back.witness == (None if r.value == 0 else r.witness)
        c = is_private(H, m, eps="1")
        assert check_from_document(check_document(c)).private == c.private
    doc = level_document(privacy_level(*cases[0]))
    doc["claim"]["value"] = {"t": "1/2"}
    with pytest.raises(CertificateInvalid):
        level_from_document(doc)


def test_not_portable_mechanisms_are_refused():
    with pytest.raises(ExactnessRequired, match="ball"):
        level_document(privacy_level(truncated_geometric(4, eps=1), line(4)))
    from flint import arb, fmpq
    H = from_balls([[arb(fmpq(1, 3)), arb(fmpq(2, 3))], [arb(fmpq(1, 2)), arb(fmpq(1, 2))]])
    with pytest.raises(ExactnessRequired):
        check_document(is_private(H, line(2), eps=1))
    K = from_numpy(np.array([[0.5, 0.25], [0.25, 0.5]]), rows="as-is")
    with pytest.raises(InvalidMechanism, match="as-is"):
        level_document(privacy_level(K, line(2)))
