"""qif_log's entropy checker reads the prior before the rule "channel null iff Shannon entropy"
(task 15FP; the order of 3e044b0, changed by e506cf0 and restored): an over-limit prior with a
channel is a work limit (InstanceTooLarge, exit 2), and the rule still holds for a good prior.

Ground truth: MAX_LOG_ENTRIES = 195,312 (tests/kernel/test_qif_limits15.py); the messages are
the kernel's reader messages for the prior and its rule message for the channel.
"""

from __future__ import annotations

import pytest

from exactdp.errors import InstanceTooLarge, InvalidArgument
from exactdp.kernel.qif_log import MAX_LOG_ENTRIES
from exactdp.kernel.verify import verify_document
from exactdp.qif import bayes_risk, mutual_information, shannon_entropy

RULE = "question.channel: null for the Shannon entropy, a channel otherwise."


def test_an_over_limit_prior_with_a_channel_on_a_shannon_entropy_is_instance_too_large():
    doc = shannon_entropy(["1/2", "1/2"]).to_document()
    doc["question"]["channel"] = [["1"], ["1"]]                   # the rule is broken too
    doc["question"]["prior"] = ["0"] * (MAX_LOG_ENTRIES + 1)
    with pytest.raises(InstanceTooLarge, match="question.prior: has 195313 items"):
        verify_document(doc)


def test_an_over_limit_prior_without_the_channel_of_a_mutual_information_is_instance_too_large():
    doc = mutual_information([["1/2", "1/2"], ["1/2", "1/2"]], ["1/2", "1/2"]).to_document()
    doc["question"]["channel"] = None
    doc["question"]["prior"] = ["0"] * (MAX_LOG_ENTRIES + 1)
    with pytest.raises(InstanceTooLarge, match="question.prior: has 195313 items"):
        verify_document(doc)


def test_the_channel_rule_still_holds_for_a_good_prior_both_ways():
    doc = shannon_entropy(["1/2", "1/2"]).to_document()
    doc["question"]["channel"] = [["1"], ["1"]]
    with pytest.raises(InvalidArgument) as info:
        verify_document(doc)
    assert str(info.value) == RULE
    mi = mutual_information([["1/2", "1/2"], ["1/2", "1/2"]], ["1/2", "1/2"]).to_document()
    assert verify_document(mi).verified
    mi["question"]["channel"] = None
    with pytest.raises(InvalidArgument) as info:
        verify_document(mi)
    assert str(info.value) == RULE


def test_the_bayes_risk_takes_a_channel_or_none():  # no rule there (_prior_channel without `null`)
    for r in (bayes_risk(prior=["1/3", "2/3"], n=2), bayes_risk([["1/2", "1/2"], ["1", "0"]], ["1/3", "2/3"])):
        assert verify_document(r.to_document()).verified
