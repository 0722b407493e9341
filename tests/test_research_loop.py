"""One whole research run driven through the scripts exactly as commands/research.md drives them:
`state.py next`, `state.py transition` with the proposed move, then the agent's work. The agents'
writing is played by the test (the proof agent's PROOF.md is synthesized); everything a script
does - routing, loop counting, sandboxed computation, bibliography, checks, archive - is real.
"""

from __future__ import annotations

import json
import sys
import time

from mathtools.core import frontmatter
from support.verified import confirmed, paper, unconfirmed, verification

PROOF_BODY = """
# Proof Development

## Proof Structure

### Lemma 1: $\\sum_{k \\le n} k = n(n+1)/2$
**Status:** complete
**Depends on:** REF-001
**Confidence:** [S]

### Main Theorem
**Status:** {status}
**Depends on:** Lemma 1, Computation 1
**Confidence:** {tier}

## Computation Requests

### Request 1: the sum for n <= 100
**Purpose:** check the closed form of the Main Theorem
**Tool:** sympy
"""


REVIEW = """# Referee Report

### Lemma 1
**Verdict:** checked
**Sources:** REF-001 (Section 1): hypotheses hold - n is a positive integer
**Not computable:** a closed form for every $n$, which no finite run settles

Pairing $k$ with $n + 1 - k$ gives $n/2$ pairs of sum $n + 1$, so $\\sum_{k \\le n} k = n(n+1)/2$.

### Main Theorem
**Verdict:** checked
**Tested by:** Computation 1

Lemma 1 is the closed form for every $n$; Computation 1 agrees with it up to 100.
"""


def advance(script, folder):
    """One orchestrator turn: next, then record the transition it proposes. Returns the step."""
    step = script("state.py", "next", "--dir", str(folder)).json()
    if step["action"] == "transition":
        move = step["transition"]
        run = script(
            "state.py", "transition", move["to"], "--reason", move["reason"], "--dir", str(folder)
        )
        assert run.returncode == 0, run.stdout
    time.sleep(0.02)  # the agent's files must be newer than the state's entry
    return step


def write_proof(folder, **flags):
    fields = {"status": "in-progress", "computation_needed": False, "literature_needed": False}
    fields.update(flags)
    tier = "[S]" if fields["status"] == "complete" else "[~]"
    body = PROOF_BODY.replace("{status}", fields["status"]).replace("{tier}", tier)
    (folder / "PROOF.md").write_text(frontmatter.with_frontmatter(fields, body))


def test_a_run_from_intake_to_an_archived_session(script, tmp_path, tex_only):
    """Without TeX, the user having chosen tex only (tests/test_texbuild.py compiles for real)."""
    folder = tmp_path / ".math" / "problems" / "gauss-sum"
    folder.mkdir(parents=True)
    (folder / "PROBLEM.md").write_text("---\nstatus: defined\n---\n\n# Sum of 1..n\n")
    spawned = []

    step = advance(script, folder)  # INTAKE -> LITERATURE_SEARCH
    spawned.append(step["spawn"])
    gauss = paper(3, authors=["Carl Friedrich Gauss"], title="Disquisitiones arithmeticae")
    ghost = {"title": "A lost letter on sums", "arxiv_id": "9901.00001"}
    verified = tmp_path / "verified.json"
    verified.write_text(json.dumps(verification([confirmed(gauss), unconfirmed(ghost)])))
    merged = script(
        "lit_update.py", "merge", "--literature", str(folder / "LITERATURE.md"),
        "--verified", str(verified),
    )  # fmt: skip
    assert merged.returncode == 0, merged.stdout

    step = advance(script, folder)  # -> PROOF_DEVELOPMENT
    spawned.append(step["spawn"])
    write_proof(folder, computation_needed=True)

    step = advance(script, folder)  # -> COMPUTATION (loop 1)
    spawned.append(step["spawn"])
    code = "print(sum(range(1, 101)), 100 * 101 // 2)\n"
    run = script(
        "compute.py", "run", "-", "--request", "1", "--title", "sum to 100",
        "--python", sys.executable, "--dir", str(folder), input=code,
    )  # fmt: skip
    assert run.json()["stdout"] == "5050 5050\n"
    said = script("compute.py", "interpret", "1", "--text", "the closed form holds to 100",
                  "--dir", str(folder))  # fmt: skip
    assert said.returncode == 0, said.stdout

    step = advance(script, folder)  # -> PROOF_DEVELOPMENT
    spawned.append(step["spawn"])
    write_proof(folder, status="complete")

    step = advance(script, folder)  # -> REVIEW
    spawned.append(step["spawn"])
    (folder / "REVIEW.md").write_text(REVIEW)
    sealed = script("review.py", "seal", "--dir", str(folder))
    assert sealed.json()["verdict"] == "pass", sealed.stdout

    step = advance(script, folder)  # -> LATEX_OUTPUT
    spawned.append(step["spawn"])
    keys = script("bib_export.py", "--dir", str(folder)).json()["entries"]
    key = keys[0]["key"]
    tex = (
        "\\documentclass{article}\n\\newtheorem{theorem}{Theorem}\n\\begin{document}\n"
        f"As in \\cite{{{key}}}.\n\\begin{{theorem}}\\label{{pf:main-theorem}}"
        "$\\sum_{k\\le n} k = n(n+1)/2$.\\end{theorem}\n"
        "\\bibliographystyle{plain}\n\\bibliography{references}\n\\end{document}\n"
    )
    (folder / "OUTPUT.tex").write_text(tex)
    checked = script("latex.py", "check", "--compile", "--dir", str(folder))
    assert checked.returncode == 0, checked.stdout
    assert checked.json()["compile"]["tex_only"] is True

    step = advance(script, folder)  # -> DONE
    assert step["transition"]["to"] == "DONE" and step["spawn"] is None
    assert script("state.py", "next", "--dir", str(folder)).json()["action"] == "done"

    assert spawned == [
        "math:literature-search",
        "math:proof",
        "math:computation",
        "math:proof",
        "math:referee",
        "math:latex-writer",
    ]
    shown = script("state.py", "show", "--dir", str(folder)).json()
    assert shown["loops"] == {"proof-literature": 0, "proof-computation": 1, "proof-review": 0}
    assert [line.split(" ", 1)[1].split(" (")[0] for line in shown["history"]] == [
        "INTAKE -> LITERATURE_SEARCH",
        "LITERATURE_SEARCH: literature merged into LITERATURE.md",
        "LITERATURE_SEARCH -> PROOF_DEVELOPMENT",
        "PROOF_DEVELOPMENT -> COMPUTATION",
        "COMPUTATION -> PROOF_DEVELOPMENT",
        "PROOF_DEVELOPMENT -> REVIEW",
        "REVIEW -> LATEX_OUTPUT",
        "LATEX_OUTPUT -> DONE",
    ]

    archived = script("state.py", "archive-session", "--dir", str(folder)).json()
    session = folder / "sessions" / "session-001"
    assert archived["path"] == str(session)
    assert {
        "PROOF.md",
        "COMPUTATION.md",
        "OUTPUT.tex",
        "OUTPUT.compile.json",
        "references.bib",
    } <= set(archived["archived"])
    assert "5050 5050" in (session / "COMPUTATION.md").read_text()
    restarted = json.loads(script("state.py", "show", "--dir", str(folder)).stdout)
    assert restarted["current_state"] == "INTAKE"
