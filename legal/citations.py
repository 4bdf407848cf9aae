"""Find citations of judgments and statutory provisions in a text, with canonical strings.

Both paths read citations with this one extractor: the indexer when it stores a judgment's citations, search
when it reads a query, a brief or a hit, so a citation is always read the way the corpus was read.

The patterns, the act alias table and the output templates live in ``citation_rules.json`` beside this
module: adding a reporter or an act alias is a data change, reviewed as a table, not a code change. This
module only compiles the rules, runs them, resolves overlaps and renders the canonical string.

Canonical forms (what ``Citation.normalized`` holds, and what the index facets on):

* judgments: ``(2017) 10 SCC 1``, ``AIR 1973 SC 1461``, ``[1950] SCR 88``, ``[1950] 1 SCR 88``,
  ``1978 Indlaw SC 192``, and for party names ``Kesavananda Bharati v. State of Kerala``;
* provisions: ``IPC s. 302``, ``CrPC s. 438``, ``Constitution art. 21``; an Act missing from the alias
  table keeps its own name, title-cased, with its year (``Gujarat University Act, 1949 s. 33``). A section's
  letters are upper case and unhyphenated (``304-B`` and ``304b`` are ``304B``); its sub-sections are kept
  as written (``IPC s. 304B(1)``).

The Act aliases of the table are read in any case (``ipc``, ``crpc``, as a query is typed). A bare number
before an Act of ``bare_number_acts`` is a section (``304B IPC``, ``302/34 IPC``), except after a word of
``bare_number_not_after`` (``Order 21 Rule 97 CPC`` is no section 97) or another number.

A section named without an Act (``s.304-B``, ``section 438``) is no provision: :func:`extract_citations` never
gives one, so nothing the indexer stores depends on it. A query may still mean it, so :func:`extract_sections`
reads it, with the ``section_rules``, where no provision citation covers it.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

__all__ = [
    "DEFAULT_RULES_PATH",
    "KINDS",
    "Citation",
    "CitationRules",
    "ProvisionCitation",
    "canonical_act",
    "canonical_case_name",
    "canonical_section",
    "extract_citations",
    "extract_sections",
    "load_rules",
    "parse_provision",
    "section_of",
]

DEFAULT_RULES_PATH = Path(__file__).with_name("citation_rules.json")
_MACRO = re.compile(r"<<([A-Z_]+)>>")
_SPACES = re.compile(r"\s+")
_YEAR_SUFFIX = re.compile(r",?\s*\(?((?:1[89]|20)\d{2})\)?\s*$")
_SMALL_WORDS = frozenset({"of", "and", "the", "for", "on", "in", "to"})
_PROVISION = re.compile(r"^(?P<act>.+) (?P<unit>s\.|art\.) (?P<section>\S+)$")
_SECTION_BASE = re.compile(r"^[^(]*")
KINDS: tuple[str, ...] = ("judgment", "case_name", "provision")


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
    start_group: str | None = None  # the citation starts where this group starts (context read before it)

    def span(self, match: re.Match[str]) -> tuple[int, int]:
        """Where the citation lies in the text: the whole match, or from ``start_group`` to the match's end."""
        return (match.start(self.start_group) if self.start_group else match.start()), match.end()


@dataclass(frozen=True, slots=True)
class CitationRules:
    """Compiled rules; build with :func:`load_rules`."""

    rules: tuple[_Rule, ...]
    act_aliases: Mapping[str, str]
    section_separator: re.Pattern[str]
    drop_leading: frozenset[str]
    drop_trailing: frozenset[str]
    min_side_chars: int
    section_rules: tuple[_Rule, ...] = ()  # a section without an Act: read by extract_sections only


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


def _not_after(words: Sequence[str]) -> str:
    """Lookbehinds that refuse a match right after one of ``words`` (any case, one or two spaces between) or
    after a number (a year, a page, a volume)."""
    out = [r"(?<!\d\s)(?<!\d\)\s)"]
    for word in words:
        word_re = "".join(r"\." if ch == "." else re.escape(ch) for ch in word)
        out.append(rf"(?<!\b(?i:{word_re})\s)(?<!\b(?i:{word_re})\s\s)")
    return "".join(out)


def _known_acts(names: Iterable[str]) -> str:
    """A regex for the aliases ``names`` (longest first, any case), with an optional year after them."""
    known = "|".join(_alias_regex(a) for a in sorted(set(names), key=len, reverse=True))
    return rf"(?i:{known})(?![\w])(?:,?\s*(?:1[89]|20)\d{{2}}\b)?"


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
    bare_acts: Sequence[str] = data.get("bare_number_acts", ())  # type: ignore[assignment]
    unknown = set(bare_acts) - set(acts)
    if unknown:
        raise ValueError(f"bare_number_acts names acts the table lacks: {', '.join(sorted(unknown))}")
    macros = dict(data["macros"])  # type: ignore[arg-type]
    macros["KNOWN_ACT"] = _known_acts(a for names in acts.values() for a in names)
    macros["BARE_NUMBER_ACT"] = _known_acts(a for act in bare_acts for a in acts[act]) if bare_acts else "(?!)"
    macros["NOT_AFTER"] = _not_after(data.get("bare_number_not_after", ()))  # type: ignore[arg-type]
    rules: list[_Rule] = []
    specs: list[tuple[str, Mapping[str, object]]] = [("judgment", r) for r in data["judgment_rules"]]  # type: ignore[union-attr]
    case_name: Mapping[str, object] = data["case_name"]  # type: ignore[assignment]
    specs.append(("case_name", {"name": "case_name", **case_name}))
    specs += [("provision", r) for r in data["provision_rules"]]  # type: ignore[union-attr]
    specs += [("section", r) for r in data.get("section_rules", ())]  # type: ignore[union-attr]
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
                start_group=spec.get("start_group"),  # type: ignore[arg-type]
            )
        )
    return CitationRules(
        rules=tuple(r for r in rules if r.kind != "section"),
        act_aliases=aliases,
        section_separator=re.compile(_expand(str(data["section_separator"]), macros)),
        drop_leading=frozenset(case_name.get("drop_leading", ())),  # type: ignore[arg-type]
        drop_trailing=frozenset(case_name.get("drop_trailing", ())),  # type: ignore[arg-type]
        min_side_chars=int(case_name.get("min_side_chars", 3)),  # type: ignore[arg-type]
        section_rules=tuple(r for r in rules if r.kind == "section"),
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


def canonical_section(section: str) -> str:
    """A section number as canonical citations write it: no spaces, its letters upper case and unhyphenated
    (``304-B`` and ``304b`` are ``304B``), its sub-sections as written (``13(1)(e)``)."""
    section = re.sub(r"\s+", "", section)
    return _SECTION_BASE.sub(lambda m: m.group(0).replace("-", "").upper(), section, count=1)


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
    if rule.kind in ("provision", "section"):
        if rule.kind == "provision":
            act_text = groups["act"] or rule.default_act
            if not act_text:
                return []
            groups["act"] = canonical_act(act_text, rules)
        sections = [s for s in rules.section_separator.split(groups["sections"]) if s.strip()]
        rendered = []
        for section in sections:
            groups["section"] = canonical_section(section)
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
            start, end = rule.span(match)
            if end > start:
                candidates.append((start, start - end, order, rule, match))
    candidates.sort(key=lambda c: c[:3])
    taken_until: dict[str, int] = {}
    found: list[Citation] = []
    for start, _neg_len, _order, rule, match in candidates:
        if start < taken_until.get(rule.kind, -1):
            continue
        normalized = _render(rule, match, rules)
        if not normalized:
            continue
        end = match.end()
        taken_until[rule.kind] = end
        found += [Citation(rule.kind, text[start:end], n, start, end, rule.name) for n in normalized]
    found.sort(key=lambda c: (c.start, c.kind))
    return found


def extract_sections(text: str, rules: CitationRules | None = None) -> list[Citation]:
    """Sections named without an Act (``s.304-B``, ``section 438``), kind ``"section"``, ``normalized`` the
    canonical section number (``304B``), where no provision citation of ``text`` covers them; ordered by
    position. What a query means by them is the reader's choice (a query means the section of any Act)."""
    rules = rules or _default_rules()
    covered = [(c.start, c.end) for c in extract_citations(text, rules, {"provision"})]
    found: list[Citation] = []
    taken_until = -1
    for rule in rules.section_rules:
        for match in rule.regex.finditer(text):
            start, end = rule.span(match)
            if start < taken_until or any(s < end and start < e for s, e in covered):
                continue
            taken_until = end
            found += [Citation("section", text[start:end], n, start, end, rule.name)
                      for n in _render(rule, match, rules)]
    found.sort(key=lambda c: c.start)
    return found


def canonical_case_name(title: str | None, rules: CitationRules | None = None) -> str | None:
    """The canonical ``A v. B`` form of a judgment title that reads as one (None otherwise)."""
    if not title:
        return None
    names = [c.normalized for c in extract_citations(title, rules, {"case_name"})]
    return names[0] if names else None


@dataclass(frozen=True, slots=True)
class ProvisionCitation:
    """A canonical provision citation read back into its parts: ``IPC s. 302(1)`` is Act ``IPC``, unit
    ``s.``, section ``302(1)`` and ``base`` ``302`` (the section without its sub-section; None when none is
    cited)."""

    act: str
    unit: str
    section: str
    base: str | None

    def citation(self, section: str) -> str:
        """The canonical citation of another section of the same Act and unit."""
        return f"{self.act} {self.unit} {section}"


def parse_provision(canonical: str) -> ProvisionCitation | None:
    """Read a canonical provision citation (``<Act> s. <section>`` or ``<Act> art. <article>``); None when
    ``canonical`` is not one."""
    match = _PROVISION.match(canonical)
    if match is None:
        return None
    section = match.group("section")
    base = section.split("(", 1)[0]
    return ProvisionCitation(match.group("act"), match.group("unit"), section,
                             base if base and base != section else None)


def section_of(citation: str) -> str:
    """The canonical citation of the section a provision citation names: ``IPC s. 304B(1)`` cites section
    ``IPC s. 304B``; a citation of a whole section, or a string that is no provision citation, comes back as it is."""
    parsed = parse_provision(citation)
    return parsed.citation(parsed.base) if parsed is not None and parsed.base else citation
