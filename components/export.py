"""An answer or a whole conversation as Markdown or JSON, with citations and the settings used.

Why the settings: an exported answer is evidence for someone who was not there; without the mode's
knobs (top-k, hops, ...) nobody can reproduce it or tell why two exports of one question differ.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from components.untrusted import as_typed
from retrieval.conversation.thread import Turn
from retrieval.models import Answer
from retrieval.modes import knobs

#: Longest part of a question kept in a file name.
STEM_CHARS = 60


def answered_by(answer: Answer) -> str:
    return "LLM" if answer.answered_by == "llm" else "extractive"


def mode_name(mode: str) -> str:
    return "DRIFT" if mode == "drift" else mode.capitalize()


def file_stem(question: str, suffix: str = "") -> str:
    """A download's name from its question: lower-case words joined by dashes ("who-was-marley-local")."""
    words = re.findall(r"\w+", question.lower())
    stem = "-".join(words)[:STEM_CHARS].strip("-") or "answer"
    return f"{stem}-{suffix}" if suffix else stem


def settings_line(answer: Answer) -> str:
    """The knobs this answer's mode reads, with their values."""
    used = [
        f"{name}={answer.params[name]}"
        for name in knobs.KNOB_MODES
        if name in answer.params and knobs.affects(name, answer.mode)
    ]
    return f"*Settings: {', '.join(used)}*" if used else "*Settings: none of the knobs apply to this mode*"


def to_markdown(answer: Answer, heading: str = "#") -> str:
    """Readable report: question, answer, confidence, key facts with numbered citations, the citation list."""
    confidence = answer.confidence
    lines = [
        f"{heading} {as_typed(answer.question)}",  # a question reads as typed: its markup must not load anything
        "",
        f"*Mode: {mode_name(answer.mode)} · answered by: {answered_by(answer)}"
        + (f" · confidence {confidence.score:.0%}*" if confidence else "*"),
        "",
        settings_line(answer),
        "",
        answer.final_answer or ("No data found." if answer.no_data_found else ""),
        "",
    ]
    if confidence and confidence.limitation:
        lines += [f"> {confidence.limitation}", ""]
    numbered: list[str] = []
    if answer.key_facts:
        nearest = answer.outcome == "not_in_documents"
        lines += [f"{heading}# {'Nearest material (not an answer)' if nearest else 'Key facts'}", ""]
        for fact in answer.key_facts:
            refs = []
            for citation in fact.citations:
                numbered.append(
                    f"{len(numbered) + 1}. {citation.source} "
                    f"(`{citation.chunk_id}`"
                    + (f", score {citation.score:.3f}" if citation.score is not None else "")
                    + (f", span match {citation.match:.0%}" if citation.match is not None else "")
                    + f'): "{" ".join(citation.span.split())}"'
                )
                refs.append(f"[{len(numbered)}]")
            lines.append(f"- {fact.fact} {' '.join(refs)}".rstrip())
        lines.append("")
    if numbered:
        lines += [f"{heading}# Citations", "", *numbered, ""]
    if answer.residual_uncertainty:
        lines += [f"{heading}# Residual uncertainty", "", answer.residual_uncertainty, ""]
    usage = answer.usage
    lines.append(
        f"*{usage.llm_calls} LLM calls · {usage.prompt_tokens + usage.completion_tokens} tokens · "
        f"${usage.cost_usd:.4f} · {usage.wall_ms:.0f} ms*"
    )
    return "\n".join(lines) + "\n"


def to_json(answer: Answer) -> str:
    return answer.model_dump_json(indent=2)


def conversation_markdown(turns: Sequence[Turn]) -> str:
    """A whole conversation: each turn's question, how it was searched, what was recalled, and its answers."""
    lines = ["# Conversation", ""]
    for n, turn in enumerate(turns, start=1):
        lines += [f"## {n}. {as_typed(turn.question)}" + ("" if turn.valid else " (invalidated)"), ""]
        lines += [f"*Damaged: {turn.damaged}.*", ""] if turn.damaged else []
        if turn.meta.searched_as and turn.meta.searched_as != turn.question:
            lines += [f"*Searched as: {as_typed(turn.meta.searched_as)}*", ""]
        for i, memory in enumerate(turn.meta.earlier, start=1):
            lines.append(
                f"- [E{i}] from earlier ({memory.role}, {memory.timestamp[:16]}, `{memory.id}`): {memory.text}"
            )
        lines += [""] if turn.meta.earlier else []
        lines += [to_markdown(answer, heading="###") for answer in turn.answers]
    return "\n".join(lines)
