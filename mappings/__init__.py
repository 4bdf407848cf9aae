"""Index bodies and search pipelines, kept as JSON data with ``${name}`` placeholders.

A string that is exactly ``"${name}"`` is replaced by the typed value (so ``"${dimension}"`` becomes the
integer 384); a placeholder inside a longer string is replaced textually. Unknown placeholders raise,
so a typo in a JSON file is caught by the first test that builds the body.

An index body may say ``"_document_fields": {"from": "chunks", "except": ["vector"]}``: its mappings then
also take the other kind's fields. The percolator index of saved searches uses it, because the documents it
percolates are chunks and every field a stored query names must be mapped the same way as in ``chunks``.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from functools import cache
from importlib import resources
from typing import Any

INDEX_KINDS: tuple[str, ...] = ("judgments", "chunks", "provisions", "saved_searches")
# The hybrid search pipelines by fusion method (``search.retrieval.fusion.FusionMethod`` values): one JSON file each
# under pipelines/, installed by backends.opensearch.indices and named in requests by search.execute.
HYBRID_PIPELINES: dict[str, str] = {"minmax": "ratio-hybrid-minmax", "rrf": "ratio-hybrid-rrf"}
PIPELINES: tuple[str, ...] = tuple(HYBRID_PIPELINES.values())
# The hybrid fusion's defaults, defined here, the lowest layer, because the installed pipelines record them; client-side
# fusion (search.retrieval.fusion.DEFAULT_WEIGHTS, DEFAULT_RANK_CONSTANT) reads them from here, so both paths fuse
# alike.
# Min-max weights in sub-query order, BM25 0.9 / k-NN 0.1: chosen on the odd half of the judged AILA 2019 precedent
# queries and confirmed on the even half (docs/evaluation.md); the former 0.7 / 0.3 gave the small general encoder
# too much say on long facts. RRF's rank constant is the usual 60.
HYBRID_WEIGHTS: tuple[float, float] = (0.9, 0.1)
RRF_RANK_CONSTANT = 60
# The bi-encoder whose vectors the indices hold by default (384-d, hence IndexOptions.dimension). Defined
# here, the lowest layer, because an index body records it; backends.encoders loads it under this name.
DEFAULT_ENCODER = "sentence-transformers/all-MiniLM-L6-v2"
SCHEMA_VERSION = 1
ENGINES: tuple[str, ...] = ("lucene", "faiss")
# How the vector fields store their vectors: ``none`` keeps float32 in the HNSW graph; ``sq`` is the lucene
# engine's built-in 7-bit scalar quantiser (the engine quantises at indexing; searches read 3.7 times less memory
# per vector and recall@10 fell from 0.996 to 0.81 on 100,000 static vectors: docs/benchmarks.md#quantisation).
QUANTISATIONS: tuple[str, ...] = ("none", "sq")

_PLACEHOLDER = re.compile(r"\$\{([a-z_0-9]+)\}")


@dataclass(frozen=True)
class IndexOptions:
    """What varies between deployments of the same index definitions."""

    dimension: int = 384
    engine: str = "lucene"
    encoder: str = DEFAULT_ENCODER
    shards: int = 1
    replicas: int = 0
    refresh_interval: str = "1s"
    hnsw_m: int = 16
    hnsw_ef_construction: int = 100
    quantisation: str = "none"

    def __post_init__(self) -> None:
        if self.dimension < 1 or self.dimension > 16000:
            raise ValueError(f"vector dimension must be in 1..16000, got {self.dimension}")
        if self.engine not in ENGINES:
            raise ValueError(f"k-NN engine must be one of {ENGINES}, got {self.engine!r}")
        if self.quantisation not in QUANTISATIONS:
            raise ValueError(f"vector quantisation must be one of {QUANTISATIONS}, got {self.quantisation!r}")
        if self.quantisation == "sq" and self.engine != "lucene":
            raise ValueError("the sq quantisation is the lucene engine's scalar quantiser: use --engine lucene")
        if self.shards < 1 or self.replicas < 0:
            raise ValueError("shards must be >= 1 and replicas >= 0")


@dataclass(frozen=True)
class PipelineOptions:
    """Fusion parameters of the hybrid search pipelines (weights in sub-query order: BM25, k-NN)."""

    bm25_weight: float = HYBRID_WEIGHTS[0]
    vector_weight: float = HYBRID_WEIGHTS[1]
    rank_constant: int = RRF_RANK_CONSTANT

    def __post_init__(self) -> None:
        if abs(self.bm25_weight + self.vector_weight - 1.0) > 1e-6:
            raise ValueError("hybrid weights must sum to 1")


def _read_json(name: str) -> dict[str, Any]:
    data = json.loads(resources.files(__name__).joinpath(name).read_text(encoding="utf-8"))
    data.pop("_comment", None)
    return data


@cache
def _template(name: str) -> str:
    return json.dumps(_read_json(name))


def fill(template: Any, values: dict[str, Any]) -> Any:
    """Replace ``${name}`` placeholders in a JSON-like structure with ``values``."""
    if isinstance(template, dict):
        return {k: fill(v, values) for k, v in template.items()}
    if isinstance(template, list):
        return [fill(v, values) for v in template]
    if isinstance(template, str):
        whole = _PLACEHOLDER.fullmatch(template)
        if whole:
            return _value(whole.group(1), values)
        return _PLACEHOLDER.sub(lambda m: str(_value(m.group(1), values)), template)
    return template


def _value(name: str, values: dict[str, Any]) -> Any:
    try:
        return values[name]
    except KeyError:
        raise KeyError(f"mapping placeholder ${{{name}}} has no value") from None


def vector_field(options: IndexOptions) -> dict[str, Any]:
    """The ``knn_vector`` field definition for ``options`` (with the quantiser in the HNSW method when asked)."""
    field = fill(json.loads(_template("vector_field.json")), asdict(options))
    if options.quantisation == "sq":
        field["method"]["parameters"]["encoder"] = {"name": "sq"}
    return field


def index_body(kind: str, options: IndexOptions | None = None) -> dict[str, Any]:
    """Settings and mappings for one index kind (no analysis block: the caller adds it)."""
    if kind not in INDEX_KINDS:
        raise ValueError(f"unknown index kind {kind!r}; choose one of {INDEX_KINDS}")
    options = options or IndexOptions()
    values = {**asdict(options), "schema_version": SCHEMA_VERSION, "vector_field": vector_field(options)}
    body = fill(json.loads(_template(f"{kind}.json")), values)
    inherited = _document_properties(body.pop("_document_fields", None), options)
    own = body["mappings"]["properties"]
    clash = sorted(set(own) & set(inherited))
    if clash:
        raise ValueError(f"index kind {kind!r} defines {clash} itself and also takes them from its documents")
    body["mappings"]["properties"] = {**inherited, **own}
    return body


def _document_properties(rule: dict[str, Any] | None, options: IndexOptions) -> dict[str, Any]:
    if rule is None:
        return {}
    props = index_body(rule["from"], options)["mappings"]["properties"]
    return {name: spec for name, spec in props.items() if name not in rule.get("except", ())}


def document_fields(kind: str) -> tuple[str, ...]:
    """The fields ``kind`` takes from the documents it percolates (empty for the ordinary kinds): what a
    percolated document may carry, so a caller can send exactly those and nothing the mapping would refuse."""
    if kind not in INDEX_KINDS:
        raise ValueError(f"unknown index kind {kind!r}; choose one of {INDEX_KINDS}")
    rule = _read_json(f"{kind}.json").get("_document_fields")
    return tuple(_document_properties(rule, IndexOptions()))


def pipeline_body(name: str, options: PipelineOptions | None = None) -> dict[str, Any]:
    """The search-pipeline body named ``name``."""
    if name not in PIPELINES:
        raise ValueError(f"unknown search pipeline {name!r}; choose one of {PIPELINES}")
    return fill(json.loads(_template(f"pipelines/{name}.json")), asdict(options or PipelineOptions()))
