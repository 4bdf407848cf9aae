"""Plain-text judgments (``.txt``, ``.txt.gz``), AILA statute files and bare Acts.

One file is one judgment. The source label follows the header layout that
:mod:`indexer.metadata` recognises (``aila-2019`` for AILA case files, ``fire2017-irled`` for IRLeD prior
cases), else ``text``. A file that starts ``Title:`` and has a ``Desc:`` line is an AILA 2019 statute
and becomes a :class:`~indexer.document.Provision` (``S12.txt`` → provision id ``S12``), with its Act,
section and citation when its title or text opens with one (:func:`legal.statutes.label_provision`). A bare
Act (its name in the header, numbered sections after it) becomes one provision per section
(:mod:`indexer.loaders.act`), with a LoadError naming the line wherever splitting failed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from indexer.document import Judgment, LoadError, Provision, judgment_id_for
from indexer.loaders._common import LoadOptions, build_judgment, decode_text, read_bounded
from indexer.loaders.act import act_items
from indexer.metadata import extract_metadata
from legal.statutes import label_provision

__all__ = ["load_text", "parse_statute", "text_source_label"]

_STATUTE = re.compile(r"\ATitle:[ \t]*(?P<title>[^\n]*)\n+Desc:[ \t]*(?P<desc>.*)\Z", re.DOTALL)
_LAYOUT_SOURCES = {"aila": "aila-2019", "irled": "fire2017-irled"}


def parse_statute(text: str, path: Path, options: LoadOptions) -> Provision | None:
    """An AILA ``Title: ... / Desc: ...`` statute, or None if ``text`` is not in that format."""
    match = _STATUTE.match(text.strip())
    if match is None:
        return None
    title, body = match.group("title").strip() or None, match.group("desc").strip()
    label = label_provision(title, body)  # None for AILA's own titles, which name no Act or section
    return Provision(
        provision_id=judgment_id_for(path, prefix=options.id_prefix),
        text=body,
        title=title,
        source=options.source or "aila-2019-statutes",
        act=label.act if label else None,
        section=label.section if label else None,
        citation=label.citation if label else None,
        source_path=str(path),
    )


def text_source_label(text: str) -> str:
    """The source label implied by the text's header layout (``text`` when none is recognised)."""
    return _LAYOUT_SOURCES.get(extract_metadata(text).layout or "", "text")


def load_text(path: Path, options: LoadOptions) -> Iterator[Judgment | Provision | LoadError]:
    """Yield the judgment (or statute, or each section of a bare Act) in one text file, or one LoadError."""
    data = read_bounded(path, options)
    if isinstance(data, LoadError):
        yield data
        return
    decoded = decode_text(data, str(path), options)
    if isinstance(decoded, LoadError):
        yield decoded
        return
    text, warnings = decoded
    statute = parse_statute(text, path, options)
    if statute is not None:
        yield statute
        return
    sections = act_items(text, path, options)
    if sections is not None:
        yield from sections
        return
    yield build_judgment(
        judgment_id_for(path, prefix=options.id_prefix),
        text,
        text_source_label(text),
        options,
        source_path=str(path),
        warnings=warnings,
    )
