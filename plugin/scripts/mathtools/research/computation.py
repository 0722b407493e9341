"""COMPUTATION.md: each sandboxed run recorded with its code, output and environment, under the
PROOF.md request it answers (architecture seed, "COMPUTATION.md").

A run becomes a `## Computation N: title` section, placed before the "Summary for Proof Agent"
table, with the code and the output exactly as run and seen; only its Interpretation is left for
the computation agent to write (`compute.py interpret N`). The frontmatter carries `status`, over
every run: `interpreting` while an Interpretation is pending, else `error` when a request's latest
run failed, else `complete`; with `last_run` and `computations`. The router does not take the
status on trust: it reads which requests have runs and which Interpretations are pending.

A run counts only if compute.py ran it: `record_computation` also appends a run record (RunRecord:
the computation's number, the request, the outcome, SHA-256 digests of the code and of the output
as COMPUTATION.md shows them, marked with the workspace's signing key, signing.py) to
`computations/runs.jsonl` in the problem folder, outside the Markdown. A `## Computation N` block
typed by hand, or one whose code, output, request or outcome was edited, matches no record: it
answers no request (`requests_answered`), and `unanswered_lines` says so.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import TypedDict, cast

from ..core import (
    BadInput,
    atomic_write,
    instantiate,
    locked,
    now,
    read_text,
    split_frontmatter,
    stamp,
    with_frontmatter,
)
from ..sandbox import REPORTED_PACKAGES, RunResult
from . import blocks, signing, smallcases

SUMMARY_HEADING = "## Summary for Proof Agent"
INTERPRETATION_PENDING = (
    "_Pending: the computation agent writes here what this result means for the proof._"
)
HEADING = re.compile(r"^## Computation (\d+):", re.MULTILINE)
# A request PROOF.md makes (agents/proof.md); `section` writes blocks.ANSWERED under a run for one.
REQUESTED = re.compile(r"^ {0,3}#{3,6}[ \t]+Request (\d+)\b", re.MULTILINE)
RUN_RECORDS = Path("computations") / "runs.jsonl"  # in the problem folder, moved with the run
NO_OUTPUT = "(no output)"


class RunRecord(TypedDict):
    """One line of computations/runs.jsonl: a run compute.py made and recorded in COMPUTATION.md."""

    computation: int
    request: int | None
    outcome: str
    code_sha256: str
    output_sha256: str
    at: str
    mark: str  # signing.mark of the other fields


class Recorded(TypedDict):
    """Where `record_computation` put a run: COMPUTATION.md, the computation's number, the request
    it answers."""

    file: str
    computation: int
    request: int | None


class Interpreted(TypedDict):
    file: str
    computation: int
    status: str  # COMPUTATION.md's, after the Interpretation
    title: str  # the run's, from its heading
    request: int | None  # the PROOF.md request it answers (None: a direct task)


def _sha256(text: str) -> str:
    """SHA-256 of `text` with its line ends as COMPUTATION.md reads back (LF)."""
    return hashlib.sha256(text.replace("\r\n", "\n").encode("utf-8")).hexdigest()


def _fenced(section_text: str, heading: str) -> str | None:
    """The text of the code fence under `### heading` of a computation section, as `_fence`
    wrote it; None when there is none."""
    found = re.search(
        rf"^### {heading}\n\n(`{{3,}})\w*\n(.*?)\n?\1$", section_text, re.MULTILINE | re.DOTALL
    )
    return found.group(2) if found else None


def requests_asked(proof_text: str) -> set[int]:
    """The numbers of PROOF.md's computation requests (`### Request N: ...`)."""
    return {int(n) for n in REQUESTED.findall(proof_text)}


def _fence(text: str, info: str = "") -> str:
    """`text` in a code fence longer than any backtick run inside it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{info}\n{text.rstrip()}\n{ticks}"


VERSION_LINES = 2  # an Environment's first lines, the interpreter's and the libraries' versions


def _environment_lines(result: RunResult) -> list[str]:
    env = result.get("environment") or {}
    packages = env.get("packages") or {}
    isolation = result["isolation"]
    limits = result["limits"]
    installed = ", ".join(f"{name} {version}" for name, version in packages.items())
    return [
        f"- {env.get('implementation', 'Python')} {env.get('python', '?')} "
        f"on {env.get('platform', '?')}",
        f"- {installed or 'none'} (libraries looked for: {', '.join(REPORTED_PACKAGES)})",
        f"- limits: {limits['timeout_s']:g} s wall time, {limits['memory_mb']} MB memory; "
        f"network: {isolation['network']}; memory limit: {isolation['memory']}",
        f"- processes: {isolation['processes']}; files: {isolation['files']}",
        f"- writes: only in its temporary folder ({isolation['filesystem']})"
        if isolation["filesystem"] != "none"
        else "- writes: unconfined (nothing here confines them; the workspace allowed the run)",
    ]


def section(
    number: int,
    title: str,
    code: str,
    result: RunResult,
    request: int | None,
    purpose: str | None,
    moment: datetime,
) -> str:
    status = f"exit {result['exit_code']}" if result["exit_code"] is not None else result["signal"]
    origin = f"PROOF.md, Request {request}" if request else "a direct request (/math:compute)"
    parts = [
        f"## Computation {number}: {title}",
        "",
        f"**Request from:** {origin}",
        *([f"**Purpose:** {purpose}"] if purpose else []),
        f"**Run:** {stamp(moment)} · outcome {result['outcome']} "
        f"({status}) · {result['wall_time_s']:.2f} s",
        "",
        "### Code",
        "",
        _fence(code, "python"),
        "",
        "### Output",
        "",
        _fence(result["stdout"] or NO_OUTPUT, "text"),
    ]
    if result["truncated"]["stdout"]:
        parts.append("_(output cut at the sandbox's limit)_")
    if result["stderr"].strip():
        parts += ["", "### Errors", "", _fence(result["stderr"], "text")]
    parts += ["", "### Environment", "", *_environment_lines(result)]
    parts += ["", "### Interpretation", "", INTERPRETATION_PENDING, ""]
    return "\n".join(parts) + "\n"


def check_recordable(folder: Path, request: int | None = None) -> None:
    """BadInput naming COMPUTATION.md when a run could not be recorded in it (unreadable, not
    UTF-8, broken frontmatter), or naming the request when PROOF.md makes no such request:
    checked before the computation, whose result would be lost."""
    path = folder / "COMPUTATION.md"
    if path.exists():
        split_frontmatter(read_text(path, path.name), str(path))
    if request is not None:
        proof = folder / "PROOF.md"
        asked = requests_asked(read_text(proof, proof.name)) if proof.exists() else set()
        if request not in asked:
            listed = ", ".join(map(str, sorted(asked))) or "none"
            raise BadInput(
                f"PROOF.md has no `### Request {request}` (its requests: {listed}): answer a "
                "request it makes, or run without --request",
                code="unknown_request",
            )


_RUN = re.compile(r"^\*\*Run:\*\*.*?outcome (\S+)", re.MULTILINE)


def runs(body: str) -> list[tuple[int, str]]:
    """(number, text) of each `## Computation N` run in COMPUTATION.md's body, in order; a
    heading inside a run's fenced code or output is part of that run."""
    code = blocks.in_fences(body.split("\n"))

    def unfenced(at: int) -> bool:
        return not code[body.count("\n", 0, at)]

    starts = [match for match in HEADING.finditer(body) if unfenced(match.start())]
    summary = next(
        (m.start() for m in re.finditer(re.escape(SUMMARY_HEADING), body) if unfenced(m.start())),
        -1,
    )
    found = []
    for i, match in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else summary
        found.append((int(match.group(1)), body[match.start() : end if end > 0 else None]))
    return found


def _status(body: str) -> str:
    if INTERPRETATION_PENDING in body:
        return "interpreting"
    direct_failed = any(
        not blocks.ANSWERED.search(text) and (run := _RUN.search(text)) and run.group(1) != "ok"
        for _, text in runs(body)
    )
    return "error" if _failed(body) or direct_failed else "complete"


def _failed(body: str) -> list[int]:
    latest: dict[int, str] = {}
    for _, text in runs(body):
        asked, run = blocks.ANSWERED.search(text), _RUN.search(text)
        if asked and run:
            latest[int(asked.group(1))] = run.group(1)
    return sorted(n for n, outcome in latest.items() if outcome != "ok")


def _record_run(
    folder: Path, number: int, request: int | None, code: str, result: RunResult, at: str
) -> None:
    """Append the run record of computation `number` to folder/computations/runs.jsonl."""
    record: RunRecord = {
        "computation": number,
        "request": request,
        "outcome": str(result["outcome"]),
        "code_sha256": _sha256(code.rstrip()),
        "output_sha256": _sha256((result["stdout"] or NO_OUTPUT).rstrip()),
        "at": at,
        "mark": "",
    }
    record["mark"] = signing.mark(signing.math_dir_of(folder), _unmarked(record))
    path = folder / RUN_RECORDS
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(record, sort_keys=True) + "\n")


def remark_runs(folder: Path) -> int:
    """Mark every run record of folder/computations/runs.jsonl again with the workspace's key
    there now (state.resign, on the user's approval, after signing.key was lost); how many."""
    path = folder / RUN_RECORDS
    if not path.exists():
        return 0
    math_dir, lines = signing.math_dir_of(folder), []
    with locked(path):
        for line in read_text(path, str(RUN_RECORDS)).splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict) and isinstance(record.get("computation"), int):
                record["mark"] = signing.mark(math_dir, _unmarked(record))
                lines.append(json.dumps(record, sort_keys=True))
        atomic_write(path, "".join(line + "\n" for line in lines))
    return len(lines)


def _unmarked(record: Mapping[str, object]) -> dict[str, object]:
    return {key: value for key, value in record.items() if key != "mark"}


def _run_records(folder: Path) -> dict[int, RunRecord]:
    """The run records of folder/computations/runs.jsonl whose mark holds, by computation."""
    path = folder / RUN_RECORDS
    if not path.exists():
        return {}
    math_dir, found = signing.math_dir_of(folder), dict[int, RunRecord]()
    for line in read_text(path, str(RUN_RECORDS)).splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if not isinstance(record, dict) or not isinstance(record.get("computation"), int):
            continue
        if signing.matches(math_dir, _unmarked(record), record.get("mark")):
            found[record["computation"]] = cast(RunRecord, record)  # its mark: ours, as written
    return found


def _vouched(number: int, text: str, records: dict[int, RunRecord]) -> bool:
    """Whether section `number` of COMPUTATION.md (`text`) is the run its record describes."""
    record = records.get(number)
    asked, run = blocks.ANSWERED.search(text), _RUN.search(text)
    code, output = _fenced(text, "Code"), _fenced(text, "Output")
    return (
        record is not None
        and code is not None
        and output is not None
        and record["request"] == (int(asked.group(1)) if asked else None)
        and record["outcome"] == (run.group(1) if run else None)
        and record["code_sha256"] == _sha256(code)
        and record["output_sha256"] == _sha256(output)
    )


def _checked_sections(folder: Path) -> list[tuple[int, str, bool]]:
    """COMPUTATION.md's sections: (number, text, whether compute.py's run record vouches for it)."""
    path = folder / "COMPUTATION.md"
    if not path.exists():
        return []
    body = split_frontmatter(read_text(path, path.name), str(path))[1]
    records = _run_records(folder)
    return [(n, text, _vouched(n, text, records)) for n, text in runs(body)]


def vouched_runs(folder: Path) -> dict[int, str]:
    """Computation number -> its COMPUTATION.md section (and its Summary row), for each run
    compute.py recorded: what a referee may cite as the run that tested a step."""
    path = folder / "COMPUTATION.md"
    if not path.exists():
        return {}
    body = split_frontmatter(read_text(path, path.name), str(path))[1]
    rows = body[body.find(SUMMARY_HEADING) :] if SUMMARY_HEADING in body else ""
    return {
        n: "\n".join([text, *re.findall(rf"(?m)^\| Computation {n} \|.*$", rows)])
        for n, text, vouched in _checked_sections(folder)
        if vouched
    }


def requests_answered(folder: Path) -> set[int]:
    """The PROOF.md request numbers COMPUTATION.md records a run of compute.py's for."""
    return {
        int(asked.group(1))
        for _, text, vouched in _checked_sections(folder)
        if vouched and (asked := blocks.ANSWERED.search(text))
    }


def unvouched_claims(folder: Path) -> dict[int, int]:
    """Request number -> the `## Computation N` of COMPUTATION.md that says it answers it although
    compute.py recorded no such run (typed or edited by hand, or older than the run records)."""
    return {
        int(asked.group(1)): n
        for n, text, vouched in _checked_sections(folder)
        if not vouched and (asked := blocks.ANSWERED.search(text))
    }


def unanswered_lines(folder: Path, requests: list[int]) -> list[str]:
    """A line per unanswered request, naming the `## Computation N` block that claims to answer
    it when compute.py recorded no such run (typed, or edited, by hand)."""
    claims = unvouched_claims(folder)
    return [
        f"Request {n} is not answered"
        + (
            f" (Computation {claims[n]} of COMPUTATION.md says it answers it, but compute.py "
            "recorded no such run: typed or edited by hand; run it with compute.py)"
            if n in claims
            else ""
        )
        for n in requests
    ]


def pending_interpretations(folder: Path) -> list[int]:
    """The computations of COMPUTATION.md whose Interpretation is still to be written."""
    path = folder / "COMPUTATION.md"
    if not path.exists():
        return []
    body = read_text(path, path.name)
    return [n for n, text in runs(body) if INTERPRETATION_PENDING in text]


def failed_requests(folder: Path) -> list[int]:
    """The PROOF.md requests whose latest run failed."""
    path = folder / "COMPUTATION.md"
    return _failed(read_text(path, path.name)) if path.exists() else []


def interpret(
    folder: Path,
    number: int,
    text: str,
    result: str | None = None,
    implication: str | None = None,
    refutes: list[str] | None = None,
) -> Interpreted:
    """Write computation `number`'s Interpretation in place of the pending placeholder and, with
    `result` and `implication`, its row in the Summary for Proof Agent table. `refutes`: the
    steps the run refutes ([] none), written as the Interpretation's last line
    (smallcases.refutes_line)."""
    path = folder / "COMPUTATION.md"
    text = text.strip()
    if not text:
        raise BadInput("an Interpretation needs text", code="usage")
    if refutes is not None:
        text += "\n\n" + smallcases.refutes_line(refutes)
    with locked(path):
        if not path.exists():
            raise BadInput(f"{path} does not exist", code="file_not_found")
        data, body = split_frontmatter(read_text(path, path.name), str(path))
        section = dict(runs(body)).get(number)
        if section is None or INTERPRETATION_PENDING not in section:
            raise BadInput(
                f"COMPUTATION.md has no computation {number} awaiting its Interpretation",
                code="no_pending_interpretation",
            )
        body = body.replace(section, section.replace(INTERPRETATION_PENDING, text), 1)
        asked = blocks.ANSWERED.search(section)
        if result:
            cells = [
                f"Computation {number}",
                f"Request {asked.group(1)}" if asked else "direct",
                result,
                implication or "",
            ]
            row = "| " + " | ".join(" ".join(c.replace("|", "/").split()) for c in cells) + " |"
            body = body.rstrip("\n") + "\n" + row + "\n"
        status = data["status"] = _status(body)
        atomic_write(path, with_frontmatter(data, body))
    heading = section.split("\n", 1)[0].split(":", 1)
    return {
        "file": str(path),
        "computation": number,
        "status": status,
        "title": heading[1].strip() if len(heading) > 1 else "",
        "request": int(asked.group(1)) if asked else None,
    }


def record_computation(
    folder: Path,
    slug: str,
    code: str,
    result: RunResult,
    title: str,
    request: int | None = None,
    purpose: str | None = None,
) -> Recorded:
    """Append one run to folder/COMPUTATION.md (created from the template); returns where."""
    path = folder / "COMPUTATION.md"
    moment = now()
    with locked(path):
        if path.exists():
            text = read_text(path, path.name)
        else:
            text = instantiate("COMPUTATION.md", {}, {"problem": slug})
        data, body = split_frontmatter(text, str(path))
        number = max((int(n) for n in HEADING.findall(body)), default=0) + 1
        entry = section(number, title, code, result, request, purpose, moment)
        _record_run(folder, number, request, code, result, stamp(moment))
        at = body.find(SUMMARY_HEADING)
        if at == -1:
            body = body.rstrip("\n") + "\n\n" + entry
        else:
            body = body[:at] + entry + "\n" + body[at:]
        data.update(
            status=_status(body),
            runtime=data.get("runtime") or "python",
            last_run=stamp(moment),
            computations=number,
        )
        atomic_write(path, with_frontmatter(data, body))
    return {"file": str(path), "computation": number, "request": request}
