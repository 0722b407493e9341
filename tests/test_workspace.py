"""workspace.py: the .math/ layout, problems and their slugs, switch, archive, status, dashboard."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SCRIPTS
from mathtools.core import frontmatter
from mathtools.core.domains import DOMAINS
from mathtools.core.errors import BadInput
from mathtools.core.slugs import check_slug, is_slug
from mathtools.research import journalchanges, workspaceread
from mathtools.research import workspacechanges as ws

STATEMENT_BODY = r"""# Problem Statement

Let $T \in \mathcal{B}(X)$ and let $K$ be compact. Show that $r(T + K) = r(T)$ when
$\sigma(T)$ is connected.

## Known Results

Gelfand: $r(T) = \lim_{n\to\infty} \|T^n\|^{1/n}$.

## References

- Kato, *Perturbation Theory for Linear Operators*

## Constraints

Banach spaces, not only Hilbert spaces.

## Goals

- [ ] Find relevant prior work
"""


@pytest.fixture
def root(tmp_path):
    ws.init()
    return tmp_path


def config_of(root: Path) -> dict:
    return json.loads((root / ".math" / "config.json").read_text())


def new(script, *args, input=None):
    return script("workspace.py", "new-problem", *args, input=input)


def test_init_creates_the_layout_and_is_idempotent(tmp_path, script):
    first = script("workspace.py", "init")
    assert first.returncode == 0, first.stdout
    assert first.json()["created"] is True
    math = tmp_path / ".math"
    assert (math / "problems").is_dir() and (math / "archive").is_dir()
    assert (math / "DASHBOARD.md").exists()
    assert config_of(tmp_path) == {
        "current_problem": None,
        "problems": [],
        "archived": [],
        "semantic_scholar_api_key": None,
    }
    new(script, "--title", "Kept")
    again = script("workspace.py", "init")
    assert again.json()["created"] is False
    assert config_of(tmp_path)["problems"] == ["kept"]


def test_init_from_a_subfolder_finds_the_existing_workspace(root, script):
    sub = root / "notes" / "deep"
    sub.mkdir(parents=True)
    run = script("workspace.py", "init", cwd=sub)
    assert run.json()["workspace"] == str(root)
    assert not (sub / ".math").exists()


def test_init_where_math_is_a_file_refuses_and_keeps_the_file(tmp_path, script):
    (tmp_path / ".math").write_text("my notes\n")
    run = script("workspace.py", "init")
    assert run.returncode == 2, run.stdout
    assert run.json()["error"]["code"] == "not_a_folder"
    assert (tmp_path / ".math").read_text() == "my notes\n"


@pytest.mark.parametrize("command", [["status"], ["switch", "x"], ["new-problem", "--title", "x"]])
def test_commands_need_a_workspace(script, command):
    run = script("workspace.py", *command)
    assert run.returncode == 2
    assert run.json()["error"]["code"] == "no_workspace"


def test_new_problem_writes_the_contracted_problem_md(root, script):
    run = new(
        script,
        "--title",
        "Spectral radius of compact perturbations",
        "--domain",
        "analysis",
        "--subdomain",
        "operator theory",
        "--type",
        "proof",
        "--output-type",
        "paper",
        "--tags",
        "Spectral Radius, compact-operator,spectral radius",
        "--body",
        "-",
        input=STATEMENT_BODY,
    )
    assert run.returncode == 0, run.stdout
    out = run.json()
    slug = "spectral-radius-of-compact-perturbations"
    assert out["slug"] == slug and out["current_problem"] == slug
    assert out["sections_missing"] == []
    folder = root / ".math" / "problems" / slug
    meta, body = frontmatter.split_frontmatter((folder / "PROBLEM.md").read_text())
    assert list(meta) == [
        "title",
        "slug",
        "status",
        "domain",
        "subdomain",
        "type",
        "output_type",
        "tags",
        "created",
    ]
    assert meta["title"] == "Spectral radius of compact perturbations"
    assert meta["slug"] == slug and meta["status"] == "defined"
    assert (meta["domain"], meta["subdomain"], meta["type"]) == (
        "analysis",
        "operator theory",
        "proof",
    )
    assert meta["output_type"] == "paper"
    assert meta["tags"] == ["spectral-radius", "compact-operator"]
    assert isinstance(meta["created"], str) and meta["created"].endswith("Z")
    assert body.strip() == STATEMENT_BODY.strip()  # LaTeX kept byte for byte
    assert config_of(root)["problems"] == [slug]
    assert config_of(root)["current_problem"] == slug


def test_new_problem_starts_every_artifact_from_its_template(root, script):
    out = new(script, "--title", "Ramsey bound", "--domain", "combinatorics").json()
    folder = Path(out["path"])
    state = frontmatter.read_frontmatter((folder / "STATE.md").read_text())
    assert state["problem"] == "ramsey-bound"
    assert state["current_state"] == "INTAKE"
    assert state["loops"] == {"proof-literature": 0, "proof-computation": 0, "proof-review": 0}
    assert state["history"] == []
    assert state["updated"].endswith("Z")
    assert "# Research State" in (folder / "STATE.md").read_text()
    journal = frontmatter.read_frontmatter((folder / "JOURNAL.md").read_text())
    assert journal == {
        "problem": "ramsey-bound",
        "total_entries": 0,
        "last_entry": None,
        "strategies_tried": {},
        "created": state["updated"],
    }
    assert (
        frontmatter.read_frontmatter((folder / "NOTATION.md").read_text())["preset"]
        == "combinatorics"
    )
    statement = (folder / "PROBLEM.md").read_text()
    for section in ws.PROBLEM_SECTIONS:
        assert f"\n{section}\n" in statement
    literature = (folder / "LITERATURE.md").read_text()
    assert frontmatter.read_frontmatter(literature)["problem"] == "ramsey-bound"
    assert "# Literature: Ramsey bound\n" in literature
    assert out["files"] == [str(folder / name) for name in workspaceread.STARTING_ARTIFACTS]


def test_a_body_without_a_statement_is_refused_and_nothing_is_created(root, script):
    run = new(script, "--title", "No statement", "--body", "-", input="## Goals\n\n- [ ] x\n")
    assert run.returncode == 2
    assert run.json()["error"]["code"] == "bad_body"
    assert list((root / ".math" / "problems").iterdir()) == []
    assert config_of(root)["problems"] == []


def test_missing_sections_are_reported(root, script):
    out = new(
        script, "--title", "Sparse", "--body", "-", input="# Problem Statement\n\nX.\n"
    ).json()
    assert out["sections_missing"] == list(ws.PROBLEM_SECTIONS[1:])


@pytest.mark.parametrize(
    ("title", "slug"),
    [
        ("Spectral radius of compact perturbations", "spectral-radius-of-compact-perturbations"),
        ("../../etc/passwd", "etc-passwd"),
        ("/absolute/path", "absolute-path"),
        ("Erdős–Straus conjecture", "erdos-straus-conjecture"),
        ("$\\zeta(s) \\neq 0$ on Re(s)=1", "zeta-s-neq-0-on-re-s-1"),
        ("∑∫∂", "problem"),
        ("CON", "con-2"),
        ("a" * 30 + " " + "b" * 30, "a" * 30),
    ],
)
def test_slugs_derived_from_titles_are_path_safe(root, script, title, slug):
    out = new(script, "--title", title).json()
    assert out["slug"] == slug
    assert Path(out["path"]).parent == root / ".math" / "problems"
    assert is_slug(out["slug"])


def test_slugs_are_unique_across_problems_and_archive(root, script):
    assert new(script, "--title", "Same title").json()["slug"] == "same-title"
    assert new(script, "--title", "Same title").json()["slug"] == "same-title-2"
    script("workspace.py", "archive", "same-title")
    assert new(script, "--title", "Same title").json()["slug"] == "same-title-3"


UNSAFE = ["../x", "..", "/etc", "a/b", "a b", "A", "x--y", "-x", "x-", "é", "", "nul", "a" * 65]


@pytest.mark.parametrize("slug", UNSAFE)
def test_unsafe_explicit_slugs_are_refused_everywhere(root, script, slug):
    created = new(script, "--title", "T", f"--slug={slug}")
    assert created.returncode == 2, created.stdout
    assert created.json()["error"]["code"] == "bad_slug"
    for command in ("switch", "archive"):
        run = script("workspace.py", command, "--", slug)
        assert run.returncode == 2
        assert run.json()["error"]["code"] == "bad_slug"
    run = script("workspace.py", "resume", f"--problem={slug}")
    assert run.json()["error"]["code"] == "bad_slug"
    assert sorted(p.name for p in (root / ".math").iterdir()) == [
        "DASHBOARD.md",
        "DASHBOARD.md.lock",
        "archive",
        "config.json",
        "config.json.lock",
        "problems",
    ]
    assert list((root / ".math" / "problems").iterdir()) == []


def test_an_explicit_slug_that_is_taken_is_refused(root, script):
    new(script, "--title", "First", "--slug", "mine")
    run = new(script, "--title", "Second", "--slug", "mine")
    assert run.returncode == 2 and run.json()["error"]["code"] == "slug_taken"
    assert (
        frontmatter.read_frontmatter((root / ".math/problems/mine/PROBLEM.md").read_text())["title"]
        == "First"
    )


@pytest.mark.parametrize(("option", "value"), [("--domain", "geometry"), ("--type", "essay")])
def test_unknown_domain_or_type_is_a_usage_error(root, script, option, value):
    run = new(script, "--title", "T", option, value)
    assert run.returncode == 2
    assert run.json()["error"]["code"] == "usage"


def test_concurrent_new_problems_get_distinct_slugs(root):
    procs = [
        subprocess.Popen(
            [sys.executable, str(SCRIPTS / "workspace.py"), "new-problem", "--title", "Race"],
            cwd=root,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(6)
    ]
    slugs = [json.loads(p.communicate(timeout=120)[0])["slug"] for p in procs]
    expected = ["race", *(f"race-{n}" for n in range(2, 7))]
    assert sorted(slugs) == sorted(expected)
    assert sorted(config_of(root)["problems"]) == sorted(expected)


def test_switch_changes_the_current_problem(root, script):
    new(script, "--title", "One")
    new(script, "--title", "Two")
    assert config_of(root)["current_problem"] == "two"
    out = script("workspace.py", "switch", "one").json()
    assert out == {
        "current_problem": "one",
        "previous": "two",
        "path": str(root / ".math/problems/one"),
    }
    assert config_of(root)["current_problem"] == "one"
    missing = script("workspace.py", "switch", "three")
    assert missing.returncode == 2 and missing.json()["error"]["code"] == "unknown_problem"


def test_no_switch_keeps_the_current_problem(root, script):
    new(script, "--title", "One")
    assert new(script, "--title", "Two", "--no-switch").json()["current_problem"] == "one"


def test_archive_moves_the_problem_and_clears_current(root, script):
    new(script, "--title", "Old")
    new(script, "--title", "Other", "--no-switch")
    out = script("workspace.py", "archive", "old").json()
    assert out["current_problem"] is None
    assert not (root / ".math/problems/old").exists()
    assert (root / ".math/archive/old/PROBLEM.md").exists()
    cfg = config_of(root)
    assert cfg["problems"] == ["other"] and cfg["archived"] == ["old"]
    again = script("workspace.py", "switch", "old")
    assert again.returncode == 2 and "archived" in again.json()["error"]["message"]
    assert script("workspace.py", "archive", "old").json()["error"]["code"] == "unknown_problem"


def test_status_reads_every_artifacts_frontmatter(root, script):
    folder = Path(new(script, "--title", "Counted", "--domain", "logic").json()["path"])
    (folder / "LITERATURE.md").write_text(
        "---\nproblem: counted\ntotal_papers: 9\nconfirmed_count: 7\nunconfirmed_count: 2\n"
        "last_search: 2026-02-10T14:30:00Z\nsources_queried: [arxiv]\n---\n\n# Literature\n"
    )
    state = (folder / "STATE.md").read_text().replace("INTAKE", "PROOF_DEVELOPMENT", 1)
    (folder / "STATE.md").write_text(state.replace("updated: '", "updated: ").replace("Z'", "Z"))
    (folder / "PROOF.md").write_text("---\nstatus: stuck\n---\n# Proof\n")
    run = script("workspace.py", "status")
    assert run.returncode == 0, run.stdout
    (problem,) = run.json()["problems"]
    assert problem["slug"] == "counted" and problem["current"] is True
    assert (problem["domain"], problem["state"], problem["proof"]) == (
        "logic",
        "PROOF_DEVELOPMENT",
        "stuck",
    )
    assert problem["papers"] == {
        "total": 9,
        "confirmed": 7,
        "unconfirmed": 2,
        "last_search": "2026-02-10T14:30:00Z",
    }
    assert problem["state_updated"].endswith("Z")  # an unquoted YAML timestamp, as text
    assert problem["artifacts"] == [*workspaceread.STARTING_ARTIFACTS, "PROOF.md"]
    assert problem["warnings"] == []


def test_status_survives_a_broken_artifact(root, script):
    folder = Path(new(script, "--title", "Broken").json()["path"])
    (folder / "STATE.md").write_text("---\ncurrent_state: [unclosed\n---\n")
    run = script("workspace.py", "status")
    assert run.returncode == 0
    (problem,) = run.json()["problems"]
    assert problem["state"] is None
    assert problem["warnings"] and "STATE.md" in problem["warnings"][0]


def test_a_broken_config_is_a_clear_error(root, script):
    (root / ".math/config.json").write_text("{not json")
    run = script("workspace.py", "status")
    assert run.returncode == 2
    assert run.json()["error"]["code"] == "bad_json"
    assert "config.json" in run.json()["error"]["message"]


def test_dashboard_lists_problems_and_keeps_notes(root, script):
    new(script, "--title", "Alpha", "--domain", "algebra")
    new(script, "--title", "Beta")
    script("workspace.py", "archive", "beta")
    dashboard = root / ".math/DASHBOARD.md"
    text = dashboard.read_text()
    assert "(`alpha`)" in text and "| algebra |" in text
    assert "- `beta`" in text.split("## Archived")[1]
    dashboard.write_text(text + "\nRemember: try the Neumann series first.\n")
    run = script("workspace.py", "dashboard")
    assert run.json() == {"dashboard": str(dashboard), "problems": 1}
    new(script, "--title", "Gamma")
    text = dashboard.read_text()
    assert "(`gamma`)" in text
    assert text.endswith("## Notes\n\nRemember: try the Neumann series first.\n")
    assert frontmatter.read_frontmatter(text)["problems"] == 2


def test_resume_gathers_state_journal_and_reading_list(root, script):
    folder = Path(new(script, "--title", "Resumed").json()["path"])
    for category, strategy, outcome in (
        ("LIT", "broad-survey", "SUCCEEDED"),
        ("PROOF", "induction", "FAILED"),
        ("PROOF", "direct", "IN_PROGRESS"),
    ):
        journalchanges.add(
            category=category,
            strategy=strategy,
            outcome=outcome,
            title=strategy,
            tried="t",
            insight="i",
        )
    out = script("workspace.py", "resume", "--recent", "2").json()
    assert [e["id"] for e in out["recent_entries"]] == ["PROOF-001", "PROOF-002"]
    assert [e["id"] for e in out["dead_ends"]] == ["PROOF-001"]
    assert [e["id"] for e in out["in_progress"]] == ["PROOF-002"]
    assert out["state"]["current_state"] == "INTAKE"
    assert out["read"][0] == str(folder / "PROBLEM.md")
    assert out["problem"]["journal"] == {"entries": 3, "last_entry": "PROOF-002"}


def test_resume_without_a_current_problem_says_what_to_do(root, script):
    run = script("workspace.py", "resume")
    assert run.returncode == 2
    assert run.json()["error"]["code"] == "no_current_problem"


def test_every_domain_is_a_problem_domain():
    assert set(ws.PROBLEM_DOMAINS) == {*DOMAINS, "other"}


def test_status_and_resume_rebuild_a_stale_dashboard(root, script):
    folder = Path(new(script, "--title", "Alpha").json()["path"])
    dashboard = root / ".math" / "DASHBOARD.md"
    assert "| INTAKE |" in dashboard.read_text()
    # a research script moves the state; it does not touch the dashboard
    moved = script("state.py", "transition", "LITERATURE_SEARCH", "--reason", "problem defined")
    assert moved.returncode == 0, moved.stdout
    assert "| INTAKE |" in dashboard.read_text()
    assert script("workspace.py", "status").returncode == 0
    assert "| LITERATURE_SEARCH |" in dashboard.read_text()
    journal = script(
        "journal.py", "add", "--category", "NOTE", "--strategy", "observation",
        "--outcome", "SUCCEEDED", "--title", "t", "--tried", "x", "--insight", "y",
    )  # fmt: skip
    assert journal.returncode == 0, journal.stdout
    assert script("workspace.py", "resume").returncode == 0
    assert "NOTE-001" in dashboard.read_text()
    assert not list(folder.glob("*.lock"))  # no lock file is left in the problem folder...
    assert list((folder.parent.parent / ".locks").glob("*.lock"))  # ...they are in .math/.locks
    assert ".lock" not in dashboard.read_text()  # ...and are not reported


def test_a_broken_artifact_is_named_once_in_its_warning(root, script):
    folder = Path(new(script, "--title", "Broken").json()["path"])
    (folder / "PROBLEM.md").write_text("---\ntitle: [unclosed\n---\n")
    (problem,) = script("workspace.py", "status").json()["problems"]
    warning = problem["warnings"][0]
    assert warning.startswith("PROBLEM.md: ") and "PROBLEM.md: PROBLEM.md" not in warning


@pytest.mark.parametrize("slug", [*UNSAFE, "ok\n", "ok\n-x"])
def test_is_slug_is_the_same_rule_as_check_slug(slug):
    assert not is_slug(slug)
    with pytest.raises(BadInput):
        check_slug(slug)
