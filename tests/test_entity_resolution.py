"""Entity resolution across documents and runs (retrieval/indexing/resolution.py): the rules on small inputs,
then on both backends: one node per person across documents, its aliases and why, and `remove` undoing
exactly what a document contributed to a merge."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from retrieval.context import Context
from retrieval.indexing import remove_document, run_index
from retrieval.indexing.entities import resolve as resolve_entities
from retrieval.indexing.model import graph_type, slug
from retrieval.indexing.resolution import keys_of, resolve
from retrieval.indexing.resolution_spelling import misspelled_pairs
from retrieval.search.explore import node_details
from tests.indexing_runs import graph, write_corpus  # noqa: F401 (fixtures)
from tests.resolution_rows import entity, mention


def test_forms_of_one_name_resolve_to_the_full_name_with_reasons() -> None:
    rows = [
        mention("a", "lisa-su", "Lisa Su", "PERSON", 5),
        mention("a", "amd", "AMD", "ORG", 4),
        mention("a", "advanced-micro-devices", "Advanced Micro Devices", "ORG"),
        mention("b", "lisa-sus", "Lisa Sus", "PERSON"),
        mention("b", "lisa-su", "Lisa Su", "PERSON", 2),
        mention("c", "dr-lisa-su", "Dr. Lisa Su", "PERSON"),
        mention("c", "lisa", "Lisa", "PERSON", 3),
        mention("c", "lisa-su", "Lisa Su", "PERSON"),
        mention("c", "fei-fei-li", "Fei-Fei Li", "PERSON", 2),
        mention("c", "feifei-li", "FeiFei Li", "PERSON"),
        mention("d", "neil-degrasse-tyson", "Neil deGrasse Tyson", "PERSON", 3),
        mention("d", "neil-tyson", "Neil Tyson", "PERSON"),
        mention("d", "tyson", "Tyson", "CONCEPT"),
        mention("d", "google-brain", "Google Brain", "ORG", 2),
        mention("d", "google-brain-team", "Google Brain Team", "ORG"),
    ]
    merged = resolve(keys_of(rows))
    for variant in ("lisa-sus", "dr-lisa-su", "lisa"):
        assert merged.of(f"p:{variant}") == "p:lisa-su", variant
    assert merged.of("p:advanced-micro-devices") == "p:amd"
    assert merged.of("p:feifei-li") == "p:fei-fei-li"
    assert merged.of("p:neil-tyson") == merged.of("p:tyson") == "p:neil-degrasse-tyson"
    assert merged.of("p:google-brain-team") == "p:google-brain"
    assert "possessive or plural" in merged.reasons["p:lisa-sus"]
    assert "title dropped" in merged.reasons["p:dr-lisa-su"]
    assert "AMD is short for Advanced Micro Devices" in merged.reasons["p:advanced-micro-devices"]


def test_a_topic_that_is_a_graph_persons_first_name_or_surname_is_a_person() -> None:
    """ "Richard" (Feynman or Dawkins: not merged) and "Elon" typed as a topic in an interview that never says
    "Musk" are names; a lower-case topic, an organisation named like a person and a word no person has are not."""
    rows = [
        mention("a", "richard-feynman", "Richard Feynman", "PERSON", 2),
        mention("b", "richard-dawkins", "Richard Dawkins", "PERSON", 2),
        mention("c", "richard", "Richard", "CONCEPT", 2),
        mention("d", "elon-musk", "Elon Musk", "PERSON"),
        mention("e", "elon", "Elon", "CONCEPT", 3),
        mention("e", "dell", "Dell", "ORG", 2),
        mention("f", "michael-dell", "Michael Dell", "PERSON"),
        mention("f", "physics", "Physics", "CONCEPT", 2),
        mention("f", "musk", "musk", "CONCEPT", 2),
    ]
    merged = resolve(keys_of(rows))
    assert merged.of("p:richard") == "p:richard" and merged.types.get("p:richard") == "PERSON"
    assert merged.types.get("p:elon") == "PERSON"
    assert "p:dell" not in merged.types and "p:physics" not in merged.types and "p:musk" not in merged.types
    entities = resolve_entities([{**row, "evidence": ""} for row in rows], merged)
    assert entities["p:richard"].type == "PERSON" and entities["p:dell"].type == "ORG"


def test_a_first_name_or_a_family_member_of_a_graph_person_is_a_person_whatever_its_tag() -> None:
    """ "Elon" tagged ORG and "Joe" tagged WORK_OF_ART open the names of "Elon Musk" and "Joe Rogan"; "Melinda Gates"
    tagged ORG is a given name and the surname of "Bill Gates". A surname typed ORG ("Dell"), a place that opens a
    person's name ("Georgia"), a first name met once ("at Bradley and Bellwood schools"), a non-name with a graph
    surname ("Windows Gates") and an everyday "surname" ("Hunter College" beside "Magdalene College" typed PERSON)
    keep their types."""
    rows = [
        mention("a", "elon-musk", "Elon Musk", "PERSON"),
        mention("a", "joe-rogan", "Joe Rogan", "PERSON"),
        mention("a", "bill-gates", "Bill Gates", "PERSON"),
        mention("a", "michael-dell", "Michael Dell", "PERSON"),
        mention("a", "georgia-okeeffe", "Georgia O'Keeffe", "PERSON"),
        mention("a", "bradley-christiansen", "Bradley Christiansen", "PERSON"),
        mention("a", "magdalene-college", "Magdalene College", "PERSON"),
        mention("b", "elon", "Elon", "ORG", 2),
        mention("b", "joe", "Joe", "WORK_OF_ART"),
        mention("c", "joe", "Joe", "WORK_OF_ART"),
        mention("b", "bradley", "Bradley", "ORG"),
        mention("b", "hunter-college", "Hunter College", "ORG"),
        mention("b", "melinda-gates", "Melinda Gates", "ORG"),
        mention("b", "dell", "Dell", "ORG", 2),
        mention("b", "georgia", "Georgia", "GPE"),
        mention("b", "windows-gates", "Windows Gates", "ORG"),
    ]
    merged = resolve(keys_of(rows))
    for person in ("elon", "joe", "melinda-gates"):
        assert merged.types.get(f"p:{person}") == "PERSON", person
    for thing in ("dell", "georgia", "windows-gates", "bradley", "hunter-college"):
        assert f"p:{thing}" not in merged.types, thing


def test_without_shared_evidence_nothing_merges() -> None:
    """A first name shared by two people found equally often, an acronym never co-mentioned with its
    would-be expansion or spelled by a numeral ("Apple II"), a person and a place: each stays its own entity."""
    rows = [
        mention("a", "bill-gates", "Bill Gates", "PERSON"),
        mention("a", "bill", "Bill", "PERSON"),
        mention("b", "bill-clinton", "Bill Clinton", "PERSON"),
        mention("b", "bill", "Bill", "PERSON"),
        mention("c", "ai", "AI", "CONCEPT"),
        mention("d", "artificial-intelligence", "artificial intelligence", "CONCEPT"),
        mention("e", "georgia", "Georgia", "GPE"),
        mention("e", "georgias", "Georgias", "PERSON"),
        mention("f", "ai", "AI", "CONCEPT"),
        mention("f", "apple-ii", "Apple II", "PRODUCT"),
    ]
    merged = resolve(keys_of(rows))
    assert merged.canonical == {key: key for key in merged.canonical}
    assert merged.reasons == {}


def test_transcript_misspellings_and_qualified_names_resolve_with_evidence() -> None:
    rows = [
        mention("a", "sam-schillace", "Sam Schillace", "PERSON", 6),
        mention("a", "sam-schillaci", "Sam Schillaci", "PERSON"),
        mention("a", "charles-simonyi", "Charles Simonyi", "PERSON", 4),
        mention("a", "charles-simon", "Charles Simon", "PERSON"),
        mention("a", "charles", "Charles", "PERSON", 2),
        mention("a", "google", "Google", "ORG", 9),
        mention("a", "googl", "Googl", "ORG"),
        mention("b", "xerox", "Xerox", "ORG", 3),
        mention("b", "xerox-parc", "Xerox PARC", "ORG"),
        mention("b", "parc", "PARC", "ORG", 4),
        mention("c", "fei-fei-li", "Fei-Fei Li", "PERSON", 5),
        mention("c", "fei-feis", "Fei-Feis", "ORG"),
    ]
    merged = resolve(keys_of(rows))
    assert merged.of("p:sam-schillaci") == "p:sam-schillace"
    assert merged.of("p:charles-simon") == merged.of("p:charles") == "p:charles-simonyi"
    assert merged.of("p:googl") == "p:google"
    assert merged.of("p:xerox-parc") == "p:parc" and merged.of("p:xerox") == "p:xerox"
    assert merged.of("p:fei-feis") == "p:fei-fei-li"
    assert "one letter apart" in merged.reasons["p:sam-schillaci"]
    assert "cut short" in merged.reasons["p:charles-simon"] and "cut short" in merged.reasons["p:googl"]
    assert "named with Xerox" in merged.reasons["p:xerox-parc"]


def test_a_name_cut_short_takes_the_first_one_letter_longer_name_in_key_order_that_is_rarer_enough() -> None:
    """The "cut short" rule's candidates, found by a look-up (resolution_spelling.py): one letter more at the end
    only, never a plural, the first in key order that is TRUNCATED_RARER times as frequent and shares a document."""
    rows = [
        mention("a", "nvidi", "Nvidi", "ORG"),
        mention("a", "nvidis", "Nvidis", "ORG", 9),  # a plural is no whole word
        mention("a", "nvidix", "Nvidix", "ORG", 2),  # not rare enough beside it
        mention("b", "nvidiy", "Nvidiy", "ORG", 8),  # no shared document
        mention("a", "nxvidi", "Nxvidi", "ORG", 9),  # a letter inside, not at the end
        mention("a", "nvidia", "Nvidia", "ORG", 5),
        mention("a", "nvidiz", "Nvidiz", "ORG", 7),  # as good, but later
        mention("a", "nvidiaa", "Nvidiaa", "ORG", 30),  # two letters more than "nvidi"
        mention("c", "orac", "Orac", "ORG"),
        mention("c", "oracle", "Oracle", "ORG", 9),  # two letters more
    ]
    assert misspelled_pairs(keys_of(rows)) == [
        ("p:nvidi", "p:nvidia", "Nvidi is Nvidia cut short"),
        ("p:nvidia", "p:nvidiaa", "Nvidia is Nvidiaa cut short"),
    ]


def test_sound_alike_surnames_added_words_and_written_acronyms_resolve() -> None:
    """A surname spelled as heard ("Theo Vaughn" for Theo Von, and then "Theo" alone joins the one person left),
    an organisation with a co-founder's name added inside, a kind word at an organisation's end, and an acronym
    spelled by a hyphenated word and an inner acronym ("HAI")."""
    rows = [
        mention("a", "theo-von", "Theo Von", "PERSON", 5),
        mention("a", "theo-vaughn", "Theo Vaughn", "PERSON", 2),
        mention("a", "theo", "Theo", "PERSON", 3),
        mention("b", "jen-hsun-huang-foundation", "Jen-Hsun Huang Foundation", "ORG", 2),
        mention("b", "jen-hsun-lori-huang-foundation", "Jen-Hsun & Lori Huang Foundation", "ORG"),
        mention("c", "hai", "HAI", "ORG", 3),
        mention("c", "human-centered-ai-institute", "Human-Centered AI Institute", "ORG"),
        mention("d", "allen-institute", "Allen Institute", "ORG"),
        mention("d", "allen", "Allen", "ORG", 2),
    ]
    merged = resolve(keys_of(rows))
    assert merged.of("p:theo-vaughn") == merged.of("p:theo") == "p:theo-von"
    assert "sounds the same" in merged.reasons["p:theo-vaughn"]
    assert merged.of("p:jen-hsun-lori-huang-foundation") == "p:jen-hsun-huang-foundation"
    assert "with words added" in merged.reasons["p:jen-hsun-lori-huang-foundation"]
    assert merged.of("p:human-centered-ai-institute") == "p:hai"
    assert merged.of("p:allen-institute") == "p:allen"


def test_a_foundation_is_not_its_founder_and_unheard_names_stay_apart() -> None:
    """A kind word does not join a person's surname ("Gates Foundation" is not Gates), surnames that sound alike
    in different documents stay apart, and so do two-letter surnames ("Li", "Lee")."""
    rows = [
        mention("a", "gates-foundation", "Gates Foundation", "ORG"),
        mention("a", "gates", "Gates", "CONCEPT", 3),
        mention("b", "anna-smith", "Anna Smith", "PERSON", 2),
        mention("c", "anna-smyth", "Anna Smyth", "PERSON", 2),
        mention("d", "yan-li", "Yan Li", "PERSON", 2),
        mention("d", "yan-lee", "Yan Lee", "PERSON", 2),
    ]
    merged = resolve(keys_of(rows))
    assert merged.canonical == {key: key for key in merged.canonical}, merged.reasons


def test_different_names_that_look_alike_stay_apart() -> None:
    """Surnames one letter apart in different documents, a short surname inside a longer one ("Li" of "Lin"),
    a cut-short name about as frequent as the whole one, and a two-word name whose rest is no organisation's
    name ("Microsoft Research" is not "Research", "AI Machine Learning" is not a topic named with AI)."""
    rows = [
        mention("a", "john-smith", "John Smith", "PERSON", 3),
        mention("b", "john-smyth", "John Smyth", "PERSON", 3),
        mention("c", "yan-li", "Yan Li", "PERSON", 3),
        mention("c", "yan-lin", "Yan Lin", "PERSON", 3),
        mention("d", "unix", "Unix", "PRODUCT", 2),
        mention("d", "unixe", "Unixe", "PRODUCT", 3),
        mention("e", "microsoft", "Microsoft", "ORG", 5),
        mention("e", "microsoft-research", "Microsoft Research", "ORG", 2),
        mention("e", "research", "research", "CONCEPT", 2),
        mention("e", "ai", "AI", "CONCEPT", 4),
        mention("e", "machine-learning", "machine learning", "CONCEPT", 4),
        mention("e", "ai-machine-learning", "AI Machine Learning", "ORG"),
    ]
    merged = resolve(keys_of(rows))
    for key in ("john-smyth", "yan-li", "unix", "microsoft-research", "ai-machine-learning"):
        assert merged.of(f"p:{key}") == f"p:{key}", (key, merged.reasons)


def test_across_documents_a_numbered_name_a_surname_and_an_acronym_join_their_full_form() -> None:
    """Short passages (MuSiQue) write the two forms in different documents: an ordinal word and a numeral saying
    the same number join on the name alone; a surname of two words ("De Niro") and an acronym whose only
    expansion of the graph it spells join when an entity other than a hub is mentioned beside both."""
    rows = [
        mention("a", "world-war-ii", "World War II", "EVENT", 4),
        mention("b", "second-world-war", "Second World War", "EVENT"),
        mention("a", "robert-de-niro", "Robert De Niro", "PERSON", 3),
        mention("a", "taxi-driver", "Taxi Driver", "WORK_OF_ART"),
        mention("c", "de-niro", "De Niro", "PERSON"),
        mention("c", "taxi-driver", "Taxi Driver", "WORK_OF_ART"),
        mention("d", "international-monetary-fund", "International Monetary Fund", "ORG", 2),
        mention("d", "bretton-woods", "Bretton Woods", "GPE"),
        mention("e", "imf", "IMF", "ORG"),
        mention("e", "bretton-woods", "Bretton Woods", "GPE"),
    ]
    merged = resolve(keys_of(rows))
    assert merged.of("p:second-world-war") == "p:world-war-ii"
    assert "say the same number" in merged.reasons["p:second-world-war"]
    assert merged.of("p:de-niro") == "p:robert-de-niro"
    assert "without the first name" in merged.reasons["p:de-niro"]
    assert merged.of("p:imf") == "p:international-monetary-fund"
    assert "the graph's only expansion" in merged.reasons["p:imf"]


def test_across_documents_names_without_shared_context_or_a_single_full_form_stay_apart() -> None:
    """Across documents: a surname or acronym whose only shared neighbour is a hub (in more documents than the
    graph's hub cut, here 2), a surname of two graph persons, an acronym of two expansions, different numbers,
    a one-word name beside a numeral ("Apple II"), and a one-word place ("Hungary", "London") stay apart."""
    hub = [mention(doc, "united-states", "United States", "GPE") for doc in "abcdefg"]
    rows = [
        *hub,
        mention("a", "anthony-van-dyck", "Anthony van Dyck", "PERSON", 2),
        mention("b", "van-dyck", "Van Dyck", "PERSON"),
        mention("c", "anna-maria-smith", "Anna Maria Smith", "PERSON"),
        mention("c", "joan-maria-smith", "Joan Maria Smith", "PERSON"),
        mention("c", "oxford", "Oxford", "GPE"),
        mention("d", "maria-smith", "Maria Smith", "PERSON"),
        mention("d", "oxford", "Oxford", "GPE"),
        mention("d", "national-basketball-association", "National Basketball Association", "ORG"),
        mention("e", "nba", "NBA", "ORG"),
        mention("e", "oxford", "Oxford", "GPE"),
        mention("g", "new-bedford-academy", "New Bedford Academy", "ORG"),
        mention("f", "world-war-i", "World War I", "EVENT"),
        mention("g", "second-world-war", "Second World War", "EVENT"),
        mention("f", "apple-ii", "Apple II", "PRODUCT"),
        mention("g", "second-apple", "Second Apple", "PRODUCT"),
        mention("f", "hungary", "Hungary", "GPE"),
        mention("g", "kingdom-of-hungary", "Kingdom of Hungary", "GPE"),
        mention("f", "london", "London", "GPE"),
        mention("g", "city-of-london", "City of London", "GPE"),
    ]
    merged = resolve(keys_of(rows))
    assert merged.canonical == {key: key for key in merged.canonical}, merged.reasons


DOC_A = (
    "Lisa Su is the chief executive of AMD. AMD designs processors in Santa Clara. "
    "Lisa Su studied electrical engineering at MIT."
)
DOC_B = (
    "Lisa Sus team spoke about chips and Taiwan. Lisa said TSMC builds them for her company. "
    "Lisa later talked about graphics cards with Kevin Scott."
)


def test_an_incremental_run_merges_into_the_stored_person_and_remove_undoes_it(
    graph,  # noqa: F811
    embedder,
    tmp_path: Path,
) -> None:
    settings, store = graph
    folder = write_corpus(tmp_path / "corpus", {"a.txt": DOC_A})
    run_index(settings, store, embedder, [folder], project="p")
    before = entity(store, "p:lisa-su")
    assert before is not None and not before["aliases"]
    write_corpus(folder, {"b.txt": DOC_B})
    run_index(settings, store, embedder, [folder], project="p")
    after = entity(store, "p:lisa-su")
    assert after is not None
    assert "Lisa Sus" in after["aliases"]  # type: ignore[operator]
    assert any("possessive or plural form of Lisa Su" in r for r in after["reasons"])  # type: ignore[union-attr]
    assert entity(store, "p:lisa-sus") is None and entity(store, "p:lisa") is None
    assert int(after["chunks"]) > int(before["chunks"])  # type: ignore[call-overload]
    remove_document(settings, store, embedder, "corpus/b.txt", project="p")
    undone = entity(store, "p:lisa-su")
    assert undone is not None and not undone["aliases"] and not undone["reasons"]
    assert undone["chunks"] == before["chunks"]
    run_index(settings, store, embedder, [folder], project="p")  # b again, then a removed
    remove_document(settings, store, embedder, "corpus/a.txt", project="p")
    alone = entity(store, "p:lisa-sus")
    assert alone is not None and alone["title"] == "Lisa Sus", "without document A there is no Lisa Su"


MILLERS = {
    "a.txt": "Kevin Miller played guard for the Tigers. His brother Tim Miller sang in a choir in Ohio. "
    "The coach said Miller later moved to Houston to study business.",
    "b.txt": "Kevin Miller coached the Wings in Detroit. Ryan Miller kept goal for the Sabres in Buffalo. "
    "Fans said Miller played well against Boston.",
}


def test_a_surname_alone_beside_several_full_names_with_it_joins_none_of_them(
    graph,  # noqa: F811
    embedder,
    tmp_path: Path,
) -> None:
    """On both backends: "Miller" alone in two documents that each name Kevin Miller and another Miller is no
    evidence for Kevin (issue #25: MuSiQue's "Miller" of Master P and of Ryan Miller joined Kevin Miller), while a
    surname beside one full name with it still joins that person."""
    settings, store = graph
    folder = write_corpus(tmp_path / "corpus", MILLERS)
    run_index(settings, store, embedder, [folder], project="p")
    assert entity(store, "p:miller") is not None, "Miller alone stays its own entity"
    kevin = entity(store, "p:kevin-miller")
    assert kevin is not None and "Miller" not in kevin["aliases"]  # type: ignore[operator]
    names = {"a": ["Kevin Miller", "Miller"], "b": ["Kevin Miller", "Tim Miller", "Miller"]}
    rows = [mention(doc, slug(name), name, "PERSON") for doc, written in names.items() for name in written]
    assert resolve(keys_of(rows)).of("p:miller") == "p:kevin-miller", "Kevin alone with it in a, half its documents"


def test_an_everyday_word_that_ends_one_longer_name_is_that_name_shortened() -> None:
    """ "the Valley" in a conversation about "Silicon Valley" is Silicon Valley; "Research" beside two longer
    names ending in it, a name in no shared document, a different type, a rarer word and a last word the others
    do not qualify ("City of London") stay apart."""
    rows = [
        mention("a", "silicon-valley", "Silicon Valley", "LOC", 3),
        mention("a", "valley", "Valley", "LOC", 2),
        mention("b", "microsoft-research", "Microsoft Research", "ORG", 2),
        mention("b", "google-research", "Google Research", "ORG", 2),
        mention("b", "research", "Research", "ORG"),
        mention("c", "windows", "Windows", "ORG", 2),
        mention("d", "microsoft-windows", "Microsoft Windows", "ORG"),
        mention("e", "brain", "Brain", "ORG"),
        mention("e", "brain-valley", "Brain Valley", "LOC"),
        mention("f", "hungary", "Hungary", "GPE"),
        mention("f", "kingdom-of-hungary", "Kingdom of Hungary", "GPE"),
        mention("g", "london", "London", "GPE", 3),
        mention("g", "city-of-london", "City of London", "GPE"),
    ]
    merged = resolve(keys_of(rows))
    assert merged.of("p:valley") == "p:silicon-valley"
    assert "Valley is Silicon Valley shortened" in merged.reasons["p:valley"]
    for key in ("research", "windows", "brain", "hungary", "london"):
        assert merged.of(f"p:{key}") == f"p:{key}", (key, merged.reasons)


SHORTENED = (
    "Maria Lopez moved to Silicon Valley in 1990 to start a company. Maria Lopez said the Valley rewarded risk. "
    "Maria Lopez still lives in the Valley with her family."
)


def test_a_shortened_name_is_an_alias_of_the_longer_name_in_the_graph(
    graph,  # noqa: F811
    embedder,
    tmp_path: Path,
) -> None:
    """On both backends: "the Valley" of a conversation about "Silicon Valley" is one node, the longer name, with
    "Valley" among its aliases and the reason kept."""
    settings, store = graph
    folder = write_corpus(tmp_path / "corpus", {"a.txt": SHORTENED})
    run_index(settings, store, embedder, [folder], project="p")
    whole = entity(store, "p:silicon-valley")
    assert whole is not None
    assert "Valley" in whole["aliases"]  # type: ignore[operator]
    assert any("shortened" in r for r in whole["reasons"])  # type: ignore[union-attr]
    assert entity(store, "p:valley") is None


def test_a_passages_formal_name_class_word_plural_and_word_order_join_the_short_name() -> None:
    """An encyclopaedia passage introduces a thing by one name and uses another: a state's formal name ("Republic
    of Cuba"), a feature without its class word ("Atlantic"), an adjective's plural for it and its noun
    ("Olympics" and "Olympic Games"), the same words reordered. Each joins the other form of a shared document,
    with its reason."""
    rows = [
        mention("a", "cuba", "Cuba", "GPE", 3),
        mention("a", "republic-of-cuba", "Republic of Cuba", "GPE"),
        mention("b", "atlantic-ocean", "Atlantic Ocean", "LOC", 2),
        mention("b", "atlantic", "Atlantic", "LOC"),
        mention("c", "summer-olympics", "Summer Olympics", "EVENT", 3),
        mention("c", "summer-olympic-games", "Summer Olympic Games", "EVENT"),
        mention("d", "winter-olympic-games", "Winter Olympic Games", "EVENT", 2),
        mention("d", "olympic-winter-games", "Olympic Winter Games", "EVENT"),
        mention("e", "olympic-games", "Olympic Games", "EVENT", 3),
        mention("e", "olympics", "Olympics", "EVENT", 2),
        mention("e", "olympic", "Olympic", "EVENT"),
    ]
    merged = resolve(keys_of(rows))
    assert merged.of("p:republic-of-cuba") == "p:cuba"
    assert "Republic of Cuba is the formal name of Cuba (both in 1 document)" in merged.reasons["p:republic-of-cuba"]
    assert merged.of("p:atlantic") == "p:atlantic-ocean"
    assert "without its class word" in merged.reasons["p:atlantic"]
    assert merged.of("p:summer-olympic-games") == "p:summer-olympics"
    assert "in the plural" in merged.reasons["p:summer-olympic-games"]
    assert merged.of("p:olympic-winter-games") == "p:winter-olympic-games"
    assert "in another order" in merged.reasons["p:olympic-winter-games"]
    # "Olympic" joined "Olympics" first; the reason "Olympics" keeps is its own join, not that one
    assert merged.of("p:olympics") == merged.of("p:olympic") == "p:olympic-games"
    assert "Olympics is Olympic Games in the plural" in merged.reasons["p:olympics"]
    assert "possessive or plural form of Olympics" in merged.reasons["p:olympic"]


def test_a_former_state_another_state_a_river_town_and_a_people_stay_apart() -> None:
    """The guards: "Kingdom of Hungary" is a former state; "Republic of China" is also the end of "People's
    Republic of China", so "Republic of" names two states there (ISO 3166 joins the People's Republic to China,
    and Taiwan's record is not "Republic of China"); a formal name in no document with the short one and no ISO
    country has no evidence ("State of Mississippi"); a town named after its river is a place, not the feature ("San
    Antonio" GPE beside "San Antonio River"); "Africans" are not "African Americans" (only class nouns such as
    "Games" read as the plural); numbers differ ("1936" and "1940 Summer Olympics", "World War I" and "II")."""
    rows = [
        mention("a", "hungary", "Hungary", "GPE", 2),
        mention("a", "kingdom-of-hungary", "Kingdom of Hungary", "GPE"),
        mention("b", "china", "China", "GPE", 3),
        mention("b", "republic-of-china", "Republic of China", "GPE"),
        mention("c", "peoples-republic-of-china", "People's Republic of China", "GPE"),
        mention("d", "mississippi", "Mississippi", "GPE", 2),
        mention("e", "state-of-mississippi", "State of Mississippi", "GPE"),
        mention("f", "san-antonio", "San Antonio", "GPE", 2),
        mention("f", "san-antonio-river", "San Antonio River", "GPE"),
        mention("g", "africans", "Africans", "NORP", 2),
        mention("g", "african-americans", "African Americans", "NORP"),
        mention("h", "1940-summer-olympics", "1940 Summer Olympics", "EVENT"),
        mention("h", "summer-olympics", "Summer Olympics", "EVENT", 2),
        mention("h", "1936", "1936", "DATE"),
        mention("h", "world-war-i", "World War I", "EVENT"),
        mention("h", "world-war-ii", "World War II", "EVENT"),
    ]
    merged = resolve(keys_of(rows))
    joined = {key: head for key, head in merged.canonical.items() if key != head}
    assert joined == {"p:peoples-republic-of-china": "p:china"}, merged.reasons


CUBA = (
    "Cuba, officially the Republic of Cuba, is an island country in the Caribbean. Havana is the capital of Cuba. "
    "Havana hosted athletes before the Summer Olympics; the Summer Olympic Games of 1904 had few Cuban athletes."
)


def test_a_formal_name_and_a_plural_name_are_aliases_of_one_node_in_the_graph(
    graph,  # noqa: F811
    embedder,
    tmp_path: Path,
) -> None:
    """On both backends: a passage's formal name and its plural form of an event are one node each with the other
    name, with the reason kept (the explorer lists a node's aliases)."""
    settings, store = graph
    folder = write_corpus(tmp_path / "corpus", {"cuba.txt": CUBA})
    run_index(settings, store, embedder, [folder], project="p")
    cuba = entity(store, "p:cuba")
    assert cuba is not None and entity(store, "p:republic-of-cuba") is None
    assert "Republic of Cuba" in cuba["aliases"]  # type: ignore[operator]
    assert any("formal name of Cuba" in r for r in cuba["reasons"])  # type: ignore[union-attr]
    shown = node_details(Context(settings, store, embedder, None, "p"), "p:cuba")
    assert shown is not None and "Republic of Cuba" in shown.aliases
    assert any("formal name of Cuba" in r for r in shown.merge_reasons)
    games = [entity(store, f"p:{key}") for key in ("summer-olympics", "summer-olympic-games")]
    kept = [e for e in games if e is not None]
    assert len(kept) == 1, games
    assert {"Summer Olympics", "Summer Olympic Games"} == {kept[0]["title"], *kept[0]["aliases"]}  # type: ignore[misc]
    assert any("in the plural" in r for r in kept[0]["reasons"])  # type: ignore[union-attr]


PLACE_AS_PERSON = {
    "a.txt": "PNG Air is an airline based at Jacksons International Airport, Port Moresby, Papua New Guinea. It flies.",
    "b.txt": "The Diocese of Kundiawa is a diocese located in the city of Kundiawa in Papua New Guinea.",
}


def test_a_name_typed_a_person_in_as_many_passages_as_a_place_is_the_place(
    graph,  # noqa: F811
    embedder,
    tmp_path: Path,
) -> None:
    """On both backends: the model types "Papua New Guinea" a person in a passage that says nothing of it and a
    country in another; the tie across documents goes to the place (it went to PERSON, whose name sorts last).
    A tie between a person and a thing that is no place keeps the old order, and a majority decides as ever."""
    assert graph_type(Counter({"PERSON": 2, "GPE": 2})) == "GPE"
    assert graph_type(Counter({"PERSON": 2, "ORG": 2})) == "PERSON"
    assert graph_type(Counter({"PERSON": 3, "LOC": 2})) == "PERSON"
    settings, store = graph
    folder = write_corpus(tmp_path / "corpus", PLACE_AS_PERSON)
    run_index(settings, store, embedder, [folder], project="p")
    rows = store.query("MATCH (e:__Entity__ {id: 'p:papua-new-guinea'}) RETURN e.type AS type")
    assert [row["type"] for row in rows] == ["GPE"]
