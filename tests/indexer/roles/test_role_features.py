"""The regex cues fire on the legal phrasing they are meant for."""

from __future__ import annotations

import pytest

from indexer.roles.features import load_feature_set, parse_feature_set


@pytest.mark.parametrize(
    ("sentence", "cue"),
    [
        ("Learned counsel for the appellant submitted that the order is bad.", "learned_counsel"),
        ("Accordingly, the appeal is dismissed.", "disposition"),
        ("The accused was charged under Section 302 of the IPC.", "section"),
        ("See State of U.P. v. Ram Sagar Yadav, (1985) 1 SCC 552.", "citation"),
        ("The question that arises for consideration is whether the notice was valid.", "issue_cue"),
        ("The ratio in that case is distinguishable on facts.", "not_relied_cue"),
        ("The trial court convicted the accused.", "lower_court"),
    ],
)
def test_cue_fires(sentence: str, cue: str):
    features = load_feature_set()
    row = features.compute([sentence])[0]
    assert row[features.names.index(cue)] == 1.0


def test_shape_and_position():
    features = load_feature_set()
    values = features.compute(["IN THE HIGH COURT OF KARNATAKA", "Facts.", "Appeal allowed."])
    assert values.shape == (3, features.size)
    assert values[0, features.names.index("relative_position")] == 0.0
    assert values[2, features.names.index("relative_position")] == 1.0
    assert values[0, features.names.index("upper_ratio")] == 1.0
    assert features.compute([]).shape == (0, features.size)


def test_feature_set_round_trips_through_json():
    features = load_feature_set()
    again = parse_feature_set(features.to_json())
    assert again.names == features.names
    assert [cue.pattern.flags for cue in again.cues] == [cue.pattern.flags for cue in features.cues]
