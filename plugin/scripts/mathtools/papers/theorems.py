"""Theorem-like statements of a paper's LaTeX source, numbered as LaTeX prints them.

`extract(members)` is a pure function: the archive's members (file name -> bytes) in, an
Extraction out. texsource.py makes the document (main file, inputs, comments, dead branches),
texmacros.py reads its macros; this module reads what numbers statements, in document order, as
LaTeX would:

- Declarations: `\\newtheorem{env}[shared]{Name}`, `\\newtheorem{env}{Name}[within]`,
  `\\newtheorem*` (unnumbered), Springer's `\\spnewtheorem`, thmtools' `\\declaretheorem[...]`,
  aliascnt's `\\newaliascnt` (a shared counter under another name); `\\theoremstyle` is recorded
  with each declaration (ntheorem's `nonumber...` styles declare unnumbered environments). A
  display name is read as text (`{\\bf Theorem}` is "Theorem", `Th\\'eor\\`eme` is "Théorème").
- Counters: `\\section` and the other levels step and reset as the class does (chapters in book
  and report classes); `\\section*` steps nothing; `\\appendix` (also `\\begin{appendix}` and the
  appendix package's `appendices`) restarts the top level in capital letters; `\\numberwithin`,
  `\\counterwithin`/`without`, `\\setcounter`, `\\addtocounter`, `\\stepcounter`,
  `\\renewcommand{\\thesection}{...}` are followed; displayed equations step `equation` (one per
  numbered row of align and its kind) for statements that share its counter.
- Shorthands: a paper macro whose body opens or closes an environment or a section is
  expanded where it is used, as TeX would, before statements are looked for (texshorthands.py).
- A statement: `\\begin{env}` of a declared environment (`env*` of a declared `env`, undeclared, is
  taken as its unnumbered form), inside the document body; its `[note]`, the `\\label` it carries
  (not one of an equation or a list inside it), and its body as LaTeX without \\label commands
  (at most MAX_TEXT_CHARS of it; more than MAX_STATEMENTS statements is refused as no paper's).

Numbers are computed, never read from labels or the .aux. What is not followed: a class's own
predefined theorems (llncs, svjour), counters changed by arbitrary TeX code, `\\newenvironment`
wrappers around a theorem environment.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TypedDict

from ..core import ServiceError, strip_latex
from . import texsource
from .texcounters import (
    EQUATION_ONE,
    EQUATION_ROWS,
    Counters,
    appendix,
    count_equation,
    matching_end,
)
from .texmacros import Macro
from .texshorthands import DefinitionSpans, expand_shorthands
from .texsource import Document, MissingInput

CHAPTER_CLASSES = frozenset(
    {"book", "report", "amsbook", "memoir", "scrbook", "scrreprt", "ociamthesis", "thesis"}
)
SECTION_LEVELS = ("part", "chapter", "section", "subsection", "subsubsection", "paragraph")
UNNUMBERED_STYLES = ("nonumberplain", "nonumberbreak")
MAX_STATEMENTS = 5000  # more is no paper (the five recorded ones hold 4 to 93)
MAX_TEXT_CHARS = 20_000  # of a statement's body (the recorded ones are under 1,500)
MAX_MACROS = 10_000  # listed at most

_EVENT = re.compile(
    r"\\(?P<command>newtheorem|spnewtheorem|declaretheorem|newaliascnt|numberwithin"
    r"|counterwithin|counterwithout|theoremstyle|setcounter|addtocounter|stepcounter"
    r"|refstepcounter|part|chapter|section|subsection|subsubsection|appendix|begin|end)"
    r"(?![A-Za-z@])(?P<star>\*?)"
)
_CLASS = re.compile(r"\\document(?:class|style)\s*(?:\[[^\]]*\])?\s*\{\s*([^}\s]*)\s*\}")
_LABEL = re.compile(r"\\label\s*\{([^{}]*)\}")
_NESTING = re.compile(r"\\(begin|end)\s*\{[^{}]*\}|\\\[|\\\]|\$\$")


class Statement(TypedDict):
    """One theorem-like statement, as the PDF heads it and the source writes it."""

    env: str  # the environment as written (after shorthands are expanded)
    name: str  # the head's words: "Theorem"
    number: str | None  # "2.3", "A.1"; None when unnumbered
    printed: str  # "Theorem 2.3" (or "Theorem" when unnumbered)
    note: str | None  # the [...] argument, as LaTeX
    label: str | None
    source_file: str
    source_line: int
    text: str  # the body as LaTeX, \label commands removed


class TheoremEnvironment(TypedDict):
    """A declared theorem-like environment."""

    env: str
    name: str
    numbered: bool
    counter: str | None  # the counter it steps (another environment's when shared)
    within: str | None  # the counter that resets it
    style: str | None  # the \theoremstyle in force when it was declared
    source_file: str
    source_line: int


class TooManyStatements(ServiceError):
    """A source with more statements than any paper holds (a hostile or broken archive): one line,
    exit 3, like any answer that cannot be read."""

    default_code = "too_many_statements"


@dataclass
class Extraction:
    main_file: str | None
    statements: list[Statement]
    environments: list[TheoremEnvironment]
    missing_inputs: list[MissingInput]
    macros: list[Macro]
    files_read: list[str]


# --- reading the document ------------------------------------------------------------------------


@dataclass
class _State:
    counters: Counters
    environments: dict[str, TheoremEnvironment] = field(default_factory=dict)
    style: str | None = None
    in_body: bool = False
    equations_held_until: int = -1  # inside subequations: its displays do not step equation


def extract(members: Mapping[str, bytes]) -> Extraction:
    """The statements of an archive's members (see the module docstring)."""
    document = texsource.build(members)
    if document.main_file is None:
        return Extraction(None, [], [], [], [], [])
    found = expand_shorthands(document)
    macros = [definition.macro for definition in found[:MAX_MACROS]]
    protected = DefinitionSpans(found)
    text = document.text
    theme = _CLASS.search(text)
    chapters = bool(theme and theme.group(1) in CHAPTER_CLASSES)
    if theme and not chapters and theme.group(1) not in ("article", "amsart", "revtex4"):
        chapters = bool(re.search(r"\\chapter(?![A-Za-z@])", text))
    state = _State(Counters.for_class(chapters))
    state.in_body = not texsource.BEGIN_DOCUMENT.search(text)  # a bare fragment: all body
    templates = {
        d.start: d
        for d in found
        if d.macro["kind"] != "let" and d.macro["name"].startswith("\\the")
    }
    starts = sorted(templates)
    statements: list[Statement] = []
    events = [m for m in _EVENT.finditer(text) if m.start() not in protected]
    next_template = 0
    for match in events:
        while next_template < len(starts) and starts[next_template] < match.start():
            _set_template(state, templates[starts[next_template]].macro)
            next_template += 1
        if _event(state, document, match, macros, statements) == "end":
            break
    return Extraction(
        document.main_file,
        statements,
        list(state.environments.values()),
        document.missing,
        macros,
        document.files_read,
    )


def _set_template(state: _State, macro: Macro) -> None:
    name = macro["name"][len("\\the") :]
    if name and macro["arguments"] == 0:
        state.counters.template[name] = macro["body"]


def _event(
    state: _State,
    document: Document,
    match: re.Match[str],
    macros: list[Macro],
    statements: list[Statement],
) -> str | None:
    """Apply one command to the state; "end" at \\end{document}."""
    text = document.text
    command = match.group("command")
    starred = bool(match.group("star"))
    position = match.end()
    counters = state.counters
    if command in ("begin", "end"):
        name = texsource.read_argument(text, position)
        if name is None:
            return None
        env = name[0].strip()
        if command == "end":
            return "end" if env == "document" and state.in_body else None
        if env == "document":
            state.in_body = True
        elif env in ("appendix", "appendices"):
            appendix(counters)
        elif env == "subequations":
            counters.step("equation")
            state.equations_held_until = matching_end(text, name[1], env)
        elif env in EQUATION_ONE or env in EQUATION_ROWS:
            if match.start() > state.equations_held_until:
                count_equation(counters, text, name[1], env)
        elif state.in_body:
            statement = _statement(state, document, match.start(), env, name[1])
            if statement is not None:
                if len(statements) >= MAX_STATEMENTS:
                    raise TooManyStatements(
                        f"the source holds more than {MAX_STATEMENTS:,} theorem-like statements: "
                        "not a paper's, not read",
                        code="too_many_statements",
                    )
                statements.append(statement)
        return None
    if command in SECTION_LEVELS:
        if not starred and counters.known(command):
            counters.step(command)
    elif command == "appendix":
        appendix(counters)
    elif command in ("newtheorem", "spnewtheorem", "declaretheorem"):
        _declare(state, document, match, macros)
    elif command == "theoremstyle":
        style = texsource.read_argument(text, position)
        state.style = style[0].strip() if style else state.style
    else:
        _counter_command(counters, command, starred, text, position)
    return None


def _counter_command(counters: Counters, command: str, starred: bool, text: str, at: int) -> None:
    first = texsource.read_argument(text, at)
    if first is None:
        return
    name = first[0].strip()
    if command in ("stepcounter", "refstepcounter"):
        if counters.known(name):
            counters.step(name)
        return
    second = texsource.read_argument(text, first[1])
    if second is None:
        return
    other = second[0].strip()
    if command == "newaliascnt":
        counters.alias[name] = other
    elif command in ("numberwithin", "counterwithin") and counters.known(name):
        counters.parent[counters.resolve(name)] = other
        if not starred:
            counters.template[name] = rf"\the{other}.\arabic{{{name}}}"
    elif command == "counterwithout" and counters.known(name):
        counters.parent[counters.resolve(name)] = None
        if not starred:
            counters.template[name] = rf"\arabic{{{name}}}"
    elif command in ("setcounter", "addtocounter") and counters.known(name):
        value = _integer(counters, other)
        if value is not None:
            base = counters.value[counters.resolve(name)] if command == "addtocounter" else 0
            counters.set(name, base + value)


def _integer(counters: Counters, text: str) -> int | None:
    text = text.strip()
    value = re.fullmatch(r"\\value\s*\{\s*([^}\s]+)\s*\}", text)
    if value:
        return counters.value.get(counters.resolve(value.group(1)), 0)
    return int(text) if re.fullmatch(r"[-+]?\d{1,6}", text) else None


# --- declarations and statements -----------------------------------------------------------------


def _declare(state: _State, document: Document, match: re.Match[str], macros: list[Macro]) -> None:
    text = document.text
    command = match.group("command")
    position = match.end()
    starred = bool(match.group("star"))
    shared = within = None
    numbered = not starred
    style = state.style
    if command == "declaretheorem":
        options = texsource.read_optional(text, position)
        if options:
            position = options[1]
        env_arg = texsource.read_argument(text, position)
        if env_arg is None:
            return
        env = env_arg[0].strip()
        after = texsource.read_optional(text, env_arg[1], allow_newline=False)
        values = _options((options[0] if options else "") + "," + (after[0] if after else ""))
        display = values.get("name") or values.get("title") or values.get("heading")
        display = display or env[:1].upper() + env[1:]
        within = values.get("numberwithin") or values.get("within") or values.get("parent")
        shared = values.get("sibling") or values.get("sharenumber") or values.get("numberlike")
        numbered = numbered and values.get("numbered", "yes") != "no"
        style = values.get("style", style)
    else:
        env_arg = texsource.read_argument(text, position)
        if env_arg is None:
            return
        env = env_arg[0].strip()
        position = env_arg[1]
        if not starred:
            optional = texsource.read_optional(text, position)
            if optional:
                shared, position = optional[0].strip(), optional[1]
        display_arg = texsource.read_argument(text, position)
        if display_arg is None:
            return
        display = display_arg[0]
        if not starred and shared is None:
            optional = texsource.read_optional(text, display_arg[1], allow_newline=False)
            within = optional[0].strip() if optional else None
    if style and style.startswith(UNNUMBERED_STYLES):
        numbered = False
    counters = state.counters
    counter = None
    if numbered:
        if shared and counters.known(shared):
            counter = counters.resolve(shared)
        else:
            counter = env
            template = rf"\the{within}.\arabic{{{env}}}" if within else None
            counters.define(env, within, template)
    file, line = document.where(match.start())
    state.environments[env] = TheoremEnvironment(
        env=env,
        name=_display(display, macros),
        numbered=numbered,
        counter=counter,
        within=within if counter == env else counters.parent.get(counter or ""),
        style=style,
        source_file=file,
        source_line=line,
    )


def _options(text: str) -> dict[str, str]:
    values = {}
    for part in re.split(r",(?![^{]*\})", text):
        key, _, value = part.partition("=")
        if key.strip():
            values[key.strip().lower()] = value.strip().strip("{}").strip()
    return values


def _display(name: str, macros: list[Macro]) -> str:
    """A display name as the head prints it: font commands dropped, accents as letters, the
    paper's own argument-free macros (a babel-minded `\\thmname`) expanded."""
    simple = {m["name"]: m["body"] for m in macros if m["arguments"] == 0 and m["kind"] != "let"}
    for _ in range(3):
        expanded = re.sub(r"\\[A-Za-z@]+", lambda m: simple.get(m.group(), m.group()), name)
        if expanded == name:
            break
        name = expanded
    return " ".join(strip_latex(name).split())


def _statement(
    state: _State, document: Document, start: int, env: str, body_start: int
) -> Statement | None:
    declared = state.environments.get(env)
    numbered = True
    if declared is None and env.endswith("*"):
        declared = state.environments.get(env[:-1])
        numbered = False
    if declared is None:
        return None
    text = document.text
    number = None
    if numbered and declared["numbered"] and declared["counter"]:
        state.counters.step(declared["counter"])
        number = state.counters.render(declared["counter"])
    end = matching_end(text, body_start, env)
    note = None
    optional = texsource.read_optional(text, body_start)
    if optional is not None and optional[1] <= end:
        note, body_start = optional
    body = text[body_start : min(end, body_start + MAX_TEXT_CHARS)]
    label = _own_label(body)
    file, line = document.where(start)
    name = declared["name"]
    return Statement(
        env=env,
        name=name,
        number=number,
        printed=f"{name} {number}".strip() if number else name,
        note=note,
        label=label,
        source_file=file,
        source_line=line,
        text=_LABEL.sub("", body).strip(),
    )


def _own_label(body: str) -> str | None:
    """The statement's own \\label: the first outside nested environments and displays."""
    depth = 0
    display = False
    position = 0
    for label in _LABEL.finditer(body):
        for nesting in _NESTING.finditer(body, position, label.start()):
            token = nesting.group()
            if token.startswith("\\begin"):
                depth += 1
            elif token.startswith("\\end"):
                depth = max(depth - 1, 0)
            else:
                display = not display if token == "$$" else token == "\\["
        position = label.start()
        if depth == 0 and not display:
            return label.group(1).strip()
    return None
