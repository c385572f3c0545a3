"""A DSPy LM whose every completion is answered by the main process over the pipe.

The engine turns DSPy's canonical request into ``lm.complete`` params
``{model?, messages: [{role, content}], temperature?, max_tokens?}`` and the main process answers
``{text, input_tokens?, output_tokens?}`` through its own provider layer (keys, usage, traces).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import dspy
from dspy.lm15 import Message, Request, Response, TextPart, Usage, response_to_events

from .server import RemoteError
from .shapes import check as check_shape

#: The model name DSPy sees; the real one (if any) travels in the lm.complete params.
BRIDGE_MODEL = "skilldesk/bridge"
MAX_MESSAGES = 512

LmCall = Callable[[dict[str, Any]], Any]


@dataclass
class UsageTotals:
    """LM usage of one request, as reported back by the main process (thread-safe)."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0

    def __post_init__(self) -> None:
        self._lock = threading.Lock()

    def add(self, input_tokens: int, output_tokens: int) -> None:
        with self._lock:
            self.calls += 1
            self.input_tokens += input_tokens
            self.output_tokens += output_tokens

    def as_dict(self) -> dict[str, int]:
        return {"lm_calls": self.calls, "input_tokens": self.input_tokens, "output_tokens": self.output_tokens}


def _text_of(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "".join(getattr(part, "text", None) or "" for part in content)


def request_to_params(request: Request, model: str | None) -> dict[str, Any]:
    """The lm.complete params for one DSPy request."""
    messages: list[dict[str, str]] = []
    if request.system is not None:
        messages.append({"role": "system", "content": _text_of(request.system)})
    for message in request.messages:
        role = message.role if message.role in ("user", "assistant", "system") else "user"
        messages.append({"role": role, "content": message.text or _text_of(message.parts)})
    if len(messages) > MAX_MESSAGES:
        raise RemoteError("TOO_LARGE", f"an LM request may hold at most {MAX_MESSAGES} messages")
    params: dict[str, Any] = {"messages": messages}
    if model:
        params["model"] = model
    config = request.config
    if config.temperature is not None:
        params["temperature"] = float(config.temperature)
    if config.max_tokens is not None:
        params["max_tokens"] = int(config.max_tokens)
    return params


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


class BridgeEngine:
    """A DSPy engine (``complete(Request) -> Response``) backed by the main process."""

    def __init__(self, call: LmCall, model: str | None, usage: UsageTotals) -> None:
        self._call = call
        self._model = model
        self.usage = usage

    def complete(self, request: Request) -> Response:
        answer = self._call(request_to_params(request, self._model))
        problem = check_shape("lm.complete.result", answer)
        if problem is not None:
            raise RemoteError("LLM_FAILED", f"lm.complete answered with a malformed result: {problem}")
        input_tokens = _count(answer.get("input_tokens"))
        output_tokens = _count(answer.get("output_tokens"))
        self.usage.add(input_tokens, output_tokens)
        return Response(
            id=None,
            model=request.model,
            message=Message.assistant([TextPart(answer["text"])]),
            finish_reason="stop",
            usage=Usage(input_tokens=input_tokens, output_tokens=output_tokens, total_tokens=input_tokens + output_tokens),
        )

    def stream(self, request: Request) -> Iterator[Any]:
        return iter(response_to_events(self.complete(request)))

    def close(self) -> None:
        pass


def make_lm(call: LmCall, model: str | None, usage: UsageTotals) -> dspy.LM:
    """A dspy.LM routed to the main process: no cache, no retries (the provider layer retries)."""
    return dspy.LM(BRIDGE_MODEL, engine=BridgeEngine(call, model, usage), cache=False, num_retries=0)
