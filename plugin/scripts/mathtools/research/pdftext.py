"""The write-up as the reader sees it: the claims OUTPUT.pdf prints, read from its text
(pdftotext), not from OUTPUT.tex, which TeX can hide claims from
(`\\csname newtheorem\\endcsname`, `\\def\\ntt{\\newtheorem}`, `\\let\\inp\\input`,
`\\textbf{Theorem 5.}`, `\\begin{remark}[Theorem]`).

A printed claim is a head: Theorem, Lemma, Proposition, Corollary or Claim (or Main Theorem),
with a number (2.1, or a letter: Theorem A) or none (as a starred environment prints it), and a
parenthesised name or none, then a period or a colon (`Theorem 2.1 (Rédei). ...`, as amsthm
prints a head and as a bold "Theorem 5." reads), or, after a number, a capitalised word (a bold
"Theorem 5" then "The ..."; "Theorem 5 shows" is a reference); or an environment of another
name whose note is one of those words, after capitalised words or none (`Remark 3 (Main
Theorem). ...`). A head opens a line or follows a sentence's end on it (a bold "Theorem 5."
inside a paragraph; "by Lemma 2." and "cf. Lemma 2." are references, not heads). Its text
runs to the next such head, a line opening with "Proof", a blank line, or PRINTED_CHARS
characters. Each must either

  - carry its lower tier visibly: [V], [S] or [∼] (the template's \\verified, \\supported,
    \\speculative) in its text; or
  - print the statement of a step the referee's seal gave [P] (review.proved_labels): at least
    STATEMENT_SHARE of the step's statement tokens (its heading after the colon: words, letters
    and numbers, LaTeX commands left out; none when the heading holds no statement) are in the
    printed text, and at least STATEMENT_SHARE of the printed text's words (four letters or
    more, the commonest left out) are in the step's block (the Main Theorem's: or PROBLEM.md).
    A [P] on another statement ("[P] The Riemann hypothesis holds.") under a sealed step's
    label is refused.

latex.py check stays the source of the messages that name a TeX line; this check is what the
move to DONE adds on the PDF itself.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import TypedDict

from . import review
from .outputtex import TexViolation

CLAIM_WORDS = ("Theorem", "Lemma", "Proposition", "Corollary", "Claim")
PRINTED_CHARS = 600
STATEMENT_SHARE = 0.6
INSTALL_PDFTOTEXT = (
    "install pdftotext (Debian/Ubuntu: sudo apt-get install --no-install-recommends "
    "poppler-utils; macOS: brew install poppler)"
)
_WORDS = "|".join(CLAIM_WORDS)
_NUMBER = r"(?:\d+(?:\.\d+)*|[A-Z]\b)"
# Where a head may stand: a line's start, or after a sentence's end on that line (not after
# an abbreviation: "cf. Lemma 2." is a reference).
_START = r"(?:^|(?<=[.!?] )(?<!cf\. )(?<!e\.g\. )(?<!i\.e\. )(?<!resp\. )(?<!viz\. ))[ \t]*"
_HEAD = re.compile(
    rf"{_START}(?:(?P<main>Main )?(?P<kind>{_WORDS})(?:[ \t]+(?P<number>{_NUMBER}))?"
    rf"[ \t]*(?:\([^)\n]*\))?(?:[ \t]*[.:](?!\d)|(?(number)[ \t]+(?=[A-Z][a-z])|(?!)))"
    rf"|(?P<other>[A-Z][a-z]+(?:[ \t]+{_NUMBER})?[ \t]*\([ \t]*(?:[A-Z][\w'-]*[ \t]+)*"
    rf"(?P<noted>{_WORDS})\b[^)\n]*\))[ \t]*[.:](?!\d))",
    re.MULTILINE,
)
# Where a printed claim's text ends: a line opening a proof, or a blank line (a paragraph's end).
_END = re.compile(r"^\s*Proof\b|\n\s*\n", re.MULTILINE)
# Words too common to tell one statement from another.
_COMMON = frozenset(
    {"that", "this", "these", "those", "their", "there", "then", "than", "with", "from", "have"}
    | {"into", "also", "each", "such", "when", "where", "which", "while", "some", "every", "only"}
    | {"over", "under", "does", "hold", "holds"}
)
_LOWER_TIER = re.compile(r"\[(?:V|S|~|∼|\$\\sim\$)\]")
_COMMAND = re.compile(r"\\[A-Za-z]+")
_TOKEN = re.compile(r"[A-Za-z]+|\d+")
_WORD = re.compile(r"[A-Za-z]{4,}")


class PrintedClaim(TypedDict):
    head: str  # "Theorem 2.1"
    text: str  # what follows the head, as the PDF prints it


def pdf_text(pdf: Path) -> str | None:
    """The PDF's text as pdftotext reads it (None: no pdftotext here)."""
    tool = shutil.which("pdftotext")
    if tool is None:
        return None
    done = subprocess.run(
        [tool, "-enc", "UTF-8", str(pdf), "-"],
        capture_output=True,
        text=True,
        errors="replace",
        timeout=60,
        check=False,
    )
    return done.stdout


def printed_claims(text: str) -> list[PrintedClaim]:
    """Every claim the text prints (module docstring), with the text that follows its head."""
    heads = list(_HEAD.finditer(text))
    found: list[PrintedClaim] = []
    for index, head in enumerate(heads):
        end = heads[index + 1].start() if index + 1 < len(heads) else len(text)
        body = text[head.end() : min(end, head.end() + PRINTED_CHARS)]
        ends = _END.search(body)
        body = body[: ends.start()] if ends else body
        name = head.group("other") or " ".join(
            part for part in (head.group("main"), head.group("kind"), head.group("number")) if part
        )
        found.append({"head": " ".join(name.split()), "text": " ".join(body.split())})
    return found


def _tokens(text: str) -> set[str]:
    return {token.lower() for token in _TOKEN.findall(_COMMAND.sub(" ", text))}


def _share(part: set[str], whole: set[str]) -> float:
    return len(part & whole) / len(part) if part else 1.0


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(_COMMAND.sub(" ", text))} - _COMMON


def prints_step(printed: str, block: str, problem: str = "") -> bool:
    """Whether `printed` (a claim's text in the PDF) states the step whose block is `block`
    (module docstring); a step whose heading holds no statement (`### Main Theorem`) is matched
    on its block's words alone, and the Main Theorem's on PROBLEM.md's (`problem`) too."""
    heading = block.split("\n", 1)[0]
    statement = heading.split(":", 1)[1] if ":" in heading else ""
    own = _words(block) | (_words(problem) if "main theorem" in heading.lower() else set())
    return _share(_tokens(statement), _tokens(printed)) >= STATEMENT_SHARE and (
        _share(_words(printed), own) >= STATEMENT_SHARE
    )


def pdf_claim_violations(folder: Path) -> list[TexViolation]:
    """Why OUTPUT.pdf prints a claim it may not: one violation per printed claim that is neither
    visibly of a lower tier nor the statement of a sealed [P] step; or, without pdftotext, the
    line that installs it (kind no_pdftotext)."""
    text = pdf_text(folder / "OUTPUT.pdf")
    if text is None:
        return [
            {
                "kind": "no_pdftotext",
                "message": "no pdftotext on this machine, so the claims OUTPUT.pdf prints cannot "
                f"be checked: {INSTALL_PDFTOTEXT}",
            }
        ]
    proof_path, problem_path = folder / "PROOF.md", folder / "PROBLEM.md"
    proof_md = proof_path.read_text(encoding="utf-8") if proof_path.exists() else ""
    problem = problem_path.read_text(encoding="utf-8") if problem_path.exists() else ""
    proved = review.proved_labels(folder)
    sealed = [step.text for step in review.steps(proof_md) if step.label in proved]
    violations: list[TexViolation] = []
    for claim in printed_claims(text):
        if _LOWER_TIER.search(claim["text"]):
            continue
        if any(prints_step(claim["text"], block, problem) for block in sealed):
            continue
        violations.append(
            {
                "kind": "unproved_claim_in_pdf",
                "message": f'OUTPUT.pdf prints {claim["head"]} ("{claim["text"][:80]}") as '
                "a result, but it states no step the referee's seal gave [P]: state a sealed "
                "step's statement, or mark the claim's tier ([V], [S] or [~]: \\verified, "
                "\\supported, \\speculative), or make it a conjecture or remark",
            }
        )
    return violations
