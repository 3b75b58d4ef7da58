#!/bin/sh
# DriftLens container entry point: `app` (the Streamlit workbench, the default) or `api` (the HTTP + MCP service);
# anything else runs as given. The role is written down for the health check (docker/healthcheck.sh).
set -e
role="${1:-app}"
case "$role" in
  app)
    echo app > /tmp/driftlens-role
    # `demo` builds the demo graph on first start (embedded backend only) and is a no-op afterwards.
    python -m retrieval demo
    exec streamlit run app.py --server.address 0.0.0.0 --server.port 8501
    ;;
  api)
    echo api > /tmp/driftlens-role
    exec python -m retrieval serve --host 0.0.0.0 --port "${API_PORT:-8000}"
    ;;
  *)
    exec "$@"
    ;;
esac
