"""A property-based pass over the OpenAPI spec (schemathesis): generated requests, valid and invalid, against
the app over the real node and the sample corpus.

Checks, for every operation: no 5xx, responses match the published schema (status, content type, body),
and requests the schema forbids are rejected with a 4xx. The number of examples is small (the corpus is
real and every search embeds its query); ``RATIO_FUZZ_EXAMPLES`` raises it.
"""

from __future__ import annotations

import os
from urllib.parse import parse_qs, urlsplit

import pytest

schemathesis = pytest.importorskip("schemathesis", reason="the dev extra installs schemathesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis.errors import Unsatisfiable  # noqa: E402
from jsonschema import Draft202012Validator  # noqa: E402
from schemathesis import GenerationMode  # noqa: E402
from schemathesis.checks import not_a_server_error  # noqa: E402
from schemathesis.specs.openapi.checks import (  # noqa: E402
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
)

from ratio.web.schemas_brief import multipart_schema  # noqa: E402

EXAMPLES = int(os.environ.get("RATIO_FUZZ_EXAMPLES") or 12)


MODES = ("positive", "negative")
BRIEF_FIELDS = ("court", "date_from", "date_to")  # the brief page's form fields among the generated ones


def not_a_server_error_but_no_llm(ctx, response, case) -> bool | None:
    """``not_a_server_error``, except the answer routes' documented 503 ``llm_unavailable``: the fuzzed app has no
    LLM (an answer costs seconds of generation per example), so for ``/ask`` this run covers validation, the
    400s and the no-LLM error; tests/ratio/web/test_api_ask.py checks real answers against the schema."""
    if case.operation.path.startswith("/api/v1/ask") and response.status_code == 503:
        assert response.json()["error"]["code"] == "llm_unavailable", response.text
        return None
    return not_a_server_error(ctx, response, case)


def _as_received(value: str, schema: dict) -> object:
    """A query-string value as the server reads it for ``schema``: text stays text, numbers and booleans are
    parsed (a value that does not parse is kept as text, so the schema still rejects it)."""
    kinds = {schema.get("type")} | {option.get("type") for option in schema.get("anyOf", [])}
    for kind, parse in (("integer", int), ("number", float)):
        if kind in kinds:
            try:
                return parse(value)
            except ValueError:
                pass
    if "boolean" in kinds and value.lower() in ("true", "false"):
        return value.lower() == "true"
    return value


def _valid_as_sent(case, response) -> bool:
    """Whether a GET's query string, as it went over the wire, is valid: a query string carries only text,
    so a number, ``null`` or ``false`` generated for a text parameter arrives as valid text (a known
    schemathesis false positive for ``negative_data_rejection``: schemathesis#2913, #3962)."""
    if case.operation.method.upper() != "GET" or case.path_parameters:
        return False
    sent = parse_qs(urlsplit(response.request.url).query, keep_blank_values=True)
    params = {p.name: p.definition for p in case.operation.query}
    if set(sent) - set(params):
        return False
    for name, definition in params.items():
        schema = definition.get("schema", {})
        if name not in sent:
            if definition.get("required"):
                return False
            continue
        is_list = schema.get("type") == "array"
        item_schema = schema.get("items", {}) if is_list else schema
        values = [_as_received(v, item_schema) for v in sent[name]]
        if not Draft202012Validator(schema).is_valid(values if is_list else values[-1]):
            return False
    return True


def _wire_text(value: object) -> str | bytes | None:
    """A generated form value as a multipart field carries it (what schemathesis sends), or None when it has no
    one text (a nested object, ``null``): such a request is judged as generated."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | bytes):
        return value
    if isinstance(value, int | float):
        return str(value)
    return None


def _form_valid_as_sent(case) -> bool:
    """Whether a multipart form, as it went over the wire, is valid: like a query string, a form field carries
    only text, so ``false`` or ``15`` generated as a "wrong type" for a text field arrives as valid text (the same
    schemathesis false positive, for form bodies: the brief route's ``text``)."""
    if getattr(case, "media_type", None) != "multipart/form-data" or not isinstance(case.body, dict):
        return False
    schema = multipart_schema()
    received: dict[str, object] = {}
    for name, value in case.body.items():
        definition = schema["properties"].get(name)
        if definition is None:
            return False
        is_list = definition.get("type") == "array"
        items = value if is_list and isinstance(value, list) else [value]
        texts = [_wire_text(item) for item in items]
        if any(text is None for text in texts):
            return False
        item_schema = definition.get("items", {}) if is_list else definition
        values = [_as_received(text, item_schema) if isinstance(text, str) else text for text in texts]
        received[name] = values if is_list else values[-1]
    return Draft202012Validator(schema).is_valid(received)


def negative_data_rejection_as_sent(ctx, response, case) -> bool | None:
    """``negative_data_rejection``, judged on the request the server received rather than on the value
    generated before it became a query string or a form field."""
    if response.status_code < 400 and (_valid_as_sent(case, response) or _form_valid_as_sent(case)):
        return None
    return negative_data_rejection(ctx, response, case)


@pytest.fixture(scope="module")
def api_schema(web_app):
    return schemathesis.openapi.from_asgi("/api/v1/openapi.json", web_app)


@pytest.mark.parametrize("mode", MODES)
def test_api_honours_its_spec(api_schema, mode: str) -> None:
    """Every operation, with generated valid (positive) or schema-violating (negative) requests.

    (schemathesis' pytest plugin does not run under pytest 9 yet, so each operation runs through Hypothesis
    directly; a failure names the operation and the request.)"""
    checks = [not_a_server_error_but_no_llm, status_code_conformance, response_schema_conformance]
    if mode == "negative":
        checks.append(negative_data_rejection_as_sent)
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) >= 12
    # the brief route reads its body itself: both of its bodies (JSON and a multipart upload) are in the spec
    assert ("POST", "/api/v1/search/document") in {(o.method.upper(), o.path) for o in operations}
    for operation in operations:
        if operation.method.upper() == "DELETE" and mode == "positive":
            continue  # deleting generated names is covered by the alerts tests

        @given(case=operation.as_strategy(generation_mode=GenerationMode(mode)))
        @settings(max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck))
        def run(case) -> None:
            case.call_and_validate(checks=checks)

        try:
            run()
        except Unsatisfiable:
            assert mode == "negative"  # an operation without inputs has no invalid request to send
        except Exception as exc:
            raise AssertionError(f"{operation.method.upper()} {operation.path} ({mode}): {exc}") from exc


def test_pages_and_fragments_never_answer_5xx(web_app) -> None:
    """The pages are not in the spec, so Hypothesis generates their query strings and ids directly: any
    text in any field (cursors, dates, roles, ids with slashes or NULs) is a page or a 4xx, never a 500."""
    from urllib.parse import quote

    from fastapi.testclient import TestClient
    from hypothesis import strategies as st

    text = st.text(max_size=60)
    fields = st.fixed_dictionaries({}, optional={name: text for name in (
        "q", "court", "judge", "date_from", "date_to", "role", "mode", "sort", "cursor")})
    with TestClient(web_app) as web:

        @given(path=st.sampled_from(["/", "/explore"]), params=fields, item=text)
        @settings(max_examples=EXAMPLES * 2, deadline=None, database=None, suppress_health_check=list(HealthCheck))
        def run(path: str, params: dict[str, str], item: str) -> None:
            for response in (web.get(path, params=params),
                             web.get(f"/judgments/{quote(item, safe='')}"),
                             web.get(f"/provisions/{quote(item, safe='')}"),
                             web.get("/ui/explain", params={"q": params.get("q", "x"), "judgment_id": item}),
                             web.get("/brief", params={"like": item}),
                             web.post("/brief", data={"text": params.get("q", ""),
                                                      **{k: v for k, v in params.items() if k in BRIEF_FIELDS}},
                                      files={"file": ("", b"", "application/octet-stream")})):
                assert response.status_code < 500, (response.request.url, response.text[:300])

        run()


def test_a_form_is_judged_as_the_server_receives_it() -> None:
    """The false positive that failed a fresh-machine run (``text`` generated as ``false``, sent as the text
    "false") is valid as sent; a form the server must refuse still is not: a size out of range, a field the
    schema does not have, a value with no one text."""
    from types import SimpleNamespace

    def form(body: dict) -> SimpleNamespace:
        return SimpleNamespace(media_type="multipart/form-data", body=body)

    assert _form_valid_as_sent(form({"size": 15, "text": False, "court": ["", "x"]}))
    assert _form_valid_as_sent(form({"text": 12.5, "court": "Supreme Court"}))
    assert not _form_valid_as_sent(form({"text": "a", "size": 51}))
    assert not _form_valid_as_sent(form({"text": "a", "size": "many"}))
    assert not _form_valid_as_sent(form({"text": "a", "colour": "red"}))
    assert not _form_valid_as_sent(form({"text": {"nested": 1}}))
    assert not _form_valid_as_sent(SimpleNamespace(media_type="application/json", body={"text": False}))
