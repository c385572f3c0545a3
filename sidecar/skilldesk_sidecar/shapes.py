"""The shapes of the sidecar protocol, as TypedDicts, and a small checker for them.

They mirror the zod schemas of ``electron/sidecar-client/protocol.ts``; ``sidecar/protocol.json``
is generated from those, and ``tests/test_protocol_agreement.py`` checks both sides agree (keys,
required keys, methods, events, error codes). Kept free of DSPy and of postponed annotations, so
``Required``/``NotRequired`` are seen at class creation on every supported Python.
"""

import types
from typing import Any, Literal, NotRequired, TypedDict, Union, get_args, get_origin, get_type_hints, is_typeddict

#: Error codes the sidecar itself sends (codes from the main process are passed through).
ERROR_CODES: tuple[str, ...] = (
    "INVALID_INPUT",
    "NOT_FOUND",
    "TOO_LARGE",
    "CANCELLED",
    "LLM_FAILED",
    "SIDECAR_UNAVAILABLE",
    "SIDECAR_FAILED",
)


class WireError(TypedDict):
    code: str
    message: str
    details: NotRequired[dict[str, Any]]


class NoParams(TypedDict):
    pass


class PingResult(TypedDict):
    pong: Literal[True]


class VersionResult(TypedDict):
    protocol: int
    sidecar: str
    python: str
    frozen: bool
    methods: list[str]
    callbacks: list[str]
    events: list[str]
    dspy: Union[str, None]
    dspy_error: NotRequired[str]
    dspy_loaded: NotRequired[bool]


class TemplateInfo(TypedDict):
    id: str
    description: str
    example_signature: str
    predictors: list[str]


class ManifestResult(TypedDict):
    templates: list[TemplateInfo]
    field_types: list[str]
    reserved_fields: list[str]
    metrics: list[str]
    optimizers: list[str]


class Usage(TypedDict):
    lm_calls: int
    input_tokens: int
    output_tokens: int


class ExecuteParams(TypedDict):
    template_id: str
    signature: str
    state_blob: NotRequired[Union[dict[str, Any], str, None]]
    params: dict[str, Any]
    instructions: NotRequired[str]
    model: NotRequired[str]


class ExecuteResult(TypedDict):
    template_id: str
    outputs: dict[str, Any]
    usage: Usage
    warnings: list[str]


class OptimizeParams(TypedDict):
    template_id: str
    signature: str
    training_data: list[dict[str, Any]]
    metric: NotRequired[Literal["exact_match", "contains"]]
    optimizer: NotRequired[Literal["bootstrap_few_shot", "labeled_few_shot"]]
    max_demos: NotRequired[int]
    evaluate: NotRequired[bool]
    state_blob: NotRequired[Union[dict[str, Any], str, None]]
    instructions: NotRequired[str]
    model: NotRequired[str]


class OptimizeResult(TypedDict):
    template_id: str
    state_blob: dict[str, Any]
    demos: dict[str, int]
    warnings: list[str]
    score: NotRequired[float]
    usage: Usage


class CancelParams(TypedDict):
    id: str


class CancelResult(TypedDict):
    cancelled: bool


class LmMessage(TypedDict):
    role: Literal["system", "user", "assistant"]
    content: str


class LmRequest(TypedDict):
    model: NotRequired[str]
    messages: list[LmMessage]
    temperature: NotRequired[float]
    max_tokens: NotRequired[int]


class LmResponse(TypedDict):
    text: str
    input_tokens: NotRequired[int]
    output_tokens: NotRequired[int]


class Progress(TypedDict):
    phase: Literal["compile", "evaluate"]
    done: int
    total: int


#: Every object shape of protocol.json, by its name there.
SHAPES: dict[str, Any] = {
    "error": WireError,
    "ping.params": NoParams,
    "ping.result": PingResult,
    "version.params": NoParams,
    "version.result": VersionResult,
    "manifest.params": NoParams,
    "manifest.result": ManifestResult,
    "execute.params": ExecuteParams,
    "execute.result": ExecuteResult,
    "optimize.params": OptimizeParams,
    "optimize.result": OptimizeResult,
    "cancel.params": CancelParams,
    "cancel.result": CancelResult,
    "lm.complete.params": LmRequest,
    "lm.complete.result": LmResponse,
    "progress.data": Progress,
}


def _matches(value: Any, tp: Any) -> bool:
    if tp is Any:
        return True
    if tp is type(None):
        return value is None
    if is_typeddict(tp):
        return check(tp, value) is None
    origin = get_origin(tp)
    args = get_args(tp)
    if origin is Union or origin is types.UnionType:
        return any(_matches(value, a) for a in args)
    if origin is Literal:
        return any(value is a or (value == a and type(value) is type(a)) for a in args)
    if tp is bool:
        return isinstance(value, bool)
    if tp is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if tp is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if tp is str:
        return isinstance(value, str)
    if origin is list:
        return isinstance(value, list) and all(_matches(v, args[0]) for v in value)
    if origin is dict:
        return isinstance(value, dict) and all(_matches(v, args[1]) for v in value.values())
    return True


def check(shape: Any, value: Any) -> str | None:
    """Why ``value`` does not fit ``shape`` (a TypedDict or a name in SHAPES), or None when it does."""
    td = SHAPES[shape] if isinstance(shape, str) else shape
    if not isinstance(value, dict):
        return "expected an object"
    for key in sorted(td.__required_keys__):
        if key not in value:
            return f"'{key}' is missing"
    hints = get_type_hints(td)
    for key, v in value.items():
        if key in hints and not _matches(v, hints[key]):
            return f"'{key}' has the wrong type"
    return None
