"""Framing, ids, interleaving and malformed input, on the in-process server."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from skilldesk_sidecar.handlers import HANDLERS
from skilldesk_sidecar.protocol import CALLBACKS, EVENTS, METHODS, ProtocolError, Request, Response, encode, parse_line

from .conftest import Harness
from .fake_lm import answer

CLIENT_PROTOCOL = Path(__file__).resolve().parents[2] / "electron" / "sidecar-client" / "protocol.ts"


def _ts_list(source: str, name: str) -> list[str]:
    match = re.search(rf"export const {name} = \[(.*?)\] as const", source, re.S)
    assert match, f"{name} not found in {CLIENT_PROTOCOL}"
    return re.findall(r"'([^']+)'", match.group(1))


def test_both_sides_list_the_same_methods() -> None:
    assert tuple(HANDLERS) == METHODS
    if not CLIENT_PROTOCOL.exists():
        pytest.skip(f"{CLIENT_PROTOCOL} is not there")
    source = CLIENT_PROTOCOL.read_text()
    assert _ts_list(source, "SIDECAR_METHODS") == list(METHODS)
    assert _ts_list(source, "SIDECAR_CALLBACKS") == list(CALLBACKS)
    assert _ts_list(source, "SIDECAR_EVENTS") == list(EVENTS)


def test_parse_line_accepts_requests_and_responses() -> None:
    assert parse_line(b'{"id":"n1","type":"req","method":"ping"}') == Request("n1", "ping", {})
    assert parse_line(b'{"id":"p1","type":"res","result":{"text":"x"}}') == Response("p1", result={"text": "x"})
    err = parse_line(b'{"id":"p2","type":"res","error":{"code":"LLM_FAILED","message":"m"}}')
    assert isinstance(err, Response) and err.error == {"code": "LLM_FAILED", "message": "m"}


@pytest.mark.parametrize(
    ("line", "keeps_id"),
    [
        (b"not json", False),
        (b"[1,2]", False),
        (b'{"type":"req","method":"ping"}', False),
        (b'{"id":5,"type":"req","method":"ping"}', False),
        (b'{"id":"n1","type":"req"}', True),
        (b'{"id":"n1","type":"req","method":"x","params":[1]}', True),
        (b'{"id":"n1","type":"res"}', True),
        (b'{"id":"n1","type":"res","result":1,"error":{"code":"X","message":"y"}}', True),
        (b'{"id":"n1","type":"what"}', True),
        (b'{"id":"n1","type":"req","method":"ping","params":{"x":NaN}}', False),
        (b"\xff\xfe", False),
        (b"[" * 100_000, False),
    ],
)
def test_parse_line_rejects_malformed_messages(line: bytes, keeps_id: bool) -> None:
    with pytest.raises(ProtocolError) as info:
        parse_line(line)
    assert info.value.code == "INVALID_INPUT"
    assert (info.value.msg_id == "n1") is keeps_id


def test_encode_is_one_ascii_line() -> None:
    data = encode({"text": "a\u2028b\nc é", "bad": float("nan")})
    assert data.endswith(b"\n") and data.count(b"\n") == 1
    assert json.loads(data) == {"text": "a\u2028b\nc é", "bad": None}


def test_ping_echoes_the_id(harness: Harness) -> None:
    msg_id = harness.request("ping")
    assert harness.next_message() == {"id": msg_id, "type": "res", "result": {"pong": True}}


def test_malformed_lines_get_an_error_and_the_server_keeps_serving(harness: Harness) -> None:
    harness.raw(b"garbage\n")
    assert harness.next_message()["error"]["code"] == "INVALID_INPUT"
    harness.raw(b'{"id":"n9","type":"req","method":"no-such-method"}\n')
    reply = harness.next_message()
    assert reply["id"] == "n9" and reply["error"]["code"] == "INVALID_INPUT"
    harness.raw(b"\n\n")  # blank lines are ignored
    msg_id = harness.request("ping")
    assert harness.next_message()["id"] == msg_id


def test_oversized_lines_are_skipped_with_too_large(small_harness: Harness) -> None:
    small_harness.raw(b'{"id":"n1","type":"req","method":"ping","params":{"x":"' + b"a" * 5000 + b'"}}\n')
    reply = small_harness.next_message()
    assert reply["id"] is None and reply["error"]["code"] == "TOO_LARGE"
    msg_id = small_harness.request("ping")
    assert small_harness.next_message() == {"id": msg_id, "type": "res", "result": {"pong": True}}


def test_responses_to_unknown_ids_are_ignored(harness: Harness) -> None:
    harness.send({"id": "p404", "type": "res", "result": {"text": "late"}})
    msg_id = harness.request("ping")
    assert harness.next_message()["id"] == msg_id


def test_version_reports_the_protocol(harness: Harness) -> None:
    reply, _ = harness.run("version")
    assert reply["result"]["protocol"] == 1
    assert reply["result"]["methods"] == list(METHODS)


def _execute_params(word: str) -> dict[str, object]:
    return {"template_id": "predict", "signature": "word -> upper", "params": {"word": word}}


def test_interleaved_requests_are_answered_by_id(harness: Harness) -> None:
    """Two executes in flight; their LM calls are answered in reverse order."""
    pytest.importorskip("dspy")
    first = harness.request("execute", _execute_params("alpha"))
    second = harness.request("execute", _execute_params("beta"))
    calls = {}
    while len(calls) < 2:
        msg = harness.next_message()
        assert msg["type"] == "req" and msg["method"] == "lm.complete"
        calls[msg["parent"]] = msg
    assert calls[first]["id"] != calls[second]["id"]
    # A ping is answered while both jobs wait for their LM.
    ping = harness.request("ping")
    assert harness.next_message()["id"] == ping
    for parent in (second, first):
        call = calls[parent]
        harness.send({"id": call["id"], "type": "res", "result": answer(call["params"])})
    replies = {m["id"]: m for m in (harness.next_message(), harness.next_message())}
    assert replies[first]["result"]["outputs"] == {"upper": "ALPHA"}
    assert replies[second]["result"]["outputs"] == {"upper": "BETA"}


def test_duplicate_open_id_is_refused(harness: Harness) -> None:
    pytest.importorskip("dspy")
    harness.send({"id": "n1", "type": "req", "method": "execute", "params": _execute_params("x")})
    call = harness.next_message()
    assert call["method"] == "lm.complete"
    harness.send({"id": "n1", "type": "req", "method": "execute", "params": _execute_params("y")})
    dup = harness.next_message()
    assert dup["id"] == "n1" and "already in use" in dup["error"]["message"]
    harness.send({"id": call["id"], "type": "res", "result": answer(call["params"])})
    assert harness.next_message()["result"]["outputs"] == {"upper": "X"}


def test_cancel_releases_a_request_waiting_for_its_lm(harness: Harness) -> None:
    pytest.importorskip("dspy")
    msg_id = harness.request("execute", _execute_params("slow"))
    call = harness.next_message()
    assert call["parent"] == msg_id
    cancel = harness.request("cancel", {"id": msg_id})
    replies = {m["id"]: m for m in (harness.next_message(), harness.next_message())}
    assert replies[cancel]["result"] == {"cancelled": True}
    assert replies[msg_id]["error"]["code"] == "CANCELLED"
    # The late LM answer is ignored and the server keeps serving.
    harness.send({"id": call["id"], "type": "res", "result": answer(call["params"])})
    ping = harness.request("ping")
    assert harness.next_message()["id"] == ping


def test_cancel_of_an_unknown_id_says_so(harness: Harness) -> None:
    msg_id = harness.request("cancel", {"id": "n999"})
    assert harness.next_message() == {"id": msg_id, "type": "res", "result": {"cancelled": False}}
