"""Rebuild data/demo/ from ../shared/data (run once by a maintainer; the result is committed).

Why a script: the podcast corpus ships as 1,670 overlapping parts whose first line names the
episode; an episode is its parts joined in order with the overlap removed. Keeping the recipe
lets anyone regenerate or change the subset and check nothing was invented.
"""

from __future__ import annotations

import re
import shutil
import sys
import zipfile
from collections import defaultdict
from collections.abc import Collection
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "data" / "demo"
OUT = ROOT / "data" / "demo"

EPISODES = (
    "Ep-52_Behind_the_Tech_Kevin_Scott_Podcast_with_Bill_Gates-qc",
    "Ep-61_Behind_the_Tech_Kevin_Scott_Podcast_with_Lisa_Su",
    "Ep-55_Behind_the_Tech_Kevin_Scott_Podcast_with_Mira_Murati",
    "EP-11_ Behind_the_Tech_Kevin Scott_Podcast_with_Fei-Fei-Li",
    "EP-13_ Behind_the_Tech_Kevin_Scott_Podcast_with_Sam-Altman",
    "EP-03_ Behind_the_Tech_Kevin Scott_Podcast_with_Andrew Ng",
    "EP-28_Behind_the_Tech_Mae-Jemison",
    "EP-24_ Behind_the_Tech_Kevin_Daphne-Koller_CEO_insitro",
    "Ep-54_Behind_the_Tech_Kevin_Scott_Podcast_with_Neil_deGrasse_Tyson_V2",
    "EP-9_ Behind_the_Tech_Kevin Scott_Podcast_with_Reid_Hoffman",
    "Ep-47_Behind_the_Tech_Kevin_Scott_Podcast_with_Sam_Schillace",
)
_PART = re.compile(r"^input/(?P<episode>.+)-part(?P<n>\d+)\.txt$")
#: Characters of the next part's start searched for in the previous part to find the overlap.
_PROBE = 60


def _strip_name_line(text: str, episode: str) -> str:
    """Each part starts with '<episode>.txt' and blanks (the first part also '../') before the text proper."""
    head = f"{episode}.txt"
    body = text[len(head) :].lstrip(" ") if text.startswith(head) else text
    return body.removeprefix("../").lstrip("\n")


def _join(parts: list[str]) -> str:
    joined = parts[0]
    for part in parts[1:]:
        probe = part[:_PROBE]
        where = joined.rfind(probe, max(0, len(joined) - 4 * len(part)))
        joined = joined[:where] + part if where >= 0 and len(probe) == _PROBE else joined + part
    return joined


def episode_texts(archive: Path, episodes: Collection[str] | None = EPISODES) -> dict[str, str]:
    """Episodes reassembled from their parts (every one of them for `episodes=None`, as the corpus
    benchmark reads them); every episode chosen must be found."""
    parts: dict[str, dict[int, str]] = defaultdict(dict)
    with zipfile.ZipFile(archive) as zf:
        for name in zf.namelist():
            match = _PART.match(name)
            if match and (episodes is None or match["episode"] in episodes):
                raw = zf.read(name).decode("utf-8", errors="replace").replace("\r\n", "\n")
                parts[match["episode"]][int(match["n"])] = _strip_name_line(raw, match["episode"])
    missing = set(episodes or ()) - set(parts)
    if missing:
        sys.exit(f"episodes not in the archive: {sorted(missing)}")
    return {ep: _join([p[n] for n in sorted(p)]) for ep, p in parts.items()}


def _slug(episode: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", episode).strip("-").lower()


def strip_gutenberg(text: str) -> str:
    start = re.search(r"\*\*\* ?START OF (THE|THIS) PROJECT GUTENBERG EBOOK[^\n]*\n", text)
    end = re.search(r"\*\*\* ?END OF (THE|THIS) PROJECT GUTENBERG EBOOK", text)
    if not (start and end):
        sys.exit("Project Gutenberg markers not found")
    return text[start.end() : end.start()].strip() + "\n"


def main() -> None:
    btt = OUT / "behind-the-tech"
    btt.mkdir(parents=True, exist_ok=True)
    words = 0
    for episode, text in sorted(episode_texts(SHARED / "behind-the-tech" / "transcripts.zip").items()):
        (btt / f"{_slug(episode)}.txt").write_text(text, encoding="utf-8")
        words += len(text.split())
    for name in ("LICENSE", "NOTICE.md", "global_questions.csv"):
        shutil.copyfile(SHARED / "behind-the-tech" / name, btt / name)
    carol = OUT / "a-christmas-carol"
    carol.mkdir(parents=True, exist_ok=True)
    source = (SHARED / "a-christmas-carol" / "a_christmas_carol_pg24022.txt").read_text(encoding="utf-8-sig")
    (carol / "a-christmas-carol.txt").write_text(strip_gutenberg(source.replace("\r\n", "\n")), encoding="utf-8")
    print(f"{len(EPISODES)} episodes, {words} words -> {btt}")


if __name__ == "__main__":
    main()
