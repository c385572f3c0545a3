"""Signature parsing, the template manifest and state-blob validation."""

from __future__ import annotations

import base64
import json

import pytest

pytest.importorskip("dspy", reason="DSPy is not installed: run `node scripts/setup-sidecar.mjs`")

from skilldesk_sidecar.server import RemoteError  # noqa: E402
from skilldesk_sidecar.templates import (  # noqa: E402
    TEMPLATES,
    build_module,
    decode_state_blob,
    dump_state,
    load_state,
    manifest,
    parse_signature,
    sanitize_state,
)


def test_parse_signature_keeps_order_and_types() -> None:
    spec = parse_signature(" claims, limit: int -> contradictions: list[str], count:int ")
    assert spec.inputs == (("claims", "str"), ("limit", "int"))
    assert spec.outputs == (("contradictions", "list[str]"), ("count", "int"))
    assert spec.text() == "claims, limit: int -> contradictions: list[str], count: int"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "a",
        "a -> b -> c",
        "-> b",
        "a ->",
        "a, -> b",
        "1a -> b",
        "a -> reasoning",
        "draft -> b",
        "a: os.system -> b",
        "a: __import__('os') -> b",
        "a, a -> b",
        None,
        "x" * 3000,
    ],
)
def test_parse_signature_rejects_bad_input(text: object) -> None:
    with pytest.raises(RemoteError) as info:
        parse_signature(text)
    assert info.value.code == "INVALID_INPUT"


def test_manifest_lists_the_shipped_templates() -> None:
    m = manifest()
    ids = [t["id"] for t in m["templates"]]
    assert ids == ["predict", "chain_of_thought", "draft_refine"]
    assert {t["id"]: t["predictors"] for t in m["templates"]} == {
        "predict": ["self"],
        "chain_of_thought": ["predict"],
        "draft_refine": ["draft.predict", "refine"],
    }


@pytest.mark.parametrize("template_id", list(TEMPLATES))
def test_dump_then_load_state_round_trips(template_id: str) -> None:
    spec = parse_signature("question -> answer")
    module = build_module(TEMPLATES[template_id], spec, "Answer briefly.")
    for _, predictor in module.named_predictors():
        predictor.demos = [{"question": "q", "answer": "a"}]
    state = dump_state(module)
    assert json.loads(json.dumps(state)) == state
    fresh = build_module(TEMPLATES[template_id], spec)
    assert load_state(fresh, state) == []
    assert dump_state(fresh) == state


@pytest.mark.parametrize("template_id", list(TEMPLATES))
def test_each_build_is_a_fresh_module_that_state_loaded_into_another_cannot_reach(template_id: str) -> None:
    """Modules come from a cached prototype; what one request loads or changes stays its own."""
    spec = parse_signature("question -> answer")
    first = build_module(TEMPLATES[template_id], spec)
    pristine = dump_state(first)
    for _, predictor in first.named_predictors():
        predictor.demos = [{"question": "q", "answer": "a"}]
    trained = dump_state(first)
    predictors = [trained] if "signature" in trained else [v for v in trained.values() if isinstance(v, dict) and "signature" in v]
    assert predictors
    for entry in predictors:
        entry["signature"]["instructions"] = "Be terse."  # type: ignore[index]
    loaded = build_module(TEMPLATES[template_id], spec)
    assert load_state(loaded, trained) == []
    assert dump_state(loaded) == trained
    again = build_module(TEMPLATES[template_id], spec)
    assert again is not first and again is not loaded
    assert dump_state(again) == pristine != trained


def test_state_blob_may_arrive_as_text_or_base64() -> None:
    state = {"self": {"demos": []}}
    text = json.dumps(state)
    assert decode_state_blob(text) == state
    assert decode_state_blob(base64.b64encode(text.encode()).decode()) == state
    assert decode_state_blob(None) is None
    for bad in ("not base64!", "[1]", 5, base64.b64encode(b"[1]").decode()):
        with pytest.raises(RemoteError):
            decode_state_blob(bad)


def _predict_state(**overrides: object) -> dict[str, object]:
    module = build_module(TEMPLATES["predict"], parse_signature("question -> answer"))
    state = dump_state(module)
    state.update(overrides)
    return state


def test_sanitize_state_drops_lm_settings_and_unknown_attributes() -> None:
    module = build_module(TEMPLATES["predict"], parse_signature("question -> answer"))
    state = _predict_state(
        lm={"model": "openai/gpt-4o", "api_base": "http://evil.example"}, forward="x", callbacks=[1]
    )
    clean = sanitize_state(module, state)
    assert clean["self"]["lm"] is None
    assert set(clean["self"]) == {"traces", "train", "demos", "signature", "lm"}
    load_state(module, state)
    assert module.lm is None
    assert module.forward != "x" and getattr(module, "callbacks", None) != [1]


@pytest.mark.parametrize(
    "overrides",
    [
        {"signature": {"instructions": "x", "fields": [{"prefix": "Q:", "description": "q"}]}},
        {"signature": {"instructions": 5, "fields": []}},
        {"demos": "nope"},
        {"demos": [1]},
        {"demos": [{"question": "q"}] * 65},
    ],
)
def test_sanitize_state_rejects_mismatched_or_malformed_state(overrides: dict[str, object]) -> None:
    module = build_module(TEMPLATES["predict"], parse_signature("question -> answer"))
    with pytest.raises(RemoteError) as info:
        sanitize_state(module, _predict_state(**overrides))
    assert info.value.code == "INVALID_INPUT"


def test_state_for_another_template_is_refused() -> None:
    cot = build_module(TEMPLATES["chain_of_thought"], parse_signature("question -> answer"))
    with pytest.raises(RemoteError, match="no entry for predictor 'predict'"):
        load_state(cot, _predict_state())


def test_state_from_another_dspy_version_warns() -> None:
    state = _predict_state()
    state["metadata"] = {"dependency_versions": {"dspy": "2.6.0"}}
    module = build_module(TEMPLATES["predict"], parse_signature("question -> answer"))
    assert "DSPy 2.6.0" in load_state(module, state)[0]
