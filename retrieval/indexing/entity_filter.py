"""Which offline candidates are entities, and which short names are aliases of a longer one.

Why rules and not a bigger model: the small spaCy model tags conversational words as names
("Likewise" PERSON, "Correct" ORG, "Episode 52" LAW) and lower-case nouns as organisations
("software"). Each rule below removes one kind of noise seen on real transcripts and keeps what a
reader would call a name. The case rules are per document, so an encyclopaedia passage where "Rush"
is only ever sentence-initial keeps it (the word never appears in lower case there); how common a
word is in English comes from wordfreq's word lists.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from spacy.lang.en.stop_words import STOP_WORDS
from wordfreq import zipf_frequency

from retrieval.indexing.entity_kinds import BODY_WORDS, INSTITUTION_ENDINGS, THING_ENDINGS, counted_noun
from retrieval.indexing.model import CONCEPT, slug
from retrieval.indexing.name_edges import regnal_one
from retrieval.indexing.quoted_titles import inside_a_title, titles_in
from retrieval.text import whole_words

#: Nouns too general to be a topic, whatever the keyphrase ranker thought.
GENERIC_NOUNS = frozenset(
    {
        "people", "person", "thing", "things", "way", "ways", "lot", "lots", "stuff", "time", "times", "kind",
        "sort", "point", "points", "year", "years", "day", "days", "bit", "part", "number", "question", "questions",
        "idea", "ideas", "guy", "guys", "folks", "everybody", "everyone", "something", "anything", "world", "work",
        "today", "moment", "problem", "problems", "place", "case", "fact", "end", "bin", "landing", "episode",
        "show", "podcast",
    }
)  # fmt: skip
#: Last words of a show's or episode's heading ("Behind the Tech with Kevin Scott Podcast").
_SHOW_WORDS = frozenset({"podcast", "episode", "ep"})
#: Nouns of a kind of work, firm or body: alone, one of them is no name ("the Institute", "the Committee").
KIND_WORDS = THING_ENDINGS | INSTITUTION_ENDINGS | BODY_WORDS
#: Marks that join a name to the word beside it ("Kai-Fu", "Gates's"): an occurrence beside one is in a longer word.
_NAME_JOINS = "'’-"
#: Words people open a reply with; capitalised only because they start a sentence.
DISCOURSE_WORDS = frozenset(
    {
        "likewise", "correct", "right", "exactly", "absolutely", "yes", "yep", "yeah", "no", "nope", "sure",
        "well", "thanks", "thank", "cool", "great", "awesome", "totally", "definitely", "indeed", "wow", "oh",
        "hey", "hi", "hello", "okay", "ok", "so", "and", "but", "anyway", "interesting", "true", "amazing",
    }
)  # fmt: skip
#: Name particles written in lower case inside a person's name.
_PARTICLES = frozenset({"de", "da", "di", "del", "der", "van", "von", "la", "le", "bin", "al", "du", "dos"})
#: Entity types the small model over-uses in conversation: one mention in a long document is not enough. NORP
#: too: capitalised adjectives and product names pass for groups ("Socratic dialogue", "this Bravo editor").
NOISY_TYPES = frozenset({"LAW", "FAC", "EVENT", "WORK_OF_ART", "PRODUCT", "LANGUAGE", "NORP"})
#: Words of an office, not of a name: "Chief Executive Office(r)", "Vice President" are roles.
_OFFICE_WORDS = frozenset(
    {"chief", "executive", "officer", "office", "president", "vice", "director", "senior", "general", "manager",
     "chairman", "chairwoman", "chair", "secretary", "minister", "deputy", "head", "principal", "founder",
     "board", "directors", "trustees"}
)  # fmt: skip
#: Words that may join office words in a role's name ("Board of Directors").
_ROLE_JOINERS = frozenset({"of", "the"})
#: An office's or a degree's abbreviation ("CTO", "COO", "BS", "PhD"): a role or a title someone holds, not a thing.
_ROLE_ABBREVIATION = re.compile(r"^(?:C[EFIOT]O|BS|BSc|MSc|(?i:phd)|MBA)$")
#: Job nouns that end a job title, not a person's name ("Cloud Advocate", "Software Engineer").
_JOB_NOUNS = frozenset(
    {"advocate", "evangelist", "engineer", "scientist", "researcher", "developer", "designer", "manager",
     "analyst", "editor", "intern", "professor", "director", "officer", "architect", "consultant"}
)  # fmt: skip
#: Letters that end a name as a regnal or chosen numeral ("Charles I", "Henry V", "Malcolm X"), not an initial.
_NAME_NUMERALS = frozenset({"I", "V", "X"})
#: Stop words that are also first names ("Will Smith", "May Jemison"): a PERSON may start with them.
_NAME_STOP_WORDS = frozenset({"will", "may"})
#: Types whose names stand after "in the" as a matter of course ("in the Italian region", "in the Bronx").
#: Types of places, and a saint's name that opens a place's: a saint written only as the owner in a longer name is a
#: piece of it ("St. Mark's Road", "Saint Peter's Square"); a city owning a theatre is the city ("Prague's").
_PLACES = frozenset({"GPE", "LOC", "FAC"})
_ADJECTIVE_OR_PLACE = _PLACES | {"NORP"}
_SAINT = re.compile(r"^(?:St|Ste|Saint)\.? ")
#: Chunks from which a document counts as long for NOISY_TYPES.
LONG_DOCUMENT_CHUNKS = 3
#: Zipf frequency (log10 per billion words, wordfreq) from which an English word is everyday vocabulary:
#: "model" 5.1, "brain" 4.9, "golden" 4.7 are; "robotics" 3.5, "polonium" 2.5, "Lego" 3.8 are not.
COMMON_WORD_ZIPF = 4.5
#: "Episode 52", "Part 3": a counter, not a thing.
_NUMBERED = re.compile(r"^(?:episode|ep|part|chapter|season|page|number|no|vol|volume|section|track)-\d+$")
#: Suffixes that make a longer organisation name the same organisation as its first words ("Apple Inc").
_ORG_SUFFIXES = frozenset({"inc", "corp", "corporation", "company", "co", "ltd", "llc", "plc", "group", "labs"})
#: Nouns of things named by a number ("Pennsylvania Route 662", "Wisconsin Highway 54", "Heathrow Terminal 3"): a
#: name ending in one that the document only ever writes before a number is cut from the numbered name.
_NUMBERED_KINDS = frozenset(
    {"route", "highway", "road", "interstate", "freeway", "motorway", "expressway", "terminal", "flight"}
)  # fmt: skip
_NUMBER_AFTER = re.compile(r"\s\d")
#: A contraction at a name's end ("thatI'd", "Kevin'll"): words a transcript ran together, not a name.
_CONTRACTION = re.compile(r"\w['’](?:d|ll|m|re|ve)$")
_CAMEL_CASE = re.compile(r"(?<!^Mc)(?<!^Mac)[a-z][A-Z]")
_PRONOUNS = frozenset({"i", "me", "my", "you", "he", "she", "we", "they", "it", "us", "him", "her", "them"})
_CAPITALISED_MID_SENTENCE = re.compile(r"(?<=[a-z0-9,;] )([A-Z][\w'’\-]*)")
_LOWER_WORD = re.compile(r"\b[a-z][\w'’\-]*")
#: A capitalised word just before or just after a name: the name may be part of a longer one.
_CAPITAL_BEFORE = re.compile(r"([A-Z][\w'’\-]*) $")
_CAPITAL_AFTER = re.compile(r"^ ([A-Z][\w'’\-]*)")
_CAPITALS_AFTER = re.compile(r"^(?: [A-Z][\w'’\-]*){1,3}")
#: A capitalised word, then the small words of a title, just before a name: "Behind the" of "Behind the Tech",
#: "Scientists in the" of "Scientists in the Crib".
_TITLE_BEFORE = re.compile(r"([A-Z][\w'’\-]*) (?:of|in|on|at|for|with|behind|and)?(?: ?(?:the|a|an))? $")
#: A title's capitalised word, a preposition and an article just before a name, or a preposition, "a" and a
#: capitalised word just after it: "Scientists in a" before "Crib", "in a Crib" after "Scientists" ("the" after
#: is a sentence's place too: "opened on Broadway at the Coronet Theatre").
_TITLE_WORD_BEFORE = re.compile(r"([A-Z][\w'’\-]*) (?:of|in|on|at|for) (?:the|a|an) $")
_TITLE_WORDS_AFTER = re.compile(r"^ (?:of|in|on|at|for) an? [A-Z]")
#: "on the" and a capitalised word just after a name of everyday words: "Little House" of "Little House on the
#: Prairie" ("of the" is a unit's too: "the Air Force Division of the National Guard Bureau"); a capitalised word,
#: a preposition and "a" just before one: "Sea of Stars" of "To Sleep in a Sea of Stars" (a place takes no "a").
_TITLE_THE_AFTER = re.compile(r"^ on the [A-Z]")
#: "in a" and a capitalised word just after a name: "... Lead Actor" of "... Lead Actor in a Miniseries or Movie" ("on
#: a" is a sentence's too: "operates as Air Canada Express on a Tier III codeshare").
_TITLE_IN_A_AFTER = re.compile(r"^ in an? [A-Z]")
_TITLE_A_BEFORE = re.compile(r"([A-Z][\w'’\-]*) (?:of|in|on|at|for) an? $")
#: Text before a sentence's first word: an end mark, a speaker label's colon or a line break, quotes skipped.
_SENTENCE_START = re.compile(r"(?:^|[.?!:…\n])[\s\"“‘'(]*$")
#: Abbreviated words of a name or title ("St. Louis", "Dr. Ng"): alone, one is a piece of the name it opens or
#: closes, not a name. A full stop after one or after an initial ("J. Smith") ends no sentence.
_NAME_ABBREVIATIONS = frozenset({"Mr", "Mrs", "Ms", "Dr", "Prof", "St", "Mt", "Ft", "Jr", "Sr"})
_ABBREVIATION_STOP = re.compile(rf"(?:^|\s)(?:[A-Z]|{'|'.join(sorted(_NAME_ABBREVIATIONS))})\.\s*$")
#: "a"/"an" or a possessive determiner just before a word, and what may follow a noun phrase's last word:
#: punctuation or a word that opens the next clause or phrase. "a CPU, and", "your LAN, like" and "an ERP of 20 kW"
#: (a transmitter's power) count one; "a NASA astronaut" does not.
_ARTICLE_BEFORE = re.compile(r"(?:^|\s)(?:[Aa]n?|[Mm]y|[Yy]our|[Oo]ur|[Tt]heir|[Hh]is|[Hh]er|[Ii]ts) $")
_PLURAL_ARTICLE_BEFORE = re.compile(r"(?:^|\s)(?:the|these|those) $")
_PREPOSITION_BEFORE = re.compile(r"(?:^|\s)(?:at|in|on|with|about|for|from|to|of|into|by|than|like) $")
_PHRASE_END = re.compile(r"(?:[.,;:!?)]|\s(?:and|or|but|that|which|who|with|in|on|for|to|is|was|of)\b)")
#: A possessive and the first word of what it owns, which is no function word ("'s famous", not "'s the").
_OWNS = re.compile(rf"['’]s (?!(?:{'|'.join(sorted(STOP_WORDS))})\b)[\w\-]", re.IGNORECASE)
#: A possessive and a capitalised word that is no function word: "'s Road" of "St. Mark's Road".
_OWNS_A_NAME = re.compile(rf"['’]s (?!(?i:{'|'.join(sorted(STOP_WORDS))})\b)[A-Z]")
#: A lower-case prefix of negation or stance before a name: "non-Rohingyas", "anti-Japanese", "pro-Kremlin".
_NEGATED = re.compile(r"^(?:non|anti|pro)-")
#: A short aside in brackets: "(Crosstalk.)", "(VOICEOVER)", "[inaudible]", "[MUSIC]": stage directions.
_ASIDE = re.compile(r"[(\[][^()\[\]\n]{1,40}[)\]]")
#: A line that is a file name or slug ("Ep-44_Behind_the_Tech_Kevin Scott_Podcast_with_...txt").
_SLUG_LINE = re.compile(r"(?im)^[^\n]*(?:\w_\w|\.(?:txt|md|pdf|docx?)\b|\bep-\d)[^\n]*$")


@dataclass(frozen=True)
class DocumentWords:
    """What a document says about its own words' case: the evidence that a capitalised word is a name."""

    mid_sentence_capitals: frozenset[str]
    lower_case: frozenset[str]
    chunks: int
    text: str
    #: The text, lower case, without bracketed asides: where a name must occur to be more than a stage direction.
    outside_asides: str = ""
    #: (start, end) of the lines that are file names or slugs.
    slugs: tuple[tuple[int, int], ...] = ()
    #: The titles the document writes between quotes ('"Hitler Bad, Vandals Good"'): `inside_quoted_title`.
    quoted_titles: tuple[str, ...] = ()
    #: Memo of each one-word name's occurrences in `text` (junk() is asked once per mention).
    _spans: dict[str, list[tuple[int, int]]] = field(default_factory=dict, compare=False, hash=False)
    #: Memo of `counted_noun` per word: it scans the whole text twice, and junk() is asked once per mention.
    _counted: dict[str, bool] = field(default_factory=dict, compare=False, hash=False)

    @classmethod
    def of(cls, text: str, chunks: int) -> DocumentWords:
        return cls(
            frozenset(m.group(1).lower() for m in _CAPITALISED_MID_SENTENCE.finditer(text)),
            frozenset(m.group(0) for m in _LOWER_WORD.finditer(text)),
            chunks,
            text,
            _ASIDE.sub(" ", text).lower(),
            tuple((m.start(), m.end()) for m in _SLUG_LINE.finditer(text)),
            titles_in(text),
        )

    def slug_lines(self, start: int, end: int) -> list[tuple[int, int]]:
        """The slug lines overlapping text[start:end], as offsets into that slice."""
        return [(max(a, start) - start, min(b, end) - start) for a, b in self.slugs if a < end and b > start]

    def inside_longer_names(self, word: str, *, owner: bool = True) -> bool:
        """Whether every occurrence of a name is joined to another capitalised word that is no function word
        ("Valley" only ever in "Silicon Valley", "Radio Shack Color" only ever before "Computer"): a fragment the
        tagger cut from a longer name. Without `owner`, a possessive before is no join ("Kai-Fu Lee's AI
        Superpowers book" names the book)."""
        spans = self._occurrences(word)
        return bool(spans) and all(self._joined(start, end, owner=owner) for start, end in spans)

    def mostly_in_longer_names(self, word: str) -> bool:
        """Whether half the occurrences or more of a one-word name (as written) are inside a longer capitalised name, a
        title's small words allowed between ("Behind the Tech" beside "tech companies"): for a common noun, the
        piece of a longer name, not a name of its own."""
        spans = self._occurrences(word)
        joined = sum(1 for start, end in spans if self._joined(start, end) or self._titled(start))
        return bool(spans) and 2 * joined >= len(spans)

    def in_a_longer_name(self, word: str) -> bool:
        """Whether the document writes a one-word name (as written) inside a longer capitalised name at least once
        ("Institute" of "New South Wales Institute of Sport" beside "the Institute")."""
        return any(self._joined(start, end) or self._titled(start) for start, end in self._occurrences(word))

    def words_after(self, name: str) -> list[list[str]]:
        """The capitalised words (up to three) right after each occurrence of a name (as written), in lower case,
        none after an occurrence with none: what "Warren Easton" is the first part of in "Warren Easton High
        School"."""
        found = (_CAPITALS_AFTER.match(self.text[end : end + 60]) for _start, end in self._occurrences(name))
        return [m.group(0).lower().split() if m is not None else [] for m in found]

    def only_sentence_initial(self, word: str) -> bool:
        """Whether every occurrence of `word` (as written) opens a sentence or a reply ("KEVIN SCOTT: Nice.",
        "Stick around."): the capital then says nothing about a name."""
        spans = self._occurrences(word)
        return bool(spans) and all(self._opens(self.text[max(0, start - 20) : start]) for start, _end in spans)

    def counted_noun(self, word: str) -> bool:
        """`entity_kinds.counted_noun` of a lower-case word in this text, read once per word (the acronyms' rule
        is `counted`)."""
        if word not in self._counted:
            self._counted[word] = counted_noun(word, self.text)
        return self._counted[word]

    def _occurrences(self, word: str) -> list[tuple[int, int]]:
        """(start, end) of each whole-word occurrence of `word` as written, scanned once per word."""
        if word not in self._spans:
            self._spans[word] = whole_words.spans(word, self.text, before=_NAME_JOINS, after=_NAME_JOINS)
        return self._spans[word]

    @staticmethod
    def _opens(before: str) -> bool:
        return _SENTENCE_START.search(before) is not None and _ABBREVIATION_STOP.search(before) is None

    def _joined(self, start: int, end: int, *, owner: bool = True) -> bool:
        before = _CAPITAL_BEFORE.search(self.text[max(0, start - 30) : start])
        if before is not None and not owner and before.group(1).endswith(("'s", "’s")):
            before = None
        after = _CAPITAL_AFTER.search(self.text[end : end + 30])
        return any(m is not None and m.group(1).lower() not in STOP_WORDS for m in (before, after))

    def _titled(self, start: int, pattern: re.Pattern[str] = _TITLE_BEFORE) -> bool:
        """A title's capitalised word and small words (`pattern`) just before `start`; a word that opens a sentence
        is no title's: "In the Valley" and "Born in Paris" are sentences, "Welcome to Behind the Tech" names a
        show."""
        window = self.text[max(0, start - 40) : start]
        before = pattern.search(window)
        return before is not None and len(before.group(1)) > 1 and not self._opens(window[: before.start(1)])

    def title_piece(self, word: str) -> bool:
        """Whether every occurrence of a one-word name is one word of a longer title joined by a preposition and an
        article: "Crib" and "Scientists" only ever in "Scientists in a Crib". An acronym is no title's word ("ACPS
        in the Raffles", "the envoy of the UN")."""
        return (
            not word.isupper()
            and bool(self._occurrences(word))
            and all(
                _TITLE_WORDS_AFTER.match(self.text[end : end + 30]) or self._titled(start, _TITLE_WORD_BEFORE)
                for start, end in self._occurrences(word)
            )
        )

    def title_fragment(self, name: str, place: bool) -> bool:
        """Whether every occurrence of a several-word name is the end or the start of a longer title: "Sea of Stars"
        only ever after "To Sleep in a", "Little House" (everyday words) only ever before "on the Prairie", "Primetime
        Emmy Award for Outstanding Lead Actor" only ever before "in a Miniseries or Movie" (no place's). A
        place stands before "on the" as a matter of course ("Frankfurt on the Main"), so only the first reading
        holds for one; a name with a rarer word ("Microsoft Research on the ...") is no title's piece."""
        spans = self._occurrences(name)
        everyday_words = not place and all(everyday(w) for w in name.lower().split() if w not in STOP_WORDS)
        return bool(spans) and all(
            self._titled(start, _TITLE_A_BEFORE)
            or (everyday_words and _TITLE_THE_AFTER.match(self.text[end : end + 30]) is not None)
            or (not place and _TITLE_IN_A_AFTER.match(self.text[end : end + 30]) is not None)
            for start, end in spans
        )

    def written_alone(self, part: str, whole: str) -> bool:
        """Whether the document writes `part` (as written) outside the longer name `whole` too: "Mac" of "Windows
        and Mac" beside "a Mac" elsewhere is a name of its own, "Gamble" of "Procter and Gamble" is not."""
        inside = len(whole_words.spans(part, whole, before=_NAME_JOINS, after=_NAME_JOINS))
        return len(self._occurrences(part)) > inside * len(self._occurrences(whole))

    def counted(self, acronym: str) -> bool:
        """Whether the document counts the acronym as a kind: its plural ("CPUs", "the CPU's and" with no noun to
        own), or "a X" or "your X" ending its phrase ("a CPU, and", "a GPU.", "in your LAN, like", "their API,
        which"; one owns one of a kind) where the text never writes it bare after a preposition. A name of one
        thing has no plural; "a NASA astronaut", "NASA's and ESA's missions" put the article or the possessive on
        a noun; "an AMD, like" beside "at AMD" is the firm's product, the firm named."""
        if self._occurrences(acronym + "s") or any(
            _PLURAL_ARTICLE_BEFORE.search(self.text[max(0, a - 8) : a]) and _PHRASE_END.match(self.text[b : b + 8])
            for form in ("'s", "’s")
            for a, b in self._occurrences(acronym + form)
        ):
            return True
        spans = self._occurrences(acronym)
        if any(_PREPOSITION_BEFORE.search(self.text[max(0, a - 8) : a]) for a, _b in spans):
            return False  # named somewhere: "at AMD"
        return any(
            _ARTICLE_BEFORE.search(self.text[max(0, a - 7) : a]) and _PHRASE_END.match(self.text[b : b + 8])
            for a, b in spans
        )

    def owner_in_names(self, name: str) -> bool:
        """Whether every occurrence of a name owns a capitalised word: "St. Mark" only ever in "St. Mark's Road", the
        owner inside a longer name (a place named after a person or a saint), not a name of its own."""
        return self._always_followed(name, _OWNS_A_NAME)

    def only_numbered(self, name: str) -> bool:
        """Whether every occurrence of a name is followed by a number: "Pennsylvania Route" only ever in
        "Pennsylvania Route 662" and "... 170"."""
        return self._always_followed(name, _NUMBER_AFTER)

    def only_possessive(self, word: str) -> bool:
        """Whether every occurrence of a one-word name (as written) owns a noun: "Maslow's hierarchy", "Kennedy's
        famous comment". Not when a function word follows: "Nvidia's the leader" and "Google's been" are "is" and
        "has"."""
        return self._always_followed(word, _OWNS)

    def _always_followed(self, name: str, following: re.Pattern[str]) -> bool:
        """Whether `name` occurs (a possessive's "'s" may follow it) and `following` matches right after each
        occurrence."""
        found = whole_words.spans(name, self.text, before=_NAME_JOINS, after="-")
        return bool(found) and all(following.match(self.text[end : end + 30]) for _start, end in found)

    def hyphen_part(self, word: str) -> bool:
        """Whether every occurrence of a one-word name is joined by a hyphen to a lower-case word ("Hospital" of
        "Hospital-acquired"): a piece of a compound word the tokenizer split, not a name."""
        found = whole_words.spans(word, self.text, before="'’", after="'’")
        return bool(found) and all(
            re.match(r"-[a-z]", self.text[end : end + 2]) or re.search(r"[a-z]-$", self.text[max(0, start - 2) : start])
            for start, end in found
        )

    def inside_quoted_title(self, name: str) -> bool:
        """Whether every occurrence of a name is inside a longer title the document writes between quotes
        (`quoted_titles.inside_a_title`): a piece of a work's title is no name."""
        return inside_a_title(name, self.quoted_titles, self.text)

    def only_in_asides(self, surface: str) -> bool:
        """Whether every occurrence of `surface` is inside a bracketed aside: "(Crosstalk.)" is markup."""
        lowered = surface.lower()
        return whole_words.occurs(lowered, self.text.lower()) and not whole_words.occurs(lowered, self.outside_asides)


def junk(surface: str, kind: str, words: DocumentWords) -> bool:
    """Whether a candidate is noise rather than an entity (see the module docstring for why each rule)."""
    key = slug(surface)
    tokens = key.split("-")
    if "/" in surface or ":" in surface or "@" in surface or _NUMBERED.match(key) or words.only_in_asides(surface):
        return True  # a path, a label, an address, a counter or a stage direction
    if surface.isupper() and " " in surface and kind in (CONCEPT, "ORG"):
        return True  # an upper-case phrase: a speaker label's words or a shout, not a name
    if not any(sum(c.isalpha() for c in t) >= 2 for t in tokens) or _CONTRACTION.search(surface):
        return True  # "n't", "I.", "A"; "thatI'd": words run together
    if words.inside_quoted_title(surface):
        return True  # "Hitler Bad" of '"Hitler Bad, Vandals Good"': a piece of a work's title
    if surface.rstrip(".") in _NAME_ABBREVIATIONS:
        return True  # "St" of "St. Louis": the tagger cut the abbreviation from the name it belongs to
    if key in GENERIC_NOUNS or key in DISCOURSE_WORDS:
        return True
    if len(tokens) > 1 and tokens[-1] in _SHOW_WORDS:
        return True  # "Kevin Scott Podcast": the end of a show's heading line, not a thing the show discusses
    if len(tokens) > 1 and tokens[-1] in _NUMBERED_KINDS and words.only_numbered(surface):
        return True  # "Wisconsin Highway" of "Wisconsin Highway 54": a numbered road's name without its number
    if _role(tokens) or _ROLE_ABBREVIATION.match(surface):
        return True  # "Chief Executive Office", "Board of Directors", "CTO", "BS": a role or degree, whoever holds it
    if surface.isupper() and " " not in surface and words.counted(surface):
        return True  # "CPU" beside "CPUs", "EV" beside "EVs": a thing one counts is a common noun, not a name
    if kind == CONCEPT:
        if surface.isupper():
            return False
        if len(tokens) == 1:  # "robots" beside "a robot.": a kind of thing one counts (entity_kinds.py)
            return len(key) < 4 or everyday(key) or words.counted_noun(surface)
        # "data sets"; not "neural networks", nor a title in capitals the model took for a topic ("Summer Wars")
        return surface.islower() and plural(tokens[-1]) and all(everyday(t) for t in tokens)
    if not any(c.isupper() for c in surface):
        return True  # a named entity is written with a capital: "software" is not an organisation
    if _NEGATED.match(surface):
        return True  # "non-Rohingyas", "anti-Japanese": everyone but a group, or a stance; no name
    words_of = surface.split()
    lowered = [w.lower().strip(".,") for w in words_of]
    if kind == "PERSON" and (
        any(w in _PRONOUNS for w in (lowered[:-1] if regnal_one(surface, words.text) else lowered))
        or lowered[0] in DISCOURSE_WORDS
        or any(w[:1].islower() and w not in _PARTICLES for w in words_of[1:])
        or (len(words_of) > 1 and _stop_word_first(words_of[0]))  # "Down Cycle"
        or (len(words_of) > 1 and len(words_of[-1]) == 1 and words_of[-1] not in _NAME_NUMERALS)  # "Chem E"
        or (len(words_of) > 1 and lowered[-1] in _JOB_NOUNS)  # "Cloud Advocate": a job title
    ):
        return True
    if kind in _PLACES and _SAINT.match(surface) and words.owner_in_names(surface):
        return True  # "St. Mark" of "St. Mark's Road"; "Prague" of "Prague's National Theatre" is the city
    if kind == "NORP" and any(c.isdigit() for c in surface):
        return True  # "Category 3": a nationality or group has no number
    if len(tokens) == 1:
        in_lower_case = lowered[0] not in words.mid_sentence_capitals and lowered[0] in words.lower_case
        # an everyday word the document also writes in lower case is a common noun there ("tech companies"); word
        # lists ignore case ("London", "Florida" are as frequent), so the document's own lower case must say it
        common_noun = everyday(lowered[0]) and lowered[0] in words.lower_case
        opener = not surface.isupper() and everyday(lowered[0]) and words.only_sentence_initial(surface)
        return (
            in_lower_case
            or opener
            # "the Institute" beside "New South Wales Institute of Sport": a kind of body, that name's short form
            or (kind != "PERSON" and lowered[0] in KIND_WORDS and words.in_a_longer_name(surface))
            or words.inside_longer_names(surface)
            or (kind != "PERSON" and common_noun and words.mostly_in_longer_names(surface))
            or (kind != "NORP" and words.hyphen_part(surface))  # "Canadian-born" still names a nationality
            or (kind not in _ADJECTIVE_OR_PLACE and words.title_piece(surface))  # "Crib" of "Scientists in a Crib"
        )
    return kind != "PERSON" and (
        words.title_fragment(surface, kind in _ADJECTIVE_OR_PLACE)  # "Little House"
        or words.inside_longer_names(surface, owner=False)  # "Radio Shack Color" only ever before "Computer 2"
    )


def _stop_word_first(word: str) -> bool:
    """A name's first word that is a function word ("Down", "Over"), not an initial ("A. Philip Randolph") nor a
    stop word that is also a first name ("Will")."""
    lowered = word.lower()
    return not word.endswith(".") and lowered in STOP_WORDS and lowered not in _NAME_STOP_WORDS


def _role(tokens: list[str]) -> bool:
    """A name made of office words only, joined by "of"/"the": a role, not an organisation."""
    return any(t in _OFFICE_WORDS for t in tokens) and all(t in _OFFICE_WORDS or t in _ROLE_JOINERS for t in tokens)


def everyday(word: str) -> bool:
    """An everyday English word or the plural of one ("booms"): a capital at a sentence's start is no name, and a
    lone keyphrase "computers" is as generic as "computer"."""
    return common_word(word) or (word.endswith("s") and common_word(word[:-1]))


def plural(word: str) -> bool:
    """A lower-case noun in the plural ("sets", "companies"): its singular is the more frequent word. A topic of
    everyday words is named in the singular or as a mass noun ("machine learning"); in the plural they name a
    kind of thing ("data sets", "tech companies"). Words in -ics name a field ("physics"), not several of one."""
    if not word.endswith("s") or word.endswith(("ss", "us", "is", "ics")):
        return False
    singular = word[:-3] + "y" if word.endswith("ies") else word[:-1]
    return zipf_frequency(singular, "en") > zipf_frequency(word, "en")


def common_word(word: str) -> bool:
    """An everyday English word (COMMON_WORD_ZIPF; any case: word lists ignore it), so a generic noun as a lone
    keyphrase. Not by itself a test of names: "Paris" is as frequent as "model"."""
    return zipf_frequency(word, "en") >= COMMON_WORD_ZIPF


def named_type(surface: str, kind: str, words: DocumentWords) -> str:
    """The model's type, except that a PERSON is a brand when written in camel case ("OpenAI") and a topic
    (CONCEPT) when it cannot be a name: an acronym or a word with a digit ("AR", "GPT-4"), or words the
    document also writes in lower case ("machine learning")."""
    if kind != "PERSON":
        return kind
    if " " not in surface and _CAMEL_CASE.search(surface):
        return "ORG"  # "OpenAI", "TikTok", "LoudCloud": a brand, not a person
    lowered = surface.lower()
    if any(c.isdigit() for c in surface) or (surface.isupper() and " " not in surface):
        return CONCEPT
    return CONCEPT if whole_words.occurs(lowered, words.text) else kind


def too_rare(kind: str, mentions: int, words: DocumentWords) -> bool:
    """A noisy-type entity mentioned once in a long document (one chunk of many) is more likely a tagging slip."""
    return kind in NOISY_TYPES and mentions < 2 and words.chunks >= LONG_DOCUMENT_CHUNKS


def _name_tokens(surface: str) -> tuple[str, ...]:
    """A name's words as slugs, hyphenated words kept whole: 'Fei-Fei Li' -> ('fei-fei', 'li')."""
    return tuple(t for t in (slug(word) for word in surface.split()) if t)


def alias_map(surfaces: dict[str, str], types: dict[str, str], placed: frozenset[str] = frozenset()) -> dict[str, str]:
    """A one-word name -> the only longer PERSON (or same-company ORG) whose first or last word it is.

    'Fei-Fei' and 'Li' -> 'Fei-Fei Li', 'Lisa' -> 'Lisa Su', 'Gates' -> 'Bill Gates' when the document
    has one such person; 'Microsoft' stays apart from 'Microsoft Research' (a part is not the whole),
    but 'Apple' joins 'Apple Inc'. A one-word PERSON written where one is, not who one is (`placed`: the keys
    written right after a preposition of place: "at", "into"), that ends no longer person's name, joins the only
    organisation whose name it ends: "While at Rovers he was the club captain" of "Bristol Rovers" (a club's short
    name the model took for a surname). `surfaces` is each key's surface form, `types` its resolved type.
    """
    names = {key: _name_tokens(surface) for key, surface in surfaces.items()}
    aliases = {}
    for key, short in names.items():
        if len(short) != 1 or types.get(key) not in {"PERSON", "ORG", "NORP", "GPE", CONCEPT, "PRODUCT"}:
            continue
        targets = {
            other
            for other, long in names.items()
            if len(long) > len(short)
            and (long[: len(short)] == short or _ends(long, short))
            and _can_alias(types.get(key, ""), types.get(other, ""), short, long)
        }
        if not targets and types.get(key) == "PERSON" and key in placed:
            targets = {other for other, long in names.items() if types.get(other) == "ORG" and _ends(long, short)}
        if len(targets) == 1:
            aliases[key] = next(iter(targets))
    return aliases


def _ends(long: tuple[str, ...], short: tuple[str, ...]) -> bool:
    return len(long) > len(short) and long[-len(short) :] == short


def _can_alias(short_type: str, long_type: str, short: tuple[str, ...], long: tuple[str, ...]) -> bool:
    if long_type == "PERSON":
        return short_type != "GPE" or len(short) == 1
    if long_type == "ORG" and short_type == "ORG":
        return long[: len(short)] == short and all(t in _ORG_SUFFIXES for t in long[len(short) :])
    return False
