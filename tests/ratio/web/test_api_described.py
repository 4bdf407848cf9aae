"""Every OpenAPI parameter and request-body property is described (issue 29, item 6): a client generated from
the spec, or a person reading ``/api/v1/docs``, learns what each option does without reading the code.

No node is needed: the spec is built from the app's routes and models (the client connects lazily).
"""

from __future__ import annotations

from typing import Any

from ratio.client import Client
from ratio.web import create_app


def _resolve(spec: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if ref:
        node: Any = spec
        for part in ref.removeprefix("#/").split("/"):
            node = node[part]
        return node
    return schema


def _properties(spec: dict[str, Any], schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The properties of an object schema, following ``$ref`` and ``allOf``/``anyOf``/``oneOf`` branches."""
    schema = _resolve(spec, schema)
    found = dict(schema.get("properties", {}))
    for key in ("allOf", "anyOf", "oneOf"):
        for branch in schema.get(key, []):
            found.update(_properties(spec, branch))
    return found


def _undescribed() -> list[str]:
    spec = create_app(Client("http://127.0.0.1:9", prefix="described", llm=None), api_key="k").openapi()
    missing = []
    for path, methods in spec["paths"].items():
        for method, operation in methods.items():
            where = f"{method.upper()} {path}"
            for parameter in operation.get("parameters", []):
                described = parameter.get("description") or parameter.get("schema", {}).get("description")
                if not (described or "").strip():
                    missing.append(f"{where} parameter {parameter['name']}")
            for media, content in operation.get("requestBody", {}).get("content", {}).items():
                for name, prop in _properties(spec, content.get("schema", {})).items():
                    if not (_resolve(spec, prop).get("description") or prop.get("description") or "").strip():
                        missing.append(f"{where} body ({media}) property {name}")
    return missing


def test_every_parameter_and_body_property_is_described() -> None:
    missing = _undescribed()
    assert not missing, "undescribed in the OpenAPI spec:\n" + "\n".join(missing)
