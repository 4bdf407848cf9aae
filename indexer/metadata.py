"""Read title, parties, court, date, case number and bench from the header of a judgment.

Four header layouts are recognised, each by a test that must pass before anything is read from it:

* ``aila``: the FIRE AILA 2019 case files. Line 1 is the title (``A v B``), then optionally ``Status:``
  and its value, the court, a blank line, the date (``26 September 1973``), the case number and
  ``The Judgment was delivered by : A. Alagiriswami, J.``.
* ``irled``: the FIRE 2017 IRLeD prior cases (from judis). Line 1 lists the reporter citations and ends
  with the date in brackets (``... 1995 (6) SCC 315 ... (11 October 1995)``); then the bench lines
  (``JEEVAN REDDY, B.P. (J) MAJMUDAR S.B. (J)``) up to ``CITATION:``.
* ``judis``: the Supreme Court judis preamble found in OpenNyAI texts (``PETITIONER:``, ``Vs.``,
  ``RESPONDENT:``, ``DATE OF JUDGMENT:``, ``BENCH:``, ``CITATION:``).
* ``court_preamble``: an ``IN THE HIGH COURT OF ...`` (or ``SUPREME COURT OF INDIA``) preamble with
  ``DATED THIS THE 20th DAY OF JANUARY 2015`` and ``HON'BLE MR. JUSTICE ...`` lines.

The extractor is conservative: a field it cannot read with confidence is ``None`` (or empty), never a
guess, because a wrong court or date in a facet is worse than a missing one.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from indexer.document import Judgment
from legal.citations import Citation, extract_citations

__all__ = ["HeaderMetadata", "apply_metadata", "extract_metadata", "parse_date", "split_parties"]

_HEAD_CHARS = 4000  # every recognised header fits well within this; reading less keeps it cheap
_HEAD_LINES = 16
_MIN_YEAR, _MAX_YEAR = 1800, 2100
_WORD_DATE = re.compile(r"^\s*(\d{1,2})(?:st|nd|rd|th)?\s+([A-Za-z]{3,9})\.?,?\s+(\d{4})\s*$")
_NUMERIC_DATE = re.compile(r"^\s*(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})\s*$")
# Header lines can be as long as the file (nothing forces a line break), so every pattern below runs in time
# linear in its input: a whitespace run followed by something that is not whitespace is matched possessively
# (``\s++``), and may only start where the run starts (``(?<!\s)``), so a search does not re-read the run from
# each of its positions. The matches are the ones the plain patterns gave.
_PARTY_SPLIT = re.compile(r"(?<!\s)\s++(?:v\.?|vs\.?|versus)\s++", re.IGNORECASE)
_DELIVERED_BY = re.compile(r"^The Judgment was delivered by\s*+:?\s*+(?P<who>.+)$", re.IGNORECASE)
_JUDGE_SUFFIX = re.compile(r"(?:,|(?<![,\s]))\s*+\b(?:J|JJ|CJ|CJI)\.?\s*+$")
_IRLED_FIRST = re.compile(r"\((\d{1,2} [A-Z][a-z]+ \d{4})\)\s*$")
_BENCH_MARKER = re.compile(r"(?<!\s)\s*+\((?:C?J|CJI)\)\s*+")
_TRAILING_VS = re.compile(r"(?<!\s)(\s++)Vs\.?\s*+$")
_LABEL = re.compile(
    r"^(PETITIONER|RESPONDENT|DATE OF JUDGMENT|BENCH|CITATION|ACT|HEADNOTE|JUDGMENT)(?::|(?=\d))[ \t]*", re.M
)
_COURT_LINE = re.compile(
    r"^\s*IN THE (HIGH COURT OF [A-Z][A-Z &]+?|SUPREME COURT OF INDIA)(?:\s+AT\s+[A-Z]+)?\s*$", re.M
)
_HC_DATE = re.compile(
    r"DATED\s+(?:THIS\s+)?(?:THE\s+)?(\d{1,2})(?:ST|ND|RD|TH)?\s+(?:DAY\s+)?(?:OF\s+)?([A-Z]{3,9}),?\s+(\d{4})",
    re.IGNORECASE,
)
_HC_JUDGE = re.compile(r"HON'?BLE\s+(?:(?:MR|MRS|MS|DR|SMT)\.?\s*)?(?:CHIEF\s+)?JUSTICE\s+([A-Z][A-Z. ]*[A-Z])")


@dataclass(frozen=True, slots=True)
class HeaderMetadata:
    """What a header says about its judgment; ``layout`` names the header layout that was recognised."""

    layout: str | None = None
    title: str | None = None
    parties: tuple[str, ...] = ()
    court: str | None = None
    judges: tuple[str, ...] = ()
    decision_date: dt.date | None = None
    case_number: str | None = None
    citations: tuple[str, ...] = ()
    status: str | None = None
    author: str | None = None


def parse_date(value: str, day_first: bool = True) -> dt.date | None:
    """Parse ``26 September 1973``, ``5th May, 1961`` or ``05/05/1961`` (day first); None if unsure."""
    match = _WORD_DATE.match(value)
    if match:
        day, month_name, year = match.groups()
        for fmt in ("%d %B %Y", "%d %b %Y"):
            try:
                return _in_range(dt.datetime.strptime(f"{int(day)} {month_name} {year}", fmt).date())
            except ValueError:
                continue
        return None
    match = _NUMERIC_DATE.match(value)
    if match:
        first, second, year = (int(g) for g in match.groups())
        day, month = (first, second) if day_first else (second, first)
        try:
            return _in_range(dt.date(year, month, day))
        except ValueError:
            return None
    return None


def _in_range(date: dt.date) -> dt.date | None:
    return date if _MIN_YEAR <= date.year <= _MAX_YEAR else None


def split_parties(title: str) -> tuple[str, ...]:
    """``Masud Khan v State Of Uttar Pradesh`` → both sides; empty unless exactly one ``v`` separates them."""
    sides = _PARTY_SPLIT.split(title.strip())
    if len(sides) != 2 or not all(side.strip() for side in sides):
        return ()
    return tuple(side.strip(" ,.") for side in sides)


class _OwnCitations:
    """The reporter citations inside a span of the header: taken from the caller's scan of the text when it
    has one, else from one scan of the header made on first use (most headers carry no citation field)."""

    def __init__(self, text: str, citations: Sequence[Citation] | None, header_end: int) -> None:
        self._text, self._citations, self._header_end = text, citations, header_end

    @cached_property
    def _found(self) -> list[Citation]:
        found = self._citations
        if found is None:
            found = extract_citations(self._text[: self._header_end], kinds={"judgment"})
        return [c for c in found if c.kind == "judgment"]

    def within(self, start: int, end: int) -> tuple[str, ...]:
        """Canonical forms of the citations wholly inside ``text[start:end]``, first occurrence first."""
        return tuple(dict.fromkeys(c.normalized for c in self._found if start <= c.start and c.end <= end))


def _aila(lines: list[str]) -> HeaderMetadata | None:
    if len(lines) < 6:
        return None
    at = 1
    status = None
    if lines[1].strip().startswith("Status:"):
        status = lines[1].split(":", 1)[1].strip() or (lines[2].strip() or None)
        at = 2 if lines[1].split(":", 1)[1].strip() else 3
    if len(lines) < at + 5 or "court" not in lines[at].lower() or lines[at + 1].strip():
        return None
    date = parse_date(lines[at + 2])
    if date is None:
        return None
    title = lines[0].strip() or None
    delivered = _DELIVERED_BY.match(lines[at + 4].strip())
    author = _JUDGE_SUFFIX.sub("", delivered.group("who")).strip() if delivered else None
    return HeaderMetadata(
        layout="aila",
        title=title,
        parties=split_parties(title) if title else (),
        court=lines[at].strip(),
        decision_date=date,
        case_number=lines[at + 3].strip() or None,
        status=status,
        judges=(author,) if author else (),
        author=author or None,
    )


def _bench_names(lines: list[str]) -> tuple[str, ...]:
    joined = " ".join(lines)
    joined = re.sub(r"^\s*\d{1,2}/\d{1,2}/\d{4}\s+", "", joined)
    if _BENCH_MARKER.search(joined):
        names = [n.strip() for n in _BENCH_MARKER.split(joined) if n.strip()]
        if any(name.count(",") > 1 for name in names):
            return ()  # some names carry no (J) marker, so where one ends is a guess
    elif all(line.count(",") == 1 for line in lines):
        names = [re.sub(r"^\s*\d{1,2}/\d{1,2}/\d{4}\s+", "", line).strip() for line in lines]
    else:
        return ()
    return tuple(dict.fromkeys(names))


def _irled(lines: list[str], own_citations: _OwnCitations) -> HeaderMetadata | None:
    first = _IRLED_FIRST.search(lines[0]) if lines else None
    if first is None:
        return None
    cite_at = next((i for i, line in enumerate(lines[:15]) if line.startswith("CITATION:")), None)
    own = list(own_citations.within(0, len(lines[0])))
    judges: tuple[str, ...] = ()
    author = None
    if cite_at is not None:
        start = sum(len(line) + 1 for line in lines[:cite_at])
        own += own_citations.within(start, start + len(lines[cite_at]))
        judges = _bench_names(lines[1:cite_at])
        after = [line.strip() for line in lines[cite_at + 1 : cite_at + 4]]
        author_line = next((line for line in after if re.fullmatch(r"[A-Z][A-Z. ]+,\s*(?:C?J|CJI)\.", line)), None)
        author = _JUDGE_SUFFIX.sub("", author_line).strip() if author_line else None
    return HeaderMetadata(
        layout="irled",
        decision_date=parse_date(first.group(1)),
        citations=tuple(dict.fromkeys(own)),
        judges=judges,
        author=author,
    )


def _without_trailing_vs(petitioner: str) -> str:
    """The PETITIONER field without the ``Vs.`` line that ends it (cut at the first line break before it)."""
    match = _TRAILING_VS.search(petitioner)
    if match is None or "\n" not in match.group(1):
        return petitioner
    return petitioner[: match.start(1) + match.group(1).index("\n")]


def _judis(head: str, own_citations: _OwnCitations) -> HeaderMetadata | None:
    if not head.lstrip().startswith("PETITIONER:"):
        return None
    fields: dict[str, str] = {}
    spans: dict[str, tuple[int, int]] = {}
    matches = list(_LABEL.finditer(head))
    for match, following in zip(matches, [*matches[1:], None], strict=True):
        end = following.start() if following else len(head)
        spans[match.group(1)] = (match.end(), end)
        fields[match.group(1)] = head[match.end() : end]  # the last BENCH: block is the full bench
    petitioner = re.sub(r"\s+", " ", _without_trailing_vs(fields.get("PETITIONER", "").strip())).strip()
    respondent = re.sub(r"\s+", " ", fields.get("RESPONDENT", "")).strip()
    parties = tuple(p for p in (petitioner, respondent) if p)
    bench_lines = [line.strip() for line in fields.get("BENCH", "").splitlines() if line.strip()]
    return HeaderMetadata(
        layout="judis",
        title=f"{petitioner} v. {respondent}" if len(parties) == 2 else None,
        parties=parties if len(parties) == 2 else (),
        court="Supreme Court of India",
        decision_date=parse_date(fields.get("DATE OF JUDGMENT", "").strip().split("\n")[0]),
        judges=_bench_names(bench_lines) if bench_lines else (),
        citations=own_citations.within(*spans["CITATION"]) if "CITATION" in spans else (),
    )


def _court_preamble(head: str) -> HeaderMetadata | None:
    court = _COURT_LINE.search(head[:600])
    if court is None:
        return None
    name = court.group(1).title().replace(" Of ", " of ").replace(" And ", " and ")
    date_match = _HC_DATE.search(head)
    date = parse_date(" ".join(date_match.groups())) if date_match else None
    judges = tuple(dict.fromkeys(re.sub(r"\s+", " ", m.group(1)).strip() for m in _HC_JUDGE.finditer(head)))
    return HeaderMetadata(layout="court_preamble", court=name, decision_date=date, judges=judges)


def extract_metadata(text: str, citations: Sequence[Citation] | None = None) -> HeaderMetadata:
    """Recognise the header layout of ``text`` and read it; an empty HeaderMetadata when none is known.

    ``citations`` are the citations found in ``text`` when the caller has scanned it already (the loader
    has, see :attr:`Judgment.text_citations`); without them the header is scanned here when it lists any.
    """
    head = text[:_HEAD_CHARS]
    lines = text.split("\n", _HEAD_LINES)[:_HEAD_LINES]  # whole lines: an AILA case number can run 5k chars
    own = _OwnCitations(text, citations, max(len(head), sum(len(line) + 1 for line in lines)))
    for found in (_aila(lines), _irled(lines, own), _judis(head, own), _court_preamble(head)):
        if found is not None:
            return found
    return HeaderMetadata()


def apply_metadata(judgment: Judgment, metadata: HeaderMetadata) -> Judgment:
    """Copy header fields into ``judgment`` where it has none yet: fields the source gave explicitly win."""
    changes: dict[str, object] = {}
    for name in ("title", "parties", "court", "judges", "decision_date", "case_number", "citations", "status"):
        value = getattr(metadata, name)
        if value and not getattr(judgment, name):
            changes[name] = value
    extra = dict(judgment.extra)
    if metadata.layout and "header_layout" not in extra:
        extra["header_layout"] = metadata.layout
    if metadata.author and "author" not in extra:
        extra["author"] = metadata.author
    return dataclasses.replace(judgment, extra=extra, **changes)  # type: ignore[arg-type]
