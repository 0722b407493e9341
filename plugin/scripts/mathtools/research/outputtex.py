"""OUTPUT.tex as LaTeX reads it, for the write-up's check (texcheck.py) and its build (texbuild.py):
the files it reads in, which of its environments state claims, and what a check finds wrong
with it (TexViolation, which texcheck.py, texbuild.py and pdftext.py report).

- Files: `\\input`, `\\include` and `\\subfile` are followed, and so are a `\\usepackage`,
  `\\RequirePackage` or `\\documentclass` whose .sty or .cls is in the problem folder; a file
  outside the folder (an absolute name, `..`, a link leading out), a missing one, or a command
  that reads files the check cannot follow (`\\import`, `\\InputIfFileExists`, ...) is a problem.
- Claims: an environment states a claim by what LaTeX prints for it. The standard theorem, lemma,
  proposition and corollary, and every environment declared with \\newtheorem or
  \\declaretheorem, unless its printed name starts with a word of NOT_CLAIMS
  (`\\newtheorem{remark}[theorem]{Theorem}` is a Theorem; `\\newtheorem{thm}{Remark}` a Remark);
  and every environment whose definition (\\newenvironment, \\NewDocumentEnvironment, \\let)
  opens a claim environment. A command whose definition opens one (\\newcommand, \\def) hides
  the claim from the check: `claim_macros` names it, and the check refuses it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TypedDict

from ..core import BadInput, strip_comments

THEOREM_LIKE = ("theorem", "lemma", "proposition", "corollary")
# A declared environment whose printed name starts with one of these words states no claim.
NOT_CLAIMS = frozenset(
    {"conjecture", "conj", "remark", "rem", "definition", "defn", "def", "example", "exa", "ex"}
    | {"exercise", "notation", "note", "question"}
)
MAX_DEPTH = 10  # files reading files: deeper than this is refused (and TeX's own limit is 15)
_NEWTHEOREM = re.compile(
    r"\\newtheorem\*?\s*\{(?P<name>[^}]+)\}\s*(?:\[[^\]]*\]\s*)?\{(?P<title>[^}]*)\}"
    r"|\\declaretheorem\*?\s*(?:\[(?P<options>[^\]]*)\]\s*)?\{(?P<declared>[^}]+)\}"
)
_ENVIRONMENT_DEFINITION = re.compile(
    r"\\(?:re)?newenvironment\*?\s*\{(?P<env>[^}]+)\}"
    r"|\\(?:New|Renew|Provide|Declare)DocumentEnvironment\s*\{(?P<document_env>[^}]+)\}"
)
_COMMAND_DEFINITION = re.compile(
    r"\\(?:re|provide)?newcommand\*?\s*\{?\\(?P<cmd>[A-Za-z@]+)\}?"
    r"|\\(?:New|Renew|Provide|Declare)(?:Expandable)?DocumentCommand\s*\{?\\(?P<document_cmd>"
    r"[A-Za-z@]+)\}?"
    r"|\\[gex]?def\s*\\(?P<def>[A-Za-z@]+)"
)
_LET = re.compile(r"\\let\s*\\(?P<new>[A-Za-z@]+)\s*=?\s*\\(?P<old>[A-Za-z@]+)")
_INPUT = re.compile(
    r"\\(?P<command>input|include|subfile)\s*(?:\{(?P<braced>[^}]*)\}|(?P<bare>[^\s{}\\%]+))"
)
_PACKAGE = re.compile(
    r"\\(?P<command>usepackage|RequirePackage|documentclass)\s*(?:\[[^\]]*\]\s*)?\{(?P<names>[^}]*)\}"
)
_UNFOLLOWED = re.compile(
    r"\\(?:import|subimport|includefrom|subincludefrom|inputfrom|subinputfrom|InputIfFileExists"
    r"|IfFileExists|@input|@@input|openin|includestandalone|loadglsentries)\b"
)


class _TexViolation(TypedDict):
    kind: str
    message: str


class TexViolation(_TexViolation, total=False):
    """One thing wrong with a write-up (texcheck.check, texbuild.compile_violations, pdftext): its
    kind, the message that says what to do, and where it applies."""

    key: str  # the citation key (unknown_citation, unconfirmed_in_bib)
    command: str  # the command LaTeX would run (unsafe_bib)
    line: int  # the line of OUTPUT.tex or of the file read in
    environment: str  # the claim environment (unbacked_claim, speculative_as_theorem)
    labels: list[str]  # the claim's \label{...}s


def _spans(text: str, start: int, count: int) -> list[tuple[int, int]]:
    """The (start, end) of up to `count` brace groups from `start` on, braces included (skipping
    `[...]` options and `#1` parameter text between them): a definition's bodies."""
    found: list[tuple[int, int]] = []
    i = start
    while len(found) < count and i < len(text):
        char = text[i]
        if char == "{":
            depth, j = 0, i
            while j < len(text):
                depth += {"{": 1, "}": -1}.get(text[j], 0) if text[j - 1 : j] != "\\" else 0
                if depth == 0:
                    break
                j += 1
            found.append((i, j + 1))
            i = j + 1
        elif char == "[":
            close = text.find("]", i)
            i = close + 1 if close > 0 else len(text)
        elif char.isspace() or char in "#*0123456789":
            i += 1
        else:
            break
    return found


def _groups(text: str, start: int, count: int) -> str:
    """The text of those brace groups, one after the other."""
    return " ".join(text[a:b] for a, b in _spans(text, start, count))


def without_definitions(tex: str) -> str:
    """`tex` with the bodies of its environment and command definitions blanked (line breaks
    kept, so lines keep their numbers): a `\\begin{theorem}` inside one states nothing yet."""
    chars = list(tex)
    for pattern, count in ((_ENVIRONMENT_DEFINITION, 3), (_COMMAND_DEFINITION, 2)):
        for match in pattern.finditer(tex):
            for a, b in _spans(tex, match.end(), count):
                chars[a:b] = [c if c == "\n" else " " for c in tex[a:b]]
    return "".join(chars)


def _opens(body: str, claims: set[str]) -> bool:
    """Whether a definition body opens a claim environment (\\begin{lemma} or \\lemma)."""
    return any(
        re.search(
            r"\\begin\s*\{" + re.escape(env) + r"\*?\}|\\" + re.escape(env) + r"(?![A-Za-z@])", body
        )
        for env in claims
    )


def claim_environments(tex: str) -> list[str]:
    """The environments of `tex` that state claims (the module's docstring says which)."""
    tex = strip_comments(tex)
    names = dict.fromkeys(THEOREM_LIKE)
    for found in _NEWTHEOREM.finditer(tex):
        name = (found.group("name") or found.group("declared")).strip()
        printed = found.group("title") or ""
        if found.group("declared"):  # thmtools prints the name= option, else the name
            option = re.search(r"(?:name|title)\s*=\s*\{?([^,}]*)", found.group("options") or "")
            printed = option.group(1) if option else name
        first_word = (printed.split() or [name])[0].lower().strip(".:")
        if first_word in NOT_CLAIMS:
            names.pop(name, None)
        else:
            names.setdefault(name)
    grew = True
    while grew:  # a wrapper of a wrapper is a claim too
        before = len(names)
        for found in _ENVIRONMENT_DEFINITION.finditer(tex):
            name = (found.group("env") or found.group("document_env")).strip()
            if _opens(_groups(tex, found.end(), 3), set(names)):
                names.setdefault(name)
        for found in _LET.finditer(tex):
            if found.group("old") in names:
                names.setdefault(found.group("new"))
        grew = len(names) > before
    return list(names)


def claim_macros(tex: str) -> list[str]:
    """The commands `tex` defines to open a claim environment (`\\newcommand{\\thm}[1]{\\begin
    {theorem}#1\\end{theorem}}`): the check cannot see the claims they make."""
    tex = strip_comments(tex)
    claims = set(claim_environments(tex))
    found: dict[str, None] = {}
    for match in _COMMAND_DEFINITION.finditer(tex):
        name = match.group("cmd") or match.group("document_cmd") or match.group("def")
        if _opens(_groups(tex, match.end(), 2), claims):
            found.setdefault("\\" + name)
    return list(found)


def _inside(folder: Path, name: str) -> Path | None:
    """folder/name when it stays inside folder (links resolved), else None."""
    if not name or Path(name).is_absolute() or name.startswith("~"):
        return None
    path = (folder / name).resolve()
    return path if path.is_relative_to(folder.resolve()) else None


def read_in(folder: Path, tex: str) -> tuple[dict[str, str], list[str]]:
    """({name relative to folder: text} of every file `tex` reads in, followed in turn; the
    problems: each file that cannot be followed, one line each)."""
    files: dict[str, str] = {}
    problems: list[str] = []
    todo = [(tex, 0)]
    while todo:
        text, depth = todo.pop(0)
        body = strip_comments(text)
        for command in dict.fromkeys(m.group(0) for m in _UNFOLLOWED.finditer(body)):
            problems.append(
                f"OUTPUT.tex reads a file with {command}, which the check cannot follow: use "
                "\\input{file} with a file in the problem folder"
            )
        wanted = [
            (m.group("command"), (m.group("braced") or m.group("bare") or "").strip(), True)
            for m in _INPUT.finditer(body)
        ]
        for m in _PACKAGE.finditer(body):
            extension = ".cls" if m.group("command") == "documentclass" else ".sty"
            wanted += [
                (m.group("command"), n.strip() + extension, False) for n in m["names"].split(",")
            ]
        for command, name, required in wanted:
            if not required and not (folder / name).is_file():
                continue  # a package or class TeX itself provides
            candidates = [name] if name.endswith((".tex", ".sty", ".cls")) else [f"{name}.tex"]
            if command == "input" and not name.endswith(".tex"):
                candidates.append(name)  # \input tries name.tex, then name
            paths = [_inside(folder, candidate) for candidate in candidates]
            if any(path is None for path in paths):
                problems.append(
                    f"\\{command}{{{name}}} reads a file outside the problem folder: only files "
                    "in it may be read in"
                )
                continue
            path = next((p for p in paths if p is not None and p.is_file()), None)
            if path is None:
                problems.append(
                    f"\\{command}{{{name}}}: there is no {candidates[0]} in the problem folder"
                )
                continue
            relative = str(path.relative_to(folder.resolve()))
            if relative in files or relative == "OUTPUT.tex":
                continue
            if depth >= MAX_DEPTH:
                problems.append(
                    f"\\{command}{{{name}}} is read in {MAX_DEPTH} files deep: too deep to follow"
                )
                continue
            try:
                files[relative] = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise BadInput(f"cannot read {path}: {exc}", code="unreadable") from None
            todo.append((files[relative], depth + 1))
    return files, list(dict.fromkeys(problems))


def read_file(path: Path) -> str | None:
    """A file's text, None when it does not exist; BadInput when it cannot be read."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(f"cannot read {path}: {exc}", code="unreadable") from None


def included_files(folder: Path, tex: str) -> list[str]:
    """The files (relative to `folder`) that OUTPUT.tex's text `tex` reads in and the check
    follows."""
    return list(read_in(folder, tex)[0])
