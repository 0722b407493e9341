#!/usr/bin/env python3
"""Blind labels for bench_discovery.py: write the labelling packets, then gather the labels.

packets DIR   every candidate the plan (both sources' halves, every search, relaxed as it runs,
              every paper returned: above and below the listing's cut) and the baseline return
              for a problem that its set's on-topic.json never judged (every candidate of a set
              not labelled yet), one set to a packet, written as
              DIR/packet-NN.md (about PER_PACKET problems each: the problem's statement, then
              per candidate its arXiv id, title and whole abstract, in arXiv id order, never its
              rank nor the targets) and DIR/packets.json (packet -> set -> problem -> the ids
              it holds)
collect DIR   read DIR/labels-NN.json ({problem: [on-topic ids]}, one per packet) and write
              the labels home, to each set's on-topic.json (made for a new set): the new
              candidates added to `judged`, those labelled on topic to `on_topic`. A packet
              without its labels file stops it, naming the file.

.venv/bin/python bench/discovery_labels.py packets /work/wt/labels
.venv/bin/python bench/discovery_labels.py collect /work/wt/labels
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_discovery import (
    SETS,
    baseline_candidates,
    plan_candidates,
    read_labels,
)
from mathtools.core.records import Paper
from mathtools.search import problemfile

from tests.support import corpus_search

PER_PACKET = 8
PER_QUERY = 5
MANIFEST = "packets.json"
INSTRUCTIONS = """\
## What to do

You label papers for a benchmark of literature search. For each problem below you get its
statement (as a mathematician wrote it) and a list of candidate papers (arXiv id, title, whole
abstract). Read the statement, then each candidate's title and whole abstract, and label the
candidate:

- **on-topic**: a mathematician working on this problem would want to read this paper (it solves
  the problem or part of it, proves a result the problem relies on or generalises, or studies
  the same question or object with methods that bear on it);
- **off-topic**: otherwise (shares words or a field with the problem, but not its question).

Judge from the title and the abstract only; do not search for the papers. The candidates are in
arXiv id order, which says nothing about relevance. A problem may have no on-topic candidate, or
several.

Write your labels as JSON to `{labels}`: an object mapping each problem's slug (the name in its
heading) to the list of the arXiv ids you labelled on-topic, every problem present (an empty list
when none is):

```json
{{"problem-slug": ["0704.0001", "0704.0002"], "another-slug": []}}
```
"""


def candidates(data: Path, slug: str) -> dict[str, Paper]:
    """Every paper the plan and the baseline return for a problem, by arXiv id."""
    problem = problemfile.read_problem(data / "problems" / f"{slug}.md")
    found: dict[str, Paper] = {}
    for half in plan_candidates(problem, PER_QUERY).values():
        found.update(half.papers)
    for papers in baseline_candidates(problem, PER_QUERY).values():
        found.update({paper.arxiv_id or paper.title: paper for paper in papers})
    return found


def to_label() -> list[tuple[str, str, dict[str, Paper]]]:
    """(set, problem, its candidates to label): every candidate its set's on-topic.json never
    judged (all of them for a set not labelled yet)."""
    wanted = []
    for name, data in SETS.items():
        targets = json.loads((data / "targets.json").read_text(encoding="utf-8"))["targets"]
        labels = read_labels(data)
        for slug in sorted(targets):
            found = candidates(data, slug)
            judged = set(labels.get(slug, {}).get("judged", []))
            fresh = {arxiv_id: paper for arxiv_id, paper in found.items() if arxiv_id not in judged}
            if fresh:
                wanted.append((name, slug, fresh))
    return wanted


def packet_text(number: int, problems: list[tuple[str, str, dict[str, Paper]]]) -> str:
    labels = f"labels-{number:02}.json"
    lines = [f"# Labelling packet {number:02}", "", INSTRUCTIONS.format(labels=labels)]
    for name, slug, papers in problems:
        problem = problemfile.read_problem(SETS[name] / "problems" / f"{slug}.md")
        lines += [f"# Problem `{slug}`: {problem.title}", "", problem.statement.strip(), ""]
        if problem.known_results:
            lines += ["Known results:", ""] + [f"- {item}" for item in problem.known_results]
            lines.append("")
        lines += [f"## Candidates for `{slug}` ({len(papers)})", ""]
        for arxiv_id in sorted(papers):
            paper = papers[arxiv_id]
            lines += [
                f"### {arxiv_id}: {' '.join(paper.title.split())}",
                "",
                " ".join((paper.abstract or "(no abstract)").split()),
                "",
            ]
    lines.append(f"(End of packet {number:02}: write {labels}.)")
    return "\n".join(lines) + "\n"


def write_packets(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    problems = to_label()
    groups = []  # a packet holds one set's problems: a new set's, or a labelled set's new papers
    for name in SETS:
        of_set = [item for item in problems if item[0] == name]
        groups += [of_set[i : i + PER_PACKET] for i in range(0, len(of_set), PER_PACKET)]
    manifest: dict[str, dict[str, dict[str, list[str]]]] = {}
    for number, group in enumerate(groups, 1):
        path = folder / f"packet-{number:02}.md"
        path.write_text(packet_text(number, group), encoding="utf-8")
        entry = manifest[f"{number:02}"] = {}
        for name, slug, papers in group:
            entry.setdefault(name, {})[slug] = sorted(papers)
        count = sum(len(papers) for _, _, papers in group)
        print(f"{path}: {len(group)} problems, {count} candidates")
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")


def collect(folder: Path) -> int:
    manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    by_set: dict[str, dict[str, dict[str, list[str]]]] = {}
    for number, sets in manifest.items():
        path = folder / f"labels-{number}.json"
        if not path.exists():
            print(f"discovery_labels: {path} is missing", file=sys.stderr)
            return 2
        given = json.loads(path.read_text(encoding="utf-8"))
        for name, problems in sets.items():
            for slug, ids in problems.items():
                if slug not in given:
                    print(f"discovery_labels: {path} has no labels for {slug}", file=sys.stderr)
                    return 2
                on_topic = [i for i in given[slug] if i in ids]
                by_set.setdefault(name, {})[slug] = {"on_topic": on_topic, "judged": ids}
    for name, problems in by_set.items():
        path = SETS[name] / "on-topic.json"
        data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {
            "about": "For each problem, the corpus papers a mathematician working on it would "
            "want to see (on_topic) out of the papers judged (judged: every paper the plan, "
            "every search and every paper it returned, and the baseline returned at 5 results "
            "per search), labelled blind (title and whole abstract, never targets.json) by "
            "labellers other than the benchmark's author (bench/discovery_labels.py).",
            "problems": {},
        }  # fmt: skip
        for slug, label in problems.items():
            entry = data["problems"].setdefault(slug, {"on_topic": [], "judged": []})
            entry["on_topic"] = sorted(set(entry["on_topic"]) | set(label["on_topic"]))
            entry["judged"] = sorted(set(entry["judged"]) | set(label["judged"]))
        path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"{path}: {len(problems)} problems labelled")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["packets", "collect"])
    parser.add_argument("folder", type=Path, help="where the packets and labels files are")
    args = parser.parse_args()
    try:
        if args.command == "packets":
            write_packets(args.folder)
            return 0
        return collect(args.folder)
    except corpus_search.CorpusMissing as exc:
        print(f"discovery_labels: {exc}", file=sys.stderr)
        return 4


if __name__ == "__main__":
    sys.exit(main())
