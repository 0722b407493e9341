"""Stateful property (issue 37): any sequence of first searches, follow-ups, focus searches,
failing and recovering services and hand edits keeps each paper in LITERATURE.md once, its REF
and UREF numbers without gaps, and everything written by hand.

Each search verifies what the runbook hands verify: the papers its discovery kept, PROBLEM.md's
references (cited as the intake writes them: a whole citation, "A. Lovelace2 and E. Noether
(2002). On the spectral gap .... J. Graph Th.", the gate's `citation`), the papers the model
remembers (with or without their arXiv id or DOI), and the UREFs left pending, as
`literature.py verify` picks them (search/confirmation.pending_candidates); the real merge
(litdoc/merging.py) records the result. The four sources are a stand-in: a paper is confirmed
when the source that holds it answers that call (services fail per call, not per search: one
candidate may be confirmed while another of the same paper is left pending), left pending while
it fails, and a paper that does not exist is never found (SYNTHESIZED verification results,
shapes as verify_batch.py writes them). An entry is a paper's when its title is the paper's or,
a whole citation, names it (identity by paper, not by the text of a heading; issue 50).
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from pathlib import Path
from types import SimpleNamespace

from conftest import examples
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule
from mathtools.core.titles import normalise_title
from mathtools.gate.verdicts import PENDING
from mathtools.litdoc import checks, literature, merging
from mathtools.search.confirmation import pending_candidates
from support.verified import confirmed, paper, unconfirmed, verification

POOL = 8
SERVICES = ("arxiv", "semantic_scholar", "crossref", "zbmath")
PROBLEM_REFERENCES = (2, 3, 5)  # the papers PROBLEM.md cites
GHOSTS = (100, 101)  # remembered papers that do not exist


def holder(n: int) -> str:
    """The one source that holds paper n: arXiv, Semantic Scholar, Crossref or zbMATH Open."""
    return SERVICES[n % 4]


def record(n: int) -> dict:
    """Paper n as its source returns it (an arXiv id for an arXiv paper, a DOI otherwise)."""
    source = holder(n)
    if source == "arxiv":
        return paper(n, "arxiv")
    return paper(n, source, arxiv_id=None, doi=f"10.1/{n}", s2_paper_id=None)


def title(n: int) -> str:
    return f"A paper that does not exist {n}" if n in GHOSTS else record(n)["title"]


def citation(n: int, key: str) -> dict:
    """Paper n as a PROBLEM.md reference: one line, whole, as the intake writes it."""
    first, second = record(n)["authors"][:2]
    names = f"{first[0]}. {first.split()[-1]} and {second[0]}. {second.split()[-1]}"
    text = f"{names} ({record(n)['year']}). {title(n)}. J. Graph Th."
    return {"key": key, "citation": text, "year": record(n)["year"], "source": "PROBLEM.md"}


def names_paper(heading: str, n: int) -> bool:
    """Whether an entry's title is paper n's, or a whole citation naming it."""
    return same(heading, title(n)) or f" {title(n)}. " in f" {heading} "


def cited(n: int, key: str, *, year: bool = False, ids: bool = False, source: str) -> dict:
    """Paper n as a citation gives it: its title and first author, maybe its year and id."""
    given = {"key": key, "title": title(n), "source": source}
    if n not in GHOSTS:
        given["authors"] = record(n)["authors"][:1]
        if year:
            given["year"] = record(n)["year"]
        if ids:
            given.update({k: record(n)[k] for k in ("arxiv_id", "doi") if record(n).get(k)})
    return given


class FollowUps(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.folder = Path(tempfile.mkdtemp(prefix="followups-"))
        self.path = self.folder / "LITERATURE.md"
        self.down: set[str] = set()
        self.searches = 0
        self.notes: list[str] = []  # written by hand: each must survive every merge
        self.entered: dict[int, str] = {}  # paper -> "REF"/"UREF" once it has an entry

    @initialize()
    def start(self):
        self.path.unlink(missing_ok=True)

    def teardown(self):
        shutil.rmtree(self.folder, ignore_errors=True)

    # --- the services ------------------------------------------------------------------------

    @rule(service=st.sampled_from(SERVICES))
    def fail(self, service):
        self.down.add(service)

    @rule(service=st.sampled_from(SERVICES))
    def recover(self, service):
        self.down.discard(service)

    def answer(self, candidate: dict, n: int, flaky: bool = False) -> dict:
        """What the gate answers for a candidate citing paper n, with the services as they are
        (`flaky`: the holder failed this one call)."""
        if n in GHOSTS or holder(n) in self.down or flaky:
            reason = (
                f"{PENDING} ({', '.join(sorted(self.down))} unavailable)"
                if self.down
                else "no paper with this title in arXiv, Semantic Scholar, zbMATH Open or Crossref"
            )
            if flaky and not self.down:
                reason = f"{PENDING} ({holder(n)} unavailable)"
            return unconfirmed(candidate, reason)
        result = confirmed(record(n), ("semantic_scholar" if holder(n) != "arxiv" else "arxiv",))
        return {**result, "key": candidate["key"], "candidate": candidate}

    # --- searches ----------------------------------------------------------------------------

    @rule(
        kept=st.lists(st.integers(0, POOL - 1), max_size=3, unique=True),
        remembered=st.lists(
            st.tuples(st.sampled_from([*range(POOL), *GHOSTS]), st.booleans(), st.booleans()),
            max_size=3,
        ),
        focus=st.booleans(),
        flaky=st.lists(st.booleans(), max_size=12),
    )
    def search(self, kept, remembered, focus, flaky=()):
        """A first search (no LITERATURE.md yet), a follow-up or a focus search: the same phases,
        other candidates."""
        self.searches += 1
        found = [n for n in kept if holder(n) in ("arxiv", "semantic_scholar")]
        candidates = [
            {**cited(n, record(n)["key"], year=True, ids=True, source=holder(n))}
            for n in found
            if holder(n) not in self.down
        ]
        references = [citation(n, f"problem-ref-{i}") for i, n in enumerate(PROBLEM_REFERENCES, 1)]
        memory = [
            cited(n, f"memory-{i}", year=year, ids=ids, source="memory")
            for i, (n, year, ids) in enumerate(remembered, 1)
        ]
        files = []
        for name, items in (("problem-references.json", references), ("memory.json", memory)):
            if items:
                (self.folder / name).write_text(json.dumps(items))
                files.append(str(self.folder / name))
        pending = pending_candidates(SimpleNamespace(literature=str(self.path)), files)
        results = []
        for call, candidate in enumerate([*candidates, *references, *memory, *pending]):
            heading = candidate.get("title") or candidate.get("citation") or ""
            (n,) = [n for n in [*range(POOL), *GHOSTS] if names_paper(heading, n)]
            results.append(self.answer(candidate, n, flaky=call < len(flaky) and flaky[call]))
        stamp = f"2026-04-{1 + self.searches % 28:02d}T{self.searches % 24:02d}:00:00Z"
        verified = verification(results, stamp)
        tier = {"relevance": "why", "key_results": "what", "confidence": "[S]"}
        relevance = {r["key"]: tier for r in results if r["status"] == "CONFIRMED"}
        summary = f"search {self.searches}" + (" (focus)" if focus else "")
        merging.merge_file(self.path, verified, relevance, summary=summary)
        for n in range(POOL):
            entry = self.entry_of(n)
            if entry is not None and self.entered.get(n) != "REF":
                self.entered[n] = entry.kind

    # --- hand edits --------------------------------------------------------------------------

    @precondition(lambda self: self.path.exists())
    @rule(where=st.integers(0, 50))
    def note_under_an_entry(self, where):
        doc = literature.load_literature(self.path)
        entries = doc.confirmed + doc.unconfirmed
        if not entries:
            return
        entry = entries[where % len(entries)]
        note = f"A note written by hand, number {len(self.notes) + 1}."
        text = self.path.read_text(encoding="utf-8")
        heading = entry.lines[0]
        self.path.write_text(text.replace(heading, heading + note + "\n", 1), encoding="utf-8")
        self.notes.append(note)

    @precondition(lambda self: self.path.exists())
    @rule()
    def prose_in_the_synthesis(self):
        note = f"Prose written by hand in the Synthesis, number {len(self.notes) + 1}."
        text = self.path.read_text(encoding="utf-8")
        at = text.index("## Synthesis\n") + len("## Synthesis\n")
        self.path.write_text(text[:at] + "\n" + note + "\n" + text[at:], encoding="utf-8")
        self.notes.append(note)

    # --- invariants --------------------------------------------------------------------------

    def entry_of(self, n: int):
        doc = literature.load_literature(self.path)
        found = [e for e in doc.confirmed + doc.unconfirmed if names_paper(e.title, n)]
        return found[0] if found else None

    @invariant()
    def each_paper_once_numbers_without_gaps_nothing_lost(self):
        if not self.path.exists():
            return
        text = self.path.read_text(encoding="utf-8")
        assert checks.validate(text) == []
        doc = literature.parse_literature(text)
        entries = doc.confirmed + doc.unconfirmed
        for n in [*range(POOL), *GHOSTS]:
            assert sum(names_paper(e.title, n) for e in entries) <= 1, (n, text)
        for n, kind in self.entered.items():  # a paper once entered stays; a REF stays one
            entry = self.entry_of(n)
            assert entry is not None and (kind == "UREF" or entry.kind == "REF"), (n, text)
        assert [e.number for e in doc.confirmed] == list(range(1, len(doc.confirmed) + 1))
        moved = [
            int(number)
            for e in doc.confirmed
            for number in re.findall(r"UREF-(\d+)", e.field("Moved from") or "")
        ]
        assert len(moved) == len(set(moved)), text
        moved = set(moved)
        present = [e.number for e in doc.unconfirmed]
        assert len(present) == len(set(present)) and not moved & set(present)
        assert moved | set(present) == set(range(1, doc.high_water("UREF") + 1)), text
        for note in self.notes:
            assert note in text


def same(a: str, b: str) -> bool:
    return normalise_title(a) == normalise_title(b)


FollowUps.TestCase.settings = settings(
    max_examples=examples(200),
    stateful_step_count=10,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
test_follow_up_searches_keep_each_paper_once = FollowUps.TestCase


def test_a_note_under_a_uref_moves_with_it_when_it_is_promoted():
    """Found by the machine above: a UREF promoted to a REF by a later search lost the note a
    person had written under its heading (it moves into the REF, as its number does)."""
    state = FollowUps()
    try:
        state.start()
        state.fail(service="arxiv")
        state.search(focus=False, kept=[], remembered=[(0, True, True)])
        state.recover(service="arxiv")
        state.note_under_an_entry(where=3)
        assert "UREF-001" in state.path.read_text(encoding="utf-8")
        state.search(focus=False, kept=[5], remembered=[])
        text = state.path.read_text(encoding="utf-8")
        assert "Moved from:** UREF-001" in text and "number 1." in text
        state.each_paper_once_numbers_without_gaps_nothing_lost()
    finally:
        state.teardown()
