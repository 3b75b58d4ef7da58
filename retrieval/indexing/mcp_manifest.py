"""MCP server metadata in a repository: the tools a server manifest declares and the servers an `mcp.json` configures.

Why these two shapes: an MCP Bundle's `manifest.json` (and manifests like it) lists its server's `tools` as
objects with a `name` and `description`; client configuration files (`mcp.json`, `*.mcp.json`) name servers
under `mcpServers` (Claude, Cursor) or `servers` (VS Code) with a `command` or a `url`. Both say which agent
capabilities a repository ships, so both become nodes `DEFINED_IN` the file that declares them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

MANIFEST_NAMES = frozenset({"mcp.json", "manifest.json", "server.json"})
SERVER_KEYS = ("mcpServers", "servers")


@dataclass(frozen=True)
class McpItem:
    """A declared tool (`label` "Tool") or a configured server (`label` "MCPServer")."""

    label: str
    name: str
    description: str
    server: str


def is_manifest(path: str) -> bool:
    name = PurePosixPath(path).name.lower()
    return name in MANIFEST_NAMES or name.endswith(".mcp.json")


def items(path: str, text: str) -> list[McpItem]:
    """Tools and servers declared by `text`; a file that is not such a manifest (or not JSON) declares none."""
    if not is_manifest(path):
        return []
    try:
        data = json.loads(text)
    except ValueError:
        return []
    if not isinstance(data, dict):
        return []
    server = str(data.get("display_name") or data.get("name") or "")
    found = [
        McpItem("Tool", str(tool["name"]), str(tool.get("description") or ""), server)
        for tool in _list(data.get("tools"))
        if isinstance(tool, dict) and tool.get("name")
    ]
    for key in SERVER_KEYS:
        servers = data.get(key)
        if isinstance(servers, dict):
            found.extend(
                McpItem("MCPServer", str(name), _launch(config), str(name)) for name, config in servers.items()
            )
    return found


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _launch(config: Any) -> str:
    """How the server starts (`command args`) or where it listens (`url`): its description."""
    if not isinstance(config, dict):
        return ""
    if config.get("url"):
        return str(config["url"])
    args = " ".join(str(a) for a in _list(config.get("args")))
    return f"{config.get('command') or ''} {args}".strip()
