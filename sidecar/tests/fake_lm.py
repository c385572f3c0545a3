"""A deterministic stand-in for the main process's LM: answers DSPy's chat format from the prompt."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

_FIELD = re.compile(r"\[\[ ## (\w+) ## \]\]\n(.*?)(?=\n\n\[\[ ## |\n\nRespond |\Z)", re.S)
_WANTED = re.compile(r"`\[\[ ## (\w+) ## \]\]`")


def fields_of(text: str) -> dict[str, str]:
    return {name: value.strip() for name, value in _FIELD.findall(text)}


def answer(params: dict[str, Any]) -> dict[str, Any]:
    """Upper-cases the first input into every output field, tagged with a digest of the whole
    prompt so that any change in demos or instructions changes the answer."""
    messages = params["messages"]
    last = messages[-1]["content"]
    inputs = fields_of(last)
    wanted = [w for w in _WANTED.findall(last) if w != "completed"]
    digest = hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest()[:6]
    first = next(iter(inputs.values()), "")
    parts = []
    for name in wanted:
        value = f"because {first}" if name == "reasoning" else first.upper()
        parts.append(f"[[ ## {name} ## ]]\n{value}")
    parts.append("[[ ## completed ## ]]")
    text = "\n\n".join(parts)
    return {"text": text, "input_tokens": len(json.dumps(messages)) // 4, "output_tokens": len(text) // 4, "digest": digest}


def tagged(params: dict[str, Any]) -> dict[str, Any]:
    """Like answer(), but the outputs carry the prompt digest (for state round-trip checks)."""
    base = answer(params)
    text = re.sub(r"(\[\[ ## (?!completed|reasoning)\w+ ## \]\]\n)([^\n]*)", rf"\g<1>\g<2> #{base['digest']}", base["text"])
    return {**base, "text": text}
