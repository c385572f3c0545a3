"""Shared fixtures: an in-process server on OS pipes, driven the way the main process drives it."""

from __future__ import annotations

import json
import os
import queue
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

SIDECAR_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(SIDECAR_DIR))

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

LmAnswer = Callable[[dict[str, Any]], dict[str, Any]]


class Harness:
    """Plays the main process: sends requests, collects replies and events, answers lm.complete."""

    def __init__(self, max_line_bytes: int | None = None) -> None:
        from skilldesk_sidecar.handlers import HANDLERS
        from skilldesk_sidecar.server import Server

        to_server_r, self._to_server_w = os.pipe()
        from_server_r, from_server_w = os.pipe()
        self._writer = os.fdopen(self._to_server_w, "wb")
        self._reader = os.fdopen(from_server_r, "rb")
        kwargs = {} if max_line_bytes is None else {"max_line_bytes": max_line_bytes}
        self.server = Server(os.fdopen(to_server_r, "rb"), os.fdopen(from_server_w, "wb"), HANDLERS, **kwargs)
        self._thread = threading.Thread(target=self.server.serve, daemon=True)
        self._thread.start()
        self.messages: queue.Queue[dict[str, Any]] = queue.Queue()
        self._pump = threading.Thread(target=self._read, daemon=True)
        self._pump.start()
        self._next = 0
        self.lm_requests: list[dict[str, Any]] = []

    def _read(self) -> None:
        for line in self._reader:
            self.messages.put(json.loads(line))

    def raw(self, data: bytes) -> None:
        self._writer.write(data)
        self._writer.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.raw(json.dumps(message).encode() + b"\n")

    def request(self, method: str, params: dict[str, Any] | None = None) -> str:
        self._next += 1
        msg_id = f"n{self._next}"
        self.send({"id": msg_id, "type": "req", "method": method, "params": params or {}})
        return msg_id

    def next_message(self, timeout: float = 60) -> dict[str, Any]:
        return self.messages.get(timeout=timeout)

    def run(
        self, method: str, params: dict[str, Any] | None = None, lm: LmAnswer | None = None
    ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """Send one request, answer its LM calls with ``lm`` and return (response, events)."""
        msg_id = self.request(method, params)
        events: list[dict[str, Any]] = []
        while True:
            msg = self.next_message()
            if msg["type"] == "req":
                assert msg["method"] == "lm.complete" and msg["parent"] == msg_id
                self.lm_requests.append(msg)
                if lm is None:
                    self.send({"id": msg["id"], "type": "res", "error": {"code": "LLM_NOT_CONFIGURED", "message": "no LM"}})
                else:
                    try:
                        self.send({"id": msg["id"], "type": "res", "result": lm(msg["params"])})
                    except LmFailure as e:
                        self.send({"id": msg["id"], "type": "res", "error": {"code": e.code, "message": str(e)}})
            elif msg["type"] == "event":
                assert msg["parent"] == msg_id
                events.append(msg)
            else:
                assert msg["id"] == msg_id, msg
                return msg, events

    def close(self) -> None:
        self._writer.close()
        self._thread.join(timeout=30)


class LmFailure(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@pytest.fixture
def harness() -> Iterator[Harness]:
    h = Harness()
    yield h
    h.close()


@pytest.fixture
def small_harness() -> Iterator[Harness]:
    h = Harness(max_line_bytes=1024)
    yield h
    h.close()
