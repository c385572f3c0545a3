"""The JSON-lines server: a reader that only routes, and a worker pool that runs requests.

The reader never blocks on work: a job waiting for an ``lm.complete`` answer from the main process
would otherwise deadlock it. ``ping`` and ``cancel`` are answered on the reader thread so they work
even when every worker is busy.
"""

from __future__ import annotations

import itertools
import sys
import threading
import traceback
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, BinaryIO

from .protocol import (
    CALLBACKS,
    EVENTS,
    MAX_LINE_BYTES,
    ProtocolError,
    Request,
    Response,
    encode,
    error_body,
    parse_line,
)
from .shapes import check as check_shape


def log(line: str) -> None:
    """Logs go to stderr; stdout is never the protocol channel."""
    print(f"[sidecar] {line}", file=sys.stderr, flush=True)


class RemoteError(Exception):
    """An error reply from the main process, or a failure the sidecar reports with a code."""

    def __init__(self, code: str, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details


class Cancelled(RemoteError):
    def __init__(self, message: str = "the request was cancelled") -> None:
        super().__init__("CANCELLED", message)


class RequestContext:
    """What a handler sees of its request: its id, cancellation, events and calls back to Node."""

    def __init__(self, server: Server, request_id: str) -> None:
        self._server = server
        self.id = request_id
        self.cancelled = threading.Event()

    def check_cancelled(self) -> None:
        if self.cancelled.is_set():
            raise Cancelled()

    def emit(self, event: str, data: dict[str, Any]) -> None:
        if event not in EVENTS:
            raise ValueError(f"unknown event {event!r}")
        problem = check_shape(f"{event}.data", data)
        if problem is not None:
            raise ValueError(f"malformed {event} event: {problem}")
        self.check_cancelled()
        self._server.send({"type": "event", "parent": self.id, "event": event, "data": data})

    def call(self, method: str, params: dict[str, Any]) -> Any:
        """Ask the main process for something (``lm.complete``) and wait for its answer."""
        return self._server.call(self, method, params)


Handler = Callable[[RequestContext, dict[str, Any]], Any]


class Server:
    def __init__(
        self,
        inp: BinaryIO,
        out: BinaryIO,
        handlers: Mapping[str, Handler],
        *,
        max_workers: int = 4,
        max_line_bytes: int = MAX_LINE_BYTES,
    ) -> None:
        self._in = inp
        self._out = out
        self._handlers = dict(handlers)
        self._max_line = max_line_bytes
        self._pool = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="sidecar-job")
        self._write_lock = threading.Lock()
        self._state_lock = threading.Lock()
        self._open: dict[str, RequestContext] = {}
        self._pending: dict[str, tuple[RequestContext, Future[Any]]] = {}
        self._ids = itertools.count(1)
        self._closed = False

    # -- output ------------------------------------------------------------------------------
    def send(self, message: dict[str, Any]) -> None:
        data = encode(message)
        with self._write_lock:
            try:
                self._out.write(data)
                self._out.flush()
            except (BrokenPipeError, OSError, ValueError):
                self._closed = True

    def _reply(self, msg_id: str | None, result: Any = None, error: dict[str, Any] | None = None) -> None:
        if error is not None:
            self.send({"id": msg_id, "type": "res", "error": error})
        else:
            self.send({"id": msg_id, "type": "res", "result": result})

    # -- calls to the main process -------------------------------------------------------------
    def call(self, ctx: RequestContext, method: str, params: dict[str, Any]) -> Any:
        if method not in CALLBACKS:
            raise ValueError(f"unknown callback {method!r}")
        future: Future[Any] = Future()
        with self._state_lock:
            if self._closed:
                raise Cancelled("the main process closed the connection")
            ctx.check_cancelled()
            call_id = f"p{next(self._ids)}"
            self._pending[call_id] = (ctx, future)
        self.send({"id": call_id, "type": "req", "method": method, "parent": ctx.id, "params": params})
        try:
            return future.result()
        finally:
            with self._state_lock:
                self._pending.pop(call_id, None)

    def _resolve(self, response: Response) -> None:
        with self._state_lock:
            entry = self._pending.pop(response.id, None)
        if entry is None:
            log(f"ignoring a response to unknown id {response.id!r}")
            return
        _, future = entry
        if response.error is not None:
            err = response.error
            details = err.get("details") if isinstance(err.get("details"), dict) else None
            future.set_exception(RemoteError(str(err["code"]), str(err["message"]), details))
        else:
            future.set_result(response.result)

    def _cancel(self, request_id: str, reason: str = "the request was cancelled") -> bool:
        with self._state_lock:
            ctx = self._open.get(request_id)
            if ctx is None:
                return False
            ctx.cancelled.set()
            waiting = [f for (c, f) in self._pending.values() if c is ctx]
        for future in waiting:
            if not future.done():
                future.set_exception(Cancelled(reason))
        return True

    # -- requests --------------------------------------------------------------------------------
    def _run(self, ctx: RequestContext, handler: Handler, params: dict[str, Any]) -> None:
        try:
            result = handler(ctx, params)
            self._reply(ctx.id, result=result)
        except RemoteError as e:
            self._reply(ctx.id, error=error_body(e.code, e.message, e.details))
        except Exception as e:  # a bug or a library failure: report it, keep serving
            log(f"request {ctx.id} failed:\n{traceback.format_exc()}")
            self._reply(ctx.id, error=error_body("SIDECAR_FAILED", f"{type(e).__name__}: {e}"))
        finally:
            with self._state_lock:
                self._open.pop(ctx.id, None)

    def _dispatch(self, request: Request) -> None:
        if request.method == "ping":
            self._reply(request.id, result={"pong": True})
            return
        if request.method == "cancel":
            target = request.params.get("id")
            if not isinstance(target, str):
                self._reply(request.id, error=error_body("INVALID_INPUT", "cancel needs params.id"))
                return
            self._reply(request.id, result={"cancelled": self._cancel(target)})
            return
        handler = self._handlers.get(request.method)
        if handler is None:
            self._reply(request.id, error=error_body("INVALID_INPUT", f"unknown method {request.method!r}"))
            return
        with self._state_lock:
            if request.id in self._open:
                duplicate = True
            else:
                duplicate = False
                ctx = RequestContext(self, request.id)
                self._open[request.id] = ctx
        if duplicate:
            self._reply(request.id, error=error_body("INVALID_INPUT", f"id {request.id!r} is already in use"))
            return
        try:
            self._pool.submit(self._run, ctx, handler, request.params)
        except RuntimeError:  # pool shut down
            with self._state_lock:
                self._open.pop(request.id, None)
            self._reply(request.id, error=error_body("SIDECAR_UNAVAILABLE", "the sidecar is shutting down"))

    def handle_line(self, line: bytes) -> None:
        """Route one line (without its newline). Malformed input gets an error reply."""
        if not line.strip():
            return
        try:
            message = parse_line(line)
        except ProtocolError as e:
            self._reply(e.msg_id, error=error_body(e.code, e.message))
            return
        if isinstance(message, Response):
            self._resolve(message)
        else:
            self._dispatch(message)

    def _read_line(self) -> tuple[bytes, bool] | None:
        """The next line and whether it fitted; None at end of input."""
        line = self._in.readline(self._max_line + 1)
        if not line:
            return None
        if line.endswith(b"\n"):
            return line[:-1], True
        if len(line) <= self._max_line:
            return line, True  # last line without a newline
        # Oversized: skip to the end of this line without holding it in memory.
        while True:
            chunk = self._in.readline(64 * 1024)
            if not chunk or chunk.endswith(b"\n"):
                return b"", False

    def serve(self) -> None:
        """Serve until the main process closes stdin, then cancel what is still running."""
        try:
            while True:
                item = self._read_line()
                if item is None:
                    break
                line, fitted = item
                if not fitted:
                    self._reply(None, error=error_body("TOO_LARGE", f"message is longer than {self._max_line} bytes"))
                    continue
                self.handle_line(line)
        finally:
            self.close()

    def close(self) -> None:
        """Cancel open requests (so none waits for an LM answer that cannot come), let the jobs
        finish, and stop the pool."""
        with self._state_lock:
            self._closed = True
            open_ids = list(self._open)
        for request_id in open_ids:
            self._cancel(request_id, "the main process closed the connection")
        self._pool.shutdown(wait=True)
