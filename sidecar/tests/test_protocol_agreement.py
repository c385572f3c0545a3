"""Both sides of the protocol agree: protocol.json is generated from the TypeScript schemas
(a vitest keeps it current); here the Python side is checked against it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from skilldesk_sidecar.handlers import HANDLERS
from skilldesk_sidecar.protocol import CALLBACKS, EVENTS, METHODS, PROTOCOL_VERSION
from skilldesk_sidecar.shapes import ERROR_CODES, SHAPES, check

from .conftest import Harness

PACKAGE = Path(__file__).resolve().parents[1] / "skilldesk_sidecar"
DOCUMENT = json.loads((Path(__file__).resolve().parents[1] / "protocol.json").read_text())


def test_methods_callbacks_events_and_version_agree() -> None:
    assert DOCUMENT["protocol"] == PROTOCOL_VERSION
    assert list(METHODS) == DOCUMENT["methods"] == list(HANDLERS)
    assert list(CALLBACKS) == DOCUMENT["callbacks"]
    assert list(EVENTS) == DOCUMENT["events"]


def test_every_error_code_the_sidecar_sends_is_known_to_the_main_process() -> None:
    assert set(ERROR_CODES) <= set(DOCUMENT["error_codes"])
    used: set[str] = set()
    for source in PACKAGE.glob("*.py"):
        text = source.read_text()
        used |= set(re.findall(r'(?:RemoteError|error_body|ProtocolError)\(\s*"([A-Z_]+)"', text))
    assert used, "no error codes found in the sidecar's sources"
    assert used <= set(ERROR_CODES), f"codes not declared in shapes.ERROR_CODES: {used - set(ERROR_CODES)}"


def _object_shapes() -> list[str]:
    return [name for name, s in DOCUMENT["shapes"].items() if s.get("type") == "object"]


def test_every_object_shape_has_a_typed_dict() -> None:
    assert sorted(_object_shapes()) == sorted(SHAPES)


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_typed_dict_keys_match_the_schema(name: str) -> None:
    schema: dict[str, Any] = DOCUMENT["shapes"][name]
    td = SHAPES[name]
    properties = set(schema.get("properties", {}))
    required = set(schema.get("required", []))
    assert set(td.__required_keys__) == required, name
    assert set(td.__optional_keys__) == properties - required, name


def test_what_the_sidecar_answers_fits_both_the_schema_and_the_typed_dict(harness: Harness) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    for method in ("ping", "version", "manifest"):
        reply, _ = harness.run(method)
        jsonschema.validate(reply, DOCUMENT["shapes"]["message.from_sidecar"])
        assert "result" in reply, reply
        jsonschema.validate(reply["result"], DOCUMENT["shapes"][f"{method}.result"])
        assert check(f"{method}.result", reply["result"]) is None
    error = {"code": "INVALID_INPUT", "message": "m"}
    jsonschema.validate(error, DOCUMENT["shapes"]["error"])
    assert check("error", error) is None
    progress = {"phase": "compile", "done": 1, "total": 2}
    jsonschema.validate(progress, DOCUMENT["shapes"]["progress.data"])
    assert check("progress.data", progress) is None
    assert check("progress.data", {"phase": "train", "done": 1, "total": 2}) is not None
    assert check("lm.complete.result", {"input_tokens": 3}) == "'text' is missing"
