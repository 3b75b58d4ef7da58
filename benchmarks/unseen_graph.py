"""A graph of podcast episodes the demo does not hold: a held-out check of the entity rules on the same kind of
text, from episodes nobody wrote a rule from (issue #25).

Which episodes: `random.Random(seed).sample` of the archive's episodes, sorted by name, less the demo's 11 and the
year-in-review compilations (their clips repeat other episodes, the demo's guests among them); chosen before any
output of them is read. Built offline under benchmarks/.cache/unseen-SEED/ as demo_graph.py builds the demo graph
(the same indexer, embedder and settings; incremental, so a second run writes nothing).

A second draw excludes the first's episodes too (`--exclude-seed 102`: the 10 episodes seed 102 picks are left
out before seed 103 samples), so a graph whose groups became tuning data never leaks into the next held-out one. A
third names both in the order they were drawn (`--seed 104 --exclude-seed 102 --exclude-seed 103`): seed 103's
episodes are re-drawn as that run drew them, without seed 102's.

Usage: nice -n 19 python benchmarks/unseen_graph.py [--seed 102] [--episodes 10] [--exclude-seed 102 ...]
       (four draws of 10 leave 4 episodes: `--seed 111 --episodes 4 --exclude-seed 102 ... --exclude-seed 105`)
       then: python benchmarks/graph_quality.py --graph benchmarks/.cache/unseen-102/graph.db --project unseen ...
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.corpus import ARCHIVE
from benchmarks.demo_graph import open_graph
from benchmarks.eval_data import CACHE
from scripts.build_demo_data import EPISODES, _slug, episode_texts

PROJECT = "unseen"
#: Compilations of other episodes' clips: not text nobody wrote a rule from.
COMPILATION = re.compile(r"(?i)year.?in.?review")
#: Episodes of every earlier draw (`--exclude-seed`): a smaller draw re-draws them at this size, as they were run,
#: not at its own (a draw of 4 re-drawing seed 102 with 4 would leave 6 of 102's episodes in).
DRAWN = 10


def pick_episodes(
    names: list[str], seed: int, count: int, exclude: tuple[int, ...] = (), drawn: int = DRAWN
) -> list[str]:
    """`count` episodes of `names` drawn by `seed`, none of the demo's, no compilation and none an earlier draw
    (`exclude`: its seeds in the order they were drawn, each excluding the seeds before it, as it was run, each of
    `drawn` episodes) holds; sorted."""
    taken = {name for at, earlier in enumerate(exclude) for name in pick_episodes(names, earlier, drawn, exclude[:at])}
    candidates = sorted(n for n in names if n not in EPISODES and not COMPILATION.search(n) and n not in taken)
    return sorted(random.Random(seed).sample(candidates, count))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=102)
    parser.add_argument("--episodes", type=int, default=10)
    parser.add_argument("--exclude-seed", type=int, action="append", default=[], help="an earlier draw's seed")
    args = parser.parse_args()
    texts = episode_texts(ARCHIVE, episodes=None)
    chosen = pick_episodes(list(texts), args.seed, args.episodes, tuple(args.exclude_seed))
    folder = CACHE / f"unseen-{args.seed}"
    source = folder / "episodes"
    source.mkdir(parents=True, exist_ok=True)
    for name in chosen:
        print(f"  episode: {name}", file=sys.stderr)
        (source / f"{_slug(name)}.txt").write_text(texts[name], encoding="utf-8")
    started = time.perf_counter()
    store, _settings = open_graph(folder, sorted(source.glob("*.txt")), PROJECT)
    store.close()
    print(
        f"  built {folder / 'graph.db'} in {time.perf_counter() - started:.0f} s (wall, open + index)", file=sys.stderr
    )


if __name__ == "__main__":
    main()
