"""The OpenSearch Dashboards saved objects: well-formed, self-consistent, true to the mappings, accepted by a node.

No Dashboards server runs here (no Docker engine), so the checks are what an import would trip over: each line a
saved object, each reference resolvable, the JSON-in-strings parseable, each aggregated field present in
``mappings/*.json`` with an aggregatable type; and every visualisation's aggregation, written as the OpenSearch
request Dashboards would send, is run on a real node against freshly created indices with a few documents.
The import command is checked against a small local HTTP server that records what it receives.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
from click.testing import CliRunner
from opensearchpy import OpenSearch

import mappings
from backends.opensearch import IndexLayout, create_indices
from ratio.cli import cli
from ratio.dashboards import VISUALISATIONS, saved_objects, to_ndjson
from tests.conftest import REPO

NDJSON = REPO / "docker" / "dashboards" / "ratio.ndjson"
AGGREGATABLE = {"keyword", "date", "date_nanos", "boolean", "ip", "long", "integer", "short", "byte", "double",
                "float", "half_float", "scaled_float", "unsigned_long"}
JSON_STRINGS = ("visState", "uiStateJSON", "panelsJSON", "optionsJSON")


def _objects() -> list[dict[str, Any]]:
    return [json.loads(line) for line in NDJSON.read_text(encoding="utf-8").splitlines()]


def _by_type(objects: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [obj for obj in objects if obj["type"] == kind]


def _pattern_kind(objects: list[dict[str, Any]], vis: dict[str, Any], prefix: str = "ratio") -> str:
    """The index kind (judgments, chunks) behind a visualisation, followed through its index-pattern reference."""
    (ref,) = [ref for ref in vis["references"] if ref["type"] == "index-pattern"]
    (pattern,) = [obj for obj in objects if obj["id"] == ref["id"]]
    return pattern["attributes"]["title"].removeprefix(f"{prefix}-")


def _mapping_field(kind: str, dotted: str) -> dict[str, Any]:
    """The mapping of ``dotted`` (``court``, ``title.raw``) in the index body Ratio creates for ``kind``."""
    properties = mappings.index_body(kind, mappings.IndexOptions())["mappings"]["properties"]
    head, *rest = dotted.split(".")
    field = properties[head]
    for part in rest:
        field = (field.get("properties") or field.get("fields") or {})[part]
    return field


# ------------------------------------------------------------------------------------------ the file itself


def test_committed_file_is_the_generator_output() -> None:
    assert NDJSON.read_text(encoding="utf-8") == to_ndjson(saved_objects()), (
        "docker/dashboards/ratio.ndjson is stale: ratio dashboards export --out docker/dashboards/ratio.ndjson")


def test_every_line_is_a_saved_object_with_a_unique_stable_id() -> None:
    objects = _objects()
    assert [obj["type"] for obj in objects] == ["index-pattern"] * 2 + ["visualization"] * len(VISUALISATIONS) + [
        "dashboard"]
    ids = [obj["id"] for obj in objects]
    assert len(set(ids)) == len(ids)
    assert "ratio-judgments-pattern" in ids and "ratio-chunks-pattern" in ids and "ratio-overview" in ids
    for obj in objects:
        assert obj["id"].startswith("ratio-") and obj["attributes"]["title"]
        assert set(obj["migrationVersion"]) == {obj["type"]}
    for pattern in _by_type(objects, "index-pattern"):
        assert pattern["attributes"]["timeFieldName"] == "decision_date"
        assert pattern["attributes"]["title"] in {"ratio-judgments", "ratio-chunks"}


def test_string_attributes_are_json() -> None:
    for obj in _objects():
        attributes = obj["attributes"]
        for key in JSON_STRINGS:
            if key in attributes:
                assert isinstance(attributes[key], str), f"{obj['id']}.{key} must be a JSON string"
                json.loads(attributes[key])
        if obj["type"] != "index-pattern":
            assert isinstance(json.loads(attributes["kibanaSavedObjectMeta"]["searchSourceJSON"]), dict)
        if obj["type"] == "visualization":
            assert json.loads(attributes["visState"])["title"] == attributes["title"]


def test_every_reference_resolves_inside_the_file() -> None:
    objects = _objects()
    known = {(obj["type"], obj["id"]) for obj in objects}
    for obj in objects:
        for ref in obj["references"]:
            assert (ref["type"], ref["id"]) in known, f"{obj['id']} refers to a missing {ref}"
        names = [ref["name"] for ref in obj["references"]]
        assert len(set(names)) == len(names)
    for vis in _by_type(objects, "visualization"):
        source = json.loads(vis["attributes"]["kibanaSavedObjectMeta"]["searchSourceJSON"])
        assert "index" not in source, "ids inside JSON strings break renaming on import: use indexRefName"
        assert source["indexRefName"] in {ref["name"] for ref in vis["references"]}


def test_the_dashboard_shows_every_visualisation_once_on_the_grid() -> None:
    objects = _objects()
    (dashboard,) = _by_type(objects, "dashboard")
    panels = json.loads(dashboard["attributes"]["panelsJSON"])
    refs = {ref["name"]: ref["id"] for ref in dashboard["references"]}
    shown = [refs[panel["panelRefName"]] for panel in panels]
    assert sorted(shown) == sorted(vis["id"] for vis in _by_type(objects, "visualization"))
    cells: set[tuple[int, int]] = set()
    for panel in panels:
        grid = panel["gridData"]
        assert grid["i"] == panel["panelIndex"] and grid["x"] >= 0 and grid["x"] + grid["w"] <= 48
        xs, ys = range(grid["x"], grid["x"] + grid["w"]), range(grid["y"], grid["y"] + grid["h"])
        area = {(x, y) for x in xs for y in ys}
        assert not cells & area, f"panel {panel['panelIndex']} overlaps another"
        cells |= area
    assert dashboard["attributes"]["timeRestore"] is True, "the default 15-minute window would show no judgments"


def test_aggregated_fields_exist_in_the_mappings_and_are_aggregatable() -> None:
    objects = _objects()
    for pattern in _by_type(objects, "index-pattern"):
        kind = pattern["attributes"]["title"].removeprefix("ratio-")
        assert _mapping_field(kind, pattern["attributes"]["timeFieldName"])["type"] == "date"
    checked = 0
    for vis in _by_type(objects, "visualization"):
        kind = _pattern_kind(objects, vis)
        for agg in json.loads(vis["attributes"]["visState"])["aggs"]:
            if "field" not in agg["params"]:
                assert agg["type"] == "count"
                continue
            field = _mapping_field(kind, agg["params"]["field"])
            assert field.get("type") in AGGREGATABLE, f"{vis['id']}: {agg['params']['field']} is {field.get('type')}"
            assert field.get("doc_values", True) and field.get("index", True)
            if agg["type"] == "date_histogram":
                assert field["type"] == "date"
            checked += 1
    assert checked >= len(VISUALISATIONS)


def test_a_prefix_renames_every_id_alias_and_title() -> None:
    objects = saved_objects("acme")
    text = to_ndjson(objects)
    assert "ratio-" not in text and "[ratio]" not in text
    assert {obj["attributes"]["title"] for obj in _by_type(objects, "index-pattern")} == {"acme-judgments",
                                                                                          "acme-chunks"}
    assert all(obj["id"].startswith("acme-") for obj in objects)
    with pytest.raises(ValueError, match="prefix"):
        saved_objects("Not A Prefix")


# ------------------------------------------------------------------------------------------ the CLI


def test_export_prints_or_writes_the_objects_for_a_prefix(tmp_path: Path) -> None:
    runner = CliRunner()
    printed = runner.invoke(cli, ["--prefix", "acme", "dashboards", "export"])
    assert printed.exit_code == 0, printed.output
    assert printed.output == to_ndjson(saved_objects("acme"))
    out = tmp_path / "sub" / "objects.ndjson"
    written = runner.invoke(cli, ["dashboards", "export", "--prefix", "beta", "--out", str(out)])
    assert written.exit_code == 0, written.output
    assert out.read_text(encoding="utf-8") == to_ndjson(saved_objects("beta"))
    refused = runner.invoke(cli, ["dashboards", "export", "--prefix", "UPPER"])
    assert refused.exit_code == 2 and "--prefix" in refused.output


class _Recorder(BaseHTTPRequestHandler):
    """Records each POST and answers with the class's ``reply``: a stand-in for Dashboards' import API."""

    requests: ClassVar[list[dict[str, Any]]] = []
    reply: ClassVar[dict[str, Any]] = {}

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
        payload = json.dumps(self.reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def fake_dashboards() -> Iterator[str]:
    _Recorder.requests = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_import_posts_the_ndjson_with_the_xsrf_header_and_overwrite(fake_dashboards: str) -> None:
    _Recorder.reply = {"success": True, "successCount": 9}
    result = CliRunner().invoke(cli, ["--user", "admin", "--password", "pw", "--prefix", "acme",
                                      "dashboards", "import", "--url", fake_dashboards + "/"])
    assert result.exit_code == 0, result.output
    assert f"imported 9 saved objects into {fake_dashboards}/" in result.output
    (request,) = _Recorder.requests
    assert request["path"] == "/api/saved_objects/_import?overwrite=true"
    assert request["headers"]["osd-xsrf"] == "true"
    assert request["headers"]["Authorization"].startswith("Basic ")
    assert request["headers"]["Content-Type"].startswith("multipart/form-data")
    assert b'name="file"; filename="ratio.ndjson"' in request["body"]
    assert to_ndjson(saved_objects("acme")).encode() in request["body"]


def test_import_fails_loudly_when_dashboards_refuses_an_object(fake_dashboards: str) -> None:
    _Recorder.reply = {"success": False, "successCount": 8, "errors": [
        {"id": "ratio-judges", "type": "visualization", "error": {"type": "missing_references"}}]}
    result = CliRunner().invoke(cli, ["dashboards", "import", "--url", fake_dashboards])
    assert result.exit_code == 1
    assert "visualization ratio-judges: missing_references" in result.output


def test_import_names_the_url_it_could_not_reach() -> None:
    result = CliRunner().invoke(cli, ["dashboards", "import", "--url", "http://127.0.0.1:9"])
    assert result.exit_code == 1 and "cannot reach OpenSearch Dashboards at http://127.0.0.1:9" in result.output


# ------------------------------------------------------------------------------------------ a real node

_INTERVALS = {"y": "1y", "q": "1q", "M": "1M", "w": "1w", "d": "1d"}


def _bucket(agg: dict[str, Any]) -> dict[str, Any]:
    """The OpenSearch aggregation Dashboards sends for one bucket agg of a visState (terms ordered by count)."""
    params = agg["params"]
    if agg["type"] == "terms":
        assert params["orderBy"] == "1", "ordered by the count metric"
        return {"terms": {"field": params["field"], "size": params["size"], "order": {"_count": params["order"]}}}
    if agg["type"] == "date_histogram":
        return {"date_histogram": {"field": params["field"], "calendar_interval": _INTERVALS[params["interval"]],
                                   "min_doc_count": params["min_doc_count"]}}
    raise AssertionError(f"no OpenSearch translation for bucket agg {agg['type']}: extend this test")


def _request(vis_state: dict[str, Any]) -> dict[str, Any]:
    """The search body of one visualisation: its buckets nested in order, its field metrics in the innermost."""
    buckets = [agg for agg in vis_state["aggs"] if agg["schema"] != "metric"]
    inner = {agg["id"]: {agg["type"]: {"field": agg["params"]["field"]}}
             for agg in vis_state["aggs"] if agg["schema"] == "metric" and agg["type"] != "count"}
    for agg in reversed(buckets):
        inner = {agg["id"]: {**_bucket(agg), **({"aggs": inner} if inner else {})}}
    time_filter = {"range": {"decision_date": {"gte": "now-100y", "lte": "now"}}}
    return {"size": 0, "query": {"bool": {"filter": [time_filter]}}, "aggs": inner}


JUDGMENTS = [
    {"judgment_id": "t:1", "court": "Supreme Court of India", "judges": ["R. F. Nariman", "Navin Sinha"],
     "decision_date": "2017-08-24", "year": 2017, "cited_judgments": ["t:0"],
     "cited_provisions": ["Constitution of India, Art. 21", "Indian Penal Code, 1860, s. 302"]},
    {"judgment_id": "t:2", "court": "High Court of Delhi", "judges": ["R. F. Nariman"],
     "decision_date": "2019-01-10", "year": 2019, "cited_judgments": ["t:0", "t:1"],
     "cited_provisions": ["Indian Penal Code, 1860, s. 302"]},
]
CHUNKS = [{"chunk_id": f"t:1:{n}", "judgment_id": "t:1", "role": role, "court": "Supreme Court of India",
           "decision_date": "2017-08-24", "year": 2017} for n, role in enumerate(["facts", "ratio", "facts"])]
# The first bucket each visualisation should show for the documents above, and its count.
FIRST_BUCKET = {"judgments-per-year": ("2017-01-01", 1),
                "judgments-per-court": ("High Court of Delhi", 1),  # a tie: terms breaks it by key
                "chunk-roles": ("facts", 2), "cited-provisions": ("Indian Penal Code, 1860, s. 302", 2),
                "cited-judgments": ("t:0", 2),
                "judges": ("r. f. nariman", 2)}  # judges has the lower-casing ratio_keyword normalizer


def test_every_visualisation_runs_on_a_real_node(client: OpenSearch, layout: IndexLayout) -> None:
    create_indices(client, layout, mappings.IndexOptions(), kinds=("judgments", "chunks"))
    body: list[dict[str, Any]] = []
    for kind, docs in (("judgments", JUDGMENTS), ("chunks", CHUNKS)):
        for doc in docs:
            body += [{"index": {"_index": layout.alias(kind)}}, doc]
    assert not client.bulk(body=body, refresh=True)["errors"]
    objects = saved_objects(layout.prefix)
    assert {vis.slug for vis in VISUALISATIONS} == set(FIRST_BUCKET)
    for vis in VISUALISATIONS:
        (saved,) = [obj for obj in objects if obj["id"] == f"{layout.prefix}-{vis.slug}"]
        (ref,) = saved["references"]
        (pattern,) = [obj for obj in objects if obj["id"] == ref["id"]]
        vis_state = json.loads(saved["attributes"]["visState"])
        response = client.search(index=pattern["attributes"]["title"], body=_request(vis_state))
        (bucket_agg,) = [agg for agg in vis_state["aggs"] if agg["schema"] != "metric"]
        first = response["aggregations"][bucket_agg["id"]]["buckets"][0]
        assert (first.get("key_as_string", first["key"]), first["doc_count"]) == FIRST_BUCKET[vis.slug], vis.slug
        if vis.slug == "judges":
            assert first["3"]["value"] == 2  # two courts
            assert first["4"]["value_as_string"].startswith("2017-08-24")
            assert first["5"]["value_as_string"].startswith("2019-01-10")
