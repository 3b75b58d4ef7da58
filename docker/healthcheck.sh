#!/bin/sh
# Container health: the service's own GET /health (503 while the graph is down) for `api`; for `app`, whether the
# graph answers (`python -m retrieval health`). Either way a dead graph makes the container unhealthy.
if [ "$(cat /tmp/driftlens-role 2>/dev/null)" = api ]; then
  exec python -c "import sys, urllib.request, urllib.error
try:
    sys.exit(urllib.request.urlopen('http://127.0.0.1:${API_PORT:-8000}/health', timeout=8).status != 200)
except (urllib.error.URLError, OSError):
    sys.exit(1)"
fi
exec python -m retrieval health > /dev/null
