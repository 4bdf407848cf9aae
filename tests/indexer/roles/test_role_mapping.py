"""The role table is total and consistent, and matches the labels actually found in the data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lab.roles.data import load_law_ai, load_opennyai
from legal.roles import RoleMappingError, load_role_set, parse_role_set, role_label

OPENNYAI_LABELS = {
    "PREAMBLE", "FAC", "ISSUE", "ARG_PETITIONER", "ARG_RESPONDENT", "STA", "PRE_RELIED",
    "PRE_NOT_RELIED", "RATIO", "ANALYSIS", "RLC", "RPC", "NONE",
}  # fmt: skip
LAW_AI_LABELS = {
    "Facts", "Argument", "Statute", "Precedent", "Ratio of the decision", "Ruling by Lower Court",
    "Ruling by Present Court",
}  # fmt: skip


def test_every_source_label_maps():
    roles = load_role_set()
    assert set(roles.source_labels("opennyai")) == OPENNYAI_LABELS
    assert set(roles.source_labels("law-ai")) == LAW_AI_LABELS
    for source in ("opennyai", "law-ai"):
        for label in roles.source_labels(source):
            assert roles.to_canonical(source, label) in roles.names
            assert roles.to_canonical(source, label) in roles.covers(source, label)


def test_opennyai_is_one_to_one_and_round_trips():
    roles = load_role_set()
    canonical = [roles.to_canonical("opennyai", label) for label in roles.source_labels("opennyai")]
    assert sorted(canonical) == sorted(roles.names)
    for label in roles.source_labels("opennyai"):
        assert roles.to_source("opennyai", roles.to_canonical("opennyai", label)) == label


def test_law_ai_gaps_are_the_documented_ones():
    roles = load_role_set()
    assert roles.covers("law-ai", "Argument") == ("argument_petitioner", "argument_respondent")
    assert roles.covers("law-ai", "Precedent") == ("precedent_relied", "precedent_not_relied")
    assert set(roles.covers("law-ai", "Ratio of the decision")) == {"ratio", "analysis"}
    assert roles.to_source("law-ai", "preamble") is None
    assert roles.to_source("law-ai", "none") is None


def test_coarse_groups_cover_every_role_and_every_label_stays_in_one_group():
    roles = load_role_set()
    assert {role.coarse for role in roles.roles} == set(roles.coarse_groups)
    for role in roles.names:
        assert roles.coarse(role) in roles.coarse_groups
    for source in ("opennyai", "law-ai"):
        for label in roles.source_labels(source):
            assert len({roles.coarse(role) for role in roles.covers(source, label)}) == 1


def test_labels_in_the_data_are_all_mapped(law_ai_dir: Path, opennyai_dir: Path):
    roles = load_role_set()
    assert set(roles.source_labels("opennyai")) == OPENNYAI_LABELS
    dev_labels = {label for judgment in load_opennyai(opennyai_dir / "dev.json") for label in judgment.labels}
    law_labels = {label for judgment in load_law_ai(law_ai_dir) for label in judgment.labels}
    assert dev_labels == OPENNYAI_LABELS
    assert law_labels == LAW_AI_LABELS


def test_unknown_labels_and_broken_tables_are_refused():
    roles = load_role_set()
    with pytest.raises(RoleMappingError, match="not in source"):
        roles.to_canonical("law-ai", "Arguments")
    with pytest.raises(RoleMappingError, match="unknown canonical role"):
        roles.to_source("law-ai", "holding")
    table = json.loads((Path(__file__).resolve().parents[3] / "legal/roles.json").read_text())
    table["sources"]["law-ai"]["labels"]["Facts"]["covers"] = ["facts", "statute"]
    with pytest.raises(RoleMappingError, match="several coarse groups"):
        parse_role_set(table)


def test_labels_groups_and_named_sets_come_from_the_one_table():
    roles = load_role_set()
    assert roles.label("analysis") == "court's reasoning" == role_label("analysis")
    assert roles.label("ruling_present_court") == "ruling"
    assert roles.label("holding") == "holding"  # display never fails on a role another table wrote
    assert len({roles.label(name) for name in roles.names}) == len(roles.names)
    assert roles.group("precedent") == ("precedent_relied", "precedent_not_relied")
    assert roles.group("reasoning") == ("ratio", "analysis")
    in_groups = [name for group in roles.coarse_groups for name in roles.group(group)]
    assert sorted(in_groups, key=roles.names.index) == list(roles.names)  # every role in exactly one group
    framing = roles.named_set("issue_framing")
    assert "issue" in framing and not {"statute", "preamble"} & set(framing)
    with pytest.raises(RoleMappingError, match="unknown coarse group"):
        roles.group("holdings")
    with pytest.raises(RoleMappingError, match="unknown role set"):
        roles.named_set("issues")


def test_a_named_set_with_an_unknown_role_is_refused():
    table = json.loads((Path(__file__).resolve().parents[3] / "legal/roles.json").read_text())
    table["sets"]["issue_framing"]["roles"].append("holding")
    with pytest.raises(RoleMappingError, match="unknown roles"):
        parse_role_set(table)
