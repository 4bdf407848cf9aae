"""A small, explainable intent classifier: which roles of a judgment should answer this query.

Rules, not a model: cue phrases and three signals (the query names a provision, names a judgment, or is a
long fact pattern), each with a weight kept as data in ``intents.json`` next to this module, with the roles
each intent prefers. The result carries the evidence (which cues and signals fired), so an explanation can
say "boosted the ratio because the query asks for a *principle*". Swapping in a learned classifier later only
has to return the same :class:`Intent`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from legal.citations import extract_citations
from legal.roles import load_role_set

__all__ = ["DEFAULT_RULES_PATH", "Intent", "IntentRules", "classify_intent", "load_intent_rules"]

DEFAULT_RULES_PATH = Path(__file__).with_name("intents.json")


@dataclass(frozen=True)
class Intent:
    """The chosen intent, how sure the rules are (0..1), the roles it prefers, and why."""

    name: str
    confidence: float
    roles: tuple[str, ...]
    evidence: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Rule:
    name: str
    roles: tuple[str, ...]
    cues: tuple[tuple[str, float, re.Pattern[str]], ...]
    signals: Mapping[str, float]


@dataclass(frozen=True)
class IntentRules:
    """Compiled ``intents.json``; build with :func:`load_intent_rules`."""

    rules: tuple[_Rule, ...]
    default: str
    default_roles: tuple[str, ...]
    min_score: float
    default_prior: float
    long_text_words: int


def _compile(data: Mapping) -> IntentRules:
    known = set(load_role_set().names)
    rules = []
    for spec in data["intents"]:
        unknown = [r for r in spec["roles"] if r not in known]
        if unknown:
            raise ValueError(f"intent {spec['name']!r} prefers unknown roles {unknown}")
        cues = tuple((cue, float(weight), re.compile(rf"(?<!\w){re.escape(cue)}(?!\w)", re.IGNORECASE))
                     for cue, weight in spec["cues"].items())
        rules.append(_Rule(spec["name"], tuple(spec["roles"]), cues, dict(spec.get("signals", {}))))
    return IntentRules(tuple(rules), data["default"]["name"], tuple(data["default"]["roles"]),
                       float(data["min_score"]), float(data["default_prior"]), int(data["long_text_words"]))


def load_intent_rules(path: str | Path | None = None) -> IntentRules:
    """Read a rules file; the packaged ``intents.json`` when ``path`` is None (cached, read on first use)."""
    if path is None:
        return _packaged()
    return _compile(json.loads(Path(path).read_text(encoding="utf-8")))


@cache
def _packaged() -> IntentRules:
    return _compile(json.loads(DEFAULT_RULES_PATH.read_text(encoding="utf-8")))


def _signals(text: str, long_text_words: int) -> set[str]:
    found = {c.kind for c in extract_citations(text)}
    fired = set()
    if "provision" in found:
        fired.add("provision")
    if found & {"judgment", "case_name"}:
        fired.add("citation")
    if len(text.split()) >= long_text_words:
        fired.add("long_text")
    return fired


def classify_intent(text: str, rules: IntentRules | None = None) -> Intent:
    """Score each intent by its cues and signals in ``text``; the best one wins if it reaches the minimum.

    Ties go to the intent listed first in the rules file. Confidence is the winner's share of all evidence
    plus a prior for "no intent", so one weak cue gives a modest confidence and no cue gives the default.
    """
    rules = rules or load_intent_rules()
    fired = _signals(text, rules.long_text_words)
    totals: list[tuple[float, _Rule, tuple[str, ...]]] = []
    for rule in rules.rules:
        evidence = [f"cue '{cue}'" for cue, _, pattern in rule.cues if pattern.search(text)]
        score = sum(weight for _, weight, pattern in rule.cues if pattern.search(text))
        for signal, weight in rule.signals.items():
            if signal in fired:
                score += weight
                evidence.append(f"signal {signal}")
        totals.append((score, rule, tuple(evidence)))
    all_evidence = sum(score for score, _, _ in totals) + rules.default_prior
    best_score, best, evidence = max(totals, key=lambda t: t[0], default=(0.0, None, ()))
    if best is None or best_score < rules.min_score:
        confidence = rules.default_prior / all_evidence
        return Intent(rules.default, round(confidence, 3), rules.default_roles)
    return Intent(best.name, round(best_score / all_evidence, 3), best.roles, evidence)
