"""Find citations of judgments and statutory provisions in a judgment's text, with canonical strings.

The patterns, the act alias table and the output templates live in ``citation_rules.json`` beside this
module: adding a reporter or an act alias is a data change, reviewed as a table, not a code change. This
module only compiles the rules, runs them, resolves overlaps and renders the canonical string.

Canonical forms (what ``Citation.normalized`` holds, and what the index facets on):

* judgments: ``(2017) 10 SCC 1``, ``AIR 1973 SC 1461``, ``[1950] SCR 88``, ``[1950] 1 SCR 88``,
  ``1978 Indlaw SC 192``, and for party names ``Kesavananda Bharati v. State of Kerala``;
* provisions: ``IPC s. 302``, ``CrPC s. 438``, ``Constitution art. 21``; an Act missing from the alias
  table keeps its own name, title-cased, with its year (``Gujarat University Act, 1949 s. 33``).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from indexer.document import Judgment

__all__ = [
    "DEFAULT_RULES_PATH",
    "Citation",
    "CitationRules",
    "canonical_act",
    "enrich",
    "extract_citations",
    "load_rules",
]

DEFAULT_RULES_PATH = Path(__file__).with_name("citation_rules.json")
_MACRO = re.compile(r"<<([A-Z_]+)>>")
_SPACES = re.compile(r"\s+")
_YEAR_SUFFIX = re.compile(r",?\s*\(?((?:1[89]|20)\d{2})\)?\s*$")
_SMALL_WORDS = frozenset({"of", "and", "the", "for", "on", "in", "to"})


@dataclass(frozen=True, slots=True)
class Citation:
    """One citation found in a text: ``text[start:end]`` is what was written, ``normalized`` its canonical form.

    ``kind`` is ``"judgment"`` (a reporter citation), ``"case_name"`` (``A v. B``) or ``"provision"``.
    A match that names several sections (``ss. 302 and 34 IPC``) gives one Citation per section, all with
    the span of the whole match.
    """

    kind: str
    text: str
    normalized: str
    start: int
    end: int
    rule: str


@dataclass(frozen=True, slots=True)
class _Rule:
    name: str
    kind: str
    regex: re.Pattern[str]
    template: str
    compact: frozenset[str]
    default_act: str | None


@dataclass(frozen=True, slots=True)
class CitationRules:
    """Compiled rules; build with :func:`load_rules`."""

    rules: tuple[_Rule, ...]
    act_aliases: Mapping[str, str]
    section_separator: re.Pattern[str]
    drop_leading: frozenset[str]
    drop_trailing: frozenset[str]
    min_side_chars: int


def _act_key(name: str) -> str:
    """Reduce an act name to a lookup key that ignores case, dots, spaces, ``the`` and a trailing year."""
    name = _SPACES.sub(" ", name).strip()
    name = re.sub(r"^the\s+", "", name, flags=re.IGNORECASE)
    return re.sub(r"[^a-z0-9/]", "", name.lower())


def _alias_regex(alias: str) -> str:
    """A regex for an alias that tolerates missing dots and a space after a dot (``Cr. P.C.``)."""
    out = []
    for i, char in enumerate(alias):
        if char == ".":
            out.append(r"\.?" if i == len(alias) - 1 else r"\.?\s?")
        elif char == " ":
            out.append(r"[\s-]+")
        else:
            out.append(re.escape(char))
    return "".join(out)


def _expand(pattern: str, macros: Mapping[str, str]) -> str:
    for _ in range(10):  # macros may nest; ten levels is far more than the rules use
        expanded = _MACRO.sub(lambda m: macros[m.group(1)], pattern)
        if expanded == pattern:
            return expanded
        pattern = expanded
    raise ValueError(f"citation rule macros nest too deeply: {pattern[:80]}")


def _compile_rules(data: Mapping[str, object]) -> CitationRules:
    acts: Mapping[str, Sequence[str]] = data["acts"]  # type: ignore[assignment]
    aliases: dict[str, str] = {}
    for canonical, names in acts.items():
        for alias in (canonical, *names):
            aliases[_act_key(alias)] = canonical
    alias_names = sorted({a for names in acts.values() for a in names}, key=len, reverse=True)
    known = "|".join(_alias_regex(a) for a in alias_names)
    macros = dict(data["macros"])  # type: ignore[arg-type]
    macros["KNOWN_ACT"] = rf"(?:{known})(?![\w])(?:,?\s*(?:1[89]|20)\d{{2}}\b)?"
    rules: list[_Rule] = []
    specs: list[tuple[str, Mapping[str, object]]] = [("judgment", r) for r in data["judgment_rules"]]  # type: ignore[union-attr]
    case_name: Mapping[str, object] = data["case_name"]  # type: ignore[assignment]
    specs.append(("case_name", {"name": "case_name", **case_name}))
    specs += [("provision", r) for r in data["provision_rules"]]  # type: ignore[union-attr]
    for kind, spec in specs:
        pattern = _expand(str(spec["pattern"]), macros)
        try:
            regex = re.compile(pattern)
        except re.error as exc:
            raise ValueError(f"citation rule {spec['name']!r} has a bad pattern: {exc}") from exc
        rules.append(
            _Rule(
                name=str(spec["name"]),
                kind=kind,
                regex=regex,
                template=str(spec["template"]),
                compact=frozenset(spec.get("compact", ())),  # type: ignore[arg-type]
                default_act=spec.get("default_act"),  # type: ignore[arg-type]
            )
        )
    return CitationRules(
        rules=tuple(rules),
        act_aliases=aliases,
        section_separator=re.compile(_expand(str(data["section_separator"]), macros)),
        drop_leading=frozenset(case_name.get("drop_leading", ())),  # type: ignore[arg-type]
        drop_trailing=frozenset(case_name.get("drop_trailing", ())),  # type: ignore[arg-type]
        min_side_chars=int(case_name.get("min_side_chars", 3)),  # type: ignore[arg-type]
    )


def load_rules(path: str | Path | None = None) -> CitationRules:
    """Read and compile a rules file; the packaged ``citation_rules.json`` when ``path`` is None.

    The packaged rules are compiled once per process, on first use (not at import).
    """
    if path is None:
        return _default_rules()
    return _compile_rules(json.loads(Path(path).read_text(encoding="utf-8")))


@lru_cache(maxsize=1)
def _default_rules() -> CitationRules:
    return _compile_rules(json.loads(DEFAULT_RULES_PATH.read_text(encoding="utf-8")))


def canonical_act(name: str, rules: CitationRules | None = None) -> str:
    """The canonical name of an Act: its alias-table entry, else its own name tidied (title case, year)."""
    rules = rules or _default_rules()
    name = _SPACES.sub(" ", name).strip().rstrip(",")
    for candidate in (name, _YEAR_SUFFIX.sub("", name)):
        hit = rules.act_aliases.get(_act_key(candidate))
        if hit:
            return hit
    year_match = _YEAR_SUFFIX.search(name)
    bare = _YEAR_SUFFIX.sub("", name) if year_match else name
    words = re.sub(r"^(?:the|The)\s+", "", bare).replace("-", " ").split()
    titled = " ".join(
        w.lower() if w.lower() in _SMALL_WORDS and i else (w[0].upper() + w[1:]) for i, w in enumerate(words)
    )
    return f"{titled}, {year_match.group(1)}" if year_match else titled


def _clean_case_side(side: str, rules: CitationRules, leading: bool) -> str:
    words = _SPACES.sub(" ", side).strip().split(" ")
    if leading:
        while words and words[0].rstrip(".,") in rules.drop_leading:
            words = words[1:]
    while words and (words[-1].rstrip(".,") in rules.drop_trailing or words[-1].lower() in _SMALL_WORDS):
        words = words[:-1]
    return " ".join(words).strip(" ,.;:")


def _render(rule: _Rule, match: re.Match[str], rules: CitationRules) -> list[str]:
    groups: dict[str, str] = defaultdict(str)
    for key, value in match.groupdict().items():
        if value is not None:
            value = _SPACES.sub(" ", value).strip()
            groups[key] = re.sub(r"[.\s]", "", value) if key in rule.compact else value
    if rule.kind == "case_name":
        left = _clean_case_side(groups["left"], rules, leading=True)
        right = _clean_case_side(groups["right"], rules, leading=False)
        if min(len(left), len(right)) < rules.min_side_chars:
            return []
        return [rule.template.format(left=left, right=right)]
    if rule.kind == "provision":
        act_text = groups["act"] or rule.default_act
        if not act_text:
            return []
        groups["act"] = canonical_act(act_text, rules)
        sections = [s for s in rules.section_separator.split(groups["sections"]) if s.strip()]
        rendered = []
        for section in sections:
            groups["section"] = re.sub(r"\s+", "", section)
            rendered.append(_SPACES.sub(" ", rule.template.format_map(groups)).strip())
        return rendered
    return [_SPACES.sub(" ", rule.template.format_map(groups)).strip()]


def extract_citations(
    text: str, rules: CitationRules | None = None, kinds: Iterable[str] | None = None
) -> list[Citation]:
    """All citations in ``text``, ordered by position.

    Within one kind, overlapping matches are resolved in favour of the earliest, then the longest, then
    the rule listed first in the rules file. ``kinds`` restricts the search (e.g. ``{"provision"}``).
    """
    rules = rules or _default_rules()
    wanted = set(kinds) if kinds is not None else None
    candidates: list[tuple[int, int, int, _Rule, re.Match[str]]] = []
    for order, rule in enumerate(rules.rules):
        if wanted is not None and rule.kind not in wanted:
            continue
        for match in rule.regex.finditer(text):
            if match.end() > match.start():
                candidates.append((match.start(), -(match.end() - match.start()), order, rule, match))
    candidates.sort(key=lambda c: c[:3])
    taken_until: dict[str, int] = {}
    found: list[Citation] = []
    for start, _neg_len, _order, rule, match in candidates:
        if start < taken_until.get(rule.kind, -1):
            continue
        normalized = _render(rule, match, rules)
        if not normalized:
            continue
        taken_until[rule.kind] = match.end()
        found += [Citation(rule.kind, match.group(0), n, start, match.end(), rule.name) for n in normalized]
    found.sort(key=lambda c: (c.start, c.kind))
    return found


def _unique(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(values))


def enrich(judgment: Judgment, rules: CitationRules | None = None, case_names: bool = True) -> Judgment:
    """Fill ``cited_judgments`` and ``cited_provisions`` from the judgment's text.

    The judgment's own citations and its own title are left out: a header that says how the judgment is
    reported is not the judgment citing something.
    """
    kinds = {"judgment", "provision"} | ({"case_name"} if case_names else set())
    found = extract_citations(judgment.text, rules, kinds)
    own = set(judgment.citations)
    if judgment.title:  # the header names the judgment itself; that is not a citation of another case
        own.update(c.normalized for c in extract_citations(judgment.title, rules, {"case_name"}))
    cited = _unique(c.normalized for c in found if c.kind != "provision" and c.normalized not in own)
    provisions = _unique(c.normalized for c in found if c.kind == "provision")
    return dataclasses.replace(judgment, cited_judgments=cited, cited_provisions=provisions)
