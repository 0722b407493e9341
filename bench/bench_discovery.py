#!/usr/bin/env python3
"""Does discovery find what a mathematician would look for? The plan's searches, per source,
side by side with a naive baseline, over the real arXiv corpus in ../shared/corpus.

Problems: bench/data/discovery/problems/*.md, each written the way a mathematician states it
(16 domains), with the corpus papers a good search should surface in targets.json; and a
held-out set in bench/data/discovery-held-out/ (same layout), written before the planner's
rules were last changed, so that a rule tuned to the first set shows there. The figures are
printed per set and for both together; the targets are judged on both together. Searches go to
a stand-in engine over the corpus (tests/support/corpus_search.py) that answers arXiv's query
syntax and a Semantic Scholar-like relevance search; each planned search runs as the plan prints
it (planning.plan, then relaxation.run_planned: empty searches relaxed). The baseline asks each
source once per problem with the problem statement's first words (arXiv: AND-ed in all fields,
as its search box does; Semantic Scholar: as one text).

Figures per source, and for both sources together (the papers the model judges):
  targets found     share of target papers returned by any of the source's searches
  empty            share of searches the service answered with nothing (the plan: before
                   relaxation)
  empty relaxed    the same after relaxation (the plan only)
  candidates       distinct papers per problem, after the screen (search/screening.py)
  precision        on-topic candidates / candidates: on topic is a paper on-topic.json lists
                   for the problem (the targets and the papers labelled on topic)
  unjudged         candidates on-topic.json never judged (counted off topic)

  .venv/bin/python bench/bench_discovery.py [--per-query N] [--problem SLUG] [--set NAME]
      [--verbose]

Targets (issue 21): the arXiv half alone finds >= 90% of the targets; <= 10% of planned searches
empty before relaxation; none after it; the plan beats the baseline per source. Issue 27: a
precision of >= 0.25 over both sources' candidates, every target still found.

The corpus is one month of 2007 (2,000 records): the figures compare plans, they are not the
recall of the live services.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ROOT / "plugin"
sys.path.insert(0, str(PLUGIN / "scripts"))
sys.path.insert(0, str(ROOT))

from mathtools.core.sources import DISCOVERY, NAMES  # noqa: E402
from mathtools.core.text import strip_latex  # noqa: E402
from mathtools.research import problemfile  # noqa: E402
from mathtools.search import planning, relaxation  # noqa: E402
from mathtools.services.arxiv import build_query  # noqa: E402

from tests.support import corpus_search  # noqa: E402

SETS = {
    "original": ROOT / "bench" / "data" / "discovery",
    "held-out": ROOT / "bench" / "data" / "discovery-held-out",
}
BASELINE_WORDS = 8
TARGET_FOUND, TARGET_EMPTY, TARGET_PRECISION = 0.90, 0.10, 0.25


def baseline_query(problem: problemfile.Problem) -> str:
    """The statement's first words, LaTeX turned into words, as one query."""
    words = re.findall(r"[^\W_][\w'-]*", strip_latex(problem.statement, for_search=True))
    return " ".join(words[:BASELINE_WORDS])


COUNTS = (
    "targets", "found", "searches", "empty", "empty_after", "candidates", "on_topic", "unjudged",
    "problems",
)  # fmt: skip


def run(data: Path, per_query: int, only: str | None, verbose: bool) -> dict:
    """The figures of one set of problems: (method, api) -> counts; api "both" is the union of
    the sources' candidates, what the model judges."""
    targets = json.loads((data / "targets.json").read_text(encoding="utf-8"))["targets"]
    labels = json.loads((data / "on-topic.json").read_text(encoding="utf-8"))["problems"]
    clients = {"arxiv": corpus_search.ArxivStandin(), "semantic_scholar": corpus_search.S2Standin()}
    figures = {
        (method, api): dict.fromkeys(COUNTS, 0)
        for method in ("plan", "baseline")
        for api in (*DISCOVERY, "both")
    }
    for slug, wanted in sorted(targets.items()):
        if only and slug != only:
            continue
        problem = problemfile.read_problem(data / "problems" / f"{slug}.md")
        plan = planning.plan(problem, per_query=per_query)
        label = labels[slug]
        both: dict[str, dict[str, None]] = {"plan": {}, "baseline": {}}
        for api in DISCOVERY:
            found: dict[str, None] = {}
            row = figures["plan", api]
            for entry in plan["queries"][api]:
                result = relaxation.run_entry(api, entry, clients[api])
                row["searches"] += 1
                relaxed = result.relaxation
                answered = len(result.papers) + result.set_aside  # before the screen
                row["empty"] += bool(relaxed) or not answered
                row["empty_after"] += not answered
                found.update(dict.fromkeys(p.arxiv_id for p in result.papers))
                if verbose:
                    note = f" {relaxation.describe(relaxed)}" if relaxed else ""
                    print(f"  {slug} {entry['query_line']}: {len(result.papers)}{note}")
            _count(row, wanted, found, label)
            both["plan"].update(found)
            if verbose:
                missed = [t for t in wanted if t not in found]
                print(f"{slug} {api}: missed {missed}" if missed else f"{slug} {api}: all found")
                for arxiv_id in found:
                    if arxiv_id not in label["on_topic"]:
                        judged = "" if arxiv_id in label["judged"] else " (never judged)"
                        print(f"    off topic{judged}: {arxiv_id}")
            query = baseline_query(problem)
            if api == "arxiv":
                words = build_query(all_terms=query.replace('"', " ").split())
                result = clients[api].search(words, 0, per_query)
            else:
                result = clients[api].search(query, limit=per_query)
            row = figures["baseline", api]
            row["searches"] += 1
            row["empty"] += not result.papers
            row["empty_after"] += not result.papers
            baseline = dict.fromkeys(p.arxiv_id for p in result.papers)
            _count(row, wanted, baseline, label)
            both["baseline"].update(baseline)
        for method, found in both.items():
            _count(figures[method, "both"], wanted, found, label)
    return figures


def _count(row: dict, wanted: list[str], found: dict, label: dict) -> None:
    row["targets"] += len(wanted)
    row["found"] += sum(target in found for target in wanted)
    row["candidates"] += len(found)
    row["on_topic"] += sum(arxiv_id in label["on_topic"] for arxiv_id in found)
    row["unjudged"] += sum(arxiv_id not in label["judged"] for arxiv_id in found)
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
    parser.add_argument("--set", choices=SETS, help="only this set of problems (default: both)")
    parser.add_argument("--verbose", action="store_true", help="every search and every miss")
    args = parser.parse_args()
    chosen = [args.set] if args.set else list(SETS)
    try:
        figures = {
            name: run(SETS[name], args.per_query, args.problem, args.verbose) for name in chosen
        }
    except corpus_search.CorpusMissing as exc:
        print(f"bench_discovery: {exc}", file=sys.stderr)
        return 4
    if len(chosen) > 1:
        figures["combined"] = combined(list(figures.values()))
    for name, rows in figures.items():
        problems = rows["plan", "arxiv"]["problems"]
        print(f"{name}: discovery over {problems} problems, {args.per_query} results per search")
        print_table(rows)
    met = judge(figures["combined" if len(chosen) > 1 else chosen[0]])
    said = {True: "met", False: "NOT met"}
    sets = "both sets" if len(chosen) > 1 else chosen[0]
    print(
        f"targets ({sets}): arXiv plan >= {TARGET_FOUND:.0%} found, none empty after "
        f"relaxation, each plan above its baseline: {said[met['found']]}; <= {TARGET_EMPTY:.0%} "
        f"empty before relaxation: {said[met['empty']]}; precision of both sources' candidates "
        f">= {TARGET_PRECISION:.2f} with every target found: {said[met['precision']]}"
    )
    return 0


def print_table(figures: dict) -> None:
    print(
        f"{'':28}{'targets found':>15}{'empty':>8}{'empty relaxed':>15}{'candidates':>12}"
        f"{'precision':>11}{'unjudged':>10}"
    )
    for api in (*DISCOVERY, "both"):
        for method in ("plan", "baseline"):
            row = figures[method, api]
            found = share(row["found"], row["targets"])
            searched = api != "both"
            empty = f"{share(row['empty'], row['searches']):.0%}" if searched else "-"
            after = share(row["empty_after"], row["searches"])
            relaxed = f"{after:.0%}" if method == "plan" and searched else "-"
            name = "both sources" if api == "both" else NAMES[api]
            print(
                f"{name + ' ' + method:28}{found:>15.0%}{empty:>8}{relaxed:>15}"
                f"{share(row['candidates'], row['problems']):>12.1f}"
                f"{share(row['on_topic'], row['candidates']):>11.2f}{row['unjudged']:>10}"
            )


def judge(figures: dict) -> dict[str, bool]:
    """Are the targets met by these figures? Issue 21's (found, empty) and issue 27's
    (precision of the candidates the model judges, with every target still found)."""
    met = True
    for api in DISCOVERY:
        plan, base = figures["plan", api], figures["baseline", api]
        met &= share(plan["found"], plan["targets"]) > share(base["found"], base["targets"])
        met &= plan["empty_after"] == 0
    arxiv = figures["plan", "arxiv"]
    met &= share(arxiv["found"], arxiv["targets"]) >= TARGET_FOUND
    empty = share(arxiv["empty"], arxiv["searches"]) <= TARGET_EMPTY
    both = figures["plan", "both"]
    precise = share(both["on_topic"], both["candidates"]) >= TARGET_PRECISION
    return {
        "found": met, "empty": empty, "precision": precise and both["found"] == both["targets"],
    }  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
