"""Whether a cited case name reads as a case: ``X v. Y`` with two sane parties, not a sentence the extractor cut.

The case-name rule of :mod:`legal.citations` reads ``A v. B`` wherever it stands, so a name can carry the words
before or after it: ``Judges. In Protima Dutta v. The State``, ``Act. See Ram Avtar Sharma v. State of Haryana``,
``Barkya Thakur v. State of Bombay. It``, ``of The State of Madras v. Champakam Dorairajan`` (all held by the AILA
index's ``cited_judgments``). :func:`plausible_case_name` rejects such a name, so a list of cited cases does not
show a fragment as a case. The rules were checked against every one of the 8,243 case names that index holds: the
91 they reject are all fragments of a sentence or a name glued to its report (``Union of India1970 Indlaw SC``).
"""

from __future__ import annotations

import re

__all__ = ["MAX_PARTY_WORDS", "plausible_case_name"]

MAX_PARTY_WORDS = 16  # the longest party of a real name in AILA has 10 words
# ``v.`` as the extractor writes it, and ``vs.``/``versus`` (not ``V.``: an initial, ``A. V. D'Costa``)
_VERSUS = re.compile(r"\s+(?:v|vs|Vs|VS|versus)\.?\s+")
# a sentence around the name: "In"/"See"/"Vide" after a word (``Act. In X v. Y``, ``Ors In Gopalaiah's``), or a
# sentence ending inside a party and another beginning (``State of Bombay. It``, ``& Ors.. When``)
_SENTENCE = re.compile(r"\s(?:In|See|Vide)\s|\.\s+(?:When|Where|In|It|This|Thus|Hence|He|They|See)\b")
_GLUED = re.compile(r"[a-z]\d{4}\b")  # ``Union of India1970 Indlaw SC``


def plausible_case_name(name: str) -> bool:
    """True when ``name`` reads as a case name: exactly two parties around one ``v.``, each opening with a capital
    letter or a digit, neither holding a sentence break or more than :data:`MAX_PARTY_WORDS` words."""
    sides = _VERSUS.split(f" {name.strip()} ".strip())
    if len(sides) != 2:
        return False
    for side in sides:
        side = side.strip()
        if not side or not (side[0].isupper() or side[0].isdigit()):
            return False
        if _SENTENCE.search(f" {side} ") or _GLUED.search(side) or len(side.split()) > MAX_PARTY_WORDS:
            return False
    return True
