"""What one query may ask of OpenSearch: a bounded number of token positions, and the engine's refusals as typed errors.

Why a bound on tokens, when the parser already bounds characters (:data:`search.query.syntax.MAX_CHARS`) and words
(:data:`search.query.syntax.MAX_TERMS`)? Because OpenSearch analyses the text itself, after our limits, and one typed
word
can become many tokens: a run of 1,030 Chinese characters is 1,030 tokens under the standard tokenizer (a bigram for
each pair under the CJK analyzer), ``a-b-c-...`` a token per part. Each token is a clause of one boolean query, and
past ``indices.query.bool.max_clause_count`` (1,024 by default) the node refuses the whole search
(``too_many_clauses``). A search-time synonym of several words (``IPC`` -> ``indian penal code``) makes the text a
token graph, which Lucene walks recursively to a fixed depth of 1,000 positions ("Exceeded maximum recursion level
during graph analysis": 500 x ``IPC`` is 1,500 positions). Both are counted here, as positions.

How. Asking the node (``_analyze``) before every search would cost a round trip and make the request depend on the
cluster; instead :func:`positions` estimates, in Python and erring high, what the engine will make of a text: every
CJK ideograph, kana or Hangul syllable one position, every other run of word characters one position per 255
UTF-16 units (the tokenizer's longest token), every symbol one (emoji are tokens), and a word that opens a synonym
of more words the positions that synonym adds (from ``analyzers/synonyms.txt``, the list the search analyzer uses).
:func:`bound_query` keeps the query's words and phrases in order until the limit, cuts the one that crosses it at
a token boundary and leaves out the rest, and says so in a note the page, the API and the CLI show. The limits are
constants, not the cluster's setting read at start-up: they are below both engine limits at their defaults (the
graph's is fixed in Lucene), measured on the AILA corpus. A cluster configured lower still answers with a typed
400 (:func:`search.query.rejection.rejection`).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Mapping
from functools import cache

import analyzers
from search.query.errors import QueryTooLongError
from search.query.syntax import AnyOf, Clauses, Node, Phrase, Term, positive_text

__all__ = ["MAX_POSITIONS", "MAX_TYPED_POSITIONS", "bound_query", "positions"]

# The positions a query may make: below Lucene's fixed recursion limit for token graphs (1,000 positions) and the
# cluster's default clause limit (1,024 leaf clauses in the whole query, ``indices.query.bool.max_clause_count``).
# A typed query is also looked up by title, on two fields (``title`` and ``title.name``) whose clauses count together,
# so it gets half. A pasted text (read as plain words) is not, and the parser's word limit keeps it near 1,000.
MAX_POSITIONS = 960
MAX_TYPED_POSITIONS = 450  # 480 passes on the AILA corpus, 520 does not; the room is for party-name aliases
MAX_TOKEN_CHARS = 255  # the standard tokenizer's max_token_length: a longer run is split into pieces this long

# Scripts the analyzers cut into one token per character (the standard tokenizer for ideographs and kana; the CJK
# analyzer's bigrams for Hangul too): counted one position each, whatever the analyzer.
_CJK = ("\u1100-\u11ff\u3005-\u3007\u3021-\u3029\u3040-\u30ff\u3100-\u312f\u3130-\u318f\u31a0-\u31ff"
        "\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\uff66-\uffdc"
        "\U0001b000-\U0001b16f\U00020000-\U0003ffff")
# A CJK character with the marks and other non-word characters after it (the tokenizer keeps marks and joiners on
# the character, and the CJK analyzer's bigrams then count each of them), a run of other word characters, or a
# character that is neither (a symbol, punctuation, a mark).
_TOKEN = re.compile(rf"(?P<cjk>[{_CJK}][^\w\s]*)|(?P<word>[^\W{_CJK}]+)|[^\w\s]")
# Punctuation the tokenizer keeps as an emoji token; every symbol (``So``: emoji, ``©``, ``♥``) is counted too.
_EMOJI_PUNCTUATION = frozenset("\u203c\u2049\u3030\u303d")


@cache
def _synonym_extras() -> Mapping[str, int]:
    """For a word that opens a search-time synonym, the positions the synonym graph adds at most: the longest
    alternative of its rule less the words of its own alternative (``ipc`` 2: ``indian penal code``)."""
    extras: dict[str, int] = {}
    for rule in analyzers.synonyms():
        alternatives = [a.split() for a in re.split(r"=>|,", rule) if a.strip()]
        longest = max(len(words) for words in alternatives)
        for words in alternatives:
            first = _TOKEN.match(words[0].lower())
            if first and longest > len(words):
                extras[first.group()] = max(extras.get(first.group(), 0), longest - len(words))
    return extras


def _costs(text: str) -> list[tuple[int, int, int, int]]:
    """Each token of ``text`` as (its start and end offsets, the positions it costs, the characters a position
    holds at least): a CJK character 1 and 1 for each non-word character after it; a word 1 per
    :data:`MAX_TOKEN_CHARS` UTF-16 units (the tokenizer's unit), plus what a synonym it opens adds; a symbol 1 (the
    tokenizer keeps emoji); other punctuation and marks nothing."""
    extras = _synonym_extras()
    costs = []
    for match in _TOKEN.finditer(text):
        run = match.group()
        if match.group("cjk"):
            cost, width = len(run), 1  # the character and each mark or joiner on it (punctuation too: erring high)
        elif match.group("word"):
            units = len(run) + sum(1 for ch in run if ord(ch) > 0xFFFF)
            cost, width = math.ceil(units / MAX_TOKEN_CHARS), MAX_TOKEN_CHARS // 2
            cost += extras.get(run.lower(), 0) if cost == 1 else 0
        elif unicodedata.category(run)[0] == "S" or run in _EMOJI_PUNCTUATION:
            cost, width = 1, 1
        else:
            continue
        costs.append((match.start(), match.end(), cost, width))
    return costs


def positions(text: str) -> int:
    """About how many token positions the search analyzers make of ``text`` (never fewer: see the module)."""
    return sum(cost for _, _, cost, _ in _costs(text))


def _cut(text: str, budget: int) -> tuple[str, int, bool]:
    """``text`` up to the last token that fits in ``budget`` positions (the part of a long one that does), the
    positions it keeps, and whether anything was left out."""
    used, end = 0, 0
    for start, token_end, cost, width in _costs(text):
        if used + cost > budget:
            if cost > 1 and budget > used:  # a long token (a word of thousands, an ideograph with marks): its head
                end, used = start + (budget - used) * width, budget
            return text[:end].strip(), used, True
        used, end = used + cost, token_end
    return text, used, False


class _Budget:
    """The positions left to a query being bounded; ``spent`` once a token did not fit, so what follows is left out
    too and the query keeps a prefix of its leaves, not a selection."""

    def __init__(self, left: int) -> None:
        self.left, self.spent = left, False


def _bound(node: Node, budget: _Budget) -> Node | None:
    """``node`` with its leaves kept in order while they fit in ``budget``, None when none does."""
    if isinstance(node, (Term, Phrase)):
        if budget.spent:
            return None
        text, used, cut = _cut(node.text, budget.left)
        budget.left -= used
        budget.spent = cut
        return type(node)(text) if text else None

    def kept(items: tuple[Node, ...]) -> tuple[Node, ...]:
        return tuple(b for b in (_bound(item, budget) for item in items) if b is not None)

    if isinstance(node, AnyOf):
        items = kept(node.items)
        return items[0] if len(items) == 1 else AnyOf(items) if items else None
    must, should, must_not = kept(node.must), kept(node.should), kept(node.must_not)
    return Clauses(must, should, must_not) if must or should or must_not else None


def _leaves_text(node: Node) -> str:
    if isinstance(node, (Term, Phrase)):
        return node.text
    items = node.items if isinstance(node, AnyOf) else node.must + node.should + node.must_not
    return " ".join(_leaves_text(item) for item in items)


def bound_query(node: Node | None, *, plain: bool = False, limit: int | None = None) -> tuple[Node | None, str | None]:
    """``node`` reduced to its first ``limit`` token positions (default: :data:`MAX_POSITIONS` for a text read as
    plain words, ``plain``, else :data:`MAX_TYPED_POSITIONS`), and a note saying what was left out (None when
    nothing was). Raises :class:`~search.query.errors.QueryTooLongError` when what fits holds nothing to search for
    (a long excluded word first)."""
    if node is None:
        return None, None
    limit = limit if limit is not None else MAX_POSITIONS if plain else MAX_TYPED_POSITIONS
    total = positions(_leaves_text(node))
    if total <= limit:
        return node, None
    bounded = _bound(node, _Budget(limit))
    if bounded is None or not positive_text(bounded):
        raise QueryTooLongError(f"the query makes about {total:,} search terms and the engine takes {limit:,}: "
                                "shorten it")
    kept = positive_text(bounded)
    tail = kept[-40:] if len(kept) > 40 else kept
    return bounded, (f"the query was shortened: it makes about {total:,} search terms and the engine takes "
                     f"{limit:,} at once, so it was searched up to \u201c\u2026{tail}\u201d and the rest was left out")
