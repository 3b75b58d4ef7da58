"""The offline extractor's span repairs (issue #25, branches wt212 and wt223): names cut at an infobox's field
labels, names cut short after "of" or "No." carried over the words that finish them, backquotes stripped, a person's
given names the model left out taken back in. Extraction only, no store."""

from __future__ import annotations

from spacy.tokens import Span

from retrieval.indexing.chunking import chunk_text
from retrieval.indexing.extract_offline import _clean, extract_document
from retrieval.indexing.infobox import cells
from retrieval.indexing.name_edges import completed, coordinated, numbered
from retrieval.indexing.name_starts import begun
from retrieval.text.nlp import nlp

INFOBOX = (
    "Iron Maiden (album)\n\n"
    "Iron Maiden Studio album by Iron Maiden Released 14 April 1980 Recorded January 1980 Studio Kingsway "
    "Studios, London, England Genre Heavy metal Length 39 : 11 Label EMI Producer Will Malone. Iron Maiden is the "
    "debut studio album by the English heavy metal band Iron Maiden."
)


def _words(text: str, words: str) -> Span:
    """`words` in the parsed `text` as a span, whatever the model made of them."""
    doc = nlp()(text)
    start = text.index(words)
    span = doc.char_span(start, start + len(words))
    assert span is not None
    return span


def test_an_infobox_name_is_cut_at_its_field_labels() -> None:
    """ "Iron Maiden Studio album", "Gifu Dates 28 October": a label run into the value beside it is two cells."""
    assert [s.text for s in cells(_words(INFOBOX, "Iron Maiden Studio"))] == ["Iron Maiden"]
    gifu = "Host country Japan City Kakamigahara, Gifu Dates 28 October Teams 8 Venue (s) 1 Top three teams"
    assert [s.text for s in cells(_words(gifu, "Gifu Dates"))] == ["Gifu"]
    assert [s.text for s in cells(_words(gifu, "Teams 8 Venue"))] == ["8"]
    keys = {m.key for chunk in extract_document(INFOBOX, chunk_text(INFOBOX, 256, 0.15)) for m in chunk.mentions}
    assert "iron-maiden" in keys
    assert not {key for key in keys if key.endswith("-studio") or key.startswith(("released", "genre", "label"))}


def test_label_words_outside_an_infobox_stay_in_names() -> None:
    """Prose writes the same words as parts of names ("Studio Ghibli"); only an infobox's labels cut a name."""
    prose = "Studio Ghibli released the film in 1988, and its Genre was hard to name."
    span = _words(prose, "Studio Ghibli")
    assert cells(span) == [span]


def test_a_name_cut_after_of_or_no_is_finished_or_dropped() -> None:
    """ "Grand Army of" is "Grand Army of the Republic", "Municipal District of Badlands No." is "... No. 7";
    "Mother Church of the worldwide ..." has no capitalised words to finish it: no name."""
    army = _words("Most influential was the Grand Army of the Republic, founded in 1866.", "Grand Army of")
    assert (whole := completed(army)) is not None and whole.text == "Grand Army of the Republic"
    badlands = _words("It was a hamlet within the Municipal District of Badlands No. 7 then.", "Badlands No.")
    assert (whole := completed(badlands)) is not None and whole.text == "Badlands No. 7"
    church = "It is the Mother Church of the worldwide Anglican Communion."
    assert completed(_words(church, "Mother Church of the")) is None
    assert completed(_words(church, "the Mother Church of the")) is None  # the model's span opens with "the"
    whole_name = _words("He joined the Grand Army of the Republic.", "Grand Army of the Republic")
    assert completed(whole_name) == whole_name


def test_a_cut_name_is_not_carried_into_the_next_name() -> None:
    """Carried on, a cut name would run two names together: a span ending with a joining word ("to", "and") is
    dropped, and so is one whose link leads into another link or into more capitalised words than a name's."""
    trade = "Trade runs from Burkina Faso to South Africa by road."
    assert completed(_words(trade, "Burkina Faso to")) is None
    chain = "Directorate of Administration Directorate of Counter Terrorism Directorate of Logistics"
    assert completed(_words(chain, "Directorate of")) is None
    cells = "Province of Canada Leadership Lieutenant Governor Hon. Sir Edmund Head"
    assert completed(_words(cells, "Province of")) is None
    assert completed(_words("Rain fell west of Carolina today.", "west of")) is not None  # lower case: left as it was


def test_backquotes_are_quote_marks() -> None:
    """Encyclopaedia dumps quote with backquotes: ``First Family of Soul''."""
    assert _clean("``First Family of Soul") == "First Family of Soul"


def _person(text: str, words: str) -> Span:
    """`words` in the parsed `text` as a span the model typed PERSON."""
    span = _words(text, words)
    return Span(span.doc, span.start, span.end, label="PERSON")


def test_a_person_cut_after_the_given_names_is_taken_back_over_them() -> None:
    """The model keeps "Jiménez Castellanos" of "Adolfo Jiménez Castellanos": given names right before a span of
    surnames are the rest of the name."""
    adolfo = "Adolfo Jiménez Castellanos (1844 – January 18, 1929) was a Spanish Governor General of Cuba."
    assert begun(_person(adolfo, "Jiménez Castellanos")).text == "Adolfo Jiménez Castellanos"
    blanca = "Blanca Estela Jiménez Hernández (born 30 November 1964) is a Mexican politician."
    assert begun(_person(blanca, "Jiménez Hernández")).text == "Blanca Estela Jiménez Hernández"
    keys = {m.key for chunk in extract_document(adolfo, chunk_text(adolfo, 256, 0.15)) for m in chunk.mentions}
    assert "jimenez-castellanos" not in keys


def test_a_title_a_role_or_a_longer_name_before_a_person_is_left_out() -> None:
    """A rank, a cast list's role after "as", a span already opening with a given name, a given name after a
    particle of a longer name or a dash: the span stays as the model gave it."""
    for text, words in (
        ("The fleet sailed under Admiral Nelson that year.", "Nelson"),
        ("The film starred Masi Oka as Pilar Jiménez in 2009.", "Jiménez"),
        ("Rodney Nicholas Lyndhurst played him for years.", "Nicholas Lyndhurst"),
        ("She is María del Pilar Pereyra, born in 1960.", "Pereyra"),
        ("The Shipton–Tilman Nanda Devi expeditions took place in 1934.", "Nanda Devi"),
    ):
        span = _person(text, words)
        assert begun(span) == span, text


def test_a_kind_noun_takes_its_complement() -> None:
    """ "Indian Institute" before "of Tropical Meteorology", "Greek Trade Union of Cleaners" before "and
    Housekeepers", "Conseil" before "d'État": the words after the span finish the name (issue #25, wt233)."""
    text = "She worked at the Indian Institute of Tropical Meteorology (IITM) in Pune."
    assert (whole := completed(_words(text, "Indian Institute"))) is not None
    assert whole.text == "Indian Institute of Tropical Meteorology"
    union = "She was secretary of the Greek Trade Union of Cleaners and Housekeepers. She was elected."
    assert (whole := completed(_words(union, "Greek Trade Union of Cleaners"))) is not None
    assert whole.text == "Greek Trade Union of Cleaners and Housekeepers"
    conseil = "Courts sit there, while the Conseil d'État, which provides legal advice, sits in the Palais-Royal."
    assert (whole := completed(_words(conseil, "Conseil"))) is not None and whole.text == "Conseil d'État"


def test_a_complement_is_not_taken_without_a_kind_noun_or_into_another_name() -> None:
    """A person's "of Virginia" is where he is from, and an "and" before a name the model tagged is two names."""
    madison = "Some scholars suggest that Representative James Madison of Virginia led the House."
    span = _words(madison, "James Madison")
    assert completed(span) == span
    doc = nlp()("He studied at the University of Oxford and Cambridge in 1900.")
    oxford = next(ent for ent in doc.ents if ent.text.endswith("Oxford"))
    assert "Cambridge" not in (completed(oxford) or oxford).text
    long_run = "He joined the Union of Cleaners and Great Northern Railway Workers today."
    assert completed(_words(long_run, "Union of Cleaners")).text == "Union of Cleaners"  # type: ignore[union-attr]


def test_a_coordinated_name_is_taken_in_whole() -> None:
    """ "The Liverpool and Manchester Railway": the model's "Manchester Railway" is the end of one line's name; a
    run of capitalised words before "and" is another name, and a name with no kind noun is left alone."""
    railway = "It won the Rainhill Trials. The Liverpool and Manchester Railway opened in 1830."
    assert coordinated(_words(railway, "Manchester Railway")).text == "Liverpool and Manchester Railway"
    two = "He rode the Great Western and Manchester Railway in 1840."
    span = _words(two, "Manchester Railway")
    assert coordinated(span) == span
    people = "It was founded by Smith and John Taylor in 1900."
    span = _words(people, "John Taylor")
    assert coordinated(span) == span


def test_a_noun_chunk_inside_a_name_is_no_topic() -> None:
    """The parse cuts "The Indian Institute" out of the name "the Indian Institute of Tropical Meteorology"; the
    piece is no keyphrase of its own."""
    text = (
        "Indian Institute of Tropical Meteorology\n\nThe Indian Institute of Tropical Meteorology (IITM) is a "
        "scientific institution based in Pune. The Indian Institute of Tropical Meteorology studies the monsoon."
    )
    keys = {m.key for chunk in extract_document(text, chunk_text(text, 256, 0.15)) for m in chunk.mentions}
    assert "indian-institute-of-tropical-meteorology" in keys
    assert "indian-institute" not in keys  # "Tropical Meteorology", after "of", may name a thing of its own


def test_a_word_glued_into_a_compound_does_not_finish_a_name() -> None:
    """ "a member of the House of Habsburg and Commander-in-Chief of the Austrian Navy": "Commander" opens a
    compound, a role, not the end of the house's name (HotpotQA, found after wt233's build)."""
    text = "He was a member of the House of Habsburg and Commander-in-Chief of the Austrian Navy."
    house = _words(text, "House of Habsburg")
    assert completed(house) == house


def test_a_regnal_number_is_part_of_the_name() -> None:
    """ "Manuel" of "Manuel I of Portugal", "Nicholas" of "Nicholas I, Lord": a Roman numeral right after a span is
    the monarch's number (issue #25, wt241, `musique_entity_labels_233.csv`); "I", "V", "X" only before "of X" or
    a closing mark, since "I" is also the pronoun ("Kevin I think")."""
    assert numbered(_words("on the orders of Manuel I of Portugal, four vessels", "Manuel")).text == "Manuel I"
    assert numbered(_words("Nicholas I, Lord of Mecklenburg, died.", "Nicholas")).text == "Nicholas I"
    assert numbered(_words("He served under Charles XIV in Stockholm.", "Charles")).text == "Charles XIV"
    assert numbered(_words("Thanks, Kevin I think so too.", "Kevin")).text == "Kevin"
    assert numbered(_words("He met Henry VIII at court.", "Henry VIII")).text == "Henry VIII"
    text = "Just nine years later in 1497 on the orders of Manuel I of Portugal, four vessels rounded the Cape."
    keys = {m.key for chunk in extract_document(text, chunk_text(text, 256, 0.15)) for m in chunk.mentions}
    assert "manuel-i" in keys and "manuel" not in keys
