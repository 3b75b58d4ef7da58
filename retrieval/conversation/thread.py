"""Conversations: threads of turns stored as Memory nodes, follow-ups resolved against earlier turns.

Why memory nodes: a conversation then survives a reload, can be reopened by URL, appears on the Memory
page beside everything else remembered, and an invalidated turn stops feeding later answers, all with
the one `MemoryStore` the Agent Framework provider uses too. A turn is one user memory (the question)
and one assistant memory per mode that answered (its text is embedded for recall; the full `Answer` is
kept as the memory's payload so a reopened thread, or a DRIFT run opened by `?run=`, shows everything).

Why follow-ups are resolved here and not in the modes: "and what did he say about chips?" only means
something next to the turns before it. A question is a follow-up by `followups.is_follow_up` (a question that
stands alone, "What is ImageNet and why did Fei-Fei Li build it?", is not). With a model, one call rewrites it
into a standalone question; without one, each referring word is replaced by the most recent fitting entity of
the earlier questions (`followups.rewrite`), else the latest turn's entities and content words join the search.
Either way the reader sees how it was searched. Agent mode reads the earlier turns itself, as chat history.

The CLI chat, the app and any future API share this module; Streamlit never appears here.
"""

from __future__ import annotations

import json
import re
import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel, ValidationError

from retrieval.conversation.followups import is_follow_up, rewrite
from retrieval.conversation.memory import MemoryMessage, MemoryRecord, MemoryStore, Scope
from retrieval.engine import Engine, ProgressCallback
from retrieval.errors import DriftLensError, LLMError
from retrieval.llm.client import Message
from retrieval.models import Answer, Mode, PhaseUsage, QueryParams, Usage
from retrieval.search.keywords import content_terms
from retrieval.text.readable import nothing_to_search

APPLICATION = "driftlens"
#: Earlier turns a follow-up is resolved against.
RECENT_TURNS = 3
#: Most words from earlier turns that join an offline follow-up's search.
MAX_CONTEXT_TERMS = 5
#: Memories shown as "from earlier" per question, and the similarity they need.
EARLIER_K = 3
EARLIER_MIN_SCORE = 0.35
#: Memories read back per thread, newest first (a thread longer than this shows its latest turns).
_TURN_LIMIT = 500
_WORD = re.compile(r"\w+")
REWRITE_PROMPT = (
    "Rewrite the user's last question as one standalone question that can be searched without the "
    "conversation: replace pronouns and references with the names they stand for. Reply with the question only."
)


class EarlierMemory(BaseModel):
    """A memory shown beside an answer as context "from earlier", with what it takes to cite it."""

    id: str
    text: str
    role: str
    thread_id: str
    timestamp: str
    score: float | None = None


class TurnMeta(BaseModel):
    """What a turn keeps beside its question: how it was searched, and the memories shown with it."""

    searched_as: str = ""
    rewritten: bool = False
    context_terms: list[str] = []
    notes: list[str] = []
    earlier: list[EarlierMemory] = []


@dataclass
class Turn:
    """One question and its answers (one per mode asked); `valid` is False once its question was invalidated.

    `damaged` says why a stored turn is not whole (its question or an answer deleted on the Memory page, or kept
    in a form that cannot be read): the turn is shown with that reason, and it no longer feeds later answers.
    """

    id: str
    question: str
    answers: list[Answer] = field(default_factory=list)
    meta: TurnMeta = field(default_factory=TurnMeta)
    timestamp: str = ""
    valid: bool = True
    damaged: str = ""
    #: While answering: the earlier turns as chat history, and the rewrite call's usage not yet counted.
    history: list[Message] = field(default_factory=list)
    rewrite_usage: Usage = field(default_factory=Usage)
    #: While answering: whether the question is in the store yet, and why an answer could not be kept (the
    #: answer is still returned: the face shows it with this error rather than losing it).
    kept: bool = False
    unkept: DriftLensError | None = None


class ThreadSummary(BaseModel):
    thread_id: str
    title: str
    turns: int
    last_timestamp: str


class Resolved(BaseModel):
    """A question as it will be searched."""

    question: str
    rewritten: bool = False
    context_terms: list[str] = []
    notes: list[str] = []


def new_thread_id() -> str:
    return uuid.uuid4().hex[:12]


class Conversation:
    """One thread of one user: its turns, asking in it, and the memories it recalls.

    With memory turned off (`DRIFTLENS_MEMORY_ENABLED=false`) turns live in this object only.
    """

    def __init__(self, engine: Engine, *, user: str | None = None, thread_id: str | None = None) -> None:
        self.engine = engine
        self.user = user or engine.settings.user
        self.thread_id = thread_id or new_thread_id()
        self.memory = (
            MemoryStore(engine.store, engine.settings, engine.embedder) if engine.settings.memory_enabled else None
        )
        self._local: list[Turn] = []

    @property
    def user_scope(self) -> Scope:
        return Scope(application_id=APPLICATION, user_id=self.user)

    @property
    def scope(self) -> Scope:
        return self.user_scope.with_thread(self.thread_id)

    # --- reading --------------------------------------------------------------------------------
    def turns(self) -> list[Turn]:
        """The thread's turns, oldest first (invalidated ones included, marked)."""
        if self.memory is None:
            return list(self._local)
        records = list(reversed(self.memory.page(self.scope, limit=_TURN_LIMIT).items))
        return turns_of(records)

    # --- asking ---------------------------------------------------------------------------------
    def ask(
        self,
        question: str,
        modes: Sequence[Mode],
        params: QueryParams | None = None,
        *,
        project: str | None = None,
        on_progress: ProgressCallback | None = None,
    ) -> Turn:
        """Answer `question` in each mode as the thread's next turn (each answer kept as it is made)."""
        turn = self.begin(question, modes)
        for mode in modes:
            self.answer(turn, mode, params, project=project, on_progress=on_progress)
        return turn

    def begin(self, question: str, modes: Sequence[Mode]) -> Turn:
        """A new turn: the question resolved against the earlier turns, and the memories recalled for it.

        `begin` and `answer` per mode are `ask` in steps, for faces that show each mode's progress.
        """
        earlier = [t for t in self.turns() if t.valid and not t.damaged][-RECENT_TURNS:]
        usage = Usage()
        resolved = self.resolve(question, earlier, usage) if any(m != "agent" for m in modes) else None
        resolved = resolved or Resolved(question=question)
        turn = Turn(id=uuid.uuid4().hex[:12], question=question)
        turn.meta = TurnMeta(
            searched_as=resolved.question,
            rewritten=resolved.rewritten,
            context_terms=resolved.context_terms,
            notes=resolved.notes,
            earlier=self.earlier(resolved.question),
        )
        turn.history = _history(earlier)
        turn.rewrite_usage = usage
        return turn

    def answer(
        self,
        turn: Turn,
        mode: Mode,
        params: QueryParams | None = None,
        *,
        project: str | None = None,
        on_progress: ProgressCallback | None = None,
    ) -> Answer:
        """One mode's answer to the turn (agent mode gets the earlier turns as history instead of a rewrite), kept in
        the thread before it is returned.

        Why keep it here, not once the face has drawn it: a face's run can be cut short after the answer is made
        (in Streamlit a question sent while the last answer is still being drawn stops that script run), and an
        answer the analyst saw must not vanish from the thread because of it.
        """
        agent = mode == "agent"
        answer = self.engine.ask(
            turn.question if agent else turn.meta.searched_as,
            mode,
            params,
            project=project,
            on_progress=on_progress,
            history=turn.history if agent else None,
        )
        answer.question = turn.question
        if not agent:
            answer.notes[:0] = turn.meta.notes
            _merge_usage(answer.usage, turn.rewrite_usage)
            turn.rewrite_usage = Usage()  # counted once, in the first answer that used the rewrite
        turn.answers.append(answer)
        try:
            self._keep(turn, answer)
        except DriftLensError as exc:
            turn.unkept = exc
        return answer

    def resolve(self, question: str, earlier: Sequence[Turn], usage: Usage | None = None) -> Resolved:
        """The question as it should be searched, given the earlier turns (unchanged when it stands alone)."""
        if not earlier or not is_follow_up(question):
            return Resolved(question=question)
        llm = self.engine.llm
        if llm is not None:
            messages: list[Message] = [{"role": "system", "content": REWRITE_PROMPT}, *_history(earlier)]
            messages.append({"role": "user", "content": question})
            try:
                text = " ".join(llm.complete(messages, phase="rewrite", usage=usage).text.split())
            except LLMError as exc:
                offline = self._offline(question, earlier)
                offline.notes.insert(0, f"The follow-up could not be rewritten by the model ({exc}).")
                return offline
            if text:
                return Resolved(
                    question=text,
                    rewritten=True,
                    notes=[f"Follow-up rewritten by the model as: “{text}”."],
                )
        return self._offline(question, earlier)

    def _offline(self, question: str, earlier: Sequence[Turn]) -> Resolved:
        """Offline: the referring words replaced by the entities they stand for, else the latest turn's words."""
        found = rewrite(question, [t.meta.searched_as or t.question for t in earlier])
        if found is None:
            return self._with_context_terms(question, earlier[-1:])
        read = "; ".join(f"“{word}” as “{name}”" for word, name in found.read_as)
        return Resolved(
            question=found.question,
            rewritten=True,
            context_terms=list(dict.fromkeys(name for _word, name in found.read_as)),
            notes=[f"Follow-up: read {read}; searched as “{found.question}”."],
        )

    def _with_context_terms(self, question: str, earlier: Sequence[Turn]) -> Resolved:
        """The earlier turns' entities and content words join the search (a follow-up no word of which refers).

        Entities are the seeds the earlier searches found, kept when they share a word with that turn's question
        (the others were found by a stray word); then the earlier questions' content words.
        """
        have = set(content_terms(question))
        found: list[str] = []
        for turn in reversed(earlier):
            asked = set(content_terms(turn.meta.searched_as or turn.question))
            for answer in turn.answers:
                search = next((s for s in answer.trace if s.kind == "search"), None)
                seeds = [str(t) for t in (search.details.get("seed_entities", []) if search else [])]
                found += [t for t in seeds if asked & set(content_terms(t))]
            found += _as_written(turn.meta.searched_as or turn.question)
        chosen: list[str] = []
        for term in found:
            words = set(content_terms(term))
            if words and not words <= have and term.lower() not in (c.lower() for c in chosen):
                chosen.append(term)
                have |= words
            if len(chosen) == MAX_CONTEXT_TERMS:
                break
        if not chosen:
            return Resolved(question=question)
        listed = ", ".join(f"“{t}”" for t in chosen)
        return Resolved(
            question=f"{question} {' '.join(chosen)}",
            context_terms=chosen,
            notes=[f"Follow-up: searched with {listed} from earlier turns."],
        )

    def earlier(self, question: str) -> list[EarlierMemory]:
        """Valid memories of this user (any thread) close to the question: context shown "from earlier"."""
        if self.memory is None or nothing_to_search(question):
            return []
        records = self.memory.search(self.user_scope, question, k=EARLIER_K)
        return [
            EarlierMemory(
                id=r.id, text=r.text, role=r.role, thread_id=r.thread_id, timestamp=r.timestamp, score=r.score
            )
            for r in records
            if r.score is None or r.score >= EARLIER_MIN_SCORE
        ]

    # --- storing --------------------------------------------------------------------------------
    def _keep(self, turn: Turn, answer: Answer) -> None:
        """Add one answer to the stored thread: the first one kept brings the turn's question with it, later modes'
        answers join the same turn (one message id). A blank question is answered, not kept."""
        if not turn.question.strip():
            return
        if self.memory is None:
            if not turn.kept:
                self._local.append(turn)  # later answers land in the same Turn object
            turn.kept = True
            return
        reply = MemoryMessage(
            text=_memory_text(answer),
            role="assistant",
            message_id=turn.id,
            author_name=answer.mode,
            payload=_slim(answer).model_dump_json(),
        )
        meta = turn.meta.model_dump_json()
        asked = [] if turn.kept else [MemoryMessage(text=turn.question, role="user", message_id=turn.id, payload=meta)]
        stored = self.memory.add(self.scope, [*asked, reply])
        if asked and stored:
            turn.timestamp = stored[0].timestamp
        turn.kept = True


# --- threads and runs ---------------------------------------------------------------------------
def threads(engine: Engine, user: str | None = None, limit: int = 20) -> list[ThreadSummary]:
    """The user's threads in this application, most recently active first, titled by their first question."""
    if not engine.settings.memory_enabled:
        return []
    memory = MemoryStore(engine.store, engine.settings, engine.embedder)
    user = user or engine.settings.user
    found = [
        s
        for s in memory.scopes()
        if s.application_id == APPLICATION and s.user_id == user and s.thread_id and not s.agent_id
    ][:limit]
    summaries = []
    for summary in found:
        scope = Scope(application_id=APPLICATION, user_id=user, thread_id=summary.thread_id)
        count = memory.page(scope, limit=1, role="user").total  # newest first: the oldest is the last one
        first = memory.page(scope, offset=max(count - 1, 0), limit=1, role="user").items
        summaries.append(
            ThreadSummary(
                thread_id=summary.thread_id,
                title=first[0].text if first else "(empty)",
                turns=count,
                last_timestamp=summary.last_timestamp,
            )
        )
    return summaries


def find_run(engine: Engine, run_id: str, user: str | None = None) -> tuple[str, Answer] | None:
    """A DRIFT run kept with a thread, by its turn id: (thread id, answer), or None when there is none."""
    if not engine.settings.memory_enabled or not run_id:
        return None
    memory = MemoryStore(engine.store, engine.settings, engine.embedder)
    scope = Scope(application_id=APPLICATION, user_id=user or engine.settings.user)
    for record in memory.message(scope, run_id):
        answer = _read(Answer, record.payload) if record.role == "assistant" and record.author_name == "drift" else None
        if answer is not None:
            return record.thread_id, answer
    return None


def turns_of(records: Sequence[MemoryRecord]) -> list[Turn]:
    """Group a thread's memories (oldest first) into turns by message id; a turn that is not whole is `damaged`.

    Why never raise: one deleted or unreadable memory must not make the whole thread impossible to open (and so
    to continue); the turn it belonged to says what is missing, the others read as they were stored.
    """
    turns: dict[str, Turn] = {}
    asked: set[str] = set()
    unreadable: Counter[str] = Counter()
    for record in records:
        key = record.message_id or record.id
        turn = turns.setdefault(key, Turn(id=key, question="", timestamp=record.timestamp))
        if record.role == "user":
            asked.add(key)
            turn.question, turn.timestamp, turn.valid = record.text, record.timestamp, record.valid
            meta = _read(TurnMeta, record.payload) if record.payload else TurnMeta()
            turn.meta = meta or TurnMeta()
            readable = meta is not None
        else:
            answer = _read(Answer, record.payload)
            turn.answers += [answer] if answer else []
            readable = answer is not None
        unreadable[key] += not readable
    for key, turn in turns.items():
        turn.damaged = _damage(key in asked, bool(turn.answers), unreadable[key])
    return list(turns.values())


def _damage(asked: bool, answered: bool, unreadable: int) -> str:
    """Why a stored turn is not whole, in the reader's words ("" when it is)."""
    reasons = [] if asked else ["its question was deleted"]
    reasons += [f"{unreadable} of its memories could not be read"] if unreadable else []
    reasons += [] if answered or unreadable else ["its answer was deleted"]
    return "; ".join(reasons)


def _read[M: BaseModel](model: type[M], payload: str) -> M | None:
    """A stored payload as `model`, or None when it is missing or no longer readable (e.g. an older format)."""
    try:
        return model.model_validate_json(payload)
    except ValidationError:
        return None


def _as_written(text: str) -> list[str]:
    """The text's content words as they were typed ("Marley", not "marley")."""
    written = {word.lower(): word for word in reversed(_WORD.findall(text))}
    return [written.get(term, term) for term in content_terms(text)]


def _history(turns: Sequence[Turn]) -> list[Message]:
    """Earlier turns as chat messages: each question and its first answer's text."""
    messages: list[Message] = []
    for turn in turns:
        text = next((_memory_text(a) for a in turn.answers if _memory_text(a)), "")
        messages += [{"role": "user", "content": turn.question}]
        if text:
            messages += [{"role": "assistant", "content": text}]
    return messages


def _memory_text(answer: Answer) -> str:
    """What an answer contributes to recall: its text, else its key facts, else its notes ("nothing to search for").

    Never empty for an answer with a note: memory keeps only messages with text, and a turn stored without its
    answer would read back as damaged.
    """
    facts = "\n".join(f"- {f.fact}" for f in answer.key_facts)
    return answer.final_answer.strip() or facts or " ".join(answer.notes).strip()


def _slim(answer: Answer) -> Answer:
    """The answer to keep: evidence that is not cited keeps its id and scores but not its text."""
    cited = {c.chunk_id for c in answer.citations()}
    kept = answer.model_copy(deep=True)
    for hit in kept.evidence:
        if hit.id not in cited:
            hit.text = ""
    return kept


def _merge_usage(total: Usage, extra: Usage) -> None:
    """Add the rewrite call's usage to an answer's, so its cost is counted once and where it was spent."""
    for phase, entry in extra.phases.items():
        mine = total.phases.setdefault(phase, PhaseUsage())
        for name in PhaseUsage.model_fields:
            setattr(mine, name, getattr(mine, name) + getattr(entry, name))
    for name in ("llm_calls", "prompt_tokens", "completion_tokens", "cost_usd"):
        setattr(total, name, getattr(total, name) + getattr(extra, name))


def dumps_turns(turns: Sequence[Turn]) -> str:
    """A whole conversation as JSON (the conversation export)."""
    return json.dumps(
        [
            {
                "id": t.id,
                "question": t.question,
                "timestamp": t.timestamp,
                "valid": t.valid,
                "damaged": t.damaged,
                "meta": t.meta.model_dump(),
                "answers": [a.model_dump(mode="json") for a in t.answers],
            }
            for t in turns
        ],
        indent=2,
    )
