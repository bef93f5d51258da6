"""Work and size limits of the Pufferfish kernel are undecided (InstanceTooLarge, exit 2), as
the newer kernel limits and the QIF ones are (session 15, task 15P); format errors stay
InvalidArgument (exit 3).

Ground truth: the documented limits (MAX_TERMS = 2000 terms of a closed-form identity,
MAX_POINTS = 1000 points per law / per population sum / groups of a class, MAX_USERS = 10,000
users, MAX_CONVOLUTION = 10⁶ products); each document below is built by hand to exceed exactly
one of them, with its size worked out in the comment.
"""

from __future__ import annotations

import copy
import subprocess
import sys
from fractions import Fraction as F

import pytest

from exactdp.engine.documents import write_dist, write_population
from exactdp.errors import InstanceTooLarge, InvalidArgument
from exactdp.kernel.jsonio import dumps, envelope
from exactdp.kernel.pufferfish import MAX_CONVOLUTION, MAX_POINTS, MAX_TERMS, MAX_USERS, query_laws
from exactdp.kernel.verify import verify_document
from exactdp.kinds import Verdict
from exactdp.pufferfish import DistributionVsAbsent, bernoulli, exact_scale
from exactdp.pufferfish.documents import to_document
from exactdp.spaces.levels import parse_level

# (1 + √2 + √3 + √5 + √7 + √11)^64: 6 terms to the 64th power, C(69, 64) ≫ MAX_TERMS terms
HUGE_FORM = "(1 + sqrt(2) + sqrt(3) + sqrt(5) + sqrt(7) + sqrt(11))**(-64)"


def _law(n: int, start: int = 0) -> dict[F, F]:
    return {F(start + i): F(1, n) for i in range(n)}


def _population(users: list[tuple[dict[F, F], F]]) -> dict:
    """A genuine one-user population document whose users are then replaced (no writer would
    write the replaced list: it refuses the same limits)."""
    one = {F(0): F(1)}
    doc = write_population([(one, F(1))], one, {F(1): F(1)}, F(1), parse_level(eps=1), Verdict.HOLDS, True)
    doc["question"]["users"] = [{"dist": write_dist(d), "presence": str(z)} for d, z in users]
    return doc


def _scale_doc() -> dict:
    return to_document(exact_scale(DistributionVsAbsent(bernoulli("1/2")), 1))


def test_closed_form_identity_over_max_terms_is_instance_too_large():
    assert MAX_TERMS == 2000
    doc = _scale_doc()
    assert verify_document(doc).verified
    doc["claim"]["closed_form"] = HUGE_FORM
    with pytest.raises(InstanceTooLarge, match="MAX_TERMS"):
        verify_document(doc)
    doc["claim"]["closed_form"] = "3/4"            # a small wrong closed form: rejected, not refused
    assert not verify_document(doc).verified


def test_population_sum_over_max_points_is_instance_too_large():
    """A user uniform on 0…499, then one on {0, 500} (the sum: 0…999, 1000 points, at the limit)
    or on {0, 500, 1000} (0…1499, 1500 points): 500 + 500·3 products, far below MAX_CONVOLUTION."""
    at = [(_law(500), F(1)), ({F(0): F(1, 2), F(500): F(1, 2)}, F(1))]
    P, _ = query_laws(_population(at)["question"])
    assert len(P) == MAX_POINTS
    over = [(_law(500), F(1)), ({F(0): F(1, 2), F(500): F(1, 4), F(1000): F(1, 4)}, F(1))]
    with pytest.raises(InstanceTooLarge, match=f"the sum has over MAX_POINTS = {MAX_POINTS}"):
        verify_document(_population(over))


def test_population_convolution_over_max_convolution_is_instance_too_large():
    """Two users on 1000 points: 1·1000 + 1000·1000 = 1,001,000 products > 10⁶."""
    big = _law(1000)
    with pytest.raises(InstanceTooLarge, match=f"MAX_CONVOLUTION = {MAX_CONVOLUTION}"):
        verify_document(_population([(big, F(1, 2))] * 2))
    with pytest.raises(InstanceTooLarge, match=f"MAX_CONVOLUTION = {MAX_CONVOLUTION}"):  # the writer too
        write_population([(big, F(1, 2))] * 2, big, big, F(1), parse_level(eps=1), Verdict.HOLDS, False)


def test_law_and_user_counts_over_their_limits_are_instance_too_large():
    doc = _scale_doc()
    doc["question"]["P"] = write_dist(_law(MAX_POINTS))     # exactly at the limit: read
    verify_document(doc)
    doc["question"]["P"] = {"support": [str(i) for i in range(MAX_POINTS + 1)],
                            "probs": [f"1/{MAX_POINTS + 1}"] * (MAX_POINTS + 1)}
    with pytest.raises(InstanceTooLarge, match=f"question.P: has {MAX_POINTS + 1} items; the kernel checks at most"):
        verify_document(doc)
    with pytest.raises(InstanceTooLarge, match="MAX_POINTS"):  # the writer refuses the same law
        write_dist(_law(MAX_POINTS + 1))
    users = _population([])
    users["question"]["users"] = [{"dist": write_dist({F(0): F(1)}), "presence": "1"}] * (MAX_USERS + 1)
    with pytest.raises(InstanceTooLarge, match=f"question.users: has {MAX_USERS + 1} items"):
        verify_document(users)
    malformed = _scale_doc()
    malformed["question"]["P"]["probs"] = ["1/3", "1/3"]  # a format error stays InvalidArgument
    with pytest.raises(InvalidArgument):
        verify_document(malformed)


def test_class_law_groups_over_max_points_is_instance_too_large():
    groups = [{"p": str(F(i + 1, 2 * (MAX_POINTS + 2))), "count": 1} for i in range(MAX_POINTS + 1)]
    doc = envelope("pufferfish-class-law", {"groups": groups}, {"numerator": ["1"], "denominator": "1"}, {})
    with pytest.raises(InstanceTooLarge, match="question.groups: has 1001 items; the kernel checks at most 1000"):
        verify_document(doc)
    small = copy.deepcopy(doc)
    small["question"]["groups"] = groups[:1]           # one group: read, and the wrong claim rejected
    assert not verify_document(small).verified


def test_cli_exits_2_on_a_pufferfish_work_limit(tmp_path):
    doc = _scale_doc()
    doc["claim"]["closed_form"] = HUGE_FORM
    path = tmp_path / "terms.json"
    path.write_text(dumps(doc))
    run = subprocess.run([sys.executable, "-m", "exactdp", "verify", str(path)],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 2, (run.stdout, run.stderr)
    assert "MAX_TERMS" in run.stdout + run.stderr
