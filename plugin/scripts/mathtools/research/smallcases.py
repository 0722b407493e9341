"""A referee who tests: what a `checked` verdict of REVIEW.md must say of how the step's claim
was tested (review.py's seal asks it of every checked step).

A step whose claim can be evaluated on small cases is checked only with a run that tested it:
`**Tested by:** Computation N`, a run compute.py recorded (computation.vouched_runs) that names the
step in its title, purpose or Interpretation, or in the PROOF.md request it answers. A step no
finite run can test says why: `**Not computable:** ...`, a sentence (MIN_REASON_WORDS words or
more). And a step a recorded run refutes is never checked, whatever its review says: the planted
false lemma a small case refutes does not reach [P]. Which steps a run refutes, its computation
agent says step by step (`compute.py interpret --refutes`: the Interpretation's `**Refutes:**`
line, the steps as PROOF.md names them, or none); a run interpreted without that line is read
from its sentences: one naming the step and saying it refutes it ("refutes", "contradicts",
"counterexample", "is false"). Sentences misread both ways ("no counterexample to Lemma 1"; "the
Main Theorem cannot rest on Lemma 1, which is false"), which sent a confirmed proof back for
another pass, so the line, when there, is the only verdict.
Unless the step changed after that run (its **Updated:** stamp is later than the run's **Run:**
stamp): the run refuted an earlier form, and only a run recorded since, naming the step, can
test it now. A stamp moved without a change gains nothing: the new run tests the same claim.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from . import blocks

# A sentence of a run's Interpretation that says the run refutes a step it names.
_REFUTES = re.compile(
    r"\b(?:refut\w*|contradict\w*|counter-?examples?|disprov\w*|is false|fails)\b", re.IGNORECASE
)
_SENTENCE = re.compile(r"(?<=[.;!?])\s+|\n\s*\n")
REFUTES_FIELD = "Refutes"
NONE = "none"
_DECLARED = re.compile(rf"(?m)^\*\*{REFUTES_FIELD}:\*\*[ \t]*(.*)$")
_CITED_RUN = re.compile(r"\bComputation\s+(\d+)\b", re.IGNORECASE)
_RUN_AT = re.compile(r"(?m)^\*\*Run:\*\*\s*(\S+)")
# A stated reason that a step's claim is not computable: a sentence, not a word.
MIN_REASON_WORDS = 5


def _names(text: str, name: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text, re.IGNORECASE) is not None


def refutes_line(names: list[str]) -> str:
    """The Interpretation's last line that says which steps the run refutes (`compute.py
    interpret --refutes`): the steps as PROOF.md names them, or none."""
    return f"**{REFUTES_FIELD}:** {', '.join(names) or NONE}"


def step_names(said: str) -> list[str] | None:
    """The steps a `**Refutes:**` list names (comma-separated, spaces normalised): [] for
    `none`, None when it names nothing (blank, or commas alone)."""
    if said.strip().lower() == NONE:
        return []
    return [" ".join(part.split()) for part in said.split(",") if part.strip()] or None


def declared(interpretation: str) -> list[str] | None:
    """The steps an Interpretation's `**Refutes:**` line names ([] for `none`), or None when it
    has no such line (a run interpreted before the line existed: its sentences are read)."""
    found = _DECLARED.findall(interpretation)
    if not found:
        return None
    return step_names(found[-1]) or []


def _refuting(name: str, runs: dict[int, str]) -> list[int]:
    """The recorded runs that refute the step: those whose Interpretation's **Refutes:** line
    names it (the computation agent's own verdict, step by step); for a run without that line,
    those whose Interpretation (or Summary row) says so in a sentence naming the step. Such a
    step is never checked, whatever its review says."""
    found = []
    for number, text in sorted(runs.items()):
        interpretation = blocks.section_text(text, "### Interpretation")
        named = declared(interpretation)
        if named is not None:
            if any(n.lower() == name.lower() for n in named):
                found.append(number)
            continue
        rows = re.findall(rf"(?m)^\| Computation {number} \|.*$", text)
        said = "\n\n".join([interpretation, *rows])
        if any(_names(s, name) and _REFUTES.search(s) for s in _SENTENCE.split(said)):
            found.append(number)
    return found


def _verb(runs: list[int]) -> str:
    return "refutes" if len(runs) == 1 else "refute"


def _ran_at(text: str) -> str:
    """A run's **Run:** stamp (ISO 8601 UTC, which orders as text); "" when it has none."""
    found = _RUN_AT.search(text)
    return found.group(1) if found else ""


def refuting(name: str, runs: dict[int, str], updated: str = "") -> list[int]:
    """The recorded runs that refute the step as it stands: those whose Interpretation says it
    refutes the step, but for those run before its **Updated:** stamp (an earlier form)."""
    return [n for n in _refuting(name, runs) if not (updated and "" < _ran_at(runs[n]) < updated)]


def retest_needed(
    name: str, runs: dict[int, str], requests: dict[int, str], updated: str = ""
) -> str | None:
    """What the proof agent must do, in the pass it is in, for a step a recorded run refutes
    (None: no run refutes it, or a request other than the refuting runs' names it). Said in the
    proof brief, so that the pass that corrects the step also asks for its new test, before the
    referee would send it back for one."""
    refuted = _refuting(name, runs)
    if not refuted:
        return None
    asked_by_refuters = {
        int(found.group(1)) for n in refuted if (found := blocks.ANSWERED.search(runs[n]))
    }
    if any(_names(text, name) for n, text in requests.items() if n not in asked_by_refuters):
        return None
    cited = ", ".join(f"Computation {n}" for n in refuted)
    if not refuting(name, runs, updated):  # every refuting run came before its update
        return (
            f"{name}: corrected after {cited} refuted it; add a request whose Purpose names "
            f"{name}, to test it as it stands (the old run tests it no more)"
        )
    return (
        f"{name}: {cited} {_verb(refuted)} it; correct it (or abandon it) and add a request whose "
        f"Purpose names {name}, to test the corrected claim"
    )


def untested(
    name: str,
    fields: Mapping[str, str],
    runs: dict[int, str],
    requests: dict[int, str],
    updated: str = "",
) -> list[str]:
    """Why a `checked` verdict does not say how the step's claim was tested: it needs
    **Tested by:** Computation N, a run compute.py recorded that names the step (in its title,
    purpose or Interpretation, or in the PROOF.md request it answers), or **Not computable:** a
    reason the claim cannot be evaluated on small cases; and no run may refute the step as it
    stands (`updated`, its **Updated:** stamp: a run before it refuted an earlier form, and then
    only a run recorded since can test it)."""
    refuted = _refuting(name, runs)
    standing = refuting(name, runs, updated)
    earlier = [n for n in refuted if n not in standing]
    recorded = runs
    if standing:
        cited = ", ".join(f"Computation {n}" for n in standing)
        return [
            f"{name}: {cited} of COMPUTATION.md {_verb(standing)} it (its Interpretation says "
            "so), so it cannot be checked: give it wrong, quoting the output"
        ]
    if earlier:
        since = {n for n, text in runs.items() if _ran_at(text) > updated}
        testing = {int(n) for n in _CITED_RUN.findall(fields.get("Tested by", ""))}
        if not testing & since:
            refuters = ", ".join(f"Computation {n}" for n in earlier)
            return [
                f"{name}: {refuters} refuted it before its update ({updated}), so only a run "
                "recorded since that names it can test it: cite one on **Tested by:**, or "
                "give gap with a **Check:** line asking for it"
            ]
        runs = {n: text for n, text in runs.items() if n in since}
    tested = fields.get("Tested by", "").strip()
    reason = fields.get("Not computable", "").strip()
    if tested:
        numbers = [int(n) for n in _CITED_RUN.findall(tested)]
        if not numbers:
            return [f"{name}: **Tested by:** must name a run, `Computation N`"]
        errors = []
        for number in numbers:
            text = runs.get(number)
            asked = blocks.ANSWERED.search(text or "")
            request = requests.get(int(asked.group(1)), "") if asked else ""
            if text is None and number in recorded:  # recorded, but before the step's update
                errors.append(
                    f"{name}: Computation {number} ran before {name} was last updated "
                    f"({updated}), so it tested an earlier form: cite a run recorded since, or "
                    "give gap with a **Check:** line asking for one"
                )
            elif text is None:
                errors.append(
                    f"{name}: Computation {number} is no run compute.py recorded, so it "
                    "tested nothing"
                )
            elif not (_names(text, name) or _names(request, name)):
                errors.append(
                    f"{name}: Computation {number} does not name {name} (its title, "
                    "purpose, Interpretation or request), so it is not a test of it"
                )
        return errors
    if len(reason.split()) >= MIN_REASON_WORDS:
        return []
    return [
        f"{name}: a checked step needs **Tested by:** Computation N (a recorded run that "
        "evaluates its claim on small cases: ask for one with a gap verdict's **Check:** line) "
        f"or **Not computable:** why its claim cannot be evaluated on small cases "
        f"({MIN_REASON_WORDS} words or more)"
    ]
