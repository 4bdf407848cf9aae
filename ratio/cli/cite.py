"""``ratio cite-check``: are the judgments and provisions a brief cites in the corpus?

Exit status, so a script or a pre-submit hook can act on it (like ``grep`` and ``diff``):

* 0: every citation was found in the corpus (or the text cites nothing);
* 1: at least one citation is unknown or ambiguous;
* 2: the check could not run: bad input (missing, empty, binary, too large, not UTF-8) or no cluster.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import click
from opensearchpy.exceptions import OpenSearchException
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ratio.cli.common import Context
from ratio.cli.errors import as_ratio_error
from ratio.cli.options import json_option
from search.graph.citecheck import MAX_TEXT_BYTES, CitationCheck, CitationReport, CitationTextError, check_citations
from search.graph.citecheck_lookup import CitationLookupError

STATUS_STYLE = {"found": "green", "ambiguous": "yellow", "unknown": "bold red"}
SHOWN_MATCHES = 3


class CheckFailed(click.ClickException):
    """The check could not run; exit status 2, apart from 1 (something unknown or ambiguous)."""

    exit_code = 2


def _read(source: str) -> tuple[str, bytes]:
    """The input's name for messages and at most one byte over the limit (so a huge file is not read whole)."""
    if source == "-":
        return "stdin", sys.stdin.buffer.read(MAX_TEXT_BYTES + 1)
    try:
        with Path(source).open("rb") as handle:
            return source, handle.read(MAX_TEXT_BYTES + 1)
    except OSError as exc:
        raise CheckFailed(f"{source}: cannot read it: {exc.strerror or exc}") from exc


def _same(a: str, b: str) -> bool:
    return re.sub(r"\W", "", a.lower()) == re.sub(r"\W", "", b.lower())


def _corpus(check: CitationCheck) -> str:
    lines = [f"{m.title or m.judgment_id or m.provision_id}\n{m.link}" for m in check.matches[:SHOWN_MATCHES]]
    more = len(check.matches) - SHOWN_MATCHES
    if more > 0:
        lines.append(f"+{more} more")
    return escape("\n".join(lines)) or "-"


def _table(report: CitationReport) -> Table:
    table = Table("status", "kind", "as written", "in the corpus", "why", show_lines=True,
                  title=f"citations in the text ({report.characters:,} characters)")
    table.columns[3].overflow = "fold"
    for check in report.checks:
        style = STATUS_STYLE[check.status]
        written = escape(check.text)
        if not _same(check.canonical, check.text):
            written += f"\n[dim]{escape(check.canonical)}[/dim]"
        if len(check.occurrences) > 1:
            written += f"\n[dim]({len(check.occurrences)} times)[/dim]"
        table.add_row(f"[{style}]{check.status}[/{style}]", check.kind.replace("_", " "), written,
                      _corpus(check), escape(check.reason))
    return table


def summary_line(report: CitationReport) -> str:
    """``12 citations: 1 found, 2 ambiguous, 9 unknown`` (or that the text cites nothing)."""
    if not report.checks:
        return "no citations found in the text"
    total = len(report.checks)
    return (f"{total} citation{'s' if total != 1 else ''}: {report.found} found, {report.ambiguous} ambiguous, "
            f"{report.unknown} unknown")


@click.command("cite-check")
@click.argument("source", default="-", metavar="[FILE|-]")
@json_option(help="Print the report as JSON.")
@click.pass_obj
def cite_check_command(ctx: Context, source: str, as_json: bool) -> None:
    """Check the citations in a brief or draft (FILE, or stdin with '-') against the corpus.

    Each distinct judgment citation, case name and provision is found (with its link), ambiguous (the
    candidates are listed) or unknown (with what the corpus does hold). Exit status: 0 all found, 1 some
    unknown or ambiguous, 2 the check could not run.
    """
    name, data = _read(source)
    try:
        client = ctx.client()
        report = check_citations(client, ctx.aliases(), data)
    except CitationTextError as exc:
        raise CheckFailed(f"{name}: {exc}") from exc
    except click.ClickException as exc:
        raise CheckFailed(exc.message) from exc
    except (CitationLookupError, OpenSearchException) as exc:
        said = as_ratio_error(exc)  # a missing index, a node that is down: said in words, not as a repr
        raise CheckFailed(f"the corpus could not be searched: {said.message if said else exc}") from exc
    if as_json:
        click.echo(json.dumps(report.as_dict(), indent=2))
    else:
        if report.checks:
            Console().print(_table(report))
        click.echo(summary_line(report))
    if not report.ok:
        raise SystemExit(1)
