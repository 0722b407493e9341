"""What a research brief shows of COMPUTATION.md (briefs.py says which agent gets which part):
the runs with their Interpretation, those still to interpret (code and output), the requests no
run answers yet, and the runs whole, for the referee and for the write-up's appendix.

A run's Code and Output are fenced blocks, read as blocks (blocks.section_text): a `# ` line in a
snippet or its output is code or output, not a heading that ends the part.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..core import read_text, split_frontmatter
from . import blocks, computation, review, smallcases
from .blocks import section_text
from .gaps import parse as parse_gaps

_COMPUTATION_CITED = re.compile(r"\bComputation\s+(\d+)\b", re.IGNORECASE)


def _runs(folder: Path) -> list[tuple[int, str]]:
    path = folder / "COMPUTATION.md"
    if not path.exists():
        return []
    text = read_text(path, "COMPUTATION.md")
    return computation.runs(split_frontmatter(text, "COMPUTATION.md")[1])


def _refutations(proof_md: str, runs: dict[int, str]) -> dict[int, list[str]]:
    """Run number -> its `Refutes:` line: the steps its Interpretation says it refutes, each as
    it stands or in an earlier form (the step was updated after the run): the referee's runbook
    makes the first wrong, and only a run since can test the second. Each step's runs are
    sought once, not once a run."""
    said: dict[int, list[str]] = {}
    for step in review.steps(proof_md):
        if step.status == "abandoned":
            continue
        standing = smallcases.refuting(step.name, runs, step.fields.get("Updated", "").strip())
        for number in smallcases.refuting(step.name, runs):
            form = "as it stands" if number in standing else "in an earlier form (updated since)"
            said.setdefault(number, []).append(f"{step.name} {form}")
    return {number: [f"Refutes: {'; '.join(steps)}"] for number, steps in said.items()}


_OK = re.compile(r"(?m)^\*\*Run:\*\*.*\boutcome ok\b")


def _run_part(text: str, heading: str) -> str:
    return section_text(text, f"### {heading}")


def _run_head(text: str) -> str:
    """A run's heading and its Request from / Purpose / Run lines."""
    head = text.split("\n### ", 1)[0]
    return "\n".join(line for line in head.splitlines() if line.strip())


def computation_results(folder: Path) -> str:
    runs = _runs(folder)
    if not runs:
        return ""
    lines = ["## Computations (COMPUTATION.md: each run and its Interpretation)"]
    for _, text in runs:
        lines += ["", _run_head(text), _run_part(text, "Interpretation")]
    return "\n".join(lines)


def open_requests(folder: Path, proof_md: str) -> str:
    wanted = set(review.unanswered_requests(folder))
    asked = [text for n, text in sorted(blocks.requests(proof_md).items()) if n in wanted]
    if not asked:
        return "## Open requests (PROOF.md)\n\nnone: every request has a run in COMPUTATION.md"
    gaps = [
        f"- {gap.name} (blocking {gap.blocking}): {gap.resolution}"
        for gap in parse_gaps(proof_md)
        if gap.type == "computation-needed" and not gap.fields.get("Resolved", "").strip()
    ]
    asking = ["", "Gaps that ask for them:", *gaps] if gaps else []
    return "\n".join(["## Open requests (PROOF.md)", "", "\n\n".join(asked), *asking])


def pending_interpretations(folder: Path) -> str:
    pending = [(n, text) for n, text in _runs(folder) if computation.INTERPRETATION_PENDING in text]
    if not pending:
        return ""
    lines = ["## Runs whose Interpretation is pending"]
    for _, text in pending:
        lines += ["", _run_head(text), "Code:", _run_part(text, "Code"), "Output:"]
        lines.append(_run_part(text, "Output"))
    return "\n".join(lines)


def recorded_runs(folder: Path) -> str:
    runs = _runs(folder)
    if not runs:
        return ""
    lines = ["## Runs already recorded (COMPUTATION.md)"]
    lines += ["- " + " · ".join(_run_head(text).splitlines()) for _, text in runs]
    return "\n".join(lines)


def cited_computations(folder: Path, proof_md: str) -> str:
    """The runs the proof's steps cite, whole (code, output, Interpretation), their Environment
    cut to the interpreter and library lines the appendix prints (the sandbox's isolation lines
    are COMPUTATION.md's record, not the article's)."""
    cited = {
        int(n)
        for step in review.steps(proof_md)
        if step.status != "abandoned"
        for item in step.depends
        for n in _COMPUTATION_CITED.findall(item)
    }
    runs = [_for_the_appendix(text.strip()) for n, text in _runs(folder) if n in cited]
    if not runs:
        return ""
    return "\n\n".join(["## Computations the steps cite (COMPUTATION.md)", *runs])


def _for_the_appendix(run: str) -> str:
    environment = _run_part(run, "Environment")
    versions = "\n".join(environment.splitlines()[: computation.VERSION_LINES])
    return run.replace(environment, versions, 1) if environment else run


def every_computation(folder: Path, proof_md: str) -> str:
    """Every run with the request it answers, its code, output and Interpretation: a step a
    recorded output contradicts is wrong whether or not it cites the run. A failed run the
    computation agent ran again for the same request is one line (in a play in the real host,
    four runs that failed on a missing module filled a quarter of the referee's brief)."""
    runs = _runs(folder)
    if not runs:
        return ""
    requests = blocks.requests(proof_md)
    lines = ["## Computations (COMPUTATION.md: every run; check each step against them)"]
    refutes = _refutations(proof_md, dict(runs))
    latest = {}  # request -> the run that answers it now (its last)
    for number, text in runs:
        if asked := blocks.ANSWERED.search(text):
            latest[int(asked.group(1))] = number
    for number, text in runs:
        asked = blocks.ANSWERED.search(text)
        rerun = latest.get(int(asked.group(1))) if asked else None
        if rerun not in (None, number) and not _OK.search(text):
            # a failed run the computation agent ran again: what it shows is its error
            first = _run_head(text).splitlines()[0]
            lines += ["", f"{first}: failed, run again as Computation {rerun}"]
            continue
        lines += ["", _run_head(text), *refutes.get(number, [])]
        if asked and int(asked.group(1)) in requests:
            lines += ["The request:", requests[int(asked.group(1))]]
        for part in ("Code", "Output", "Errors", "Interpretation"):
            found = _run_part(text, part)
            if found:
                lines += [f"{part}:", found]
    return "\n".join(lines)
