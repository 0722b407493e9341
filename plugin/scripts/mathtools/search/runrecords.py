"""Search runs as lit_update.py records and shows them: runs recorded from search_result files
(`--results` paths or patterns), one run's judgements stored, and the run store's runs and
judgements as readable tables. The run store itself is store.py."""

from __future__ import annotations

import glob
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..core import (
    LABELS,
    BadInput,
    Judgement,
    SearchResultDict,
    is_digits,
    read_json,
    schema_errors,
)
from .store import RunStore

SHOWN_UNJUDGED = 5
TABLE_WIDTH = 48  # characters a table cell keeps

Columns = list[tuple[str, Callable[[Mapping[str, Any]], object]]]
RUN_COLUMNS: Columns = [
    ("run", lambda r: r["run_id"]),
    ("problem", lambda r: r["problem"]),
    ("iter", lambda r: r["iteration"]),
    ("source", lambda r: r["source"]),
    ("results", lambda r: r["result_count"]),
    ("s/p/i", lambda r: "/".join(str(n) for n in r["judged"].values())),
    ("unread", lambda r: r["unread"]),
    ("time", lambda r: r["created_at"]),
    ("query", lambda r: r["query"]),
]
JUDGEMENT_COLUMNS: Columns = [
    ("key", lambda j: j["key"]),
    ("label", lambda j: j["label"]),
    ("conf", lambda j: f"{j['confidence']:.2f}"),
    ("title", lambda j: j["record"].get("title", "")),
    ("rationale", lambda j: j["rationale"]),
]


def result_files(values: list[str]) -> list[str]:
    """The --results files: each value a path, or a pattern (`RUN/i1-*.json`) when the shell
    did not expand it; a pattern matching nothing is an error, never an empty run."""

    def natural(name: str) -> list[int | str]:  # i1-arxiv-2 before i1-arxiv-10
        return [int(part) if is_digits(part) else part for part in re.split(r"(\d+)", name)]

    names = []
    for value in values:
        if glob.has_magic(value) and not Path(value).exists():
            found = sorted(glob.glob(value), key=natural)
            if not found:
                raise BadInput(f"no search result file matches {value}", code="file_not_found")
            names += found
        else:
            names.append(value)
    return list(dict.fromkeys(names))


def runs_of(
    results: list[str], source: str | None = None, query: str | None = None
) -> dict[str, list[SearchResultDict]]:
    """The search results of the `results` files by source (all of them `source`'s when given),
    each checked: a search result that says which call made it (unless `query` names it)."""
    runs: dict[str, list[SearchResultDict]] = {}  # source -> its search results, in given order
    for name in result_files(results):
        data: SearchResultDict = read_json(name, "search result")  # checked just below
        problems = schema_errors("search_result", data)
        if problems:
            raise BadInput(f"{name} is not a search result: {problems[0]}")
        if not (query or data.get("query_line")):
            raise BadInput(f"{name} does not say which call made it: give --query")
        runs.setdefault(source or data["source"], []).append(data)
    if not runs:
        if not source or not query:
            raise BadInput("a run without --results needs --source and --query", code="usage")
        runs[source] = []
    return runs


def record_runs(
    store: RunStore,
    problem: str,
    iteration: int,
    runs: dict[str, list[SearchResultDict]],
    query: str | None = None,
    feedback: str | None = None,
) -> list[dict[str, object]]:
    """One run per source of `runs` (runs_of), its query the labels of the calls that wrote
    its results (or `query`); each run's id, source and result count."""
    recorded: list[dict[str, object]] = []
    for source, found in runs.items():
        asked = query or "; ".join(dict.fromkeys(r["query_line"] for r in found))
        run = store.record_run(problem, asked, source, iteration, feedback, found)
        recorded.append({k: run[k] for k in ("run_id", "source", "result_count")})
    return recorded


def check_judgements(judgements: object, where: str) -> list[Judgement]:
    """One run's judgements as read from `where`: a JSON list per schemas/judgements.schema.json
    (an unknown label is left to the store, whose message names the labels)."""
    if not isinstance(judgements, list):
        raise BadInput(f"{where}: judgements must be a JSON list")
    problems = [p for p in schema_errors("judgements", judgements) if "label" not in p]
    if problems:
        raise BadInput(f"{where}: {problems[0]}")
    return judgements  # the schema's judgements, each label still to check (the store does)


def record_judgements(
    store: RunStore, run_id: int, judgements: list[Judgement]
) -> dict[str, object]:
    """Store one run's judgements (check_judgements); how many per label, how many of the run's
    papers are judged, and the first few still unjudged."""
    stored = store.record_judgements(run_id, judgements)
    unjudged = store.unjudged(run_id)
    by_label: dict[str, int] = {label: sum(j["label"] == label for j in stored) for label in LABELS}
    done: dict[str, object] = {"judged": f"{len(stored)} of {len(stored) + len(unjudged)}"}
    if unjudged:
        more = (
            [f"and {len(unjudged) - SHOWN_UNJUDGED} more"] if len(unjudged) > SHOWN_UNJUDGED else []
        )
        done["unjudged"] = unjudged[:SHOWN_UNJUDGED] + more
    return {"run_id": run_id, "recorded": len(stored), **by_label, **done}


def table(
    items: Sequence[Mapping[str, Any]], columns: Columns, width: int = TABLE_WIDTH
) -> list[str]:
    """One padded row per item under a header, long cells cut at `width` characters."""

    def cut(value: object) -> str:
        text = " ".join(str(value).split())
        return text if len(text) <= width else text[: width - 1] + "…"

    cells = [[name for name, _ in columns]]
    cells += [[cut(value(item)) for _, value in columns] for item in items]
    widths = [max(len(row[i]) for row in cells) for i in range(len(columns))]
    lines = []
    for n, row in enumerate(cells):
        lines.append("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    if not items:
        lines.append("(none)")
    return lines
