"""The SQLite run store (scripts/mathtools/store.py) and lit_update.py record-run / judge / runs /
judgements. Search results are synthesized with SearchResult (tests/support/verified.py papers)."""

from __future__ import annotations

import json
import sqlite3

import pytest
from mathtools.core.errors import BadInput, EnvironmentProblem
from mathtools.core.records import Paper, SearchResult
from mathtools.search import store
from support.verified import paper


def search_result(numbers, source="semantic_scholar", total=None, query="spectral gap"):
    papers = [Paper.from_dict(paper(n, source)) for n in numbers]
    return SearchResult(source, "search", ["https://example.org/q"], papers, [], total, query)


def record_run(script, *extra, problem="p", query="q", source="arxiv"):
    return script(
        "lit_update.py",
        "record-run",
        "--problem",
        problem,
        "--query",
        query,
        "--source",
        source,
        "--iteration",
        "1",
        *extra,
    )


@pytest.fixture
def results_file(tmp_path):
    def write(name, numbers, **kw):
        path = tmp_path / name
        path.write_text(json.dumps(search_result(numbers, **kw).to_dict()))
        return str(path)

    return write


def test_record_run_counts_the_results_files(script, results_file, tmp_path):
    first = results_file("a.json", [1, 2, 3], total=120)
    second = results_file("b.json", [3, 4], total=80)
    run = record_run(
        script,
        "--feedback",
        "too broad",
        "--results",
        first,
        second,
        problem="spectral-gap",
        query="gap",
        source="semantic_scholar",
    )
    assert run.returncode == 0, run.stdout
    # one line: the run id and its paper count (paper 3 counted once), nothing echoed
    assert run.stdout.splitlines() == [
        '{"runs": [{"run_id": 1, "source": "semantic_scholar", "result_count": 4}]}'
    ]
    (data,) = script("lit_update.py", "runs").json()
    assert (data["result_count"], data["total_results"]) == (4, 200)
    assert (data["problem"], data["query"], data["feedback"]) == (
        "spectral-gap",
        "gap",
        "too broad",
    )
    assert (tmp_path / "literature.db").exists()  # MATH_LITERATURE_DB (set by conftest)


def test_record_run_takes_a_pattern_and_records_one_run_per_source(script, tmp_path):
    """The runbook's record-run: no --query, no --source; the files say which call made them."""
    for name, numbers, source, line in (
        ("i1-arxiv-1.json", [1, 2], "arxiv", 'arxiv --all "spectral gap"'),
        ("i1-s2-1.json", [2, 3], "semantic_scholar", 's2 --query "spectral gap"'),
        ("i1-arxiv-2.json", [4], "arxiv", "arxiv --author Alon"),
        ("i1-arxiv-10.json", [5], "arxiv", "arxiv --author Tao"),
        ("i2-arxiv-1.json", [6], "arxiv", "arxiv later"),  # another iteration: not matched
    ):
        result = search_result(numbers, source=source)
        result.query_line = line
        (tmp_path / name).write_text(json.dumps(result.to_dict()))
    pattern = str(tmp_path / "i1-*.json")  # as the shell passes it when quoted
    run = script("lit_update.py", "record-run", "--problem", "p", "--iteration", "1",
                 "--feedback", "@" + str(write_memo(tmp_path)), "--results", pattern)  # fmt: skip
    assert run.returncode == 0, run.stdout
    assert run.json()["runs"] == [
        {"run_id": 1, "source": "arxiv", "result_count": 4},
        {"run_id": 2, "source": "semantic_scholar", "result_count": 2},
    ]
    runs = script("lit_update.py", "runs").json()
    assert runs[0]["query"] == 'arxiv --all "spectral gap"; arxiv --author Alon; arxiv --author Tao'
    assert runs[1]["query"] == 's2 --query "spectral gap"'
    assert runs[0]["feedback"] == runs[1]["feedback"] == "partial: misses the constant\n"


def write_memo(tmp_path):
    path = tmp_path / "feedback-i1.md"
    path.write_text("partial: misses the constant\n")
    return path


def test_record_run_refuses_an_empty_pattern_and_a_file_without_a_query_line(script, tmp_path):
    args = ["record-run", "--problem", "p", "--iteration", "1", "--results"]
    run = script("lit_update.py", *args, str(tmp_path / "i9-*.json"))
    assert run.returncode == 2 and run.json()["error"]["code"] == "file_not_found"
    without_line = tmp_path / "old.json"
    without_line.write_text(json.dumps(search_result([1]).to_dict()))
    run = script("lit_update.py", *args, str(without_line))
    assert run.returncode == 2 and "give --query" in run.json()["error"]["message"]
    assert script("lit_update.py", "runs").json() == []


def test_judge_takes_the_records_from_the_run_and_clamps_confidence(script, results_file, tmp_path):
    results = results_file("a.json", [1, 2, 3])
    record_run(script, "--results", results, source="semantic_scholar")
    keys = [paper(n, "semantic_scholar")["key"] for n in (1, 2, 3)]
    judgements = tmp_path / "j.json"
    judgements.write_text(
        json.dumps(
            [
                {"key": keys[2], "label": "strong", "confidence": 1.7, "rationale": "proves it"},
                {
                    "key": keys[0],
                    "label": "irrelevant",
                    "confidence": -0.2,
                    "rationale": "other field",
                },
            ]
        )
    )
    run = script("lit_update.py", "judge", "--run", "1", "--judgements", str(judgements))
    assert run.returncode == 0, run.stdout
    # an acknowledgement by count, on one line: neither records nor keys are echoed back
    assert run.stdout.splitlines() == [
        '{"run_id": 1, "recorded": 2, "strong": 1, "partial": 0, "irrelevant": 1,'
        f' "judged": "2 of 3", "unjudged": ["{keys[1]}"]}}'
    ]
    stored = script("lit_update.py", "judgements", "1").json()
    assert [(j["key"], j["label"], j["confidence"]) for j in stored] == [
        (keys[0], "irrelevant", 0.0),
        (keys[2], "strong", 1.0),
    ]  # in the order the source returned the papers
    assert stored[1]["record"] == paper(3, "semantic_scholar")  # carried, not retyped
    table = script("lit_update.py", "judgements", "1", "--table").stdout.splitlines()
    assert table[0].split() == ["key", "label", "conf", "title", "rationale"]
    assert table[3].split()[:3] == [keys[2], "strong", "1.00"]


@pytest.mark.parametrize(
    ("item", "code", "words"),
    [
        (
            {"key": "arXiv:2100.00001", "label": "great", "confidence": 1, "rationale": ""},
            "unknown_label",
            "'great' is not one of strong, partial, irrelevant",
        ),
        (
            {"key": "arXiv:1999.99999", "label": "strong", "confidence": 1, "rationale": ""},
            "unknown_key",
            "run 1 returned no paper 'arXiv:1999.99999'",
        ),
        *(
            (
                {
                    "key": "arXiv:2100.00001",
                    "label": "strong",
                    "confidence": value,
                    "rationale": "",
                },
                "bad_confidence",
                f"confidence {shown} is not a finite number",
            )
            for value, shown in (
                (float("nan"), "nan"),
                (float("inf"), "inf"),
                (float("-inf"), "-inf"),
            )
        ),
    ],
)
def test_unknown_label_or_key_is_a_clear_error_and_nothing_is_stored(
    script, results_file, tmp_path, item, code, words
):
    results = results_file("a.json", [1], source="arxiv")
    record_run(script, "--results", results)
    good = {"key": "arXiv:2100.00001", "label": "partial", "confidence": 0.5, "rationale": "x"}
    judgements = tmp_path / "j.json"
    judgements.write_text(json.dumps([good, item]))
    run = script("lit_update.py", "judge", "--run", "1", "--judgements", str(judgements))
    assert run.returncode == 2
    error = run.json()["error"]
    assert error["code"] == code and words in error["message"]
    assert script("lit_update.py", "judgements", "1").json() == []


def test_runs_lists_by_problem_as_json_and_table(script, tmp_path):
    db = str(tmp_path / "elsewhere.db")
    for problem, query in (("a", "first query"), ("b", "other"), ("a", "second query")):
        record_run(script, "--db", db, problem=problem, query=query)
    runs = script("lit_update.py", "runs", "--db", db, "--problem", "a").json()
    assert [(r["run_id"], r["query"]) for r in runs] == [(1, "first query"), (3, "second query")]
    table = script("lit_update.py", "runs", "--db", db, "--table").stdout.splitlines()
    assert table[0].split()[:3] == ["run", "problem", "iter"] and len(table) == 5
    assert table[4].endswith("second query")
    assert script("lit_update.py", "runs").json() == []  # the default store is separate, empty


READING_COMMANDS = [
    ("lit_update.py", "runs"),
    ("lit_update.py", "judgements", "4"),
    ("lit_update.py", "judge", "--run", "4", "--judgements", "[]"),
    ("lit_update.py", "merge", "--literature", "L.md", "--verified", "{}", "--runs", "4"),
    ("refine.py", "feedback", "--runs", "4"),
    ("refine.py", "next", "--runs", "4", "--query", "spectral gap"),
    ("refine.py", "keep", "--runs", "4", "--out", "kept.json"),
]


@pytest.mark.parametrize("command", READING_COMMANDS, ids=lambda c: " ".join(c[:2]))
def test_a_run_store_named_by_db_that_does_not_exist_is_refused_not_created(
    script, tmp_path, command
):
    name, *args = (str(tmp_path / "in.json") if a in ("[]", "{}") else a for a in command)
    (tmp_path / "in.json").write_text("[]" if "judge" in command else "{}")
    missing = tmp_path / "missing" / "dir" / "x.db"
    run = script(name, *args, "--db", str(missing))
    assert run.returncode == 2, run.stdout
    error = run.json()["error"]
    assert error["code"] == "no_store" and str(missing) in error["message"], error
    assert not (tmp_path / "missing").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.json"]


@pytest.mark.parametrize("command", READING_COMMANDS[1:], ids=lambda c: " ".join(c[:2]))
def test_reading_never_creates_the_default_store(script, tmp_path, command):
    """MATH_LITERATURE_DB (set by conftest) names a store that does not exist yet."""
    name, *args = (str(tmp_path / "in.json") if a in ("[]", "{}") else a for a in command)
    (tmp_path / "in.json").write_text("[]" if "judge" in command else "{}")
    run = script(name, *args)
    assert run.returncode == 2 and run.json()["error"]["code"] == "no_store", run.stdout
    assert str(tmp_path / "literature.db") in run.json()["error"]["message"]
    assert not (tmp_path / "literature.db").exists()


def test_runs_lists_none_before_the_first_search(script, tmp_path):
    assert script("lit_update.py", "runs").json() == []
    assert not (tmp_path / "literature.db").exists()


def test_record_run_rejects_a_file_that_is_not_a_search_result(script, tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text("[]")
    run = record_run(script, "--results", str(bad))
    assert run.returncode == 2 and "is not a search result" in run.json()["error"]["message"]


@pytest.mark.parametrize("problem", ["", "Spectral Gap", "../p"])
def test_record_run_refuses_a_problem_that_is_not_a_slug(script, problem):
    """The loop finds the problem's PROBLEM.md and runs by this slug: a run under any other name
    could never be refined or kept."""
    run = record_run(script, problem=problem)
    assert run.returncode == 2, run.stdout
    assert run.json()["error"]["code"] == "bad_slug"
    assert script("lit_update.py", "runs").json() == []


def test_numbers_beyond_what_sqlite_stores_are_bad_input(script):
    huge = str(2**70)
    assert record_run(script).returncode == 0
    for args in (
        ["judgements", huge],
        ["judge", "--run", huge, "--judgements", "-"],
        ["record-run", "--problem", "p", "--query", "q", "--source", "arxiv", "--iteration", huge],
    ):
        run = script("lit_update.py", *args, input="[]")
        assert run.returncode == 2, run.stdout
        assert huge in run.json()["error"]["message"]
    run = script("refine.py", "feedback", "--runs", huge)
    assert run.returncode == 2 and run.json()["error"]["code"] == "unknown_run"


def test_what_the_refinement_loop_reads(tmp_path):
    with store.RunStore(tmp_path / "s.db") as runs:
        first = runs.record_run(
            "p", "gap", "semantic_scholar", 1, results=[search_result([1, 2]).to_dict()]
        )
        runs.record_judgements(
            first["run_id"],
            [
                {
                    "key": "arXiv:2100.00001",
                    "label": "partial",
                    "confidence": 0.4,
                    "rationale": "a",
                },
            ],
        )
        second = runs.record_run(
            "p",
            "gap spectral",
            "semantic_scholar",
            2,
            "needs graphs",
            [search_result([2]).to_dict()],
        )
        runs.record_judgements(
            second["run_id"],
            [
                {"key": "arXiv:2100.00002", "label": "strong", "confidence": 0.9, "rationale": "b"},
            ],
        )
        # judged again: replaced, not duplicated
        runs.record_judgements(
            second["run_id"],
            [
                {"key": "arXiv:2100.00002", "label": "strong", "confidence": 0.8, "rationale": "c"},
            ],
        )
        assert [
            (q["query"], q["iteration"], q["feedback"], q["strong"])
            for q in runs.prior_queries("p")
        ] == [
            ("gap", 1, None, 0),
            ("gap spectral", 2, "needs graphs", 1),
        ]
        assert [j["rationale"] for j in runs.judgements(second["run_id"])] == ["c"]
        assert runs.run(second["run_id"])["judged"] == {"strong": 1, "partial": 0, "irrelevant": 0}
        assert list(runs.papers(first["run_id"])) == ["arXiv:2100.00001", "arXiv:2100.00002"]
        with pytest.raises(BadInput, match="no run 9"):
            runs.judgements(9)


def test_a_paper_never_read_is_recorded_as_unread_not_judged(tmp_path):
    """Issue 38: a paper the listing left below its cut is not given a label nobody gave; it is
    recorded as unread, no longer awaited, and a judgement given later replaces that record."""
    with store.RunStore(tmp_path / "s.db") as runs:
        run = runs.record_run("p", "gap", "arxiv", 1, results=[search_result([1, 2, 3]).to_dict()])
        run_id = run["run_id"]
        runs.record_judgements(
            run_id,
            [{"key": "arXiv:2100.00001", "label": "strong", "confidence": 1, "rationale": ""}],
        )
        runs.record_unread(run_id, ["arXiv:2100.00002", "arXiv:2100.00003"])
        assert runs.unjudged(run_id) == []
        assert [j["key"] for j in runs.judgements(run_id)] == ["arXiv:2100.00001"]
        assert runs.run(run_id)["judged"] == {"strong": 1, "partial": 0, "irrelevant": 0}
        assert runs.run(run_id)["unread"] == 2
        runs.record_judgements(
            run_id,
            [{"key": "arXiv:2100.00002", "label": "partial", "confidence": 1, "rationale": ""}],
        )
        assert runs.run(run_id)["unread"] == 1
        with pytest.raises(BadInput, match=r"no paper 'arXiv:2100\.00009'"):
            runs.record_unread(run_id, ["arXiv:2100.00009"])


def test_a_fresh_store_is_at_the_current_schema_version(tmp_path):
    with store.RunStore(tmp_path / "s.db") as runs:
        assert runs.version == len(store.MIGRATIONS)
    with store.RunStore(tmp_path / "s.db") as again:  # reopening migrates nothing
        assert again.version == len(store.MIGRATIONS)


def test_an_older_store_is_migrated_and_keeps_its_data(tmp_path, monkeypatch):
    path = tmp_path / "s.db"
    with store.RunStore(path) as runs:
        runs.record_run("p", "kept", "arxiv", 1)
    upgrade = "ALTER TABLE runs ADD COLUMN note TEXT; UPDATE runs SET note = 'migrated'"
    monkeypatch.setattr(store, "MIGRATIONS", [*store.MIGRATIONS, upgrade])
    with store.RunStore(path) as runs:
        assert runs.version == len(store.MIGRATIONS)
        (row,) = runs.runs()
        assert (row["query"], row["note"]) == ("kept", "migrated")


def test_a_failing_migration_changes_nothing(tmp_path, monkeypatch):
    path = tmp_path / "s.db"
    store.RunStore(path).close()
    broken = "ALTER TABLE runs ADD COLUMN note TEXT; SELECT * FROM no_such_table"
    monkeypatch.setattr(store, "MIGRATIONS", [*store.MIGRATIONS, broken])
    with pytest.raises(EnvironmentProblem, match="no_such_table"):
        store.RunStore(path)
    columns = [r[1] for r in sqlite3.connect(path).execute("PRAGMA table_info(runs)")]
    assert "note" not in columns
    version = sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0]
    assert version == len(store.MIGRATIONS) - 1  # the broken step, last, left undone


def test_a_version_1_store_takes_zbmath_and_crossref_runs_after_migrating(tmp_path):
    """A store made before zbMATH Open and Crossref (schema 1: runs of arXiv and Semantic
    Scholar only) keeps its runs, papers and judgements, and takes runs of the new sources."""
    path = tmp_path / "s.db"
    old = sqlite3.connect(path)
    old.executescript(store.MIGRATIONS[0] + "; PRAGMA user_version = 1;")
    old.execute("INSERT INTO runs VALUES (1, 'p', 'q', 'arxiv', 1, NULL, 'now', 1, 1)")
    old.execute("INSERT INTO run_papers VALUES (1, 0, 'arXiv:2100.00001', '{}')")
    old.execute(
        "INSERT INTO judgements VALUES (1, 'arXiv:2100.00001', 'strong', 1, 'r', '{}', 'now')"
    )
    old.commit()
    old.close()
    check = sqlite3.connect(path, isolation_level=None)
    with pytest.raises(sqlite3.IntegrityError):  # schema 1 refuses them
        check.execute("INSERT INTO runs VALUES (2, 'p', 'q', 'zbmath', 1, NULL, 'now', 0, 0)")
    check.close()
    with store.RunStore(path) as runs:
        assert runs.version == len(store.MIGRATIONS)
        assert [r["source"] for r in runs.runs()] == ["arxiv"]
        assert list(runs.papers(1)) == ["arXiv:2100.00001"]
        assert [j["label"] for j in runs.judgements(1)] == ["strong"]
        for source in ("zbmath", "crossref"):
            assert runs.record_run("p", f"{source} q", source, 1)["source"] == source
        assert runs.db.execute("PRAGMA foreign_keys").fetchone()[0] == 1


def test_a_version_3_store_names_a_relaxation_by_its_query_line_after_migrating(tmp_path):
    """Schema 3 stored a relaxation under "label"; schema 4 calls it "query_line" (the
    glossary's word), so a search recorded before the rename still shows how it was relaxed.
    A quote inside a value is escaped in the JSON, so a query holding `"label": ` is kept."""
    path = tmp_path / "s.db"
    old = sqlite3.connect(path)
    old.executescript(";".join(store.MIGRATIONS[:3]) + "; PRAGMA user_version = 3;")
    relaxed = [{"label": 'arxiv --all "x"', "step": "unquoted", "query": 'q "label": y'}]
    old.execute(
        "INSERT INTO runs VALUES (1, 'p', 'arxiv --all \"x\"', 'arxiv', 1, NULL, 'now', 1, 1, ?)",
        (json.dumps(relaxed, ensure_ascii=False),),
    )
    old.commit()
    old.close()
    with store.RunStore(path) as runs:
        assert runs.version == len(store.MIGRATIONS)
        assert runs.runs()[0]["relaxations"] == [
            {"query_line": 'arxiv --all "x"', "step": "unquoted", "query": 'q "label": y'}
        ]


def test_a_store_from_a_newer_plugin_is_refused(script, tmp_path):
    path = tmp_path / "literature.db"
    sqlite3.connect(path).execute("PRAGMA user_version = 99")
    run = script("lit_update.py", "runs")
    assert run.returncode == 4 and run.json()["error"]["code"] == "store_too_new"


def test_a_file_that_is_not_a_database_is_a_clear_error(script, tmp_path):
    (tmp_path / "literature.db").write_text("not sqlite " * 100)
    run = script("lit_update.py", "runs")
    assert run.returncode == 4 and "is not usable" in run.json()["error"]["message"]
