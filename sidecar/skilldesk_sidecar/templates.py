"""The shipped DSPy templates, signature parsing and state-blob validation.

Only these module classes ever run: a ``dspy_module`` artifact names one by ``template_id`` and
carries JSON state (demos, instructions, field prefixes). No user-supplied Python, no pickles.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import dspy
from dspy.utils.saving import get_dependency_versions

from .server import RemoteError

FIELD_TYPES: dict[str, type] = {"str": str, "int": int, "float": float, "bool": bool, "list[str]": list[str]}
#: Names the templates add themselves (ChainOfThought's reasoning, the pipeline's draft).
RESERVED_FIELDS = frozenset({"reasoning", "draft"})
MAX_FIELDS = 16
MAX_SIGNATURE_CHARS = 2000
MAX_INSTRUCTIONS_CHARS = 100_000
MAX_DEMOS = 64

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")


def invalid(message: str, **details: Any) -> RemoteError:
    return RemoteError("INVALID_INPUT", message, details or None)


@dataclass(frozen=True)
class SignatureSpec:
    """A parsed ``"a, b: int -> c"`` signature: ordered (name, type name) pairs."""

    inputs: tuple[tuple[str, str], ...]
    outputs: tuple[tuple[str, str], ...]

    @property
    def input_names(self) -> list[str]:
        return [n for n, _ in self.inputs]

    @property
    def output_names(self) -> list[str]:
        return [n for n, _ in self.outputs]

    def text(self) -> str:
        def side(fields: tuple[tuple[str, str], ...]) -> str:
            return ", ".join(n if t == "str" else f"{n}: {t}" for n, t in fields)

        return f"{side(self.inputs)} -> {side(self.outputs)}"

    def build(self, instructions: str | None = None) -> type[dspy.Signature]:
        fields: dict[str, Any] = {}
        for name, type_name in self.inputs:
            fields[name] = (FIELD_TYPES[type_name], dspy.InputField())
        for name, type_name in self.outputs:
            fields[name] = (FIELD_TYPES[type_name], dspy.OutputField())
        return dspy.make_signature(fields, instructions or None)


def parse_signature(text: Any) -> SignatureSpec:
    """Parse a signature string without evaluating anything; only FIELD_TYPES are allowed."""
    if not isinstance(text, str) or not text.strip():
        raise invalid("signature must be a non-empty string like 'question -> answer'")
    if len(text) > MAX_SIGNATURE_CHARS:
        raise invalid(f"signature is longer than {MAX_SIGNATURE_CHARS} characters")
    parts = text.split("->")
    if len(parts) != 2:
        raise invalid(f"signature {text!r} must have exactly one '->'")

    def side(raw: str, label: str) -> tuple[tuple[str, str], ...]:
        fields: list[tuple[str, str]] = []
        for item in _split_top(raw):
            if not item:
                raise invalid(f"signature {text!r} has an empty {label} field")
            name, _, type_name = (s.strip() for s in item.partition(":"))
            type_name = type_name.replace(" ", "") or "str"
            if not _NAME.match(name):
                raise invalid(f"field name {name!r} is not an identifier")
            if name in RESERVED_FIELDS:
                raise invalid(f"field name {name!r} is reserved by the templates")
            if type_name not in FIELD_TYPES:
                raise invalid(f"field type {type_name!r} is not one of {sorted(FIELD_TYPES)}")
            fields.append((name, type_name))
        if not fields:
            raise invalid(f"signature {text!r} has no {label} fields")
        return tuple(fields)

    spec = SignatureSpec(side(parts[0], "input"), side(parts[1], "output"))
    names = spec.input_names + spec.output_names
    if len(set(names)) != len(names):
        raise invalid(f"signature {text!r} repeats a field name")
    if len(spec.inputs) > MAX_FIELDS or len(spec.outputs) > MAX_FIELDS:
        raise invalid(f"a signature has at most {MAX_FIELDS} inputs and {MAX_FIELDS} outputs")
    return spec


def _split_top(raw: str) -> list[str]:
    """Split on commas outside brackets ("a: list[str], b")."""
    out, depth, current = [], 0, []
    for ch in raw:
        depth += ch == "["
        depth -= ch == "]"
        if ch == "," and depth == 0:
            out.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
    out.append("".join(current).strip())
    return out


# -- the shipped module classes ------------------------------------------------------------------


class DraftRefine(dspy.Module):
    """A two-step pipeline: reason out a draft, then review it and answer again."""

    def __init__(self, signature: type[dspy.Signature]) -> None:
        super().__init__()
        self.output_names = list(signature.output_fields)
        self.draft = dspy.ChainOfThought(signature)
        refine = signature.append(
            "draft", dspy.InputField(desc="a first answer: check it and correct any mistakes"), type_=str
        )
        self.refine = dspy.Predict(
            refine.with_instructions(
                f"{signature.instructions}\n\nReview the draft answer, fix what is wrong and give the final answer."
            )
        )

    def forward(self, **inputs: Any) -> dspy.Prediction:
        first = self.draft(**inputs)
        draft = "\n".join(f"{name}: {first[name]}" for name in self.output_names)
        return self.refine(**inputs, draft=draft)


@dataclass(frozen=True)
class Template:
    id: str
    description: str
    example_signature: str
    build: Callable[[type[dspy.Signature]], dspy.Module]


TEMPLATES: dict[str, Template] = {
    t.id: t
    for t in (
        Template("predict", "One direct prediction: inputs in, outputs out.", "question -> answer", dspy.Predict),
        Template(
            "chain_of_thought",
            "Reason step by step before answering; the reasoning is returned as 'reasoning'.",
            "claims -> contradictions",
            dspy.ChainOfThought,
        ),
        Template(
            "draft_refine",
            "Two steps: a reasoned draft, then a review that corrects it into the final answer.",
            "question -> answer",
            DraftRefine,
        ),
    )
}


def get_template(template_id: Any) -> Template:
    if not isinstance(template_id, str) or template_id not in TEMPLATES:
        raise RemoteError(
            "NOT_FOUND", f"unknown template_id {template_id!r}", {"known": sorted(TEMPLATES)}
        )
    return TEMPLATES[template_id]


#: Built modules kept as prototypes, by (template, signature, instructions).
MAX_PROTOTYPES = 64
_prototypes: OrderedDict[tuple[str, SignatureSpec, str | None], dspy.Module] = OrderedDict()
_prototypes_lock = threading.Lock()


def build_module(template: Template, spec: SignatureSpec, instructions: str | None = None) -> dspy.Module:
    """A fresh module for ``template`` over ``spec``.

    Building one makes pydantic model classes for the signature (and ChainOfThought's extended
    one), which is most of a request's own cost; the signature classes are never changed in place
    (loading state makes new ones), so a prototype per key is kept and each request gets a deep
    copy of it: its own demos, instructions and field prefixes, the signature classes shared.
    """
    if instructions is not None and (not isinstance(instructions, str) or len(instructions) > MAX_INSTRUCTIONS_CHARS):
        raise invalid(f"instructions must be a string of at most {MAX_INSTRUCTIONS_CHARS} characters")
    key = (template.id, spec, instructions or None)
    with _prototypes_lock:
        prototype = _prototypes.get(key)
        if prototype is not None:
            _prototypes.move_to_end(key)
    if prototype is None:
        prototype = template.build(spec.build(instructions))
        with _prototypes_lock:
            _prototypes[key] = prototype
            while len(_prototypes) > MAX_PROTOTYPES:
                _prototypes.popitem(last=False)
    return prototype.deepcopy()


def manifest() -> dict[str, Any]:
    templates = []
    for t in TEMPLATES.values():
        module = build_module(t, parse_signature(t.example_signature))
        templates.append(
            {
                "id": t.id,
                "description": t.description,
                "example_signature": t.example_signature,
                "predictors": [name for name, _ in module.named_predictors()],
            }
        )
    return {
        "templates": templates,
        "field_types": sorted(FIELD_TYPES),
        "reserved_fields": sorted(RESERVED_FIELDS),
    }


# -- state blobs -----------------------------------------------------------------------------------


def decode_state_blob(blob: Any) -> dict[str, Any] | None:
    """A state blob as sent: a JSON object, its JSON text, base64 of that text, or null."""
    if blob is None or blob == "":
        return None
    if isinstance(blob, dict):
        return blob
    if isinstance(blob, str):
        text = blob.strip()
        if not text.startswith("{"):
            try:
                text = base64.b64decode(text, validate=True).decode("utf-8")
            except (binascii.Error, UnicodeDecodeError):
                raise invalid("state_blob is neither JSON nor base64-encoded JSON") from None
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            raise invalid("state_blob is not valid JSON") from None
        if isinstance(value, dict):
            return value
    raise invalid("state_blob must be a JSON object")


def _check_json_value(value: Any, where: str, depth: int = 0) -> None:
    if depth > 32:
        raise invalid(f"{where} is nested too deeply")
    if value is None or isinstance(value, (str, int, float, bool)):
        return
    if isinstance(value, list):
        for i, v in enumerate(value):
            _check_json_value(v, f"{where}[{i}]", depth + 1)
        return
    if isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, str):
                raise invalid(f"{where} has a non-string key")
            _check_json_value(v, f"{where}.{k}", depth + 1)
        return
    raise invalid(f"{where} is not JSON data")


def sanitize_state(module: dspy.Module, state: dict[str, Any]) -> dict[str, Any]:
    """Check a state blob against the module it will load into and keep only plain data.

    Predict.load_state sets every unknown key as an attribute and rebuilds an LM from ``lm``:
    both are closed here (known keys only, ``lm`` always null).
    """
    clean: dict[str, Any] = {}
    for name, predictor in module.named_predictors():
        # A bare Predict saves its own state at the top level (DSPy's format); accept "self" too.
        entry = state.get(name) if name != "self" else state.get("self", state)
        if not isinstance(entry, dict):
            raise invalid(f"state_blob has no entry for predictor {name!r}", predictors=[n for n, _ in module.named_predictors()])
        signature = entry.get("signature")
        if not isinstance(signature, dict):
            raise invalid(f"state_blob.{name}.signature must be an object")
        instructions = signature.get("instructions")
        if not isinstance(instructions, str) or len(instructions) > MAX_INSTRUCTIONS_CHARS:
            raise invalid(f"state_blob.{name}.signature.instructions must be a string")
        fields = signature.get("fields")
        expected = len(predictor.signature.fields)
        if not isinstance(fields, list) or len(fields) != expected:
            raise invalid(
                f"state_blob.{name} has {len(fields) if isinstance(fields, list) else 'no'} fields, "
                f"the signature has {expected}: optimize again or fix the signature"
            )
        clean_fields = []
        for i, f in enumerate(fields):
            if not (isinstance(f, dict) and isinstance(f.get("prefix"), str) and isinstance(f.get("description"), str)):
                raise invalid(f"state_blob.{name}.signature.fields[{i}] must be {{prefix, description}} strings")
            clean_fields.append({"prefix": f["prefix"], "description": f["description"]})
        demos = entry.get("demos", [])
        if not isinstance(demos, list) or len(demos) > MAX_DEMOS:
            raise invalid(f"state_blob.{name}.demos must be a list of at most {MAX_DEMOS} objects")
        for i, demo in enumerate(demos):
            if not isinstance(demo, dict):
                raise invalid(f"state_blob.{name}.demos[{i}] must be an object")
            _check_json_value(demo, f"state_blob.{name}.demos[{i}]")
        clean[name] = {
            "traces": [],
            "train": [],
            "demos": demos,
            "signature": {"instructions": instructions, "fields": clean_fields},
            "lm": None,
        }
    return clean


def load_state(module: dspy.Module, blob: Any) -> list[str]:
    """Load a state blob into ``module``; returns warnings (e.g. saved by another DSPy version)."""
    state = decode_state_blob(blob)
    if state is None:
        return []
    clean = sanitize_state(module, state)
    module.load_state(clean["self"] if isinstance(module, dspy.Predict) else clean)
    warnings: list[str] = []
    saved = state.get("metadata", {}).get("dependency_versions", {}) if isinstance(state.get("metadata"), dict) else {}
    saved_dspy = saved.get("dspy") if isinstance(saved, dict) else None
    current = get_dependency_versions().get("dspy")
    if isinstance(saved_dspy, str) and saved_dspy != current:
        warnings.append(f"state saved with DSPy {saved_dspy}, running {current}: consider optimizing again")
    return warnings


def dump_state(module: dspy.Module) -> dict[str, Any]:
    """The JSON DSPy's ``save(path, save_program=False)`` writes, as a dict."""
    state = module.dump_state()
    if isinstance(module, dspy.Predict):
        state["lm"] = None
    else:
        for entry in state.values():
            if isinstance(entry, dict):
                entry["lm"] = None
    state["metadata"] = {"dependency_versions": get_dependency_versions()}
    return json.loads(json.dumps(state, default=str))
