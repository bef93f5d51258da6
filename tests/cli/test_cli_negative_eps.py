"""A negative ε on the ``pufferfish`` and ``sets-*`` commands reaches the specific ε check.

argparse alone reads ``--eps -1/10`` as a missing value ("expected one argument", exit 2);
the commands now say what is wrong with the value (exit 3, bad input), like every other
level-taking command.
"""

from __future__ import annotations

import pytest

from exactdp.cli.app import main

CASES = [
    ["pufferfish", "scale", "--p", "1/2", "--q", "1/3", "--eps", "-1/10"],
    ["pufferfish", "certify", "--p", "1/2", "--q", "1/3", "--theta", "1", "--eps", "-1"],
    ["pufferfish", "class-pair", "--a", "3:1/2", "--b", "3:1/3", "--eps", "-1e-3"],
    ["sets-capacity", "--X", "0,0", "--box", "0,0:1,1", "--eps", "-1"],
    ["sets-check", "--X", "0,0", "--Y", "1,1", "--box", "0,0:1,1", "--eps", "-1/2"],
]


@pytest.mark.parametrize("argv", CASES, ids=lambda a: " ".join(a[:2]))
def test_negative_eps_is_bad_input_naming_the_value(argv: list[str],
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 3, err
    assert "expected one argument" not in err
    assert argv[-1] in err and "> 0" in err
