"""A bare Act in one file (text, HTML or PDF), split into one provision per section.

Courts cite sections, so a whole Act indexed as one "judgment" would link to nothing: each section becomes a
:class:`~indexer.document.Provision` with its Act (canonical, :func:`legal.citations.canonical_act`), number,
citation (``IPC s. 304B``, ``Constitution art. 21``: the string :mod:`legal.citations` makes of a reference to
it, so judgments citing it link to it), marginal heading, body and chapter. These are pure functions of the
extracted text; the loaders call :func:`split_act` once they have the text, and a file it refuses stays a
judgment.

What makes a file an Act (all of it, read from the header, the lines before the first numbered heading):

* a line that is an Act's name and nothing else (``THE DOWRY PROHIBITION ACT, 1961``, ``THE INDIAN PENAL
  CODE``, ``THE CONSTITUTION OF INDIA``), or the line above ``ACT NO. 28 OF 1961``;
* nothing a judgment's header has (``v``/``versus`` between parties, ``JUDGMENT``, ``CORAM``, appellants,
  petitioners, respondents): a judgment that names an Act in its first lines stays a judgment;
* some other sign of an Act: ``ACT NO. ...``, an ``ARRANGEMENT OF SECTIONS``, an enacting formula (``BE it
  enacted``, ``An Act to ...``), or a heading in the bare-Act style ``304B. Dowry death.—(1) Where ...`` or
  ``Section 3: ...``;
* and numbered section headings after it.

How it is split: the arrangement of sections (a table of contents: headings without bodies) is skipped up to
where the Act itself starts (its name again, ``ACT NO.``, the enacting formula, or numbering that starts over).
A section starts at a line ``N. Heading.—body`` (India Code's layout; ``.-`` and ``:-`` too), ``Section N.
Heading`` or ``N. Heading`` alone on its line, and runs to the next one; sub-sections ``(1)``, clauses,
provisos and Explanations are body lines. Section numbers may carry letters (``304B``, ``498A``); India Code's
amendment marks (``2[304B. ...``, ``1[imprisonment for life]``) are dropped, its footnotes (``1. Subs. by Act
43 of 1986 ...``), page numbers, rules and sub-headings (``Of offences affecting life``) skipped. ``CHAPTER
XVI`` or ``PART III`` with its title (same line or next) sets the chapter of the sections after it. An omitted
or repealed section (``13. [Omitted.]``, ``4. [Title.] Omitted by Act 63 of 1984``) is kept with that note as
its text. A schedule ends the sections.

What fails, each as a problem naming its line, while every other section still comes through: a section
number that is not after the one before it (``section 5 follows section 9``; the longest run of increasing
numbers is kept, so one mistyped number loses one section, not the rest of the Act), a number seen twice, a
heading with no body, an arrangement of sections with no sections after it, and more than
:data:`MAX_SECTIONS` sections (a hostile file; the rest is not split). Past :data:`MAX_PROBLEMS` problems, one
more says how many were left out.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from indexer.document import LoadError, Provision, judgment_id_for
from indexer.loaders._common import LoadOptions, remove_controls
from legal.citations import canonical_act

__all__ = ["ActSection", "SplitAct", "SplitProblem", "act_items", "split_act"]

ACT_SOURCE = "bare-act"  # the source label of provisions split from a bare Act
_HEADER_LINES = 60  # non-blank lines read for the Act's name before giving up: a judgment is not read further
MAX_PROBLEMS = 50  # problems reported one by one; past them, one more says how many were left out
MAX_SECTIONS = 10_000  # far more than any Act has: past them the file is not split further

_MARK = re.compile(r"(?<![\w\]])\d{1,3}\s?\[")  # India Code's amendment mark before the words it changed
_BALANCED_MARK = re.compile(r"(?<![\w\]])\d{1,3}\[([^\[\]\n]*)\]")
_NUM = r"(?P<number>\d{1,4}(?:-?[A-Z]{1,3})?)"
_NUMBERED = re.compile(rf"^{_NUM}\.\s*(?P<rest>[A-Z\[(“\"‘'*].*)?$")
_NAMED = re.compile(rf"^(?:Section|SECTION|Sec\.|Article|ARTICLE|Art\.)\s*{_NUM}\s*[.:—–-]+\s*(?P<rest>.*)$")
_TITLE_DASH = re.compile(r"^(?P<title>[^—–\n]{1,250}?)\s*(?:[.:]\s*[—–]+|[.:]-{1,2}|\s[—–]+\s|[—–]+)\s*(?P<body>.*)$")
_OMITTED = re.compile(r"^(?:\[(?P<title>[^\]]*)\]\.?\s*(?P<note>.*)|(?:\*\s*){3,}.*|(?:Omitted|Repealed|Rep\.)\b.*)$")
_OMITTED_WORDS = re.compile(r"\b(?:omitted|repealed|rep\.)", re.IGNORECASE)
_CHAPTER = re.compile(r"^(?P<kind>CHAPTER|Chapter|PART|Part)\s+(?P<num>[IVXLCDM]+[A-Z]?|\d+[A-Z]?)\b\.?\s*"
                      r"(?:[—–:.-]+\s*)?(?P<title>[^a-z].*)?$")
_SCHEDULE = re.compile(r"^(?:THE\s+)?(?:[A-Z]+\s+)?SCHEDULES?\b")
_FOOTNOTE = re.compile(r"^\d{1,3}\.\s*(?:Subs\.|Ins\.|Omitted by|Rep\.|Added by|The words|Certain words|Vide|Now see|"
                       r"See |Renumbered|Cl\.|Clause|Sub-s\.|Sub-section|Extended|Came into force|w\.e\.f|Amended)")
_RULE = re.compile(r"^[_\-—–=*. ]{3,}$|^\d{1,4}$")  # a rule line, or a page number alone
_SUBHEADING = re.compile(r"^Of [a-z][\w ,'’-]{0,80}$")  # "Of offences affecting life"
_TOC = re.compile(r"^(?:ARRANGEMENT OF (?:SECTIONS|ARTICLES|CLAUSES)|TABLE OF CONTENTS|CONTENTS)$", re.IGNORECASE)
_ACT_NO = re.compile(r"^ACT\s+NO\.?\s*(?:\d+|[IVXLC]+)\s+OF\s+\d{4}\.?$", re.IGNORECASE)
_ENACTING = re.compile(r"^(?:BE it enacted|Be it enacted|IT is hereby enacted|An Act to|WHEREAS)\b")
_NAME_WORDS = r"[A-Za-z&'’(),]+(?:-[A-Za-z]+)*"  # words of an Act's name: no digits, dots or dashes
_ACT_NAME = re.compile(
    rf"^(?:(?:THE|The)\s+)?(?:(?:{_NAME_WORDS}\s+){{1,20}}(?:ACT|Act|CODE|Code|SANHITA|Sanhita|ADHINIYAM|Adhiniyam)"
    rf"|(?:CODE|Code)\s+(?:OF|of|ON|on)(?:\s+{_NAME_WORDS}){{1,12}}|CONSTITUTION OF INDIA|Constitution of India)"
    r"(?:,?\s*\(?\d{4}\)?)?\.?$")
# A judgment's header: parties, "JUDGMENT", the bench, a reporter citation. Read up to the enacting formula.
_JUDGMENT_MARKS = re.compile(r"\s(?:v|vs|Vs|V/s)\.?\s|(?i:\b(?:versus|judge?ments?|coram|appellants?|petitioners?|"
                             r"respondents?|citation|citator)\b)|\b(?:SCR|SCC|SCALE)\b|\bAIR\s+\d{4}|\[\d{4}\]\s+\d")
_WORD = re.compile(r"[A-Za-z][A-Za-z'’]*")
_BLANKS = re.compile(r"\n{3,}")
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class ActSection:
    """One section (or article) of an Act as split from its text; ``line`` is its heading's line (1-based)."""

    number: str
    title: str | None
    text: str
    chapter: str | None
    line: int


@dataclass(frozen=True, slots=True)
class SplitProblem:
    """Where splitting failed (a 1-based line of the extracted text) and why."""

    line: int
    reason: str


@dataclass(frozen=True, slots=True)
class SplitAct:
    """An Act split into sections: its name as printed, canonical name, citation unit, sections and problems."""

    name: str
    act: str
    unit: str  # "s." for sections, "art." for the Constitution's articles
    sections: tuple[ActSection, ...]
    problems: tuple[SplitProblem, ...]

    def citation(self, number: str) -> str:
        """The canonical citation of one of its sections (``IPC s. 304B``)."""
        return f"{self.act} {self.unit} {number}"


@dataclass(slots=True)
class _Draft:
    number: str
    title: str | None
    line: int
    chapter: str | None
    body: list[str]
    styled: bool  # a bare-Act heading ("N. Title.—", "Section N:"), not just "N. words" on a line


@dataclass(frozen=True, slots=True)
class _Heading:
    number: str
    title: str | None
    body: str
    styled: bool


def _key(number: str) -> tuple[int, str]:
    """Section numbers in Act order: 4 < 4A < 4B < 5."""
    digits = re.match(r"\d+", number)
    return (int(digits.group()), number[digits.end():]) if digits else (0, number)


def _clean_title(title: str) -> str | None:
    title = _SPACES.sub(" ", title).strip().strip("[]").strip().rstrip(".:;,").strip()
    return title or None


def _heading(line: str) -> _Heading | None:
    """The section heading ``line`` holds (amendment marks already removed), or None."""
    match = _NAMED.match(line)
    styled = match is not None
    if match is None:
        match = _NUMBERED.match(line)
        if match is None or not match.group("rest"):
            return None
    number = match.group("number").replace("-", "")
    rest = (match.group("rest") or "").strip()
    dashed = _TITLE_DASH.match(rest.lstrip("["))
    if dashed and not dashed.group("title").lstrip().startswith("("):
        return _Heading(number, _clean_title(dashed.group("title")), dashed.group("body").strip(), True)
    omitted = _OMITTED.match(rest)
    if omitted and (_OMITTED_WORDS.search(rest) or not rest.startswith("[") or not omitted.group("note")):
        title = _clean_title(omitted.group("title") or "")
        if title and _OMITTED_WORDS.fullmatch(title.rstrip(".")):
            title = None
        return _Heading(number, title, rest, True)  # the note is its text
    if rest.startswith("(") or len(rest) > 200:  # "5. (1) This Act ...": a section printed without its heading
        return _Heading(number, None, rest, styled)
    return _Heading(number, _clean_title(rest), "", styled)


def _is_heading_start(line: str) -> bool:
    return bool(_NAMED.match(line) or (_NUMBERED.match(line) and not _FOOTNOTE.match(line)))


def _title_case(name: str) -> str:
    """``THE DOWRY PROHIBITION ACT, 1961`` as ``The Dowry Prohibition Act, 1961`` (canonical_act keeps the case of
    a name it does not know, and references in judgments are not in capitals)."""
    if not name.isupper():
        return name
    return _WORD.sub(lambda m: m.group()[0] + m.group()[1:].lower(), name)


@dataclass(frozen=True, slots=True)
class _Header:
    name: str
    end: int  # index of the first line after the header
    toc: int | None  # index of the "ARRANGEMENT OF SECTIONS" line
    signs: bool  # ACT NO., a table of contents or an enacting formula


def _read_header(lines: Sequence[str]) -> _Header | None:
    """The Act's name and where its header ends, or None when the header is not an Act's."""
    name: str | None = None
    before_act_no: str | None = None
    previous: str | None = None
    signs = preamble = False
    seen = 0
    for index, raw in enumerate(lines):
        line = _MARK.sub("", raw.strip())
        if not line or _RULE.match(line):
            continue
        seen += 1
        toc = bool(_TOC.match(line))
        if toc or _CHAPTER.match(line) or (_is_heading_start(line) and _heading(line) is not None):
            if name is None:
                name = before_act_no
            if name is None:
                return None
            return _Header(name, index, index if toc else None, signs or toc)
        if (not preamble and _JUDGMENT_MARKS.search(line)) or seen > _HEADER_LINES:
            return None
        if _ACT_NO.match(line):
            signs = True
            before_act_no = before_act_no or previous
        elif _ENACTING.match(line):
            signs = preamble = True
        elif name is None and _ACT_NAME.match(line) and (line.isupper() or seen == 1):
            name = line.rstrip(".")  # in capitals, as Acts print it, or the file's first line
        previous = line.rstrip(".") if line.isupper() else None
    return None


def _body_start(lines: Sequence[str], header: _Header) -> int:
    """Where the Act's text starts: past the arrangement of sections, if it has one."""
    if header.toc is None:
        return header.end
    last: tuple[int, str] | None = None
    for index in range(header.toc + 1, len(lines)):
        line = _MARK.sub("", lines[index].strip())
        if not line:
            continue
        if line.rstrip(".") == header.name or _ACT_NO.match(line) or _ENACTING.match(line):
            return index
        heading = _heading(line) if _is_heading_start(line) else None
        if heading is not None:
            if last is not None and _key(heading.number) <= last:
                return index
            last = _key(heading.number)
    return len(lines)


def _chapter_title(lines: Sequence[str], start: int) -> tuple[str | None, int]:
    """The chapter's title on the first non-blank line from ``start`` (when it is not a heading), and the index
    after it."""
    for index in range(start, min(start + 3, len(lines))):
        line = _MARK.sub("", lines[index].strip())
        if not line:
            continue
        if _is_heading_start(line) or _CHAPTER.match(line) or len(line) > 200 or _SCHEDULE.match(line):
            return None, start
        return line.rstrip("]").strip(), index + 1
    return None, start


def _drafts(lines: Sequence[str], start: int) -> tuple[list[_Draft], int | None]:
    """The sections from line index ``start`` on, unchecked, and the line where splitting stopped at
    :data:`MAX_SECTIONS` (None when it did not)."""
    drafts: list[_Draft] = []
    chapter: str | None = None
    current: _Draft | None = None
    index = start
    while index < len(lines):
        here = index
        line = _MARK.sub("", lines[index].strip())
        index += 1
        if not line:
            if current is not None:
                current.body.append("")
            continue
        if _RULE.match(line) or _FOOTNOTE.match(line) or _SUBHEADING.match(line):
            continue
        if _SCHEDULE.match(line):
            break
        chapter_match = _CHAPTER.match(line)
        if chapter_match and len(line) <= 200:
            current = None
            label = f"{chapter_match.group('kind').upper()} {chapter_match.group('num')}"
            title = (chapter_match.group("title") or "").rstrip("]").strip() or None
            if title is None:
                title, index = _chapter_title(lines, index)
            chapter = f"{label} — {title}" if title else label
            continue
        heading = _heading(line) if _is_heading_start(line) else None
        if heading is not None and not heading.styled and not heading.body and not line.endswith("."):
            # A heading the PDF wrapped: "8. Offences to be cognizable ... and" / "non-compoundable.—(1) The ..."
            following = next((i for i in range(index, min(index + 2, len(lines))) if lines[i].strip()), None)
            if following is not None:
                joined = f"{line} {lines[following].strip()}"
                wrapped = _heading(joined)
                if wrapped is not None and wrapped.styled and not _is_heading_start(lines[following].strip()):
                    heading, index = wrapped, following + 1
        if heading is not None:
            if len(drafts) == MAX_SECTIONS:
                return drafts, here + 1
            current = _Draft(heading.number, heading.title, here + 1, chapter,
                             [heading.body] if heading.body else [], heading.styled)
            drafts.append(current)
        elif current is not None:
            current.body.append(line)
    return drafts, None


def _increasing(keys: Sequence[tuple[int, str]]) -> set[int]:
    """The indices of a longest strictly increasing run of ``keys`` (patience sorting), so that one out-of-order
    number costs one section; of two equal numbers the first is kept."""
    tails: list[tuple[int, str]] = []
    tail_index: list[int] = []
    previous = [-1] * len(keys)
    for i, key in enumerate(keys):
        at = bisect_left(tails, key)
        if at == len(tails):
            tails.append(key)
            tail_index.append(i)
        else:
            tails[at] = key
            tail_index[at] = i
        previous[i] = tail_index[at - 1] if at else -1
    kept: set[int] = set()
    i = tail_index[-1] if tail_index else -1
    while i >= 0:
        kept.add(i)
        i = previous[i]
    first: dict[tuple[int, str], int] = {}
    for i, key in enumerate(keys):
        first.setdefault(key, i)
    for i in sorted(kept):
        j = first[keys[i]]
        if j != i:  # the same number earlier: keep that one (the run stays increasing) and blame this one
            kept.discard(i)
            kept.add(j)
    return kept


def _order_reasons(drafts: Sequence[_Draft], kept: set[int]) -> dict[int, str]:
    """Why each heading left out of the increasing run is out of order, by its index."""
    kept_in_order = sorted(kept)
    kept_by_key = {_key(drafts[j].number): drafts[j] for j in kept_in_order}
    reasons: dict[int, str] = {}
    for i, draft in enumerate(drafts):
        if i in kept:
            continue
        number, key = draft.number, _key(draft.number)
        after = bisect_left(kept_in_order, i)
        if key in kept_by_key:
            reasons[i] = f"section {number} appears again (first at line {kept_by_key[key].line})"
        elif i and _key(drafts[i - 1].number) >= key:
            reasons[i] = f"section {number} follows section {drafts[i - 1].number}"
        elif after < len(kept_in_order):
            reasons[i] = f"section {number} comes before section {drafts[kept_in_order[after]].number}"
        else:
            reasons[i] = f"section {number} is out of order"
    return reasons


def _text(body: Sequence[str]) -> str:
    text = _BLANKS.sub("\n\n", _BALANCED_MARK.sub(r"\1", "\n".join(body))).strip()
    if text.endswith("]") and text.count("]") > text.count("["):  # the end of "2[304B. ...]", its mark removed
        text = text[:-1].rstrip()
    return text


def split_act(text: str) -> SplitAct | None:
    """``text`` split into sections, or None when it is not a bare Act (see the module docstring)."""
    lines = text.split("\n")
    header = _read_header(lines)
    if header is None:
        return None
    start = _body_start(lines, header)
    drafts, stopped = _drafts(lines, start)
    if not drafts and header.toc is None:
        return None
    if not header.signs and not any(d.styled for d in drafts):
        return None
    act = canonical_act(_title_case(header.name))
    unit = "art." if act == "Constitution" else "s."
    kept = _increasing([_key(d.number) for d in drafts])
    out_of_order = _order_reasons(drafts, kept)
    sections: list[ActSection] = []
    problems: list[SplitProblem] = []
    for i, draft in enumerate(drafts):
        body = _text(draft.body)
        if i in out_of_order:
            problems.append(SplitProblem(draft.line, out_of_order[i]))
        elif not body:
            problems.append(SplitProblem(draft.line, f"section {draft.number} has a heading but no text"))
        else:
            sections.append(ActSection(draft.number, draft.title, body, draft.chapter, draft.line))
    if not drafts and header.toc is not None:
        problems.append(SplitProblem(header.toc + 1, "an arrangement of sections but no sections after it"))
    if len(problems) > MAX_PROBLEMS:
        left_out = len(problems) - MAX_PROBLEMS
        problems[MAX_PROBLEMS:] = [SplitProblem(problems[MAX_PROBLEMS].line, f"and {left_out} more problems from here "
                                                                               "on, not listed one by one")]
    if stopped is not None:
        problems.append(SplitProblem(stopped, f"more than {MAX_SECTIONS} sections: the rest is not split"))
    return SplitAct(header.name, act, unit, tuple(sections), tuple(problems))


def act_items(text: str, path: Path, options: LoadOptions,
              where: str = "line") -> Iterator[Provision | LoadError] | None:
    """The provisions of the bare Act in ``text`` and a LoadError per problem, in line order; None when ``text``
    is not a bare Act.

    Ids are ``<file id>:s<number>`` (``<file id>:art<number>`` for articles), the file id following
    :func:`~indexer.document.judgment_id_for` (with ``options.id_prefix``). A problem is reported as
    ``<where> <line>: <reason>`` against the file (``line 57: section 5 follows section 9``); ``where`` says which
    lines are counted (the file's, or those of the text extracted from HTML or a PDF).
    """
    cleaned, _removed = remove_controls(text)
    split = split_act(cleaned)
    if split is None:
        return None
    return _items(split, path, options, where)


def _items(split: SplitAct, path: Path, options: LoadOptions, where: str) -> Iterator[Provision | LoadError]:
    base = judgment_id_for(path, prefix=options.id_prefix)
    prefix = split.unit.rstrip(".")
    found: list[tuple[int, Provision | LoadError]] = [
        (section.line, Provision(provision_id=f"{base}:{prefix}{section.number}", text=section.text,
                                 source=options.source or ACT_SOURCE, title=section.title, act=split.act,
                                 section=section.number, citation=split.citation(section.number),
                                 source_path=str(path), chapter=section.chapter))
        for section in split.sections
    ]
    found += [(problem.line, LoadError(str(path), f"{where} {problem.line}: {problem.reason}"))
              for problem in split.problems]
    for _line, item in sorted(found, key=lambda pair: pair[0]):
        yield item
