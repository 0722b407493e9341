"""Defects found by the second adversarial campaign (issue: isdigit, wrong types, redirects,
malformed records, ...), one test (or a few) per item. Every hostile answer is synthesized."""

from __future__ import annotations

import ast
import json
import os
from pathlib import Path

import pytest
from conftest import SCRIPTS, run_script
from mathtools.core.errors import BadInput, ServiceError
from mathtools.core.text import as_int, is_digits

# -- 1. one digit rule: ASCII digits only ------------------------------------------------------


@pytest.mark.parametrize("text", ["²", "①", "²⁰¹⁶", "١٢", "", " 12", "-1", "1.0"])
def test_only_ascii_digits_are_digits(text):
    assert not is_digits(text)
    assert as_int(text) is None


def test_ascii_digits_are_numbers():
    assert is_digits("2016") and as_int("2016") == 2016 and as_int(7) == 7
    assert as_int(True) is None and as_int(-3) is None


def test_no_library_module_parses_a_number_with_isdigit():
    """str.isdigit accepts "²", which int() refuses: every number goes through core.text."""
    allowed = {"search/keyterms.py"}  # character classes of words, never parsed as numbers
    found = []
    for path in (SCRIPTS / "mathtools").rglob("*.py"):
        if str(path.relative_to(SCRIPTS / "mathtools")) in allowed:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in ("isdigit", "isnumeric"):
                found.append(f"{path.name}:{node.lineno}")
    assert not found


def test_superscript_digits_from_services_are_refused_or_dropped():
    from mathtools.services import arxivrecords, s2records, zbmath, zbmathrecords

    with pytest.raises(BadInput):
        zbmath.zbmath_identifier("zbMATH:²")
    record = {"id": 1, "identifier": "1409.11141", "year": "²⁰¹⁶", "title": {"title": "T"}}
    paper = zbmathrecords.to_paper(record)
    assert paper is None or paper.year is None
    assert arxivrecords._split_entry_id("http://arxiv.org/abs/1605.08386v²") == (
        "1605.08386v²",
        None,
    )
    with pytest.raises(ServiceError):
        s2records.to_paper({"paperId": "a" * 40, "externalIds": {"CorpusId": "²³"}})
    with pytest.raises(BadInput):
        s2records.s2_id("CorpusId:²³")


def test_a_superscript_year_or_history_count_in_literature_md_is_not_a_number():
    from mathtools.litdoc.refentry import Entry

    entry = Entry("REF", 1, ["### REF-001: T", "- **Year:** ²⁰²¹"])
    assert entry.year is None


# -- 2 and 4. one typed validation of every service record at the client boundary --------------

ZBL_RECORD = {
    "id": 3077854,
    "identifier": "0049.31002",
    "title": {"title": "Number theory and its history"},
    "contributors": {"authors": [{"name": "Ore, Oystein"}], "editors": []},
    "year": "1952",
    "msc": [{"code": "11-XX"}, {"code": "11A05"}],
}
LICENCE = "zbMATH Open Web Interface contents unavailable due to conflicting licenses."


def _zbl_record(**changes):
    return {**ZBL_RECORD, **changes}


@pytest.mark.parametrize(
    "changes",
    [
        {"title": None},
        {"title": {"title": None}},
        {"title": {"title": 5}},
        {"title": "a string"},
        {"contributors": None},
        {"contributors": {"authors": None}},
        {"contributors": {"authors": "Ore, Oystein"}},
        {"contributors": {"authors": [{"name": None}]}},
        {"contributors": {"authors": [], "editors": []}},
        {"identifier": "1.2 --> <script>alert(1)</script>"},
        {"identifier": "²⁰⁴⁹.31002"},
        {"msc": [{"code": "<b>11</b>"}]},
        {"msc": [{"code": None}]},
    ],
)
def test_a_malformed_zbmath_record_stands_for_no_paper(changes):
    from mathtools.services import zbmathrecords

    assert zbmathrecords.to_paper(ZBL_RECORD) is not None
    assert zbmathrecords.to_paper(_zbl_record(**changes)) is None


def test_only_the_licence_sentence_withholds_a_zbmath_title_or_authors():
    from mathtools.services import zbmathrecords

    record = _zbl_record(title={"title": LICENCE}, contributors={"authors": [{"name": LICENCE}]})
    paper = zbmathrecords.to_paper(record)
    assert paper is not None and paper.title == "" and paper.authors == []


def test_a_malformed_zbmath_record_with_the_asked_zbl_is_not_confirmed(tmp_path):
    from support.scripted_server import Reply, ScriptedServer

    record = _zbl_record(title=None)
    body = json.dumps({"result": [record], "status": {"nr_total_results": 1}})
    cited = {"key": "ore", "title": "Number theory and its history", "authors": "Ore, O.",
             "year": 1952, "zbl": "0049.31002"}  # fmt: skip
    with ScriptedServer(default=Reply(200, body, {"Content-Type": "application/json"})) as s:
        run = run_script(
            "verify_batch.py", "-", input=json.dumps([cited]),
            env={**os.environ, "MATH_ZBMATH_API_URL": s.url, "MATH_HTTP_RETRIES": "0"},
        )  # fmt: skip
    assert run.returncode == 0, run.stdout
    [result] = json.loads(run.stdout)["results"]
    assert result["status"] != "CONFIRMED"
    assert "withholds" not in json.dumps(result)


@pytest.mark.parametrize("changes", [{"author": None}, {"author": "Deutsch, D."}, {"author": [5]}])
def test_a_crossref_record_with_malformed_authors_stands_for_no_paper(changes):
    from mathtools.services import crossref

    item = {"DOI": "10.1098/rspa.1985.0070", "title": ["Quantum theory"],
            "author": [{"given": "D.", "family": "Deutsch"}]}  # fmt: skip
    assert crossref.to_paper(item) is not None
    assert crossref.to_paper({**item, **changes}) is None


@pytest.mark.parametrize("items", [5, "x", {"a": 1}])
def test_crossref_items_of_the_wrong_type_are_a_service_failure(monkeypatch, items):
    from mathtools.services.crossref import CrossrefClient
    from support.scripted_server import Reply, ScriptedServer

    body = json.dumps({"status": "ok", "message": {"items": items}})
    with ScriptedServer(default=Reply(200, body, {"Content-Type": "application/json"})) as s:
        monkeypatch.setenv("MATH_CROSSREF_API_URL", s.url)
        with pytest.raises(ServiceError):
            CrossrefClient(use_cache=False).works(["10.1098/rspa.1985.0070"])
        with pytest.raises(ServiceError):
            CrossrefClient(use_cache=False).search("quantum theory")


# -- 5. an arXiv entry for an id not asked answers nothing -------------------------------------

MARKOV = {
    "key": "markov",
    "title": "Heat-bath random walks with Markov bases",
    "authors": "Stanley, Caprice and Windisch, Tobias",
    "year": 2016,
    "arxiv_id": "1605.08386",
}


def test_an_arxiv_entry_for_another_id_never_corrects_a_citation():
    from support.arxiv_recordings import ATOM_TYPE, body
    from support.scripted_server import Reply, ScriptedServer

    wrong = body("id_1605.08386_").replace(b"1605.08386", b"1999.99999")
    with ScriptedServer(default=Reply(200, wrong, dict(ATOM_TYPE))) as server:
        env = {**os.environ, "MATH_ARXIV_API_URL": f"{server.url}/api/query"}
        run = run_script("verify_batch.py", "-", input=json.dumps([MARKOV]), env=env)
    assert run.returncode == 0, run.stdout
    document = json.loads(run.stdout)
    [result] = document["results"]
    assert result["status"] == "UNCONFIRMED"
    assert "1999.99999" in document["source_errors"]["arxiv"]  # arXiv misbehaved: it failed


# -- 6. a claimed id alone never promotes an unconfirmed reference ------------------------------


def test_a_fabrication_claiming_a_verified_id_stays_unconfirmed(tmp_path):
    from mathtools.litdoc import checks, literature, merging
    from support.verified import confirmed, paper, unconfirmed, verification

    lit = tmp_path / "problems" / "p" / "LITERATURE.md"
    real = paper(5)
    fabricated = {"key": "memory-2", "title": "A Planted Fabrication", "authors": ["Nobody"],
                  "year": 2019, "arxiv_id": real["arxiv_id"]}  # fmt: skip
    relevance = {"memory-2": {"relevance": "The fabrication's claim."}}
    merging.merge_file(lit, verification([unconfirmed(fabricated)]), relevance, summary="one")
    synthesis = "- [~] UREF-001 may give it.\n"
    lit.write_text(lit.read_text().replace("(No synthesis yet", synthesis + "\n(x"))
    assessed = {real["key"]: {"relevance": "Real.", "key_results": "Thm 1", "confidence": "[S]"}}
    report, _ = merging.merge_file(lit, verification([confirmed(real)]), assessed, summary="two")
    assert report["promoted"] == []
    doc = literature.load_literature(lit)
    [uref] = doc.unconfirmed
    assert uref.title == "A Planted Fabrication"
    [ref] = doc.confirmed
    assert ref.field("Moved from") is None and ref.relevance == "Real."
    assert checks.validate(lit) == []  # the Synthesis still cites an entry that exists


# -- 10. the contact address is a secret -------------------------------------------------------

CONTACT = "someone.private@example.org"


def test_an_error_body_echoing_the_contact_address_is_redacted(tmp_path):
    from support.scripted_server import Reply, ScriptedServer

    echo = json.dumps({"message": f"bad request; headers: user-agent=x (mailto:{CONTACT})"})
    out = tmp_path / "verified.json"
    with ScriptedServer(default=Reply(403, echo, {"Content-Type": "application/json"})) as s:
        env = {**os.environ, "MATH_S2_API_URL": s.url, "MATH_CONTACT_EMAIL": CONTACT,
               "MATH_HTTP_RETRIES": "0"}  # fmt: skip
        got = run_script("s2_lookup.py", "get", "ARXIV:1605.08386", env=env)
        verify = run_script(
            "verify_batch.py", "-", "--out", str(out), input=json.dumps([MARKOV]), env=env
        )
    assert got.returncode in (2, 3), got.stdout
    assert CONTACT not in got.stdout + got.stderr
    assert verify.returncode == 0, verify.stdout
    assert CONTACT not in verify.stdout + verify.stderr + out.read_text(encoding="utf-8")


def test_a_redirect_to_another_host_does_not_carry_the_contact_address():
    from support.scripted_server import Reply, ScriptedServer

    record = {"paperId": "a" * 40, "externalIds": {"ArXiv": "1605.08386"}, "title": "T",
              "authors": []}  # fmt: skip
    with ScriptedServer(default=Reply(200, json.dumps(record))) as elsewhere:
        other_host = elsewhere.url.replace("127.0.0.1", "localhost")
        moved = Reply(302, "", {"Location": f"{other_host}/graph/v1/paper/x"})
        with ScriptedServer([moved]) as server:
            env = {**os.environ, "MATH_S2_API_URL": f"{server.url}/graph/v1",
                   "MATH_CONTACT_EMAIL": CONTACT}  # fmt: skip
            run = run_script("s2_lookup.py", "get", "ARXIV:1605.08386", env=env)
        assert CONTACT in server.received[0].headers.get("User-Agent", "")
    assert run.returncode == 0, run.stdout
    [arrived] = elsewhere.received
    assert CONTACT not in json.dumps(dict(arrived.headers))


# -- 8. the Agent hook and the workspace config --------------------------------------------------

HOOK = SCRIPTS.parent / "hooks" / "agent_model.py"


def _hook(stdin: bytes, cwd, timeout=20):
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, str(HOOK)], input=stdin, capture_output=True, cwd=cwd, timeout=timeout
    )


@pytest.mark.parametrize(
    "event",
    [
        json.dumps(
            {"tool_name": "Agent", "cwd": 5, "tool_input": {"subagent_type": "math:proof"}}
        ).encode(),
        b"[" * 100_000 + b"]" * 100_000,
        b"\xff\xfe not json",
    ],
)
def test_the_agent_hook_takes_any_stdin_without_a_traceback(tmp_path, event):
    run = _hook(event, tmp_path)
    assert run.returncode == 0
    assert b"Traceback" not in run.stderr


def test_a_fifo_at_the_workspace_config_is_refused_at_once(tmp_path):
    (tmp_path / ".math").mkdir()
    os.mkfifo(tmp_path / ".math" / "config.json")
    event = {"tool_name": "Agent", "cwd": str(tmp_path),
             "tool_input": {"subagent_type": "math:proof"}}  # fmt: skip
    run = _hook(json.dumps(event).encode(), tmp_path, timeout=20)
    assert run.returncode == 0 and b"Traceback" not in run.stderr
    assert "not a regular file" in json.loads(run.stdout)["systemMessage"]
    from mathtools.core import config

    with pytest.raises(BadInput, match="not a regular file"):
        config.workspace_config(tmp_path)


# -- 9. more exit 5s ----------------------------------------------------------------------------


@pytest.mark.parametrize("content", [b"", b"\x00" * 200, b"\x01\x02 ### \n--\n"])
def test_a_problem_md_with_nothing_to_search_is_bad_input(tmp_path, content):
    (tmp_path / "PROBLEM.md").write_bytes(content)
    run = run_script("plan_queries.py", "--problem", str(tmp_path / "PROBLEM.md"))
    assert run.returncode == 2, run.stdout
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize("url", ["http://[::1", "http://host:99999/api", "http://[::1]x/"])
def test_a_malformed_service_url_is_a_bad_environment(url):
    run = run_script("arxiv_query.py", "get", "1605.08386", env={**os.environ,
                     "MATH_ARXIV_API_URL": url})  # fmt: skip
    assert run.returncode in (2, 4), run.stdout  # the variable's problem, or a URL requests refuses
    assert json.loads(run.stdout)["error"]["code"] in ("bad_environment", "bad_url")


def test_resume_with_a_journal_that_is_not_utf8_writes_nothing(tmp_path):
    from mathtools.research import workspacechanges as ws

    ws.init()
    made = run_script("workspace.py", "new-problem", "--title", "Resumed")
    folder = Path(made.json()["path"])
    dashboard = tmp_path / ".math" / "DASHBOARD.md"
    before = dashboard.read_bytes() if dashboard.exists() else None
    (folder / "JOURNAL.md").write_bytes(b"# Journal\n\xff\xfe\x00 broken\n")
    run = run_script("workspace.py", "resume")
    assert run.returncode == 2, run.stdout
    assert (dashboard.read_bytes() if dashboard.exists() else None) == before


def test_a_deeply_nested_install_failure_record_is_ignored(tmp_path):
    from mathtools.core import bootstrap

    venv = tmp_path / "venv"
    bootstrap.failure_marker(venv).write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    assert bootstrap.recent_failure(venv) is None


# -- 7. check_refs.py on hostile bibliographies ------------------------------------------------

DEAD = {f"MATH_{name}_URL": "http://127.0.0.1:9/x" for name in
        ("ARXIV_API", "S2_API", "ZBMATH_API", "CROSSREF_API")}  # fmt: skip


def _check_refs(*args, cwd):
    env = {**os.environ, **DEAD, "MATH_HTTP_RETRIES": "0"}
    return run_script("check_refs.py", *args, "--json", env=env, cwd=cwd, timeout=60)


def test_self_doubling_string_macros_are_refused_at_the_expansion_cap(tmp_path):
    lines = ['@string{s0 = "aaaaaaaaaa"}']
    lines += [f"@string{{s{i} = s{i - 1} # s{i - 1}}}" for i in range(1, 40)]
    lines.append("@article{k, title = s39, author = {A B}, year = {2000}}")
    (tmp_path / "laughs.bib").write_text("\n".join(lines), encoding="utf-8")
    run = _check_refs("laughs.bib", cwd=tmp_path)
    assert run.returncode == 2, run.stdout
    assert json.loads(run.stdout)["error"]["code"] == "bad_bib"


def test_a_bib_symlink_loop_is_bad_input(tmp_path):
    (tmp_path / "a.bib").symlink_to(tmp_path / "b.bib")
    (tmp_path / "b.bib").symlink_to(tmp_path / "a.bib")
    run = _check_refs("a.bib", cwd=tmp_path)
    assert run.returncode == 2, run.stdout
    assert "Traceback" not in run.stderr


def test_an_entry_without_a_key_is_checked_without_a_crash(tmp_path):
    (tmp_path / "nokey.bib").write_text("@article{, title={x}}\n", encoding="utf-8")
    run = _check_refs("nokey.bib", cwd=tmp_path)
    assert run.returncode in (0, 1, 2), run.stdout
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize("other", ["--report", "--out"])
def test_two_outputs_naming_one_file_are_refused(tmp_path, other):
    (tmp_path / "refs.bib").write_text("@article{k, title={x}}\n", encoding="utf-8")
    run = _check_refs("refs.bib", "--fix", "same.txt", other, "same.txt", cwd=tmp_path)
    assert run.returncode == 2, run.stdout
    assert json.loads(run.stdout)["error"]["code"] == "usage"
    assert not (tmp_path / "same.txt").exists()


# -- 11. a search folder lies under the problem's literature-runs/ -----------------------------


@pytest.mark.parametrize("name", ["../PWNED-rel", "/tmp/PWNED-abs", "literature-runs/../../x"])
def test_a_search_folder_outside_literature_runs_is_refused(tmp_path, name):
    folder = tmp_path / "work" / "problem"
    folder.mkdir(parents=True)
    (folder / "PROBLEM.md").write_text(
        "# Fixed points\n\n## Problem Statement\n\nBrouwer fixed point theorem for maps of "
        "the disc, with references [Brouwer 1911].\n",
        encoding="utf-8",
    )
    run = run_script(
        "plan_queries.py", "--problem", str(folder / "PROBLEM.md"), "--search-folder", name,
        cwd=folder,
    )  # fmt: skip
    assert run.returncode == 2, run.stdout
    assert json.loads(run.stdout)["error"]["code"] == "search_folder"
    assert not (tmp_path / "work" / "PWNED-rel").exists()


# -- 12. service text is inert in LITERATURE.md; a name's comma never splits it ----------------


def test_service_markup_in_a_title_or_field_is_inert_and_names_keep_their_commas(tmp_path):
    from mathtools.core.text import inert_markdown
    from mathtools.litdoc import checks, literature, merging
    from support.verified import confirmed, paper, verification

    assert inert_markdown("$x<n$ and x < y") == "$x<n$ and x < y"
    hostile = paper(
        3,
        "semantic_scholar",
        title="<script>alert(1)</script> [click](javascript:alert(1)) <!-- hidden -->",
        authors=["Smith, John", "Martin King, Jr.", "Emmy Noether"],
        abstract="<img src=x onerror=alert(1)> We prove it.",
    )
    lit = tmp_path / "problems" / "p" / "LITERATURE.md"
    relevance = {hostile["key"]: {"relevance": "R.", "key_results": "T", "confidence": "[S]"}}
    merging.merge_file(lit, verification([confirmed(hostile)]), relevance, summary="s")
    text = lit.read_text(encoding="utf-8")
    for raw in ("<script", "<!-- hidden", "](javascript", "<img"):
        assert raw not in text
    [ref] = literature.load_literature(lit).confirmed
    assert ref.authors == ["John Smith", "Martin King Jr.", "Emmy Noether"]
    assert checks.validate(lit) == []
