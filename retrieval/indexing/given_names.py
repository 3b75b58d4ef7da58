"""Whether a word is a common English given name: evidence of a person the small spaCy model cannot give.

Why a list: a first name met alone ("Jessica, too, were close"), with no verb of speech, no address and no
full name anywhere in the corpus, looks to the model exactly like a film or a product ("Arrival", "Webvan");
and a several-word "person" led by an everyday word that is nobody's first name ("Best Buy", "Castle
Wolfenstein") is a shop or a game. The list is Faker's en_US given names (about 700, from the US Social
Security Administration's baby-name counts; MIT licence): general English names, not any corpus's.
"""

from __future__ import annotations

import functools


@functools.cache
def _names() -> frozenset[str]:
    from faker.providers.person.en_US import Provider

    return frozenset(name.lower() for name in (*Provider.first_names_female, *Provider.first_names_male))


def given_name(word: str) -> bool:
    """Whether `word` (any case) is a common English given name ("Jessica", "Will"; not "Best", "Castle")."""
    return word.lower() in _names()
