"""The planned script calls: a query as the arguments of `arxiv_query.py`, `s2_lookup.py` or
`zbmath_lookup.py`, the --out file it writes in the search folder, the `lit_update.py record-run`
call that stores an iteration, and the command lines the runbook runs.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.errors import BadInput
from ..core.sources import PLANNED, QUERY_LINE_WORDS
from .querylines import query_line

MAX_PER_QUERY = 100  # results per search: Semantic Scholar's relevance search gives 100 at most


@dataclass
class Query:
    source: str  # a planned source (sources.PLANNED)
    origin: str  # keywords, tags, known, authors, browse, focus
    args: list[str]  # the script's arguments after the subcommand, without --out

    @property
    def query_line(self) -> str:
        return query_line(self.source, self.args)


def option(name: str, *values: str) -> list[str]:
    """Command-line arguments giving option `name` each of `values` (`--all a --all b`). A value
    that starts with '-' is joined to its name, `--query=-abc`: argparse reads `--query -abc` as
    two options and refuses it."""
    return [
        part
        for value in values
        for part in ([f"{name}={value}"] if value.startswith("-") else [name, value])
    ]


def check_per_query(per_query: int) -> None:
    """BadInput unless both search scripts accept `per_query` results (1..100): a plan's command
    lines must run as printed."""
    if not 1 <= per_query <= MAX_PER_QUERY:
        raise BadInput(
            f"--per-query must be between 1 and {MAX_PER_QUERY} (got {per_query})", code="usage"
        )


def results_stem(iteration: int, api: str, number: int) -> str:
    """The name of a search's --out file in the search folder, without `.json`: `i1-arxiv-2`. The
    iteration comes first so that one pattern, `i1-*.json`, names all of an iteration's files."""
    return f"i{iteration}-{QUERY_LINE_WORDS[api]}-{number}"


def record_run_args(
    slug: str, iteration: int, search_folder: str, feedback: str | None = None
) -> list[str]:
    """`lit_update.py record-run` arguments storing an iteration's searches, one run per source:
    the results are the iteration's --out files in `search_folder` (a pattern record-run
    expands), the queries the query lines those files carry. `feedback` is the memo, or `@FILE`
    holding it."""
    args = ["record-run", *option("--problem", slug), "--iteration", str(iteration)]
    if feedback:
        args += option("--feedback", feedback)
    return [*args, *option("--results", str(Path(search_folder) / f"i{iteration}-*.json"))]


def query_entry(query: Query, search_folder: str | None, stem: str) -> dict[str, Any]:
    """A query as the plan gives it; with `search_folder`, its args end with
    `--out <search_folder>/<stem>.json`."""
    args = list(query.args)
    if search_folder:
        args += option("--out", str(Path(search_folder) / f"{stem}.json"))
    return {"origin": query.origin, "query_line": query.query_line, "args": args}


def command_lines(plan_data: dict[str, Any]) -> list[str]:
    """The searches, then the run-store records, as the command lines the runbook runs."""
    scripts = {
        "arxiv": "arxiv_query.py",
        "semantic_scholar": "s2_lookup.py",
        "zbmath": "zbmath_lookup.py",
    }
    lines = [
        f"{scripts[api]} {shlex.join(query['args'])}"
        for api in PLANNED
        for query in plan_data["queries"].get(api, [])  # a refined iteration: arXiv and S2
    ]
    record = plan_data.get("record_run")
    return lines + ([f"lit_update.py {shlex.join(record)}"] if record else [])
