"""Judgments as HTML pages (``.html``, ``.htm``), reduced to their visible text; a page that holds a bare Act
becomes one provision per section (:mod:`indexer.loaders.act`).

Parser: BeautifulSoup with the standard library's ``html.parser``. It is the most widely used, well kept
HTML library in Python, tolerates the broken markup court websites publish, detects the encoding from
a BOM or ``<meta charset>``, and with ``html.parser`` needs no compiled extension. lxml or selectolax
are faster, but loading is not the bottleneck of indexing (encoding is).

Block elements (``p``, ``div``, ``li``, headings, table rows, ``br``) become line breaks so that the
sentence splitter sees paragraph ends; inline elements (``b``, ``i``, ``a``, ``span``) do not, so a
sentence with a bold word stays one sentence. Whitespace inside a block is collapsed as a browser
would, except in ``pre``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from indexer.document import Judgment, LoadError, Provision, judgment_id_for
from indexer.loaders._common import LoadOptions, build_judgment, read_bounded
from indexer.loaders.act import act_items

__all__ = ["html_to_text", "load_html"]

_PARAGRAPHS = frozenset({"p", "h1", "h2", "h3", "h4", "h5", "h6"})
_BLOCKS = _PARAGRAPHS | {
    *("address", "article", "aside", "blockquote", "body", "center", "dd", "div", "dl", "dt", "figcaption"),
    *("figure", "footer", "form", "header", "hr", "li", "main", "nav", "ol", "pre", "section", "table"),
    *("tbody", "td", "tfoot", "th", "thead", "tr", "ul"),
}
_SKIP = frozenset({"script", "style", "noscript", "template", "head", "iframe", "object", "svg"})
_SPACES = re.compile(r"[ \t\r\f\v\n]+")
_BLANK_LINES = re.compile(r"\n[ \t]*(?:\n[ \t]*)+")


def html_to_text(markup: bytes | str) -> tuple[str, str | None]:
    """The visible text of an HTML page, and its ``<title>`` if it has one."""
    from bs4 import BeautifulSoup, Comment, Declaration, Doctype, NavigableString, ProcessingInstruction, Tag

    soup = BeautifulSoup(markup, "html.parser")
    title_tag = soup.find("title")
    title = _SPACES.sub(" ", title_tag.get_text()).strip() if title_tag else None
    parts: list[str] = []
    # Walked with a stack rather than by recursion: a page nested 100,000 tags deep is read like any other.
    # Each entry is the children still to visit, whether they are inside <pre>, and what to add after them.
    stack: list[tuple[Iterator[object], bool, str]] = [(iter(soup.children), False, "")]
    while stack:
        children, in_pre, after = stack[-1]
        child = next(children, None)
        if child is None:
            stack.pop()
            parts.append(after)
            continue
        if isinstance(child, (Comment, Doctype, Declaration, ProcessingInstruction)):  # not visible text
            continue
        if isinstance(child, NavigableString):
            parts.append(str(child) if in_pre else _SPACES.sub(" ", str(child)))
        elif isinstance(child, Tag) and child.name not in _SKIP:
            if child.name == "br":
                parts.append("\n")
                continue
            block = child.name in _BLOCKS
            if block:
                parts.append("\n\n" if child.name in _PARAGRAPHS else "\n")
            stack.append((iter(child.children), in_pre or child.name == "pre", "\n" if block else ""))

    lines = [line.strip() for line in "".join(parts).split("\n")]
    text = _BLANK_LINES.sub("\n\n", "\n".join(lines)).strip()
    return text, title or None


def load_html(path: Path, options: LoadOptions) -> Iterator[Judgment | Provision | LoadError]:
    """Yield the judgment in one HTML file (or each section of a bare Act), or one LoadError."""
    data = read_bounded(path, options)
    if isinstance(data, LoadError):
        yield data
        return
    if not data.strip():
        yield LoadError(str(path), "empty file")
        return
    nul = data.find(b"\x00")
    if nul >= 0:
        yield LoadError(str(path), f"binary file (a NUL byte at byte {nul}), not HTML")
        return
    text, title = html_to_text(data)
    if not text:
        yield LoadError(str(path), "HTML page has no visible text")
        return
    sections = act_items(text, path, options, where="line of its text")
    if sections is not None:
        yield from sections
        return
    yield build_judgment(
        judgment_id_for(path, prefix=options.id_prefix),
        text,
        "html",
        options,
        source_path=str(path),
        fields={"title": title} if title else None,
    )
