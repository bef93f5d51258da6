"""Issue 12, session 6: CLI nits — negative slack values, long slack prints, CSV cells that
underflow to 0 as floats, and row-sum defects of any size."""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction

import pytest

from exactdp.errors import InvalidMechanism
from exactdp.mechanisms import from_csv, is_private, truncated_geometric
from exactdp.mechanisms.files import RowSumReport
from exactdp.metrics import line

RUN = [sys.executable, "-m", "exactdp"]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*RUN, *args], capture_output=True, text=True)


@pytest.mark.parametrize("slack", ["-1/10", "-1e-12", "-0.5"])
def test_negative_slack_reaches_its_own_check(slack, tmp_path):
    out = _run("privacy-level", "line", "--n", "2", "--mechanism", "geometric", "--eps", "1",
               "--at-eps", "1", "--slack", slack)
    assert out.returncode == 3, out.stderr
    assert f"slack='{slack}'" in out.stderr and "margin ≥ 0" in out.stderr
    assert "expected one argument" not in out.stderr
    f = tmp_path / "m.csv"
    f.write_text("0.5,0.5\n0.25,0.75\n")
    out = _run("certify", "--mechanism", str(f), "--metric", "line", "--n", "2", "--eps", "1",
               "--slack", slack)
    assert out.returncode == 3 and "margin ≥ 0" in out.stderr, out.stderr


def test_long_slack_prints_short():
    big = "1/3" + "0" * 80 + "1"
    out = _run("privacy-level", "line", "--n", "2", "--mechanism", "geometric", "--eps", "1",
               "--at-eps", "1", "--slack", big)
    assert out.returncode == 0, out.stderr
    assert "slack ≈ 3.33e-82 (exact: .slack)" in out.stdout and "0" * 80 not in out.stdout
    c = is_private(truncated_geometric(2, eps=1), line(2), eps=1, slack=Fraction(1, 8))
    assert c.at_text() == "ε = 1 + slack 1/8" and "slack 1/8" in str(c)


def test_csv_cell_below_the_float_range_is_never_read_as_zero(tmp_path):
    f = tmp_path / "tiny.csv"
    f.write_text("0.5,0.5,1e-400\n0.25,0.75,0\n")
    with pytest.raises(InvalidMechanism, match=r"row 0, column 2: 1e-400 underflows to 0"):
        from_csv(f, rows="as-is")
    exact = from_csv(f, rows="as-is", decimals="exact")
    assert exact.mechanism.entry(0, 2) == Fraction(1, 10**400)
    assert exact.rows.max_defect == Fraction(1, 10**400)
    zero = tmp_path / "zero.csv"
    zero.write_text("0.5,0.5,0e-400\n0.25,0.75,0.0\n")
    assert from_csv(zero).mechanism.entry(0, 2) == 0  # a written zero stays zero
    out = _run("certify", "--mechanism", str(f), "--metric", "line", "--n", "2",
               "--rows", "as-is")
    assert out.returncode == 3 and "row 0, column 2" in out.stderr and "--decimals exact" in \
        out.stderr
    out = _run("certify", "--mechanism", str(f), "--metric", "line", "--n", "2",
               "--rows", "as-is", "--decimals", "exact")
    assert out.returncode == 0, out.stderr
    assert "largest defect 1.00e-400" in out.stdout  # was printed as 0


def test_row_sum_defect_text():
    assert RowSumReport("as-is", (Fraction(-1, 10**500), Fraction(1, 3))).max_defect_text() \
        == "1/3"
    assert RowSumReport("as-is", (Fraction(-1, 10**500),)).max_defect_text().startswith(
        "-1.00e-500")
