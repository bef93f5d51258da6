"""Regenerate exactdp/data/sum_query_150_5_threshold.json: the paper's headline threshold, exactly.

ε* of tight constraints on sum_query(150, 5) (n = 751) is −ln t*, t* the root of an
explicit irreducible polynomial of degree 373 in a rational interval (the structured
exact route, :mod:`exactdp.threshold.structured`; its certificate is re-verified by the
kernel before anything is written). A smaller instance, sum_query(30, 5) (n = 151), is
stored too: the CI test recomputes that one (≈ 1 s); the n = 751 entry is recomputed here
(≈ 10–25 s on a shared 2-core machine) and checked for consistency in CI.

Usage::

    python scripts/structured_minpoly.py            # rewrite the data file
    python scripts/structured_minpoly.py --check    # recompute and compare, write nothing
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

from exactdp.algebra.algebraic import log_enclosure
from exactdp.spaces.metrics import sum_query
from exactdp.threshold.structured import structured_route

OUT = Path(__file__).resolve().parents[1] / "exactdp" / "data" / "sum_query_150_5_threshold.json"
INSTANCES = ((150, 5), (30, 5))
TOL = Fraction(1, 10**9)
DIGITS = 40


def entry(u: int, v: int) -> dict[str, Any]:
    """The exact threshold of sum_query(u, v), certificate verified, as a JSON object."""
    m = sum_query(u, v)
    t0 = time.perf_counter()
    r = structured_route(m, TOL)
    seconds = time.perf_counter() - t0
    if r is None or r.exact is None or not r.verify():
        raise SystemExit(f"{m.name}: the structured route did not certify a threshold")
    a = r.exact
    fine = a.refine(Fraction(1, 2 ** (4 * DIGITS + 16)))
    lo, hi = log_enclosure(*fine.isolating_interval, Fraction(-(r.q or 1)), prec=4 * DIGITS + 64)
    digits = f"{float(lo):.15f}"
    scale = 10**DIGITS
    if (lo * scale).__floor__() == (hi * scale).__floor__():
        whole = (lo * scale).__floor__()
        digits = f"{whole // scale}.{str(whole % scale).zfill(DIGITS)}"
    return {
        "metric": m.name, "n": m.n, "q": r.q, "question": r.question,
        "variable": "s = e^(-eps/q)",
        "minimal_polynomial_descending": [str(c) for c in reversed(a.minimal_polynomial)],
        "degree": a.degree,
        "coefficient_bits": max(abs(c) for c in a.minimal_polynomial).bit_length(),
        "isolating_interval": [str(x) for x in a.isolating_interval],
        "eps_lower": str(r.eps_lower), "eps_upper": str(r.eps_upper),
        "eps_star_digits": digits,
        "method": r.method,
        "seconds_on_generation": round(seconds, 2),
    }


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    keys = ("minimal_polynomial_descending", "isolating_interval", "eps_lower", "eps_upper",
            "eps_star_digits")
    return all(a[k] == b[k] for k in keys)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="recompute and compare only")
    args = ap.parse_args(argv)
    fresh = {f"sum_query({u}, {v})": entry(u, v) for u, v in INSTANCES}
    if args.check:
        old = json.loads(OUT.read_text())["instances"]
        bad = [k for k in fresh if k not in old or not _same(old[k], fresh[k])]
        print("matches" if not bad else f"differs: {bad}")
        return 1 if bad else 0
    doc = {"about": "Exact thresholds of tight constraints (structured exact route, issue 18); "
                    "regenerate with scripts/structured_minpoly.py",
           "instances": fresh}
    OUT.write_text(json.dumps(doc, indent=1) + "\n")
    for k, e in fresh.items():
        print(f"{k}: degree {e['degree']}, {e['coefficient_bits']}-bit coefficients, "
              f"eps* = {e['eps_star_digits']} ({e['seconds_on_generation']} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
