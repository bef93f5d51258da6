"""Metric files (edge list, distance matrix CSV/NPY, points with a norm) equal the built-in
metrics they describe; bad files give one-line errors naming the file, row and column."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from exactdp.errors import InvalidArgument, InvalidMetric
from exactdp.spaces.distances import Distance
from exactdp.spaces.metrics import cycle, from_graph, grid, line, sum_query
from exactdp.spaces.metrics.claims import same_distances
from exactdp.spaces.metrics.files import load_metric


def test_edge_list_equals_line_and_cycle(tmp_path):
    p = tmp_path / "line.edges"
    p.write_text("# a line\n" + "".join(f"{i} {i + 1}\n" for i in range(6)))
    m = load_metric(p)
    assert same_distances(m, line(7)) and m.points == tuple(range(7))
    c = tmp_path / "cycle.edges"
    c.write_text("".join(f"{i},{(i + 1) % 5}\n" for i in range(5)))
    assert same_distances(load_metric(c), cycle(5))
    assert not same_distances(load_metric(c), line(5))


def test_weighted_edge_list_with_labels(tmp_path):
    p = tmp_path / "w.edges"
    p.write_text("a,b,1/2\nb,c,0.25\na,c,1\n")
    m = load_metric(p)
    ref = from_graph([("a", "b", "1/2"), ("b", "c", "1/4"), ("a", "c", 1)])
    assert same_distances(m, ref) and m.distance(0, 2) == Distance.rational(3 / 4)


def test_distance_matrix_csv_and_npy_equal_builtin(tmp_path):
    ref = sum_query(4, 2)
    D = [[str(ref.distance(i, j)) for j in range(ref.n)] for i in range(ref.n)]
    p = tmp_path / "d.csv"
    p.write_text("\n".join(",".join(r) for r in D))
    assert same_distances(load_metric(p), ref)
    q = tmp_path / "d.npy"
    np.save(q, np.abs(np.subtract.outer(np.arange(6), np.arange(6))))
    assert same_distances(load_metric(q), line(6))


def test_points_euclidean_exact_sqrt_and_manhattan(tmp_path):
    p = tmp_path / "g.points"
    p.write_text("".join(f"{x} {y}\n" for y in range(3) for x in range(4)))
    m = load_metric(p)
    assert same_distances(m, grid(4, 3, "euclidean"))
    assert m.distance(0, 11) == Distance.sqrt_of(13)  # (0,0)–(3,2): √13 exactly
    assert same_distances(load_metric(p, norm="manhattan"), grid(4, 3, "manhattan"))
    s = tmp_path / "s.points"
    s.write_text("0,0\n1/2,1/2\n")
    assert load_metric(s).distance(0, 1) == Distance.sqrt_of(Fraction(1, 2))


@pytest.mark.parametrize(
    ("name", "text", "match"),
    [
        ("t.csv", "0,1,3\n1,0,1\n3,1,0\n", r"t.csv: triangle inequality fails: d\[0\]\[2\] = 3"),
        ("r.csv", "0,1\n1,0,2\n", r"r.csv: row 1 has 3 columns"),
        ("a.csv", "0,1\n2,0\n", r"a.csv: not symmetric"),
        ("n.csv", "0,x\nx,0\n", r"n.csv: d\[0\]\[1\] = 'x'"),
        ("e.edges", "0,1,2,3\n", r"e.edges: row 0 has 4 fields"),
        ("w.edges", "0,1,abc\n", r"w.edges: row 0, column 2: 'abc' is not an exact number"),
        ("p.points", "0 0\n1 1 1\n", r"p.points: row 1 has 3 coordinates"),
        ("u.txt", "0\n", r"unknown metric file type '.txt'"),
    ],
)
def test_bad_metric_files(tmp_path, name, text, match):
    p = tmp_path / name
    p.write_text(text)
    with pytest.raises((InvalidMetric, InvalidArgument), match=match):
        load_metric(p)
