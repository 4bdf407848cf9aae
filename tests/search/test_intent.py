"""The rule-based intent classifier: intents, preferred roles, confidence and evidence."""

from __future__ import annotations

import json

import pytest

from legal.roles import load_role_set
from search.query.intent import classify_intent, load_intent_rules


@pytest.mark.parametrize(("query", "intent", "roles"), [
    ("murder dowry", "general", ()),
    ("what is the ratio on dying declarations", "reasoning", ("ratio", "analysis")),
    ("principle of law on anticipatory bail", "reasoning", ("ratio", "analysis")),
    ("ingredients of s. 302 IPC", "statute", ("statute",)),
    ("Article 21 right to privacy", "statute", ("statute",)),
    ("precedents on anticipatory bail", "precedent", ("precedent_relied", "precedent_not_relied")),
    ("Kesavananda Bharati v. State of Kerala", "precedent", ("precedent_relied", "precedent_not_relied")),
    ("was the accused acquitted", "outcome", ("ruling_present_court", "ruling_lower_court")),
    ("appeal dismissed for delay", "outcome", ("ruling_present_court", "ruling_lower_court")),
    ("The deceased was found in the well behind the house of the accused two days after she left for her "
     "parents' home; the accused had demanded money from her father and there were injuries on her neck. "
     "Her mother said she had complained of harassment several times before the incident.", "facts",
     ("facts", "issue")),
])
def test_intents(query, intent, roles) -> None:
    found = classify_intent(query)
    assert (found.name, found.roles) == (intent, roles)
    assert 0 < found.confidence <= 1
    if intent != "general":
        assert found.evidence


def test_confidence_grows_with_evidence_and_default_is_certain_of_nothing() -> None:
    one = classify_intent("ratio")
    two = classify_intent("ratio decidendi principle")
    assert one.confidence < two.confidence
    assert classify_intent("murder").confidence == 1.0 and classify_intent("murder").evidence == ()


def test_cues_match_whole_words_only() -> None:
    assert classify_intent("ratios rational").name == "general"


def test_table_names_only_canonical_roles() -> None:
    names = set(load_role_set().names)
    for rule in load_intent_rules().rules:
        assert set(rule.roles) <= names


def test_a_rules_file_with_an_unknown_role_is_refused(tmp_path) -> None:
    data = {"min_score": 1, "default_prior": 1, "long_text_words": 40, "default": {"name": "g", "roles": []},
            "intents": [{"name": "x", "roles": ["obiter"], "cues": {"x": 1}}]}
    path = tmp_path / "intents.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match="obiter"):
        load_intent_rules(path)
