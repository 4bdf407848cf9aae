"""OpenSearch Dashboards saved objects over Ratio's indices: index patterns, visualisations and one dashboard.

The objects are generated, not hand-edited, because the index prefix varies between deployments and the
Dashboards format nests JSON inside JSON strings (``visState``, ``panelsJSON``, ``searchSourceJSON``), which is
easy to break by hand. ``docker/dashboards/ratio.ndjson`` is the output for the default prefix; a test keeps the
two equal. The format is the one OpenSearch Dashboards 2.x exports (saved-object model of its Kibana 7.10 base):
references by name (``indexRefName``, ``panelRefName``) rather than ids inside the JSON strings, so an import
may rename ids and the objects still point at each other.

Index patterns carry no ``fields`` list: Dashboards reads the field list from the cluster the first time a
pattern is used, so it can never disagree with ``mappings/*.json``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import requests

from backends.opensearch import IndexLayout
from backends.opensearch.install import Manifest

TIME_FIELD = "decision_date"
INDEX_PATTERN_KINDS: tuple[str, ...] = ("judgments", "chunks")
SEARCH_SOURCE_INDEX_REF = "kibanaSavedObjectMeta.searchSourceJSON.index"

# Migration stamps of OpenSearch Dashboards 2.x (its saved-object migrations stop at the Kibana 7.10 fork):
# an object carrying them is imported as is, without being run through older migrations.
MIGRATION_VERSIONS: dict[str, str] = {"index-pattern": "7.6.0", "visualization": "7.10.0", "dashboard": "7.9.3"}

# Judgments span decades; the default "last 15 minutes" of Dashboards would show an empty dashboard.
DASHBOARD_TIME_FROM = "now-100y"


class DashboardsImportError(RuntimeError):
    """Dashboards refused the import or could not be reached; the message says which objects and why."""


def _json(value: Any) -> str:
    """Compact JSON for the string-valued attributes, so the committed file is stable byte for byte."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _count(agg_id: str = "1", label: str = "") -> dict[str, Any]:
    params = {"customLabel": label} if label else {}
    return {"id": agg_id, "enabled": True, "type": "count", "schema": "metric", "params": params}


def _terms(agg_id: str, field: str, size: int, schema: str, label: str) -> dict[str, Any]:
    """A terms bucket ordered by the count metric (id "1"), as the Dashboards editor writes it."""
    return {"id": agg_id, "enabled": True, "type": "terms", "schema": schema,
            "params": {"field": field, "size": size, "order": "desc", "orderBy": "1", "otherBucket": False,
                       "otherBucketLabel": "Other", "missingBucket": False, "missingBucketLabel": "Missing",
                       "customLabel": label}}


def _metric(agg_id: str, kind: str, field: str, label: str) -> dict[str, Any]:
    return {"id": agg_id, "enabled": True, "type": kind, "schema": "metric",
            "params": {"field": field, "customLabel": label}}


_TABLE_PARAMS: dict[str, Any] = {"perPage": 10, "showPartialRows": False, "showMetricsAtAllLevels": False,
                                 "sort": {"columnIndex": None, "direction": None}, "showTotal": False,
                                 "totalFunc": "sum", "percentageCol": ""}


@dataclass(frozen=True)
class Visualisation:
    """One visualisation: what it counts, over which index, drawn how; ``panel`` is its place on the dashboard.

    ``params`` holds only what differs from the vis type's defaults: Dashboards fills in the rest when it loads
    the object, so a version bump of Dashboards does not leave stale chart settings behind in this file.
    """

    slug: str
    title: str
    kind: str
    vis_type: str
    aggs: tuple[dict[str, Any], ...]
    params: dict[str, Any]
    panel: tuple[int, int, int, int]  # x, y, w, h on the 48-column dashboard grid
    description: str = ""


VISUALISATIONS: tuple[Visualisation, ...] = (
    Visualisation(
        "judgments-per-year", "Judgments per year", "judgments", "histogram",
        (_count(label="Judgments"),
         {"id": "2", "enabled": True, "type": "date_histogram", "schema": "segment",
          "params": {"field": TIME_FIELD, "interval": "y", "min_doc_count": 1, "extended_bounds": {},
                     "drop_partials": False, "customLabel": "Decision date"}}),
        {"type": "histogram", "addTooltip": True, "addLegend": False, "legendPosition": "right"},
        (0, 0, 24, 15), "Judgments indexed, by year of decision."),
    Visualisation(
        "judgments-per-court", "Judgments per court", "judgments", "horizontal_bar",
        (_count(label="Judgments"), _terms("2", "court", 20, "segment", "Court")),
        {"type": "histogram", "addTooltip": True, "addLegend": False, "legendPosition": "right"},
        (24, 0, 24, 15), "The 20 courts with the most judgments."),
    Visualisation(
        "chunk-roles", "Chunks by rhetorical role", "chunks", "pie",
        (_count(label="Chunks"), _terms("2", "role", 20, "segment", "Role")),
        {"type": "pie", "addTooltip": True, "addLegend": True, "legendPosition": "right", "isDonut": True,
         "labels": {"show": True, "values": True, "last_level": True, "truncate": 100}},
        (0, 15, 16, 16), "How the chunks divide between rhetorical roles (facts, arguments, ratio, ...)."),
    Visualisation(
        "cited-provisions", "Most cited provisions", "judgments", "table",
        (_count(label="Citing judgments"), _terms("2", "cited_provisions", 25, "bucket", "Provision")),
        _TABLE_PARAMS, (16, 15, 16, 16), "Statute provisions cited by the most judgments."),
    Visualisation(
        "cited-judgments", "Most cited judgments", "judgments", "table",
        (_count(label="Citing judgments"), _terms("2", "cited_judgments", 25, "bucket", "Judgment")),
        _TABLE_PARAMS, (32, 15, 16, 16), "Earlier judgments cited by the most judgments in the index."),
    Visualisation(
        "judges", "Judges", "judgments", "table",
        (_count(label="Judgments"), _terms("2", "judges", 50, "bucket", "Judge"),
         _metric("3", "cardinality", "court", "Courts"),
         _metric("4", "min", TIME_FIELD, "First decision"),
         _metric("5", "max", TIME_FIELD, "Last decision")),
        _TABLE_PARAMS, (0, 31, 48, 18), "Judges by number of judgments, with their courts and years on the bench."),
)


def index_pattern_id(prefix: str, kind: str) -> str:
    return f"{prefix}-{kind}-pattern"


def visualisation_id(prefix: str, vis: Visualisation) -> str:
    return f"{prefix}-{vis.slug}"


def dashboard_id(prefix: str) -> str:
    return f"{prefix}-overview"


def _index_pattern(layout: IndexLayout, kind: str) -> dict[str, Any]:
    return {"id": index_pattern_id(layout.prefix, kind), "type": "index-pattern",
            "attributes": {"title": layout.alias(kind), "timeFieldName": TIME_FIELD},
            "references": [], "migrationVersion": {"index-pattern": MIGRATION_VERSIONS["index-pattern"]}}


def _visualisation(layout: IndexLayout, vis: Visualisation) -> dict[str, Any]:
    title = f"[{layout.prefix}] {vis.title}"
    search_source = {"query": {"query": "", "language": "kuery"}, "filter": [],
                     "indexRefName": SEARCH_SOURCE_INDEX_REF}
    return {"id": visualisation_id(layout.prefix, vis), "type": "visualization",
            "attributes": {"title": title, "description": vis.description, "version": 1, "uiStateJSON": "{}",
                           "visState": _json({"title": title, "type": vis.vis_type, "params": vis.params,
                                              "aggs": list(vis.aggs)}),
                           "kibanaSavedObjectMeta": {"searchSourceJSON": _json(search_source)}},
            "references": [{"name": SEARCH_SOURCE_INDEX_REF, "type": "index-pattern",
                            "id": index_pattern_id(layout.prefix, vis.kind)}],
            "migrationVersion": {"visualization": MIGRATION_VERSIONS["visualization"]}}


def _dashboard(layout: IndexLayout, dashboards_version: str) -> dict[str, Any]:
    panels, references = [], []
    for number, vis in enumerate(VISUALISATIONS):
        x, y, w, h = vis.panel
        panel_index = str(number + 1)
        panels.append({"version": dashboards_version, "gridData": {"x": x, "y": y, "w": w, "h": h, "i": panel_index},
                       "panelIndex": panel_index, "embeddableConfig": {}, "panelRefName": f"panel_{number}"})
        references.append({"name": f"panel_{number}", "type": "visualization",
                           "id": visualisation_id(layout.prefix, vis)})
    search_source = {"query": {"query": "", "language": "kuery"}, "filter": []}
    return {"id": dashboard_id(layout.prefix), "type": "dashboard",
            "attributes": {"title": f"[{layout.prefix}] Ratio overview",
                           "description": f"Judgments and chunks behind the {layout.prefix}-* aliases.",
                           "hits": 0, "version": 1, "panelsJSON": _json(panels),
                           "optionsJSON": _json({"hidePanelTitles": False, "useMargins": True}),
                           "timeRestore": True, "timeFrom": DASHBOARD_TIME_FROM, "timeTo": "now",
                           "refreshInterval": {"pause": True, "value": 0},
                           "kibanaSavedObjectMeta": {"searchSourceJSON": _json(search_source)}},
            "references": references, "migrationVersion": {"dashboard": MIGRATION_VERSIONS["dashboard"]}}


def saved_objects(prefix: str = "ratio", dashboards_version: str | None = None) -> list[dict[str, Any]]:
    """Every saved object for the aliases under ``prefix``, in import order (patterns, visualisations, dashboard).

    ``dashboards_version`` stamps the dashboard's panels; it defaults to the pinned OpenSearch version, which the
    compose file also pins Dashboards to. Raises ValueError for a prefix Ratio's index layout would refuse.
    """
    layout = IndexLayout(prefix)
    version = dashboards_version or Manifest.load().version
    return ([_index_pattern(layout, kind) for kind in INDEX_PATTERN_KINDS]
            + [_visualisation(layout, vis) for vis in VISUALISATIONS]
            + [_dashboard(layout, version)])


def to_ndjson(objects: list[dict[str, Any]]) -> str:
    """The Dashboards import format: one compact JSON object per line, newline-terminated."""
    return "".join(_json(obj) + "\n" for obj in objects)


def import_saved_objects(url: str, ndjson: str, *, auth: tuple[str, str] | None = None, verify: bool = True,
                         timeout: float = 60.0) -> dict[str, Any]:
    """POST ``ndjson`` to ``<url>/api/saved_objects/_import?overwrite=true`` and return Dashboards' answer.

    ``overwrite`` makes a re-import update the objects in place (their ids are stable), and ``osd-xsrf`` is the
    header Dashboards demands of every API write. Raises DashboardsImportError when the request fails or any
    object is refused, naming each refused object, because a partial import otherwise looks like success.
    """
    endpoint = url.rstrip("/") + "/api/saved_objects/_import"
    try:
        response = requests.post(endpoint, params={"overwrite": "true"}, headers={"osd-xsrf": "true"},
                                 files={"file": ("ratio.ndjson", ndjson.encode("utf-8"), "application/ndjson")},
                                 auth=auth, verify=verify, timeout=timeout)
    except requests.RequestException as exc:
        raise DashboardsImportError(f"cannot reach OpenSearch Dashboards at {url}: {exc}") from exc
    if not response.ok:
        raise DashboardsImportError(f"{endpoint} answered {response.status_code}: {response.text[:500]}")
    try:
        result = response.json()
    except ValueError as exc:
        raise DashboardsImportError(f"{endpoint} did not answer JSON: {response.text[:200]}") from exc
    if not result.get("success"):
        errors = "; ".join(f"{err.get('type')} {err.get('id')}: {err.get('error', {}).get('type', err.get('error'))}"
                           for err in result.get("errors", []))
        raise DashboardsImportError(f"Dashboards refused part of the import: {errors or result}")
    return result
