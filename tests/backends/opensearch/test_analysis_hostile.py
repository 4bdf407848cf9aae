"""Hostile Unicode through every Ratio analyzer on the real node: each ``_analyze`` call stays fast (issue 29, row 2).

The char filters of ``analyzers/legal_en.json`` once anchored their patterns with ``\\b``. Java's ``\\b`` at a
position holding a non-spacing mark looks back over the whole run of marks for its base character, so every
start position cost the length of the run: ``a`` and 6,000 combining acutes kept a search busy for 15 s, 20,000
took about 20 s per analyzer. The filters now use one-character lookarounds, linear in the input. This test sends
runs of marks, long CJK runs, right-to-left text, zero-width characters and seeded mixes of them to each analyzer of
each language, bounds each call's time, and checks that :func:`search.query.bounds.positions` never counts fewer token
positions than the node makes (the estimate that keeps a query under the engine's clause limit).
"""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Iterator

import pytest
from opensearchpy import OpenSearch

import analyzers
from search.query.bounds import positions

SECONDS_PER_CALL = 2.0  # the old filters took about 20 s on the first input; the new ones a few milliseconds
LANGUAGES = ("en", "cjk")
WORD_ANALYZERS = ("ratio_text_search", "ratio_exact")  # what a query's words are matched with

MARKS = "".join(chr(c) for c in range(0x0300, 0x0370))  # the combining diacritical marks block
PIECES = [  # what the seeded mixes are made of
    "s. 302 IPC ", "Section 304B ", "Art. 21 ", "(2017) 10 SCC 1 ", "AIR 1973 SC 1461 ", "2006 Indlaw SC 125 ",
    "[1950] SCR 88 ", "u/s 498A ", "§ 1983 ", "A.I.R. ", "(2017) ", "sections ", "判决书", "판결", "はんけつ",
    "\u202eשלום עולם\u202c ", "مرحبا بالعالم ", "\u200f", "\u200e", "\u200b", "\u200c", "\u200d", "\ufeff", "\u2060",
    "\u0301" * 50, MARKS, "\u094d" * 30, "\u05b0" * 30, "क्\u200dष", "😀", "👩\u200d👩\u200d👧", "🇮🇳", " ", "\n", "-",
]


def _mix(seed: int, length: int = 20_000) -> str:
    rng = random.Random(seed)
    out: list[str] = []
    while sum(map(len, out)) < length:
        out.append(rng.choice(PIECES))
    return "".join(out)[:length]


HOSTILE = {
    "letter then 20,000 acutes": "a" + "\u0301" * 20_000,
    "ideograph then 20,000 acutes": "判" + "\u0301" * 20_000,
    "section then 20,000 marks": "Section 302" + (MARKS * 200)[:20_000],
    "space then 20,000 acutes": "s. " + "\u0301" * 20_000,
    "marked letters": "s\u0301" * 10_000,
    "marks between citations": ("(2017) 10 SCC 1" + "\u0301" * 500) * 40,
    "20,000 CJK characters": "判" * 20_000,
    "mixed CJK scripts": ("判决书판결はんけつ" * 2_000)[:20_000],
    "right-to-left overrides": ("\u202e" + "שלום עולם section 302 " + "\u202c\u200f") * 700,
    "arabic with marks": ("مَرْحَبًا " * 2_000),
    "zero-width between every character": "\u200b".join("Section 302 IPC Art. 21 " * 800),
    "zero-width runs": "Art." + "\u200b\u200c\u200d\u2060\ufeff" * 4_000 + "21",
    "repeated citation heads": "(2017) 10 " * 2_000 + "AIR 1973 " * 1_000 + "[1950] " * 1_000,
    "repeated section heads": "s. " * 4_000 + "sections " * 1_000,
    **{f"seeded mix {seed}": _mix(seed) for seed in range(4)},
}


@pytest.fixture(scope="module")
def indices(client: OpenSearch) -> Iterator[dict[str, str]]:
    """One empty index per analysis language, with Ratio's analysis settings as the indices get them."""
    names = {language: f"ratio-test-{uuid.uuid4().hex[:10]}-analysis-{language}" for language in LANGUAGES}
    for language, name in names.items():
        settings = {"analysis": analyzers.analysis_settings(language), "number_of_replicas": 0,
                    "analyze": {"max_token_count": 100_000}}
        client.indices.create(index=name, body={"settings": {"index": settings}})
    yield names
    client.indices.delete(index=",".join(names.values()), ignore_unavailable=True)


def _analyze(client: OpenSearch, index: str, analyzer: str, text: str) -> tuple[list[dict], float]:
    started = time.perf_counter()
    tokens = client.indices.analyze(index=index, body={"analyzer": analyzer, "text": text},
                                    params={"request_timeout": 120})["tokens"]
    return tokens, time.perf_counter() - started


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("name", list(HOSTILE))
def test_every_analyzer_reads_hostile_unicode_in_bounded_time(client: OpenSearch, indices: dict[str, str],
                                                              language: str, name: str) -> None:
    text = HOSTILE[name]
    for analyzer in analyzers.ANALYZER_NAMES:
        tokens, took = _analyze(client, indices[language], analyzer, text)
        assert took < SECONDS_PER_CALL, f"{analyzer} ({language}) took {took:.2f} s on {name}"
        if analyzer in WORD_ANALYZERS:
            made = max((t["position"] + t.get("positionLength", 1) for t in tokens), default=0)
            assert positions(text) >= made, f"{analyzer} ({language}) made {made} positions of {name}"


def test_the_linear_filters_keep_legal_tokens_whole_next_to_marks_and_zero_width(client: OpenSearch,
                                                                                indices: dict[str, str]) -> None:
    """The lookarounds read a neighbour as ``\\b`` did: a letter, digit or mark joins, anything else separates."""
    cases = {
        "Section 302\u200b IPC": ["section_302", "ipc"],
        "\u200bArt. 21": ["article_21"],
        "\u202es. 302 IPC \u202c": ["section_302", "ipc"],
        "AIR 1973 SC 1461.": ["air_1973_sc_1461"],
        "2006 Indlaw SC 125,": ["indlaw_2006_sc_125"],
        "Section 302\u0301": ["section", "302\u0301"],  # a mark on the number: no longer the bare section
        "XAIR 1973 SC 1461": ["xair", "1973", "sc", "1461"],
        "(2017) 10 SCC 1x": ["2017", "10", "scc", "1x"],
    }
    for text, expected in cases.items():
        tokens, _ = _analyze(client, indices["en"], "ratio_exact", text)
        assert [t["token"] for t in tokens] == expected, text
