"""The search folder, the one model every phase of a literature search shares.

Each literature search gets its own search folder `.math/problems/<slug>/literature-runs/<N>/`
(which problem: problemdir.py) for the discovery and verification files (never the plugin folder,
which may be read-only and is shared by every workspace). `search.json` there (Search) says which
problem it is for and which runs each iteration of the refinement loop recorded; the phases
(discovery, judging, confirmation, recording) take only the folder and stand side by side: none
imports another. A paper both sources returned is one FoundPaper: records are the same paper when
they share an identity key (arXiv id, DOI, S2 id, or title + first author + year:
litdoc/identity.paper_identity).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

from ..core import (
    TAGS,
    BadInput,
    Judgement,
    PaperDict,
    dumps,
    is_digits,
    read_text,
    schema_errors,
    shown,
    summary_line,
    write_file,
)
from ..litdoc import Key, entry_identity, load_literature, paper_identity
from . import abstracts

if TYPE_CHECKING:  # the store is opened by the phases; this module only reads what they give it
    from .store import RunStore

MANIFEST = "search.json"
CANDIDATES = "candidates.json"  # what verify checked
VERIFIED = "verified.json"  # what verify found, which finish merges
MEMORY_SOURCE = "memory"  # the source of a candidate the model remembers (memory-N)
STATEMENTS = (
    "statements.json"  # arXiv id -> the statements of its LaTeX source, as verify read them
)
TITLE_WIDTH = 80  # how much of a title a listed line shows


class LatexSourceStatement(TypedDict):
    printed: str  # "Theorem 2.3", as LaTeX numbers it
    env: str
    note: str | None
    text: str  # LaTeX, as the source writes it


class PaperStatements(TypedDict):
    """One paper's entry of statements.json."""

    src: str  # the arXiv LaTeX source URL read
    statements: list[LatexSourceStatement]
    missing: str | None  # why there are none to quote (no LaTeX source, a failing service)


# The statements verify lists to quote from, per paper: the main results first, in the paper's
# order. merge keeps every one of them in the paper's REF, so that a later search may quote it.
LISTED_KINDS = ("theorem", "proposition", "corollary", "conjecture", "lemma")
LISTED_STATEMENTS = 8


def listed_statements(record: PaperStatements) -> list[LatexSourceStatement]:
    """The statements of a paper verify lists (and merge keeps): at most LISTED_STATEMENTS,
    theorems first, then propositions, ..., in the paper's order."""
    chosen: list[LatexSourceStatement] = []
    for kind in LISTED_KINDS:
        chosen += [
            s
            for s in record["statements"]
            if s["env"].lower().startswith(kind[:4]) and s not in chosen
        ]
        if len(chosen) >= LISTED_STATEMENTS:
            break
    return sorted(chosen[:LISTED_STATEMENTS], key=record["statements"].index)


def new_search_folder(problem_folder: Path) -> Path:
    """Create and return a fresh search folder `problem_folder/literature-runs/<N>/`, N one more
    than the highest there, relative to the working directory when it lies below it. Short names
    on purpose: the model reads and types this path in every call of the search."""
    base = problem_folder / "literature-runs"
    base.mkdir(parents=True, exist_ok=True)
    taken = [int(p.name) for p in base.iterdir() if is_digits(p.name)]
    for number in range(max(taken, default=0) + 1, max(taken, default=0) + 100):
        folder = base / str(number)
        try:
            folder.mkdir()  # a concurrent plan took it: try the next number
            return shorter(folder)
        except FileExistsError:
            continue
    raise BadInput(f"cannot create a search folder under {base}", code="search_folder")


def given_search_folder(problem_folder: Path, name: str) -> str:
    """A --search-folder the user named: it must lie under `problem_folder/literature-runs/`
    (links followed), never elsewhere (`../PWNED`); BadInput otherwise."""
    base = problem_folder / "literature-runs"
    try:
        inside = Path(name).resolve().is_relative_to(base.resolve())
    except (OSError, RuntimeError, ValueError):  # a link loop, a NUL
        inside = False
    if not inside or Path(name).resolve() == base.resolve():
        raise BadInput(
            f"--search-folder {shown(name)} is not under {base}/: give a folder there "
            "(--new-run makes one)",
            code="search_folder",
        )
    return name


def write_json(path: Path, data: object) -> None:
    write_file(path, dumps(data))


def shorter(path: Path) -> Path:
    """`path` relative to the working directory if it lies below it, else as it is."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return path


@dataclass
class Search:
    """One literature search: its problem, search folder and the runs of each iteration
    (schemas/search.schema.json)."""

    problem: str
    search_folder: str
    literature: str
    domain: str | None
    first_search: bool
    per_query: int
    references: str | None = None  # PROBLEM.md's references, as candidates to verify
    iterations: list[dict[str, Any]] = field(default_factory=list)  # {number, runs, failed}
    journal: str | None = None  # the LIT entry `finish` recorded (a search is recorded once)
    focus: str | None = None  # a focus or gap search's focus: its papers are judged against it

    @property
    def folder(self) -> Path:
        return Path(self.search_folder)

    @property
    def iteration(self) -> int:
        return self.iterations[-1]["number"] if self.iterations else 0

    def run_ids(self, iteration: int | None = None) -> list[int]:
        return [
            run_id
            for item in self.iterations
            if iteration is None or item["number"] == iteration
            for run_id in item["runs"]
        ]

    def failed(self) -> dict[str, str]:
        """Source -> why it failed, over every iteration (the journal entry names them)."""
        return {source: why for item in self.iterations for source, why in item["failed"].items()}

    def judgements_file(self, iteration: int | None = None) -> Path:
        return self.folder / f"judgements-i{iteration or self.iteration}.json"

    def save(self) -> None:
        write_json(self.folder / MANIFEST, asdict(self))

    def check_open(self, doing: str) -> None:
        """BadInput when `finish` has recorded this search: a finished search takes no more
        iterations and no more judgements (a follow-up is a new search)."""
        if self.journal:
            raise BadInput(
                f"{self.search_folder} is finished (recorded as {self.journal}): no more "
                f"{doing}; start a follow-up search with `literature.py discover`",
                code="finished",
            )

    @classmethod
    def load(cls, search_folder: str) -> Search:
        path = Path(search_folder) / MANIFEST
        if not path.exists():
            raise BadInput(
                f"{search_folder} is not a search's search folder (no {MANIFEST}): give the folder "
                "`literature.py discover` printed",
                code="not_a_search",
            )
        try:
            data = json.loads(read_text(path, MANIFEST))
        except ValueError as exc:
            raise BadInput(f"{path} is damaged: {exc}", code="bad_search") from None
        if isinstance(data, dict) and "run_dir" in data:  # a search.json from before the rename
            data["search_folder"] = data.pop("run_dir")
        problems = schema_errors("search", data)
        if problems:
            raise BadInput(f"{path} is damaged: {problems[0]}", code="bad_search")
        return cls(**data)


@dataclass
class FoundPaper:
    """A distinct paper of an iteration: the key shown, its first record, the runs' keys."""

    key: str
    record: PaperDict
    sources: list[str] = field(default_factory=list)
    members: list[tuple[int, str]] = field(default_factory=list)  # (run_id, key in that run)

    def line(self) -> str:
        tags = "+".join(TAGS.get(s, s) for s in self.sources)
        head = summary_line({**self.record, "key": self.key}, TITLE_WIDTH)
        said = abstracts.gist(self.record.get("abstract"))
        return f"{head} [{tags}]" + (f" — {said}" if said else " — (no abstract)")


def distinct(papers_by_run: list[tuple[int, str, dict[str, PaperDict]]]) -> list[FoundPaper]:
    """The distinct papers of runs given as (run_id, source, key -> record), in order of first
    appearance: records sharing an identity key are one paper (its gist from the first record
    that has an abstract)."""
    found: list[FoundPaper] = []
    by_identity: dict[Key, FoundPaper] = {}
    for run_id, source, papers in papers_by_run:
        for key, record in papers.items():
            identity = paper_identity(record) or [("key", key)]
            paper = next((by_identity[i] for i in identity if i in by_identity), None)
            if paper is None:
                paper = FoundPaper(key, record)
                found.append(paper)
            if source not in paper.sources:
                paper.sources.append(source)
            if record.get("abstract") and not paper.record.get("abstract"):
                paper.record = {**paper.record, "abstract": record["abstract"]}  # for the gist
            paper.members.append((run_id, key))
            for item in identity:
                by_identity.setdefault(item, paper)
    return found


def iteration_papers(store: RunStore, search: Search, iteration: int) -> list[FoundPaper]:
    runs = [store.run(run_id) for run_id in search.run_ids(iteration)]
    return distinct([(run["run_id"], run["source"], store.papers(run["run_id"])) for run in runs])


def identities(paper: FoundPaper) -> list[Key]:
    return paper_identity(paper.record) or [("key", paper.key)]


def earlier_identities(store: RunStore, search: Search, number: int) -> dict[Key, Judgement]:
    """Identity key -> judgement, for the papers judged in this search's iterations before
    `number` (a paper found again is not judged again: its label carries over)."""
    judged: dict[Key, Judgement] = {}
    for item in search.iterations:
        if item["number"] >= number:
            continue
        for run_id in item["runs"]:
            for judgement in store.judgements(run_id):
                for identity in paper_identity(judgement["record"]) or [("key", judgement["key"])]:
                    judged.setdefault(identity, judgement)
    return judged


def check_judged(store: RunStore, search: Search, then: str) -> None:
    """BadInput unless every paper of the search's runs is judged: a paper left unjudged would
    drop out of the loop's decision and of verification."""
    for run_id in search.run_ids():
        if store.unjudged(run_id):
            raise BadInput(
                f"iteration {search.iteration} is not judged yet: write "
                f"{search.judgements_file()} and run `literature.py judge` before {then}",
                code="not_judged",
            )


def recorded_refs(search: Search) -> dict[Key, str]:
    """Identity key -> entry number (`REF-003`) of every confirmed reference LITERATURE.md
    already records: a follow-up search lists these papers as recorded, never for judgement."""
    path = Path(search.literature)
    if not path.exists():
        return {}
    found: dict[Key, str] = {}
    for entry in load_literature(path).confirmed:
        for key in entry_identity(entry):
            found.setdefault(key, entry.entry_number)
    return found


def recorded_as(record: PaperDict, key: str, recorded: dict[Key, str]) -> str | None:
    """The REF a paper's record is recorded as, if any."""
    return next(
        (recorded[i] for i in paper_identity(record) or [("key", key)] if i in recorded), None
    )


def earlier_labels(store: RunStore, search: Search) -> dict[Key, Judgement]:
    """Identity key -> the latest judgement of the problem's earlier searches (runs not of this
    search): the label a recorded paper carries into a follow-up search."""
    mine = set(search.run_ids())
    judged: dict[Key, Judgement] = {}
    for run in store.runs(search.problem):
        if run["run_id"] in mine:
            continue
        for judgement in store.judgements(run["run_id"]):
            for identity in paper_identity(judgement["record"]) or [("key", judgement["key"])]:
                judged[identity] = judgement
    return judged
