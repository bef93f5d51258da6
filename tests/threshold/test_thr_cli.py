"""The threshold CLI module, through its own parser (the lead wires it into exactdp.cli.app)."""

import argparse
import json

from exactdp.cli import threshold as cli_threshold
from exactdp.cli.exitcodes import exit_code_for_result


def _run(argv, capsys):
    parser = argparse.ArgumentParser()
    cli_threshold.register(parser.add_subparsers())
    args = parser.parse_args(argv)
    rc = exit_code_for_result(args.func(args))
    return rc, capsys.readouterr()


def test_threshold_json_is_exact(capsys):
    rc, out = _run(["threshold", "sum-query", "--u", "2", "--v", "2", "--json", "--quiet"], capsys)
    data = json.loads(out.out)
    assert rc == 0 and data["certificate_verified"] is True
    assert data["exact_s"]["minimal_polynomial"] == ["-1", "1", "1"]
    from fractions import Fraction
    width = Fraction(data["eps_upper"]) - Fraction(data["eps_lower"])
    assert 0 < width <= Fraction(1, 10**9) and data["method"] == "exact"


def test_threshold_human_and_progress(capsys):
    rc, out = _run(["threshold", "hamming", "--values", "4", "--individuals", "3",
                    "--prior", "product:3/10,27/100,23/100,1/5"], capsys)
    assert rc == 0 and "kronecker" in out.out and "verify() = True" in out.out
    assert "symbolic" in out.err  # progress on stderr, never on stdout
    assert "symbolic" not in out.out and "[" not in out.out.splitlines()[0][:1]


def test_epsilons_command(capsys):
    rc, out = _run(["epsilons", "sum-query", "--u", "3", "--v", "5", "--quiet"], capsys)
    assert rc == 0 and "monotone: True" in out.out
