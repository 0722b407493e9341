"""Each agent /math:research spawns gets its inputs in its OWN conversation, in the real Claude
Code (2.1.332, and 2.1.197 in run-tests' second pass).

Claude Code does not attach `@path` lines in an Agent prompt: the subagent's first request holds
the literal line and none of the file (checked on both versions with this harness). So
commands/research.md hands an agent only the slug, the folder and the task, and each agent's
runbook makes `state.py brief` its first call. Here the loop runs on the tournament problem
(tests/support/tournament.py, whose files each carry a MARKER) through four invocations, one per
agent: proof, computation, referee, latex-writer. Each agent is played to its runbook's first
call (the brief line of its own system prompt, as Claude Code sent it) and the test looks for
every input file's marker in that agent's own next request (Request.kind == "subagent"), never
in the orchestrator's: PROOF.md's Strategy, and for the referee and the writer each run's Code
and Output whole, from snippets whose first line is a `# ` comment and whose output prints a
`# ` line (once read as headings, which cut both to nothing).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_script
from support import tournament as t
from support.claude_harness import agent, bash, bash_result, run_claude, runbook_commands, text
from test_research_e2e import Orchestrator, compute_ready, research

# The markers of the files each agent needs (tests/support/tournament.py writes them).
PROBLEM = "MARKER-PROBLEM-STATEMENT"
WANTED = {
    "math:proof": {
        "PROBLEM.md": PROBLEM,
        "NOTATION.md": "MARKER-NOTATION",
        "LITERATURE.md": "MARKER-REF-KEY-RESULT",
        "JOURNAL.md": "MARKER-DEAD-END",
        "PROOF.md": "MARKER-PROOF-GAP",
        "COMPUTATION.md": "MARKER-INTERPRETATION",
        "REVIEW.md": "MARKER-REVIEW-NOTE",
        "protocols/proof-format.md": "## revising PROOF.md",  # a revision pass: its rules
    },
    "math:computation": {
        "PROBLEM.md": PROBLEM,
        "PROOF.md": "MARKER-REQUEST-2",
        "PROOF.md's Strategy": t.STRATEGY_MARKER,
        "COMPUTATION.md": "Computation 1: h(T), request 1",
    },
    "math:referee": {
        "PROBLEM.md": PROBLEM,
        "NOTATION.md": "MARKER-NOTATION",
        "PROOF.md": "MARKER-PROOF-LEMMA",
        "PROOF.md's Strategy": t.STRATEGY_MARKER,
        "LITERATURE.md": "MARKER-REF-STATEMENT",
        "COMPUTATION.md": "MARKER-INTERPRETATION",
        # the snippet's first line, a `# ` comment, and the output's `# ` table heading: whole
        "COMPUTATION.md's Code": f"# {t.CODE_MARKER}: h(T) for every tournament",
        "COMPUTATION.md's Output": f"# n, least h(T), all odd ({t.OUTPUT_MARKER})\nn=1:",
    },
    "math:latex-writer": {
        "PROBLEM.md": PROBLEM,
        "NOTATION.md": "MARKER-NOTATION",
        "PROOF.md": "MARKER-PROOF-LEMMA",
        "PROOF.md's Strategy": t.STRATEGY_MARKER,
        "LITERATURE.md": "MARKER-REF-KEY-RESULT",
        "LITERATURE.md's unconfirmed": "MARKER-UREF",
        "COMPUTATION.md": "MARKER-INTERPRETATION",
        "COMPUTATION.md's Code": f"# {t.CODE_MARKER}: h(T) for every tournament",
        "COMPUTATION.md's Output": f"# n, least h(T), all odd ({t.OUTPUT_MARKER})\nn=1:",
        "REVIEW.md": "- Main Theorem: checked",
        "references.bib": "REF-001 \\cite{",  # written by the brief, the keys printed
    },
}
EARLIER_REVIEW = t.REVIEW.replace(
    "### Step 2\n**Verdict:** checked\n",
    "### Step 2\n**Verdict:** gap\n"
    "**Note:** n = 6 is sampled, not exhausted (MARKER-REVIEW-NOTE)\n",
)


class BriefReader:
    """An agent that follows its runbook's first instruction, `state.py brief` (the line its
    system prompt holds, plugin path substituted), and reports; it keeps its own requests."""

    def __init__(self):
        self.requests: list = []
        self.command = ""

    def __call__(self, request):
        self.requests.append(request)
        if len(self.requests) == 1:
            (self.command,) = [c for c in runbook_commands(request.system_text()) if " brief " in c]
            return [bash(self.command.replace("SLUG", t.SLUG), id="toolu_brief")]
        return [text("Read my brief; stopping here.")]

    def brief(self) -> str:
        """What the brief call printed, as this agent's own second request carried it."""
        second = self.requests[1]
        assert second.kind == "subagent", second.kind
        ((status, output),) = [bash_result(r) for r in second.last_tool_results()]
        assert status == 0, output
        return output


def move(cwd: Path, to: str, reason: str) -> None:
    done = run_script(
        "state.py", "transition", to, "--reason", reason, "--problem", t.SLUG, cwd=cwd
    )
    assert done.returncode == 0, done.stdout


def spawn_one(home: Path, cwd: Path, expected: str) -> tuple[BriefReader, dict, object]:
    """One /math:research invocation that spawns `expected`; (its player, the Agent call, the
    run)."""
    reader = BriefReader()
    orchestrator = Orchestrator(agent_runs=1, slug=t.SLUG)
    run = research(home, cwd, orchestrator, {expected: reader}, slug=t.SLUG)
    step, (call,) = orchestrator.steps[0], orchestrator.spawned
    assert step["spawn"] == expected, step
    assert call["subagent_type"] == expected
    return reader, call, run


def assert_inputs_reached(reader: BriefReader, call: dict, run, agent: str) -> None:
    assert reader.requests, f"{agent} never ran\n{run.describe()}"
    first = reader.requests[0]
    assert first.kind == "subagent" and first.subagent_type == agent
    # the orchestrator hands over no file: the inputs are not in the agent's first request...
    assert "@" not in call["prompt"] and PROBLEM not in json.dumps(first.body)
    assert "brief --for " + agent.removeprefix("math:") in reader.command
    # ...but in the answer to its first call, in its own conversation
    brief = reader.brief()
    missing = {name: marker for name, marker in WANTED[agent].items() if marker not in brief}
    assert not missing, f"{agent} did not get {missing}:\n{brief}"
    # and nowhere in the orchestrator's requests
    assert all(PROBLEM not in json.dumps(r.body) for r in run.main_requests())


def after_a_first_pass(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(home, workspace, problem folder) after a proof pass that failed once and asked for two
    computations, the first answered, and an earlier review that found a gap."""
    home = tmp_path / "home"
    cwd = home / "work"
    folder = t.new_problem(cwd)
    compute_ready(home)
    t.write_literature(folder)
    t.failed_strategy(cwd)
    (folder / "PROOF.md").write_text(t.proof("asking", t.NOW), encoding="utf-8")
    t.compute(cwd, folder, 1)
    (folder / "REVIEW.md").write_text(EARLIER_REVIEW, encoding="utf-8")
    return home, cwd, folder


@pytest.mark.slow
@pytest.mark.claude
def test_each_agent_the_loop_spawns_reads_its_inputs_in_its_own_request(tmp_path):
    home, cwd, folder = after_a_first_pass(tmp_path)
    move(cwd, "LITERATURE_SEARCH", "problem defined")
    move(cwd, "PROOF_DEVELOPMENT", "literature already searched")  # LITERATURE.md's last_search

    # PROOF.md was written before this state: the proof agent's pass.
    reader, call, run = spawn_one(home, cwd, "math:proof")
    assert_inputs_reached(reader, call, run, "math:proof")

    # The pass asks for a computation: Request 2 is open.
    (folder / "PROOF.md").write_text(t.proof("asking", t.NOW), encoding="utf-8")
    reader, call, run = spawn_one(home, cwd, "math:computation")
    assert_inputs_reached(reader, call, run, "math:computation")

    # Request 2 answered, the proof finished: the referee.
    t.compute(cwd, folder, 2)
    move(cwd, "PROOF_DEVELOPMENT", "COMPUTATION.md answers every request")
    (folder / "PROOF.md").write_text(t.proof("done", t.NOW), encoding="utf-8")
    reader, call, run = spawn_one(home, cwd, "math:referee")
    assert_inputs_reached(reader, call, run, "math:referee")

    # A passing review, sealed: the writer.
    (folder / "REVIEW.md").write_text(t.REVIEW, encoding="utf-8")
    sealed = run_script("review.py", "seal", "--problem", t.SLUG, cwd=cwd)
    assert sealed.returncode == 0, sealed.stdout + sealed.stderr
    reader, call, run = spawn_one(home, cwd, "math:latex-writer")
    assert_inputs_reached(reader, call, run, "math:latex-writer")


class Command:
    """The main conversation following /math:prove, /math:compute or /math:write: step 1's
    `state.py show` (the body's line), step 2's Agent call with the slug, folder and task only."""

    def __init__(self, agent_type: str, task: str):
        self.agent, self.task = agent_type, task
        self.spawned: dict = {}

    def __call__(self, request):
        if not request.tool_results():
            (show,) = runbook_commands(request.command_body())
            return [bash(show, id="toolu_show")]
        if not self.spawned:
            shown = json.loads(bash_result(request.last_tool_results()[0])[1])
            prompt = f"Problem `{shown['problem']}`, folder {shown['dir']}\nTask: {self.task}"
            call = agent(self.agent, prompt, id="toolu_agent", background=False)
            self.spawned = call["input"]
            return [call]
        return [text("Reported.")]


@pytest.mark.claude
@pytest.mark.parametrize(
    ("command", "agent_type", "task"),
    [
        ("prove", "math:proof", "Continue the proof"),
        # CI runs the other two commands too (CONTRIBUTING.md "Run the tests")
        pytest.param(
            "compute",
            "math:computation",
            "Answer the open computation requests in PROOF.md",
            marks=pytest.mark.slow,
        ),
        pytest.param("write", "math:latex-writer", "Write OUTPUT.tex", marks=pytest.mark.slow),
    ],
)
def test_the_single_agent_commands_hand_over_no_file_and_the_agent_reads_its_brief(
    tmp_path, command, agent_type, task
):
    home, cwd, _ = after_a_first_pass(tmp_path)

    main, reader = Command(agent_type, task), BriefReader()
    run = run_claude(
        f"/math:{command}",
        main,
        subagents={agent_type: reader},
        home=home,
        cwd=cwd,
        bypass=False,
        extra_args=["--permission-mode", "acceptEdits"],
    )
    assert run.exit_code == 0, run.describe()
    assert_inputs_reached(reader, main.spawned, run, agent_type)
