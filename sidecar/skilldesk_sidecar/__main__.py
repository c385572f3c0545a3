"""Entry point: ``python -m skilldesk_sidecar`` (or the PyInstaller binary).

``--describe`` prints the protocol's method lists as JSON and exits (used by the method-list test).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import threading

from .protocol import CALLBACKS, EVENTS, METHODS, PROTOCOL_VERSION


def prepare_environment() -> None:
    """Must run before DSPy is imported: caches in the app's folder, no network fetches."""
    os.environ.setdefault("DSPY_CACHEDIR", os.path.join(tempfile.gettempdir(), "skilldesk-sidecar", "dspy-cache"))
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TOKENIZERS_PARALLELISM"] = "false"


def block_network() -> None:
    """Refuse every outgoing network connection and name lookup for the life of the process.

    The sidecar reaches LMs only through the main process; this makes that a guarantee rather
    than a convention (an audit hook cannot be removed once added).
    """
    import socket

    loopback_ok = sys.platform == "win32"  # socket.socketpair() is emulated over loopback there

    def hook(event: str, args: tuple[object, ...]) -> None:
        if event in ("socket.connect", "socket.sendto", "socket.sendmsg"):
            sock = args[0]
            if getattr(sock, "family", None) == getattr(socket, "AF_UNIX", object()):
                return
            address = args[1] if len(args) > 1 else None
            if loopback_ok and isinstance(address, tuple) and address and address[0] in ("127.0.0.1", "::1"):
                return
            raise PermissionError("network access is disabled in the SkillDesk sidecar")
        if event in ("socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyaddr"):
            if loopback_ok and args and args[0] in ("127.0.0.1", "::1", "localhost"):
                return
            raise PermissionError("network access is disabled in the SkillDesk sidecar")

    sys.addaudithook(hook)


def describe() -> dict[str, object]:
    return {"protocol": PROTOCOL_VERSION, "methods": list(METHODS), "callbacks": list(CALLBACKS), "events": list(EVENTS)}


def main(argv: list[str]) -> int:
    if "--describe" in argv:
        print(json.dumps(describe()))
        return 0
    prepare_environment()
    block_network()
    # The protocol gets its own copy of fd 1; fd 1 and sys.stdout then point at stderr so that
    # anything a library prints (tqdm, DSPy, C extensions) cannot corrupt the message stream.
    protocol_out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    from .handlers import HANDLERS, load_runtime
    from .server import RemoteError, Server, log

    def warm_up() -> None:
        try:
            load_runtime()
        except RemoteError as e:
            log(e.message)

    # Import DSPy in the background: ping answers at once, other methods wait for the import.
    threading.Thread(target=warm_up, name="sidecar-warm-up", daemon=True).start()
    Server(sys.stdin.buffer, protocol_out, HANDLERS).serve()
    protocol_out.flush()
    return 0


if __name__ == "__main__":
    code = main(sys.argv[1:])
    sys.stderr.flush()
    # Worker threads may still be inside DSPy; they were cancelled and must not delay the exit.
    os._exit(code)
