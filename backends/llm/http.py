"""An LLM behind an OpenAI-compatible ``/chat/completions`` endpoint: vLLM, the llama.cpp server,
``python -m llama_cpp.server``, Ollama's ``/v1``, or a hosted API.

Timeouts bound every call; connection errors, timeouts, 429s and 5xx answers are retried with exponential
backoff (tenacity), other 4xx answers fail at once with the server's message. The API key travels only in
the ``Authorization`` header: it is not part of the repr, of error messages, or of anything logged.

Servers differ in how they take a JSON Schema: OpenAI, vLLM and the llama.cpp server take
``response_format: {"type": "json_schema", ...}``; llama-cpp-python's server takes
``{"type": "json_object", "schema": ...}``; some take neither. The client starts with ``json_mode`` and, when
the server rejects the format, moves to the next mode (ending with the schema only in the prompt, where
the caller's validation and repair still hold) and keeps using the one that worked.
"""

from __future__ import annotations

from typing import Any

import requests
from tenacity import retry, retry_if_exception, stop_after_attempt, wait_exponential

from backends.llm.base import LLMError, Message

_RETRY_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}


JSON_MODES = ("json_schema", "json_object", "prompt")


class _FormatRejected(Exception):
    """The server does not accept this way of asking for JSON."""


class _Transient(Exception):
    """A failure worth retrying (kept apart from LLMError so that final errors are not retried)."""


def _transient(exc: BaseException) -> bool:
    return isinstance(exc, (_Transient, requests.ConnectionError, requests.Timeout))


class OpenAICompatibleLLM:
    """Chat completions from ``base_url`` (e.g. ``http://127.0.0.1:8080/v1``) with model ``model``."""

    def __init__(self, base_url: str, model: str, *, api_key: str | None = None, timeout: float = 60.0,
                 attempts: int = 4, json_mode: str = "json_schema", session: requests.Session | None = None) -> None:
        if json_mode not in JSON_MODES:
            raise LLMError(f"json_mode must be one of {', '.join(JSON_MODES)}, not {json_mode!r}")
        self.json_mode = json_mode
        if not base_url.startswith(("http://", "https://")):
            raise LLMError(f"LLM URL must start with http:// or https://, not {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.name = f"http:{model}"
        self.timeout = timeout
        self.attempts = attempts
        self._session = session or requests.Session()
        self._api_key = api_key

    def __repr__(self) -> str:
        key = "set" if self._api_key else "none"
        return f"OpenAICompatibleLLM(base_url={self.base_url!r}, model={self.model!r}, api_key={key})"

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers

    def _post(self, body: dict[str, Any]) -> dict[str, Any]:
        url = f"{self.base_url}/chat/completions"
        try:
            response = self._session.post(url, json=body, headers=self._headers(), timeout=self.timeout)
        except (requests.ConnectionError, requests.Timeout):
            raise
        except requests.RequestException as exc:
            raise LLMError(f"LLM request to {url} failed: {type(exc).__name__}") from None
        if response.status_code in (400, 422, 500) and "response_format" in body and (
                "response_format" in response.text):
            raise _FormatRejected(response.text[:200])
        if response.status_code in _RETRY_STATUS:
            raise _Transient(f"{url} answered {response.status_code}")
        if response.status_code >= 400:
            raise LLMError(f"LLM server {url} refused the request ({response.status_code}): "
                           f"{response.text[:300]}")
        try:
            return response.json()
        except ValueError:
            raise LLMError(f"LLM server {url} answered with something that is not JSON") from None

    def chat(self, messages: list[Message], *, max_tokens: int = 256, temperature: float = 0.0,
             schema: dict[str, Any] | None = None) -> str:
        while True:
            body: dict[str, Any] = {"model": self.model, "messages": [m.as_dict() for m in messages],
                                    "max_tokens": max_tokens, "temperature": temperature}
            if schema is not None and self.json_mode == "json_schema":
                body["response_format"] = {"type": "json_schema",
                                           "json_schema": {"name": "answer", "schema": schema, "strict": True}}
            elif schema is not None and self.json_mode == "json_object":
                body["response_format"] = {"type": "json_object", "schema": schema}
            try:
                data = self._call(body)
                break
            except _FormatRejected:
                self.json_mode = JSON_MODES[JSON_MODES.index(self.json_mode) + 1]
        try:
            return data["choices"][0]["message"]["content"] or ""
        except (KeyError, IndexError, TypeError):
            raise LLMError(f"LLM server {self.base_url} answered without choices[0].message.content") from None

    def _call(self, body: dict[str, Any]) -> dict[str, Any]:
        call = retry(retry=retry_if_exception(_transient), stop=stop_after_attempt(self.attempts),
                     wait=wait_exponential(multiplier=0.5, max=8), reraise=True)(self._post)
        try:
            return call(body)
        except (_Transient, requests.ConnectionError, requests.Timeout) as exc:
            raise LLMError(f"LLM server {self.base_url} did not answer after {self.attempts} attempts: "
                           f"{type(exc).__name__}: {str(exc)[:200]}") from None
