"""Drive `skilldesk mcp serve` with the official MCP Python SDK, as a user's client would.

Usage: python python-client.py '<json: {"command": [...], "served": "slug", "stored": "name"}>'
Prints one JSON object: timings in ms (from the start of the connection) and what was served.
"""

import asyncio
import json
import sys
import time
from typing import Any

import mcp_types as types
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from pydantic import TypeAdapter

RAW = TypeAdapter(dict)


async def main() -> None:
    spec = json.loads(sys.argv[1])
    cmd = spec["command"]
    out: dict[str, Any] = {}
    t0 = time.perf_counter()
    ms = lambda: round((time.perf_counter() - t0) * 1000, 1)  # noqa: E731
    async with Client(StdioServerParameters(command=cmd[0], args=cmd[1:])) as c:
        # Entering the client is the `server/discover` probe (or initialize when it gives up).
        out["connected_ms"] = ms()
        out["protocol"] = c.protocol_version
        tools = await c.list_tools()
        out["tools_list_ms"] = ms()
        out["tools"] = sorted(t.name for t in tools.tools)
        if spec.get("served"):
            for key in ("served", "stored"):
                r = await c.call_tool("read_skill", {"name": spec[key]})
                out[f"read_{key}_error"] = bool(r.is_error)
                out[f"read_{key}_text"] = r.content[0].text[:200] if r.content else ""
            out["read_skill_ms"] = ms()
        t = time.perf_counter()
        await c.call_tool("search_skills", {"query": "invoice audit"})
        out["search1_ms"] = round((time.perf_counter() - t) * 1000, 1)
        t = time.perf_counter()
        await c.call_tool("search_skills", {"query": "deploy schema"})
        out["search2_ms"] = round((time.perf_counter() - t) * 1000, 1)
        if spec.get("served"):
            res = await c.read_resource(f"skill://{spec['served']}/SKILL.md")
            out["served_skill_md"] = res.contents[0].text[:300]
        if not spec.get("walk", True):
            print(json.dumps(out))
            return
        # Every skills/list page: what a host does to build its registry.
        entries: list[dict[str, Any]] = []
        cursor = None
        seen_cursors: set[str] = set()
        while True:
            params: dict[str, Any] = {"cursor": cursor} if cursor else {}
            r = await c.session.send_request(types.Request[dict[str, Any] | None, str](method="skills/list", params=params), RAW)
            entries.extend(r["skills"])
            print(f"{ms()} ms: {len(entries)} entries", file=sys.stderr, flush=True)
            cursor = r.get("nextCursor")
            if not cursor:
                break
            if cursor in seen_cursors:
                raise SystemExit(f"skills/list repeated the cursor {cursor!r} after {len(entries)} entries")
            seen_cursors.add(cursor)
        out["skills_listed_ms"] = ms()
        out["skills"] = len(entries)
        out["names"] = [e["frontmatter"]["name"] for e in entries]
        out["max_description"] = max(len(e["frontmatter"]["description"]) for e in entries)
        out["descriptions"] = {
            e["frontmatter"]["name"]: e["frontmatter"]["description"]
            for e in entries
            if len(e["frontmatter"]["description"]) > 900
        }
    print(json.dumps(out))


asyncio.run(main())
