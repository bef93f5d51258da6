"""Fig. 2 / Fig. 3 corner priors against hand-derived closed forms."""

from __future__ import annotations

import math

from exactdp.reproduce.regions import fig2, fig3


def test_fig2_corners_by_hand() -> None:
    for r in fig2():
        t = math.exp(-float(r.eps))
        c = r.corner_floats()
        if r.label.startswith("line"):
            # c_0 = (1, t, t²)/(1 + t + t²), c_1 = (t, 1, t)/(1 + 2t)
            expect0 = [1 / (1 + t + t * t), t / (1 + t + t * t), t * t / (1 + t + t * t)]
            expect1 = [t / (1 + 2 * t), 1 / (1 + 2 * t), t / (1 + 2 * t)]
        else:
            expect0 = [1 / (1 + 2 * t), t / (1 + 2 * t), t / (1 + 2 * t)]
            expect1 = [t / (1 + 2 * t), 1 / (1 + 2 * t), t / (1 + 2 * t)]
        assert all(abs(a - b) < 1e-12 for a, b in zip(c[0], expect0))
        assert all(abs(a - b) < 1e-12 for a, b in zip(c[1], expect1))
        for corner in r.corners:
            assert sum(iv.lo for iv in corner) <= 1 <= sum(iv.hi for iv in corner)
        assert all(cert.certificate.verify() for cert in r.certificates)


def test_fig3_matches_the_paper_labels() -> None:
    # the paper labels the corners (.5, .17, .17) for D = 1 and (.7, .1, .1) for D = 2
    d1, d2 = fig3()
    e1, e2 = math.exp(-1), math.exp(-2)
    assert abs(d1.corner_floats()[0][0] - 1 / (1 + 3 * e1)) < 1e-12  # 0.4754…, shown as .5
    assert abs(d1.corner_floats()[0][1] - e1 / (1 + 3 * e1)) < 1e-12  # 0.1749…
    assert abs(d2.corner_floats()[0][0] - 1 / (1 + 3 * e2)) < 1e-12  # 0.7112…
    assert round(d2.corner_floats()[0][1], 1) == 0.1
    assert d1.uniform_regular and d2.uniform_regular
    assert not d1.vertex_regular and not d2.vertex_regular
