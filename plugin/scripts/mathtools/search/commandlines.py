"""The planned script calls: a query typed per source (ArxivQuery, S2Query, ZbmathQuery), the
arguments of `arxiv_query.py`, `s2_lookup.py` or `zbmath_lookup.py` generated from it, the --out
file it writes in the search folder, the `lit_update.py record-run` call that stores an
iteration, and the command lines the runbook runs.

A plan stores each query typed (`"query"`: its source's fields); its `args` and query line are
generated from that, never read back. A plan written before queries were typed holds only `args`:
planned_query() reads those once, as the old format (migrated_query).
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal, TypedDict

from ..core import PLANNED, QUERY_LINE_WORDS, BadInput
from .querylines import query_line, split_options

MAX_PER_QUERY = 100  # results per query: Semantic Scholar's relevance search gives 100 at most


@dataclass(frozen=True)
class ArxivQuery:
    """An arxiv_query.py search: its options, in the order its arguments are written."""

    source: Literal["arxiv"] = "arxiv"
    title: tuple[str, ...] = ()
    abstract: tuple[str, ...] = ()
    all_terms: tuple[str, ...] = ()  # --all, AND-ed
    author: tuple[str, ...] = ()
    domain: str | None = None
    secondary: bool = False  # the domain's secondary categories too
    category: tuple[str, ...] = ()
    query: str | None = None  # raw arXiv syntax, never rewritten
    limit: int = 10
    relax: bool = True

    def args(self) -> list[str]:
        args = ["search", *option("--title", *self.title), *option("--abstract", *self.abstract)]
        args += [*option("--all", *self.all_terms), *option("--author", *self.author)]
        args += option("--domain", self.domain) if self.domain else []
        args += ["--secondary"] if self.secondary else []
        args += option("--category", *self.category)
        args += option("--query", self.query) if self.query is not None else []
        return args + ["--limit", str(self.limit)] + (["--relax"] if self.relax else [])


@dataclass(frozen=True)
class S2Query:
    """An s2_lookup.py relevance search."""

    source: Literal["semantic_scholar"] = "semantic_scholar"
    query: str = ""
    limit: int = 10
    relax: bool = True
    any_field: bool = False  # no fields-of-study filter (Mathematics by default)

    def args(self) -> list[str]:
        args = ["search", *option("--query", self.query), "--limit", str(self.limit)]
        args += ["--any-field"] if self.any_field else []
        return args + (["--relax"] if self.relax else [])


@dataclass(frozen=True)
class ZbmathQuery:
    """A zbmath_lookup.py search, restricted to MSC classes; zbMATH queries are not relaxed."""

    source: Literal["zbmath"] = "zbmath"
    title: str | None = None
    author: str | None = None
    query: str | None = None
    msc: tuple[str, ...] = ()
    limit: int = 10

    def args(self) -> list[str]:
        args = ["search", *(option("--title", self.title) if self.title else [])]
        args += option("--author", self.author) if self.author else []
        args += option("--query", self.query) if self.query else []
        return [*args, *option("--msc", *self.msc), "--limit", str(self.limit)]


TypedQuery = ArxivQuery | S2Query | ZbmathQuery


@dataclass
class Query:
    """One query of a plan: which of the protocol's sources suggested it, the typed query, and
    the --out file its results go to (None: no search folder)."""

    origin: str  # keywords, tags, known, authors, browse, focus, refined
    typed: TypedQuery
    out: str | None = None

    @property
    def source(self) -> str:
        return self.typed.source

    @property
    def args(self) -> list[str]:
        """The script's arguments, the subcommand first, with --out when there is one."""
        return self.typed.args() + (option("--out", self.out) if self.out else [])

    @property
    def query_line(self) -> str:
        return query_line(self.source, self.typed.args())

    def command_line(self) -> str:
        return f"{SCRIPTS[self.source]} {shlex.join(self.args)}"


SCRIPTS = {
    "arxiv": "arxiv_query.py",
    "semantic_scholar": "s2_lookup.py",
    "zbmath": "zbmath_lookup.py",
}


class QueryEntry(TypedDict):
    """A query as plan.json holds it (plan.schema.json's query): `query` typed, the rest
    generated from it."""

    origin: str
    query_line: str
    args: list[str]
    query: dict[str, Any]  # the typed query's fields (asdict), `source` first
    out: str | None


class _PlannedQueries(TypedDict):
    queries: dict[str, list[QueryEntry]]  # by source (sources.PLANNED)


class PlannedQueries(_PlannedQueries, total=False):
    """What command_lines reads: a plan's queries, and the record-run arguments that store
    them (plan.schema.json; a refined iteration's plan has these two only)."""

    record_run: list[str]


class Skipped(TypedDict):
    source: str
    query_line: str
    reason: str


class Plan(PlannedQueries):
    """planning.plan(): plan.schema.json (plan_queries.py adds the two file fields)."""

    problem: str
    domain: str | None
    categories: list[str]
    secondary_categories: list[str]
    msc_classes: list[str]
    terms: list[str]
    tags: list[str]
    known_results: list[str]
    reference_authors: list[str]
    skipped: list[Skipped]
    notes: list[str]
    reference_candidates: list[dict[str, object]]
    query_summary: str
    first_search: bool
    search_folder: str | None
    reference_candidates_file: str | None


def query_fields(typed: TypedQuery) -> dict[str, Any]:
    return {name: list(v) if isinstance(v, tuple) else v for name, v in asdict(typed).items()}


def typed_query(data: Mapping[str, Any]) -> TypedQuery:
    """A typed query from its plan.json fields (query_fields)."""
    fields = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
    kind = {"arxiv": ArxivQuery, "semantic_scholar": S2Query, "zbmath": ZbmathQuery}
    cls = kind.get(str(fields.get("source")))
    if cls is None:
        raise BadInput(
            f"a planned query of unknown source {fields.get('source')!r}", code="bad_plan"
        )
    try:
        typed: TypedQuery = cls(**fields)
        return typed
    except TypeError as exc:
        raise BadInput(f"a planned query that is not one: {exc}", code="bad_plan") from exc


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


def query_entry(query: Query, search_folder: str | None, stem: str) -> QueryEntry:
    """A query as the plan stores it; with `search_folder`, its results go to
    `<search_folder>/<stem>.json` (--out)."""
    out = str(Path(search_folder) / f"{stem}.json") if search_folder else None
    query = Query(query.origin, query.typed, out)
    return {
        "origin": query.origin,
        "query_line": query.query_line,
        "args": query.args,
        "query": query_fields(query.typed),
        "out": out,
    }


def planned_query(source: str, entry: QueryEntry | Mapping[str, Any]) -> Query:
    """A stored plan's query: typed from its `query`, or, in a plan written before queries were
    typed (only `args`), read from its arguments once (the old format's migration)."""
    if "query" in entry:
        typed = typed_query(entry["query"])
        return Query(str(entry.get("origin", "")), typed, entry.get("out"))
    args = [str(arg) for arg in entry.get("args", [])]
    typed, out = migrated_query(source, args)
    return Query(str(entry.get("origin", "")), typed, out)


def planned_queries(plan_data: PlannedQueries) -> dict[str, list[Query]]:
    """A stored plan's queries by source, typed (planned_query); a refined iteration has no
    zbMATH Open queries."""
    queries = plan_data["queries"]
    return {
        api: [planned_query(api, entry) for entry in queries.get(api, [])]
        for api in PLANNED
        if api in queries
    }


def command_lines(plan_data: PlannedQueries) -> list[str]:
    """The searches, then the run-store records, as the command lines the runbook runs: each
    generated from its typed query."""
    lines = [
        query.command_line() for found in planned_queries(plan_data).values() for query in found
    ]
    record = plan_data.get("record_run")
    return lines + ([f"lit_update.py {shlex.join(record)}"] if record else [])


# --- plans written before queries were typed --------------------------------------------------

# Options a planned query of the old format may carry, and whether each takes a value.
PLANNED_OPTIONS = {
    "--title": True, "--abstract": True, "--all": True, "--author": True, "--category": True,
    "--domain": True, "--secondary": False, "--query": True, "--max-results": True,
    "--limit": True, "--out": True, "--no-cache": False, "--relax": False, "--msc": True,
}  # fmt: skip


def planned_options(args: list[str]) -> list[tuple[str, str]]:
    """(option, value) pairs of an old plan entry's `args` (after the `search` subcommand); a
    flag's value is ""."""
    tokens = split_options(args[1:] if args[:1] == ["search"] else list(args))
    pairs: list[tuple[str, str]] = []
    at = 0
    while at < len(tokens):
        name = tokens[at]
        if name not in PLANNED_OPTIONS:
            raise BadInput(f"a planned query cannot carry {name!r}", code="bad_plan")
        if PLANNED_OPTIONS[name]:
            if at + 1 >= len(tokens):
                raise BadInput(f"{name} needs a value", code="bad_plan")
            pairs.append((name, tokens[at + 1]))
            at += 2
        else:
            pairs.append((name, ""))
            at += 1
    return pairs


def migrated_query(source: str, args: list[str]) -> tuple[TypedQuery, str | None]:
    """(the typed query, its --out file) of an old plan entry's arguments: the one place a
    query's arguments are read back, for plans stored before queries were typed."""
    pairs = planned_options(args)
    values: dict[str, list[str]] = {}
    for name, value in pairs:
        values.setdefault(name, []).append(value)

    def one(name: str) -> str | None:
        return values[name][-1] if name in values else None

    limit_text = one("--limit") or one("--max-results")  # arxiv_query.py's former name
    try:
        limit = int(limit_text) if limit_text else 10
    except ValueError as exc:
        raise BadInput(f"--limit {limit_text!r} is not a number", code="bad_plan") from exc
    relax = "--relax" in values
    typed: TypedQuery
    if source == "arxiv":
        typed = ArxivQuery(
            title=tuple(values.get("--title", [])),
            abstract=tuple(values.get("--abstract", [])),
            all_terms=tuple(values.get("--all", [])),
            author=tuple(values.get("--author", [])),
            domain=one("--domain"),
            secondary="--secondary" in values,
            category=tuple(values.get("--category", [])),
            query=one("--query"),
            limit=limit,
            relax=relax,
        )
    elif source == "zbmath":
        typed = ZbmathQuery(
            title=one("--title"),
            author=one("--author"),
            query=one("--query"),
            msc=tuple(v for v in values.get("--msc", []) if v),
            limit=limit,
        )
    elif source == "semantic_scholar":
        if not one("--query"):
            raise BadInput("a planned Semantic Scholar query needs --query", code="bad_plan")
        typed = S2Query(query=one("--query") or "", limit=limit, relax=relax)
    else:
        raise BadInput(f"a planned query of unknown source {source!r}", code="bad_plan")
    return typed, one("--out")
