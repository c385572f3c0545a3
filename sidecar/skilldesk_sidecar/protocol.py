"""The wire protocol: one JSON object per line, in both directions.

Kept free of DSPy so that it imports on any Python (the method-list test uses it).

Node -> sidecar   {"id": "n1", "type": "req", "method": M, "params": {...}}
sidecar -> Node   {"id": "n1", "type": "res", "result": ...} | {"id": "n1", "type": "res", "error": {...}}
sidecar -> Node   {"type": "event", "parent": "n1", "event": E, "data": {...}}
sidecar -> Node   {"id": "p1", "type": "req", "method": "lm.complete", "parent": "n1", "params": {...}}
Node -> sidecar   {"id": "p1", "type": "res", "result": {...}} | {... "error": {...}}

These are the messages of the main process's RPC peer (electron/rpc). The shapes of params,
results and events are TypedDicts in ``shapes.py``; ``sidecar/protocol.json`` is generated from
the TypeScript schemas and tests on both sides check they agree.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

PROTOCOL_VERSION = 1

#: Methods the main process may call. Mirrored by SIDECAR_METHODS in electron/sidecar-client.
METHODS: tuple[str, ...] = ("ping", "version", "manifest", "execute", "optimize", "cancel")
#: Methods the sidecar calls on the main process while one of its requests is open.
CALLBACKS: tuple[str, ...] = ("lm.complete",)
#: Events the sidecar emits about an open request.
EVENTS: tuple[str, ...] = ("progress",)

#: Longest accepted line, newline excluded. Longer input is skipped and answered with TOO_LARGE.
MAX_LINE_BYTES = 8 * 1024 * 1024
MAX_ID_CHARS = 64


class ProtocolError(Exception):
    """A message that cannot be served; answered with an error reply, never fatal."""

    def __init__(self, code: str, message: str, msg_id: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.msg_id = msg_id


@dataclass(frozen=True)
class Request:
    id: str
    method: str
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Response:
    id: str
    result: Any = None
    error: dict[str, Any] | None = None


Message = Request | Response


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def parse_line(line: bytes) -> Message:
    """Parse and check one line from the main process. Raises ProtocolError."""
    if len(line) > MAX_LINE_BYTES:
        raise ProtocolError("TOO_LARGE", f"message is longer than {MAX_LINE_BYTES} bytes")
    try:
        obj = json.loads(line.decode("utf-8"), parse_constant=_reject_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise ProtocolError("INVALID_INPUT", f"malformed JSON: {e}") from None
    if not isinstance(obj, dict):
        raise ProtocolError("INVALID_INPUT", "a message must be a JSON object")
    raw_id = obj.get("id")
    msg_id = raw_id if isinstance(raw_id, str) and 0 < len(raw_id) <= MAX_ID_CHARS else None
    kind = obj.get("type")
    if msg_id is None:
        raise ProtocolError("INVALID_INPUT", f"'id' must be a string of 1..{MAX_ID_CHARS} characters")
    if kind == "req":
        method = obj.get("method")
        if not isinstance(method, str):
            raise ProtocolError("INVALID_INPUT", "'method' must be a string", msg_id)
        params = obj.get("params", {})
        if params is None:
            params = {}
        if not isinstance(params, dict):
            raise ProtocolError("INVALID_INPUT", "'params' must be an object", msg_id)
        return Request(msg_id, method, params)
    if kind == "res":
        has_result = "result" in obj
        err = obj.get("error")
        if has_result == (err is not None):
            raise ProtocolError("INVALID_INPUT", "a response has exactly one of 'result' and 'error'", msg_id)
        if err is not None:
            if not (isinstance(err, dict) and isinstance(err.get("code"), str) and isinstance(err.get("message"), str)):
                raise ProtocolError("INVALID_INPUT", "'error' must be {code, message}", msg_id)
            return Response(msg_id, error=err)
        return Response(msg_id, result=obj["result"])
    raise ProtocolError("INVALID_INPUT", "'type' must be 'req' or 'res'", msg_id)


def _plain(value: Any) -> Any:
    """Last resort for values json cannot encode (e.g. a pydantic model in a prediction)."""
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json")
    return str(value)


def _without_non_finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _without_non_finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_without_non_finite(v) for v in value]
    return value


def encode(message: dict[str, Any]) -> bytes:
    """One protocol line. ASCII-only so no line separator inside a string can split a message."""
    try:
        text = json.dumps(message, ensure_ascii=True, separators=(",", ":"), allow_nan=False, default=_plain)
    except ValueError:
        text = json.dumps(
            _without_non_finite(message), ensure_ascii=True, separators=(",", ":"), allow_nan=False, default=_plain
        )
    return text.encode("ascii") + b"\n"


def error_body(code: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"code": code, "message": message}
    if details:
        body["details"] = details
    return body
