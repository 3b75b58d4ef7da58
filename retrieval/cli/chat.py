"""`python -m retrieval chat`: ask the graph from a terminal, with history, progress and numbered citations.

Why the reader is injectable: prompt_toolkit owns the terminal in real use, but tests (and scripts) drive the
same loop through any `prompt -> line` function, so what is tested is what runs.

`--no-rag` (or `/rag off`) is the RAG decision record's switch: the model answers from its own knowledge, with no
retrieval from the graph, and every such answer says so, so a reader can compare the two and never mistakes an
unsupported answer for a grounded one.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.markdown import Markdown
from rich.tree import Tree

from retrieval.cli import add_graph_options, settings_from_args
from retrieval.engine import Engine
from retrieval.errors import DriftLensError
from retrieval.llm.client import Message
from retrieval.models import Answer, Mode
from retrieval.modes import MODES
from retrieval.modes.agent_session import AgentConversation
from retrieval.telemetry.events import ProgressEvent
from retrieval.text.clean import clean_text

HELP = "Commands: /mode [local|global|drift|agent]  /rag [on|off]  /trace  /help  /quit  — anything else is a question."
Reader = Callable[[str], str]
RAG_OFF_NOTE = "RAG is off: the model answered from its own knowledge, without retrieval from the graph (no citations)."
NO_RAG_PROMPT = (
    "You are a helpful assistant. No documents are available to you in this conversation: answer from your own "
    "knowledge, and say so plainly when you do not know."
)


class ChatApp:
    """One terminal conversation: questions go to the engine (agent mode keeps multi-turn history)."""

    def __init__(
        self, engine: Engine, *, mode: Mode = "local", project: str | None = None, console: Console, rag: bool = True
    ) -> None:
        self.engine = engine
        self.mode: Mode = mode
        self.project = project
        self.console = console
        self.rag = rag
        self.last: Answer | None = None
        self.conversation = AgentConversation(engine.context(project), engine.params())
        #: The turns answered without retrieval, sent back with the next such question.
        self.plain_history: list[Message] = []
        self._status: Any = None

    def loop(self, read: Reader) -> None:
        self.console.print(f"[bold]DriftLens chat[/bold] — {self.engine.settings.backend_display}, mode {self.mode}")
        if not self.rag:
            self._say_rag()
        self.console.print(HELP, markup=False)
        while True:
            try:
                line = read(f"{self.mode}> ")
            except (EOFError, KeyboardInterrupt):
                return
            if not self.handle(clean_text(line).strip()):  # agent turns bypass Engine.ask: clean here too
                return

    def handle(self, line: str) -> bool:
        """Run one input line; False means the user asked to leave."""
        if not line:
            return True
        command, _, argument = line.partition(" ")
        if command in ("/quit", "/exit"):
            return False
        if command == "/help":
            self.console.print(HELP, markup=False)
        elif command == "/mode":
            self._switch(argument.strip())
        elif command == "/trace":
            self._trace()
        elif command == "/rag":
            self._switch_rag(argument.strip())
        elif command.startswith("/"):
            self.console.print(f"Unknown command {command}. {HELP}", markup=False)
        else:
            self._ask(line)
        return True

    def _switch(self, mode: str) -> None:
        if mode not in MODES:
            self.console.print(f"[red]Unknown mode {mode!r}[/red]; choose one of {', '.join(MODES)}.")
            return
        self.mode = mode  # type: ignore[assignment]
        self.console.print(f"Mode is now [bold]{mode}[/bold].")

    def _switch_rag(self, value: str) -> None:
        if value not in ("on", "off"):
            self.console.print(f"Unknown /rag value {value!r}; use /rag on or /rag off.", markup=False)
            return
        self.rag = value == "on"
        self._say_rag()

    def _say_rag(self) -> None:
        if self.rag:
            self.console.print(f"RAG is on: questions are answered from the graph in mode {self.mode}.", markup=False)
        else:
            self.console.print(
                "RAG is off: the model answers from its own knowledge, without retrieval from the graph.", markup=False
            )

    def _ask(self, question: str) -> None:
        with self.console.status("thinking…") as status:
            self._status = status
            try:
                if not self.rag:
                    answer = self._without_retrieval(question)
                elif self.mode == "agent":
                    progress = self.engine.bus.retrieval(self.conversation.ctx.project, callbacks=[self._progress])
                    answer = self.conversation.ask(question, progress)
                else:
                    answer = self.engine.ask(question, self.mode, project=self.project, on_progress=self._progress)
            except DriftLensError as exc:
                self.console.print(f"[red]error:[/red] {exc}")
                return
            finally:
                self._status = None
        self.last = answer
        self._render(answer)

    def _without_retrieval(self, question: str) -> Answer:
        """The model alone (no search, no graph), with the earlier no-retrieval turns as history."""
        llm = self.engine.llm
        if llm is None:
            raise DriftLensError(
                "RAG is off and no language model is configured (OPENAI_API_KEY, OPENAI_BASE_URL or "
                "AZURE_OPENAI_ENDPOINT): there is nothing to answer without retrieval. Use /rag on."
            )
        started = time.perf_counter()
        answer = Answer(question=question, mode=self.mode, answered_by="llm", notes=[RAG_OFF_NOTE], status="no_rag")
        asked: Message = {"role": "user", "content": question}
        messages: list[Message] = [{"role": "system", "content": NO_RAG_PROMPT}, *self.plain_history, asked]
        completion = llm.complete(messages, phase="no_rag", usage=answer.usage)
        answer.final_answer = completion.text.strip()
        answer.usage.wall_ms = (time.perf_counter() - started) * 1000
        self.plain_history += [asked, {"role": "assistant", "content": answer.final_answer}]
        return answer

    def _progress(self, event: ProgressEvent) -> None:
        if self._status is not None:
            self._status.update(f"{event.progress_pct:3d}% {event.thought_summary}")

    def _render(self, answer: Answer) -> None:
        citations = list(dict.fromkeys((c.chunk_id, c.source, c.span) for c in answer.citations()))
        number = {cited: n for n, cited in enumerate(citations, start=1)}  # one number per listed reference
        if answer.no_data_found and not answer.final_answer:
            self.console.print("[yellow]No data found.[/yellow]")
        if answer.final_answer:
            self.console.print(Markdown(answer.final_answer))
        for fact in answer.key_facts:
            if fact.fact != answer.final_answer:
                marks = "".join(f"[{number[(c.chunk_id, c.source, c.span)]}]" for c in fact.citations)
                self.console.print(f"• {fact.fact} {marks}", markup=False, highlight=False)
        for n, (_chunk_id, source, span) in enumerate(citations, start=1):
            self.console.print(f"  [{n}] {source}: “{' '.join(span.split())[:160]}”", markup=False, highlight=False)
        for note in answer.notes:
            self.console.print(f"[dim]note: {note}[/dim]", highlight=False)
        if answer.confidence is not None and not answer.no_data_found:
            judged = answer.confidence
            self.console.print(f"confidence {judged.score:.0%} {judged.limitation}".rstrip(), markup=False)
        footer = f"{answer.mode} · {answer.answered_by} · {answer.status} · {answer.usage.wall_ms:.0f} ms"
        self.console.print(f"[dim]{footer} · {answer.usage.llm_calls} LLM calls · /trace for the steps[/dim]")

    def _trace(self) -> None:
        if self.last is None or not self.last.trace:
            self.console.print("No trace yet: ask a question first.")
            return
        tree = Tree(f"trace of “{self.last.question}”")
        branches: dict[str, Tree] = {}
        for step in self.last.trace:
            parent = branches.get(step.parent_id or "", tree)
            label = f"{step.kind} {step.question[:80]}".strip()
            detail = f" → {step.answer[:120]}" if step.answer else ""
            branches[step.id] = parent.add(f"{label}{detail} ({step.duration_ms:.0f} ms)", highlight=False)
        self.console.print(tree, markup=False)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("chat", help="ask questions in a terminal chat")
    add_graph_options(parser)
    parser.add_argument("--mode", choices=MODES, default="local", help="answer mode to start in")
    parser.add_argument(
        "--rag",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="answer from the graph (default); --no-rag: the model answers alone, without retrieval",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.history import FileHistory

    settings = settings_from_args(args)
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    engine = Engine(settings)
    try:
        session: PromptSession[str] = PromptSession(history=FileHistory(str(settings.data_dir / "chat_history")))
        app = ChatApp(engine, mode=args.mode, project=args.project, console=Console(), rag=args.rag)
        app.loop(session.prompt)
    finally:
        engine.close()
    return 0
