"""/math:check-refs (plugin/commands/check-refs.md) played as the model would, with a STAND-IN
model, on a shared paper with two planted misuses of cited statements.

The paper is 2405.16513 (../shared/recordings/arxiv-src, read where it is) with the .bib its
source names and lacks (tests/support/arxiv_src.REFERENCES_BIB, synthesized), and two sentences
written into it (PLANTED): Lemma 2.1 of Bezdek and Bezdek cited for more than it says (its
hypothesis on every d+1 points dropped), and Lemma 2.3 cited for what their Lemma 2.2 says (the
wrong number, one the paper does print). `play` makes the runbook's calls — its one ```bash line,
$ARGUMENTS and the plugin path substituted — through whatever runs them (a subprocess here,
Claude Code's Bash in an end-to-end test), then answers as step 3 says: the mismatches first.

What the runbook leaves to the model's judgement, marking each `use N:` block, the STAND-IN does
from an answer key: a planted use gets the mark a mathematician gives it, and only when its block
shows both the planted sentence and the cited statement's text (so a model could judge it from
what was printed); every other use is "can't tell". So this measures what the command hands the
model — the calls, the characters it must read — and that both misuses are there to be named; it
does not measure a model's judgement.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMAND = ROOT / "plugin" / "commands" / "check-refs.md"
STAND_IN = "STAND-IN"
MISMATCHES = ("stronger than stated", "other statement")
_BASH = re.compile(r"```bash\n(.*?)```", re.S)
_USE = re.compile(r"^use (\d+): (.+) line (\d+) cites (.+) of (\S+)$")
_AS_IN = re.compile(r": as in use (\d+)$")
# Where the planted sentences go: before the proof of the paper's main theorem.
ANCHOR = r"\begin{proof}[Proof of Theorem \ref{counterexample_thm}]"


@dataclass
class Planted:
    """A misuse written into the paper, and the answer key's mark for it."""

    sentence: str  # as written into the LaTeX
    cites: str  # "Lemma 2.1"
    key: str
    mark: str
    why: str
    statement_opens: str  # the cited statement's first words: the use must show them


PLANTED = [
    Planted(
        r"By \cite[Lemma 2.1]{bezdek-bezdek}, every convex body in $\R^d$ has a translate that "
        "covers any finite set of points.",
        "Lemma 2.1",
        "bezdek-bezdek",
        "stronger than stated",
        "the lemma covers a finite set only if every d+1 of its points can be covered",
        r"Let $\bf F$ be a finite set of at least d+1 points",
    ),
    Planted(
        r"By \cite[Lemma 2.3]{bezdek-bezdek}, a finite set of points cannot be translated into "
        "the interior of a convex body if and only if it meets closed supporting halfspaces of "
        "the body assigned to its points.",
        "Lemma 2.3",
        "bezdek-bezdek",
        "other statement",
        "Lemma 2.3 says a generalized billiard trajectory cannot be translated into the interior;"
        " the sentence states Lemma 2.2",
        r"Let $\CC$ be a convex body in $\E^d, d\ge 2$. If $\PP$ is a generalized billiard",
    ),
]


def planted_paper(folder: Path, source: str, bib: str) -> Path:
    """paper.tex (the shared paper's `source` with PLANTED written in) and references.bib, in
    `folder`; the .tex's path."""
    if ANCHOR not in source:
        raise ValueError(f"the paper no longer holds {ANCHOR}: plant the misuses elsewhere")
    planted = " ".join(p.sentence for p in PLANTED)
    (folder / "paper.tex").write_text(
        source.replace(ANCHOR, f"{planted}\n\n{ANCHOR}", 1), encoding="utf-8"
    )
    (folder / "references.bib").write_text(bib, encoding="utf-8")
    return folder / "paper.tex"


def runbook_commands(arguments: str, plugin_root: str) -> list[str]:
    """The runbook's ```bash lines, as Claude Code expands them."""
    body = COMMAND.read_text(encoding="utf-8")
    return [
        line.strip().replace("${CLAUDE_PLUGIN_ROOT}", plugin_root).replace("$ARGUMENTS", arguments)
        for block in _BASH.findall(body)
        for line in block.splitlines()
        if line.strip()
    ]


@dataclass
class Use:
    """One `use N:` block of the output."""

    number: int
    file: str
    line: int
    cites: str
    key: str
    sentence: str = ""
    statement: str = ""


def uses(output: str) -> list[Use]:
    found: list[Use] = []
    for line in output.splitlines():
        head = _USE.match(line)
        if head:
            number, file, at, cites, key = head.groups()
            found.append(Use(int(number), file, int(at), cites, key))
        elif found and line.startswith("  sentence: "):
            found[-1].sentence = line.removeprefix("  sentence: ")
        elif found and line.startswith("  statement: "):
            again = _AS_IN.search(line)  # a statement shown before: read it there
            earlier = {use.number: use.statement for use in found}
            found[-1].statement = (
                earlier[int(again.group(1))] if again else line.removeprefix("  statement: ")
            )
    return found


def judged(use: Use) -> tuple[str, str]:
    """The STAND-IN's mark for a use (module docstring): (mark, why)."""
    for planted in PLANTED:
        shown = " ".join(planted.sentence.split()) in use.sentence
        if (
            shown
            and (use.cites, use.key) == (planted.cites, planted.key)
            and planted.statement_opens in use.statement
        ):
            return planted.mark, planted.why
    return "can't tell", f"{STAND_IN}: no answer key for this use"


@dataclass
class Played:
    calls: list[str] = field(default_factory=list)
    output: str = ""  # what the call printed: the model reads all of it
    answer: str = ""
    marks: dict[int, str] = field(default_factory=dict)


def play(run: Callable[[str], tuple[int, str]], arguments: str, plugin_root: str) -> Played:
    """The runbook followed: its one call made through `run` (command -> (exit, output)), then
    step 3's answer (`answer`)."""
    calls = runbook_commands(arguments, plugin_root)
    (command,) = calls
    status, output = run(command)
    return answer(status, output, calls)


def answer(status: int, output: str, calls: list[str]) -> Played:
    """Step 3 on what the call printed: each use marked, the mismatches first, a line counting
    the rest, then the output without the use blocks and progress lines, in a code block."""
    played = Played(calls=calls, output=output)
    lines, rest = [], []
    for use in uses(output):
        mark, why = judged(use)
        played.marks[use.number] = mark
        if mark in MISMATCHES:
            lines.append(
                f"use {use.number} ({use.file} line {use.line}, {use.cites} of {use.key}): "
                f"{mark}: {why}"
            )
    counted = [m for m in played.marks.values() if m not in MISMATCHES]
    cannot = counted.count("can't tell")
    lines.append(f"{counted.count('as stated')} uses as stated, {cannot} can't tell")
    in_use = False
    for line in output.splitlines():
        in_use = bool(_USE.match(line)) or (in_use and line.startswith("  "))
        if not in_use and not line.startswith(("uses to judge:", "check_refs:", "math:")):
            rest.append(line)
    played.answer = "\n".join([*lines, "```", *rest, "```", f"({STAND_IN}; exit {status})"])
    return played
