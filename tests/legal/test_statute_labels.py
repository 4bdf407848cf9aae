"""Labelling a statute provision from its own title or opening words (legal.statutes)."""

from __future__ import annotations

import pytest

from legal.statutes import ProvisionLabel, display_label, label_provision


@pytest.mark.parametrize(("title", "text", "expected"), [
    ("Section 302 IPC: Punishment for murder", "Whoever commits murder", ProvisionLabel("IPC", "302", "IPC s. 302")),
    ("Article 21 of the Constitution: Protection of life", "No person shall be deprived",
     ProvisionLabel("Constitution", "21", "Constitution art. 21", "art.")),
    ("Punishment for murder", "Section 302 of the Indian Penal Code. Whoever commits murder",
     ProvisionLabel("IPC", "302", "IPC s. 302")),
    # AILA's titles name no section; a section named later in the title or text is another provision
    ("Punishment for murder", "Whoever commits murder shall be punished with death", None),
    ("Procedure where Court considers that case should not be dealt with under section 480 CrPC", "x", None),
    ("Power of High Courts to issue certain writs", "(1) Notwithstanding anything in Article 32 every High Court",
     None),
    ("ss. 302 and 34 IPC", "x", None),  # two provisions: not guessed
    (None, "", None),
])
def test_label_provision(title: str | None, text: str, expected: ProvisionLabel | None) -> None:
    assert label_provision(title, text) == expected


def test_display_label() -> None:
    murder = display_label("IPC", "302", "Punishment for murder", "S52", "IPC s. 302")
    assert murder == "IPC, section 302 — Punishment for murder"
    assert display_label("Constitution", "21", None, "S9", "Constitution art. 21") == "Constitution, article 21"
    assert display_label(None, None, "Punishment for murder", "S52") == "Punishment for murder"
    assert display_label(None, None, None, "S52") == "S52"
