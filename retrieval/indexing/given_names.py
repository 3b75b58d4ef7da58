"""Whether a word is a common English given name: evidence of a person the small spaCy model cannot give.

Why a list: a first name met alone ("Jessica, too, were close"), with no verb of speech, no address and no
full name anywhere in the corpus, looks to the model exactly like a film or a product ("Arrival", "Webvan").
The list is Faker's en_US given names (about 700, from the US Social Security Administration's baby-name
counts; MIT licence): general English names, not any corpus's. It is too short to say what is *not* a
name: it has "Katherine" and "Andrew" but not "Kate" or "Andy", so a several-word "person" led by an
everyday word off the list ("Best Buy", but also "Graham Hill", "Kate Winslet") cannot be retyped by it.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import pkgutil


@functools.cache
def _names() -> frozenset[str]:
    from faker.providers.person.en_US import Provider

    return frozenset(name.lower() for name in (*Provider.first_names_female, *Provider.first_names_male))


def given_name(word: str) -> bool:
    """Whether `word` (any case) is a common English given name ("Jessica", "Will"; not "Best", "Castle")."""
    return word.lower() in _names()


@functools.cache
def _names_anywhere() -> frozenset[str]:
    from faker.providers import person

    names: set[str] = set()
    for module in pkgutil.iter_modules(person.__path__):
        provider = importlib.import_module(f"{person.__name__}.{module.name}").Provider
        for attribute in ("first_names", "first_names_male", "first_names_female"):
            listed = inspect.getattr_static(provider, attribute, ())
            if isinstance(listed, list | tuple | dict):  # a dict weighs names; a few locales compute theirs
                names.update(name.lower() for name in listed if isinstance(name, str))
    return frozenset(names)


def given_name_anywhere(word: str) -> bool:
    """Whether `word` (any case) is a given name in any of Faker's locales ("Adolfo", "Iosif", "Franjo").

    Why a second, wider list: it says whether a capitalised word just before a surname is the rest of that person's
    name (name_starts.py), where a name of any language counts. It is too wide to say alone that a word is a name
    ("Major", "King", "Justice" are given names somewhere), so its callers also ask that the word is no everyday
    English word."""
    return word.lower() in _names_anywhere()
