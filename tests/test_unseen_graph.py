"""benchmarks/unseen_graph.py's episode draw: none of the demo's episodes and no compilation, the same each time."""

from __future__ import annotations

from benchmarks.unseen_graph import pick_episodes
from scripts.build_demo_data import EPISODES


def test_draw_leaves_out_the_demo_and_compilations_and_repeats() -> None:
    names = [*EPISODES, "EP-17_ Podcast_2019-Year_In_Review", "Ep-60_Podcast_2023_Year_in_Review"]
    names += [f"EP-{n}_ Guest_{n}" for n in range(70, 90)]
    chosen = pick_episodes(names, seed=102, count=10)
    assert len(chosen) == len(set(chosen)) == 10
    assert all(name.startswith("EP-") and "Guest" in name for name in chosen)
    assert chosen == pick_episodes(list(reversed(names)), seed=102, count=10)
    assert chosen != pick_episodes(names, seed=103, count=10)


def test_a_smaller_draw_leaves_out_every_episode_the_earlier_draws_took() -> None:
    # Earlier draws are re-drawn at their own size: a draw of 4 re-drawing seed 102 with 4 would leave 6 of its
    # episodes among the candidates (seed 111's first build of the last four episodes drew three of seed 102's).
    names = [f"EP-{n}_ Guest_{n}" for n in range(70, 94)]
    taken = set(pick_episodes(names, seed=102, count=10)) | set(pick_episodes(names, 103, 10, (102,)))
    chosen = pick_episodes(names, seed=111, count=4, exclude=(102, 103))
    assert len(chosen) == 4
    assert not taken & set(chosen)
