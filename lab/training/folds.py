"""Cross-validation folds of the ranker's training queries: which queries a fold scores held out, and which it
leaves out of training so that nothing learnt from a held-out query's source judgment is judged on it.

Two kinds of query are scored held out: the labelled (tuning) queries, each its own unit as before, and, where
asked (``validate``), mined queries of chosen sources (``mined-facts``: a corpus judgment's facts with citations
stripped, relevant = the judgments it cites, AILA's construction exactly). A mined query's unit is its *source
judgment*: J's ``document``, ``facts`` and ``facts-anon`` queries and every typed query drawn from J (a ``topic``
query from J has J's citations as relevant, the same answer as J's facts query) share J, so in the fold that
scores J's facts query none of them is in training. The query ids say the source judgment:

* long mined queries: ``{corpus}:{style}:{jid}`` (:func:`lab.training.ranker_data.mine_queries`);
* typed mined queries: ``{corpus}:typed:{kind}-{n}:{key}`` (:func:`lab.training.ranker_build.typed_training`),
  ``key`` the judgment drawn from, or a provision for the ``provision`` kind (no source judgment: it stays in
  training). A dataset built before typed ids named their key (``{corpus}:typed:{kind}-{n}``) cannot tell: those
  queries stay in training in every fold and :attr:`Folds.unattributed` counts them, so a table can say so.

The folds depend on the scored dataset's query ids, sources and the seed only, never on what a variant trains on,
so every variant of one dataset is judged on the same folds. The labelled queries are dealt exactly as before
(shuffled with ``seed``), the validated judgments separately (shuffled with ``{seed}:validate``), so adding
validation leaves the labelled folds unchanged.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field

__all__ = ["Folds", "assign", "corpus_of", "source_judgment"]


def _base(qid: str) -> str:
    """A repeated query's copies (``qid#n``) are the query."""
    return qid.split("#", 1)[0]


def source_judgment(qid: str) -> str | None:
    """``{corpus}:{jid}`` of the judgment a mined query was drawn from; None for a labelled query (no ``:`` in its
    id), a provision query, or a typed query whose id does not name its key (an older dataset)."""
    parts = _base(qid).split(":", 3)
    if len(parts) < 3:
        return None
    corpus, style = parts[0], parts[1]
    if style != "typed":
        return f"{corpus}:{':'.join(parts[2:])}"
    if len(parts) < 4 or parts[2].rsplit("-", 1)[0] == "provision":
        return None
    return f"{corpus}:{parts[3]}"


def corpus_of(qid: str) -> str:
    """The index prefix a mined query ran on (its id's first part)."""
    return qid.split(":", 1)[0]


def _unattributed(qid: str) -> bool:
    """A typed query of an older dataset: drawn from some judgment, but its id does not say which."""
    parts = _base(qid).split(":")
    return len(parts) == 3 and parts[1] == "typed" and parts[2].rsplit("-", 1)[0] != "provision"


@dataclass(frozen=True)
class Folds:
    """Each labelled query's fold (by base id) and each validated source judgment's fold (``corpus:jid``)."""

    count: int
    validate: frozenset[str]
    labelled: Mapping[str, int] = field(default_factory=dict)
    judgments: Mapping[str, int] = field(default_factory=dict)
    unattributed: int = 0  # mined queries drawn from a judgment their id does not name (kept in training)

    def unit(self, qid: str) -> str:
        """What decides a query's fold: its base id when labelled, else its source judgment (its own id when it
        names none)."""
        base = _base(qid)
        return base if base in self.labelled else source_judgment(base) or base

    def scored(self, qid: str, source: str) -> int | None:
        """The fold that scores this query held out (never a copy ``qid#n``), or None."""
        if "#" in qid:
            return None
        if qid in self.labelled:
            return self.labelled[qid]
        return self.judgments.get(self.unit(qid)) if source in self.validate else None

    def left_out(self, qid: str) -> int | None:
        """The fold whose training leaves this query out (its own, or its source judgment's), or None."""
        base = _base(qid)
        if base in self.labelled:
            return self.labelled[base]
        return self.judgments.get(self.unit(base))


def assign(qids: Sequence[str], sources: Sequence[str], *, folds: int, seed: int, labelled: Callable[[str], bool],
           validate: Collection[str] = (), cap: int | None = None) -> Folds:
    """The folds of a dataset's queries: labelled ones dealt round-robin after a seeded shuffle (as always), then
    the source judgments of the ``validate`` sources' queries likewise; ``cap`` keeps at most that many validated
    judgments per corpus (seeded; the rest neither scored nor left out)."""
    bases = [_base(q) for q in qids]
    order = sorted({b for b, s in zip(bases, sources, strict=True) if labelled(s)})
    random.Random(seed).shuffle(order)
    by_query = {qid: i % folds for i, qid in enumerate(order)}
    units = sorted({source_judgment(b) or b for b, s in zip(bases, sources, strict=True)
                    if s in validate and not labelled(s)})
    random.Random(f"{seed}:validate").shuffle(units)
    if cap is not None:
        taken: dict[str, int] = {}
        kept = []
        for unit in units:
            corpus = corpus_of(unit)
            if taken.get(corpus, 0) < cap:
                taken[corpus] = taken.get(corpus, 0) + 1
                kept.append(unit)
        units = kept
    unattributed = len({b for b, s in zip(bases, sources, strict=True) if not labelled(s) and _unattributed(b)})
    return Folds(folds, frozenset(validate), by_query, {u: i % folds for i, u in enumerate(units)}, unattributed)
