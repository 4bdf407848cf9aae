"""The one small interface every LLM backend meets, and the structured-output helper built on it.

Callers ask for chat completions through :class:`LLM`; :func:`generate_json` adds what every structured
task needs: the JSON Schema passed to the backend (llama.cpp turns it into a grammar, OpenAI-compatible
servers into ``response_format``), then a local check with ``jsonschema`` and, when the check fails, one
repair round that shows the model its output and the validation error. Small models do break JSON now and
then; a task must never receive an object that does not match its schema.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from importlib import resources
from string import Template
from typing import Any, Protocol, runtime_checkable

import jsonschema

from backends.llm.guard import fenced, nonce


class LLMError(RuntimeError):
    """An LLM call failed (unreachable server, bad answer, output that could not be repaired)."""


@dataclass(frozen=True)
class Message:
    """One chat message; ``role`` is ``system``, ``user`` or ``assistant``. ``nonce`` is the random delimiter
    suffix of the prompt it came from (see :class:`Prompt`), so a cache can key the message without it."""

    role: str
    content: str
    nonce: str = ""

    def as_dict(self) -> dict[str, str]:
        return {"role": self.role, "content": self.content}


@runtime_checkable
class LLM(Protocol):
    """A chat model. ``name`` identifies the model (it keys caches); ``schema`` asks for JSON matching it."""

    name: str

    def chat(self, messages: list[Message], *, max_tokens: int = 256, temperature: float = 0.0,
             schema: dict[str, Any] | None = None) -> str: ...


@dataclass(frozen=True)
class Prompt:
    """A prompt file: a system part and a user part separated by a line ``---``, with ``$name`` fields.

    ``$nonce`` is not a field a caller gives: each call of :meth:`messages` draws a fresh random one
    (:func:`backends.llm.guard.nonce`), and the prompt fences its data blocks with it (``<passages-$nonce>`` ...
    ``</passages-$nonce>``). Every field is passed through :func:`backends.llm.guard.fenced` first (special
    tokens, invisible characters, tag-like markers and the nonce itself removed), so no field can close a
    block, whatever the caller did with it."""

    name: str
    system: str
    user: str

    @classmethod
    def load(cls, package: str, name: str) -> Prompt:
        """Read ``<package>/prompts/<name>.txt`` (prompts live as files so they can be read and changed
        without touching code)."""
        text = resources.files(package).joinpath("prompts").joinpath(f"{name}.txt").read_text(encoding="utf-8")
        system, sep, user = text.partition("\n---\n")
        if not sep:
            raise LLMError(f"prompt {package}/prompts/{name}.txt has no '---' line between system and user parts")
        return cls(name, system.strip(), user.strip())

    def messages(self, shared_nonce: str | None = None, /, **fields: str) -> list[Message]:
        """The chat messages with ``fields`` substituted (fenced, see the class); a missing field is an error,
        not a blank. ``shared_nonce`` (a fresh :func:`backends.llm.guard.nonce`, never a constant) lets one
        caller send the same prompt over many records with one nonce, so the system part and the leading fields
        are the same tokens each time and llama.cpp evaluates that prefix once (the LLM rerank's candidates)."""
        if "nonce" in fields:
            raise LLMError(f"prompt {self.name}: the nonce is drawn by the prompt, not given")
        secret = shared_nonce or nonce()
        safe = {name: fenced(value, secret) for name, value in fields.items()}
        safe["nonce"] = secret
        try:
            return [Message("system", Template(self.system).substitute(safe), secret),
                    Message("user", Template(self.user).substitute(safe), secret)]
        except KeyError as exc:
            raise LLMError(f"prompt {self.name} needs the field {exc.args[0]!r}") from None


_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.S)


def extract_json(text: str) -> Any:
    """The JSON value in a model's answer: the whole text, or the first ``{...}``/``[...]`` inside it
    (models wrap JSON in code fences or a sentence of preamble)."""
    stripped = _FENCE.sub("", text.strip())
    try:
        return json.loads(stripped)
    except json.JSONDecodeError:
        pass
    decoder = json.JSONDecoder()
    for i, char in enumerate(stripped):
        if char in "{[":
            try:
                return decoder.raw_decode(stripped[i:])[0]
            except json.JSONDecodeError:
                continue
    raise ValueError("no JSON value found in the answer")


def _problem(text: str, schema: dict[str, Any]) -> tuple[Any, str | None]:
    try:
        value = extract_json(text)
    except ValueError as exc:
        return None, str(exc)
    try:
        jsonschema.validate(value, schema)
    except jsonschema.ValidationError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "the top level"
        return value, f"at {where}: {exc.message}"
    return value, None


def generate_json(llm: LLM, messages: list[Message], schema: dict[str, Any], *, max_tokens: int = 256,
                  repairs: int = 1) -> Any:
    """Ask for JSON matching ``schema``; validate it; on failure ask ``repairs`` more times, showing the
    model its answer and what is wrong. Raises :class:`LLMError` when no valid answer comes back."""
    answer = llm.chat(messages, max_tokens=max_tokens, schema=schema)
    value, problem = _problem(answer, schema)
    for _ in range(repairs):
        if problem is None:
            break
        advice = (f"That answer is not valid: {problem}. Reply again with only JSON matching this schema: "
                  f"{json.dumps(schema)}")
        repair = [*messages, Message("assistant", answer), Message("user", advice)]
        answer = llm.chat(repair, max_tokens=max_tokens, schema=schema)
        value, problem = _problem(answer, schema)
    if problem is not None:
        raise LLMError(f"{llm.name} gave no valid JSON ({problem}); answer began {answer[:120]!r}")
    return value
