"""``python -m exactdp.kernel CERT.json``: re-check a certificate with the kernel alone
(no search code is imported). Exit codes as ``exactdp verify``: 0 verified, 1 rejected,
2 undecided (a question over a work limit, :class:`~exactdp.errors.InstanceTooLarge`),
3 malformed."""

import sys

from exactdp.errors import InstanceTooLarge
from exactdp.kernel.verify import verify_json


def main(argv: list[str]) -> int:
    """Check each file named; the exit code is the worst outcome."""
    if not argv:
        print("usage: python -m exactdp.kernel CERT.json [CERT.json ...]", file=sys.stderr)
        return 3
    worst = 0
    for path in argv:
        try:
            with open(path, "rb") as fh:
                verdict = verify_json(fh.read())
        except InstanceTooLarge as exc:  # well formed but over a work limit: undecided, not malformed
            print(f"{path}: undecided: {exc}", file=sys.stderr)
            worst = max(worst, 2)
            continue
        except Exception as exc:  # noqa: BLE001 - unreadable, malformed or not checkable: never "rejected"
            print(f"{path}: malformed: {type(exc).__name__}: {exc}", file=sys.stderr)
            worst = 3
            continue
        print(f"{path}: {verdict.kind}: {'verified' if verdict.verified else 'REJECTED'}"
              + ("" if verdict.verified else f" ({verdict.reason})"))
        worst = max(worst, 0 if verdict.verified else 1)
    return worst


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
