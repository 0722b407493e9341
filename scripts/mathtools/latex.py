"""Checking OUTPUT.tex against what may be claimed and cited, and compiling it.

`check` reports:
  - a `\\cite` key that is not in references.bib;
  - a key in references.bib that is not a verified, confirmed reference of LITERATURE.md (a hand
    edit of the .bib must not smuggle in an unconfirmed paper);
  - a speculative ([~]) claim in a theorem, lemma, proposition or corollary environment: one that
    carries the `\\speculative` mark or a literal [~], or whose `\\label{pf:...}` names a PROOF.md
    step marked `**Confidence:** [~]` (`### Lemma 2: ...` is `pf:lemma-2`);
  - a document that is not a complete article (no \\documentclass, document environment, or
    bibliography while it cites).

`compile` runs latexmk, else pdflatex + bibtex, when installed; otherwise it says how to.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

THEOREM_LIKE = ("theorem", "lemma", "proposition", "corollary")
_COMMENT = re.compile(r"(?<!\\)%.*")
_CITE = re.compile(r"\\(?:no)?[a-zA-Z]*cite[a-zA-Z]*\*?\s*(?:\[[^\]]*\]\s*){0,2}\{([^}]*)\}")
_BIB_KEY = re.compile(r"^\s*@\s*(\w+)\s*\{\s*([^,\s]+)\s*,", re.MULTILINE)
_ENVIRONMENT = re.compile(
    r"\\begin\{(?P<env>" + "|".join(THEOREM_LIKE) + r")\*?\}(?P<body>.*?)\\end\{(?P=env)\*?\}",
    re.DOTALL,
)
_LABEL = re.compile(r"\\label\{([^}]*)\}")
_SPECULATIVE_MARK = re.compile(r"\\speculative\b|\[~\]|\[\$\\sim\$\]")
_STEP_HEADING = re.compile(r"^###\s+(?P<name>[^:\n]+?)\s*(?::.*)?$")
_CONFIDENCE = re.compile(r"^\*\*Confidence:\*\*\s*(?P<tier>\[[VS~]\])", re.MULTILINE)


def strip_comments(tex: str) -> str:
    return "\n".join(_COMMENT.sub("", line) for line in tex.splitlines())


def cited_keys(tex: str) -> list[str]:
    """Every key cited (\\cite, \\citep, \\citet, \\parencite, \\nocite, ...), in order, once."""
    keys: dict[str, None] = {}
    for group in _CITE.findall(strip_comments(tex)):
        for key in group.split(","):
            if key.strip() and key.strip() != "*":
                keys.setdefault(key.strip(), None)
    return list(keys)


def bib_keys(bib: str) -> list[str]:
    return [key for kind, key in _BIB_KEY.findall(bib) if kind.lower() not in ("comment", "string")]


def step_label(name: str) -> str:
    """PROOF.md heading name -> the label the LaTeX writer uses: 'Lemma 2' -> 'pf:lemma-2'."""
    return "pf:" + re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def speculative_steps(proof_md: str) -> dict[str, str]:
    """label -> heading name of every PROOF.md step whose confidence is [~]."""
    found = {}
    blocks = re.split(r"(?m)^(?=###\s)", proof_md)
    for block in blocks:
        heading = _STEP_HEADING.match(block.split("\n", 1)[0])
        tier = _CONFIDENCE.search(block)
        if heading and tier and tier.group("tier") == "[~]":
            found[step_label(heading.group("name"))] = heading.group("name")
    return found


def check(
    tex: str, bib: str | None, confirmed_keys: set[str] | None, proof_md: str | None
) -> list[dict[str, Any]]:
    """Every violation in OUTPUT.tex (empty list: it may be published as far as we can tell)."""
    body = strip_comments(tex)
    violations: list[dict[str, Any]] = []

    def line_of(offset: int) -> int:
        return body.count("\n", 0, offset) + 1

    for needle, what in (
        (r"\documentclass", "no \\documentclass"),
        (r"\begin{document}", "no \\begin{document}"),
        (r"\end{document}", "no \\end{document}"),
    ):
        if needle not in body:
            violations.append({"kind": "incomplete_document", "message": what})
    cited = cited_keys(tex)
    in_bib = set(bib_keys(bib or ""))
    if cited and not re.search(r"\\bibliography\{|\\printbibliography", body):
        violations.append(
            {"kind": "incomplete_document", "message": "cites but has no \\bibliography{...}"}
        )
    for key in cited:
        if key not in in_bib:
            violations.append(
                {
                    "kind": "unknown_citation",
                    "key": key,
                    "message": f"cites {key!r}, which is not in references.bib (only confirmed "
                    f"references may be cited; run bib_export.py, or drop the citation)",
                }
            )
    if confirmed_keys is not None:
        for key in sorted(in_bib - confirmed_keys):
            violations.append(
                {
                    "kind": "unconfirmed_in_bib",
                    "key": key,
                    "message": f"references.bib holds {key!r}, which is not a confirmed, verified "
                    f"reference in LITERATURE.md; rebuild the file with bib_export.py",
                }
            )
    speculative = speculative_steps(proof_md) if proof_md else {}
    for match in _ENVIRONMENT.finditer(body):
        env, text = match.group("env"), match.group("body")
        labels = _LABEL.findall(text)
        reasons = []
        if _SPECULATIVE_MARK.search(text):
            reasons.append("it carries the [~] mark")
        reasons += [
            f"its label {label} is PROOF.md's {speculative[label]}, marked [~]"
            for label in labels
            if label in speculative
        ]
        if reasons:
            violations.append(
                {
                    "kind": "speculative_as_theorem",
                    "line": line_of(match.start()),
                    "environment": env,
                    "labels": labels,
                    "message": f"a speculative claim is stated as a {env} on line "
                    f"{line_of(match.start())} ({'; '.join(reasons)}): state it as a conjecture "
                    f"or remark, or prove it first",
                }
            )
    return violations


def compile_pdf(folder: Path, timeout: float = 300) -> dict[str, Any]:
    """Compile folder/OUTPUT.tex to OUTPUT.pdf with latexmk, else pdflatex + bibtex."""
    latexmk, pdflatex, bibtex = (shutil.which(t) for t in ("latexmk", "pdflatex", "bibtex"))
    how = (
        "install a TeX distribution (Debian/Ubuntu: sudo apt-get install latexmk "
        "texlive-latex-extra; macOS: MacTeX; Windows: MiKTeX), then run in "
        f"{folder}: latexmk -pdf OUTPUT.tex (or pdflatex OUTPUT; bibtex OUTPUT; pdflatex OUTPUT; "
        "pdflatex OUTPUT), or upload OUTPUT.tex and references.bib to Overleaf"
    )
    if not (latexmk or pdflatex):
        return {"compiled": False, "tool": None, "pdf": None, "how": how}
    flags = ["-interaction=nonstopmode", "-halt-on-error"]
    if latexmk:
        runs = [[latexmk, "-pdf", *flags, "OUTPUT.tex"]]
    else:
        runs = [[pdflatex, *flags, "OUTPUT.tex"]]
        if bibtex:
            runs.append([bibtex, "OUTPUT"])
        runs += [[pdflatex, *flags, "OUTPUT.tex"]] * 2
    tool = Path(runs[0][0]).name
    for argv in runs:
        try:
            done = subprocess.run(
                argv, cwd=folder, capture_output=True, text=True, timeout=timeout, errors="replace"
            )
        except subprocess.TimeoutExpired:
            return {"compiled": False, "tool": tool, "pdf": None, "errors": ["timed out"]}
        if done.returncode != 0 and Path(argv[0]).name != "bibtex":
            return {
                "compiled": False,
                "tool": tool,
                "pdf": None,
                "exit_code": done.returncode,
                "errors": _log_errors(folder / "OUTPUT.log") or done.stdout.splitlines()[-20:],
            }
    pdf = folder / "OUTPUT.pdf"
    return {"compiled": pdf.exists(), "tool": tool, "pdf": str(pdf) if pdf.exists() else None}


def _log_errors(log: Path) -> list[str]:
    """The `! ...` error lines of a LaTeX log, each with the line after it (the location)."""
    if not log.exists():
        return []
    lines = log.read_text(errors="replace").splitlines()
    return [
        " ".join(lines[i : i + 2]).strip() for i, line in enumerate(lines) if line.startswith("!")
    ][:20]
