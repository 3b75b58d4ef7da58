"""The retrieval service: an HTTP API (FastAPI) and MCP tools over the same `Engine` the app and the CLI use.

Thin adapters only: `schemas` (bodies), `handlers` (what each endpoint does, over Engine), `routes` (HTTP),
`mcp_tools` (MCP), `access` and `limits` (request ids, API key, concurrency, size), `metrics`, `app` (assembly),
`heap` (what a server process does once started: its startup objects kept out of the collector's way).
"""
