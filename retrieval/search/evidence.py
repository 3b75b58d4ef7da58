"""Evidence sentences, shared by every mode: the few sentences of the retrieved text that best answer a question.

Why extractive facts: with no language model configured an answer is still useful if it is the
few sentences of the retrieved text that best answer the question, each traceable to its chunk. Whether a
model's citations hold is `citations.py`.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np

from retrieval.embed import Embedder
from retrieval.models import Citation, Hit, KeyFact
from retrieval.search import answer_type
from retrieval.search.citations import citation_kind
from retrieval.search.fact_selection import choose, hop_names, leads_to
from retrieval.search.filler import content_words, never_a_fact
from retrieval.search.keywords import STOPWORDS, content_terms
from retrieval.search.turns import addresses, prompt, speaker_of
from retrieval.store import bm25
from retrieval.text.readable import clean_spoken, sentence_key
from retrieval.text.speakers import LABEL, strip_label

#: Sentence ends (., !, ?, optionally closing quotes/brackets) followed by space, or line breaks.
#: A sentence runs to . ! ? (with closing quotes) or to a blank line; single newlines are hard wraps inside one.
#: A period inside a word ("$3.5 million", "U.S.", "2.0") is part of the sentence: read as an end, the words
#: before it were lost ("The U.S. Army paid $3.5 million." became "5 million.").
_SENTENCE = re.compile(
    r"(?:[^.!?\n]|[.!?](?![.!?\"'’”)\]]*(?:\s|$))|\n(?!\s*\n))+(?:[.!?]+[\"'’”)\]]*(?=\s|$)|(?=\n\s*\n)|$)"
)
MIN_WORDS = 4
MAX_SPAN_CHARS = 400
#: Sentences read per question (cheap: they are ranked by words first).
MAX_CANDIDATES = 300
#: Sentences embedded per question after the lexical shortlist: embedding dominates an extractive answer's cost.
#: 24, not 16: on the demo questions' dev split 5 of the 9 misses had the gold sentence in the pool but past the
#: 16th of the shortlist (hit@5 by the evidence step alone: 16 -> 27/36, 20 -> 28, 24 -> 29 with `TYPE_WEIGHT`, 28
#: and 32 -> 28, 48 -> 27: more sentences embedded lets more near misses outscore the answer).
MAX_EMBEDDED = 24
#: Sentences of each document a shortlisted sentence names (the page a first hop leads to) shortlisted besides the
#: `limit` best by words, and at most this many such sentences in all (each is embedded: the answer's main cost).
HOP_SENTENCES = 2
HOP_EXTRA = 6
#: Share of a sentence's score that comes from its chunk's retrieval score (the rest is its own similarity).
HIT_WEIGHT = 0.3
#: A small bonus for sharing the question's words (ties between equally similar sentences).
LEXICAL_WEIGHT = 0.05
#: Bonus for a sentence said by the person the question names ("Who is Mira Murati?" prefers her words).
SPEAKER_WEIGHT = 0.2
#: ...when on topic (this share of the best similarity): "You make a good point" is theirs, not an answer.
SPEAKER_MIN_SHARE = 0.7
#: ...and when it says something: at least this many content words (`filler.content_words`). Why: the sentence is
#: embedded with its speaker's name in front (`Candidate.said`), so a short one is close to a question naming them
#: by the name alone ("Mira Murati: We're working on something that will change everything." 0.42, her sentence on
#: how AI changes learning 0.47), and the bonus then counted the name twice. One more than filler's minimum (2):
#: on the demo questions' dev split, dev hit@5 29 -> 30 of 36 (local), filler 1% -> 0%.
SPEAKER_MIN_CONTENT_WORDS = 3
#: Bonus (times the share of the question's asked-about words it states) for the sentence that names what is
#: asked: "What did Lisa Su say about chiplets?" prefers her sentence about chiplets over her other ones. When the
#: question names a speaker, only that speaker's sentences get it (her words first, then the one on the topic).
ASKED_WEIGHT = 0.15
#: Bonus (times `Candidate.prompt`) for a sentence answering a turn that asked what the question asks.
PROMPT_WEIGHT = 0.15
#: Bonus for a sentence naming a thing of the kind the question asks for ("Where ...?" a place: `answer_type`).
#: On dev with 24 embedded: 28/36 without, 29/36 with it.
TYPE_WEIGHT = 0.1
#: A question asks rather than states: "And what did Loopt do?" is the prompt, the next turn the answer.
QUESTION_PENALTY = 0.1
#: Question words that ask how, not what: they name no asked-about thing.
_ASKING_TEXT = "say said says think thinks thought talk talked talks mention mentioned describe described explain"
_ASKING = frozenset(f"{_ASKING_TEXT} explained know known see sees view views feel feels".split())
#: Two sentences sharing this share of the shorter one's distinct words are variants of one sentence...
NEAR_DUPLICATE_OVERLAP = 0.85
#: ...when the shorter one has at least this many distinct words (short sentences differ by one word).
NEAR_DUPLICATE_MIN_WORDS = 8
BM25_K1, BM25_B = 1.2, 0.75
_WORD = re.compile(r"\w+")
_WHO_IS = re.compile(r"\s*who(?:\s+is|\s+was|'s|’s)\b", re.IGNORECASE)
#: How `spoken_display` starts a transcript fact: "Mira Murati: ...".
_SPEAKER = re.compile(r"^[A-Z][\w'’.\-]*(?: [A-Z][\w'’.\-]*){1,3}(?: / [A-Z][\w'’.\-]*(?: [A-Z][\w'’.\-]*){1,3})*: ")
#: Titles whose period does not end a sentence, and "v." / "vs." between two parties ("Craig v. Boren": cut
#: there, the case's name was split across two facts).
_ABBREVIATION = re.compile(r"(?:^|\W)(?:Mr|Mrs|Ms|Dr|St|Jr|Sr|Prof|vs|v)\.$")
#: Nor does an initial: a capital letter's period after a capitalised word or another initial ("Charles J.
#: Guiteau", "George R. R. Martin", "U.S."). Why: cut there, "He was shot by Charles J." was a key fact and the
#: surname, often the answer, went to a fragment; 20 of 667 key facts on HotpotQA's tune half ended so. A letter
#: after a lower-case word ("Pascal and then C.") still ends one, and so does one before a function word ("the
#: Tesla Model X. She joined ..."): a surname is no "She", "The" or "In".
_INITIAL = re.compile(r"(?:\b[A-Z][\w'’\-]*\s+|\b[A-Z]\.\s?)[A-Z]\.$")
_FIRST_WORD = re.compile(r"\s*([\w'’]+)")


def sentences(text: str) -> list[str]:
    """Verbatim sentence spans of `text` (stripped, at least MIN_WORDS words, at most MAX_SPAN_CHARS).

    A period after a title ("Mr.", "Dr.") or an initial ("Charles J.") does not end a sentence: "like Mr." alone
    is a fragment.
    A speaker label does not count as words: "MIRA MURATI: It is." is a fragment too.
    """
    out = []
    start: int | None = None
    matches = list(_SENTENCE.finditer(text))
    for n, match in enumerate(matches):
        start = match.start() if start is None else start
        if n + 1 < len(matches) and (
            _ABBREVIATION.search(match.group(0)) or _initial_in_a_name(match.group(0), matches[n + 1].group(0))
        ):
            continue
        span = text[start : match.end()].strip()
        start = None
        if len(strip_label(span).split()) >= MIN_WORDS:
            out.append(span if len(span) <= MAX_SPAN_CHARS else _clip(span))
    return out


def _initial_in_a_name(piece: str, following: str) -> bool:
    """Whether `piece` ends with an initial that the next piece's first word continues ("Charles J." "Guiteau ...")."""
    if not _INITIAL.search(piece):
        return False
    first = _FIRST_WORD.match(following)
    return first is None or first.group(1).lower() not in STOPWORDS


def _clip(span: str) -> str:
    """A long run-on sentence is cut at a word boundary; the prefix is still verbatim."""
    cut = span[:MAX_SPAN_CHARS]
    return cut[: cut.rfind(" ")] if " " in cut else cut


def display(text: str) -> str:
    """Text as an answer shows it: hard wraps and runs of spaces collapsed (citation spans stay verbatim)."""
    return " ".join(text.split())


def distinct(spans: Sequence[str]) -> list[int]:
    """Indices of `spans` without near-duplicates, in order; of two variants the complete sentence wins.

    Why: overlapping chunks (and summaries built from them) hold the same sentence twice, once whole
    and once cut at a chunk edge or glued to a neighbour; an answer must say it once.
    """
    shapes = [_Shape.of(s) for s in spans]
    kept: list[int] = []
    for i in range(len(spans)):
        twin = next((k for k, j in enumerate(kept) if _near_duplicate(shapes[i], shapes[j])), None)
        if twin is None:
            kept.append(i)
        elif _complete(spans[i]) and not _complete(spans[kept[twin]]):
            kept[twin] = i
    return sorted(kept)


def near_duplicate(a: str, b: str) -> bool:
    """Whether two spans are variants of one sentence (see `distinct`)."""
    return _near_duplicate(_Shape.of(a), _Shape.of(b))


@dataclass(frozen=True)
class _Shape:
    """A span's words as `_near_duplicate` compares them, computed once per span: `distinct` compares each of
    up to MAX_CANDIDATES sentences with every one kept before it, and re-joining the words for each pair was
    a tenth of a local answer's time."""

    run: str  # the words, lower case, joined and padded with spaces: a run of words is a substring
    words: frozenset[str]
    count: int
    numbers: frozenset[str]  # the words with a digit ("2010", "12th", "133d")

    @classmethod
    def of(cls, span: str) -> _Shape:
        words = _WORD.findall(span.lower())
        distinct_words = frozenset(words)
        numbers = frozenset(w for w in distinct_words if any(c.isdigit() for c in w))
        return cls(f" {' '.join(words)} ", distinct_words, len(words), numbers)


def _near_duplicate(a: _Shape, b: _Shape) -> bool:
    """One is a run of the other's words, or they share NEAR_DUPLICATE_OVERLAP of the shorter one's words and the
    shorter one states no number the longer one lacks.

    Why the numbers: "The 2010 UCF Knights football team represented ... the 2010 NCAA Division I FBS football
    season." and the same sentence of 2015 share all words but the years, and are two facts (one of them the
    answer); "inducted into the Hall of Fame in 1982" is not "in 1993". A variant cut at a chunk edge keeps a
    number's first digits ("the 20"), which is no other number.
    """
    short, long = (a, b) if a.count <= b.count else (b, a)
    if short.run in long.run:
        return True
    if any(not any(w.startswith(n) for w in long.numbers) for n in short.numbers - long.words):
        return False
    shared = len(short.words & long.words) / max(len(short.words), 1)
    return len(short.words) >= NEAR_DUPLICATE_MIN_WORDS and shared >= NEAR_DUPLICATE_OVERLAP


def _complete(span: str) -> bool:
    """Starts like a sentence (capital, digit or quote) and ends with its punctuation."""
    return bool(span) and not span[0].islower() and span.rstrip("\"')]").endswith((".", "!", "?"))


@dataclass(frozen=True)
class Candidate:
    """An evidence sentence before embedding: `rank` is its chunk's score relative to the best, `lexical` 0-1,
    `prompt` 0-1 how well the turn it answers matches the question (`turns.prompt`)."""

    hit: Hit
    span: str
    rank: float
    lexical: float
    speaker: str | None = None
    prompt: float = 0.0

    @property
    def said(self) -> str:
        """The text embedded for it: who says it, then what is said ("Daphne Koller: And the reason I got into
        biology ..."). Why: a question naming a person is close to every sentence naming them (the host's
        "Our guest today is Daphne Koller."), and her own sentences never say her name; with the speaker's name
        in front, her words compete with the host's on what they say."""
        return f"{self.speaker}: {strip_label(self.span)}" if self.speaker else self.span


def shortlist(
    question: str, hits: Sequence[Hit], limit: int = MAX_EMBEDDED, skip: Collection[str] = frozenset()
) -> list[Candidate]:
    """The `limit` distinct sentences of `hits` most likely to answer `question`, judged without a model.

    Why: embedding a sentence costs ~10-30 ms on a CPU and an answer reads up to MAX_CANDIDATES of
    them; BM25 word overlap with the question (document frequencies from these sentences) plus the
    chunk's retrieval score picks the few worth embedding. Deterministic, so a caller can embed the
    same shortlist ahead of time (DRIFT batches a whole round into one call). Sentences whose
    `sentence_key` is in `skip` (the project's boilerplate), that several retrieved documents share, or that
    are filler or headings (`filler.never_a_fact`) are never evidence.
    """
    top = max((h.score for h in hits), default=0.0) or 1.0
    pool = [(hit, span, hit.score / top) for hit in hits for span in sentences(hit.text)][:MAX_CANDIDATES]
    repeated = _shared_across_documents(pool)
    pool = [
        p
        for p in pool
        if sentence_key(strip_label(p[1])) not in skip and sentence_key(p[1]) not in repeated and not never_a_fact(p[1])
    ]
    pool = [pool[i] for i in distinct([span for _h, span, _r in pool])]
    asked = [prompt(h.text, _offset(h, span)) for h, span, _r in pool]
    said = [strip_label(span) for _h, span, _r in pool]  # what is said, not who says it
    extra = list(dict.fromkeys(s for sentences_, _w in asked for s in sentences_))
    scored = _bm25(question, [*said, *extra])
    lexical, by_sentence = scored[: len(said)], dict(zip(extra, scored[len(said) :], strict=True))
    best = max(lexical, default=0.0) or 1.0
    candidates = [
        Candidate(h, span, rank, lex / best, speaker_of(h, _offset(h, span)), _prompt_score(ask, by_sentence, best))
        for (h, span, rank), lex, ask in zip(pool, lexical, asked, strict=True)
    ]
    order = sorted(
        range(len(candidates)),
        key=lambda i: (
            -((1 - HIT_WEIGHT) * max(candidates[i].lexical, candidates[i].prompt) + HIT_WEIGHT * candidates[i].rank)
        ),
    )
    return [candidates[i] for i in sorted([*order[:limit], *_hop_sentences(question, candidates, order, limit)])]


def _hop_sentences(question: str, candidates: Sequence[Candidate], order: Sequence[int], limit: int) -> list[int]:
    """Indices of the HOP_SENTENCES best candidates of each document that a shortlisted sentence of another
    document, or any sentence of a document the question names, names (`fact_selection.leads_to`), past the first
    `limit` of `order`, HOP_EXTRA at most.

    Why: the page a multi-hop question's first hop leads to shares few words with the question ("Since 2001,
    Haroche is a Professor at the Collège de France." for "At what school is the 2012 Nobel laureate jointly with
    David Wineland?"), so the word ranking leaves it out of the shortlist and `choose` never sees it.
    """
    documents, titles = _documents(candidates)
    asked, targets = hop_names(question, titles)
    led: list[str] = []
    for i in [*order[:limit], *(i for i in order[limit:] if documents[i] in asked)]:
        led += sorted(leads_to(candidates[i].span, documents[i], targets) - set(led))
    extra: list[int] = []
    for document in led:
        extra += [i for i in order[limit:] if documents[i] == document][:HOP_SENTENCES]
    return extra[:HOP_EXTRA]


def _documents(candidates: Sequence[Candidate]) -> tuple[list[str], dict[str, str]]:
    """Each candidate's document (its id, or the chunk's when it has none) and those documents' names."""
    documents = [c.hit.document_id or c.hit.id for c in candidates]
    titles = {d: c.hit.document_name for d, c in zip(documents, candidates, strict=True) if c.hit.document_name}
    return documents, titles


def _shared_across_documents(pool: Sequence[tuple[Hit, str, float]]) -> set[str]:
    """Sentence keys that retrieved chunks of two or more documents both contain: shared boilerplate."""
    documents: dict[str, set[str]] = {}
    for hit, span, _rank in pool:
        if hit.document_id:  # overlapping chunks of one document share sentences; that is not boilerplate
            documents.setdefault(sentence_key(span), set()).add(hit.document_id)
    return {key for key, found in documents.items() if len(found) > 1}


def _offset(hit: Hit, span: str) -> int:
    """Where the words of `span` start in its chunk (after the speaker label it may start with)."""
    label = LABEL.match(span)
    return max(hit.text.find(span), 0) + (label.end() if label else 0)


def _prompt_score(asked: tuple[list[str], float], scores: dict[str, float], best: float) -> float:
    """How well the turn a sentence answers matches the question (its best sentence, relative, decayed)."""
    sentences_, weight = asked
    return weight * min(max((scores.get(s, 0.0) for s in sentences_), default=0.0) / best, 1.0)


def _named_speakers(question: str, candidates: Sequence[Candidate]) -> set[str]:
    """Speakers of the candidates whose name (or one of its words of 3+ letters) the question contains.

    None for "Who is X?": that asks what X is, which others' introductions say, not X's own words.
    """
    if _WHO_IS.match(question):
        return set()
    words = set(_WORD.findall(question.lower()))
    return {
        c.speaker
        for c in candidates
        if c.speaker and any(len(w) > 2 and w in words for w in _WORD.findall(c.speaker.lower()))
    }


def _says_enough(span: str) -> bool:
    """Whether a sentence has SPEAKER_MIN_CONTENT_WORDS content words (speaker label and spoken fillers aside)."""
    return len(content_words(clean_spoken(strip_label(span)))) >= SPEAKER_MIN_CONTENT_WORDS


def _asks(span: str) -> bool:
    return strip_label(span).rstrip("\"')]’” ").endswith("?")


def asked_terms(question: str) -> list[str]:
    """The question's words naming what it asks about: its content words but the verbs of asking ("say")."""
    return [t for t in content_terms(question) if t not in _ASKING]


def states(candidate: Candidate, asked: Sequence[str], subjects: Collection[str] = ()) -> float:
    """Share of the asked-about words a sentence states, its speaker's name (and `subjects`, the people it is
    about: `addresses`) counting as said."""
    if not asked:
        return 0.0
    said = f"{candidate.span} {candidate.speaker or ''} {' '.join(subjects)}"
    return sum(1 for t in asked if bm25.contains(said, t)) / len(asked)


def _bm25(query: str, spans: Sequence[str]) -> list[float]:
    """Okapi BM25 of each span for the query's words, with document frequencies over `spans` themselves."""
    docs = [_WORD.findall(span.lower()) for span in spans]
    if not docs:
        return []
    mean = sum(len(d) for d in docs) / len(docs)
    counts = [Counter(d) for d in docs]
    query_words = set(_WORD.findall(query.lower()))
    freq = {w: sum(1 for c in counts if w in c) for w in query_words}
    idf = {w: math.log(1.0 + (len(docs) - n + 0.5) / (n + 0.5)) for w, n in freq.items() if n}
    return [
        sum(
            idf[w] * c[w] * (BM25_K1 + 1) / (c[w] + BM25_K1 * (1 - BM25_B + BM25_B * len(d) / max(mean, 1.0)))
            for w in idf
            if w in c
        )
        for d, c in zip(docs, counts, strict=True)
    ]


def extractive_facts(
    question: str,
    question_vector: Sequence[float] | None,
    hits: list[Hit],
    embedder: Embedder,
    max_facts: int = 5,
    *,
    embedded: int = MAX_EMBEDDED,
    skip: Collection[str] = frozenset(),
) -> list[KeyFact]:
    """The `max_facts` best evidence sentences of `hits`, de-duplicated, each citing its chunk with a verbatim span.

    Only the `embedded` best of a lexical shortlist are embedded and scored by similarity; a sentence
    said by a person the question names gets a bonus, one another speaker says about that person (`addresses`) is
    credited with naming them, and one naming a thing of the kind asked for ("Where ...?" a place: `answer_type`)
    gets a bonus too. The facts are then chosen one by one for what
    each adds to the others (`fact_selection.choose`: question words not yet covered, the second hop
    of a multi-hop question). A fact shows who said it and reads without fillers; its citation keeps
    the verbatim span.
    """
    candidates = shortlist(question, hits, embedded, skip)
    if not candidates or max_facts < 1:
        return []
    qvec = np.asarray(question_vector if question_vector is not None else embedder.embed_query(question))
    vectors = embedder.embed([c.said for c in candidates])
    similarity = vectors @ qvec
    named = _named_speakers(question, candidates)
    base = [
        (1 - HIT_WEIGHT) * float(similarity[i]) + HIT_WEIGHT * c.rank + LEXICAL_WEIGHT * c.lexical
        for i, c in enumerate(candidates)
    ]
    on_topic = SPEAKER_MIN_SHARE * float(similarity.max())
    asked = asked_terms(question)
    typed = answer_type.naming_expected([strip_label(c.span) for c in candidates], question)
    about = [c.speaker not in named and addresses(c.span, c.hit.text, named) for c in candidates]
    scores = [
        score
        + (SPEAKER_WEIGHT if c.speaker in named and float(similarity[i]) >= on_topic and _says_enough(c.span) else 0.0)
        + (
            ASKED_WEIGHT * states(c, asked, named if about[i] else ())
            if not named or c.speaker in named or about[i]
            else 0.0
        )
        + PROMPT_WEIGHT * c.prompt
        + (TYPE_WEIGHT if typed[i] else 0.0)
        - (QUESTION_PENALTY if _asks(c.span) else 0.0)
        for i, (score, c) in enumerate(zip(base, candidates, strict=True))
    ]
    documents, titles = _documents(candidates)
    chosen = choose(
        question, [c.span for c in candidates], scores, vectors, documents=documents, limit=max_facts, titles=titles
    )
    return [_fact(candidates[i], scores[i]) for i in chosen]


def _fact(candidate: Candidate, score: float) -> KeyFact:
    hit, span = candidate.hit, candidate.span
    citation = Citation(
        chunk_id=hit.id,
        span=span,
        document_name=hit.document_name or "",
        score=round(score, 4),
        kind=citation_kind(hit),
        lines=hit.lines,
    )
    return KeyFact(fact=spoken_display(span, candidate.speaker), citations=[citation])


def spoken_display(span: str, speaker: str | None) -> str:
    """A transcript sentence as an answer shows it, "Speaker: words" without fillers; other text as `display`."""
    if speaker is None:
        return display(span)
    return f"{speaker}: {clean_spoken(strip_label(span))}"


def shown_quote(fact: str) -> str:
    """The quoted words of an extractive fact as shown: without the "Speaker: " that `spoken_display` puts first."""
    match = _SPEAKER.match(fact)
    return fact[match.end() :] if match else fact


def answer_lead(facts: list[KeyFact]) -> str:
    """The answer paragraph of an extractive answer: who (or which document) the key facts come from.

    It points at the facts by number instead of repeating them: the facts are the answer, quoted,
    and saying each sentence twice (once here, once as a fact) made answers read like an echo.
    """
    if not facts:
        return ""
    sources: dict[str, list[int]] = {}
    for n, fact in enumerate(facts, start=1):
        speaker, _sep, _rest = fact.fact.partition(": ") if _SPEAKER.match(fact.fact) else ("", "", "")
        document = fact.citations[0].document_name if fact.citations else ""
        sources.setdefault(speaker or document or "the retrieved text", []).append(n)
    parts = [f"{who} [{', '.join(map(str, numbers))}]" for who, numbers in sources.items()]
    listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + f" and {parts[-1]}"
    return f"The passages that best answer this come from {listed}: the key facts below quote them."
