"""Which Act and section a statute provision is, read from its own title or opening words.

Sources such as AILA 2019 give a provision only an opaque id (``S52``), a title and a text. When the title (or
the first line of the text) names the provision itself (``Section 302 IPC: Punishment for murder``, ``Article
21 of the Constitution``), the indexer stores its Act, section and canonical citation, so judgments citing
``IPC s. 302`` link to it; the web pages read the same function for provisions indexed before this existed.
Only a citation the title or text *opens with* counts, and only when it names one provision: a title that
mentions another section (``... under section 480``), a text that opens ``(1) Notwithstanding anything in
Article 32``, or an opening that names several (``ss. 302 and 34 IPC``) is left unlabelled rather than
guessed, since a wrong label would link the wrong judgments. The AILA titles name no section, so those
provisions keep their title as their label.
"""

from __future__ import annotations

from dataclasses import dataclass

from legal.citations import extract_citations, parse_provision

__all__ = ["ProvisionLabel", "display_label", "label_provision"]

_OPENING = 200  # characters of the text read for a self-reference ("Section 302. Punishment for murder")
_UNITS = {"s.": "section", "art.": "article"}


@dataclass(frozen=True, slots=True)
class ProvisionLabel:
    """A provision's Act (canonical name), section or article number, and canonical citation."""

    act: str
    section: str
    citation: str
    unit: str = "s."


def _single(text: str) -> ProvisionLabel | None:
    """The one provision ``text`` opens with: a citation later in it (``... under section 480``, ``(1)
    Notwithstanding anything in Article 32 ...``) refers to another provision, not to this one."""
    text = text.strip()
    citations = extract_citations(text, kinds={"provision"})
    if not citations or citations[0].start != 0:
        return None
    found = {c.normalized for c in citations if c.start == 0}
    if len(found) != 1:
        return None
    citation = found.pop()
    parsed = parse_provision(citation)
    if parsed is None:
        return None
    return ProvisionLabel(parsed.act, parsed.section, citation, parsed.unit)


def label_provision(title: str | None, text: str) -> ProvisionLabel | None:
    """The provision's label from its title, else from the first line of its text; None when neither names
    exactly one provision."""
    if title:
        label = _single(title)
        if label is not None:
            return label
    first_line = text.strip().split("\n", 1)[0][:_OPENING]
    return _single(first_line) if first_line else None


def display_label(act: str | None, section: str | None, title: str | None, provision_id: str,
                  citation: str | None = None) -> str:
    """What a page shows for a provision: ``IPC, section 302 — Punishment for murder``; the title alone when
    the Act and section are unknown; the id only when there is nothing else."""
    unit = "section"
    if citation:
        parsed = parse_provision(citation)
        if parsed is not None:
            unit = _UNITS.get(parsed.unit, unit)
    head = f"{act}, {unit} {section}" if act and section else (act or "")
    if head and title:
        return f"{head} — {title}"
    return head or title or provision_id
