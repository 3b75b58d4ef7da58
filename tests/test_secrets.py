"""Secrets never reach a message, a chained exception, a log record or the CLI's output.

The two leaks the hardening probe found: a Neo4j URI with `user:password@` printed in a traceback, and a
key a model server echoed back surviving in the chained exception. Both are driven through the real
parts: the Neo4j driver against a closed port, the openai client against the scripted server.
"""

from __future__ import annotations

import logging
import socket
import subprocess
import sys
import traceback
from pathlib import Path

import pytest

from retrieval.cli import main
from retrieval.config import Settings, load_settings
from retrieval.embed import make_embedder
from retrieval.errors import DriftLensError, LLMError, StoreUnavailable
from retrieval.llm.client import ChatModel
from retrieval.store import open_store
from retrieval.text.redact import MASK, install_log_redaction, redact, register_secrets
from tests import tiny_graph
from tests.conftest import backend_env, make_settings
from tests.scripted_openai import ScriptedOpenAI, error

NEO4J_PASSWORD = "n4j-Pa55word-7f1c"
KEY = "sk-echoed-key-0b7d2e9a"
ENV_KEYS = ("NEO4J_URI", "NEO4J_PASSWORD", "OPENAI_API_KEY", "OPENAI_BASE_URL", "AZURE_OPENAI_ENDPOINT", "REDIS_URL")


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def everything_said_about(exc: BaseException) -> str:
    """str and repr of the exception and of every exception chained to it, and the printed traceback."""
    parts = ["".join(traceback.format_exception(exc))]
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        parts += [str(current), repr(current), repr(current.args)]
        current = current.__cause__ or current.__context__
    return "\n".join(parts)


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.MonkeyPatch:
    for key in ENV_KEYS:
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("DRIFTLENS_DATA_DIR", str(tmp_path))
    monkeypatch.chdir(tmp_path)  # no .env from the checkout
    return monkeypatch


# --- redact itself -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("bolt://alice:hunter2hunter2@db:7687 refused", "hunter2hunter2"),
        ("Authorization: Bearer abcdefghijklmnop", "abcdefghijklmnop"),
        ("your key sk-proj-AbCdEf123456789 is invalid", "sk-proj-AbCdEf123456789"),
        ('{"api_key": "zz-custom-value-1"}', "zz-custom-value-1"),
        ("password=letmein42 for user", "letmein42"),
    ],
)
def test_patterns_mask_credentials_nobody_registered(text: str, secret: str) -> None:
    masked = redact(text)
    assert secret not in masked and MASK in masked


def test_registered_secrets_are_masked_anywhere_and_tiny_ones_are_not_registered() -> None:
    register_secrets(["plain-token-without-a-prefix-31", "ab", None])
    assert redact("echo: plain-token-without-a-prefix-31!") == f"echo: {MASK}!"
    assert redact("a tab and a cab") == "a tab and a cab"


#: A secret whose length is read logs (as an openai client's finaliser logs when a collection runs it inside
#: `register_secrets` or `redact`): the record is masked on the same thread while the registry is being written.
LOGS_WHILE_REGISTERED = """
import logging, sys
from retrieval.text.redact import install_log_redaction, redact, register_secrets

class Loud(str):
    def __len__(self):
        logging.getLogger("loud").warning("a secret's length was read")
        return str.__len__(self)

logging.basicConfig(stream=sys.stderr)
install_log_redaction()
register_secrets([Loud("loud-secret-7b1c")])
print(redact("the key is loud-secret-7b1c"))
"""


def test_a_record_logged_while_secrets_are_registered_is_masked_not_waited_on() -> None:
    """A child process, so that a hang fails this test alone: with a plain lock held by `register_secrets` and
    taken again by `redact`, the record's own masking waited on its thread forever (a worker of the suite hung so,
    below a Neo4j driver's debug log, when a collection ran an openai client's finaliser)."""
    done = subprocess.run(
        [sys.executable, "-c", LOGS_WHILE_REGISTERED],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).resolve().parent.parent,
        check=True,
    )
    assert done.stdout.strip() == f"the key is {MASK}"
    assert "a secret's length was read" in done.stderr


def test_settings_register_their_secrets(clean_env: pytest.MonkeyPatch, tmp_path: Path) -> None:
    make_settings(tmp_path, openai_api_key="opaque-7c1e55aa", redis_url="redis://:redis-pw-9d0e@127.0.0.1:1/0")
    assert redact("opaque-7c1e55aa and redis-pw-9d0e") == f"{MASK} and {MASK}"


def test_log_records_are_masked_in_message_and_traceback(caplog: pytest.LogCaptureFixture) -> None:
    install_log_redaction()
    register_secrets(["log-secret-5e6f7a"])
    log = logging.getLogger("tests.secrets")
    try:
        raise RuntimeError("failed with log-secret-5e6f7a")
    except RuntimeError:
        log.exception("call with %s failed", "log-secret-5e6f7a")

    (record,) = [r for r in caplog.records if r.name == "tests.secrets"]
    assert "log-secret-5e6f7a" not in record.getMessage() and MASK in record.getMessage()
    assert "log-secret-5e6f7a" not in caplog.text and "RuntimeError: failed with ***" in caplog.text


# --- Neo4j URI with a password -----------------------------------------------------------------
def test_neo4j_uri_credentials_become_settings_and_never_appear_in_the_uri(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("NEO4J_URI", f"bolt://alice:{NEO4J_PASSWORD}@127.0.0.1:7687")
    settings = load_settings(_env_file=None)
    assert settings.neo4j_uri == "bolt://127.0.0.1:7687" and settings.neo4j_username == "alice"
    assert settings.neo4j_password is not None and settings.neo4j_password.get_secret_value() == NEO4J_PASSWORD
    assert NEO4J_PASSWORD not in settings.backend_display


def test_unreachable_neo4j_with_a_password_in_the_uri_leaks_it_nowhere(
    clean_env: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    caplog.set_level(logging.DEBUG)
    clean_env.setenv("NEO4J_URI", f"bolt://alice:{NEO4J_PASSWORD}@127.0.0.1:{closed_port()}")

    with pytest.raises(StoreUnavailable) as raised:
        open_store(load_settings(_env_file=None))
    assert NEO4J_PASSWORD not in everything_said_about(raised.value)

    assert main(["stats", "--json"]) == 2
    out = capsys.readouterr()
    assert "error: Graph database at bolt://127.0.0.1:" in out.err
    assert NEO4J_PASSWORD not in out.out + out.err
    assert NEO4J_PASSWORD not in caplog.text
    assert all(NEO4J_PASSWORD not in r.getMessage() for r in caplog.records)


# --- a model server that echoes the key ----------------------------------------------------------
def test_a_key_echoed_by_the_model_server_leaks_nowhere(
    clean_env: pytest.MonkeyPatch,
    settings: Settings,
    scripted_openai: ScriptedOpenAI,
    caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],
) -> None:
    caplog.set_level(logging.DEBUG)
    echo = error(500, message=f"upstream rejected Authorization: Bearer {KEY} (key {KEY})")
    scripted_openai.script(router=lambda request: echo)
    assert settings.project == tiny_graph.PROJECT
    with open_store(settings) as store:  # on both backends: the CLI below reads it
        tiny_graph.build(store, make_embedder(settings))

    llm_settings = make_settings(
        settings.data_dir, openai_base_url=scripted_openai.base_url, openai_api_key=KEY, retry_max_attempts=2
    )
    with pytest.raises(LLMError) as raised:
        ChatModel(llm_settings).complete([{"role": "user", "content": "hi"}], phase="answer")
    assert "HTTP 500" in str(raised.value)
    assert KEY not in everything_said_about(raised.value)

    model = {"OPENAI_BASE_URL": scripted_openai.base_url, "OPENAI_API_KEY": KEY, "RETRY_MAX_ATTEMPTS": "1"}
    for name, value in {**backend_env(settings), **model}.items():
        clean_env.setenv(name, value)
    args = ["ask", "Who funds the Orion probe?", "--project", tiny_graph.PROJECT]
    assert main([*args, "--json"]) == 0
    assert main(args) == 0
    out = capsys.readouterr()
    assert "HTTP 500" in out.out  # the note says what failed ...
    assert KEY not in out.out + out.err  # ... without the key
    assert KEY not in caplog.text
    assert all(KEY not in r.getMessage() for r in caplog.records)


def test_every_product_error_message_is_masked() -> None:
    register_secrets(["product-error-secret-42"])
    error_text = str(DriftLensError("query failed near product-error-secret-42"))
    assert "product-error-secret-42" not in error_text and MASK in error_text
    store_error = StoreUnavailable("bolt://bob:pw-in-uri-1234@db:7687", "hint")
    assert "pw-in-uri-1234" not in str(store_error) + store_error.uri
