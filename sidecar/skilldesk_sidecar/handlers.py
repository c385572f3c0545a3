"""The method handlers. DSPy is imported lazily so that ``ping`` and ``version`` answer (and say
what is wrong) even when DSPy is missing or broken.

Importing DSPy costs over a second of CPU (pydantic models, numpy, its vendored clients). The
start-up handshake therefore does not wait for it: ``version`` names the installed DSPy from its
package metadata and says with ``dspy_loaded`` whether the import has finished; ``manifest``,
``execute`` and ``optimize`` wait for the import (started in the background at process start). An
import that already failed is reported by ``version`` as before (``dspy`` null, ``dspy_error``).
"""

from __future__ import annotations

import platform
import sys
import threading
from types import ModuleType
from typing import Any

from . import __version__
from .protocol import CALLBACKS, EVENTS, METHODS, PROTOCOL_VERSION
from .server import Handler, RemoteError, RequestContext

_runtime: ModuleType | None = None
_runtime_error: str | None = None
_runtime_lock = threading.Lock()
_runtime_loaded = threading.Event()


def installed_dspy_version() -> str | None:
    """DSPy's version from its package metadata (no import), or None when that cannot be read
    (not installed, or a frozen build without the metadata)."""
    try:
        from importlib.metadata import PackageNotFoundError, version
    except ImportError:  # pragma: no cover - always present on 3.11
        return None
    try:
        return version("dspy")
    except (PackageNotFoundError, ValueError, OSError):
        return None


def load_runtime() -> ModuleType:
    """The DSPy-backed part of the sidecar, imported once; SIDECAR_UNAVAILABLE when it cannot be."""
    global _runtime, _runtime_error
    with _runtime_lock:
        if _runtime is None and _runtime_error is None:
            try:
                from . import runtime

                _runtime = runtime
            except Exception as e:  # ImportError, or DSPy failing at import time
                _runtime_error = f"{type(e).__name__}: {e}"
            finally:
                _runtime_loaded.set()
        if _runtime is None:
            raise RemoteError("SIDECAR_UNAVAILABLE", f"DSPy cannot be loaded: {_runtime_error}")
        return _runtime


def handle_version(ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
    info: dict[str, Any] = {
        "protocol": PROTOCOL_VERSION,
        "sidecar": __version__,
        "python": platform.python_version(),
        "frozen": bool(getattr(sys, "frozen", False)),
        "methods": list(METHODS),
        "callbacks": list(CALLBACKS),
        "events": list(EVENTS),
    }
    installed = installed_dspy_version() if not _runtime_loaded.is_set() else None
    if installed is not None:
        # Still importing (or not started): the handshake does not wait for it.
        info["dspy"] = installed
        info["dspy_loaded"] = False
        return info
    try:
        info["dspy"] = load_runtime().dspy_version()
        info["dspy_loaded"] = True
    except RemoteError as e:
        info["dspy"] = None
        info["dspy_error"] = e.message
        info["dspy_loaded"] = False
    return info


def handle_manifest(ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
    return load_runtime().manifest()


def handle_execute(ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
    return load_runtime().execute(ctx, params)


def handle_optimize(ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
    return load_runtime().optimize(ctx, params)


def _inline(ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
    raise AssertionError("answered by the server's reader thread")


#: One handler per protocol method (ping and cancel are answered inline by the server).
HANDLERS: dict[str, Handler] = {
    "ping": _inline,
    "version": handle_version,
    "manifest": handle_manifest,
    "execute": handle_execute,
    "optimize": handle_optimize,
    "cancel": _inline,
}

assert tuple(HANDLERS) == METHODS, "HANDLERS must list exactly protocol.METHODS"
