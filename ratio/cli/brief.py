"""``ratio search --document FILE``: a brief (a .txt or .pdf file) as the query, read whole.

The file is read with the loaders' checks (:mod:`ratio.briefs`), ranked by the document path
(``Client.search_by_document``, what ``POST /api/v1/search/document`` runs), and shown as a table of judgments with the
parts of the brief each matched. ``--json`` prints the API's shape (:class:`ratio.results.BriefPage`).
A file that cannot be read is a ``QueryError``, which the CLI says in one line (:mod:`ratio.cli.errors`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import click
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ratio.briefs import read_brief_file
from ratio.results import BriefPage

if TYPE_CHECKING:
    from ratio.client import Client

__all__ = ["document_search", "print_brief_result"]

PART_TITLES = {"provisions": "provisions", "precedents": "precedents", "cited_by_brief": "cited by the brief",
               "contexts": "citation contexts", "facts": "facts", "issues": "issues", "passages": "passages"}


def document_search(client: Client, path: str, *, size: int, courts: Sequence[str], date_from: str | None,
                    date_to: str | None, exclude: str | None) -> BriefPage:
    """The brief in ``path`` searched with (the API's answer for it)."""
    text = read_brief_file(path)
    return client.search_by_document(text, size, courts=courts, date_from=date_from, date_to=date_to, exclude=exclude,
                               source="pdf" if path.lower().endswith(".pdf") else "txt")


def _parts(result: BriefPage, rank: int) -> str:
    hit = result.hits[rank]
    lines = []
    for part in hit.matched:
        effect = ""
        if part.contribution is not None and part.contribution != 0:
            effect = " (raised the ranking)" if part.contribution > 0 else " (lowered the ranking)"
        shown = part.items[0] if part.items else ""
        words = f" [{', '.join(part.words[:6])}]" if part.words else ""
        lines.append(f"[bold]{PART_TITLES.get(part.kind, part.kind)}[/bold]{escape(effect + words)}: "
                     f"{escape(shown[:160])}")
    return "\n".join(lines) or "[dim]no part of the brief in particular (placed by meaning and citations)[/dim]"


def print_brief_result(path: str, result: BriefPage, as_json: bool) -> None:
    if as_json:  # the API's shape: what POST /api/v1/search/document answers for the same brief
        click.echo(result.model_dump_json(indent=2))
        return
    if not result.hits:
        click.echo(f"No judgment matches the brief {path!r}.")
        return
    title = (f"{result.judgments_found} judgments ranked for the brief {path} ({result.brief.words:,} words; "
             f"{result.ranking}, {result.took_ms:.0f} ms)")
    table = Table("#", "score", "judgment", "parts of the brief that matched", title=escape(title), show_lines=True)
    for rank, hit in enumerate(result.hits):
        judgment = f"{hit.title or hit.judgment_id}\n{hit.court or ''} {hit.decision_date or ''}\n[{hit.judgment_id}]"
        table.add_row(str(rank + 1), f"{hit.score:.3f}", escape(judgment), _parts(result, rank))
    Console().print(table)
    if result.ranking_note:
        click.echo(f"note: {result.ranking_note}")
