"""fastmcp's skills client against `skilldesk mcp serve`: list every skill, then read each one
whole (fastmcp checks every file against the size and SHA-256 the server promised and the
frontmatter against the listing). Prints one JSON object: what was listed, read and refused.

argv[1]: JSON {"command": [...]} for stdio, or {"url": "...", "token": "..."} for HTTP.
"""

import asyncio
import json
import logging
import sys

from fastmcp import Client
from fastmcp.client.transports import StdioTransport, StreamableHttpTransport
from fastmcp.skills.client import SkillsClientExtension

logging.disable(logging.WARNING)


async def main() -> None:
    args = json.loads(sys.argv[1])
    if "command" in args:
        cmd = args["command"]
        transport = StdioTransport(cmd[0], cmd[1:], env=args.get("env"))
    else:
        transport = StreamableHttpTransport(
            args["url"], headers={"Authorization": f"Bearer {args['token']}"}
        )
    out = {"listed": [], "read": [], "failed": {}}
    async with Client(transport, extensions=[SkillsClientExtension()]) as client:
        for entry in await client.list_skills():
            out["listed"].append(str(entry.uri))
            try:
                await client.read_skill(str(entry.uri))
                out["read"].append(str(entry.uri))
            except Exception as e:  # every refusal is reported, not raised
                out["failed"][str(entry.uri)] = f"{type(e).__name__}: {e}"
    print(json.dumps(out))


asyncio.run(main())
