"""Traces exported by `skilldesk traces export` load as a DSPy dataset.

Runs the real CLI: a code_template skill runs in the sandbox (one trace that succeeds and one
that fails), the traces are exported as JSONL, and every line becomes a `dspy.Example`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import dspy
import pytest

ROOT = Path(__file__).resolve().parents[2]
CLI = ROOT / "bin" / "skilldesk.mjs"


def _cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not on PATH: the CLI that writes the traces cannot run")
    env = {**os.environ, "SKILLDESK_HOME": str(home)}
    return subprocess.run(
        [node, str(CLI), "--home", str(home), *args], capture_output=True, text=True, env=env, timeout=180
    )


def test_exported_traces_load_as_dspy_examples(tmp_path: Path) -> None:
    home = tmp_path / "home"
    ok = _cli(home, "run-skill", "CSV Statistics", "--artifact", "Compute", "--session", "ds-1",
              "--context", json.dumps({"csv_text": "a,b\n1,x\n3,y\n"}))
    assert ok.returncode == 0, ok.stderr
    bad = _cli(home, "run-skill", "CSV Statistics", "--artifact", "Compute", "--session", "ds-1",
               "--context", json.dumps({"csv_text": 5}))
    assert bad.returncode == 1, bad.stdout + bad.stderr

    out = tmp_path / "traces.jsonl"
    exported = _cli(home, "--json", "traces", "export", "--session", "ds-1", "--out", str(out))
    assert exported.returncode == 0, exported.stderr
    assert json.loads(exported.stdout)["count"] == 2

    dataset = [dspy.Example(**json.loads(line)).with_inputs("input") for line in out.read_text().splitlines()]
    assert [ex.status for ex in dataset] == ["ok", "error"]
    first = dataset[0]
    assert set(first.inputs().keys()) == {"input"}
    assert "csv" in first.input or "a,b" in first.input
    assert json.loads(first.output)["rows"] == 2
    assert first.labels().skill == "CSV Statistics"
    assert dataset[1].error

    only_ok = _cli(home, "traces", "export", "--session", "ds-1", "--status", "ok")
    assert only_ok.returncode == 0, only_ok.stderr
    assert len(only_ok.stdout.splitlines()) == 1
