"""A persistent cache of LLM answers, so an explanation or an expansion is generated once.

Answers are keyed by the model's name and everything that shapes the answer (messages, schema, token
limit, temperature). Only deterministic calls (temperature 0) are cached: sampling at a higher temperature
asks for a fresh answer on purpose. SQLite (standard library) keeps the cache in one file that several
processes can share.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

from backends.llm.base import LLM, Message


class CachedLLM:
    """Wraps an :class:`LLM`; ``hits`` and ``misses`` count cache use in this process."""

    def __init__(self, llm: LLM, path: Path) -> None:
        self.llm = llm
        self.name = llm.name
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(path), check_same_thread=False, timeout=30)
        self._db.execute("CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, model TEXT, answer TEXT)")
        self._db.commit()
        self.hits = 0
        self.misses = 0

    def __repr__(self) -> str:
        return f"CachedLLM({self.llm!r}, path={str(self.path)!r})"

    @staticmethod
    def key(name: str, messages: list[Message], max_tokens: int, temperature: float,
            schema: dict[str, Any] | None) -> str:
        # A prompt's random delimiter nonce (backends.llm.Prompt) is keyed as a placeholder, so the same prompt
        # on the same data hits the cache whatever nonce it drew. The nonce never occurs in the data, so two
        # different prompts cannot share a key this way.
        shown = [{**m.as_dict(), "content": m.content.replace(m.nonce, "\x00nonce\x00") if m.nonce else m.content}
                 for m in messages]
        blob = json.dumps([name, shown, max_tokens, temperature, schema], sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()

    def chat(self, messages: list[Message], *, max_tokens: int = 256, temperature: float = 0.0,
             schema: dict[str, Any] | None = None) -> str:
        if temperature != 0.0:
            return self.llm.chat(messages, max_tokens=max_tokens, temperature=temperature, schema=schema)
        key = self.key(self.name, messages, max_tokens, temperature, schema)
        with self._lock:
            row = self._db.execute("SELECT answer FROM answers WHERE key = ?", (key,)).fetchone()
        if row is not None:
            self.hits += 1
            return row[0]
        self.misses += 1
        answer = self.llm.chat(messages, max_tokens=max_tokens, temperature=temperature, schema=schema)
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO answers VALUES (?, ?, ?)", (key, self.name, answer))
            self._db.commit()
        return answer

    def close(self) -> None:
        self._db.close()
