"""execute and optimize: the DSPy side of the sidecar (imported lazily by handlers.py)."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import Any

import dspy
from dspy.teleprompt import BootstrapFewShot, LabeledFewShot

from .lm_bridge import UsageTotals, make_lm
from .server import RemoteError, RequestContext
from .shapes import check as check_shape
from .templates import (
    SignatureSpec,
    Template,
    build_module,
    dump_state,
    get_template,
    invalid,
    load_state,
    manifest as templates_manifest,
    parse_signature,
)

# The sidecar never caches completions: the main process owns usage, cost and traces.
dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)

MAX_TRAINING_EXAMPLES = 1000
MAX_MODEL_CHARS = 200
METRICS = ("exact_match", "contains")
OPTIMIZERS = ("bootstrap_few_shot", "labeled_few_shot")

Metric = Callable[..., bool]


def dspy_version() -> str:
    return str(dspy.__version__)


def manifest() -> dict[str, Any]:
    return {**templates_manifest(), "metrics": list(METRICS), "optimizers": list(OPTIMIZERS)}


class _Bridge:
    """Routes one request's LM calls to the main process; the first failure sticks.

    DSPy may retry a failed call through another adapter or wrap the exception; remembering the
    first error lets the request fail with the main process's own code (e.g. LLM_RATE_LIMITED).
    """

    def __init__(self, ctx: RequestContext) -> None:
        self._ctx = ctx
        self._lock = threading.Lock()
        self.failure: RemoteError | None = None
        self.usage = UsageTotals()

    def __call__(self, params: dict[str, Any]) -> Any:
        with self._lock:
            if self.failure is not None:
                raise self.failure
        try:
            answer = self._ctx.call("lm.complete", params)
            problem = check_shape("lm.complete.result", answer)
            if problem is not None:
                raise RemoteError("LLM_FAILED", f"lm.complete answered with a malformed result: {problem}")
            return answer
        except RemoteError as e:
            with self._lock:
                self.failure = self.failure or e
            raise

    def lm(self, model: str | None) -> dspy.LM:
        return make_lm(self, model, self.usage)


def _model(params: dict[str, Any]) -> str | None:
    model = params.get("model")
    if model is None:
        return None
    if not isinstance(model, str) or not 0 < len(model) <= MAX_MODEL_CHARS:
        raise invalid(f"model must be a string of 1..{MAX_MODEL_CHARS} characters")
    return model


def _program(params: dict[str, Any]) -> tuple[Template, SignatureSpec, dspy.Module]:
    template = get_template(params.get("template_id"))
    spec = parse_signature(params.get("signature"))
    instructions = params.get("instructions")
    return template, spec, build_module(template, spec, instructions)


def _run_guarded(bridge: _Bridge, ctx: RequestContext, fn: Callable[[], Any]) -> Any:
    try:
        return fn()
    except RemoteError:
        raise
    except Exception as e:
        if bridge.failure is not None:
            raise bridge.failure from e
        ctx.check_cancelled()
        raise RemoteError("SIDECAR_FAILED", f"the DSPy program failed: {type(e).__name__}: {e}") from e


def _jsonable(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json")
    if value is None or isinstance(value, (str, int, float, bool, list, dict)):
        return value
    return str(value)


def execute(ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
    """Run a shipped template with a state blob on the given input values."""
    template, spec, module = _program(params)
    warnings = load_state(module, params.get("state_blob"))
    values = params.get("params", {})
    if not isinstance(values, dict):
        raise invalid("params must be an object of input values")
    missing = [name for name in spec.input_names if name not in values]
    if missing:
        raise invalid(f"missing input values: {', '.join(missing)}", missing=missing)
    bridge = _Bridge(ctx)
    lm = bridge.lm(_model(params))

    def run() -> Any:
        with dspy.context(lm=lm):
            return module(**{name: values[name] for name in spec.input_names})

    prediction = _run_guarded(bridge, ctx, run)
    outputs = {key: _jsonable(prediction[key]) for key in prediction.keys()}
    return {"template_id": template.id, "outputs": outputs, "usage": bridge.usage.as_dict(), "warnings": warnings}


_SPACES = re.compile(r"\s+")


def _norm(value: Any) -> str:
    return _SPACES.sub(" ", str(value)).strip().casefold()


def make_metric(name: Any, outputs: list[str]) -> Metric:
    if name == "exact_match":

        def exact_match(example: Any, prediction: Any, trace: Any = None) -> bool:
            return all(_norm(example[k]) == _norm(prediction[k]) for k in outputs)

        return exact_match
    if name == "contains":

        def contains(example: Any, prediction: Any, trace: Any = None) -> bool:
            return all(_norm(example[k]) in _norm(prediction[k]) for k in outputs)

        return contains
    raise invalid(f"metric must be one of {list(METRICS)}")


def _trainset(data: Any, spec: SignatureSpec) -> list[dspy.Example]:
    if not isinstance(data, list) or not 0 < len(data) <= MAX_TRAINING_EXAMPLES:
        raise invalid(f"training_data must be a list of 1..{MAX_TRAINING_EXAMPLES} objects")
    names = spec.input_names + spec.output_names
    examples = []
    for i, row in enumerate(data):
        if not isinstance(row, dict):
            raise invalid(f"training_data[{i}] must be an object")
        missing = [n for n in names if n not in row]
        if missing:
            raise invalid(f"training_data[{i}] lacks {', '.join(missing)}", index=i, missing=missing)
        examples.append(dspy.Example(**{n: row[n] for n in names}).with_inputs(*spec.input_names))
    return examples


def _int_param(params: dict[str, Any], key: str, default: int, low: int, high: int) -> int:
    value = params.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise invalid(f"{key} must be an integer in {low}..{high}")
    return value


def optimize(ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
    """Compile a template on a small training set; returns the new state blob."""
    template, spec, student = _program(params)
    warnings = load_state(student, params.get("state_blob"))
    trainset = _trainset(params.get("training_data"), spec)
    metric = make_metric(params.get("metric", "exact_match"), spec.output_names)
    optimizer = params.get("optimizer", "bootstrap_few_shot")
    if optimizer not in OPTIMIZERS:
        raise invalid(f"optimizer must be one of {list(OPTIMIZERS)}")
    max_demos = _int_param(params, "max_demos", 4, 1, 16)
    evaluate = params.get("evaluate", False)
    if not isinstance(evaluate, bool):
        raise invalid("evaluate must be true or false")
    bridge = _Bridge(ctx)
    lm = bridge.lm(_model(params))
    total = len(trainset)
    counter = {"done": 0}
    counter_lock = threading.Lock()

    def progress(phase: str, done: int) -> None:
        ctx.emit("progress", {"phase": phase, "done": done, "total": total})

    def counting_metric(example: Any, prediction: Any, trace: Any = None) -> bool:
        ctx.check_cancelled()
        ok = metric(example, prediction, trace)
        with counter_lock:
            counter["done"] += 1
            done = counter["done"]
        progress("compile", min(done, total))
        return ok

    def compile_program() -> dspy.Module:
        with dspy.context(lm=lm):
            if optimizer == "labeled_few_shot":
                return LabeledFewShot(k=max_demos).compile(student, trainset=trainset)
            teleprompter = BootstrapFewShot(
                metric=counting_metric, max_bootstrapped_demos=max_demos, max_labeled_demos=max_demos, max_rounds=1
            )
            return teleprompter.compile(student, trainset=trainset)

    progress("compile", 0)
    compiled = _run_guarded(bridge, ctx, compile_program)
    progress("compile", total)
    result: dict[str, Any] = {
        "template_id": template.id,
        "state_blob": dump_state(compiled),
        "demos": {name: len(p.demos) for name, p in compiled.named_predictors()},
        "warnings": warnings,
    }
    if evaluate:
        passed = 0
        for i, example in enumerate(trainset):
            ctx.check_cancelled()

            def run_one(ex: dspy.Example = example) -> Any:
                with dspy.context(lm=lm):
                    return compiled(**ex.inputs())

            try:
                passed += bool(metric(example, _run_guarded(bridge, ctx, run_one)))
            except RemoteError as e:
                if e.code != "SIDECAR_FAILED":
                    raise  # the LM or the request failed, not this example
            progress("evaluate", i + 1)
        result["score"] = passed / total
    result["usage"] = bridge.usage.as_dict()
    return result
