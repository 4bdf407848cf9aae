"""One home per default: the values several layers need are defined once and read everywhere else.

- A search option's default is :class:`search.query.options.SearchOptions`' field default
(``search.query.options.DEFAULTS``):
  ``ratio search``, the API's :class:`ratio.web.schemas.SearchParams`, :class:`search.query.request.SearchRequest` and
  the clients read it rather than spell it again, so the checks here are equalities with ``DEFAULTS``.
- A layout's ``{kind: alias}`` is :meth:`backends.opensearch.IndexLayout.aliases`; no product module rebuilds it.
- The hybrid fusion's weights and RRF constant are ``mappings.HYBRID_WEIGHTS`` and ``mappings.RRF_RANK_CONSTANT``:
  the installed pipelines are filled from them and client-side fusion reads them, so both paths fuse alike.
- The learned ranker's training choices are ``lab.training.selection.SHIPPED`` (the values its selection table
  justifies): the ranker's parameters and ``ratio train ranker``'s defaults agree with it.

No node is needed: these are checks on definitions.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import re
from importlib import resources
from pathlib import Path

import pytest

import mappings
from search.query.options import DEFAULTS, OPTION_NAMES, SearchOptions, merge_options
from search.query.request import SearchRequest
from search.retrieval.fusion import DEFAULT_RANK_CONSTANT, DEFAULT_WEIGHTS, FusionMethod, fuse

ROOT = Path(__file__).resolve().parents[1]
PRODUCT = ("mappings", "analyzers", "legal", "backends", "indexer", "search", "ratio", "scripts")


def test_the_defaults_are_the_options_field_defaults() -> None:
    assert SearchOptions() == DEFAULTS
    assert merge_options(None, {})[0] == DEFAULTS  # what ratio.Client.search and RemoteClient.search start from


def test_ratio_search_defaults_are_the_options() -> None:
    """The values ``ratio search`` passes when no option is given are the options' defaults."""
    from ratio.cli.search import search_command

    given = search_command.make_context("search", []).params
    named = {name: value for name, value in given.items() if name in OPTION_NAMES}
    assert {"ranking", "fusion", "sort", "size", "page", "rerank", "rerank_top", "explain", "explain_top", "expand",
            "provisions", "plain"} <= set(named), "the CLI lost a search option this test expects"
    assert SearchOptions(**named) == DEFAULTS
    for name, value in named.items():
        default = getattr(DEFAULTS, name)
        assert value == (tuple(default) if isinstance(value, tuple) else default), name


def test_the_api_defaults_are_the_options() -> None:
    from ratio.web.schemas import SearchParams

    assert SearchParams().options() == DEFAULTS
    names = {"court": "courts", "judge": "judges", "role": "roles", "mode": "role_mode"}
    for field, info in SearchParams.model_fields.items():
        option = names.get(field, field)
        if option in OPTION_NAMES and info.default_factory is None:
            assert info.default == getattr(DEFAULTS, option), field


def test_the_remote_client_sends_no_default() -> None:
    """The remote client leaves defaults out of a GET, and the API fills the same ones back in."""
    from ratio.remote import search_params

    assert search_params("murder", DEFAULTS) == {"q": "murder"}


def test_every_provisions_list_defaults_alike() -> None:
    """How many provisions the provisions box lists, and the most it may: ``search.query.options`` says, and the CLI,
    the API, both clients and the searcher read it."""
    from ratio.cli.read import provisions_command
    from ratio.client import Client
    from ratio.remote import RemoteClient
    from ratio.web.api import provisions
    from search.execute import Searcher
    from search.query.options import MAX_PROVISIONS, PROVISIONS_SIZE

    for function in (Client.provisions, RemoteClient.provisions, Searcher.provisions_for, provisions):
        assert inspect.signature(function).parameters["size"].default == PROVISIONS_SIZE, function.__qualname__
    size = next(p for p in provisions_command.params if p.name == "size")
    assert size.default == PROVISIONS_SIZE and size.type.max == MAX_PROVISIONS
    limits = inspect.signature(provisions).parameters["size"].annotation
    assert f"le={MAX_PROVISIONS}" in repr(limits) or "MAX_PROVISIONS" in str(limits)


def test_a_request_defaults_to_the_options() -> None:
    """``SearchRequest``'s fields and ``from_query``'s keywords default to the options' values (``role_mode`` is
    the request's resolved mode, not the option's None)."""
    fields = {f.name: f.default for f in dataclasses.fields(SearchRequest)}
    keywords = {name: p.default for name, p in inspect.signature(SearchRequest.from_query).parameters.items()}
    shared = (OPTION_NAMES & set(fields) & set(keywords)) - {"role_mode"}
    assert {"size", "page", "candidates", "fusion", "rerank_top", "explain_top", "ranking", "sort"} <= shared
    for name in shared:
        assert fields[name] == getattr(DEFAULTS, name), name
        assert keywords[name] == getattr(DEFAULTS, name), name
    plain, built = SearchRequest.from_query("dowry death"), SearchRequest.from_options("dowry death", DEFAULTS)
    assert plain == built


def test_no_module_builds_the_aliases_of_a_layout_again() -> None:
    """``IndexLayout.aliases()`` is the one place that maps every kind to its alias."""
    pattern = re.compile(r"alias\((\w+)\) for \1 in|f\"\{[\w.]*prefix\}-\{(\w+)\}\" for \2 in")
    home = ROOT / "backends" / "opensearch" / "indices.py"
    found = [f"{path.relative_to(ROOT)}:{number}"
             for package in PRODUCT for path in sorted((ROOT / package).rglob("*.py")) if path != home
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if pattern.search(line) and path.name != "rankings.py"]  # runs against older checkouts (its docstring)
    assert not found, f"use IndexLayout.aliases(): {found}"


def test_the_pipelines_fuse_with_the_code_defaults() -> None:
    minmax = mappings.pipeline_body("ratio-hybrid-minmax")["phase_results_processors"][0]["normalization-processor"]
    assert tuple(minmax["combination"]["parameters"]["weights"]) == DEFAULT_WEIGHTS == mappings.HYBRID_WEIGHTS
    rrf = mappings.pipeline_body("ratio-hybrid-rrf")["phase_results_processors"][0]["score-ranker-processor"]
    assert rrf["combination"]["rank_constant"] == DEFAULT_RANK_CONSTANT == mappings.RRF_RANK_CONSTANT
    options = mappings.PipelineOptions()
    assert (options.bm25_weight, options.vector_weight) == DEFAULT_WEIGHTS
    assert options.rank_constant == DEFAULT_RANK_CONSTANT


@pytest.mark.parametrize("name", mappings.PIPELINES)
def test_the_pipeline_files_hold_no_number_of_their_own(name: str) -> None:
    """The JSON holds placeholders only, so the values cannot drift from the code's."""
    text = resources.files(mappings).joinpath(f"pipelines/{name}.json").read_text(encoding="utf-8")
    processors = json.dumps(json.loads(text)["phase_results_processors"])
    numbers = re.findall(r"(?<![\w.$])-?\d+(?:\.\d+)?(?![\w.])", processors)
    assert not numbers, f"{name} spells {numbers}: take them from mappings.PipelineOptions"


def test_client_side_fusion_defaults_to_the_pipeline_weights() -> None:
    bm25, knn = [("a", 3.0), ("b", 2.0), ("c", 1.0)], [("c", 0.9), ("a", 0.5), ("d", 0.1)]
    weights = mappings.pipeline_body("ratio-hybrid-minmax")["phase_results_processors"][0][
        "normalization-processor"]["combination"]["parameters"]["weights"]
    assert fuse([bm25, knn]) == fuse([bm25, knn], FusionMethod.MINMAX, weights=weights)


def test_the_ranker_trains_with_the_selected_choices() -> None:
    from lab.training.ranker import RankerParams
    from lab.training.selection import SHIPPED
    from ratio.cli.train_ranker import train_ranker

    assert RankerParams().leaves == SHIPPED.leaves
    given = train_ranker.make_context("ranker", []).params
    assert given["tuning_repeat"] == SHIPPED.tuning_repeat
    assert (not given["no_mined"]) == SHIPPED.mined and (given["typed_per_kind"] > 0) == SHIPPED.typed
    assert tuple(given["drop"]) == SHIPPED.drop_groups
