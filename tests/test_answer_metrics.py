"""The answer benchmark's own rules (benchmarks/answer_metrics.py): filler, gold matching, outcome, AUROC, bins.

Why tested: the product is tuned against these figures, so a rule that drifted (a filler rule that flags gold
sentences, a match that credits "Thank you.") would reward the wrong answers. No graph needed.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from benchmarks import fit_confidence
from benchmarks.answer_metrics import (
    NOT_IN_DOCUMENTS,
    Judged,
    auroc,
    confidence_figures,
    episode_recall,
    hit,
    is_filler,
    matches,
    outcome,
    source,
    words,
)
from benchmarks.unanswerable import Gold, half, is_correct, read_golds, relabel
from retrieval.judge import answerability
from retrieval.models import Answer, Confidence, ConfidencePart, Hit, KeyFact

QUESTIONS = Path(__file__).resolve().parents[1] / "benchmarks" / "data" / "demo_questions.jsonl"


@pytest.mark.parametrize(
    "line",
    [
        "Thank you so much, Kevin.",  # the key facts that were filler
        "LISA SU: Oh, it’s great to be here with you, Kevin. Thanks for having me.",
        "Behind the Tech with Kevin Scott Podcast Episode 52 – Bill Gates",
        "Helios Labs research note",
        "Good luck to your book.",
        "It's never too late.",
        "that does it for us for this episode",
        "KEVIN SCOTT: Yeah.",
        "Thank you so much for taking time out of your very busy schedule to do this with us today.",
    ],
)
def test_greetings_thanks_backchannels_signoffs_and_headings_are_filler(line: str) -> None:
    assert is_filler(line)


def test_no_gold_evidence_sentence_is_filler() -> None:
    """Otherwise the filler target and the hit target would pull against each other."""
    rows = [json.loads(line) for line in QUESTIONS.read_text(encoding="utf-8").splitlines() if line.strip()]
    flagged = [(r["id"], e["sentence"]) for r in rows for e in r["evidence"] if is_filler(e["sentence"])]
    assert not flagged
    assert not is_filler("Xerox had made lots of money on copying machines.")  # a wrong answer, not filler


def test_a_clipped_gold_sentence_matches_and_a_greeting_does_not() -> None:
    gold = (
        "So I think education is the most interesting application, and I think health is the second most interesting."
    )
    assert matches("BILL GATES: So I think education is the most interesting application", gold)
    assert not matches("Xerox had made lots of money on copying machines.", gold)
    assert not matches("Thank you.", "Thank you so much for joining me today.")  # too short to match anything
    assert hit(["Thank you so much, Kevin.", "x y z", "a b c", "d e f", "g h i", gold], [gold]) is False  # 6th fact
    assert hit(["Thank you so much, Kevin.", gold], [gold])


def test_a_fact_comes_from_the_episode_it_matches_best_and_recall_counts_gold_episodes() -> None:
    """Episode recall credits the episodes the facts were read from: a clipped sentence is traced to its episode,
    a line said alike in two episodes (or one matching nothing) to none, and a gold episode counts once."""
    passages = {
        "ep-a": [words("I played bluegrass on a stage in Tokyo with some folks."), words("Thank you so much.")],
        "ep-b": [words("Robotics has gone a little slower than I would have expected."), words("Thank you so much.")],
    }
    assert source("BILL GATES: robotics has gone a little slower than expected", passages) == "ep-b"
    assert source("Thank you so much, Kevin.", passages) is None  # both episodes say it
    assert source("Quantum computers factor large numbers.", passages) is None
    facts = ["I played bluegrass on a stage in Tokyo.", "played bluegrass in Tokyo with some folks", "Thanks."]
    assert episode_recall(facts, ["ep-a", "ep-b"], passages) == 0.5
    assert episode_recall([*facts, "Robotics has gone a little slower."], ["ep-a", "ep-b"], passages) == 1.0
    assert episode_recall([*facts[:1] * 5, "Robotics has gone a little slower."], ["ep-a", "ep-b"], passages) == 0.5


def test_outcome_reads_the_new_field_and_the_old_flag() -> None:
    answered = Answer(question="q", mode="local", answered_by="extractive")
    assert outcome(answered) == "answered"
    assert outcome(Answer.empty("q", "local", "extractive")) == NOT_IN_DOCUMENTS
    flagged = answered.model_copy()
    object.__setattr__(flagged, "outcome", NOT_IN_DOCUMENTS)  # the field the product is getting
    assert outcome(flagged) == NOT_IN_DOCUMENTS


def test_auroc_and_the_confidence_figures() -> None:
    assert auroc([0.9, 0.8], [0.1, 0.2]) == 1.0
    assert auroc([0.5], [0.5]) == 0.5
    assert auroc([], [0.1]) is None
    judged = [
        Judged(answerable=True, correct=True, flagged=False, score=0.9),
        Judged(answerable=True, correct=True, flagged=True, score=0.95),  # flagged: ranks below every answered one
        Judged(answerable=True, correct=False, flagged=False, score=0.7),
        Judged(answerable=False, correct=False, flagged=True, score=0.2),
        Judged(answerable=False, correct=False, flagged=False, score=0.85),
    ]
    fig = confidence_figures(judged)
    assert fig.auroc == pytest.approx((3 + 1) / 6)  # 0.9 beats all three; flagged 0.95-1 beats only 0.2-1
    assert fig.unanswerable_flagged == 0.5 and fig.correct_flagged == 0.5
    bins = {label: (n, acc) for label, n, _mean, acc in fig.reliability}
    assert bins == {"0.6-0.8": (1, 0.0), "0.8-1.0": (2, 0.5)}


def test_the_fitted_threshold_flags_at_most_a_tenth_of_each_modes_right_answers() -> None:
    """Pooled, drift's well-scored right answers let local's be flagged beyond 10%; a mode with too few right
    answers to hold a share of (global, eleven right answers) is left out rather than setting the cut by its
    second-lowest score."""
    local = [0.41, 0.42, 0.43, 0.44, 0.45, 0.46, *[0.7] * 24]  # thirty right answers: three may be flagged
    scores = np.array([*local, *[0.8] * 30])
    labels = np.ones(60)
    modes = np.array(["local"] * 30 + ["drift"] * 30)
    assert fit_confidence._cut(scores, labels) == 0.7  # pooled: flags six of sixty, all local's (a fifth of them)
    assert fit_confidence.threshold(scores, labels, modes) == 0.44  # flags 0.41-0.43 only
    eleven = [0.1, 0.21, *[0.9] * 9]  # with "enough for one flagged" the cut would be 0.21
    with_global = (np.append(scores, eleven), np.append(labels, np.ones(11)), np.append(modes, ["global"] * 11))
    assert fit_confidence.threshold(*with_global) == 0.44
    only_global = (with_global[0][60:], with_global[1][60:], with_global[2][60:])
    assert fit_confidence.threshold(*only_global) == 0.21  # no mode has thirty: pooled


def test_a_dev_set_run_splits_into_alternating_halves() -> None:
    """The HotpotQA confidence run's halves: even places tune the model, odd places report on it."""
    assert [half(i) for i in range(4)] == ["tune", "test", "tune", "test"]


def test_the_fit_reads_the_demo_splits_joined_by_plus_and_no_other(tmp_path: Path) -> None:
    """`fit_confidence.py --split dev+test4` fits on both parts; a held-out part's answers saved in the same file
    (test5 here) stay out of the fit."""
    rows = [json.loads(line) for line in QUESTIONS.read_text(encoding="utf-8").splitlines() if line.strip()]
    chosen = [next(r for r in rows if r["split"] == split) for split in ("dev", "test4", "test5")]
    saved = tmp_path / "answers.jsonl"
    lines = [
        json.dumps(
            {
                "id": r["id"],
                "answer": Answer(question=r["question"], mode="local", answered_by="extractive").model_dump(
                    mode="json"
                ),
            }
        )
        for r in chosen
    ]
    saved.write_text("\n".join(lines) + "\n", encoding="utf-8")
    examples = fit_confidence.collect("dev+test4", ["local"], saved)
    assert [e.qid for e in examples] == [chosen[0]["id"], chosen[1]["id"]]
    assert [e.qid for e in fit_confidence.collect("test5", ["local"], saved)] == [chosen[2]["id"]]


def test_a_saved_dev_set_run_adds_its_tune_half_only(tmp_path: Path) -> None:
    """`fit_confidence.py --with RUN` fits on the tune half, labelled as the run judged it, tagged by corpus (so
    the threshold holds the share flagged on each corpus apart); the test half stays out of the fit."""
    rows = []
    for i, (part, answerable, correct) in enumerate(
        [("tune", True, True), ("test", True, True), ("tune", False, False)]
    ):
        answer = Answer(question=f"Who founded the company number {i}?", mode="local", answered_by="extractive")
        row = {"id": f"q{i}", "part": part, "answerable": answerable, "correct": correct}
        rows.append(json.dumps({**row, "answer": answer.model_dump(mode="json")}))
    run = tmp_path / "hotpot.jsonl"
    run.write_text("\n".join(rows) + "\n", encoding="utf-8")
    x, y, unanswerable, modes, ids = fit_confidence.stacked(fit_confidence.collect_run(run))
    assert ids == ["hotpot:q0", "hotpot:q2"]
    assert y.tolist() == [1.0, 0.0] and unanswerable == [False, True]
    assert modes.tolist() == ["local (hotpot)"] * 2 and x.shape == (2, len(fit_confidence.SIGNALS))


EWALD = "Dr. Reinhold Ewald (born December 18, 1956) is a German physicist and ESA astronaut."
MESSERSCHMID = "Prof. Dr. Ernst Willi Messerschmid (born May 21, 1945) is a German physicist and former astronaut."
#: HotpotQA's "Were both Ernst Messerschmid and Reinhold Ewald ESA astronauts?" (gold "no"), its supporting sentences.
ASTRONAUTS = Gold(["no"], [MESSERSCHMID, EWALD])


def test_a_yes_or_no_question_is_right_when_its_facts_hold_every_supporting_sentence() -> None:
    """No quote contains "yes" or "no": such an answer is judged by the sentences a reader needs to say it."""
    other = "Carl Anton Ewald (30 October 1845 - 20 September 1915) was a German gastroenterologist."
    assert is_correct([EWALD, MESSERSCHMID, other], ASTRONAUTS)
    assert is_correct(["is a German physicist and ESA astronaut.", MESSERSCHMID], ASTRONAUTS)  # clipped still matches
    assert not is_correct([EWALD, other], ASTRONAUTS)  # one of the two sentences: not enough to say no
    # "no" in a fact is not the answer (Joe Walsh's album with "no text below the photo" was called right before)
    assert not is_correct(["The cover has no text below the photo.", EWALD], ASTRONAUTS)
    assert not is_correct([EWALD], Gold(["yes"], []))  # nothing says what would answer it
    # any other gold answer: the facts contain it, supporting sentences or not
    rush = Gold(["Rush"], ["Counterparts is a song by Rush."])
    assert is_correct(["Neil Peart was the drummer of Rush."], rush)
    assert not is_correct(["Counterparts is a song by a Canadian band."], rush)


def test_golds_read_the_supporting_sentences_and_saved_runs_are_relabelled(tmp_path: Path) -> None:
    """`read_golds` takes (title, index) into the row's context, skipping an index past its passage; `relabel`
    rewrites each answerable row's label in place and counts the moves."""
    row = {
        "_id": "q1",
        "answer": "no",
        "supporting_facts": [["Ewald", 0], ["Messerschmid", 0], ["Messerschmid", 7]],
        "context": [["Messerschmid", [MESSERSCHMID, " He flew on D1."]], ["Ewald", [EWALD]]],
    }
    data = tmp_path / "hotpot.jsonl"
    data.write_text(json.dumps(row) + "\n", encoding="utf-8")
    golds = read_golds(data)
    assert golds == {"q1": Gold(["no"], [EWALD, MESSERSCHMID])}
    saved = tmp_path / "run.jsonl"
    rows = []
    for qid, answerable, facts in [("q1", True, [MESSERSCHMID, EWALD]), ("musique:x", False, [EWALD])]:
        answer = Answer(question="Were both ESA astronauts?", mode="local", answered_by="extractive")
        answer.key_facts = [KeyFact(fact=f, citations=[]) for f in facts]
        rows.append({"id": qid, "part": "tune", "answerable": answerable, "correct": False, "answer": answer})
    saved.write_text("".join(json.dumps({**r, "answer": r["answer"].model_dump(mode="json")}) + "\n" for r in rows))
    assert relabel(golds, saved) == (2, 1, 0)
    assert [json.loads(line)["correct"] for line in saved.read_text().splitlines()] == [True, False]


def test_an_answer_saved_before_slips_were_read_is_refitted_with_them() -> None:
    """Its recorded `exists` counted the slip "whiich" missing (three of four words held): the fit reads four of
    four; an answer saved with the rule (its detail names the slip) is read as recorded."""
    answer = Answer(question="Whiich physicist discovered polonium?", mode="local", answered_by="extractive")
    answer.evidence = [Hit(id="c", text="Marie Curie, which physicist discovered polonium.", score=1.0)]
    detail = "of 4 asked-about words"
    answer.confidence = Confidence(
        score=0.2, parts=[ConfidencePart(name="exists", label="", value=0.75, detail=detail)]
    )
    assert fit_confidence._respelt(answer) == {"exists": 1.0, "complete": 1.0}
    answer.confidence.parts[0].detail = f"{detail}; {answerability.SLIPPED} “whiich” as “which”"
    assert fit_confidence._respelt(answer) == {}
