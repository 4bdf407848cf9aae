"""``ratio.RemoteClient``: the Python client over Ratio's REST API instead of OpenSearch directly.

It has the read methods of :class:`ratio.Client` (search, judgment, facets, explain, provisions) and
returns the same dataclasses, rebuilt from the JSON by the API's own schemas, so code can switch between
talking to a cluster and talking to ``ratio serve`` by changing the constructor. A 400 comes back as the
same :class:`~search.errors.QueryError` a local search raises; other errors as :class:`RemoteError` with
the API's code and message. Connection failures and 503s (but a passed deadline) are retried with backoff.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import requests
from tenacity import retry, retry_if_exception, stop_after_attempt, wait_exponential

from ratio.web.schemas import ExplainResponse, Health, JudgmentView, ProvisionsResponse, SearchPage
from search.browse import ExploreView
from search.errors import QueryError
from search.explain import Explanation
from search.provisions import ProvisionHit

__all__ = ["RemoteClient", "RemoteError"]


class RemoteError(RuntimeError):
    """The API answered with an error other than a bad query."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status, self.code, self.message = status, code, message


def _transient(exc: BaseException) -> bool:
    """A refused connection or a 503 from OpenSearch: worth asking again. A request that outlasted the
    server's deadline (``deadline_exceeded``) would only do so again."""
    return isinstance(exc, requests.ConnectionError) or (
        isinstance(exc, RemoteError) and exc.status == 503 and exc.code != "deadline_exceeded")


class RemoteClient:
    """Search a Ratio server: ``RemoteClient("http://127.0.0.1:8000", api_key=...)``."""

    def __init__(self, base_url: str, *, api_key: str | None = None, timeout: float = 60.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.session = requests.Session()
        if api_key:
            self.session.headers["X-API-Key"] = api_key

    @retry(retry=retry_if_exception(_transient), stop=stop_after_attempt(3),
           wait=wait_exponential(multiplier=0.5, max=4), reraise=True)
    def _call(self, method: str, path: str, *, params: dict[str, Any] | None = None,
              json: dict[str, Any] | None = None, raw: bool = False) -> Any:
        response = self.session.request(method, f"{self.base_url}/api/v1{path}", params=params, json=json,
                                        timeout=self.timeout)
        if response.ok:
            return response.text if raw else response.json()
        try:
            error = response.json()["error"]
            code, message = error["code"], error["message"]
        except (ValueError, KeyError, TypeError):
            code, message = "http_error", response.text[:500]
        if response.status_code == 400:
            raise QueryError(message)
        raise RemoteError(response.status_code, code, message)

    @staticmethod
    def _params(query: str, options: dict[str, Any]) -> dict[str, Any]:
        aliases = {"courts": "court", "judges": "judge", "roles": "role", "role_mode": "mode"}
        params: dict[str, Any] = {"q": query}
        for key, value in options.items():
            if value is None:
                continue
            name = aliases.get(key, key)
            if isinstance(value, bool):
                value = str(value).lower()
            elif isinstance(value, str) and name in ("court", "judge", "role", "expand"):
                value = [value]
            params[name] = list(value) if isinstance(value, tuple) else value
        return params

    def search(self, query: str, **options: Any) -> SearchPage:
        """One page of judgments; options as ``Client.search`` (``courts=``, ``roles=``, ``size=``, ...) plus
        ``cursor=`` (a page's ``next_cursor``)."""
        return SearchPage.model_validate(self._call("POST", "/search", json=self._params(query, options)))

    def search_pages(self, query: str, *, max_pages: int = 10, **options: Any) -> Iterator[SearchPage]:
        """Pages of one search, following the cursors, until the last page or ``max_pages``."""
        cursor = None
        for _ in range(max_pages):
            page = self.search(query, cursor=cursor, **options)
            yield page
            cursor = page.next_cursor
            if not cursor:
                return

    def facets(self, query: str, **options: Any) -> dict[str, Any]:
        return self._call("GET", "/facets", params=self._params(query, options))

    def explore(self, query: str = "", **options: Any) -> ExploreView:
        from pydantic import TypeAdapter

        return TypeAdapter(ExploreView).validate_python(self._call("GET", "/explore",
                                                                   params=self._params(query, options)))

    def judgment(self, judgment_id: str) -> JudgmentView:
        from urllib.parse import quote

        from pydantic import TypeAdapter

        data = self._call("GET", f"/judgments/{quote(judgment_id, safe='')}")
        return TypeAdapter(JudgmentView).validate_python(data)

    def explain(self, query: str, judgment_id: str) -> Explanation:
        data = self._call("GET", "/explain", params={"q": query, "judgment_id": judgment_id})
        return ExplainResponse.model_validate(data).explanation

    def provisions(self, query: str, size: int = 10) -> list[ProvisionHit]:
        return ProvisionsResponse.model_validate(self._call("GET", "/provisions",
                                                            params={"q": query, "size": size})).provisions

    def export_csv(self, query: str, limit: int = 200, **options: Any) -> str:
        return self._call("GET", "/export.csv", params={**self._params(query, options), "limit": limit}, raw=True)

    def health(self) -> Health:
        return Health.model_validate(self._call("GET", "/health"))
