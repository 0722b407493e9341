"""Judging, one call: store the model's judgements of an iteration and answer the loop's question.

The model writes one file per iteration, `judgements-i<N>.json` in the search folder
(schemas/iteration_judgements.schema.json): a label for every paper the iteration listed, by
the key its line shows (a paper still below the listing's cut is recorded as unread, not
judged: readorder.py). Storing it labels that paper in every run that returned it (a paper both
services found is judged once), keeps the label of a paper judged in an earlier iteration, and
keeps the papers the model remembers (`remembered`) in `memory.json` for verification. The
answer is the refinement loop's rule (refinement.py): stop, or refine with the memo.
"""

from __future__ import annotations

from pathlib import Path

from ..core import LABELS, BadInput, Judgement, read_json, schema_errors
from . import readorder, refinement, searchfolder
from .searchfolder import (
    MEMORY_SOURCE,
    FoundPaper,
    Search,
    check_judged,
    earlier_identities,
    identities,
    iteration_papers,
)
from .store import Run, RunStore, open_store

MEMORY = "memory.json"
SHOWN_MISSING = 5


def judge(search: Search) -> dict[str, object]:
    """Store the current iteration's judgements file; the counts and the loop's decision."""
    path = search.judgements_file()
    # An iteration whose papers were all judged before needs no file: their labels carry over.
    data = read_json(str(path), "judgements") if path.exists() else []
    problems = schema_errors("iteration_judgements", data)
    if problems:
        raise BadInput(f"{path}: {problems[0]}", code="bad_judgements")
    given = data if isinstance(data, list) else data["judgements"]
    remembered = [] if isinstance(data, list) else data.get("remembered", [])
    with open_store(create=False) as store:
        papers = iteration_papers(store, search, search.iteration)
        earlier = earlier_identities(store, search, search.iteration)
        below = readorder.unread(search)  # still below the listing's cut: recorded as unread
        refs = searchfolder.recorded_refs(search)
        before = searchfolder.earlier_labels(store, search) if refs else {}
        by_key = {j["key"]: j for j in given}
        per_run: dict[int, list[dict[str, object]]] = {}
        not_read: dict[int, list[str]] = {}
        missing = []
        for paper in papers:
            carried = next((earlier[i] for i in identities(paper) if i in earlier), None)
            if carried is None and (ref := searchfolder.recorded_as(paper.record, paper.key, refs)):
                carried = _recorded(
                    ref, next((before[i] for i in identities(paper) if i in before), None)
                )
            judgement = by_key.pop(paper.key, None) or carried
            if judgement is None and paper.key in below:
                for run_id, key in paper.members:
                    not_read.setdefault(run_id, []).append(key)
                continue
            if judgement is None:
                missing.append(paper.key)
                continue
            fields = {k: judgement[k] for k in ("label", "confidence", "rationale")}
            for run_id, key in paper.members:
                per_run.setdefault(run_id, []).append({"key": key, **fields})
        if by_key:
            raise BadInput(
                f"{path}: no paper of iteration {search.iteration} is listed as "
                + ", ".join(list(by_key)[:SHOWN_MISSING])
                + "; use the keys the listing shows",
                code="unknown_key",
            )
        if missing:
            more = (
                f" and {len(missing) - SHOWN_MISSING} more" if len(missing) > SHOWN_MISSING else ""
            )
            raise BadInput(
                f"{path}: {len(missing)} listed papers are not judged: "
                f"{', '.join(missing[:SHOWN_MISSING])}{more}; judge every one",
                code="not_judged",
            )
        for run_id, judgements in per_run.items():
            store.record_judgements(run_id, judgements)
        for run_id, keys in not_read.items():
            store.record_unread(run_id, keys)
        stored = [
            j for run_id in search.run_ids(search.iteration) for j in store.judgements(run_id)
        ]
        runs = [store.run(run_id) for run_id in search.run_ids(search.iteration)]
        judged_before = earlier_judgements(store, search)
    if remembered:
        searchfolder.write_json(search.folder / MEMORY, _remembered(search, remembered))
    unread = {key for keys in not_read.values() for key in keys}
    labels = {
        paper.key: _label(paper, stored)
        for paper in papers
        if not any(key in unread for _, key in paper.members)
    }
    result: dict[str, object] = {"iteration": search.iteration, "papers": len(papers)}
    result.update({label: sum(v == label for v in labels.values()) for label in LABELS})
    if remembered:
        result["remembered"] = len(remembered)
    if unread_papers := len(papers) - len(labels):
        result["unread"] = unread_papers
    result.update(decide(search, runs, stored, judged_before, for_model=True))
    return result


def _recorded(ref: str, judged: Judgement | None) -> Judgement:
    """The judgement a paper LITERATURE.md records as `ref` carries into a follow-up search: its
    earlier label when the run store has one, else partial (it is a confirmed reference)."""
    why = f"recorded as {ref} in LITERATURE.md"
    if judged is not None:
        return {**judged, "rationale": f"{why}; {judged.get('rationale') or ''}".rstrip("; ")}
    return {"key": "", "label": "partial", "confidence": 1.0, "rationale": why}


def _label(paper: FoundPaper, stored: list[Judgement]) -> str:
    keys = {key for _, key in paper.members}
    label: str = next(j["label"] for j in stored if j["key"] in keys)
    return label


def _remembered(search: Search, remembered: list[dict[str, object]]) -> list[dict[str, object]]:
    """The remembered papers, added to those of earlier iterations, each with a key and the
    source `memory`."""
    path = search.folder / MEMORY
    kept = read_json(str(path), "remembered papers") if path.exists() else []
    for item in remembered:
        item = {"source": MEMORY_SOURCE, **item}
        item.setdefault("key", f"memory-{len(kept) + 1}")
        if item not in kept:
            kept.append(item)
    return kept


def check_refined(search: Search, query: str) -> tuple[str | None, str]:
    """Whether the loop's rule lets the model's refined query be the search's next iteration:
    (None, the memo to search it with); (why, "") when the query repeats an earlier one, which
    ends the loop. BadInput when the iteration cap stopped the loop, or papers are still
    unjudged."""
    with open_store(create=False) as store:
        check_judged(store, search, "refining")
        runs = [store.run(run_id) for run_id in search.run_ids(search.iteration)]
        judgements = [j for run in runs for j in store.judgements(run["run_id"])]
        earlier = [run["query"] for run in store.prior_queries(search.problem)]
        judged_before = earlier_judgements(store, search)
    decided = decide(search, runs, judgements, judged_before)
    if decided["decision"] == "stop" and search.iteration >= refinement.MAX_ITERATIONS:
        raise BadInput(f"the loop has stopped ({decided['reason']}): verify", code="stopped")
    checked = refinement.check_refined(query, earlier)
    if checked.stop:
        return checked.reason, ""
    # below the cap the model may search on after a stop: the task asked for more than it found
    return None, str(decided.get("memo") or refinement.memo(search.iteration, runs, judgements))


def earlier_judgements(store: RunStore, search: Search) -> list[Judgement]:
    """The judgements of the search's iterations before its current one."""
    return [
        j
        for item in search.iterations
        if item["number"] < search.iteration
        for run_id in search.run_ids(item["number"])
        for j in store.judgements(run_id)
    ]


def decide(
    search: Search,
    runs: list[Run],
    judgements: list[Judgement],
    earlier: list[Judgement],
    for_model: bool = False,
) -> dict[str, object]:
    """The loop's rule after an iteration: `stop` (verify next) or `refine` with the memo (the
    model's, pointing to its own rationales, when `for_model`); `earlier`, the judgements of the
    search's earlier iterations."""
    refs = searchfolder.recorded_refs(search)
    recorded = {
        j["key"]: ref
        for j in judgements
        if (ref := searchfolder.recorded_as(j.get("record") or {}, j["key"], refs))
    }  # found again, recorded already: not a new strong hit
    focus = search.focus if search.focus and not search.first_search else None
    if focus and not refinement.searched(focus, [run["query"] for run in runs]):
        focus = None  # not searched in this iteration (a refined query's): the loop's other rules
    decision = refinement.after_iteration(
        search.iteration, judgements, recorded=recorded, focus=focus, earlier=earlier
    )
    if decision.stop:
        return {"decision": "stop", "reason": decision.reason}
    written = search.judgements_file()  # none when every paper's judgement carried over
    rationales = None
    if for_model and written.exists():
        rationales = (f"R/{written.name}", written_keys(written))
    memo = refinement.memo(search.iteration, runs, judgements, rationales)
    return {"decision": "refine", "reason": decision.reason, "memo": memo}


def written_keys(path: Path) -> set[str]:
    """The keys a judgements file the model wrote holds (its rationales are there)."""
    content = read_json(str(path), "judgements")
    items = content.get("judgements") if isinstance(content, dict) else content
    return {str(i.get("key")) for i in items or [] if isinstance(i, dict)}
