"""A persistent, thread-safe response cache for LLM ratings (one sqlite file under ``outputs/``).

Entries are keyed by a SHA-256 of the model, the exact messages and the request parameters
(endpoint, temperature, run index), so re-running the same evaluation
answers every rating from the cache and sends no request. Only answers that parsed into a valid
rating are stored: a failed answer is asked again next time. Whether the answer came with
structured output is not part of the key (every stored answer passed the same validation), so a
server that refuses ``response_format`` still gets a fully cached re-run. The API key is never
part of a key or a row.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError

CACHE_FILE = "llm_cache.sqlite"


@dataclass(frozen=True)
class CachedAnswer:
    content: str
    prompt_tokens: int
    completion_tokens: int


def cache_key(model: str, messages: list[dict], params: dict) -> str:
    """SHA-256 hex digest of model + messages + parameters (canonical JSON)."""
    blob = json.dumps({"model": model, "messages": messages, "params": params}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class ResponseCache:
    """sqlite-backed cache of LLM answers.

    Parameters
    ----------
    path : str or Path
        The sqlite file (created with its folder). A folder may be given: the file is then
        ``<folder>/llm_cache.sqlite``.
    """

    def __init__(self, path):
        path = Path(path)
        if path.suffix == "" or path.is_dir():
            path = path / CACHE_FILE
        self.path = path
        self._lock = threading.Lock()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = sqlite3.connect(str(path), check_same_thread=False, timeout=30)
            with self._conn:
                self._conn.execute("PRAGMA journal_mode=WAL")
                self._conn.execute("CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, model TEXT NOT NULL, "
                                   "content TEXT NOT NULL, prompt_tokens INTEGER NOT NULL, "
                                   "completion_tokens INTEGER NOT NULL, created REAL NOT NULL)")
        except (OSError, sqlite3.Error) as err:
            raise ConfigError(f"The LLM response cache {path} cannot be opened ({err}). Point output.dir at a "
                              "writable folder or set personas.cache: false.") from err

    def get(self, key: str) -> CachedAnswer | None:
        with self._lock:
            row = self._conn.execute("SELECT content, prompt_tokens, completion_tokens FROM answers WHERE key = ?",
                                     (key,)).fetchone()
        return CachedAnswer(*row) if row else None

    def contains(self, key: str) -> bool:
        return self.get(key) is not None

    def put(self, key: str, model: str, answer: CachedAnswer) -> None:
        with self._lock, self._conn:
            self._conn.execute("INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?, ?, ?)",
                               (key, model, answer.content, answer.prompt_tokens, answer.completion_tokens,
                                time.time()))

    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM answers").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._conn.close()
