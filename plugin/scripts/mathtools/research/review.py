"""The referee's REVIEW.md, and the PROOF.md facts the router checks before trusting a proof.

PROOF.md's `## Proof Structure` holds one `### ` block per step (agents/proof.md; any heading of
depth 3 to 6 is read, blocks.py): its **Status**, **Depends on**, **Confidence** lines. The
referee (agents/referee.md) reads PROOF.md against the REF statements it cites and COMPUTATION.md,
and writes REVIEW.md: one `### ` block per step, headed by the step's own name, with

    **Verdict:** checked | gap | wrong
    **Sources:** REF-002 (Theorem 2.3): hypotheses hold - the series converges absolutely
    **Note:** what is missing (gap), why it is wrong (wrong)

    **Tested by:** Computation 2 | **Not computable:** why no small case can test the claim
    **Check:** the small cases to compute (a gap: the test the referee asks for)

    what was checked, in the referee's words (a `checked` verdict needs it: reasons.py)

A `checked` verdict names the run that tested the step (one compute.py recorded, which names the
step in its title, purpose, Interpretation or request) or a reason none can, and no recorded
run's Interpretation may say it refutes the step (smallcases.py).

`seal` (`review.py seal`) validates REVIEW.md against PROOF.md, writes its frontmatter
(`verdict: pass | revise`, the counts, `proof_sha256`, the digest of the PROOF.md it judged, and
`proved`, each step it gave [P] with the digest of that step's block), and on a pass gives tier
[P] ("proved here in full") to each step the referee checked that rests on no computation and
whose premises are all [P] or [V] steps or REF entries. Nothing else gives [P]: the seal first
takes [P] from every step and gives it again only where it is earned, and `sealed_proved` refuses
a [P] in PROOF.md that `proved` does not list with the step's text as it is now (statechanges.py,
texcheck.py). The router (router.py) re-validates REVIEW.md before it moves on it, so a hand-set
`verdict` or a PROOF.md changed after the review counts for nothing.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict

from ..core import (
    BadInput,
    atomic_write,
    locked,
    read_frontmatter,
    read_text,
    split_frontmatter,
    stamp,
    with_frontmatter,
)
from . import blocks, computation, reasons, smallcases
from .gaps import parse as parse_gaps

VERDICTS = ("checked", "gap", "wrong")
_REF = re.compile(r"\b(U?REF-\d+)\b", re.IGNORECASE)
_COMPUTATION = re.compile(r"\bComputation\s+\d+\b", re.IGNORECASE)
_TIER = re.compile(r"\[[PVS~]\]")
# A dependency that names a step (and must then be one of PROOF.md's).
_STEP_NAME = re.compile(r"^(?:Step|Lemma|Claim)\s+\d|^Main Theorem\b", re.IGNORECASE)


def label(name: str) -> str:
    """PROOF.md heading name -> the label the LaTeX writer uses: 'Lemma 2' -> 'pf:lemma-2'."""
    return "pf:" + re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


@dataclass
class Step:
    """One `###` block of PROOF.md's Proof Structure."""

    name: str
    fields: dict[str, str] = field(default_factory=dict)
    text: str = ""  # the whole block, heading included

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
    """(heading name, block text) of every heading block of `text` (depth 3 to 6, blocks.py)."""
    return [(block.name, block.text) for block in blocks.parse(text)[0]]


def _step_blocks(proof_md: str) -> list[blocks.Block]:
    """PROOF.md's step blocks: every block under `## Proof Structure` that is no gap and no
    request, and every block elsewhere with a step's fields (blocks.misplaced reports those)."""
    return [
        block
        for block in blocks.parse(proof_md)[0]
        if not (block.is_gap or block.is_request)
        and (block.section == blocks.PROOF_STRUCTURE or block.is_step_like)
    ]


def steps(proof_md: str) -> list[Step]:
    """The steps of PROOF.md, in order."""
    return [Step(block.name, block.fields, block.text) for block in _step_blocks(proof_md)]


def refuted_steps(folder: Path, said: str) -> list[str]:
    """The steps `compute.py interpret --refutes` names (comma-separated, or `none`), as PROOF.md
    names them; a name that is no step of PROOF.md is BadInput listing the steps."""
    names = smallcases.step_names(said)
    if names == []:
        return []
    path = folder / "PROOF.md"
    text = read_text(path, path.name) if path.exists() else ""
    known = {step.name.lower(): step.name for step in steps(text)}
    unknown = [said] if names is None else [n for n in names if n.lower() not in known]
    if unknown:
        raise BadInput(
            f"--refutes: {unknown[0]!r} is no step of PROOF.md (its steps: "
            f"{', '.join(known.values()) or 'none'}); name them as PROOF.md does, or say none",
            code="unknown_step",
        )
    return [known[name.lower()] for name in names or []]


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def completeness_errors(proof_md: str, review_md: str | None = None) -> list[str]:
    """Why PROOF.md cannot be `status: complete` (empty: it can): a step not complete (an
    `abandoned` step is out of the proof and nothing may depend on it), a step marked [~], a gap
    without a **Resolved:** line, a step resting on an unconfirmed reference or on a step PROOF.md
    does not have, a block where the schema does not put it (blocks.misplaced), a [P] the seal of
    `review_md` (REVIEW.md) did not give."""
    errors = blocks.misplaced(proof_md)
    found = steps(proof_md)
    if not found:
        errors.append("PROOF.md has no step under ## Proof Structure")
    abandoned = {s.label for s in found if s.status == "abandoned"}
    known = {s.label for s in found}
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
            elif _STEP_NAME.match(item) and label(item) not in known:
                errors.append(f"{step.name} depends on {item}, which is no step of PROOF.md")
    for gap in parse_gaps(proof_md):
        if not gap.fields.get("Resolved", "").strip():
            errors.append(f"Gap {gap.number} is open (no **Resolved:** line)")
    return errors + tier_errors(proof_md) + sealed_proved(proof_md, review_md)[1]


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
    text: str = ""  # the whole block, heading included


def verdicts(review_md: str) -> list[Verdict]:
    return [
        Verdict(
            block.name, block.fields.get("Verdict", "").strip().lower(), block.fields, block.text
        )
        for block in blocks.parse(split_frontmatter(review_md, "REVIEW.md")[1])[0]
    ]


class ReviewSummary(TypedDict):
    """What REVIEW.md amounts to: the verdict (pass or revise), the steps reviewed, and how many
    of them each verdict was given."""

    verdict: str
    steps: int
    checked: int
    gap: int
    wrong: int


class Sealed(ReviewSummary):
    file: str
    proved: list[str]  # the steps the seal gave [P]
    unproved: list[str]  # the [P] steps it took back to [S]


def validate(
    proof_md: str, review_md: str, runs: dict[int, str]
) -> tuple[ReviewSummary, list[str]]:
    """(the counts and verdict REVIEW.md amounts to, the errors that make it unusable); `runs`
    are the runs compute.py recorded (computation.vouched_runs), which a checked step's test
    cites."""
    errors = []
    requests = blocks.requests(proof_md)
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
        if verdict.verdict == "checked" and (
            why := reasons.missing(step.name, step.text, verdict.text)
        ):
            errors.append(why)
        if verdict.verdict == "checked":
            errors += smallcases.untested(
                step.name, verdict.fields, runs, requests, step.fields.get("Updated", "").strip()
            )
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
    summary: ReviewSummary = {
        "verdict": "pass" if not errors and counts["gap"] == counts["wrong"] == 0 else "revise",
        "steps": len(wanted),
        "checked": counts["checked"],
        "gap": counts["gap"],
        "wrong": counts["wrong"],
    }
    return summary, errors


def earned(proof_md: str, review_md: str) -> list[str]:
    """The steps a passing seal of `review_md` gives [P], whatever tier PROOF.md writes now (a
    [P] counts as [S]): checked, resting on no computation and no unconfirmed reference, every
    step they depend on [V] or itself given [P]."""
    checked = {label(v.name) for v in verdicts(review_md) if v.verdict == "checked"}
    by_label = {s.label: s for s in steps(proof_md) if s.status != "abandoned"}
    proved = {lab for lab, s in by_label.items() if s.tier == "[V]" and lab in checked}
    given: list[str] = []
    changed = True
    while changed:
        changed = False
        for lab, step in by_label.items():
            if lab in proved or lab not in checked or step.tier not in ("[S]", "[P]"):
                continue
            deps = step.depends
            if any(_COMPUTATION.search(d) or d.upper().startswith("UREF") for d in deps):
                continue
            if all(d.upper().startswith("REF-") or label(d) in proved for d in deps):
                proved.add(lab)
                given.append(step.name)
                changed = True
    return given


def step_digest(step: Step) -> str:
    """The digest of a step's block as written (trailing blank lines aside): what the seal records
    for each step it gives [P], so that a later change to the step takes the [P] away."""
    return digest(step.text.rstrip())


def sealed_proved(proof_md: str, review_md: str | None) -> tuple[set[str], list[str]]:
    """(the labels of PROOF.md's [P] steps that REVIEW.md's seal gave, as they stand now; one
    error for every other [P] step: written by an agent, or changed since the seal)."""
    written = read_frontmatter(review_md, "REVIEW.md").get("proved") if review_md else None
    record: dict[object, object] = written if isinstance(written, dict) else {}
    given, errors = set(), []
    for step in steps(proof_md):
        if step.tier != "[P]":
            continue
        sealed = record.get(step.name)
        if sealed == step_digest(step):
            given.add(step.label)
        elif sealed is None:
            errors.append(
                f"{step.name} is marked [P], which only review.py seal gives, and REVIEW.md's "
                "seal did not give it: set it to [S] (the referee's seal gives [P] where earned)"
            )
        else:
            errors.append(
                f"{step.name} is marked [P], but the step changed after the seal gave it: set it "
                "to [S] and have the referee check it again"
            )
    return given, errors


def review_text(folder: Path) -> str | None:
    """folder/REVIEW.md's text, None when there is none."""
    path = folder / "REVIEW.md"
    return read_text(path, path.name) if path.exists() else None


def proved_labels(folder: Path) -> set[str]:
    """The labels (pf:lemma-2) of the PROOF.md steps that are legitimately [P] now: marked [P],
    and given it by REVIEW.md's seal with the step's text as it stands. The one answer to "may
    this step be stated as proved here" (texcheck.py's \\proved check)."""
    proof = folder / "PROOF.md"
    if not proof.exists():
        return set()
    return sealed_proved(read_text(proof, proof.name), review_text(folder))[0]


def _retier(proof_md: str, names: list[str], old: str, new: str) -> str:
    """PROOF.md with the steps `names` moved from tier `old` to `new` (their Confidence line)."""
    wanted = {label(n) for n in names}
    lines = proof_md.split("\n")
    pattern = re.compile(r"^(\*\*Confidence:\*\*\s*)" + re.escape(old))
    for block in _step_blocks(proof_md):
        if label(block.name) not in wanted:
            continue
        for index in range(block.start + 1, block.end):
            if pattern.match(lines[index]):
                lines[index] = pattern.sub(lambda m: m.group(1) + new, lines[index], count=1)
                break
    return "\n".join(lines)


def seal(folder: Path, slug: str) -> Sealed:
    """Validate REVIEW.md against PROOF.md, write its frontmatter, and on a pass give [P] to the
    steps that earn it. BadInput listing every error when REVIEW.md is not a complete review."""
    proof_path, review_path = folder / "PROOF.md", folder / "REVIEW.md"
    for path in (proof_path, review_path):
        if not path.exists():
            raise BadInput(f"{path} does not exist", code="file_not_found")
    with locked(proof_path):
        proof_md = read_text(proof_path, proof_path.name)
        review_md = read_text(review_path, review_path.name)
        summary, errors = validate(proof_md, review_md, computation.vouched_runs(folder))
        if errors:
            raise BadInput(
                "REVIEW.md is not a complete review: " + "; ".join(errors), code="bad_review"
            )
        # Only this seal gives [P]: every [P] (an agent's own, or an earlier seal's) is [S]
        # again, and [P] goes where this review, of the PROOF.md as it is, gives it.
        before = proof_md
        marked = [s.name for s in steps(proof_md) if s.tier == "[P]"]
        proof_md = _retier(proof_md, marked, "[P]", "[S]")
        given = earned(proof_md, review_md) if summary["verdict"] == "pass" else []
        proof_md = _retier(proof_md, given, "[S]", "[P]")
        if proof_md != before:
            atomic_write(proof_path, proof_md)
        record = {s.name: step_digest(s) for s in steps(proof_md) if s.name in given}
        data, body = split_frontmatter(review_md, "REVIEW.md")
        data.update(
            problem=slug,
            **summary,
            proved=record,
            proof_sha256=digest(proof_md),
            reviewed=stamp(),
        )
        atomic_write(review_path, with_frontmatter(data, body))
    unproved = [name for name in marked if name not in given]
    return {"file": str(review_path), **summary, "proved": given, "unproved": unproved}


def current(folder: Path) -> tuple[ReviewSummary | None, list[str]]:
    """(REVIEW.md's summary, why it cannot be trusted) for the PROOF.md there now: a review
    that is unsealed, of another PROOF.md, whose frontmatter differs from its body, or whose
    `proved` record is not what it gives, is refused."""
    proof_path, review_path = folder / "PROOF.md", folder / "REVIEW.md"
    if not review_path.exists():
        return None, ["there is no REVIEW.md"]
    if not proof_path.exists():
        return None, ["there is no PROOF.md"]
    proof_md = read_text(proof_path, proof_path.name)
    review_md = read_text(review_path, review_path.name)
    data = read_frontmatter(review_md, "REVIEW.md")
    if data.get("proof_sha256") != digest(proof_md):
        return None, [
            "REVIEW.md is not sealed on the PROOF.md there now (review.py seal; PROOF.md "
            "changed after the review, or the review was never sealed)"
        ]
    summary, errors = validate(proof_md, review_md, computation.vouched_runs(folder))
    if errors:
        return None, errors
    if str(data.get("verdict")) != summary["verdict"]:
        return None, [
            f"REVIEW.md says verdict {data.get('verdict')!r}; its steps say {summary['verdict']!r}"
        ]
    given = earned(proof_md, review_md) if summary["verdict"] == "pass" else []
    record = data.get("proved")
    if not isinstance(record, dict) or set(record) != set(given):
        return None, [
            "REVIEW.md's `proved` record is not what its review gives "
            f"({', '.join(given) or 'no step'}): seal it again with review.py seal"
        ]
    unsealed = sealed_proved(proof_md, review_md)[1]
    if unsealed:
        return None, unsealed
    return summary, []


def checked_labels(folder: Path) -> set[str] | None:
    """The labels of the steps a current, passing review checked (None: no such review)."""
    summary, _ = current(folder)
    if summary is None:
        return None
    review_md = read_text(folder / "REVIEW.md", "REVIEW.md")
    return {label(v.name) for v in verdicts(review_md) if v.verdict == "checked"}
