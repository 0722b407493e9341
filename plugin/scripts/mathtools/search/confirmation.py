"""Verification, one call: the papers judged strong or partial in a search's runs, PROBLEM.md's
references and the papers the model remembers, checked by the gate (verification.py), and what the
model needs to write their Relevance and Key Results from the papers themselves: per confirmed paper
judged strong or partial, and per PROBLEM.md reference (what the problem builds on), its whole
abstract, LaTeX as the source gives it, and the theorem-like statements of its arXiv LaTeX source
(papers/), numbered as LaTeX prints them, to quote from; per other confirmed paper an excerpt of its
abstract; per unconfirmed candidate the title it was given and why. The statements are kept whole in
`statements.json` (merge and finish keep the ones a [V] claim quotes in the REF entry).

The kept papers come from the run store (records as the services gave them: nothing retyped), one
per distinct paper under the key the discovery listing showed. `candidates.json` and
`verified.json` stay in the search folder (lit_update.py merge reads the latter). When every
paper verified is an entry LITERATURE.md has already (nothing_new), `literature.py verify` merges
at once and says so (NOTHING_NEW): the model has nothing to assess or synthesise.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..core import (
    IDENTIFIED,
    VERDICTS,
    ServiceError,
    VerificationDocument,
    read_json,
    stamp,
    summary_line,
    unavailable_line,
)
from ..gate import PENDING, Verifier, load_candidates
from ..litdoc import AS_CITED, UNKNOWN, Index, Key, load_literature, paper_identity
from ..papers import paper_theorems
from ..services import LatexSourceClient
from . import abstracts, refinement, searchfolder
from .problemfile import PROBLEM_SOURCE
from .searchfolder import (
    CANDIDATES,
    MEMORY_SOURCE,
    STATEMENTS,
    VERIFIED,
    LatexSourceStatement,
    PaperStatements,
    Search,
    check_judged,
    iteration_papers,
)
from .store import RunStore, open_store

REASON_CHARS = 200
# What became of a UREF left pending, retried in place: confirmed or not.
RETRIED = {True: "confirmed: merge moves it to the REFs", False: "still pending"}
PENDING_FILE = "pending.json"  # LITERATURE.md's UREFs left pending, retried by this verify
NO_ABSTRACT = "(none)"  # after "abstract: ", for a record without one
STATEMENT_WORDS = 30


def kept_candidates(store: RunStore, search: Search) -> tuple[list[dict[str, object]], set[str]]:
    """The strong and partial papers of every run of the search, best first, one per distinct
    paper under its listed key; and the keys the listings showed (their gist was read)."""
    shown: dict[Key, str] = {}
    listed: set[str] = set()
    for item in search.iterations:
        for paper in iteration_papers(store, search, item["number"]):
            listed.add(paper.key)
            for identity in paper_identity(paper.record) or [("key", paper.key)]:
                shown.setdefault(identity, paper.key)
    judgements = [j for run_id in search.run_ids() for j in store.judgements(run_id)]
    candidates: list[dict[str, object]] = []
    taken: set[str] = set()
    for judgement in refinement.kept_papers(judgements):
        identities = paper_identity(judgement["record"]) or [("key", judgement["key"])]
        key = next((shown[i] for i in identities if i in shown), judgement["key"])
        if key not in taken:
            taken.add(key)
            candidates.append({**refinement.as_candidate(judgement), "key": key})
    return candidates, listed


def verify(search: Search) -> tuple[VerificationDocument | None, list[str]]:
    """Verify the search's candidates; (the verification document, None when there was nothing
    to verify; the lines to print)."""
    with open_store(create=False) as store:
        check_judged(store, search, "verifying")
        kept, listed = kept_candidates(store, search)
    files = []
    if kept:
        searchfolder.write_json(search.folder / CANDIDATES, kept)
        files.append(str(search.folder / CANDIDATES))
    for extra in (search.references, str(search.folder / "memory.json")):
        if extra and Path(extra).exists():
            files.append(extra)
    retried = pending_candidates(search, files)
    if retried:  # left pending by a failing service: asked again, in place
        searchfolder.write_json(search.folder / PENDING_FILE, retried)
        files.append(str(search.folder / PENDING_FILE))
    if not files:  # an outcome too: the merge (literature.py verify makes it) records it
        searchfolder.write_json(search.folder / VERIFIED, empty_verification())
        return None, [
            "nothing to verify: no paper was judged strong or partial, PROBLEM.md cites none "
            "and none is remembered"
        ]
    candidates, inputs = load_candidates(files)
    document = Verifier().verify(candidates, inputs)
    searchfolder.write_json(search.folder / VERIFIED, document)
    # Read in full before writing: the papers judged strong or partial, and PROBLEM.md's own
    # references (what the problem builds on: its relevance is the model's to write too).
    read = {str(c["key"]) for c in kept}
    read |= {c.key for c in candidates if c.given.get("source") in (PROBLEM_SOURCE, MEMORY_SOURCE)}
    statements = latex_source_statements(document, read)
    if statements:
        searchfolder.write_json(search.folder / STATEMENTS, statements)
    recorded = searchfolder.recorded_refs(search)
    out = lines(document, listed, len(kept), read, statements, recorded)
    if retried:
        outcome = {r["key"]: r["status"] for r in document["results"]}
        done = {str(c["key"]): outcome.get(str(c["key"])) != "UNCONFIRMED" for c in retried}
        out.append("retried in place: " + ", ".join(f"{k} ({RETRIED[v]})" for k, v in done.items()))
    return document, out


def empty_verification() -> VerificationDocument:
    """The verification of a search that kept no candidate: no result, every count 0."""
    counts = ("total", "confirmed", "corrected", "unconfirmed", "pending")
    return {
        "verified_at": stamp(),
        "sources_queried": [],
        "results": [],
        "summary": dict.fromkeys(counts, 0),
    }


NOTHING_NEW = "nothing new: every paper is an entry already; merged: finish next, nothing to write"


def nothing_new(search: Search, document: VerificationDocument) -> bool:
    """Whether every result is an entry LITERATURE.md has already: each confirmed paper a REF,
    each unconfirmed candidate a REF or UREF (a follow-up that found nothing new)."""
    path = Path(search.literature)
    if not path.exists():
        return False
    index = Index(load_literature(path))
    for result in document["results"]:
        if result["status"] in IDENTIFIED:
            if index.find("REF", paper_identity(result.get("paper") or {})) is None:
                return False
            continue
        candidate = result.get("candidate") or {}
        if index.cited("REF", candidate) is None and index.cited("UREF", candidate) is None:
            return False
    return True


def pending_candidates(search: Search, given: Sequence[str] = ()) -> list[dict[str, object]]:
    """LITERATURE.md's UREFs left "verification pending" (a service failed while verifying
    them), as candidates keyed by their entry number and naming it (`entry`): the next search's
    verify retries each in place, and merge moves one that is confirmed now to the REFs. A UREF
    that a candidate of the `given` files already is (a PROBLEM.md reference, a remembered paper)
    is verified once, as that candidate."""
    path = Path(search.literature)
    if not path.exists():
        return []
    index = Index(load_literature(path))
    covered = set()
    for name in given:
        items = read_json(name, "candidates")
        for item in items if isinstance(items, list) else []:
            if isinstance(item, dict) and (entry := index.cited("UREF", item)) is not None:
                covered.add(entry.entry_number)
    found: list[dict[str, object]] = []
    for entry in load_literature(path).unconfirmed:
        pending = (entry.field("Reason") or "").startswith(PENDING)
        if not pending or entry.entry_number in covered:
            continue
        ids = dict(tag.split(":", 1) for tag in entry.ids if ":" in tag)
        whole = entry.field("Authors") == AS_CITED  # a free-text citation, whole
        authors = [name for name in entry.authors if name.lower() != UNKNOWN]
        candidate = {
            "key": entry.entry_number,
            "entry": entry.entry_number,
            "citation" if whole else "title": entry.title,
            "authors": None if whole else authors,
            "year": entry.year,
            "arxiv_id": ids.get("arXiv"),
            "doi": ids.get("DOI"),
            "source": "pending",
        }
        found.append({name: value for name, value in candidate.items() if value})
    return found


def latex_source_statements(
    document: VerificationDocument, read: set[str]
) -> dict[str, PaperStatements]:
    """arXiv id -> the statements of its LaTeX source, for each confirmed paper of `read` with an
    arXiv id (a paper without LaTeX source, or whose LaTeX source failed, says why in `missing`)."""
    found: dict[str, PaperStatements] = {}
    client = LatexSourceClient()
    for result in document["results"]:
        paper = result.get("paper") or {}
        arxiv_id = paper.get("arxiv_id")
        if result["status"] not in IDENTIFIED or result["key"] not in read or not arxiv_id:
            continue
        if arxiv_id in found:
            continue
        try:
            record = paper_theorems(arxiv_id, client=client)
        except ServiceError as exc:
            found[arxiv_id] = PaperStatements(
                src=client.url(arxiv_id), statements=[], missing=exc.message
            )
            continue
        missing = None if record["status"] == "ok" else str(record["reason"])
        if record["status"] == "ok" and not record["statements"]:
            missing = "no theorem-like statements in its LaTeX source"
        statements = [
            LatexSourceStatement(printed=s["printed"], env=s["env"], note=s["note"], text=s["text"])
            for s in record["statements"]
        ]
        found[arxiv_id] = PaperStatements(
            src=record["src_url"], statements=statements, missing=missing
        )
    return found


def statement_lines(record: PaperStatements, statements_file: str) -> list[str]:
    """The statements to quote from, compact: number, note, the first words."""
    if record["missing"]:
        return [f"no LaTeX source statements: {record['missing']}"]
    chosen = searchfolder.listed_statements(record)
    out = [f"statements, from {record['src']}:"]
    for statement in chosen:
        note = f" ({' '.join(statement['note'].split())})" if statement["note"] else ""
        text = abstracts.words(abstracts.flat(statement["text"]))
        said = " ".join(text[:STATEMENT_WORDS]) + ("…" if len(text) > STATEMENT_WORDS else "")
        out.append(f"  {statement['printed']}{note}: {said}")
    if len(record["statements"]) > len(chosen):
        out.append(
            f"  +{len(record['statements']) - len(chosen)} more, whole, in {statements_file}"
        )
    return out


def lines(
    document: VerificationDocument,
    listed: set[str],
    kept: int,
    read: set[str] | None = None,
    statements: dict[str, PaperStatements] | None = None,
    recorded: dict[Key, str] | None = None,
) -> list[str]:
    summary = document["summary"]
    counts = [f"{summary.get(s.lower(), 0)} {s}" for s in VERDICTS]
    out = [
        f"verified {summary['total']} ({kept} kept from the search): "
        + ", ".join(c for c in counts if not c.startswith("0 CORRECTED"))
    ]
    shown: set[str] = set()  # papers printed above: a second candidate for one names it only
    for result in document["results"]:
        key, paper = result["key"], result.get("paper")
        if result["status"] in IDENTIFIED and paper:
            ref = searchfolder.recorded_as(paper, key, recorded or {})
            if ref:  # LITERATURE.md has it already: named, not described again
                out.append(f"{result['status']} {key} = {ref} (recorded)")
                continue
            same = paper["key"] == key
            if paper["key"] in shown:
                out.append(f"{result['status']} {key} = {paper['key']}")
                continue
            shown.add(paper["key"])
            resolved = "" if same else f" = {paper['key']}"
            described = summary_line(paper, 90).split(" | ", 1)[1]  # year | author | title
            out.append(f"{result['status']} {key}{resolved} | {described}")
            for change in result.get("discrepancies") or []:
                out.append(
                    f"  corrected {change['field']}: {change.get('note') or change['record']}"
                )
            if key in (read or set()):
                whole = abstracts.flat(paper.get("abstract")) or NO_ABSTRACT
                out += [f"  {line}" for line in abstracts.wrapped(f"abstract: {whole}")]
                if record := (statements or {}).get(paper.get("arxiv_id") or ""):
                    out += [f"  {line}" for line in statement_lines(record, STATEMENTS)]
                continue
            excerpt = abstracts.excerpt(paper.get("abstract"), after_gist=same and key in listed)
            out += [f"  {line}" for line in excerpt]
        else:
            cited = result.get("candidate") or {}
            given = cited.get("title") or cited.get("citation")
            reason = " ".join(str(result.get("reason") or "").split())
            if len(reason) > REASON_CHARS:
                reason = reason[: REASON_CHARS - 1] + "…"
            out.append(f"UNCONFIRMED {key}" + (f' "{given}"' if given else "") + f": {reason}")
    for source, message in document.get("source_errors", {}).items():
        out.append(unavailable_line(source, message))
    return out
