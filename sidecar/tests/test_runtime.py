"""execute and optimize through the server, with every LM call answered by the test."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("dspy", reason="DSPy is not installed: run `node scripts/setup-sidecar.mjs`")

from .conftest import Harness, LmFailure  # noqa: E402
from .fake_lm import answer, tagged  # noqa: E402

TRAINING = [
    {"word": "apple", "upper": "APPLE"},
    {"word": "pear", "upper": "PEAR"},
    {"word": "plum", "upper": "PLUM"},
]


def _execute(harness: Harness, template_id: str, lm: Any = answer, **extra: Any) -> dict[str, Any]:
    params = {"template_id": template_id, "signature": "word -> upper", "params": {"word": "kiwi"}, **extra}
    reply, _ = harness.run("execute", params, lm)
    return reply


@pytest.mark.parametrize(
    ("template_id", "calls", "outputs"),
    [
        ("predict", 1, {"upper": "KIWI"}),
        ("chain_of_thought", 1, {"reasoning": "because kiwi", "upper": "KIWI"}),
        ("draft_refine", 2, {"upper": "KIWI"}),
    ],
)
def test_execute_runs_each_shipped_template(harness: Harness, template_id: str, calls: int, outputs: dict) -> None:
    reply = _execute(harness, template_id)
    result = reply["result"]
    assert result["outputs"] == outputs
    assert result["usage"]["lm_calls"] == calls == len(harness.lm_requests)
    assert result["usage"]["input_tokens"] > 0
    first = harness.lm_requests[0]["params"]
    assert first["messages"][0]["role"] == "system" and "model" not in first


def test_execute_passes_the_model_and_instructions(harness: Harness) -> None:
    _execute(harness, "predict", model="loopback/echo", instructions="Shout the word.")
    params = harness.lm_requests[0]["params"]
    assert params["model"] == "loopback/echo"
    assert "Shout the word." in params["messages"][0]["content"]


def test_the_pipeline_feeds_its_draft_to_the_review_step(harness: Harness) -> None:
    _execute(harness, "draft_refine")
    review = harness.lm_requests[1]["params"]["messages"][-1]["content"]
    assert "[[ ## draft ## ]]\nupper: KIWI" in review


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({"template_id": "react", "signature": "a -> b", "params": {"a": 1}}, "NOT_FOUND"),
        ({"template_id": "predict", "signature": "a -> b", "params": {}}, "INVALID_INPUT"),
        ({"template_id": "predict", "signature": "a -> b", "params": {"a": 1}, "state_blob": "{}"}, "INVALID_INPUT"),
        ({"template_id": "predict", "signature": "a b", "params": {"a": 1}}, "INVALID_INPUT"),
        ({"template_id": "predict", "signature": "a -> b", "params": {"a": 1}, "model": 5}, "INVALID_INPUT"),
    ],
)
def test_execute_rejects_bad_requests_without_lm_calls(harness: Harness, params: dict, code: str) -> None:
    reply, _ = harness.run("execute", params, answer)
    assert reply["error"]["code"] == code
    assert harness.lm_requests == []


def test_an_lm_error_from_the_main_process_keeps_its_code(harness: Harness) -> None:
    def limited(params: dict[str, Any]) -> dict[str, Any]:
        raise LmFailure("LLM_RATE_LIMITED", "slow down")

    reply = _execute(harness, "chain_of_thought", lm=limited)
    assert reply["error"] == {"code": "LLM_RATE_LIMITED", "message": "slow down"}
    # DSPy's adapter fallback does not ask the main process again after a failure.
    assert len(harness.lm_requests) == 1


def test_an_unparseable_answer_is_a_sidecar_failure(harness: Harness) -> None:
    reply = _execute(harness, "predict", lm=lambda p: {"text": "no fields here"})
    assert reply["error"]["code"] == "SIDECAR_FAILED"


def test_a_malformed_lm_answer_is_refused(harness: Harness) -> None:
    reply = _execute(harness, "predict", lm=lambda p: {"txt": 1})
    assert reply["error"]["code"] == "LLM_FAILED"


@pytest.mark.parametrize("template_id", ["predict", "chain_of_thought", "draft_refine"])
def test_optimize_bootstraps_demos_and_reports_progress(harness: Harness, template_id: str) -> None:
    reply, events = harness.run(
        "optimize",
        {
            "template_id": template_id,
            "signature": "word -> upper",
            "training_data": TRAINING,
            "metric": "exact_match",
            "max_demos": 2,
            "evaluate": True,
        },
        answer,
    )
    result = reply["result"]
    assert result["score"] == 1.0
    assert all(n >= 2 for n in result["demos"].values())
    assert result["usage"]["lm_calls"] == len(harness.lm_requests) > 0
    phases = [(e["data"]["phase"], e["data"]["done"]) for e in events]
    assert phases[0] == ("compile", 0) and ("compile", 3) in phases and phases[-1] == ("evaluate", 3)
    assert all(e["event"] == "progress" and e["data"]["total"] == 3 for e in events)
    assert result["state_blob"]["metadata"]["dependency_versions"]["dspy"]


def test_labeled_few_shot_needs_no_lm(harness: Harness) -> None:
    reply, _ = harness.run(
        "optimize",
        {"template_id": "predict", "signature": "word -> upper", "training_data": TRAINING, "optimizer": "labeled_few_shot"},
        None,
    )
    assert reply["result"]["demos"] == {"self": 3}
    assert harness.lm_requests == []


@pytest.mark.parametrize(
    "overrides",
    [
        {"training_data": []},
        {"training_data": [{"word": "x"}]},
        {"training_data": "x"},
        {"metric": "bleu"},
        {"optimizer": "mipro"},
        {"max_demos": 0},
        {"evaluate": "yes"},
    ],
)
def test_optimize_rejects_bad_requests(harness: Harness, overrides: dict) -> None:
    params = {"template_id": "predict", "signature": "word -> upper", "training_data": TRAINING, **overrides}
    reply, _ = harness.run("optimize", params, answer)
    assert reply["error"]["code"] == "INVALID_INPUT"


def test_optimized_state_round_trips_to_the_same_predictions(harness: Harness) -> None:
    """save -> load gives the same predictions; the LM's answer depends on the whole prompt."""
    reply, _ = harness.run(
        "optimize",
        {"template_id": "chain_of_thought", "signature": "word -> upper", "training_data": TRAINING, "max_demos": 2},
        answer,
    )
    state = reply["result"]["state_blob"]
    with_state = _execute(harness, "chain_of_thought", lm=tagged, state_blob=state)["result"]["outputs"]
    again = _execute(harness, "chain_of_thought", lm=tagged, state_blob=state)["result"]["outputs"]
    without = _execute(harness, "chain_of_thought", lm=tagged)["result"]["outputs"]
    assert with_state == again
    assert with_state != without
    assert with_state["upper"].startswith("KIWI #")
    demo_prompt = harness.lm_requests[-3]["params"]["messages"]
    assert any("apple" in m["content"] for m in demo_prompt)
