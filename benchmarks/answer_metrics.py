"""What the answer benchmarks count, written down once: gold matching, the benchmark's own filler rule, and the
confidence figures (AUROC, flagged shares, reliability table).

Why the benchmark has its own filler rule: a product that defines filler and is then scored by the same
definition can only pass. This rule is simple and fixed; the product's may be stricter or looser.

Definitions (docs/benchmarks.md quotes them):
- **match**: a key fact matches a gold evidence sentence when their word sets (SQuAD-normalised, speaker label
  removed) overlap by at least MATCH_OVERLAP of the smaller set, and the smaller set has at least MIN_MATCH_WORDS
  words (so "Thank you." matches nothing). A key fact that is a clipped part of a gold sentence matches it.
- **hit@5**: one of the first five key facts matches one of the question's gold sentences.
- **episode recall** (cross-episode questions): share of the question's gold episodes that one of the first five
  key facts comes from. A fact comes from the episode holding the transcript sentence it matches best (most shared
  words over the smaller set; a tie between episodes credits none), read from the transcripts, not from the
  product's citations (global mode cites communities, not episodes).
- **filler** (a key fact is filler when any holds, after its speaker label is removed):
  1. a heading or title: it names the podcast ("Behind the Tech"), starts with "Episode N"/"Ep N", or has no
     sentence-ending punctuation and at most 12 words, most of them capitalised;
  2. greeting, thanks, backchannel or sign-off: it contains one of SOCIAL_PHRASES or BACKCHANNELS and has fewer than
     FILLER_MAX_OTHER distinct content words besides the words of the phrases it contains (fewer than
     FILLER_MAX_OTHER_OPENING when its first content word opens a social phrase, as in "Thank you so much for
     taking time out of your busy schedule.");
  3. fewer than MIN_CONTENT_WORDS content words (words of two or more letters not in STOPWORDS, a short list of
     function words and discourse markers): "It's never too late." Three content words can state a fact ("I
     studied mechanical engineering."), which is why the bar is not higher.
- **outcome**: "not in these documents" when `answer.outcome == "not_in_documents"` or `answer.no_data_found`;
  otherwise "answered" (`getattr(answer, "outcome", "answered")`, so the figures are the same before the product
  has the field).
- **correct**: an answerable question whose key facts hit a gold sentence (demo set) or contain the gold answer
  (HotpotQA; for a yes/no gold answer, hold every supporting sentence, each matched by `matches`:
  benchmarks/unanswerable.py, `is_correct`). Missed and unanswerable questions are the negatives.
- **ranking score** for AUROC: the confidence of an answered outcome; a "not in these documents" outcome ranks
  below every answered one (its confidence minus 1).
"""

from __future__ import annotations

import itertools
import re
import string
from collections.abc import Sequence
from dataclasses import dataclass

from retrieval.models import Answer

MATCH_OVERLAP = 0.6
MIN_MATCH_WORDS = 3
MIN_CONTENT_WORDS = 3
FILLER_MAX_OTHER = 4
FILLER_MAX_OTHER_OPENING = 10
#: Confidence bins of the reliability table (upper bound of the last is inclusive).
BINS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
NOT_IN_DOCUMENTS = "not_in_documents"

_ARTICLES = re.compile(r"\b(a|an|the)\b")
#: A speaker label as transcripts write it ("LISA SU: ") or as key facts show it ("Lisa Su: ", "Dr. Lisa Su: ").
_LABEL = re.compile(r"^\s*(?:[A-Z][\w.'’\-]*\s){0,3}[A-Z][\w.'’\-]*:\s+")
_PUNCT = set(string.punctuation) | set("‘’“”–—…")
#: Function words and discourse markers: they carry nothing on their own. Prepositions and names stay content.
_STOPWORDS = """a an the and or but so if as to of i me my mine you your yours he him his she her hers it its we us our
they them their this that these those there here is am are was were be been being do does did have has had will
would can could should shall may might must yeah yes oh um uh ah hmm like just really know mean okay ok well right
sort kind thing things too very gonna"""
STOPWORDS = frozenset(_STOPWORDS.split())
#: Greetings, thanks and sign-offs.
SOCIAL_PHRASES = (
    "thank you",
    "thanks",
    "welcome to",
    "welcome back",
    "hi everyone",
    "hello",
    "good luck",
    "see you",
    "goodbye",
    "bye",
    "that does it for",
    "great to be here",
    "pleasure to be here",
    "for joining",
    "for having me",
    "appreciate it",
)
#: Backchannels: filler when little else is said, but a real sentence may open with one.
BACKCHANNELS = (
    "great question",
    "good question",
    "exactly",
    "absolutely",
    "of course",
    "i agree",
    "completely agree",
    "that's right",
)
_TITLE_HINT = re.compile(r"behind the tech|^\s*(episode|ep)\.?\s*\d+", re.IGNORECASE)


def normalise(text: str) -> str:
    """SQuAD answer normalisation: lower case, punctuation and articles removed, whitespace collapsed."""
    text = "".join(c for c in text.lower() if c not in _PUNCT)
    return " ".join(_ARTICLES.sub(" ", text).split())


def strip_label(text: str) -> str:
    """A transcript line's speaker label ("LISA SU: ") is not part of what was said."""
    return _LABEL.sub("", text, count=1)


def words(text: str) -> set[str]:
    return set(normalise(strip_label(text)).split())


def matches(fact: str, gold: str) -> bool:
    a, b = words(fact), words(gold)
    small = min(len(a), len(b))
    return small >= MIN_MATCH_WORDS and len(a & b) >= MATCH_OVERLAP * small


def hit(facts: Sequence[str], golds: Sequence[str], k: int = 5) -> bool:
    return any(matches(f, g) for f in facts[:k] for g in golds)


def source(fact: str, passages: dict[str, list[set[str]]]) -> str | None:
    """The episode whose sentence (as a word set) the fact matches best, by the `matches` rule; None when none
    matches or two episodes tie (a fact said alike in two episodes says nothing of which one was searched)."""
    a = words(fact)
    best: tuple[float, int] = (0.0, 0)
    found: set[str] = set()
    for episode, sentence_words in passages.items():
        for b in sentence_words:
            small = min(len(a), len(b))
            shared = len(a & b)
            if small < MIN_MATCH_WORDS or shared < MATCH_OVERLAP * small:
                continue
            key = (shared / small, shared)
            if key > best:
                best, found = key, {episode}
            elif key == best:
                found.add(episode)
    return next(iter(found)) if len(found) == 1 else None


def episode_recall(
    facts: Sequence[str], gold_episodes: Sequence[str], passages: dict[str, list[set[str]]], k: int = 5
) -> float:
    """Share of the gold episodes that one of the first `k` facts comes from (`source`)."""
    came_from = {source(f, passages) for f in facts[:k]}
    return sum(e in came_from for e in set(gold_episodes)) / len(set(gold_episodes))


def answer_scores(text: str, golds: Sequence[str]) -> tuple[float, float]:
    """(contains, word recall) of an answer text against its gold answers (best alias)."""
    norm = normalise(text)
    have = set(norm.split())
    contains = recall = 0.0
    for gold in golds:
        g = normalise(gold)
        if not g:
            continue
        contains = max(contains, float(f" {g} " in f" {norm} "))
        tokens = g.split()
        recall = max(recall, sum(t in have for t in tokens) / len(tokens))
    return contains, recall


def content_words(text: str) -> list[str]:
    return [w for w in normalise(text).split() if len(w) >= 2 and w.isalpha() and w not in STOPWORDS]


def is_heading(text: str) -> bool:
    if _TITLE_HINT.search(text):
        return True
    tokens = text.split()
    if text.rstrip()[-1:] in '.?!"”’' or not tokens or len(tokens) > 12:
        return False
    capitalised = sum(t[:1].isupper() or t[:1].isdigit() for t in tokens)
    return capitalised * 2 >= len(tokens)


def is_filler(fact: str) -> bool:
    """The benchmark's filler rule (module docstring): heading/title, greeting-type line, or too few content words."""
    said = strip_label(fact).strip()
    if not said or is_heading(said):
        return True
    content = content_words(said)
    if len(content) < MIN_CONTENT_WORDS:
        return True
    low = f" {normalise(said)} "
    said_phrases = [normalise(p) for p in (*SOCIAL_PHRASES, *BACKCHANNELS) if f" {normalise(p)} " in low]
    if said_phrases:
        phrase_words = {w for p in said_phrases for w in p.split()}
        others = len(set(content) - phrase_words)
        social = [normalise(p) for p in SOCIAL_PHRASES if normalise(p) in said_phrases]
        opens = bool(content) and any(p.split()[0] == content[0] for p in social)
        if others < FILLER_MAX_OTHER or (opens and others < FILLER_MAX_OTHER_OPENING):
            return True
    return False


def outcome(answer: Answer) -> str:
    """The product's outcome, read so that it works before and after the product has the field."""
    if answer.no_data_found:
        return NOT_IN_DOCUMENTS
    return str(getattr(answer, "outcome", "answered") or "answered")


def confidence(answer: Answer) -> float | None:
    return None if answer.confidence is None else float(answer.confidence.score)


@dataclass(frozen=True)
class Judged:
    """One question's answer as the confidence figures see it."""

    answerable: bool
    correct: bool
    flagged: bool  # answered "not in these documents"
    score: float | None  # the answer's confidence

    @property
    def rank(self) -> float:
        """The AUROC ranking score: a flagged answer ranks below every answered one."""
        s = self.score or 0.0
        return s - 1.0 if self.flagged else s


def auroc(positives: Sequence[float], negatives: Sequence[float]) -> float | None:
    """Probability that a random positive outranks a random negative (ties count half); None without both."""
    if not positives or not negatives:
        return None
    wins = sum((p > n) + 0.5 * (p == n) for p in positives for n in negatives)
    return wins / (len(positives) * len(negatives))


@dataclass(frozen=True)
class ConfidenceFigures:
    auroc: float | None
    unanswerable_flagged: float | None  # share of unanswerable questions answered "not in these documents"
    correct_flagged: float | None  # share of correctly answered questions wrongly flagged
    mean_correct: float | None
    mean_wrong: float | None
    mean_unanswerable: float | None
    reliability: list[tuple[str, int, float, float]]  # bin, n, mean confidence, observed accuracy


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _share(flags: Sequence[bool]) -> float | None:
    return sum(flags) / len(flags) if flags else None


def reliability(judged: Sequence[Judged]) -> list[tuple[str, int, float, float]]:
    """Confidence bins of the answered outcomes vs the share of them that were correct."""
    rows = []
    answered = [j for j in judged if not j.flagged and j.score is not None]
    for low, high in itertools.pairwise(BINS):
        inside = [j for j in answered if low <= (j.score or 0.0) < high or (high == BINS[-1] and j.score == high)]
        if inside:
            mean = _mean([j.score or 0.0 for j in inside]) or 0.0
            rows.append((f"{low:.1f}-{high:.1f}", len(inside), mean, _share([j.correct for j in inside]) or 0.0))
    return rows


def confidence_figures(judged: Sequence[Judged]) -> ConfidenceFigures:
    scored = [j for j in judged if j.score is not None]
    correct = [j for j in scored if j.correct]
    wrong = [j for j in scored if j.answerable and not j.correct]
    unanswerable = [j for j in scored if not j.answerable]
    return ConfidenceFigures(
        auroc=auroc([j.rank for j in correct], [j.rank for j in wrong + unanswerable]),
        unanswerable_flagged=_share([j.flagged for j in judged if not j.answerable]),
        correct_flagged=_share([j.flagged for j in judged if j.correct]),
        mean_correct=_mean([j.score or 0.0 for j in correct]),
        mean_wrong=_mean([j.score or 0.0 for j in wrong]),
        mean_unanswerable=_mean([j.score or 0.0 for j in unanswerable]),
        reliability=reliability(judged),
    )


def fmt_num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def fmt_pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0%}"


#: Column headers of `confidence_cells`.
CONFIDENCE_HEADERS = ["AUROC", "unans flagged", "correct flagged", "mean conf hit/miss/unans"]
RELIABILITY_HEADERS = ["confidence", "n", "mean conf", "accuracy"]


def confidence_cells(fig: ConfidenceFigures | None) -> list[str]:
    if fig is None:
        return ["n/a"] * len(CONFIDENCE_HEADERS)
    means = (fig.mean_correct, fig.mean_wrong, fig.mean_unanswerable)
    return [
        fmt_num(fig.auroc),
        fmt_pct(fig.unanswerable_flagged),
        fmt_pct(fig.correct_flagged),
        "/".join(fmt_num(v) for v in means),
    ]


def reliability_rows(fig: ConfidenceFigures) -> list[list[str | int]]:
    return [[label, n, f"{mean:.2f}", f"{acc:.2f}"] for label, n, mean, acc in fig.reliability]
