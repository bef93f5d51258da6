"""The core CLI: human and JSON output, exact rationals as strings, clear errors."""

import json

from exactdp.cli.app import main


def test_tight_constraints_json(capsys):
    assert main(["tight-constraints", "line", "--n", "3", "--t", "1/3", "--show-z", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["exists"] is True and out["z"] == ["3/4", "1/2", "3/4"]
    assert out["certificate_verified"] is True and out["t"] == "1/3" and out["verdict"] == "holds"


def test_regular_human(capsys):
    # exit code 1: the prior is (certified) not regular
    assert main(["regular", "line", "--n", "3", "--t", "1/2", "--prior", "1,0,0"]) == 1
    assert "NOT regular" in capsys.readouterr().out


def test_product_prior(capsys):
    args = ["regular", "hamming", "--values", "4", "--individuals", "2", "--t", "1/2",
            "--prior", "product:3/10,27/100,23/100,1/5", "--json"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["regular"] is True and out["method"].startswith("kronecker")


def test_unknown_metric_is_a_clear_error(capsys):
    assert main(["tight-constraints", "moebius", "--t", "1/2"]) == 3
    err = capsys.readouterr().err
    assert "unknown metric 'moebius'" in err and "sum-query" in err


def test_missing_parameter_and_bad_level(capsys):
    assert main(["tight-constraints", "sum-query", "--u", "3", "--t", "1/2"]) == 3
    assert "needs --v" in capsys.readouterr().err
    assert main(["tight-constraints", "line", "--n", "3", "--eps", "-1"]) == 3
    assert "ε must be > 0" in capsys.readouterr().err
    assert main(["regular", "line", "--n", "3", "--t", "1/2", "--prior", "1/2,1/2"]) == 3
    assert "3 points" in capsys.readouterr().err


def test_example_runs(capsys):
    assert main(["example"]) == 0
    out = capsys.readouterr().out
    assert "sum_query(150, 5)" in out and "Example 3" in out
