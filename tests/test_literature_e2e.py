"""/math:literature end to end in the real Claude Code, offline.

The model is scripted: the main conversation hands off to the `math:literature-search` agent, and
the agent's side is tools/literature_runbook.py, which issues exactly the calls
agents/literature-search.md prescribes (Bash calls of literature.py's phases, the read of
PROBLEM.md, the writes of the search folder's files) and reads their results as Claude Code sends
them back. Claude Code runs in its default permission mode: every call must pass because the
command's allowed-tools rules let it, as for a user. Its judgement steps are the deterministic
STAND-IN. arXiv and Semantic Scholar are tests/support/standin.py, answering from the real
recordings. The STAND-IN "remembers" two fabricated papers, which must end up unconfirmed.
"""

from __future__ import annotations

import json
import re
import sqlite3
import sys
from pathlib import Path

import pytest
from conftest import PLUGIN, ROOT, run_script
from mathtools.research import gaps
from support.standin import StandIn

# The Claude Code harness comes from the foundation issue's branch; until it is merged, say so.
harness = pytest.importorskip("support.claude_harness", reason="tests/support/claude_harness.py")
agent, bash, result_text = harness.agent, harness.bash, harness.result_text
run_claude, text, tool_use = harness.run_claude, harness.text, harness.tool_use
refused = harness.refused

sys.path.insert(0, str(ROOT / "tools"))
from demo_pipeline import PLANTED, Workspace, create_problem, refining_model  # noqa: E402
from literature_runbook import Script, StandInModel, Write, runbook  # noqa: E402

pytestmark = pytest.mark.claude

SAMPLE = ROOT / "examples" / "sample-problem" / "PROBLEM.md"
SLUG = "tolerant-testing"
SYSTEM_REMINDER = re.compile(r"\s*<system-reminder>.*?</system-reminder>\s*", re.S)


def strings(value) -> list[str]:
    """Every string in a JSON value (a request's messages: what the model was shown)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    return [s for item in value for s in strings(item)] if isinstance(value, list) else []


class RunbookPlayer:
    """The agent's side of the conversation: the runbook generator, turned into tool calls."""

    def __init__(self, model: StandInModel, cwd: Path, gap: bool = False):
        self.steps = runbook(SLUG, model, gap=gap)
        self.cwd = cwd
        self.turns = 0
        self.turn: list = []
        self.summary: dict | None = None
        self.failed_calls: list[str] = []
        self.calls: list = []  # every call the agent made, in order

    def __call__(self, request):
        if not self.turns:
            self.turn = next(self.steps)
        else:
            answers = {r["tool_use_id"]: r for r in request.last_tool_results()}
            outputs = []
            for number, call in enumerate(self.turn):
                answer = answers[self.block_id(number)]
                if answer.get("is_error"):
                    self.failed_calls.append(f"{call}: {result_text(answer)[:300]}")
                outputs.append(self.output(call, result_text(answer)))
            try:
                self.turn = self.steps.send(outputs)
            except StopIteration as done:
                self.summary = done.value
                return [text(f"Literature search done: {len(done.value['refs'])} new REF.")]
        self.turns += 1
        self.calls += self.turn
        return [self.block(call, self.block_id(n)) for n, call in enumerate(self.turn)]

    def block_id(self, number: int) -> str:
        return f"toolu_turn{self.turns}_{number}"

    def block(self, call, block_id: str) -> dict:
        if isinstance(call, Script):
            return bash(call.command(str(PLUGIN)), id=block_id)
        path = str(self.cwd / call.path)
        assert isinstance(call, Write)
        return tool_use("Write", {"file_path": path, "content": call.content}, block_id)

    @staticmethod
    def output(call, result: str) -> str:
        return SYSTEM_REMINDER.sub("\n", result)


def reads(run) -> list[str]:
    """The files the agent Read, as its own requests to the model show its calls."""
    return [
        block["input"]["file_path"]
        for request in run.subagent_requests("math:literature-search")[-1:]
        for message in request.messages
        if message["role"] == "assistant" and isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_use" and block["name"] == "Read"
    ]


def main_conversation(prompt: str):
    def model(request):
        if not request.tool_results():
            return [agent("math:literature-search", prompt, id="toolu_handoff", background=False)]
        return [text("The literature search is done.")]

    return model


def math_literature(tmp_path: Path, cwd: Path, main, agent_side, **options):
    """/math:literature in Claude Code: `main` plays the session, `agent_side` the agent."""
    return run_claude(
        f"/math:literature {SLUG}",
        main,
        subagents={"math:literature-search": agent_side},
        home=tmp_path / "home",
        cwd=cwd,
        **options,
    )


def workspace(tmp_path: Path) -> Path:
    """A workspace with the sample problem, made with workspace.py as /math:problem would."""
    cwd = tmp_path / "home" / "work"
    cwd.mkdir(parents=True)
    create_problem(Workspace(cwd, None), SAMPLE)
    return cwd


def test_math_literature_runs_the_whole_runbook_in_claude_code(tmp_path):
    cwd = workspace(tmp_path)
    store = cwd / ".math" / "literature.db"
    # Iteration 1 has no strong hit (the STAND-IN demands 99 shared words), so the loop refines
    # once; iteration 2 finds one.
    player = RunbookPlayer(refining_model(), cwd)
    with StandIn() as standin:
        env = {**standin.env(), "MATH_LITERATURE_DB": str(store)}
        env["MATH_ARXIV_MIN_INTERVAL"] = env["MATH_S2_MIN_INTERVAL"] = "0"
        main = main_conversation(f"Literature search. Arguments: `{SLUG}`.")
        run = math_literature(tmp_path, cwd, main, player, env=env, bypass=False, timeout=600)
    assert run.exit_code == 0, run.describe()
    assert player.summary is not None, run.describe()
    assert player.failed_calls == []
    assert player.summary["iterations"] == 2
    assert player.summary["finish"]["valid"] is True

    problem = cwd / ".math" / "problems" / SLUG
    literature = (problem / "LITERATURE.md").read_text(encoding="utf-8")
    validate = run_script("lit_update.py", "validate", str(problem / "LITERATURE.md"))
    assert validate.returncode == 0 and validate.json()["valid"], validate.stdout

    refs = re.findall(r"^### (REF-\d{3}): .*\n((?:- .*\n)+)", literature, re.M)
    assert [label for label, _ in refs] == [f"REF-{n:03d}" for n in range(1, len(refs) + 1)]
    assert len(refs) >= 2
    for _, fields in refs:
        assert re.search(r"^- \*\*Verified:\*\* \S+ via http://127\.0\.0\.1:\d+/", fields, re.M)
        # Key Results quote what verify printed of the paper, and the quote was checked.
        assert re.search(
            r'^- \*\*Key Results:\*\* STAND-IN, quoting the paper: \[V\] "', fields, re.M
        ) or ("no abstract to read" in fields)
    # The agent read the whole abstract of each paper it judged strong or partial (in verify's
    # output, in its conversation), and no protocol file.
    verified = json.loads((cwd / player.summary["search_folder"] / "verified.json").read_text())
    kept = {key for key, label in player.summary["labels"].items() if label != "irrelevant"}
    read = [r for r in verified["results"] if r["key"] in kept and r.get("paper")]
    said = " ".join(" ".join(strings(request.body)) for request in run.requests).split()
    transcript = " ".join(said)
    for result in read:
        if abstract := result["paper"].get("abstract"):
            assert " ".join(abstract.split()) in transcript
    assert read and not reads(run)  # no protocol file, and no PROBLEM.md: discover prints it
    assert "The Price of Tolerance in Distribution Testing" in literature
    assert "STAND-IN Synthesis" in literature.split("## Synthesis", 1)[1]

    # The planted fabrications: unconfirmed, with the reason, never confirmed.
    unconfirmed = literature.split("## Unconfirmed References", 1)[1]
    for planted in PLANTED:
        assert f": {planted['title']}\n" in unconfirmed
        assert planted["title"] not in literature.split("## Synthesis", 1)[0]
    assert "arXiv:1605.08386 is 'Heat-bath random walks with Markov bases'" in unconfirmed

    journal = (problem / "JOURNAL.md").read_text(encoding="utf-8")
    assert re.search(r"^### LIT-001: ", journal, re.M)
    assert "broad-survey" in journal
    state = (problem / "STATE.md").read_text(encoding="utf-8")
    assert "current_state: LITERATURE_SEARCH" in state

    with sqlite3.connect(store) as db:
        runs = db.execute("SELECT run_id, iteration, source FROM runs WHERE problem = ?", (SLUG,))
        runs = runs.fetchall()
        judged = dict(db.execute("SELECT run_id, COUNT(*) FROM judgements GROUP BY run_id"))
        unread = dict(db.execute("SELECT run_id, COUNT(*) FROM unread GROUP BY run_id"))
        papers = dict(db.execute("SELECT run_id, COUNT(*) FROM run_papers GROUP BY run_id"))
        feedback = db.execute("SELECT feedback FROM runs WHERE iteration = 2").fetchall()
    # Iteration 1: arXiv, Semantic Scholar and zbMATH Open; the refined iteration: the first two.
    assert sorted(iteration for _, iteration, _ in runs) == [1, 1, 1, 2, 2]
    assert sorted(source for _, iteration, source in runs if iteration == 1) == [
        "arxiv",
        "semantic_scholar",
        "zbmath",
    ]
    # every paper of every run judged (one file an iteration), or left unread below the cut
    assert {run: judged.get(run, 0) + unread.get(run, 0) for run in papers} == papers
    assert all(memo and "Iteration 1" in memo for (memo,) in feedback)


@pytest.mark.slow
def test_a_search_for_proof_gaps_takes_the_next_unsearched_gap_and_marks_it(tmp_path):
    """The task after a proof loop: `discover --gap`, without bypass, takes Gap 1 of the bench's
    PROOF.md (no read of PROOF.md by the agent) and marks it searched; the next search would
    take Gap 2."""
    cwd = workspace(tmp_path)
    proof = cwd / ".math" / "problems" / SLUG / "PROOF.md"
    proof.write_text((ROOT / "bench" / "data" / "gap-search" / "PROOF.md").read_text())
    player = RunbookPlayer(StandInModel(recalled=PLANTED), cwd, gap=True)
    with StandIn() as standin:
        env = {**standin.env(), "MATH_LITERATURE_DB": str(cwd / ".math" / "literature.db")}
        env["MATH_ARXIV_MIN_INTERVAL"] = env["MATH_S2_MIN_INTERVAL"] = "0"
        main = main_conversation(f"Search for PROOF.md's reference-needed gaps. Slug: `{SLUG}`.")
        run = math_literature(tmp_path, cwd, main, player, env=env, bypass=False, timeout=600)
    assert run.exit_code == 0, run.describe()
    assert player.summary is not None and player.failed_calls == [], run.describe()
    assert player.summary["gap"] == "Gap 1: an estimator of the distance to uniform"
    assert player.summary["finish"]["valid"] is True
    marked = {gap.number: gap.searched for gap in gaps.read(proof)}
    run_number = player.summary["search_folder"].rsplit("/", 1)[1]
    assert marked[1][0].endswith(f" · literature run {run_number}") and marked[2] == []
    assert not reads(run)  # no PROOF.md: discover --gap prints the gap


@pytest.mark.slow  # CI runs it (CONTRIBUTING.md "Run the tests")
def test_allowed_tools_let_the_plugin_scripts_through_without_bypass(tmp_path):
    """Default permission mode: only the command's allowed-tools rules let a call run."""
    cwd = workspace(tmp_path)
    root = str(PLUGIN)
    script = f'python3 "{root}/scripts/literature.py"'
    calls = {
        "toolu_help": f"{script} --help",
        # a call that runs and is refused by the script itself (exit 2), not by Claude Code
        "toolu_judge": f"{script} judge .math/problems/none/literature-runs/9",
        "toolu_other": f'python3 "{root}/scripts/plan_queries.py" --help',
        "toolu_outside": f"{sys.executable} -c 'print(1)'",
    }

    problem = cwd / ".math" / "problems" / SLUG
    search_folder = problem / "literature-runs" / "1"
    literature = problem / "LITERATURE.md"
    # The runbook's writes: files in the search folder. Anything else the agent writes needs the
    # user's approval, except LITERATURE.md (an older REF's assessment, by hand).
    writes = {
        "toolu_write_run": ("Write", search_folder / "judgements-i1.json", "[]\n"),
        "toolu_write_nested": ("Write", search_folder / "sub" / "relevance.json", "{}\n"),
        "toolu_edit_literature": ("Edit", literature, ("(No synthesis yet", "(Nothing yet")),
        "toolu_write_problem": ("Write", problem / "PROBLEM.md", "replaced\n"),
        "toolu_edit_journal": ("Edit", problem / "JOURNAL.md", (f"problem: {SLUG}", "problem: x")),
        "toolu_write_outside": ("Write", cwd / "literature-runs" / "x.json", "[]\n"),
    }

    def write_call(block_id, tool, path, content):
        if tool == "Write":
            return tool_use("Write", {"file_path": str(path), "content": content}, block_id)
        old, new = content
        edit = {"file_path": str(path), "old_string": old, "new_string": new}
        return tool_use("Edit", edit, block_id)

    def agent_side(request):
        turn = sum(message["role"] == "assistant" for message in request.messages)
        if turn == 0:  # Edit and Write need a file read first
            reads = {
                "literature": literature,
                "journal": journal,
                "problem": problem / "PROBLEM.md",
            }
            return [bash(command, id=block_id) for block_id, command in calls.items()] + [
                tool_use("Read", {"file_path": str(path)}, f"toolu_read_{name}")
                for name, path in reads.items()
            ]
        if turn == 1:
            return [write_call(block_id, *call) for block_id, call in writes.items()]
        return [text("done")]

    journal = problem / "JOURNAL.md"
    problem_before = (problem / "PROBLEM.md").read_text(encoding="utf-8")

    def main(request):
        if not request.tool_results():
            return [
                agent(
                    "math:literature-search",
                    f"Literature search. Arguments: `{SLUG}`.",
                    id="toolu_a",
                    background=False,
                ),
                bash(f"{script} --help", id="toolu_main"),
            ]
        return [text("done")]

    run = math_literature(tmp_path, cwd, main, agent_side, bypass=False, timeout=300)
    assert run.exit_code == 0, run.describe()
    main_result = run.tool_result("toolu_main")
    assert not refused(main_result) and "usage:" in result_text(main_result)
    results = {r["tool_use_id"]: r for r in run.subagent_requests()[-1].tool_results()}
    assert not results["toolu_help"].get("is_error"), results["toolu_help"]
    assert "discover" in result_text(results["toolu_help"])
    judged = result_text(results["toolu_judge"])  # ran (exit 2: no search there), not refused
    assert not refused(results["toolu_judge"]) and "not_a_search" in judged, judged
    for block_id in ("toolu_other", "toolu_outside"):
        assert refused(results[block_id]), results[block_id]

    for block_id in ("toolu_write_run", "toolu_write_nested", "toolu_edit_literature"):
        assert not results[block_id].get("is_error"), results[block_id]
    assert (search_folder / "judgements-i1.json").read_text() == "[]\n"
    assert (search_folder / "sub" / "relevance.json").read_text() == "{}\n"
    assert "(Nothing yet" in literature.read_text(encoding="utf-8")
    for block_id in ("toolu_write_problem", "toolu_edit_journal", "toolu_write_outside"):
        assert refused(results[block_id]), results[block_id]
    assert (problem / "PROBLEM.md").read_text(encoding="utf-8") == problem_before
    assert f"problem: {SLUG}" in journal.read_text(encoding="utf-8")
    assert not (cwd / "literature-runs").exists()


@pytest.mark.slow
def test_research_starts_the_literature_agent_under_the_same_rules(tmp_path):
    """/math:research in the default permission mode: `state.py advance` names the literature
    agent and its task, the agent plays its whole runbook (scripts and run-folder writes pass on
    /math:research's rules alone), and the `advance` the plugin runs as it ends (hooks/
    after_agent.py) moves on to the proof agent."""
    cwd = workspace(tmp_path)
    player = RunbookPlayer(StandInModel(recalled=PLANTED), cwd)
    advance = f'python3 "{PLUGIN}/scripts/state.py" advance --problem {SLUG}'
    steps: list[dict] = []

    def main(request):
        results = request.tool_results()
        if not results:
            return [bash(advance, id="toolu_advance_0")]
        last = request.last_tool_results()[0]
        if last["tool_use_id"].startswith("toolu_agent"):  # step 1's answer, from the hook
            (context,) = request.hook_contexts()
            steps.append(json.loads(context.split("\n")[1]))
            return [text("stopping here")]
        steps.append(json.loads(harness.bash_result(last)[1]))
        if len(steps) == 1 and steps[0]["spawn"] == "math:literature-search":
            prompt = f"Problem `{SLUG}`, folder {steps[0]['dir']}\nTask: {steps[0]['task']}"
            return [agent(steps[0]["spawn"], prompt, id="toolu_agent_0", background=False)]
        return [text("stopping here")]

    with StandIn() as standin:
        env = {**standin.env(), "MATH_LITERATURE_DB": str(cwd / ".math" / "literature.db")}
        env["MATH_ARXIV_MIN_INTERVAL"] = env["MATH_S2_MIN_INTERVAL"] = "0"
        run = run_claude(
            f"/math:research {SLUG}",
            main,
            subagents={"math:literature-search": player},
            home=tmp_path / "home",
            cwd=cwd,
            env=env,
            bypass=False,
            timeout=600,
        )
    assert run.exit_code == 0, run.describe()
    first, second = steps
    assert [move["to"] for move in first["applied"]] == ["LITERATURE_SEARCH"]
    assert first["task"].startswith("Find, verify and record the prior work")
    assert player.failed_calls == [] and player.summary is not None, run.describe()
    assert player.summary["finish"]["valid"] is True
    assert [move["to"] for move in second["applied"]] == ["PROOF_DEVELOPMENT"]
    assert (second["action"], second["spawn"]) == ("spawn", "math:proof")
