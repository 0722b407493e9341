"""Checking OUTPUT.tex against what may be claimed and cited, and compiling it.

`check` reports:
  - a `\\cite` key that is not in references.bib;
  - a cited key (every key, with \\nocite{*}) whose references.bib entry is not a verified,
    confirmed reference of LITERATURE.md (an entry added by hand must not smuggle in an
    unconfirmed paper);
  - a command in references.bib that reads or writes files or defines commands (`\\input`,
    `\\write`, `\\def`, ...: bibvalues.UNSAFE_COMMANDS), which LaTeX would run;
  - a claim that is not backed by PROOF.md. Every theorem-like environment (theorem, lemma,
    proposition, corollary, and every environment the document declares with \\newtheorem or
    \\declaretheorem except conjectures, remarks, definitions and examples) states a claim, and
    must carry a `\\label{pf:...}` naming a PROOF.md step (`### Lemma 2: ...` is `pf:lemma-2`)
    whose confidence is not [~]; it fails when it has no such label, names no step, names a step
    marked `**Confidence:** [~]` or one whose **Depends on:** steps lead to such a step (a step is
    never more certain than what it rests on), or carries the `\\speculative` mark or a literal [~];
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

from ..core.errors import BadInput
from ..core.tex import cited_keys, strip_comments
from ..gate.bibvalues import unsafe_commands
from ..litdoc import bibexport, literature, quotes
from . import review
from .sandbox import check_timeout, environment_without_secrets

THEOREM_LIKE = ("theorem", "lemma", "proposition", "corollary")
# A declared environment named (or titled, by its first word) one of these states no claim.
NOT_CLAIMS = frozenset(
    {"conjecture", "conj", "remark", "rem", "definition", "defn", "def", "example", "exa", "ex"}
    | {"exercise", "notation", "note", "question"}
)
_BIB_KEY = re.compile(r"^\s*@\s*(\w+)\s*\{\s*([^,\s]+)\s*,", re.MULTILINE)
_NEWTHEOREM = re.compile(
    r"\\newtheorem\*?\s*\{(?P<name>[^}]+)\}\s*(?:\[[^\]]*\]\s*)?\{(?P<title>[^}]*)\}"
    r"|\\declaretheorem\*?\s*(?:\[(?P<options>[^\]]*)\]\s*)?\{(?P<declared>[^}]+)\}"
)
_LABEL = re.compile(r"\\label\{([^}]*)\}")
_HAND_BIBLIOGRAPHY = re.compile(r"\\begin\{thebibliography\}|\\bibitem\b")
_SPECULATIVE_MARK = re.compile(r"\\speculative\b|\[~\]|\[\$\\sim\$\]")
_PROVED_MARK = re.compile(r"\\proved(?![A-Za-z@])")


def bib_keys(bib: str) -> list[str]:
    return [key for kind, key in _BIB_KEY.findall(bib) if kind.lower() not in ("comment", "string")]


def proof_steps(proof_md: str) -> dict[str, tuple[str, str | None, list[str]]]:
    """label -> (heading name, confidence tier or None, the labels of its **Depends on:** items)
    of every step of PROOF.md (review.steps: at any heading depth). A dependency that is no
    step (REF-003, Computation 2) is kept as a label too; it names no step, so nothing follows
    it."""
    return {
        step.label: (step.name, step.tier, [review.label(item) for item in step.depends])
        for step in review.steps(proof_md)
    }


def speculative_steps(proof_md: str) -> dict[str, str]:
    """label -> heading name of every PROOF.md step whose confidence is [~]."""
    return {
        label: name for label, (name, tier, _) in proof_steps(proof_md).items() if tier == "[~]"
    }


def speculative_grounds(
    steps: dict[str, tuple[str, str | None, list[str]]], label: str
) -> list[str]:
    """The names of the [~] steps and unconfirmed references (UREF-NNN) that step `label`
    depends on, directly or through other steps (a step is never more certain than what it rests
    on, whatever its own tier says)."""
    found, seen, todo = [], {label}, list(steps[label][2])
    while todo:
        current = todo.pop(0)
        if current.startswith("pf:uref-") and current not in seen:
            found.append(current.removeprefix("pf:").upper() + " (an unconfirmed reference)")
        if current in seen or current not in steps:
            continue
        seen.add(current)
        name, tier, depends = steps[current]
        if tier == "[~]":
            found.append(name)
        todo += depends
    return found


def claim_environments(tex: str) -> list[str]:
    """The environments of `tex` that state claims: the standard theorem-like ones and every one
    it declares (\\newtheorem, \\declaretheorem) that is not a conjecture, remark, definition
    or example by its name or title."""
    names = dict.fromkeys(THEOREM_LIKE)
    for found in _NEWTHEOREM.finditer(tex):
        name = found.group("name") or found.group("declared")
        title = found.group("title") or ""
        if found.group("options"):
            option = re.search(r"(?:name|title)\s*=\s*\{?([^,}]*)", found.group("options"))
            title = option.group(1) if option else ""
        first_word = (title.split() or [""])[0].lower().strip(".:")
        if name.strip().lower() not in NOT_CLAIMS and first_word not in NOT_CLAIMS:
            names.setdefault(name.strip())
    return list(names)


def claim_pattern(tex: str) -> re.Pattern[str]:
    """A claim environment of `tex` (claim_environments), its name `env` and its `body`."""
    return re.compile(
        r"\\begin\{(?P<env>"
        + "|".join(re.escape(name) for name in claim_environments(tex))
        + r")\*?\}(?P<body>.*?)\\end\{(?P=env)\*?\}",
        re.DOTALL,
    )


def check(
    tex: str,
    bib: str | None,
    confirmed_keys: set[str] | None,
    proof_md: str | None,
    reviewed: set[str] | None = None,
    review_md: str | None = None,
) -> list[dict[str, Any]]:
    """Every violation in OUTPUT.tex (empty list: it may be published as far as we can tell).
    `reviewed`, when given, holds the labels of the PROOF.md steps the referee checked (REVIEW.md):
    a claim stating any other step is a violation. `review_md` (REVIEW.md's text) says which [P]
    steps its seal gave: any other [P], and a \\proved on a claim that is not such a step, is a
    violation (proved_violations)."""
    body = strip_comments(tex)
    violations: list[dict[str, Any]] = []
    if _HAND_BIBLIOGRAPHY.search(body):
        violations.append(
            {
                "kind": "hand_bibliography",
                "message": "OUTPUT.tex writes its own bibliography (thebibliography or \\bibitem): "
                "only \\bibliography{references}, built from LITERATURE.md's confirmed "
                "references by bib_export.py, may list papers; cite them with \\cite",
            }
        )

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
        # \nocite{*} puts every entry of the .bib in the bibliography
        in_print = in_bib if re.search(r"\\nocite\s*\{\s*\*\s*\}", body) else set(cited)
        for key in sorted((in_bib - confirmed_keys) & in_print):
            violations.append(
                {
                    "kind": "unconfirmed_in_bib",
                    "key": key,
                    "message": f"references.bib holds {key!r}, which is not a confirmed, verified "
                    "reference in LITERATURE.md, and OUTPUT.tex cites it: verify it with "
                    "/math:literature (or /math:check-refs), or drop the citation",
                }
            )
    for command in dict.fromkeys(unsafe_commands(bib or "")):
        violations.append(
            {
                "kind": "unsafe_bib",
                "command": command,
                "message": f"references.bib contains {command}, which LaTeX would run while "
                "reading the bibliography: remove it (bib_export.py never writes one)",
            }
        )
    steps = proof_steps(proof_md) if proof_md else {}
    for match in claim_pattern(body).finditer(body):
        env, text, line = match.group("env"), match.group("body"), line_of(match.start())
        labels = _LABEL.findall(text)
        step_labels = [label for label in labels if label.startswith("pf:")]
        speculative, unbacked = [], []
        if _SPECULATIVE_MARK.search(text):
            speculative.append("it carries the [~] mark")
        for label in (label for label in step_labels if label in steps):
            name, tier, _ = steps[label]
            if tier == "[~]":
                speculative.append(f"its label {label} is PROOF.md's {name}, marked [~]")
            elif grounds := speculative_grounds(steps, label):
                speculative.append(
                    f"its label {label} is PROOF.md's {name}, which rests on "
                    f"{', '.join(grounds)}, marked [~] or unconfirmed"
                )
        if reviewed is not None:
            unbacked += [
                f"its step {steps[label][0]} was not checked by the referee (REVIEW.md)"
                for label in step_labels
                if label in steps and label not in reviewed
            ]
        if not step_labels:
            unbacked.append("it has no \\label{pf:...} naming the PROOF.md step it states")
        unbacked += [
            f"its label {label} names no PROOF.md step"
            for label in step_labels
            if label not in steps
        ]
        if speculative:
            kind, advice = "speculative_as_theorem", "prove it first"
        elif unbacked:
            kind, advice = "unbacked_claim", "label it after its step (### Lemma 2 is pf:lemma-2)"
        else:
            continue
        violations.append(
            {
                "kind": kind,
                "line": line,
                "environment": env,
                "labels": labels,
                "message": f"a {env} on line {line} is not backed by a proved PROOF.md step "
                f"({'; '.join(speculative + unbacked)}): {advice}, or state it as a conjecture "
                "or remark",
            }
        )
    violations += proved_violations(body, proof_md, review_md)
    return violations


def proved_violations(
    body: str, proof_md: str | None, review_md: str | None
) -> list[dict[str, Any]]:
    """A [P] in PROOF.md that REVIEW.md's seal did not give (review.sealed_proved), and every
    `\\proved` mark in the document (after \\begin{document}) that stands outside a claim
    environment labelled after a step the seal gave [P]: `\\proved` says "proved here in full",
    which only a sealed [P] step is."""
    given, unsealed = review.sealed_proved(proof_md, review_md) if proof_md else (set(), [])
    violations: list[dict[str, Any]] = [
        {"kind": "unsealed_proved", "message": f"PROOF.md: {message}"} for message in unsealed
    ]
    start = body.find("\\begin{document}")
    if start < 0:
        return violations
    steps = proof_steps(proof_md) if proof_md else {}
    claims = [
        (match.start(), match.end(), _LABEL.findall(match.group("body")))
        for match in claim_pattern(body).finditer(body)
    ]
    for mark in _PROVED_MARK.finditer(body, start):
        line = body.count("\n", 0, mark.start()) + 1
        labels = next((found for a, b, found in claims if a <= mark.start() < b), None)
        if labels is None:
            why = "it marks no theorem-like environment"
        elif any(label in given for label in labels):
            continue
        else:
            named = [
                f"{steps[lab][0]} ({steps[lab][1] or 'no tier'})" for lab in labels if lab in steps
            ]
            why = (
                f"its statement is PROOF.md's {', '.join(named)}, not a [P] step the referee's "
                "seal gave"
                if named
                else "its statement carries no \\label{pf:...} of a PROOF.md step"
            )
        violations.append(
            {
                "kind": "proved_without_p",
                "line": line,
                "message": f"\\proved on line {line}: {why}; mark it with its step's own tier "
                "(\\supported for [S], \\verified for [V])",
            }
        )
    return violations


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(f"cannot read {path}: {exc}", code="unreadable") from None


def check_folder(folder: Path, require_review: bool = False) -> tuple[str, list[dict[str, Any]]]:
    """(OUTPUT.tex, its violations) for a problem folder: the citations against references.bib
    and LITERATURE.md's confirmed references, the claims against PROOF.md and, when there is a
    REVIEW.md (or `require_review`), against the steps the referee checked."""
    from . import review  # review imports computation, which imports the sandbox: lazily

    reviewed = None
    if require_review or (folder / "REVIEW.md").exists():
        reviewed = review.checked_labels(folder) or set()
    tex = _read(folder / "OUTPUT.tex")
    if tex is None:
        raise BadInput(f"{folder / 'OUTPUT.tex'} does not exist yet", code="file_not_found")
    confirmed: set[str] = set()
    said: list[str] = []  # [V] claims whose quote is not in their source
    proof_md = _read(folder / "PROOF.md")
    if (folder / "LITERATURE.md").exists():
        doc = literature.load(folder / "LITERATURE.md")
        refs = {entry.key: entry.entry_number for entry in bibexport.bib_entries(doc)}
        confirmed = set(refs)
        entries = {entry.entry_number: entry for entry in doc.confirmed + doc.unconfirmed}
        said = quotes.tex_violations(strip_comments(tex), entries, refs)
        said += quotes.proof_violations(proof_md or "", entries)
    violations = check(
        tex,
        _read(folder / "references.bib"),
        confirmed,
        proof_md,
        reviewed,
        _read(folder / "REVIEW.md"),
    )
    violations += [{"kind": "unchecked_quote", "message": message} for message in said]
    return tex, violations


def compile_pdf(folder: Path, timeout: float = 300) -> dict[str, Any]:
    """Compile folder/OUTPUT.tex to OUTPUT.pdf with latexmk, else pdflatex + bibtex, each run
    given `timeout` seconds (BadInput unless sandbox.check_timeout accepts it)."""
    check_timeout(timeout)  # before looking for LaTeX: a bad value is refused on every machine
    latexmk, pdflatex, bibtex = (shutil.which(t) for t in ("latexmk", "pdflatex", "bibtex"))
    how = (
        "install a TeX distribution (Debian/Ubuntu: sudo apt-get install latexmk "
        "texlive-latex-extra; macOS: MacTeX; Windows: MiKTeX), then run in "
        f"{folder}: latexmk -pdf OUTPUT.tex (or pdflatex OUTPUT; bibtex OUTPUT; pdflatex OUTPUT; "
        "pdflatex OUTPUT), or upload OUTPUT.tex and references.bib to Overleaf"
    )
    flags = ["-interaction=nonstopmode", "-halt-on-error"]
    if latexmk:
        runs = [[latexmk, "-pdf", *flags, "OUTPUT.tex"]]
    elif pdflatex:
        runs = [[pdflatex, *flags, "OUTPUT.tex"]]
        if bibtex:
            runs.append([bibtex, "OUTPUT"])
        runs += [[pdflatex, *flags, "OUTPUT.tex"]] * 2
    else:
        return {"compiled": False, "tool": None, "pdf": None, "how": how}
    tool = Path(runs[0][0]).name
    for argv in runs:
        try:
            done = subprocess.run(
                argv,
                cwd=folder,
                env=environment_without_secrets(),  # a document could \input its environ
                capture_output=True,
                text=True,
                timeout=timeout,
                errors="replace",
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
    answer: dict[str, Any] = {
        "compiled": pdf.exists(),
        "tool": tool,
        "pdf": str(pdf) if pdf.exists() else None,
    }
    warnings = bibtex_warnings(folder)
    if warnings:
        answer["warnings"] = warnings
    return answer


# What BibTeX says when the bibliography came out empty or wrong; LaTeX still builds a PDF.
_BIBTEX_PROBLEMS = re.compile(
    r"^(I found no \\citation commands|I found no \\bibdata command|I found no "
    r"\\bibstyle command|I couldn't open .*|Warning--.*|.*---line \d+ of file .*)",
    re.MULTILINE,
)


def bibtex_warnings(folder: Path) -> list[str]:
    """BibTeX's complaints in OUTPUT.blg (no \\citation commands: the bibliography is empty)."""
    log = folder / "OUTPUT.blg"
    if not log.exists():
        return []
    text = log.read_text(errors="replace")
    found = [match.group(0).strip() for match in _BIBTEX_PROBLEMS.finditer(text)]
    advice = {
        "I found no \\citation commands": " (OUTPUT.tex cites nothing with \\cite, so the "
        "bibliography is empty: cite the references you use)",
    }
    return [
        line + next((a for k, a in advice.items() if line.startswith(k)), "") for line in found
    ][:20]


def _log_errors(log: Path) -> list[str]:
    """The `! ...` error lines of a LaTeX log, each with the line after it (the location)."""
    if not log.exists():
        return []
    lines = log.read_text(errors="replace").splitlines()
    return [
        " ".join(lines[i : i + 2]).strip() for i, line in enumerate(lines) if line.startswith("!")
    ][:20]
