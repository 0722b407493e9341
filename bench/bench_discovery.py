#!/usr/bin/env python3
"""Does discovery find what a mathematician would look for, and does the model read it first?
The plan's searches, per source, side by side with a naive baseline, over the real arXiv corpus
in ../shared/corpus, and the ranked listing the model reads (search/ranking.py).

Problems, each set in bench/data/<set>/ (problems/*.md written the way a mathematician states a
problem, targets.json the corpus papers a good search should surface, on-topic.json the blind
labels): `original` (29 problems, 16 domains), `held-out` (10, written before the planner's
rules were last changed), `second` (32, issue 38: written from corpus papers no other problem
uses, the ranking never tuned on them), `third` (24, issue 38's held-out set: written from
corpus papers no other set uses by a writer who never saw the planner, after the rules were
last changed, and no rule chosen on it), `fourth` (24, issue 55's: written as a user would, in
the writer's own words, by a writer who never saw the planner, and copied here after issue 55's
rules were fixed). Searches go to a stand-in engine over the corpus
(tests/support/corpus_search.py) that answers arXiv's query syntax and a Semantic Scholar-like
relevance search; each planned search runs as the plan prints it (planning.plan, then
relaxation.run_planned: empty searches relaxed). The baseline asks each source once per problem
with the problem statement's first words (arXiv: AND-ed in all fields, as its search box does;
Semantic Scholar: as one text).

Figures per source, and for both sources together (the papers the model judges):
  targets found     share of target papers returned by any of the source's searches
  empty            share of searches the service answered with nothing (the plan: before
                   relaxation)
  empty relaxed    the same after relaxation (the plan only)
  emptied          searches the service answered with papers of which none is listed (a
                   screen's doing; issue 38: must be 0)
  candidates       distinct papers per problem
  precision        on-topic candidates / candidates: on topic is a paper on-topic.json lists
                   for the problem (the targets and the papers labelled on topic)
  unlabelled       candidates on-topic.json never judged (counted off topic)
  related found    on-topic candidates that are no target (side by side, both sources)
and, for the plan's candidates of both sources ranked against the problem (search/ranking.py):
  read first       papers per problem above the listing's cut, the targets among them, and their
                   precision (issue 38: >= 0.35)
  chars/search     characters of the listing's paper lines above the cut (and its "more below"
                   line) per planned search

  .venv/bin/python bench/bench_discovery.py [--per-query N] [--problem SLUG] [--set NAME]
      [--verbose]

Targets (issue 21): the arXiv half alone finds >= 90% of the targets; <= 10% of planned searches
empty before relaxation; none after it; the plan beats the baseline per source. Issue 38: on
every labelled set, each source's half finds every target, no search emptied, precision of what
the model reads first >= 0.35.

The corpus is one month of 2007 (2,000 records): the figures compare plans, they are not the
recall of the live services.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ROOT / "plugin"
sys.path.insert(0, str(PLUGIN / "scripts"))
sys.path.insert(0, str(ROOT))

from mathtools.core.records import Paper  # noqa: E402
from mathtools.core.sources import NAMES, REGISTRY  # noqa: E402
from mathtools.core.text import strip_latex  # noqa: E402
from mathtools.search import (  # noqa: E402
    commandlines,
    planning,
    problemfile,
    ranking,
    readorder,
    relaxation,
)
from mathtools.search.searchfolder import FoundPaper  # noqa: E402
from mathtools.services.arxiv import build_query  # noqa: E402

from tests.support import corpus_search  # noqa: E402

DISCOVERY = tuple(source.code for source in REGISTRY if source.discovery)
DATA = ROOT / "bench" / "data"
# The sets are the folders bench/data/discovery*/ holding a targets.json, named by their
# suffix ("discovery" is the original set), in the order they were written.
ORDINALS = ("second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth")


def _set_order(name: str) -> tuple[int, str]:
    order = ["original", "held-out", *ORDINALS]
    return (order.index(name) if name in order else len(order), name)


SETS = dict(
    sorted(
        (
            (
                folder.name.removeprefix("discovery-")
                if folder.name != "discovery"
                else "original",
                folder,
            )
            for folder in DATA.glob("discovery*")
            if (folder / "targets.json").exists()
        ),
        key=lambda item: _set_order(item[0]),
    )
)
BASELINE_WORDS = 8
TARGET_FOUND, TARGET_EMPTY, TARGET_READ_PRECISION = 0.90, 0.10, 0.35


def baseline_query(problem: problemfile.Problem) -> str:
    """The statement's first words, LaTeX turned into words, as one query."""
    words = re.findall(r"[^\W_][\w'-]*", strip_latex(problem.statement, for_search=True))
    return " ".join(words[:BASELINE_WORDS])


COUNTS = (
    "targets", "found", "searches", "empty", "empty_after", "emptied", "candidates", "on_topic",
    "related", "related_labelled", "unlabelled", "problems", "read", "read_on_topic",
    "read_targets", "read_unlabelled", "chars",
)  # fmt: skip


class Answered:
    """A stand-in client that remembers whether the service answered a search with papers."""

    def __init__(self, client: Any):
        self.client = client
        self.answered = False

    def search(self, *args: Any, **kwargs: Any) -> Any:
        result = self.client.search(*args, **kwargs)
        self.answered |= bool(result.papers)
        return result


@dataclass
class Searched:
    """What one source's half of a problem's plan returned: its papers (first seen first), and
    per search whether it was empty before relaxation, after it, or emptied after an answer."""

    papers: dict[str, Paper] = field(default_factory=dict)
    searches: int = 0
    empty: int = 0
    empty_after: int = 0
    emptied: int = 0
    lines: list[str] = field(default_factory=list)


def plan_candidates(problem: problemfile.Problem, per_query: int) -> dict[str, Searched]:
    """Every paper each source's half of the plan returns for the problem (every planned
    search, relaxed as it runs), per source."""
    clients = {"arxiv": corpus_search.ArxivStandin(), "semantic_scholar": corpus_search.S2Standin()}
    plan = planning.plan(problem, per_query=per_query)
    found = {}
    for api in DISCOVERY:
        searched = found[api] = Searched()
        for entry in plan["queries"][api]:
            client = Answered(clients[api])
            result = relaxation.run_planned(commandlines.planned_query(api, entry).typed, client)
            searched.searches += 1
            searched.empty += bool(result.relaxation) or not result.papers
            searched.empty_after += not result.papers
            searched.emptied += client.answered and not result.papers
            for paper in result.papers:
                searched.papers.setdefault(paper.arxiv_id or paper.title, paper)
            note = f" {relaxation.describe(result.relaxation)}" if result.relaxation else ""
            searched.lines.append(f"{entry['query_line']}: {len(result.papers)}{note}")
    return found


def baseline_candidates(problem: problemfile.Problem, per_query: int) -> dict[str, list[Paper]]:
    """The papers the baseline query returns, per source."""
    query = baseline_query(problem)
    words = build_query(all_terms=query.replace('"', " ").split())
    return {
        "arxiv": corpus_search.ArxivStandin().search(words, 0, per_query).papers,
        "semantic_scholar": corpus_search.S2Standin().search(query, limit=per_query).papers,
    }


def listed(problem: problemfile.Problem, papers: list[Paper]) -> tuple[list[Paper], int]:
    """The papers ranked as the listing ranks them (search/ranking.py), and how many the model
    reads before the cut."""
    pairs = [(paper.title, paper.abstract) for paper in papers]
    query = ranking.problem_words(problem)
    scores = ranking.scores(query, pairs)
    order = ranking.ranked(query, pairs)
    return [papers[i] for i in order], ranking.read_first(sorted(scores, reverse=True))


def read_labels(data: Path) -> dict[str, dict[str, list[str]]]:
    """on-topic.json's problems ({slug: {on_topic, judged}}); none before the set is labelled."""
    path = data / "on-topic.json"
    if not path.exists():
        return {}
    return dict(json.loads(path.read_text(encoding="utf-8"))["problems"])


def run(data: Path, per_query: int, only: str | None, verbose: bool) -> dict:
    """The figures of one set of problems: (method, api) -> counts; api "both" is the union of
    the sources' candidates, what the model judges."""
    targets = json.loads((data / "targets.json").read_text(encoding="utf-8"))["targets"]
    labels = read_labels(data)
    figures = {
        (method, api): dict.fromkeys(COUNTS, 0)
        for method in ("plan", "baseline")
        for api in (*DISCOVERY, "both")
    }
    for slug, wanted in sorted(targets.items()):
        if only and slug != only:
            continue
        problem = problemfile.read_problem(data / "problems" / f"{slug}.md")
        label = labels.get(slug, {"on_topic": [], "judged": []})
        halves = plan_candidates(problem, per_query)
        baseline = baseline_candidates(problem, per_query)
        both: dict[str, dict[str, Paper]] = {"plan": {}, "baseline": {}}
        for api in DISCOVERY:
            half = halves[api]
            row = figures["plan", api]
            for name in ("searches", "empty", "empty_after", "emptied"):
                row[name] += getattr(half, name)
            _count(row, wanted, half.papers, label)
            both["plan"].update(half.papers)
            if verbose:
                for line in half.lines:
                    print(f"  {slug} {line}")
                missed = [t for t in wanted if t not in half.papers]
                print(f"{slug} {api}: missed {missed}" if missed else f"{slug} {api}: all found")
            row = figures["baseline", api]
            row["searches"] += 1
            row["empty"] += not baseline[api]
            row["empty_after"] += not baseline[api]
            papers = {p.arxiv_id or p.title: p for p in baseline[api]}
            _count(row, wanted, papers, label)
            both["baseline"].update(papers)
        for method, found in both.items():
            _count(figures[method, "both"], wanted, found, label)
        _read(figures["plan", "both"], problem, wanted, both["plan"], label, verbose)
        figures["plan", "both"]["searches"] += sum(h.searches for h in halves.values())
    return figures


def _read(row: dict, problem: problemfile.Problem, wanted: list[str], found: dict, label: dict,
          verbose: bool) -> None:  # fmt: skip
    """What the model reads first of the plan's candidates: the ranked listing down to its cut."""
    order, cut = listed(problem, list(found.values()))
    first = [paper.arxiv_id for paper in order[:cut]]
    row["read"] += cut
    row["read_on_topic"] += sum(arxiv_id in label["on_topic"] for arxiv_id in first)
    row["read_targets"] += sum(target in first for target in wanted)
    row["read_unlabelled"] += sum(arxiv_id not in label["judged"] for arxiv_id in first)
    lines = [FoundPaper(paper.arxiv_id or "", paper.to_dict(), [paper.source]).line()
             for paper in order[:cut]]  # fmt: skip
    if len(order) > cut:
        lines.append(readorder.below_cut(len(order) - cut, "R"))
    row["chars"] += sum(len(line) + 1 for line in lines)
    if verbose:
        for rank, paper in enumerate(order, 1):
            mark = "*" if paper.arxiv_id in label["on_topic"] else " "
            cut_mark = "|" if rank == cut else ""
            print(f"    {rank:2}{mark} {paper.arxiv_id} {paper.title[:70]}{cut_mark}")


def _count(row: dict, wanted: list[str], found: dict, label: dict) -> None:
    row["targets"] += len(wanted)
    row["found"] += sum(target in found for target in wanted)
    row["candidates"] += len(found)
    row["on_topic"] += sum(arxiv_id in label["on_topic"] for arxiv_id in found)
    row["related"] += sum(i in label["on_topic"] and i not in wanted for i in found)
    row["related_labelled"] += sum(i not in wanted for i in label["on_topic"])
    row["unlabelled"] += sum(arxiv_id not in label["judged"] for arxiv_id in found)
    row["problems"] += 1


def combined(figures: list[dict]) -> dict:
    """Several sets' figures added up."""
    return {
        key: {count: sum(f[key][count] for f in figures) for count in figures[0][key]}
        for key in figures[0]
    }


def share(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-query", type=int, default=5, help="results per search (default 5)")
    parser.add_argument("--problem", metavar="SLUG", help="only this problem")
    parser.add_argument("--set", choices=SETS, help="only this set of problems (default: all)")
    parser.add_argument("--verbose", action="store_true", help="every search, miss and ranking")
    args = parser.parse_args()
    chosen = [args.set] if args.set else list(SETS)
    try:
        figures = {
            name: run(SETS[name], args.per_query, args.problem, args.verbose) for name in chosen
        }
    except corpus_search.CorpusMissing as exc:
        print(f"bench_discovery: {exc}", file=sys.stderr)
        return 4
    if "original" in figures and "held-out" in figures:
        figures["original+held-out"] = combined([figures["original"], figures["held-out"]])
    for name, rows in figures.items():
        problems = rows["plan", "arxiv"]["problems"]
        print(f"{name}: discovery over {problems} problems, {args.per_query} results per search")
        print_table(rows)
    print("side by side (plan, both sources' candidates ranked; issue 38's targets):")
    print_side_by_side(figures)
    for name, rows in figures.items():
        if name in ("original", "held-out") and "original+held-out" in figures:
            continue
        met = judge(rows)
        said = {True: "met", False: "NOT met"}
        print(
            f"targets ({name}): arXiv plan >= {TARGET_FOUND:.0%} found, none empty after "
            f"relaxation, each plan above its baseline: {said[met['found']]}; <= "
            f"{TARGET_EMPTY:.0%} empty before relaxation: {said[met['empty']]}; each source's "
            f"half finds every target, none emptied, precision read first >= "
            f"{TARGET_READ_PRECISION:.2f}: {said[met['read']]}"
        )
    return 0


def print_table(figures: dict) -> None:
    print(
        f"{'':28}{'targets found':>15}{'empty':>8}{'empty relaxed':>15}{'emptied':>9}"
        f"{'candidates':>12}{'precision':>20}{'unlabelled':>12}"
    )
    for api in (*DISCOVERY, "both"):
        for method in ("plan", "baseline"):
            row = figures[method, api]
            found = share(row["found"], row["targets"])
            searched = api != "both"
            empty = f"{share(row['empty'], row['searches']):.0%}" if searched else "-"
            after = share(row["empty_after"], row["searches"])
            relaxed = f"{after:.0%}" if method == "plan" and searched else "-"
            emptied = str(row["emptied"]) if method == "plan" and searched else "-"
            name = "both sources" if api == "both" else NAMES[api]
            print(
                f"{name + ' ' + method:28}{found:>15.0%}{empty:>8}{relaxed:>15}{emptied:>9}"
                f"{share(row['candidates'], row['problems']):>12.1f}"
                f"{_precision(row['on_topic'], row['candidates'], row['unlabelled']):>20}"
                f"{row['unlabelled']:>12}"
            )


def _precision(on_topic: int, papers: int, unlabelled: int) -> str:
    """The share on topic, or "unlabelled: N" while labels are missing for all of them."""
    if papers and unlabelled == papers:
        return f"unlabelled: {unlabelled}"
    return f"{share(on_topic, papers):.2f}"


def print_side_by_side(figures: dict) -> None:
    names = list(figures)
    print(f"{'':52}" + "".join(f"{name:>20}" for name in names))
    rows = {
        "targets found, arXiv half": lambda f: _found(f["plan", "arxiv"]),
        "targets found, S2 half": lambda f: _found(f["plan", "semantic_scholar"]),
        "related found (on topic, no target)": lambda f: _found(f["plan", "both"], "related"),
        "searches empty before/after relaxation, arXiv half": lambda f: _empty(f["plan", "arxiv"]),
        "searches empty before/after relaxation, S2 half": lambda f: _empty(
            f["plan", "semantic_scholar"]
        ),
        "searches emptied by screening": lambda f: str(
            f["plan", "arxiv"]["emptied"] + f["plan", "semantic_scholar"]["emptied"]
        ),
        "candidates per problem": lambda f: _per_problem(f["plan", "both"], "candidates"),
        "read first per problem": lambda f: _per_problem(f["plan", "both"], "read"),
        "targets read first": lambda f: _found(f["plan", "both"], "read_targets"),
        "precision read first": lambda f: _precision(
            f["plan", "both"]["read_on_topic"],
            f["plan", "both"]["read"],
            f["plan", "both"]["read_unlabelled"],
        ),
        "precision of all candidates": lambda f: _precision(
            f["plan", "both"]["on_topic"],
            f["plan", "both"]["candidates"],
            f["plan", "both"]["unlabelled"],
        ),
        "unlabelled candidates": lambda f: str(f["plan", "both"]["unlabelled"]),
        "chars read per search": lambda f: (
            f"{share(f['plan', 'both']['chars'], f['plan', 'both']['searches']):.0f}"
        ),
    }
    for label, value in rows.items():
        print(f"{label:52}" + "".join(f"{value(figures[name]):>20}" for name in names))


def _empty(row: dict) -> str:
    return f"{row['empty']}/{row['empty_after']} of {row['searches']}"


def _found(row: dict, key: str = "found") -> str:
    whole = row["related_labelled"] if key == "related" else row["targets"]
    return f"{row[key]}/{whole}"


def _per_problem(row: dict, key: str) -> str:
    return f"{share(row[key], row['problems']):.1f}"


def judge(figures: dict) -> dict[str, bool]:
    """Are the targets met by these figures? Issue 21's (found, empty) and issue 38's (each
    source's half finds every target, no search emptied, precision of what is read first)."""
    met = True
    for api in DISCOVERY:
        plan, base = figures["plan", api], figures["baseline", api]
        met &= share(plan["found"], plan["targets"]) > share(base["found"], base["targets"])
        met &= plan["empty_after"] == 0
    arxiv = figures["plan", "arxiv"]
    met &= share(arxiv["found"], arxiv["targets"]) >= TARGET_FOUND
    empty = share(arxiv["empty"], arxiv["searches"]) <= TARGET_EMPTY
    both = figures["plan", "both"]
    halves = all(figures["plan", api]["found"] == figures["plan", api]["targets"]
                 for api in DISCOVERY)  # fmt: skip
    emptied = sum(figures["plan", api]["emptied"] for api in DISCOVERY)
    precise = share(both["read_on_topic"], both["read"]) >= TARGET_READ_PRECISION
    return {"found": met, "empty": empty, "read": halves and not emptied and precise}


if __name__ == "__main__":
    sys.exit(main())
