"""A paper's bibliography, read from its files before any check: what /math:check-refs is given
(a .bib, .bbl, .ltb or .tex; a .tex brings the .bib files it names and the keys it cites), or an
arXiv paper's source held in memory (`load_source`). Each file is read through the format
registry (formats.py); the gate checks what `load` returns (gate/refcheck.py).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..core import BadInput, InputFile, cited_keys, resolved, strip_comments
from .bibentry import BibliographyEntry, read_file
from .bibtexfile import BibFile
from .formats import SUFFIXES, FileEntries, no_entry_message, read_entries

_BIB_RESOURCE = re.compile(r"\\(?:bibliography|addbibresource)\s*(?:\[[^\]]*\])?\s*\{([^}]+)\}")


@dataclass
class Bibliography:
    """What the given files hold, read and checked before any network call."""

    files: list[InputFile] = field(default_factory=list)
    bibs: list[BibFile] = field(default_factory=list)
    references: list[BibliographyEntry] = field(
        default_factory=list
    )  # each key once, in file order
    repeated: list[BibliographyEntry] = field(default_factory=list)  # a later entry with a used key
    cited: dict[str, tuple[str, int]] = field(default_factory=dict)  # key -> (.tex, line)
    paper_read: bool = False  # a paper's LaTeX was read: `cited` holds what it cites
    not_cited: list[str] = field(default_factory=list)  # left out by --cited-only
    warnings: list[str] = field(default_factory=list)  # read anyway, as BibTeX warns

    def add(self, found: FileEntries, file: str, kind: str) -> None:
        """One file's entries: a key already held is a repeated entry (only the first is
        checked)."""
        held = {reference.key for reference in self.references}
        for reference in found.references:
            if reference.key in held:
                self.repeated.append(reference)
            else:
                held.add(reference.key)
                self.references.append(reference)
        self.repeated += found.repeated
        self.warnings += found.warnings
        if found.bib is not None:
            self.bibs.append(found.bib)
        self.files.append({"file": file, "kind": kind, "entries": len(found.references)})


def tex_bib_files(path: Path, text: str) -> list[Path]:
    """The .bib files a .tex names (\\bibliography{a,b}, \\addbibresource{c.bib}), beside it."""
    found = []
    for group in _BIB_RESOURCE.findall(strip_comments(text)):
        for name in (n.strip() for n in group.split(",")):
            if name:
                found.append(path.parent / (name if name.endswith(".bib") else f"{name}.bib"))
    return list(dict.fromkeys(found))


Where = Callable[[int], tuple[str, int]]  # a line of a spliced text -> (file, line)


def load_bibliography(
    paths: list[str],
    cited_only: bool = False,
    spliced: Mapping[str, tuple[str, Where]] | None = None,
) -> Bibliography:
    """Read every file (a .tex brings the .bib files it names, else the .bbl LaTeX made beside
    it, or its \\bibitems); BadInput for the first file that cannot be used, before any work.
    `spliced`: a .tex's text with its inputs spliced in (papers/localpaper.py) and where each of
    its lines comes from, read for its citations, .bib names and \\bibitems instead of the file
    alone."""
    result = Bibliography()
    read: set[Path] = set()
    for name in paths:
        path = Path(name)
        kind = path.suffix.lower().lstrip(".")
        if path.suffix.lower() not in SUFFIXES:
            raise BadInput(
                f"{name}: give a {', '.join(SUFFIXES[:-1])} or {SUFFIXES[-1]} file (a "
                "bibliography or the paper citing it)",
                code="bad_input_kind",
            )
        if kind == "tex":
            result.paper_read = True
            text, where = (spliced or {}).get(name) or (
                read_file(path, "LaTeX file"),
                _in_file(path.name),
            )
            for key, line in _citations(text).items():
                file, number = where(line)
                result.cited.setdefault(key, (str(path.parent / file), number))
            named = tex_bib_files(path, text)
            bbl = path.with_suffix(".bbl")
            absent = [bib_path for bib_path in named if not bib_path.is_file()]
            if absent and bbl.is_file():  # the .bib is not shipped: the .bbl LaTeX made from it
                names = ", ".join(bib_path.name for bib_path in absent)
                result.warnings.append(
                    f"{names} (\\bibliography of {path.name}) is not there: read {bbl.name}, "
                    "which LaTeX made from it; no corrected copy can be written"
                )
                if resolved(bbl) not in read:
                    read.add(resolved(bbl))
                    result.add(_entries_of(bbl), str(bbl), "bbl")
                continue
            for bib_path in named:
                if resolved(bib_path) not in read:
                    read.add(resolved(bib_path))
                    result.add(_entries_of(bib_path), str(bib_path), "bib")
            if not named:
                found = read_entries(path, text)
                if not found.references and not result.cited:
                    raise BadInput(
                        f"{path} names no .bib file (\\bibliography{{...}}, \\addbibresource) "
                        "and holds no \\bibitem or amsrefs \\bib entry",
                        code="no_entries",
                    )
                for reference in found.references:
                    file, reference.line = where(reference.line)
                    reference.file = str(path.parent / file)
                result.add(found, str(path), kind)
        elif resolved(path) not in read:
            read.add(resolved(path))
            result.add(_entries_of(path), str(path), kind)
    if cited_only:
        if not any(p.lower().endswith(".tex") for p in paths):
            raise BadInput("--cited-only needs the .tex file that cites", code="usage")
        keep_cited(result)
    return result


def _in_file(name: str) -> Where:
    """A line of a file read alone -> (its name, that line)."""
    return lambda line: (name, line)


def _entries_of(path: Path) -> FileEntries:
    """The entries of a bibliography file; BadInput when it holds none."""
    found = read_entries(path)
    if not found.references:
        raise BadInput(no_entry_message(path), code="no_entries")
    return found


def keep_cited(result: Bibliography) -> None:
    """--cited-only: the entries the paper cites stay, the others are listed as not cited."""
    result.not_cited = [r.key for r in result.references if r.key not in result.cited]
    result.references = [r for r in result.references if r.key in result.cited]


def load_source(
    label: str,
    main: str,
    tex: str,
    members: dict[str, str],
    where: Callable[[int], tuple[str, int]] | None = None,
) -> Bibliography:
    """The bibliography of a paper's source held in memory (an arXiv source: never written to
    disk): `tex` is its main file `main` with the inputs spliced in, `members` its other text
    files by name, `where` maps a line of `tex` to (file, line). The .bib files `tex` names,
    else the .bbl files the source ships, else its thebibliography or amsrefs entries; a named
    .bib the source lacks is a warning (arXiv keeps the .bbl, often not the .bib). Entries and
    citations name their place as `label/file`."""
    result = Bibliography(paper_read=True)
    here = where or (lambda line: (main, line))
    for key, line in _citations(tex).items():
        file, number = here(line)
        result.cited.setdefault(key, (f"{label}/{file}", number))

    def add(name: str, text: str, kind: str) -> list[BibliographyEntry]:
        found = read_entries(Path(label, name), text)
        found.bib = None  # held in memory: there is no file to write a corrected copy of
        result.add(found, f"{label}/{name}", kind)
        return found.references

    folder = posixpath.dirname(main)
    named = [
        posixpath.normpath(posixpath.join(folder, p.as_posix())) for p in tex_bib_files(Path(), tex)
    ]
    held = [name for name in named if name in members]
    for name in held:
        add(name, members[name], "bib")
    if not held:
        bbls = sorted(name for name in members if name.lower().endswith(".bbl"))
        for name in bbls:
            add(name, members[name], "bbl")
        if not bbls:
            found = read_entries(Path(label, main), tex)
            for reference in found.references:
                file, line = here(reference.line)
                reference.file, reference.line = f"{label}/{file}", line
            if found.references or not named:
                result.add(found, f"{label}/{main}", "tex")
    lacking = [name for name in named if name not in members]
    if lacking and not result.references:
        result.warnings.append(
            f"{label} names {', '.join(lacking)} (\\bibliography), which its source does not "
            "hold, and ships no .bbl: its cited keys cannot be checked"
        )
    return result


def _citations(tex: str) -> dict[str, int]:
    """Each cited key (core/tex.cited_keys) with the line of its first citation."""
    body = strip_comments(tex)
    lines = {}
    for key in cited_keys(tex):
        found = re.search(r"\\[a-zA-Z]*cite[a-zA-Z]*\*?[^{]*\{[^}]*\b" + re.escape(key), body)
        lines[key] = body.count("\n", 0, found.start()) + 1 if found else 1
    return lines
