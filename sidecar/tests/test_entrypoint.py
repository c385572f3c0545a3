"""The real entry point in a child process: a clean protocol channel, no network, clean exit."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from skilldesk_sidecar.protocol import CALLBACKS, EVENTS, METHODS

SIDECAR_DIR = Path(__file__).resolve().parent.parent


def _python(code: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-c", code], input=stdin, cwd=SIDECAR_DIR, capture_output=True, timeout=120, check=False
    )


def test_describe_lists_the_protocol() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "skilldesk_sidecar", "--describe"], cwd=SIDECAR_DIR, capture_output=True, check=True
    )
    assert json.loads(out.stdout) == {
        "protocol": 1,
        "methods": list(METHODS),
        "callbacks": list(CALLBACKS),
        "events": list(EVENTS),
    }


def test_prints_from_libraries_never_reach_the_protocol_channel() -> None:
    code = """
import os, sys
from skilldesk_sidecar import __main__ as entry, handlers
def noisy(ctx, params):
    print("print noise")
    os.write(1, b"raw fd noise\\n")
    return {"ok": True}
handlers.HANDLERS["manifest"] = noisy
sys.exit(entry.main([]))
"""
    stdin = b'{"id":"n1","type":"req","method":"manifest"}\n{"id":"n2","type":"req","method":"ping"}\n'
    done = _python(code, stdin)
    assert done.returncode == 0, done.stderr.decode()
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert sorted(m["id"] for m in lines) == ["n1", "n2"]
    assert b"print noise" in done.stderr and b"raw fd noise" in done.stderr


def test_the_sidecar_cannot_open_network_connections() -> None:
    code = """
import socket
from skilldesk_sidecar import __main__ as entry
entry.prepare_environment()
entry.block_network()
for attempt in (lambda: socket.create_connection(("127.0.0.1", 9), timeout=1),
                lambda: socket.getaddrinfo("example.com", 443)):
    try:
        attempt()
    except PermissionError as e:
        print("blocked:", e)
    except OSError as e:
        print("not blocked:", e)
a, b = socket.socketpair()
a.sendall(b"x"); print("socketpair ok", b.recv(1))
import os
print("env", os.environ["LITELLM_LOCAL_MODEL_COST_MAP"], bool(os.environ["DSPY_CACHEDIR"]))
"""
    done = _python(code)
    out = done.stdout.decode()
    assert out.count("blocked: network access is disabled") == 2, out + done.stderr.decode()
    assert "not blocked" not in out
    assert "socketpair ok b'x'" in out
    assert "env True True" in out


def test_the_sidecar_exits_when_stdin_closes() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "skilldesk_sidecar"],
        input=b'{"id":"n1","type":"req","method":"ping"}',
        cwd=SIDECAR_DIR,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0
    assert json.loads(done.stdout) == {"id": "n1", "type": "res", "result": {"pong": True}}


def test_version_answers_before_dspy_is_imported_and_says_so() -> None:
    """The handshake names the installed DSPy without importing it (over a second of CPU);
    ``dspy_loaded`` turns true once the import is done, and then names the imported version."""
    code = """
import json, sys
from skilldesk_sidecar import handlers
before = handlers.handle_version(None, {})
imported_early = "dspy" in sys.modules
handlers.load_runtime()
after = handlers.handle_version(None, {})
print(json.dumps({"before": before, "imported_early": imported_early, "after": after}))
"""
    done = _python(code)
    assert done.returncode == 0, done.stderr.decode()
    out = json.loads(done.stdout)
    assert out["imported_early"] is False
    assert out["before"]["dspy_loaded"] is False
    assert out["after"]["dspy_loaded"] is True
    assert out["before"]["dspy"] == out["after"]["dspy"]
    assert isinstance(out["after"]["dspy"], str) and out["after"]["dspy"]
