"""The order in which the model reads an iteration's new papers, and the cut it stops at.

discover, refine and chase list an iteration's new papers ranked against the problem
(ranking.py: PROBLEM.md's statement, title, tags and Known Results, or the search's focus), the
best down to the cut, then one line saying how many more are below it; `literature.py more R`
lists those. The order and how many were listed stay in the search folder as
`listing-i<N>.json` ({"order": [keys, best first], "listed": N}), so that judge asks a
judgement of exactly the papers listed: a paper still below the cut when the model judges is
recorded as unread in the run store (not judged, never dropped), and listed again if a later
iteration finds it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TypedDict

from ..core import BadInput, read_json
from . import problemfile, ranking
from .searchfolder import FoundPaper, Search, write_json

__all__ = ["Listing", "arrange", "below", "below_cut", "unread"]


class Listing(TypedDict):
    """listing-i<N>.json: an iteration's new papers' keys, best first, and how many were listed."""

    order: list[str]
    listed: int


def below_cut(count: int, search_folder: str) -> str:
    """The listing's line for the papers ranked below its cut."""
    return f"{count} more below, ranked lower: `literature.py more {search_folder}` lists them"


def _path(search: Search, iteration: int) -> Path:
    return search.folder / f"listing-i{iteration}.json"


def _problem_words(search: Search) -> Counter[str] | None:
    """What the papers are ranked against: the search's focus, else its PROBLEM.md (beside the
    search folder's `literature-runs/`); None when neither is there (no ranking, no cut)."""
    if search.focus:
        return Counter(ranking.tokens(search.focus))
    path = search.folder.parent.parent / "PROBLEM.md"
    if not path.exists():
        return None
    return ranking.problem_words(problemfile.read_problem(path))


def arrange(
    search: Search, iteration: int, papers: Sequence[FoundPaper]
) -> tuple[list[FoundPaper], int]:
    """The papers best first, and how many of them to list before the cut; writes
    listing-i<N>.json. Without a problem to rank against, every paper is listed in the order the
    searches returned it."""
    words = _problem_words(search)
    if words is None:
        ordered, count = list(papers), len(papers)
    else:
        pairs = [(p.record.get("title"), p.record.get("abstract")) for p in papers]
        scores = ranking.scores(words, pairs)
        ordered = [papers[i] for i in ranking.ranked(words, pairs)]
        count = ranking.read_first(scores)
    listing: Listing = {"order": [p.key for p in ordered], "listed": count}
    write_json(_path(search, iteration), listing)
    return ordered, count


def _read(search: Search, iteration: int) -> Listing | None:
    path = _path(search, iteration)
    if not path.exists():  # listed by an earlier version: every paper was listed
        return None
    data = read_json(str(path), "the listing")
    if not isinstance(data, dict) or not isinstance(data.get("order"), list):
        raise BadInput(f"{path} is damaged: no order of papers", code="bad_listing")
    return {"order": [str(key) for key in data["order"]], "listed": int(data.get("listed", 0))}


def below(search: Search) -> list[str]:
    """The keys the current iteration ranked below the cut, best first. The model judges those
    it needs; the others stay recorded as unread (judge asks no label of them)."""
    listing = _read(search, search.iteration)
    if listing is None:
        return []
    return listing["order"][listing["listed"] :]


def unread(search: Search) -> set[str]:
    """The keys of the current iteration's papers never listed (still below the cut)."""
    listing = _read(search, search.iteration)
    if listing is None:
        return set()
    return set(listing["order"][listing["listed"] :])
