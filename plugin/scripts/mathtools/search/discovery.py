"""Discovery, one call: plan the queries, run every one under the rate limits, record the runs,
and list the distinct papers with a gist of each abstract (agents/literature-search.md, step 2).
The search folder and its papers are searchfolder.py's model, which every phase shares.

Each query's results stay on disk as `i<iteration>-<source>-<n>.json` (the
search scripts' --out format), for debugging and for `lit_update.py record-run` by hand.
A paper both sources returned is one line naming both (searchfolder.FoundPaper); the line shows
the key of its first record, and judging that key judges the paper in every run.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypedDict

from ..core import (
    NAMES,
    TAGS,
    BadInput,
    SearchResultDict,
    ServiceError,
    is_slug,
    summary_line,
    unavailable_line,
)
from ..research import current_slug, problem_dir, problem_file
from ..services import ArxivClient, RequestRejected, S2Client, ZbmathClient
from . import commandlines, planning, problemfile, querylines, readorder, relaxation, searchfolder
from .commandlines import TypedQuery, planned_queries
from .refinement import refined_queries
from .searchfolder import FoundPaper, Search, earlier_identities, identities, iteration_papers
from .store import open_store, stored_query_lines

Progress = Callable[[str], None]
Client = ArxivClient | S2Client | ZbmathClient


class RecordedRun(TypedDict):
    run_id: int
    source: str
    result_count: int


class Found(TypedDict):
    """What an iteration found: its runs, the sources that failed (and why), the distinct papers
    not judged in an earlier iteration, how many were (carried), and notes for the model."""

    iteration: int
    runs: list[RecordedRun]
    failed: dict[str, str]
    papers: list[FoundPaper]
    carried: int
    notes: list[str]
    recorded: list[tuple[str, FoundPaper]]  # (REF-NNN, paper): in LITERATURE.md, not to judge


# One client per source for a whole iteration: its queries share the rate limit and the cache.
CLIENTS: dict[str, Callable[[], Client]] = {
    "arxiv": ArxivClient,
    "semantic_scholar": S2Client,
    "zbmath": ZbmathClient,
}


def stderr_progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def start_discovery(
    problem_path: Path,
    focus: str | None,
    per_query: int,
    literature: Path | None = None,
    progress: Progress = stderr_progress,
) -> tuple[Search, Found]:
    """Plan a new search of the problem in a fresh search folder and run its first iteration;
    returns the search and what the iteration found (see run_iteration)."""
    commandlines.check_per_query(per_query)
    problem = problemfile.read_problem(problem_path)
    literature = literature or problem_path.parent / "LITERATURE.md"
    searched = querylines.searched_query_lines(literature) | stored_query_lines(problem.slug)
    search_folder = searchfolder.new_search_folder(problem_path.parent)
    plan = planning.plan(problem, searched, focus, per_query, str(search_folder))
    search = Search(
        problem=problem.slug,
        search_folder=str(search_folder),
        literature=str(searchfolder.shorter(literature)),
        domain=problem.domain,
        first_search=plan["first_search"],
        per_query=per_query,
        focus=" ".join(focus.split()) if focus and focus.strip() else None,
    )
    if plan["reference_candidates"]:
        search.references = str(search_folder / "problem-references.json")
        searchfolder.write_json(Path(search.references), plan["reference_candidates"])
        plan["reference_candidates_file"] = search.references
    searchfolder.write_json(search_folder / "plan.json", plan)
    # The first iteration runs every planned source, zbMATH Open included; refined iterations
    # search arXiv and Semantic Scholar.
    queries = {api: [q.typed for q in found] for api, found in planned_queries(plan).items()}
    found = run_iteration(search, 1, queries, None, progress)
    found["notes"] = plan["notes"] + found["notes"]
    # The agent judges from this, with no PROBLEM.md read (a first search's Read of it was a
    # call of its own); a first search recalls papers too, which Known Results help it name.
    statement = " ".join(problem.statement.split())
    said = [f"problem: {problem.title} — {statement}"]
    if search.first_search and problem.known_results:
        said.append(
            "known results: " + " · ".join(" ".join(k.split()) for k in problem.known_results)
        )
    found["notes"][:0] = said
    if plan["skipped"]:
        found["notes"].append(f"{len(plan['skipped'])} planned queries skipped: searched before")
    return search, found


def run_iteration(
    search: Search,
    number: int,
    queries: dict[str, list[TypedQuery]],
    feedback: str | None,
    progress: Progress = stderr_progress,
) -> Found:
    """Run an iteration's typed queries by source (each writes its result into the search folder),
    record one run per source that answered, and return {"iteration", "runs", "failed",
    "papers" (the distinct papers not judged in an earlier iteration), "carried" (how many
    were)}. A source that keeps failing is skipped for the rest of the iteration; the other
    goes on."""
    clients: dict[str, Client] = {}
    results: dict[str, list[SearchResultDict]] = {}
    failed: dict[str, str] = {}
    refused: list[str] = []  # a query a service refused: its own note, the others go on
    total = sum(len(planned) for planned in queries.values())
    done = 0
    for api, planned in queries.items():
        for n, planned_search in enumerate(planned, 1):
            done += 1
            name, tag = NAMES[api], TAGS[api]  # progress lines use the tag
            if api in failed:
                progress(f"[{done}/{total}] {tag} skipped: failing")
                continue
            out = search.folder / f"{commandlines.results_stem(number, api, n)}.json"
            try:
                if api not in clients:
                    clients[api] = CLIENTS[api]()
                # The one per-source dispatch of a planned query, relaxed when it finds nothing.
                result = relaxation.run_planned(planned_search, clients[api])
            except (BadInput, RequestRejected) as exc:  # this query only: the others still run
                line = querylines.query_line(api, planned_search.args())
                refused.append(f"{name} refused {line}: {exc.message}")
                progress(f"[{done}/{total}] {tag} refused")
                continue
            except ServiceError as exc:
                failed[api] = exc.message
                progress(f"[{done}/{total}] {tag} failing")  # why: the listing's line
                continue
            data = result.to_dict()
            searchfolder.write_json(out, data)
            results.setdefault(api, []).append(data)
            progress(f"[{done}/{total}] {tag} {len(result.papers)}")
    found = record(search, number, results, failed, feedback)
    found["notes"] = refused
    return found


def record(
    search: Search,
    number: int,
    results: dict[str, list[SearchResultDict]],
    failed: dict[str, str],
    feedback: str | None,
) -> Found:
    """Record one run per source of an iteration's results (search_result dicts) in the run
    store and in search.json; what the iteration found (see run_iteration)."""
    recorded = []
    with open_store() as store:
        for api, found in results.items():
            query = "; ".join(dict.fromkeys(item["query_line"] for item in found))
            run = store.record_run(search.problem, query, api, number, feedback, found)
            recorded.append(
                RecordedRun(
                    run_id=run["run_id"], source=run["source"], result_count=run["result_count"]
                )
            )
        search.iterations.append(
            {"number": number, "runs": [r["run_id"] for r in recorded], "failed": failed}
        )
        search.save()
        papers = iteration_papers(store, search, number)
        earlier = earlier_identities(store, search, number)
    unjudged = [p for p in papers if not any(i in earlier for i in identities(p))]
    refs = searchfolder.recorded_refs(search)
    known = [(ref, p) for p in unjudged if (ref := searchfolder.recorded_as(p.record, p.key, refs))]
    fresh = [p for p in unjudged if all(p is not paper for _, paper in known)]
    return {
        "iteration": number,
        "runs": recorded,
        "failed": failed,
        "papers": fresh,
        "carried": len(papers) - len(unjudged),
        "notes": [],
        "recorded": known,
    }


def chase(search: Search, key: str, limit: int = 20) -> Found:
    """The papers `key` cites as the search's next iteration: zbMATH Open's reference list for a
    `Zbl:` key (a paper the Semantic Scholar graph lacks), else Semantic Scholar's references."""
    number = search.iteration + 1
    api = "zbmath" if key.startswith("Zbl:") else "semantic_scholar"
    args = ["references", key, "--limit", str(limit)]
    try:
        client = ZbmathClient() if api == "zbmath" else S2Client()
        result = client.references(key, limit=limit)
    except ServiceError as exc:
        return record(search, number, {}, {api: exc.message}, None)
    result.query_line = querylines.query_line(api, args)
    data = result.to_dict()
    stem = "zbmath" if api == "zbmath" else "s2"
    searchfolder.write_json(search.folder / f"i{number}-{stem}-references.json", data)
    return record(search, number, {api: [data]}, {}, f"references of {key}")


def listing(search: Search, found: Found) -> list[str]:
    """What the model reads after discovery or a refined search: where things are, the runs,
    one line per new distinct paper, best first down to the cut (readorder.py), and how many
    more are below it."""
    runs = ", ".join(
        f"{NAMES[r['source']]} run {r['run_id']}: {r['result_count']}" for r in found["runs"]
    )
    kind = "first search" if search.first_search else "follow-up search"
    new = len(found["papers"])
    total = new + len(found.get("recorded", [])) + found["carried"]  # as judge counts them
    judged = f", {new} to judge" if total != new else ""
    lines = [
        f"{search.problem}, {kind}, iteration {found['iteration']}: "
        f"{total} distinct papers{judged} ({runs or 'no runs'})",
        f"search folder: {search.search_folder}",
    ]
    if search.focus:
        lines.append(f"focus: {search.focus} (judge each paper against it, not the whole problem)")
    lines += found.get("notes", [])
    for source, why in found["failed"].items():
        lines.append(unavailable_line(source, why))
    if found["carried"]:
        lines.append(f"{found['carried']} papers judged in an earlier iteration: labels kept")
    # Recorded in LITERATURE.md by an earlier search: named, not judged again (labels carried).
    for ref, paper in found.get("recorded", []):
        lines.append(f"{ref} (recorded) {summary_line({**paper.record, 'key': paper.key}, 60)}")
    ordered, shown = readorder.arrange(search, found["iteration"], found["papers"])
    lines += [paper.line() for paper in ordered[:shown]]
    if len(ordered) > shown:
        lines.append(readorder.below_cut(len(ordered) - shown, search.search_folder))
    return lines


def more(search: Search) -> list[str]:
    """The current iteration's papers ranked below the listing's cut, one line each, best first
    (judge takes a judgement of those the model judges; the others are recorded as unread)."""
    keys = readorder.below(search)
    if not keys:
        return [f"iteration {search.iteration}: every paper is listed already"]
    with open_store(create=False) as store:
        papers = {p.key: p for p in iteration_papers(store, search, search.iteration)}
    return [f"{len(keys)} more, ranked lower:"] + [papers[key].line() for key in keys]


def refine(search: Search, query: str, memo: str, progress: Progress = stderr_progress) -> Found:
    """The refined query as the next iteration: one search per source, recorded with the memo."""
    number = search.iteration + 1
    planned = refined_queries(query, search.domain, search.per_query)
    searchfolder.write_json(
        search.folder / f"feedback-i{number}.json", {"memo": memo, "query": query}
    )
    queries = {api: [q.typed for q in found] for api, found in planned.items()}
    return run_iteration(search, number, queries, memo, progress)


def problem_path(words: list[str]) -> tuple[Path, str | None]:
    """(PROBLEM.md, focus) from /math:literature's arguments: the first word is the problem when
    a problem folder of that slug exists, else every word is focus on the current problem."""
    if words and is_slug(words[0]) and problem_dir(words[0]).is_dir():
        return problem_file(words[0]), " ".join(words[1:]) or None
    path = problem_file(current_slug())
    if not path.exists():
        raise BadInput(f"{path} does not exist: describe the problem with /math:problem")
    return path, " ".join(words) or None
