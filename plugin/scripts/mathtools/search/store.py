"""The SQLite run store: every search run and every paper judgement (the persistence layer of the
refinement loop).

A run is one query sent to one source in one iteration of the loop for one problem, with the
feedback memo that shaped it and the papers it returned (taken from the search_result files, so
the model never retypes metadata). A judgement labels one of a run's papers `strong`, `partial` or
`irrelevant`, with a confidence clamped to [0, 1], a rationale, and the paper's raw record as JSON.
A paper the listing left below its cut when its iteration was judged is recorded as unread
(`record_unread`): not judged, and no longer waiting for a judgement.

The database lives at `.math/literature.db` (config.literature_db: a --db flag, else
MATH_LITERATURE_DB). Its schema version is SQLite's `user_version`; `MIGRATIONS[n]` takes version n
to n + 1, each in one transaction, so an old store is upgraded on first open and a store from a
newer version of the plugin is refused rather than misread.

    >>> store = open_store()
    >>> run = store.record_run("spectral-gap", "spectral gap graphs", "semantic_scholar", 1,
    ...                        results=[search_result])
    >>> store.record_judgements(run["run_id"], [{"key": "arXiv:2104.12255", "label": "strong",
    ...                         "confidence": 0.9, "rationale": "proves the bound"}])
"""

from __future__ import annotations

import contextlib
import json
import math
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TypedDict, cast

from ..core import (
    LABELS,
    RUNS,
    BadInput,
    EnvironmentProblem,
    Judgement,
    PaperDict,
    Relaxation,
    SearchResultDict,
    check_slug,
    stamp,
)
from .querylines import normalise_query_line, query_summary

# The largest integer SQLite stores: a run id or iteration beyond it cannot name anything.
SQLITE_MAX_INT = 2**63 - 1


class Run(TypedDict):
    """One run as the store gives it back."""

    run_id: int
    problem: str
    query: str  # its query lines, '; '-joined (or the refined query as typed)
    source: str
    iteration: int
    feedback: str | None
    created_at: str
    result_count: int
    total_results: int | None
    relaxations: list[Relaxation]  # each with the query_line it relaxed
    judged: dict[str, int]  # label -> how many of its papers have it
    unread: int  # its papers left below the listing's cut, never read (so never judged)


class PriorQuery(TypedDict):
    run_id: int
    query: str
    source: str
    iteration: int
    feedback: str | None
    strong: int  # its papers judged strong


class HistoryRow(TypedDict):
    summary: str
    results: dict[str, int]  # by source: the results its runs returned


MIGRATIONS: list[str] = [
    # 0 -> 1: runs, the papers each run returned, and judgements of those papers.
    """
    CREATE TABLE runs (
        run_id        INTEGER PRIMARY KEY,
        problem       TEXT NOT NULL,
        query         TEXT NOT NULL,
        source        TEXT NOT NULL CHECK (source IN ('arxiv', 'semantic_scholar')),
        iteration     INTEGER NOT NULL,
        feedback      TEXT,
        created_at    TEXT NOT NULL,
        result_count  INTEGER NOT NULL,
        total_results INTEGER
    );
    CREATE INDEX runs_by_problem ON runs (problem, run_id);
    CREATE TABLE run_papers (
        run_id   INTEGER NOT NULL REFERENCES runs (run_id),
        position INTEGER NOT NULL,
        key      TEXT NOT NULL,
        record   TEXT NOT NULL,
        PRIMARY KEY (run_id, key)
    );
    CREATE TABLE judgements (
        run_id     INTEGER NOT NULL REFERENCES runs (run_id),
        key        TEXT NOT NULL,
        label      TEXT NOT NULL CHECK (label IN ('strong', 'partial', 'irrelevant')),
        confidence REAL NOT NULL CHECK (confidence BETWEEN 0 AND 1),
        rationale  TEXT NOT NULL,
        record     TEXT NOT NULL,
        judged_at  TEXT NOT NULL,
        PRIMARY KEY (run_id, key)
    );
    """,
    # 1 -> 2: which looser form answered a run's empty searches (relaxation.py), a JSON list of
    # {"query_line", "step", "query", "dropped"?}; NULL when every search answered as planned.
    """
    ALTER TABLE runs ADD COLUMN relaxations TEXT
    """,
    # 2 -> 3: runs of zbMATH Open and Crossref too. SQLite cannot change a CHECK, so the table is
    # rebuilt (SQLite's documented procedure; migrate() turns foreign keys off around it).
    """
    CREATE TABLE runs_new (
        run_id        INTEGER PRIMARY KEY,
        problem       TEXT NOT NULL,
        query         TEXT NOT NULL,
        source        TEXT NOT NULL
                      CHECK (source IN ('arxiv', 'semantic_scholar', 'zbmath', 'crossref')),
        iteration     INTEGER NOT NULL,
        feedback      TEXT,
        created_at    TEXT NOT NULL,
        result_count  INTEGER NOT NULL,
        total_results INTEGER,
        relaxations   TEXT
    );
    INSERT INTO runs_new SELECT * FROM runs;
    DROP TABLE runs;
    ALTER TABLE runs_new RENAME TO runs;
    CREATE INDEX runs_by_problem ON runs (problem, run_id);
    """,
    # 3 -> 4: a relaxation names its query's query line "query_line" (it was "label"). The JSON is
    # ours (json.dumps: `"key": value`), and a quote inside a value is escaped, so only keys match.
    """
    UPDATE runs SET relaxations = REPLACE(relaxations, '"label": ', '"query_line": ')
    WHERE relaxations IS NOT NULL
    """,
    # 4 -> 5: the papers of a run the model never read (ranked below the listing's cut when the
    # iteration was judged): recorded as unread, not as a label nobody gave.
    """
    CREATE TABLE unread (
        run_id    INTEGER NOT NULL REFERENCES runs (run_id),
        key       TEXT NOT NULL,
        noted_at  TEXT NOT NULL,
        PRIMARY KEY (run_id, key)
    );
    """,
]


def clamp(value: float) -> float:
    return min(max(float(value), 0.0), 1.0)


def _empty(path: Path) -> bool:
    try:
        return path.is_file() and path.stat().st_size == 0
    except OSError:
        return False


def open_store(override: str | None = None, create: bool = True) -> RunStore:
    """The workspace's run store: `override` (a --db flag), else MATH_LITERATURE_DB, else
    <workspace>/.math/literature.db. `create=False` for a use that only reads it."""
    # config costs 60 ms at start-up: only opening the workspace's store needs it
    from ..core import literature_db

    return RunStore(literature_db(override), create)


def stored_query_lines(slug: str, db: Path | None = None) -> set[str]:
    """Normalised query lines of the problem's runs in the run store (empty when there is no
    store: reading never creates one). The Search History shows a short summary; the run store
    keeps every query line in full."""
    # config costs 60 ms at start-up: only opening the workspace's store needs it
    from ..core import literature_db

    path = literature_db(str(db) if db else None)
    if not path.exists():
        return set()
    with RunStore(path) as store:
        queries = [run["query"] for run in store.prior_queries(slug)]
    return {
        normalise_query_line(part) for query in queries for part in query.split(";") if part.strip()
    }


class RunStore:
    """The run store at `path`, migrated on first use; created there unless `create` is False
    (reading never creates a store: BadInput naming it when there is none)."""

    def __init__(self, path: Path | str, create: bool = True):
        self.path = Path(path)
        if not create and (not self.path.exists() or _empty(self.path)):
            # an empty file is no store either: a read must not write a schema into it
            raise BadInput(
                f"there is no run store at {self.path} (lit_update.py record-run creates it)",
                code="no_store",
            )
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            self.db.row_factory = sqlite3.Row
            self.db.execute("PRAGMA foreign_keys = ON")
            self.migrate()
        except sqlite3.DatabaseError as exc:
            raise EnvironmentProblem(
                f"run store {self.path} is not usable: {exc}", code="bad_store"
            ) from None

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def version(self) -> int:
        return int(self.db.execute("PRAGMA user_version").fetchone()[0])

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """One write transaction, taken at once so concurrent writers queue instead of deadlock."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def migrate(self) -> None:
        """Bring the schema to len(MIGRATIONS), a transaction per step; concurrent openers wait.
        Foreign keys are off meanwhile (a step may rebuild a table others refer to) and checked
        before each step commits."""
        if self.version < len(MIGRATIONS):
            self.db.execute("PRAGMA foreign_keys = OFF")  # no effect inside a transaction
            try:
                self._migrate()
            finally:
                self.db.execute("PRAGMA foreign_keys = ON")
        if self.version > len(MIGRATIONS):
            raise EnvironmentProblem(
                f"run store {self.path} has schema version {self.version}, newer than this "
                f"plugin's {len(MIGRATIONS)}; update the plugin",
                code="store_too_new",
            )

    def _migrate(self) -> None:
        while self.version < len(MIGRATIONS):
            with self.transaction():
                version = self.version  # another process may have migrated while we waited
                if version < len(MIGRATIONS):
                    for statement in MIGRATIONS[version].split(";"):
                        if statement.strip():
                            self.db.execute(statement)
                    if self.db.execute("PRAGMA foreign_key_check").fetchone() is not None:
                        raise sqlite3.DatabaseError("a migration broke a foreign key")
                    self.db.execute(f"PRAGMA user_version = {version + 1}")

    def record_run(
        self,
        problem: str,
        query: str,
        source: str,
        iteration: int,
        feedback: str | None = None,
        results: Iterable[SearchResultDict] = (),
    ) -> Run:
        """Store one run and the papers its search_result files hold; returns the run."""
        check_slug(problem)  # the loop finds the problem's files, and its runs, by this slug
        if source not in RUNS:
            raise BadInput(f"source must be one of {', '.join(RUNS)}, not {source!r}")
        if not 1 <= iteration <= SQLITE_MAX_INT:
            raise BadInput(f"iteration counts from 1, not {iteration}")
        papers: dict[str, PaperDict] = {}
        totals = []
        relaxations: list[Relaxation] = []
        for result in results:
            totals.append(result.get("total_results"))
            for paper in result.get("papers", []):
                papers.setdefault(paper["key"], paper)
            if result.get("relaxation"):
                relaxations.append(
                    {"query_line": result.get("query_line") or query, **result["relaxation"]}
                )
        known = [count for count in totals if count is not None]
        total = sum(known) if known and len(known) == len(totals) else None
        relaxed = json.dumps(relaxations, ensure_ascii=False) if relaxations else None
        with self.transaction():
            cursor = self.db.execute(
                "INSERT INTO runs (problem, query, source, iteration, feedback, created_at,"
                " result_count, total_results, relaxations) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (problem, query, source, iteration, feedback, stamp(), len(papers), total, relaxed),
            )
            run_id = cursor.lastrowid
            assert run_id is not None  # an INSERT into a rowid table always sets it
            self.db.executemany(
                "INSERT INTO run_papers (run_id, position, key, record) VALUES (?, ?, ?, ?)",
                [
                    (run_id, position, key, json.dumps(paper, ensure_ascii=False))
                    for position, (key, paper) in enumerate(papers.items())
                ],
            )
        return self.run(run_id)

    def run(self, run_id: int) -> Run:
        if not 1 <= run_id <= SQLITE_MAX_INT:
            raise BadInput(f"no run {run_id} in {self.path}", code="unknown_run")
        row = self.db.execute("SELECT * FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        if row is None:
            raise BadInput(f"no run {run_id} in {self.path}", code="unknown_run")
        return self._run_dict(row)

    def _run_dict(self, row: sqlite3.Row) -> Run:
        run = cast(Run, dict(row))  # the runs table's columns, relaxations still JSON text
        text = dict(row).get("relaxations")
        run["relaxations"] = json.loads(text) if text else []
        counts: dict[str, int] = dict.fromkeys(LABELS, 0)
        for label, count in self.db.execute(
            "SELECT label, COUNT(*) FROM judgements WHERE run_id = ? GROUP BY label",
            (run["run_id"],),
        ):
            counts[label] = count
        run["judged"] = counts
        (run["unread"],) = self.db.execute(
            "SELECT COUNT(*) FROM unread WHERE run_id = ?", (run["run_id"],)
        ).fetchone()
        return run

    def runs(self, problem: str | None = None) -> list[Run]:
        """Every run (of `problem`), oldest first."""
        if problem is None:
            rows = self.db.execute("SELECT * FROM runs ORDER BY run_id").fetchall()
        else:
            rows = self.db.execute(
                "SELECT * FROM runs WHERE problem = ? ORDER BY run_id", (problem,)
            ).fetchall()
        return [self._run_dict(row) for row in rows]

    def history_row(self, run_ids: Iterable[int]) -> HistoryRow:
        """What LITERATURE.md's Search History records for a search made of these runs: a short
        readable query summary (querylines.query_summary: each query's search words, and how
        an empty one was relaxed; the full query lines stay here) and the papers each source
        returned
        (lit_update.py merge's summary and results)."""
        from .relaxation import describe  # 190 ms (the arXiv and zbMATH clients): only here

        runs = [self.run(run_id) for run_id in dict.fromkeys(run_ids)]
        found = dict.fromkeys(RUNS, 0)
        for run in runs:
            found[run["source"]] += run["result_count"]
        lines = [part.strip() for run in runs for part in run["query"].split(";")]
        relaxed = {
            item["query_line"]: describe(item) for run in runs for item in run["relaxations"]
        }
        return {
            "summary": query_summary([line for line in lines if line], relaxed),
            "results": found,
        }

    def papers(self, run_id: int) -> dict[str, PaperDict]:
        """The papers a run returned, key -> raw record, in the order the source gave them."""
        self.run(run_id)
        rows = self.db.execute(
            "SELECT key, record FROM run_papers WHERE run_id = ? ORDER BY position", (run_id,)
        )
        return {key: json.loads(record) for key, record in rows}

    def record_judgements(
        self, run_id: int, judgements: Sequence[Mapping[str, object]]
    ) -> list[Judgement]:
        """Store labels for papers of run `run_id` (a key judged again is replaced).

        Every judgement is checked before any is stored: an unknown label or a key the run did not
        return is BadInput naming it. Confidence is clamped to [0, 1].
        """
        papers = self.papers(run_id)
        rows = []
        for number, item in enumerate(judgements, start=1):
            key, label = item.get("key"), item.get("label")
            if label not in LABELS:
                raise BadInput(
                    f"judgement {number} ({key}): label {label!r} is not one of "
                    + ", ".join(LABELS),
                    code="unknown_label",
                )
            if key not in papers:
                known = ", ".join(list(papers)[:5]) or "none (record the run with --results)"
                raise BadInput(
                    f"judgement {number}: run {run_id} returned no paper {key!r}; "
                    f"its keys: {known}",
                    code="unknown_key",
                )
            given = item.get("confidence", 0)
            try:
                confidence = float(given) if isinstance(given, int | float | str) else math.nan
            except ValueError:
                confidence = math.nan
            if not math.isfinite(confidence):  # NaN would break the store's CHECK
                raise BadInput(
                    f"judgement {number} ({key}): confidence {item.get('confidence')!r} "
                    "is not a finite number between 0 and 1",
                    code="bad_confidence",
                )
            confidence = clamp(confidence)
            record = json.dumps(papers[key], ensure_ascii=False)
            rows.append(
                (run_id, key, label, confidence, item.get("rationale") or "", record, stamp())
            )
        with self.transaction():
            self.db.executemany(
                "INSERT OR REPLACE INTO judgements (run_id, key, label, confidence, rationale,"
                " record, judged_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
            self.db.executemany(  # a paper judged is read
                "DELETE FROM unread WHERE run_id = ? AND key = ?", [row[:2] for row in rows]
            )
        return self.judgements(run_id)

    def record_unread(self, run_id: int, keys: Iterable[str]) -> None:
        """Record papers of run `run_id` as not read (ranked below the listing's cut): no
        judgement, and none awaited. A key the run did not return is BadInput naming it."""
        papers = self.papers(run_id)
        keys = list(keys)
        for key in keys:
            if key not in papers:
                raise BadInput(f"run {run_id} returned no paper {key!r}", code="unknown_key")
        with self.transaction():
            self.db.executemany(
                "INSERT OR IGNORE INTO unread (run_id, key, noted_at) VALUES (?, ?, ?)",
                [(run_id, key, stamp()) for key in keys],
            )

    def unjudged(self, run_id: int) -> list[str]:
        """The keys of a run's papers that have no judgement yet and are not recorded as unread,
        in the order they came back."""
        self.run(run_id)
        rows = self.db.execute(
            "SELECT p.key FROM run_papers p LEFT JOIN judgements j"
            " ON j.run_id = p.run_id AND j.key = p.key"
            " LEFT JOIN unread u ON u.run_id = p.run_id AND u.key = p.key"
            " WHERE p.run_id = ? AND j.key IS NULL AND u.key IS NULL ORDER BY p.position",
            (run_id,),
        )
        return [key for (key,) in rows]

    def judgements(self, run_id: int) -> list[Judgement]:
        """A run's judgements in the order its papers came back, records decoded."""
        self.run(run_id)
        rows = self.db.execute(
            "SELECT j.* FROM judgements j"
            " JOIN run_papers p ON p.run_id = j.run_id AND p.key = j.key"
            " WHERE j.run_id = ? ORDER BY p.position",
            (run_id,),
        )
        return [cast(Judgement, {**dict(row), "record": json.loads(row["record"])}) for row in rows]

    def prior_queries(self, problem: str) -> list[PriorQuery]:
        """What the loop must not repeat: each earlier (query, source) of `problem`, with the
        iteration, the run and how many strong hits it found."""
        rows = self.db.execute(
            "SELECT r.run_id, r.query, r.source, r.iteration, r.feedback,"
            " (SELECT COUNT(*) FROM judgements j WHERE j.run_id = r.run_id"
            "  AND j.label = 'strong') AS strong"
            " FROM runs r WHERE r.problem = ? ORDER BY r.run_id",
            (problem,),
        )
        return [cast(PriorQuery, dict(row)) for row in rows]
