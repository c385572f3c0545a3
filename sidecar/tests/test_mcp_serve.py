"""`skilldesk mcp serve` checked by an independent client: the official Python MCP SDK (`mcp` from
PyPI, pinned in requirements.txt) over stdio and Streamable HTTP, in its default mode (it probes
`server/discover` and speaks 2026-07-28) and in the handshake era (`initialize`).

The SDK is a test requirement of this environment, installed by `npm install`; in CI a missing
one fails the run instead of skipping it.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / "bin" / "skilldesk.mjs"
NODE = os.environ.get("SKILLDESK_NODE") or shutil.which("node")
IN_CI = os.environ.get("CI", "").strip().lower() not in ("", "0", "false")

try:
    import mcp_types
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client
    from mcp.shared.exceptions import MCPError
    from pydantic import TypeAdapter
except ImportError as e:  # pragma: no cover - the environment decides
    if IN_CI:
        raise RuntimeError(f"the Python MCP SDK is missing from sidecar/.venv ({e}); run npm install") from e
    pytest.skip(f"the Python MCP SDK is not installed ({e}); npm install adds it", allow_module_level=True)

if NODE is None:  # pragma: no cover
    if IN_CI:
        raise RuntimeError("node is not on PATH")
    pytest.skip("node is not on PATH", allow_module_level=True)

AnyDict = TypeAdapter(dict[str, Any])


async def call(client: Client, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    """A request the SDK has no method for (the Skills extension's)."""
    request = mcp_types.Request[dict[str, Any] | None, str](method=method, params=params)
    return await client.session.send_request(request, AnyDict)


def digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


async def check_catalog(client: Client) -> None:
    tools = {t.name for t in (await client.list_tools()).tools}
    assert tools == {"list_skills", "search_skills", "read_skill", "apply_skill", "run_script", "run_python"}
    found = await client.call_tool("search_skills", {"query": "summarize this article"})
    assert "Summarize" in json.dumps([c.model_dump() for c in found.content])

    listed = await call(client, "skills/list", {})
    assert listed["resultType"] == "complete"
    assert listed["cacheScope"] == "private" and listed["ttlMs"] > 0
    skills = listed["skills"]
    assert len(skills) > 3
    for entry in skills[:4]:
        name = entry["frontmatter"]["name"]
        assert entry["uri"] == f"skill://{name}/SKILL.md"
        for res in entry["resources"]:
            content = (await client.read_resource(res["uri"])).contents[0]
            data = content.text.encode() if hasattr(content, "text") else base64.b64decode(content.blob)
            assert len(data) == res["size"], res["uri"]
            assert digest(data) == res["digest"], res["uri"]
        got = await call(client, "skills/get", {"uri": entry["uri"]})
        assert got["skill"] == entry
        root = entry["uri"].removesuffix("/SKILL.md")
        children = await call(client, "resources/directory/read", {"uri": root})
        assert entry["uri"] in {c["uri"] for c in children["resources"]}

    for params in (None, {}, {"uri": "skill://no-such-skill/SKILL.md"}):
        with pytest.raises(MCPError) as err:
            await call(client, "skills/get", params)
        assert err.value.code == -32602


async def check_listen(client: Client, home: str, name: str) -> None:
    """A modern client hears of a skill imported by another process on its listen stream."""
    async with client.listen(resources_list_changed=True, prompts_list_changed=True) as sub:
        assert sub.honored.resources_list_changed is True
        assert not sub.honored.prompts_list_changed
        package = Path(home) / f"{name}.json"
        package.write_text(
            json.dumps(
                {
                    "name": name,
                    "description": "Imported while a client listens.",
                    "version": "1.0.0",
                    "artifacts": [{"kind": "prompt_template", "name": "P", "content": "Hi {{ who }}"}],
                }
            )
        )
        imported = await asyncio.to_thread(
            subprocess.run,
            [NODE, str(BIN), "--home", home, "skills", "import", str(package)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert imported.returncode == 0, imported.stderr
        event = await asyncio.wait_for(sub.__anext__(), timeout=60)
        assert type(event).__name__ == "ResourcesListChanged"
    listed = await call(client, "skills/list", {})
    assert f"skill://{name}/SKILL.md" in {s["uri"] for s in listed["skills"]}


def stdio_params(home: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=NODE,
        args=[str(BIN), "--home", home, "mcp", "serve"],
        env={"PATH": os.environ.get("PATH", ""), "HOME": home},
    )


def test_stdio_modern_and_handshake() -> None:
    async def main() -> None:
        with tempfile.TemporaryDirectory() as home:
            async with Client(stdio_params(home), read_timeout_seconds=120) as client:
                # The SDK probed server/discover and stayed on the stateless revision.
                assert client.protocol_version == "2026-07-28"
                caps = client.server_capabilities.model_dump(by_alias=True, exclude_none=True)
                assert caps["extensions"]["io.modelcontextprotocol/skills"] == {"directoryRead": True}
                await check_catalog(client)
                await check_listen(client, home, "heard-over-stdio")
            async with Client(stdio_params(home), mode="legacy", read_timeout_seconds=120) as client:
                assert client.protocol_version != "2026-07-28"
                await check_catalog(client)

    asyncio.run(main())


def test_http_with_token() -> None:
    with tempfile.TemporaryDirectory() as home:
        proc = subprocess.Popen(
            [NODE, str(BIN), "--home", home, "--json", "mcp", "serve", "--http", "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={"PATH": os.environ.get("PATH", ""), "HOME": home},
            text=True,
        )
        try:
            line = proc.stdout.readline() if proc.stdout else ""
            assert line, "mcp serve --http printed nothing"
            endpoint = json.loads(line)

            async def main() -> None:
                for mode in ("auto", "legacy"):
                    http = create_mcp_http_client(headers={"Authorization": f"bearer {endpoint['token']}"})
                    async with http, Client(streamable_http_client(endpoint["url"], http_client=http), mode=mode) as client:
                        if mode == "auto":
                            assert client.protocol_version == "2026-07-28"
                        await check_catalog(client)
                        if mode == "auto":
                            await check_listen(client, home, "heard-over-http")
                # No token: refused with a Bearer challenge, not an OAuth discovery.
                bare = create_mcp_http_client()
                async with bare:
                    r = await bare.post(
                        endpoint["url"],
                        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
                        headers={"accept": "application/json, text/event-stream"},
                    )
                    assert r.status_code == 401
                    assert r.headers["www-authenticate"].startswith("Bearer")

            asyncio.run(main())
        finally:
            proc.terminate()
            proc.wait(timeout=30)
