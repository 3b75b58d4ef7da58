"""An answer as Markdown or JSON, with its citations, for the Ask page's download buttons."""

from __future__ import annotations

from retrieval.models import Answer


def answered_by(answer: Answer) -> str:
    return "LLM" if answer.answered_by == "llm" else "extractive"


def mode_name(mode: str) -> str:
    return "DRIFT" if mode == "drift" else mode.capitalize()


def to_markdown(answer: Answer) -> str:
    """Readable report: question, answer, key facts with numbered citations, then the citation list."""
    lines = [
        f"# {answer.question}",
        "",
        f"*Mode: {mode_name(answer.mode)} · answered by: {answered_by(answer)}*",
        "",
        answer.final_answer or ("No data found." if answer.no_data_found else ""),
        "",
    ]
    numbered: list[str] = []
    if answer.key_facts:
        lines += ["## Key facts", ""]
        for fact in answer.key_facts:
            refs = []
            for citation in fact.citations:
                numbered.append(
                    f"{len(numbered) + 1}. {citation.source} "
                    f"(`{citation.chunk_id}`"
                    + (f", score {citation.score:.3f}" if citation.score is not None else "")
                    + f'): "{" ".join(citation.span.split())}"'
                )
                refs.append(f"[{len(numbered)}]")
            lines.append(f"- {fact.fact} {' '.join(refs)}".rstrip())
        lines.append("")
    if numbered:
        lines += ["## Citations", "", *numbered, ""]
    if answer.residual_uncertainty:
        lines += ["## Residual uncertainty", "", answer.residual_uncertainty, ""]
    usage = answer.usage
    lines.append(
        f"*{usage.llm_calls} LLM calls · {usage.prompt_tokens + usage.completion_tokens} tokens · "
        f"${usage.cost_usd:.4f} · {usage.wall_ms:.0f} ms*"
    )
    return "\n".join(lines) + "\n"


def to_json(answer: Answer) -> str:
    return answer.model_dump_json(indent=2)
