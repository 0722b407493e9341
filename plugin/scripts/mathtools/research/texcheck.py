"""The write-up's check (`latex.py check`): OUTPUT.tex against what may be claimed and cited (its
build: texbuild.py).

`check` reports:
  - a `\\cite` key that is not in references.bib;
  - a cited key (every key, with \\nocite{*}) whose references.bib entry is not a verified,
    confirmed reference of LITERATURE.md (an entry added by hand must not smuggle in an
    unconfirmed paper);
  - a command in references.bib that reads or writes files or defines commands (`\\input`,
    `\\write`, `\\def`, ...: bibvalues.UNSAFE_COMMANDS), which LaTeX would run;
  - a claim that is not backed by PROOF.md. Every environment that states a claim by its printed
    name (outputtex.claim_environments: theorem, lemma, proposition, corollary, any \\newtheorem
    but a conjecture, remark, definition or example, and any \\newenvironment wrapping one)
    must carry a `\\label{pf:...}` naming a PROOF.md step (`### Lemma 2: ...` is `pf:lemma-2`)
    whose confidence is not [~]; it fails when it has no such label, names no step, names a step
    marked `**Confidence:** [~]` or one whose **Depends on:** steps lead to such a step (a step is
    never more certain than what it rests on), or carries the `\\speculative` mark or a literal [~];
    a command defined to open a claim environment hides its claims, and fails;
  - an abstract that announces a result ("we prove") when the article states none as a backed
    claim (the Main Theorem's, when PROOF.md has one);
  - the files OUTPUT.tex reads in (\\input, \\include, a local .sty) are checked with it; one it
    cannot follow (outside the problem folder, missing, \\import) fails;
  - a document that is not a complete article (no \\documentclass, document environment, or
    bibliography while it cites), or one with a bibliography but no citation (an empty References
    section, and BibTeX's "I found no \\citation commands").
"""

from __future__ import annotations

import re
from pathlib import Path

from ..bibliography import unsafe_commands
from ..core import BadInput, cited_keys, strip_comments
from ..litdoc import bib_entries, load_literature, proof_violations, tex_violations
from . import outputtex, review
from .outputtex import TexViolation

_BIB_KEY = re.compile(r"^\s*@\s*(\w+)\s*\{\s*([^,\s]+)\s*,", re.MULTILINE)
_LABEL = re.compile(r"\\label\{([^}]*)\}")
_HAND_BIBLIOGRAPHY = re.compile(r"\\begin\{thebibliography\}|\\bibitem\b")
_SPECULATIVE_MARK = re.compile(r"\\speculative\b|\[~\]|\[\$\\sim\$\]")
_PROVED_MARK = re.compile(r"\\proved(?![A-Za-z@])")
_ABSTRACT = re.compile(
    r"\\begin\{abstract\}(?P<text>.*?)\\end\{abstract\}|\\abstract\{(?P<arg>[^}]*)\}", re.DOTALL
)
# What an abstract says when it announces a result (not when it conjectures one).
_ANNOUNCES = re.compile(
    r"\b(?:we|this (?:paper|note|article))\s+(?:also\s+|then\s+|here\s+)?(?:prove|show|establish"
    r"|demonstrate|obtain|determine|settle|resolve|derive|give a proof)s?\b"
    r"|\b(?:is|are)\s+(?:here\s+)?(?:proved|proven|shown|established)\b"
    r"|\bour (?:main )?(?:results?|theorems?)\b",
    re.IGNORECASE,
)


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


def check(
    tex: str,
    bib: str | None,
    confirmed_keys: set[str] | None,
    proof_md: str | None,
    reviewed: set[str] | None = None,
    included: dict[str, str] | None = None,
    review_md: str | None = None,
) -> list[TexViolation]:
    """Every violation in OUTPUT.tex (empty list: it may be published as far as we can tell).
    `reviewed`, when given, holds the labels of the PROOF.md steps the referee checked (REVIEW.md):
    a claim stating any other step is a violation. `included` holds the files OUTPUT.tex reads in
    (outputtex.read_in), checked with it. `review_md` (REVIEW.md's text) says which [P] steps its
    seal gave: any other [P], and a \\proved on a claim that is not such a step, is a violation
    (proved_violations)."""
    included = included or {}
    body = strip_comments(tex)
    whole = "\n".join([body, *(strip_comments(text) for text in included.values())])
    violations: list[TexViolation] = []
    if _HAND_BIBLIOGRAPHY.search(whole):
        violations.append(
            {
                "kind": "hand_bibliography",
                "message": "OUTPUT.tex writes its own bibliography (thebibliography or \\bibitem): "
                "only \\bibliography{references}, built from LITERATURE.md's confirmed "
                "references by bib_export.py, may list papers; cite them with \\cite",
            }
        )
    for needle, what in (
        (r"\documentclass", "no \\documentclass"),
        (r"\begin{document}", "no \\begin{document}"),
        (r"\end{document}", "no \\end{document}"),
    ):
        if needle not in whole:
            violations.append({"kind": "incomplete_document", "message": what})
    cited = cited_keys(whole)
    in_bib = set(bib_keys(bib or ""))
    every_entry = re.search(r"\\nocite\s*\{\s*\*\s*\}", whole)
    prints_bibliography = re.search(r"\\bibliography\{|\\printbibliography", whole)
    if cited and not prints_bibliography:
        violations.append(
            {"kind": "incomplete_document", "message": "cites but has no \\bibliography{...}"}
        )
    violations += empty_bibliography(
        bool(prints_bibliography), bool(cited or (every_entry and in_bib))
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
        in_print = in_bib if every_entry else set(cited)
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
    for macro in outputtex.claim_macros(whole):
        violations.append(
            {
                "kind": "claim_in_macro",
                "message": f"OUTPUT.tex defines {macro} to open a theorem-like environment, so "
                "the claims it makes cannot be checked: write the environment itself",
            }
        )
    steps = proof_steps(proof_md) if proof_md else {}
    claims = outputtex.claim_environments(whole)
    backed: list[str] = []  # the labels of the claims that pass
    for name, text in [("OUTPUT.tex", body), *included.items()]:
        text = outputtex.without_definitions(strip_comments(text))
        found, passed = claim_violations(name, text, claims, steps, reviewed)
        violations += found
        backed += passed
    violations += abstract_violations(whole, backed, "pf:main-theorem" in steps)
    for name, text in [("OUTPUT.tex", body), *included.items()]:
        text = outputtex.without_definitions(strip_comments(text))
        violations += proved_marks(name, text, claims, steps, proof_md, review_md)
    violations += unsealed_proved(proof_md, review_md)
    return violations


def empty_bibliography(prints: bool, cites: bool) -> list[TexViolation]:
    """A bibliography with nothing cited is an empty References section (BibTeX: "I found no
    \\citation commands")."""
    if not prints or cites:
        return []
    return [
        {
            "kind": "empty_bibliography",
            "message": "OUTPUT.tex has a bibliography but cites nothing, so its References "
            "section would be empty (and BibTeX fails: no \\citation commands): without a "
            "\\cite, leave out \\bibliographystyle and \\bibliography",
        }
    ]


def claim_pattern(claims: list[str]) -> re.Pattern[str]:
    """An environment of `claims` (outputtex.claim_environments), its name `env` and `body`."""
    return re.compile(
        r"\\begin\{(?P<env>"
        + "|".join(re.escape(claim) for claim in claims)
        + r")\*?\}(?P<body>.*?)\\end\{(?P=env)\*?\}",
        re.DOTALL,
    )


def claim_violations(
    name: str,
    body: str,
    claims: list[str],
    steps: dict[str, tuple[str, str | None, list[str]]],
    reviewed: set[str] | None,
) -> tuple[list[TexViolation], list[str]]:
    """(the violations of the claim environments in one file's `body`, the labels of those that
    pass)."""
    violations: list[TexViolation] = []
    backed: list[str] = []
    where = "" if name == "OUTPUT.tex" else f" of {name}"
    for match in claim_pattern(claims).finditer(body):
        env, text = match.group("env"), match.group("body")
        line = body.count("\n", 0, match.start()) + 1
        labels = _LABEL.findall(text)
        step_labels = [label for label in labels if label.startswith("pf:")]
        speculative, unbacked = [], []
        if _SPECULATIVE_MARK.search(text):
            speculative.append("it carries the [~] mark")
        for label in (label for label in step_labels if label in steps):
            step_name, tier, _ = steps[label]
            if tier == "[~]":
                speculative.append(f"its label {label} is PROOF.md's {step_name}, marked [~]")
            elif grounds := speculative_grounds(steps, label):
                speculative.append(
                    f"its label {label} is PROOF.md's {step_name}, which rests on "
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
            backed += step_labels
            continue
        violations.append(
            {
                "kind": kind,
                "line": line,
                "environment": env,
                "labels": labels,
                "message": f"a {env} on line {line}{where} is not backed by a proved PROOF.md "
                f"step ({'; '.join(speculative + unbacked)}): {advice}, or state it as a "
                "conjecture or remark",
            }
        )
    return violations, backed


def unsealed_proved(proof_md: str | None, review_md: str | None) -> list[TexViolation]:
    """A [P] in PROOF.md that REVIEW.md's seal did not give (review.sealed_proved)."""
    if not proof_md:
        return []
    return [
        {"kind": "unsealed_proved", "message": f"PROOF.md: {message}"}
        for message in review.sealed_proved(proof_md, review_md)[1]
    ]


def proved_marks(
    name: str,
    body: str,
    claims: list[str],
    steps: dict[str, tuple[str, str | None, list[str]]],
    proof_md: str | None,
    review_md: str | None,
) -> list[TexViolation]:
    """Every `\\proved` mark in one file's `body` (in OUTPUT.tex, after \\begin{document}) that
    stands outside a claim environment labelled after a step the seal gave [P]: `\\proved` says
    "proved here in full", which only a sealed [P] step is."""
    given = review.sealed_proved(proof_md, review_md)[0] if proof_md else set()
    start = body.find("\\begin{document}") if name == "OUTPUT.tex" else 0
    if start < 0:
        return []
    where = "" if name == "OUTPUT.tex" else f" of {name}"
    spans = [
        (match.start(), match.end(), _LABEL.findall(match.group("body")))
        for match in claim_pattern(claims).finditer(body)
    ]
    violations: list[TexViolation] = []
    for mark in _PROVED_MARK.finditer(body, start):
        line = body.count("\n", 0, mark.start()) + 1
        labels = next((found for a, b, found in spans if a <= mark.start() < b), None)
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
                "message": f"\\proved on line {line}{where}: {why}; mark it with its step's own "
                "tier (\\supported for [S], \\verified for [V])",
            }
        )
    return violations


def abstract_violations(tex: str, backed: list[str], has_main: bool) -> list[TexViolation]:
    """An abstract that announces a result ("we prove ...") needs the article to state one as a
    claim that passes: the Main Theorem's (`pf:main-theorem`) when PROOF.md has one."""
    found = _ABSTRACT.search(tex)
    said = _ANNOUNCES.search((found.group("text") or found.group("arg") or "") if found else "")
    if said is None or ("pf:main-theorem" in backed if has_main else backed):
        return []
    stated = "the Main Theorem (\\label{pf:main-theorem})" if has_main else "any result"
    return [
        {
            "kind": "abstract_claim",
            "message": f"the abstract announces a result ({said.group(0)!r}) but the article "
            f"states {stated} as no checked theorem: state it as a theorem backed by its "
            "PROOF.md step, or say in the abstract that it is conjectural",
        }
    ]


def check_folder(folder: Path, require_review: bool = False) -> tuple[str, list[TexViolation]]:
    """(OUTPUT.tex, its violations) for a problem folder: the citations against references.bib
    and LITERATURE.md's confirmed references, the claims against PROOF.md and, when there is a
    REVIEW.md (or `require_review`), against the steps the referee checked; with the files it
    reads in."""
    reviewed = None
    if require_review or (folder / "REVIEW.md").exists():
        reviewed = review.checked_labels(folder) or set()
    tex = outputtex.read_file(folder / "OUTPUT.tex")
    if tex is None:
        raise BadInput(f"{folder / 'OUTPUT.tex'} does not exist yet", code="file_not_found")
    included, unfollowed = outputtex.read_in(folder, tex)
    whole = "\n".join([tex, *included.values()])
    confirmed: set[str] = set()
    said: list[str] = []  # [V] claims whose quote is not in their source
    proof_md = outputtex.read_file(folder / "PROOF.md")
    if (folder / "LITERATURE.md").exists():
        doc = load_literature(folder / "LITERATURE.md")
        refs = {entry.key: entry.entry_number for entry in bib_entries(doc)}
        confirmed = set(refs)
        entries = {entry.entry_number: entry for entry in doc.confirmed + doc.unconfirmed}
        said = tex_violations(strip_comments(whole), entries, refs)
        said += proof_violations(proof_md or "", entries)
    bib = outputtex.read_file(folder / "references.bib")
    review_md = outputtex.read_file(folder / "REVIEW.md")
    violations = check(tex, bib, confirmed, proof_md, reviewed, included, review_md)
    violations += [{"kind": "unfollowed_input", "message": message} for message in unfollowed]
    violations += [{"kind": "unchecked_quote", "message": message} for message in said]
    return tex, violations
