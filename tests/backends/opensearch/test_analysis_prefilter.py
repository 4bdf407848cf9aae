"""The char filters' first-character tests change no token (docs/benchmarks.md, "The char filters' first character").

Four char filters of ``analyzers/legal_en.json`` open with a lookbehind (no letter, digit, mark or ``_`` before the
match), which Java's regex tried at every position of every text field the node indexes: a judgment's text twice
(``text``, ``text.exact``) and again in its chunks. Each now opens with a lookahead for the first characters its
match can have, so the lookbehind runs only there. A zero-width test that every match passes matches the same by
construction; this test checks it on the node, against the same filters without their lookahead, token for token
(term, offsets, position) on the samples and on text built to sit on each filter's edges.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from opensearchpy import OpenSearch

import analyzers

SAMPLES = Path(__file__).resolve().parents[3] / "samples"
PREFILTER = re.compile(r"^(\(\?i\))?\(\?=\[[^\]]+\]\)|^\(\?=[A-Z]\)")  # "(?=[...])" or "(?=A)", after any "(?i)"
EDGES = [
    "Section 302 IPC, sections 34 and 149, SECTION 120B, Sec. 5, secs 7, S. 8, ss. 9, U/S 420, u/s. 498A, § 1983",
    "xSection 3, éSec. 4, 1s. 5, _ss. 6, a\u0301Section 7, §§ 8, Ṡection 9, ſection 10, Ｓection 11",
    "Article 21, ARTICLES 14, Art. 19(1)(g), arts. 32, xArticle 5, ÀArt. 6, Ａrticle 7, ART. 226",
    "AIR 1973 SC 1461, A.I.R. 1950 S.C. 27, A I R 1960 Cal 5, XAIR 1973 SC 1, ÁIR 1973 SC 2, air 1973 sc 3",
    "2006 Indlaw SC 125, 12006 Indlaw SC 1, x2006 Indlaw SC 2, ٢٠٠٦ Indlaw SC 3, 2006 Indlaw sc 4",
    "(2017) 10 SCC 1, [1950] SCR 88, [1950] 2 SCR 9, (2017)10 S.C.C. 1x",
]


def _without_prefilter(pattern: str) -> str:
    match = PREFILTER.match(pattern)
    return (match.group(1) or "") + pattern[match.end():] if match else pattern


@pytest.fixture(scope="module")
def index(client: OpenSearch) -> Iterator[str]:
    """Ratio's English analysis, plus each analyzer again under ``_plain`` with the lookaheads taken out."""
    analysis = analyzers.analysis_settings("en")
    filters = analysis["char_filter"]
    changed = [name for name, f in filters.items() if f.get("type") == "pattern_replace"
               and _without_prefilter(f["pattern"]) != f["pattern"]]
    assert sorted(changed) == ["ratio_article", "ratio_citation_air", "ratio_citation_indlaw", "ratio_section"]
    plain_filters = {f"{name}_plain": {**filters[name], "pattern": _without_prefilter(filters[name]["pattern"])}
                     for name in changed}
    plain_analyzers = {
        f"{name}_plain": {**a, "char_filter": [f"{c}_plain" if c in changed else c for c in a["char_filter"]]}
        for name, a in analysis["analyzer"].items() if name in ("ratio_text", "ratio_exact")}
    settings = {"analysis": {**analysis, "char_filter": {**filters, **plain_filters},
                             "analyzer": {**analysis["analyzer"], **plain_analyzers}},
                "number_of_replicas": 0, "analyze": {"max_token_count": 200_000}}
    name = f"ratio-test-{uuid.uuid4().hex[:10]}-prefilter"
    client.indices.create(index=name, body={"settings": {"index": settings}})
    yield name
    client.indices.delete(index=name, ignore_unavailable=True)


def _tokens(client: OpenSearch, index: str, analyzer: str, text: str) -> list[tuple[str, int, int, int]]:
    found = client.indices.analyze(index=index, body={"analyzer": analyzer, "text": text})["tokens"]
    return [(t["token"], t["start_offset"], t["end_offset"], t["position"]) for t in found]


def test_the_lookaheads_change_no_token(client: OpenSearch, index: str) -> None:
    texts = EDGES + [p.read_text(encoding="utf-8") for p in sorted(SAMPLES.glob("aila-2019/*/*.txt"))]
    assert len(texts) > len(EDGES) + 5
    specials = 0
    for text in texts:
        for analyzer in ("ratio_text", "ratio_exact"):
            tokens = _tokens(client, index, analyzer, text)
            assert tokens == _tokens(client, index, f"{analyzer}_plain", text), (analyzer, text[:80])
            specials += sum(t[0].startswith(("section_", "article_", "air_", "indlaw_")) for t in tokens)
    assert specials > 40  # the filters fired: the comparison is of texts they rewrite
