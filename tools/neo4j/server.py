"""Start a real Neo4j 5 (Community, from Maven Central) on 127.0.0.1 for tests and for `make neo4j`.

Maven resolves `org.neo4j.test:neo4j-harness` into ~/.m2 once (about 170 MB); javac compiles the ~60-line launcher
beside this file. The server runs as a child process with authentication on and a generated password, prints
`READY bolt://...` when Bolt answers, and stops on SIGTERM. Its data lives in a folder the harness deletes on stop.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

HERE = Path(__file__).resolve().parent
POM = HERE / "pom.xml"
SOURCE = HERE / "src" / "main" / "java" / "driftlens" / "Neo4jLauncher.java"
TARGET = HERE / "target"
CLASSPATH_FILE = TARGET / "classpath.txt"
CLASSES = TARGET / "classes"
START_TIMEOUT_S = 180.0
#: JVM options for a server that lives for one test session: the quick JIT tier only, and the serial collector.
#: Why: on two cores, the optimising compiler's work costs more than it returns in a server this short-lived. The
#: Neo4j half of test_app.py and test_memory.py ran in the same wall time (135 s against 137 s) on 133 s of CPU
#: against 179 s, and a start took 11-13 s of CPU against 18-19 s; in the two-worker suite, CPU is wall time.
#: Benchmarks and `make neo4j` keep the JVM's defaults: they time Neo4j as it runs in production.
SHORT_LIVED = ("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")
USER = "neo4j"
#: Neo4j's page cache (its graph and property stores in memory), as `docker-compose.yml` gives the production server.
#: Why set: the harness sizes it for unit tests (8 MiB), so a benchmark's 100k chunks (their vectors, texts and graph
#: are ~0.5 GB of store files) were read through 8 MiB of cache (issue #26, docs/benchmarks.md). Memory is taken as
#: pages are first read, so a test's small graph still costs a test server little.
PAGECACHE = "1g"
#: Lucene's buffer (MB) when Neo4j fills a vector index from the store (CREATE, or the pipeline's rebuild after a bulk
#: write); Neo4j's internal `internal.dbms.index.vector.population_ram_buffer_size`, 1 by default. Why: Neo4j does not
#: merge segments while it fills an index, so the 1 MB buffer left 100k chunk vectors in 30 Lucene segments, and a
#: query searches each one for the k it asks: 128 MB makes that index one segment (k=40: 19.5 -> 4.0 ms server,
#: issue #26, docs/benchmarks.md).
VECTOR_POPULATION_BUFFER_MB = 128


class Neo4jUnavailable(RuntimeError):
    """Java or Maven is missing, or the server did not start: the message says which."""


def missing_tools() -> list[str]:
    """The tools this launcher needs that are not on PATH (empty when Neo4j can be started here)."""
    return [tool for tool in ("java", "javac", "mvn") if shutil.which(tool) is None]


def _stale(output: Path, source: Path) -> bool:
    return not output.exists() or output.stat().st_mtime < source.stat().st_mtime


def build() -> str:
    """Resolve the harness with Maven (cached in ~/.m2) and compile the launcher; return the Java classpath."""
    if missing := missing_tools():
        raise Neo4jUnavailable(f"cannot start Neo4j: {', '.join(missing)} not found on PATH (needs Java 17 and Maven)")
    if _stale(CLASSPATH_FILE, POM):
        print("Resolving Neo4j from Maven Central (first time only, ~170 MB into ~/.m2) ...", file=sys.stderr)
        subprocess.run(
            ["mvn", "-q", "-B", "-f", str(POM), "dependency:build-classpath", f"-Dmdep.outputFile={CLASSPATH_FILE}"],
            check=True,
        )
    classpath = CLASSPATH_FILE.read_text(encoding="utf-8").strip()
    compiled = CLASSES / "driftlens" / "Neo4jLauncher.class"
    if _stale(compiled, SOURCE):
        CLASSES.mkdir(parents=True, exist_ok=True)
        subprocess.run(["javac", "-d", str(CLASSES), "-cp", classpath, str(SOURCE)], check=True)
    return f"{CLASSES}{os.pathsep}{classpath}"


@dataclass
class Neo4jServer:
    """One running server: `uri`, `user`, `password`; a context manager that stops it on exit."""

    uri: str
    user: str
    password: str
    process: subprocess.Popen[str]
    workdir: Path

    def stop(self) -> None:
        """Kill the server and delete its folder.

        Killed, not shut down: its data goes with the folder, so a clean shutdown (~10 s of Neo4j closing itself,
        which every test session waited for at its end) would keep nothing.
        """
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.workdir, ignore_errors=True)

    def env(self) -> dict[str, str]:
        """The settings that point DriftLens at this server."""
        return {"NEO4J_URI": self.uri, "NEO4J_USERNAME": self.user, "NEO4J_PASSWORD": self.password}

    def __enter__(self) -> Neo4jServer:
        return self

    def __exit__(self, *_exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.stop()


def start(
    port: int = 0,
    workdir: Path | None = None,
    heap: str = "1g",
    password: str | None = None,
    jvm_options: Sequence[str] = (),
) -> Neo4jServer:
    """Start a server on 127.0.0.1:`port` (0: any free port) and wait until Bolt answers.

    `password` (default: a generated one) lets a test start a server again where a client expects it;
    `jvm_options` go to the JVM (the test session's server passes SHORT_LIVED). Every server gets PAGECACHE and
    VECTOR_POPULATION_BUFFER_MB.
    """
    classpath = build()
    workdir = Path(tempfile.mkdtemp(prefix="driftlens-neo4j-")) if workdir is None else workdir
    workdir.mkdir(parents=True, exist_ok=True)
    password = password or secrets.token_urlsafe(18)
    password_file = workdir / "password"
    password_file.write_text(password, encoding="utf-8")
    password_file.chmod(0o600)
    log = (workdir / "launcher.log").open("w", encoding="utf-8")
    scratch = workdir / "tmp"  # Neo4j writes a log4j file per start to the JVM's temporary folder: keep it ours
    scratch.mkdir(exist_ok=True)
    process = subprocess.Popen(
        ["java", f"-Xmx{heap}", f"-Djava.io.tmpdir={scratch}", *jvm_options, "-cp", classpath,
         "driftlens.Neo4jLauncher", "--port", str(port),
         "--dir", str(workdir / "db"), "--password-file", str(password_file),
         "--pagecache", PAGECACHE, "--vector-population-buffer-mb", str(VECTOR_POPULATION_BUFFER_MB)],
        stdout=subprocess.PIPE, stderr=log, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + START_TIMEOUT_S
    assert process.stdout is not None
    for line in process.stdout:
        if line.startswith("READY "):
            uri = line.split(" ", 1)[1].strip().rstrip("/")
            return Neo4jServer(uri=uri, user=USER, password=password, process=process, workdir=workdir)
        if time.monotonic() > deadline:
            break
    process.kill()
    process.wait()
    raise Neo4jUnavailable(f"Neo4j did not start; its log: {workdir / 'launcher.log'}")


def main() -> None:
    parser = argparse.ArgumentParser(description="Run a Neo4j 5 server on 127.0.0.1 until Ctrl-C.")
    parser.add_argument("--port", type=int, default=7687)
    args = parser.parse_args()
    server = start(port=args.port)
    print(f"Neo4j {server.uri} is up (user {server.user}). Point DriftLens at it with:")
    print(f"  export NEO4J_URI={server.uri} NEO4J_USERNAME={server.user} NEO4J_PASSWORD={server.password}")
    print("Data is discarded when it stops. Ctrl-C to stop.", flush=True)
    stop_signals = {signal.SIGINT, signal.SIGTERM}
    signal.pthread_sigmask(signal.SIG_BLOCK, stop_signals)  # after the child started: it must not inherit the mask
    try:
        signal.sigwait(stop_signals)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
