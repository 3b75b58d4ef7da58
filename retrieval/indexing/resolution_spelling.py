"""Resolution rules for names a transcriber spelled wrong: a surname one letter off, sounding the same or cut
short beside the same first name, and a one-word name missing its last letter.

Transcripts spell a name as it was heard, so one person turns up as "Sam Schillace" and "Sam Schillaci", or
"Theo Von" and "Theo Vaughn". Each rule needs the two forms in a shared document: the same first name with two
surnames a letter apart is otherwise two people as often as one.
"""

from __future__ import annotations

from collections import defaultdict

import jellyfish

from retrieval.indexing.resolution_keys import Key, compatible, rank, together

#: A name cut short by its last letter is a transcript artefact only when it is this many times rarer.
TRUNCATED_RARER = 3
#: Shortest surname or name that a misspelling or cut may be found in: shorter ones are other names ("Li", "Ng").
MIN_SPELLED = 4
#: Shortest surname compared by sound ("Von"): two-letter ones sound alike too easily ("Li", "Lee").
MIN_SOUNDED = 3


def misspelled_pairs(keys: dict[str, Key]) -> list[tuple[str, str, str]]:
    """(variant, target, reason): a person's surname spelled one letter off or cut short, beside the same first
    name in a shared document; a one-word name missing its last letter ("Googl"), much rarer than the whole word
    in a shared document."""
    return _surname_pairs(keys) + _truncated_pairs(keys)


def _surname_pairs(keys: dict[str, Key]) -> list[tuple[str, str, str]]:
    by_first: dict[str, list[Key]] = defaultdict(list)
    for key in keys.values():
        if key.type == "PERSON" and len(key.tokens) == 2:
            by_first[key.tokens[0]].append(key)
    out = []
    for group in by_first.values():
        group.sort(key=rank, reverse=True)
        for i, variant in enumerate(group):
            last = variant.tokens[-1]
            for target in group[:i]:
                other = target.tokens[-1]
                cut = other.startswith(last) and len(last) >= MIN_SPELLED
                near = min(len(last), len(other)) > MIN_SPELLED and jellyfish.levenshtein_distance(last, other) == 1
                if (cut or near or _sounds_alike(last, other)) and together(variant, target):
                    how = "cut short" if cut else "one letter apart" if near else "sounds the same"
                    out.append((variant.id, target.id, f"{variant.surface} is {target.surface} misspelled ({how})"))
                    break
    return out


def _truncated_pairs(keys: dict[str, Key]) -> list[tuple[str, str, str]]:
    by_slug = {key.slug: key for key in keys.values() if len(key.tokens) == 1}
    # Each one-word name under itself less its last letter, in `by_slug`'s order: a key's candidates are one look-up
    # instead of a scan of every one-word name (quadratic in the entities: ~4,000 of them over MuSiQue's passages).
    one_longer: dict[str, list[Key]] = defaultdict(list)
    for slug, k in by_slug.items():
        if not slug.endswith("s"):
            one_longer[slug[:-1]].append(k)
    out = []
    for key in sorted(by_slug.values(), key=lambda k: k.id):
        if len(key.slug) < MIN_SPELLED or key.type == "PERSON":
            continue
        for target in one_longer.get(key.slug, []):
            if target.weight >= TRUNCATED_RARER * key.weight and together(key, target) and compatible(key, target):
                out.append((key.id, target.id, f"{key.surface} is {target.surface} cut short"))
                break
    return out


def _sounds_alike(a: str, b: str) -> bool:
    """Same Metaphone code ("von" and "vaughn"): how a transcriber who heard a name spells it."""
    return min(len(a), len(b)) >= MIN_SOUNDED and jellyfish.metaphone(a) == jellyfish.metaphone(b)
