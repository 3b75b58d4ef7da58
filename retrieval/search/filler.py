"""What is never a key fact: conversational filler and headings. The one written definition, used by every mode.

Why a definition and not a list of bad sentences: a transcript of any show says "Thank you so much, Kevin.",
"Yeah, exactly." and "It's never too late." a hundred times, and a report series opens every file with its
title line. Such a sentence is close to many questions by its words (a name, "book", "episode") yet states
nothing, so ranking alone lets it in. The rules read only the sentence itself, so they hold on any corpus:

A sentence (speaker label and spoken fillers such as "um", "you know" set aside) is **filler** when
1. after removing vocatives (a name set off by a comma at either end: "..., Kevin.") and social words
   (greetings, thanks, agreement, sign-offs: `SOCIAL`), it has fewer than `MIN_CONTENT_WORDS` content words
   (words that are not function words): "Thank you so much, Kevin.", "Yeah, that's right.", "Good luck to
   your book.", "It's never too late." all fall here, "Ibsen was a Norwegian playwright." does not;
2. or it is a sign-off or a show's framing line, recognised by a closing phrase (`_CLOSING`): "that does it
   for us", "thanks for listening", "see you next time".

A sentence is a **heading** when it has no sentence-ending punctuation, at most `MAX_HEADING_WORDS` words, and
starts with a capital or a digit: a title line ("Behind the Tech with Kevin Scott Podcast Episode 52 - Bill
Gates", "Helios Labs research note"), a stage direction ("[MUSIC]") or a section name. A sentence cut at a chunk
edge ends without punctuation too, but it starts mid-sentence (lower case) or runs longer.
"""

from __future__ import annotations

import re

from spacy.lang.en.stop_words import STOP_WORDS

from retrieval.search.keywords import STOPWORDS
from retrieval.text.readable import clean_spoken
from retrieval.text.speakers import strip_label

#: Content words a sentence needs, besides names and social words, to state something.
MIN_CONTENT_WORDS = 2
#: Longest line without closing punctuation that reads as a title rather than a cut sentence.
MAX_HEADING_WORDS = 14
#: Words of greeting, thanks, agreement, praise and parting: they carry the conversation, not a claim.
_SOCIAL_TEXT = """
hi hello hey welcome thank thanks thankyou appreciate appreciated pleasure glad happy delighted honor honour
great good nice wonderful fantastic awesome amazing cool brilliant fun lovely terrific incredible yeah yes yep
yup no nope okay ok sure right exactly absolutely totally definitely certainly indeed true oh wow ah uh um hmm
huh mm mhm well anyway like really actually just kind sort mean know guess think bye goodbye later soon luck
cheers congratulations congrats care much lot lots many thing things stuff something anything everything way
ways time today everyone everybody folks guys listening joining having coming chatting talking conversation
podcast episode show
"""
SOCIAL = frozenset(_SOCIAL_TEXT.split())
#: Phrases that close or frame a show: a sentence containing one is a sign-off whatever else it says.
_CLOSING = re.compile(
    r"\b(?:that(?:'s|’s| is| does it) (?:it|all) for (?:us|today|this episode)|does it for us"
    r"|thanks? (?:you )?(?:so much |very much )?for (?:listening|joining|having me|being here|coming on|tuning in)"
    r"|see you next time|until next time|talk to you (?:soon|later)|see you (?:soon|then)"
    r"|(?:join|joined) us (?:next|again)|subscribe|rate and review)\b",
    re.IGNORECASE,
)
#: Function words: the search's stop words and spaCy's longer English list ("never", "always", "ever").
_FUNCTION = STOPWORDS | STOP_WORDS | SOCIAL
_WORD = re.compile(r"[A-Za-z][\w'’\-]*|\d[\w.,]*")
_NAME = r"[A-Z][\w'’\-]*(?:\s+[A-Z][\w'’\-]*){0,2}"
#: A name set off by a comma at the end ("..., Kevin.") or the start ("Kevin, ...") of a sentence.
_VOCATIVE = re.compile(rf",\s*{_NAME}\s*[.!?]*\s*$|^\s*{_NAME}\s*,\s")
_ENDS_SENTENCE = re.compile(r"[.!?][\"'’”)\]]*\s*$")


def is_filler(sentence: str) -> bool:
    """Whether `sentence` is conversational filler by the module's definition (rule 1 or 2)."""
    said = clean_spoken(strip_label(sentence))
    if _CLOSING.search(said):
        return True
    return len(content_words(said)) < MIN_CONTENT_WORDS


def is_heading(sentence: str) -> bool:
    """Whether `sentence` is a title, section name or stage direction by the module's definition."""
    text = " ".join(strip_label(sentence).split())
    if not text or _ENDS_SENTENCE.search(text):
        return False
    if text.startswith("[") and text.rstrip().endswith("]"):
        return True
    first = text.lstrip("\"'“‘([")[:1]
    return (first.isupper() or first.isdigit()) and len(text.split()) <= MAX_HEADING_WORDS


def never_a_fact(sentence: str) -> bool:
    """Filler or heading: a sentence no answer cites as a key fact."""
    return is_heading(sentence) or is_filler(sentence)


def content_words(text: str) -> list[str]:
    """The words of `text` that can carry a claim: not function words, not social words, not vocatives.

    A vocative is a name the speaker addresses, set off by a comma ("Thank you so much, Kevin."); a number
    always counts ("1903").
    """
    out = []
    for word in _WORD.findall(_VOCATIVE.sub(" ", text)):
        lower = word.lower().rstrip("'’")
        base = re.sub(r"['’](?:s|re|ve|ll|d|m|t)$", "", lower)
        if word[0].isdigit():
            out.append(lower)
        elif len(base) > 1 and not {base, lower} & _FUNCTION:
            out.append(base)
    return out
