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


def test_re2_and_re_mark_the_same_sentences_of_the_sample_judgments() -> None:
    """The cues run by RE2 on ASCII text give re's columns exactly (a judgment of each sample corpus)."""
    from pathlib import Path

    from indexer.loaders import load
    from indexer.roles import features as module
    from legal.sentences import split

    features = load_feature_set()
    root = Path(__file__).resolve().parents[3] / "samples"
    files = [str(p) for p in sorted((root / "aila-2019" / "judgments").iterdir())[:6]]
    judgments = [j for j in load(files) if hasattr(j, "text")]
    assert judgments
    texts = [[s.text for s in split(j.text)] for j in judgments]
    assert all("\x00".join(t).isascii() for t in texts)  # so RE2 is what runs below
    assert sum(module._re2_form(cue) is not None for cue in features.cues) >= 10
    assert all((features.compute(t) == features.compute(t, use_re2=False)).all() for t in texts)


@pytest.mark.parametrize("sentence", ["a\x0bb", "a\x1cb", "a\x1fb"])
def test_whitespace_re2_lacks_keeps_the_text_with_re(sentence: str) -> None:
    """re's \\s takes \\v and \\x1c-\\x1f, RE2's does not: such a text must still fire a cue that needs it."""
    features = parse_feature_set({"cues": [{"name": "spaced", "pattern": r"a\sb"}]})
    assert features.compute([sentence])[0, features.names.index("spaced")] == 1.0


def test_re2_is_not_given_what_it_would_read_otherwise() -> None:
    from indexer.roles.features import _re2_form

    odd = parse_feature_set({"cues": [{"name": "upto", "pattern": r"ab{,2}c"}, {"name": "kelvin", "pattern": "\u212a"},
                                      {"name": "lines", "pattern": "x", "flags": "im"},
                                      {"name": "plain", "pattern": r"\bdismissed\b"}]})
    assert [_re2_form(cue) is not None for cue in odd.cues] == [False, False, False, True]
    # the first two still mean what re means on ASCII text
    assert odd.compute(["abbc", "k"])[:, [odd.names.index("upto"), odd.names.index("kelvin")]].tolist() == \
        [[1.0, 0.0], [0.0, 1.0]]
