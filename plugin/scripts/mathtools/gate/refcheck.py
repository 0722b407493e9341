"""Checking an existing paper's bibliography against the sources: what /math:check-refs runs on
what bibliography/loading.py read.

Every entry goes through the verification gate (gate/verification.py: its sources, its
batching, its outcomes), and the check adds what only a whole bibliography shows: two entries
for one work (the same DOI or arXiv id, one title, a key used twice, a preprint and its published
version) and keys the .tex cites that no bibliography holds. The result
(schemas/check_refs.schema.json) is shown as a table, a Markdown report, and turned into a
corrected copy of the .bib (`fix_updates`, written by bibliography/bibcopy.corrected_copy).
"""

from __future__ import annotations

import hashlib
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..bibliography import (
    BibFile,
    Bibliography,
    BibliographyEntry,
    bibtex_identifier,
    bibtex_names,
    bibtex_text,
    read_file,
    split_names,
)
from ..core import (
    VERDICTS,
    BadInput,
    CheckDocument,
    CheckedEntry,
    Duplicate,
    MissingKey,
    PaperDict,
    VerificationResult,
    atomic_write,
    normalise_title,
    plural,
    resolved,
    stamp,
)
from .candidates import candidate
from .verdicts import PENDING
from .verification import Verifier

KIND_NAMES = {
    "bib": "a .bib",
    "bbl": "a .bbl",
    "tex": "a .tex's \\bibitems or amsrefs entries",
    "ltb": "an amsrefs database",
    "pdf": "a PDF's reference list",
}
FIX_MARK = "% check_refs.py: corrected copy of"
MAX_NOTE_CHARS = 300
# A discrepancy's field -> the BibTeX field it corrects (venue: journal, or booktitle below).
BIB_FIELDS = {
    "title": "title",
    "authors": "author",
    "year": "year",
    "venue": "journal",
    "volume": "volume",
    "pages": "pages",
    "doi": "doi",
    "arxiv_id": "eprint",
}
BOOK_PARTS = frozenset({"inproceedings", "incollection", "inbook", "conference"})


def check_bibliography(
    bibliography: Bibliography, verifier: Verifier, progress: Callable[[str], None]
) -> CheckDocument:
    """The check_refs document (schemas/check_refs.schema.json) for what load_bibliography read."""
    references = bibliography.references
    candidates = [
        candidate(
            reference.candidate(), number, f"{Path(reference.file).name} line {reference.line}"
        )
        for number, reference in enumerate(references, 1)
    ]
    with_ids = sum(bool(c.identifiers()) for c in candidates)
    progress(
        f"verifying {len(candidates)} entries ({with_ids} with an arXiv id or DOI, one batch per "
        f"service; {len(candidates) - with_ids} by title, one search each)"
    )
    verification = verifier.verify(candidates) if candidates else None
    results = verification["results"] if verification else []
    entries: list[CheckedEntry] = [
        {
            "key": reference.key,
            "file": reference.file,
            "line": reference.line,
            "entry_type": reference.entry_type,
            "cited": reference.plain(),
            "status": result["status"],
            "reason": result["reason"],
            "verification": result,
        }
        for reference, result in zip(references, results, strict=True)
    ]
    in_bibliography = {r.key for r in references} | set(bibliography.not_cited)
    missing: list[MissingKey] = [
        {"key": key, "file": file, "line": line}
        for key, (file, line) in bibliography.cited.items()
        if key not in in_bibliography and key not in {r.key for r in bibliography.repeated}
    ]
    doubles = duplicates(entries, bibliography.repeated)
    counts = {status: sum(e["status"] == status for e in entries) for status in VERDICTS}
    document: CheckDocument = {
        "checked_at": stamp(),
        "inputs": bibliography.files,
        "sources_queried": verification["sources_queried"] if verification else [],
        "entries": entries,
        "duplicates": doubles,
        "missing": missing,
        "not_cited": bibliography.not_cited,
        "summary": {
            "entries": len(entries),
            "confirmed": counts["CONFIRMED"],
            "corrected": counts["CORRECTED"],
            "unconfirmed": counts["UNCONFIRMED"],
            "pending": sum(_pending(e) for e in entries),
            "duplicates": len(doubles),
            "missing": len(missing),
        },
    }
    if verification and verification.get("source_errors"):
        document["source_errors"] = verification["source_errors"]
    if bibliography.warnings:
        document["warnings"] = bibliography.warnings
    if bibliography.paper_read:
        document["summary"]["cited"] = len(bibliography.cited)
    if bibliography.cited:  # a paper was given: what it never cites is a decision to make
        never = [e["key"] for e in entries if e["key"] not in bibliography.cited]
        if never:
            document["never_cited"] = never
    return document


def _pending(entry: CheckedEntry) -> bool:
    """An entry no answering service could check (verdicts.PENDING)."""
    return entry["reason"].startswith(PENDING)


def duplicates(entries: list[CheckedEntry], repeated: list[BibliographyEntry]) -> list[Duplicate]:
    """Groups of entries for one work: the same DOI, arXiv id or title as cited, or confirmed as
    the same record (a preprint and its journal version); and keys used twice."""
    signals: dict[tuple[str, str], list[str]] = {}
    for entry in entries:
        cited, result = entry["cited"], entry["verification"]
        identifiers = [
            ("DOI", (cited.get("doi") or "").lower()),
            ("arXiv id", cited.get("arxiv_id")),
        ]
        title = normalise_title(cited.get("title") or "")
        identifiers.append(("title", title if len(title.split()) >= 3 else None))
        paper = result.get("paper")
        if paper:
            identifiers.append(("record", paper.get("key")))
        for kind, value in identifiers:
            if value:
                signals.setdefault((kind, value), []).append(entry["key"])
    groups: list[tuple[list[str], list[str]]] = []  # (keys, why)
    for (kind, value), keys in signals.items():
        if len(keys) < 2:
            continue
        reason = {
            "DOI": f"the same DOI {value}",
            "arXiv id": f"the same arXiv id {value}",
            "title": "the same title",
            "record": f"confirmed as the same paper ({value})",
        }[kind]
        overlapping = [g for g in groups if set(g[0]) & set(keys)]
        merged_keys = list(dict.fromkeys([k for g in overlapping for k in g[0]] + keys))
        merged_why = list(dict.fromkeys([w for g in overlapping for w in g[1]] + [reason]))
        groups = [g for g in groups if g not in overlapping] + [(merged_keys, merged_why)]
    by_key = {entry["key"]: entry for entry in entries}
    found: list[Duplicate] = []
    for keys, why in groups:
        group = [by_key[k]["cited"] for k in keys]
        preprint = any(c.get("arxiv_id") and not c.get("venue") for c in group)
        published = any(c.get("venue") and "arxiv" not in c["venue"].lower() for c in group)
        if preprint and published:
            why.append("a preprint and its published version")
        found.append({"keys": keys, "why": "; ".join(why)})
    for reference in repeated:
        found.append(
            {
                "keys": [reference.key],
                "why": f"the key is used twice ({Path(reference.file).name} line "
                f"{reference.line}: only the first entry was checked)",
            }
        )
    return found


def strict_failures(document: CheckDocument, level: str) -> list[str]:
    """What fails --strict (`level` "unconfirmed") or --strict=corrected ("corrected"), one phrase
    each: entries UNCONFIRMED or pending (and CORRECTED), cited keys missing, cited statements
    not found as numbered, nothing checked at all."""
    summary = document["summary"]
    failing = summary["unconfirmed"]  # a pending entry is UNCONFIRMED too
    what = "UNCONFIRMED or pending"
    if level == "corrected":
        failing += summary["corrected"]
        what = "UNCONFIRMED, pending or CORRECTED"
    found = [f"{plural(failing, 'entry', 'entries')} {what}"] if failing else []
    if summary["missing"]:
        found.append(f"{plural(summary['missing'], 'cited key')} missing")
    if summary.get("statements_flagged"):
        flagged = summary["statements_flagged"]
        found.append(f"{plural(flagged, 'cited statement')} not found as numbered")
    if not summary["entries"]:
        found.append("nothing was checked")
    return found


# ----------------------------------------------------------------------------- the corrected copy


def fix_updates(document: CheckDocument, bib: BibFile) -> dict[str, dict[str, str | None]]:
    """key -> {BibTeX field -> new value} for the entries of `bib`: CORRECTED entries get the
    record's value for every field that differs, UNCONFIRMED ones a note saying why."""
    by_key = {reference.key: reference for reference in bib.references}
    updates: dict[str, dict[str, str | None]] = {}
    for entry in document["entries"]:
        reference = by_key.get(entry["key"])
        if reference is None or entry["file"] != str(bib.path):
            continue
        if entry["status"] == "CORRECTED":
            updates[entry["key"]] = _corrections(entry["verification"], reference)
        elif entry["status"] == "UNCONFIRMED" and not _pending(entry):
            # a pending entry was not checked (a service was down): nothing to say about it
            updates[entry["key"]] = unconfirmed_mark(entry["reason"], reference)
    return updates


def _corrections(result: VerificationResult, reference: BibliographyEntry) -> dict[str, str | None]:
    changes: dict[str, str | None] = {}
    paper: PaperDict = result["paper"] or {}  # CORRECTED: always a record (the schema)
    for d in result.get("discrepancies") or []:
        name, record = d["field"], d.get("record")
        if name == "version":  # a preprint cited: the published version, and what it adds
            changes |= _bib_field("venue", record or paper.get("venue"), reference)
            for extra in ("volume", "pages", "doi"):
                if paper.get(extra) and not reference.fields.get(BIB_FIELDS[extra]):
                    changes |= _bib_field(extra, paper[extra], reference)
        elif name in ("doi", "arxiv_id") and not record:  # the cited one does not exist
            changes[BIB_FIELDS[name]] = None
            if name == "arxiv_id" and "archiveprefix" in reference.fields:
                changes["archiveprefix"] = None
        elif name in BIB_FIELDS and record not in (None, "", []):
            changes |= _bib_field(name, record, reference)
    return changes


def _bib_field(name: str, value: object, reference: BibliographyEntry) -> dict[str, str | None]:
    """The BibTeX field(s) and value(s) that write a record's `value` for discrepancy `name`."""
    if value in (None, "", []):
        return {}
    if name == "authors":
        names = [str(v) for v in (value if isinstance(value, list) else [value])]
        cited = split_names(reference.fields.get("author", ""))
        if cited and all("," in person for person in cited):  # the file writes "Family, Given"
            names = [family_first(person) for person in names]
        return {"author": "{" + bibtex_names(names) + "}"}
    if name == "title":
        return {"title": "{{" + bibtex_text(str(value)) + "}}"}  # inner braces keep capitals
    if name in ("doi", "arxiv_id"):
        written = bibtex_identifier(str(value))
        if written is None:
            return {}
        if name == "doi":
            return {"doi": "{" + written + "}"}
        prefix = {} if "archiveprefix" in reference.fields else {"archivePrefix": "{arXiv}"}
        return {"eprint": "{" + written + "}", **prefix}
    if name == "venue":
        use_booktitle = reference.entry_type.lower() in BOOK_PARTS or (
            "booktitle" in reference.fields and "journal" not in reference.fields
        )
        return {"booktitle" if use_booktitle else "journal": "{" + bibtex_text(str(value)) + "}"}
    if name == "pages":
        value = re.sub(r"(?<=\d)\s*[-\u2013]+\s*(?=\d)", "--", str(value))
    return {BIB_FIELDS[name]: "{" + bibtex_text(str(value)) + "}"}


def family_first(name: str) -> str:
    """A record's "Given Family" name as "Family, Given" ("Caprice Stanley" -> "Stanley,
    Caprice"; "Ludwig van Beethoven" -> "van Beethoven, Ludwig"), as MathSciNet writes names."""
    words = name.split()
    if "," in name or len(words) < 2:
        return name
    start = len(words) - 1
    while start > 1 and words[start - 1][:1].islower():  # von, van der, de la
        start -= 1
    return " ".join(words[start:]) + ", " + " ".join(words[:start])


# The field that marks an UNCONFIRMED entry in a corrected copy. A bibliography style prints only
# the fields it knows: with bibtex, plain, amsplain, alpha, abbrv, unsrt, siam and amsalpha print a
# `note` and none prints `checkrefs`, so a copy adopted as it is never puts the mark in the paper.
MARK_FIELD = "checkrefs"
NOTE_JOINT = " -- "  # how an earlier version joined its mark and the user's note in `note`


def unconfirmed_mark(reason: str, reference: BibliographyEntry) -> dict[str, str | None]:
    """An UNCONFIRMED entry's changes: the reason in MARK_FIELD (an earlier run's replaced). The
    user's note is left as written, except that an earlier version's mark in it ("UNCONFIRMED:
    ... -- their note"), which would print, is taken out."""
    folder = str(Path(reference.file).resolve().parent)
    reason = reason.replace(reference.file, Path(reference.file).name).replace(folder + "/", "")
    reason = reason if len(reason) <= MAX_NOTE_CHARS else reason[: MAX_NOTE_CHARS - 1] + "…"
    changes: dict[str, str | None] = {MARK_FIELD: "{UNCONFIRMED: " + bibtex_text(reason) + "}"}
    if reference.fields.get("note", "").startswith("UNCONFIRMED:"):
        changes["note"] = _users_note(reference) or None
    return changes


def is_marked(changes: dict[str, str | None]) -> bool:
    """Whether an entry's changes mark it UNCONFIRMED (else they correct it)."""
    return MARK_FIELD in changes


def _users_note(reference: BibliographyEntry) -> str:
    """The user's own part of a note an earlier version wrote as "{UNCONFIRMED: ... -- theirs}"
    (or "{UNCONFIRMED: ... -- } # macro"), as written; "" when there is none."""
    earlier = reference.raw.get("note", "").strip()
    kept = earlier.partition(NOTE_JOINT)[2] if earlier.startswith("{") else ""
    if re.match(r"\}\s*#", kept):
        return kept.split("#", 1)[1].strip()
    return "{" + kept if kept.endswith("}") and kept.strip("} ") else ""


def default_fix_path(bib: BibFile) -> Path:
    """Where `--fix` alone writes the corrected copy: NAME.checked.bib beside NAME.bib."""
    return bib.path.with_name(f"{bib.path.stem}.checked.bib")


def fix_lines(document: CheckDocument, asked: str | None) -> list[str]:
    """What the table says about the corrected copy (`asked`: the --fix value, "" alone)."""
    if asked is None:
        return []
    fix = document.get("fix")
    if fix is None:
        kinds = sorted({KIND_NAMES.get(f["kind"], f["kind"]) for f in document["inputs"]})
        read = ", ".join(kinds) or "no bibliography"
        return [f"no corrected copy: only a single .bib is rewritten, and this check read {read}"]
    if fix["file"] is None:
        return ["no corrected copy: nothing to correct"]
    corrected = fix.get("corrected", len(fix["entries_changed"]))
    marked = len(fix["entries_changed"]) - corrected
    return [
        f"corrected copy: {fix['file']} ({plural(corrected, 'entry', 'entries')} corrected from "
        f"the sources' records, {marked} marked UNCONFIRMED in a {MARK_FIELD} field, which no "
        "style prints; the original is unchanged)"
    ]


def fix_header(bib: BibFile, updates: dict[str, dict[str, Any]]) -> str:
    """The corrected copy's one added line (a comment, which BibTeX skips): its mark, which lets a
    later run replace it, and what changed."""
    corrected = sum(not is_marked(changes) for changes in updates.values())
    return (
        f"{FIX_MARK} {bib.path.name}: {plural(corrected, 'entry', 'entries')} corrected from the "
        "sources' records, "
        f"{len(updates) - corrected} marked UNCONFIRMED in a {MARK_FIELD} field (no style prints "
        f"it); the original is unchanged ({CHECKSUM} {text_checksum(bib.text)})\n"
    )


CHECKSUM = (
    "original sha256"  # the header names the original it copies: --adopt refuses a stale copy
)


def text_checksum(text: str) -> str:
    """What the header records of the original's text: --adopt compares it with the file's."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def check_output(path: str, option: str, inputs: list[Path], marker: str) -> None:
    """BadInput unless `path` can take an output of ours: not an input of the call, not a folder,
    and not an existing file other than one we wrote (it starts with `marker`)."""
    output_folder(path, option)
    target = Path(path)
    if any(target.exists() and other.exists() and target.samefile(other) for other in inputs) or (
        resolved(target) in {resolved(other) for other in inputs}
    ):
        raise BadInput(
            f"{option} {path} is an input of this call: the original is never modified; "
            "write the copy elsewhere",
            code="cannot_write",
        )
    if target.is_dir():
        raise BadInput(f"{option} {path} is a folder, not a file", code="cannot_write")
    if target.exists() and not target.is_file():  # a device (/dev/zero) would be read forever
        raise BadInput(f"{option} {path} is not a regular file", code="cannot_write")
    if target.exists():
        try:
            with open(target, encoding="utf-8", errors="replace") as handle:
                first = handle.read(len(marker))  # never a whole one-line file
        except OSError:
            first = ""
        if not first.startswith(marker):
            raise BadInput(
                f"{option} {path} exists and was not written by check_refs.py; it would be "
                "lost: write elsewhere",
                code="cannot_write",
            )


def output_folder(path: str, option: str) -> None:
    """BadInput unless the folder `path` is to be written in exists: an output never creates
    folders (a mistyped path would leave new ones behind)."""
    folder = Path(path).parent
    if not folder.is_dir():
        raise BadInput(
            f"{option} {path}: the folder {folder} does not exist; create it first, or write "
            "elsewhere",
            code="cannot_write",
        )


ADOPTED_SUFFIX = ".before-check-refs.bib"


def adopt_corrected_copy(copy_path: str) -> tuple[Path, Path]:
    """Make the corrected copy at `copy_path` the .bib it corrects (named on its first line,
    beside it): the original is kept byte for byte as NAME.before-check-refs.bib, the copy
    (without its header line) replaces it in one step, and the copy is removed. Returns
    (original, backup); BadInput when the copy is not ours, the original changed since the copy
    was written (its checksum in the header differs) or the backup exists already."""
    copy = Path(copy_path)
    text = read_file(copy, "corrected copy")
    first, _, rest = text.partition("\n")
    if not first.startswith(FIX_MARK):
        raise BadInput(
            f"{copy} is not a corrected copy check_refs.py wrote (its first line does not start "
            f"with '{FIX_MARK}')",
            code="not_a_copy",
        )
    name = first[len(FIX_MARK) :].strip().split(": ", 1)[0]
    original = copy.parent / name
    if "/" in name or not original.is_file():
        raise BadInput(f"{copy} corrects {name}, which is not beside it", code="file_not_found")
    recorded = re.search(re.escape(CHECKSUM) + r" ([0-9a-f]{16})", first)
    if recorded is None or recorded.group(1) != text_checksum(read_file(original, "bibliography")):
        raise BadInput(
            f"{name} changed after {copy.name} was written (an entry added or edited since "
            "--fix), or the copy names no checksum of it: adopting would lose those changes; "
            "run check_refs.py --fix again",
            code="stale_copy",
        )
    backup = original.with_name(original.stem + ADOPTED_SUFFIX)
    if backup.exists():
        raise BadInput(
            f"{backup} exists (an earlier adoption?): move it away first", code="cannot_write"
        )
    try:
        shutil.copy2(original, backup)
        atomic_write(original, rest)
        copy.unlink()
    except OSError as exc:
        raise BadInput(f"cannot adopt {copy}: {exc.strerror or exc}", code="cannot_write") from None
    return original, backup
