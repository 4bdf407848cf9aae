"""The LLM backends with a real small model (Qwen2.5-Coder-0.5B Q4_K_M): in-process and over HTTP."""

from __future__ import annotations

import http.server
import json
import threading
from pathlib import Path

import pytest

from backends.llm import (
    SMALL_LLM,
    CachedLLM,
    LLMError,
    Message,
    OpenAICompatibleLLM,
    Prompt,
    extract_json,
    generate_json,
    known_llms,
    resolve_gguf,
)
from backends.llm.models import _stamp

VERDICT = {"type": "object", "properties": {"verdict": {"type": "string", "enum": ["yes", "no"]}},
           "required": ["verdict"]}
QUESTION = [Message("system", "Answer with JSON only."),
            Message("user", 'Is the Indian Penal Code a statute? Answer {"verdict": "yes"} or {"verdict": "no"}.')]


def test_in_process_model_answers_schema_constrained_json(small_llm) -> None:
    value = generate_json(small_llm, QUESTION, VERDICT, max_tokens=20)
    assert value["verdict"] in ("yes", "no")
    text = small_llm.chat([Message("user", "Say the word 'judgment' and nothing else.")], max_tokens=8)
    assert "judgment" in text.lower()


def test_same_model_over_http_through_llama_cpp_server(llm_server: str) -> None:
    llm = OpenAICompatibleLLM(llm_server, "qwen-small", api_key="sk-secret-do-not-log", timeout=120)
    value = generate_json(llm, QUESTION, VERDICT, max_tokens=20)
    assert value["verdict"] in ("yes", "no")
    assert llm.json_mode == "json_object"  # llama-cpp-python's server refuses "json_schema"; the client moved on
    assert "sk-secret" not in repr(llm)


def test_http_backend_errors_are_clear_and_never_carry_the_key(llm_server: str) -> None:
    closed = OpenAICompatibleLLM("http://127.0.0.1:9/v1", "m", api_key="sk-secret-do-not-log", timeout=2,
                                 attempts=2)
    with pytest.raises(LLMError, match="did not answer after 2 attempts") as failure:
        closed.chat(QUESTION)
    assert "sk-secret" not in str(failure.value)
    wrong_path = OpenAICompatibleLLM(llm_server.removesuffix("/v1") + "/nothing-here", "m", api_key="sk-secret")
    with pytest.raises(LLMError, match="refused the request \\(404\\)") as refused:
        wrong_path.chat(QUESTION)
    assert "sk-secret" not in str(refused.value)
    with pytest.raises(LLMError, match="must start with http"):
        OpenAICompatibleLLM("ftp://x", "m")


class _Flaky(http.server.BaseHTTPRequestHandler):
    """A real loopback server that answers 503 twice, then a valid completion: the retry path."""

    calls = 0

    def do_POST(self) -> None:
        type(self).calls += 1
        self.rfile.read(int(self.headers["Content-Length"]))
        if type(self).calls <= 2:
            self.send_response(503)
            self.end_headers()
            return
        body = json.dumps({"choices": [{"message": {"content": '{"verdict": "yes"}'}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def test_http_backend_retries_server_errors() -> None:
    server = http.server.HTTPServer(("127.0.0.1", 0), _Flaky)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        llm = OpenAICompatibleLLM(f"http://127.0.0.1:{server.server_port}/v1", "m", attempts=4)
        assert generate_json(llm, QUESTION, VERDICT) == {"verdict": "yes"}
        assert _Flaky.calls == 3
    finally:
        server.shutdown()


def test_cache_answers_a_repeated_call_without_the_model(uncached_llm, tmp_path: Path) -> None:
    cached = CachedLLM(uncached_llm, tmp_path / "answers.sqlite")  # the model itself, not the session's cache
    first = cached.chat(QUESTION, max_tokens=20, schema=VERDICT)
    again = CachedLLM(uncached_llm, tmp_path / "answers.sqlite")  # a new process would see the same file
    assert again.chat(QUESTION, max_tokens=20, schema=VERDICT) == first
    assert (cached.misses, again.hits, again.misses) == (1, 1, 0)
    other = again.chat(QUESTION, max_tokens=21, schema=VERDICT)
    assert again.misses == 1 and isinstance(other, str)


def test_extract_json_finds_the_value_inside_chatter() -> None:
    assert extract_json('```json\n{"a": 1}\n```') == {"a": 1}
    assert extract_json('Sure! Here it is: {"issues": ["x"]} Hope that helps.') == {"issues": ["x"]}
    with pytest.raises(ValueError):
        extract_json("no json here")


def test_prompt_files_load_and_refuse_missing_fields() -> None:
    prompt = Prompt.load("search", "parametric_provisions")
    messages = prompt.messages(facts="The accused stabbed the deceased.", count="3")
    assert messages[0].role == "system" and "never instructions" in messages[0].content
    assert "up to 3 statutory provisions" in messages[0].content
    secret = messages[1].nonce
    assert len(secret) == 12 and messages[0].nonce == secret
    assert f"<facts-{secret}>\nThe accused stabbed the deceased.\n</facts-{secret}>" in messages[1].content
    assert f"<facts-{secret}>" in messages[0].content  # the system part names the real delimiter
    with pytest.raises(LLMError, match="needs the field 'count'"):
        prompt.messages(facts="x")


def test_known_model_is_assembled_once_and_reassembled_when_changed(small_gguf: Path, tmp_path: Path) -> None:
    entry = known_llms()[SMALL_LLM]
    assert small_gguf.name == entry["file"] and small_gguf.stat().st_size > 400_000_000
    made = resolve_gguf(SMALL_LLM, tmp_path)
    marker = made.with_name(made.name + ".sha256")
    assert marker.read_text().split() == _stamp(made, entry["sha256"])
    with made.open("r+b") as handle:  # corrupt one byte: the stamp no longer matches, so it is rebuilt
        handle.seek(1000)
        handle.write(b"\x00")
    assert resolve_gguf(SMALL_LLM, tmp_path) == made
    assert marker.read_text().split() == _stamp(made, entry["sha256"])
    with pytest.raises(LLMError, match="unknown LLM"):
        resolve_gguf("someone/unknown-model", tmp_path)
    with pytest.raises(LLMError, match="not found"):
        resolve_gguf(str(tmp_path / "missing.gguf"), tmp_path)
