"""Benchmark: the kernel of this checkout against the kernel of an earlier revision, same documents.

Run: ``python benchmarks/bench_kernel_revisions.py [--base REV] [--repeats R] [--quick]``

Issue 11 asks that restructuring the kernel cost no speed beyond noise. This script writes one
set of genuine threshold documents with this checkout's writers (exact, prop9,
kronecker-threshold, certified-cover — the Krawczyk fallback, forced as in the tests —,
spd-taylor-cover: the kinds the session-16 split touched), extracts the base
revision with ``git archive`` into a temporary directory, and times ``verify_json`` of every
document in a fresh subprocess per (tree, repeat), the trees interleaved (base, new, base,
new, …) so that drift in machine load hits both alike. Each child reports per-document seconds
and its peak resident memory (``ru_maxrss``). Printed per document: the range (min–max over
the repeats) of each tree, the range of the ratio new/base, and both verdicts (they must agree).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from fractions import Fraction as F
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, resource, sys, time
from exactdp.kernel.verify import verify_json
docs = json.load(open(sys.argv[1]))
out = {"seconds": {}, "verified": {}}
for name, text in docs.items():
    t0 = time.perf_counter()
    v = verify_json(text).verified
    out["seconds"][name] = time.perf_counter() - t0
    out["verified"][name] = v
out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""


def documents(quick: bool) -> dict[str, str]:
    """name -> JSON text of genuine documents written by this checkout."""
    from unittest import mock

    import exactdp.threshold.certified as certified_route
    from exactdp.kernel.jsonio import dumps
    from exactdp.spaces.metrics import cycle, hamming, line, sum_query
    from exactdp.threshold import epsilon_threshold

    docs: dict[str, str] = {}

    def add(name: str, metric, *args, **kw) -> None:  # type: ignore[no-untyped-def]
        doc = epsilon_threshold(metric, *args, **kw).certificate.to_json()
        docs[f"{name} ({doc['kind']})"] = dumps(doc)

    marg = [F(1, 3), F(2, 3)]
    add("line(6)", line(6), method="exact")
    add("cycle(12)", cycle(12))
    add("hamming(2,2), product prior", hamming(2, 2), [a * b for a in marg for b in marg])
    add("sum_query(4,3)", sum_query(4, 3), method="certified")
    with mock.patch.object(certified_route, "spd_cover", lambda *a, **k: None):  # the Krawczyk cover
        add("sum_query(4,3), Krawczyk", sum_query(4, 3), method="certified")
    if not quick:
        add("line(10)", line(10), method="exact")
        add("hamming(2,3), product prior", hamming(2, 3), [a * b * c for a in marg for b in marg for c in marg])
        add("sum_query(8,3)", sum_query(8, 3), method="certified")
        add("line(40)", line(40), method="certified")
        add("sum_query(30,5)", sum_query(30, 5), method="certified")
        with mock.patch.object(certified_route, "spd_cover", lambda *a, **k: None):
            add("sum_query(12,3), Krawczyk", sum_query(12, 3), method="certified")
    return docs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default="HEAD~1", help="revision to compare against (default HEAD~1)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="fewer and smaller documents")
    args = ap.parse_args()
    docs = documents(args.quick)
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        base.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.base], check=True, capture_output=True)
        subprocess.run(["tar", "-x", "-C", str(base)], input=archive.stdout, check=True)
        doc_file = Path(tmp) / "docs.json"
        doc_file.write_text(json.dumps(docs))
        runs: dict[str, list[dict]] = {"base": [], "new": []}
        for _ in range(args.repeats):
            for label, tree in (("base", base), ("new", ROOT)):
                env = {"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin", "OPENBLAS_NUM_THREADS": "1"}
                res = subprocess.run([sys.executable, "-c", CHILD, str(doc_file)], env=env, check=True,
                                     capture_output=True, text=True, cwd=tmp)
                runs[label].append(json.loads(res.stdout))
    print(f"base {args.base} vs this checkout; {args.repeats} interleaved repeats, a fresh process each\n")
    print(f"{'document':50} {'base s':>15} {'new s':>15} {'new/base':>11}  verdicts")
    for name in docs:
        b = [r["seconds"][name] for r in runs["base"]]
        n = [r["seconds"][name] for r in runs["new"]]
        ratios = [x / y for x, y in zip(n, b)]
        verdicts = {r["verified"][name] for r in runs["base"] + runs["new"]}
        print(f"{name:50} {min(b):6.3f}–{max(b):<7.3f} {min(n):6.3f}–{max(n):<7.3f} "
              f"{min(ratios):4.2f}–{max(ratios):<5.2f}  {'/'.join(map(str, sorted(verdicts)))}")
    for label in ("base", "new"):
        peaks = [r["peak_mb"] for r in runs[label]]
        print(f"peak resident memory, {label}: {min(peaks):.0f}–{max(peaks):.0f} MB")


if __name__ == "__main__":
    main()
