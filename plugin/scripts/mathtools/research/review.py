"""The referee's REVIEW.md, and the PROOF.md facts the router checks before trusting a proof.

PROOF.md's `## Proof Structure` holds one `### ` block per step (agents/proof.md): its
**Status**, **Depends on**, **Confidence** lines. The referee (agents/referee.md) reads PROOF.md
against the REF statements it cites and COMPUTATION.md, and writes REVIEW.md: one `### ` block per
step, headed by the step's own name, with

    **Verdict:** checked | gap | wrong
    **Sources:** REF-002 (Theorem 2.3): hypotheses hold - the series converges absolutely
    **Note:** what is missing (gap), why it is wrong (wrong)

`seal` (`review.py seal`) validates REVIEW.md against PROOF.md, writes its frontmatter
(`verdict: pass | revise`, the counts, and `proof_sha256`, the digest of the PROOF.md it judged),
and on a pass gives tier [P] ("proved here in full") to each [S] step the referee checked whose
premises are all [P] or [V] steps or REF entries: nothing else ever writes [P]. The router
(state.py) re-validates REVIEW.md before it moves on it, so a hand-set `verdict` or a PROOF.md
changed after the review counts for nothing.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core import clock, frontmatter
from ..core.errors import BadInput
from ..core.files import atomic_write, read_text
from ..core.locks import locked
from . import computation
from .gaps import parse as parse_gaps

VERDICTS = ("checked", "gap", "wrong")
STEP_STATUSES = ("complete", "in-progress", "blocked", "abandoned")
TIERS = ("[P]", "[V]", "[S]", "[~]")
_SECTION = re.compile(r"(?m)^## Proof Structure\s*$")
_NEXT_SECTION = re.compile(r"(?m)^## ")
_HEADING = re.compile(r"^###\s+(?P<name>[^:\n]+?)\s*(?::.*)?$")
_FIELD = re.compile(r"(?m)^\*\*(?P<key>[A-Za-z][A-Za-z ]*):\*\*[ \t]*(?P<value>.*?)\s*$")
_REF = re.compile(r"\b(U?REF-\d+)\b", re.IGNORECASE)
_COMPUTATION = re.compile(r"\bComputation\s+\d+\b", re.IGNORECASE)
_TIER = re.compile(r"\[[PVS~]\]")


def label(name: str) -> str:
    """PROOF.md heading name -> the label the LaTeX writer uses: 'Lemma 2' -> 'pf:lemma-2'."""
    return "pf:" + re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


@dataclass
class Step:
    """One `###` block of PROOF.md's Proof Structure."""

    name: str
    fields: dict[str, str] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return label(self.name)

    @property
    def status(self) -> str:
        return self.fields.get("Status", "").strip().lower()

    @property
    def tier(self) -> str | None:
        found = _TIER.search(self.fields.get("Confidence", ""))
        return found.group(0) if found else None

    @property
    def depends(self) -> list[str]:
        raw = self.fields.get("Depends on", "").strip()
        if raw.lower() in ("", "none", "-"):
            return []
        return [item.strip() for item in raw.split(",") if item.strip()]

    def refs(self) -> list[str]:
        return [m.upper() for item in self.depends for m in _REF.findall(item)]


def step_blocks(text: str) -> list[tuple[str, str]]:
    """(heading name, block text) of every `###` block of `text`."""
    found = []
    for block in re.split(r"(?m)^(?=###\s)", text):
        heading = _HEADING.match(block.split("\n", 1)[0])
        if heading:
            found.append((heading.group("name").strip(), block))
    return found


def _fields(block: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for match in _FIELD.finditer(block):
        found.setdefault(match.group("key").strip(), match.group("value"))
    return found


def proof_structure(proof_md: str) -> str:
    """The text of PROOF.md's `## Proof Structure` section ('' when it has none)."""
    start = _SECTION.search(proof_md)
    if not start:
        return ""
    rest = proof_md[start.end() :]
    end = _NEXT_SECTION.search(rest)
    return rest[: end.start()] if end else rest


def steps(proof_md: str) -> list[Step]:
    """The steps of PROOF.md's Proof Structure, in order."""
    return [Step(name, _fields(block)) for name, block in step_blocks(proof_structure(proof_md))]


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def completeness_errors(proof_md: str) -> list[str]:
    """Why PROOF.md cannot be `status: complete` (empty: it can): a step not complete (an
    `abandoned` step is out of the proof and nothing may depend on it), a step marked [~], a gap
    without a **Resolved:** line, a step resting on an unconfirmed reference."""
    errors = []
    found = steps(proof_md)
    if not found:
        errors.append("PROOF.md has no step under ## Proof Structure")
    abandoned = {s.label for s in found if s.status == "abandoned"}
    for step in found:
        if step.status == "abandoned":
            continue
        if step.status != "complete":
            errors.append(f"{step.name} is {step.status or 'without a **Status:**'}")
        if step.tier == "[~]":
            errors.append(f"{step.name} is marked [~]")
        for item in step.depends:
            if label(item) in abandoned:
                errors.append(f"{step.name} depends on {item}, which is abandoned")
    for gap in parse_gaps(proof_md):
        if not gap.fields.get("Resolved", "").strip():
            errors.append(f"Gap {gap.number} is open (no **Resolved:** line)")
    return errors + tier_errors(proof_md)


def tier_errors(proof_md: str) -> list[str]:
    """Tiers no step may carry: [V] or [S] resting on an unconfirmed reference (UREF-NNN)."""
    errors = []
    for step in steps(proof_md):
        urefs = [ref for ref in step.refs() if ref.startswith("UREF")]
        if urefs and step.tier != "[~]":
            errors.append(
                f"{step.name} is {step.tier} but depends on {', '.join(urefs)}, an unconfirmed "
                "reference: only a REF may support a step ([~] at most)"
            )
    return errors


def unanswered_requests(folder: Path) -> list[int]:
    """PROOF.md's computation requests that COMPUTATION.md records no run for."""
    proof = folder / "PROOF.md"
    if not proof.exists():
        return []
    asked = computation.requests_asked(read_text(proof, proof.name))
    return sorted(asked - computation.requests_answered(folder))


@dataclass
class Verdict:
    name: str
    verdict: str
    fields: dict[str, str]


def verdicts(review_md: str) -> list[Verdict]:
    return [
        Verdict(name, _fields(block).get("Verdict", "").strip().lower(), _fields(block))
        for name, block in step_blocks(frontmatter.split(review_md, "REVIEW.md")[1])
    ]


def validate(proof_md: str, review_md: str) -> tuple[dict[str, Any], list[str]]:
    """(the counts and verdict REVIEW.md amounts to, the errors that make it unusable)."""
    errors = []
    judged = {label(v.name): v for v in verdicts(review_md)}
    counts = dict.fromkeys(VERDICTS, 0)
    wanted = [s for s in steps(proof_md) if s.status != "abandoned"]
    if not wanted:
        errors.append("PROOF.md has no step to review")
    for step in wanted:
        verdict = judged.get(step.label)
        if verdict is None:
            errors.append(f"no verdict for {step.name} (a `### {step.name}` block)")
            continue
        if verdict.verdict not in VERDICTS:
            errors.append(
                f"{step.name}: **Verdict:** {verdict.verdict!r} is not one of {', '.join(VERDICTS)}"
            )
            continue
        counts[verdict.verdict] += 1
        if verdict.verdict != "checked" and not verdict.fields.get("Note", "").strip():
            errors.append(f"{step.name}: a {verdict.verdict} verdict needs a **Note:** saying why")
        sources = verdict.fields.get("Sources", "")
        for ref in step.refs():
            named = re.search(rf"\b{re.escape(ref)}\b[^;]*", sources, re.IGNORECASE)
            if not named:
                errors.append(
                    f"{step.name} rests on {ref}: **Sources:** must say whether its hypotheses "
                    "hold where the step uses it"
                )
            elif verdict.verdict == "checked" and re.search(
                r"\b(fail|do not hold|don't hold|not hold)", named.group(0), re.IGNORECASE
            ):
                errors.append(
                    f"{step.name}: {ref}'s hypotheses fail, so the step cannot be checked"
                )
    extra = sorted(set(judged) - {s.label for s in wanted})
    if extra:
        errors.append(
            "verdicts for no step of PROOF.md: " + ", ".join(judged[e].name for e in extra)
        )
    summary = {
        "verdict": "pass" if not errors and counts["gap"] == counts["wrong"] == 0 else "revise",
        "steps": len(wanted),
        **counts,
    }
    return summary, errors


def promotable(proof_md: str, review_md: str) -> list[str]:
    """The [S] steps that become [P]: checked, resting on no computation and no unconfirmed
    reference, every step they depend on [P] or [V] (or itself promoted)."""
    checked = {label(v.name) for v in verdicts(review_md) if v.verdict == "checked"}
    by_label = {s.label: s for s in steps(proof_md)}
    proved = {lab for lab, s in by_label.items() if s.tier in ("[P]", "[V]") and lab in checked}
    promoted: list[str] = []
    changed = True
    while changed:
        changed = False
        for lab, step in by_label.items():
            if lab in proved or lab not in checked or step.tier != "[S]":
                continue
            deps = step.depends
            if any(_COMPUTATION.search(d) or d.upper().startswith("UREF") for d in deps):
                continue
            if all(d.upper().startswith("REF-") or label(d) in proved for d in deps):
                proved.add(lab)
                promoted.append(step.name)
                changed = True
    return promoted


def _retier(proof_md: str, names: list[str], old: str, new: str) -> str:
    """PROOF.md with the steps `names` moved from tier `old` to `new`."""
    wanted = {label(n) for n in names}
    out = []
    pattern = re.compile(r"(?m)^(\*\*Confidence:\*\*\s*)" + re.escape(old))
    for block in re.split(r"(?m)^(?=###\s)", proof_md):
        heading = _HEADING.match(block.split("\n", 1)[0])
        if heading and label(heading.group("name")) in wanted:
            block = pattern.sub(lambda m: m.group(1) + new, block, count=1)
        out.append(block)
    return "".join(out)


def seal(folder: Path, slug: str) -> dict[str, Any]:
    """Validate REVIEW.md against PROOF.md, write its frontmatter, and on a pass give [P] to the
    steps that earn it. BadInput listing every error when REVIEW.md is not a complete review."""
    proof_path, review_path = folder / "PROOF.md", folder / "REVIEW.md"
    for path in (proof_path, review_path):
        if not path.exists():
            raise BadInput(f"{path} does not exist", code="file_not_found")
    with locked(proof_path):
        proof_md = read_text(proof_path, proof_path.name)
        review_md = read_text(review_path, review_path.name)
        summary, errors = validate(proof_md, review_md)
        if errors:
            raise BadInput(
                "REVIEW.md is not a complete review: " + "; ".join(errors), code="bad_review"
            )
        # a [P] this review does not stand behind (a step changed since, or judged a gap) is
        # [S] again: only a passing review of the PROOF.md as it is gives [P]
        checked = {label(v.name) for v in verdicts(review_md) if v.verdict == "checked"}
        demoted = [
            s.name
            for s in steps(proof_md)
            if s.tier == "[P]" and (summary["verdict"] != "pass" or s.label not in checked)
        ]
        before = proof_md
        proof_md = _retier(proof_md, demoted, "[P]", "[S]")
        promoted: list[str] = []
        if summary["verdict"] == "pass":
            promoted = promotable(proof_md, review_md)
            proof_md = _retier(proof_md, promoted, "[S]", "[P]")
        if proof_md != before:
            atomic_write(proof_path, proof_md)
        data, body = frontmatter.split(review_md, "REVIEW.md")
        data.update(
            problem=slug,
            **summary,
            proved=promoted,
            proof_sha256=digest(proof_md),
            reviewed=clock.stamp(),
        )
        atomic_write(review_path, frontmatter.render(data, body))
    return {"file": str(review_path), **summary, "proved": promoted, "unproved": demoted}


def current(folder: Path) -> tuple[dict[str, Any] | None, list[str]]:
    """(REVIEW.md's summary, why it cannot be trusted) for the PROOF.md there now: a review
    that is unsealed, of another PROOF.md, or whose frontmatter differs from its body is
    refused."""
    proof_path, review_path = folder / "PROOF.md", folder / "REVIEW.md"
    if not review_path.exists():
        return None, ["there is no REVIEW.md"]
    if not proof_path.exists():
        return None, ["there is no PROOF.md"]
    proof_md = read_text(proof_path, proof_path.name)
    review_md = read_text(review_path, review_path.name)
    data = frontmatter.read(review_md, "REVIEW.md")
    if data.get("proof_sha256") != digest(proof_md):
        return None, [
            "REVIEW.md is not sealed on the PROOF.md there now (review.py seal; PROOF.md "
            "changed after the review, or the review was never sealed)"
        ]
    summary, errors = validate(proof_md, review_md)
    if errors:
        return None, errors
    if str(data.get("verdict")) != summary["verdict"]:
        return None, [
            f"REVIEW.md says verdict {data.get('verdict')!r}; its steps say {summary['verdict']!r}"
        ]
    return summary, []


def checked_labels(folder: Path) -> set[str] | None:
    """The labels of the steps a current, passing review checked (None: no such review)."""
    summary, _ = current(folder)
    if summary is None:
        return None
    review_md = read_text(folder / "REVIEW.md", "REVIEW.md")
    return {label(v.name) for v in verdicts(review_md) if v.verdict == "checked"}
