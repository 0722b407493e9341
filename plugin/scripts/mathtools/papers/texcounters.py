"""LaTeX's counters as a document drives them: values, which counter resets which, how each
prints (its \\the template: `\\thesection.\\arabic{theorem}`), and the displayed equations that
step `equation`.

The defaults are the standard classes': `section` within `chapter` when the class has chapters,
`subsection` within `section` and so on down; `\\appendix` restarts the top level and prints it
in capital letters. A step resets the counters below it, and theirs (LaTeX since 2020 does so
too). A template is evaluated as LaTeX would print it: `\\arabic`, `\\roman`, `\\Roman`,
`\\alph`, `\\Alph`, `\\fnsymbol` (and their `\\@arabic\\c@x` forms), `\\the<counter>`,
literal text; other commands print nothing.

Equations: `equation`, `multline` (and breqn's `dmath`) step once unless `\\nonumber`,
`\\notag` or `\\tag` marks them; `align` and its kind step once per row that no such mark
ends (rows of a nested matrix are not rows of the display), an empty row after a final `\\\\`
too: LaTeX numbers it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

EQUATION_ROWS = frozenset({"align", "gather", "flalign", "alignat", "eqnarray", "xalignat"})
EQUATION_ONE = frozenset({"equation", "multline", "dmath"})
MAX_TEMPLATE_DEPTH = 8
MAX_RESET_DEPTH = 10

_TEMPLATE_TOKEN = re.compile(
    r"\\(?P<format>arabic|roman|Roman|alph|Alph|fnsymbol)\s*\{\s*(?P<counter>[^}\s]*)\s*\}"
    r"|\\@(?P<format2>arabic|roman|Roman|alph|Alph|fnsymbol)\s*\\c@(?P<counter2>[A-Za-z@]+)"
    r"|\\the(?P<the>[A-Za-z@]+)"
    r"|\\[A-Za-z@]+\*?\s*|\\(?P<symbol>.)|[{}]"
)
_ROW_END = re.compile(r"\\\\\*?(?:\s*\[[^\]]*\])?")
_UNNUMBERED = re.compile(r"\\(?:nonumber|notag|tag)(?![A-Za-z@])")
_ENVIRONMENT = re.compile(r"\\(begin|end)\s*\{\s*([^{}\s]+)\s*\}")
_FNSYMBOLS = ("", "*", "†", "‡", "§", "¶", "‖", "**", "††", "‡‡")


@dataclass
class Counters:
    """LaTeX's counters: values, what resets each, and how each prints (its \\the template)."""

    value: dict[str, int] = field(default_factory=dict)
    parent: dict[str, str | None] = field(default_factory=dict)
    template: dict[str, str] = field(default_factory=dict)
    alias: dict[str, str] = field(default_factory=dict)

    @classmethod
    def for_class(cls, chapters: bool) -> Counters:
        counters = cls()
        counters.define("part", None, r"\Roman{part}")
        top = None
        if chapters:
            counters.define("chapter", None, r"\arabic{chapter}")
            top = "chapter"
        counters.define("section", top, rf"\the{top}.\arabic{{section}}" if top else None)
        counters.define("subsection", "section", r"\thesection.\arabic{subsection}")
        counters.define("subsubsection", "subsection", r"\thesubsection.\arabic{subsubsection}")
        counters.define("paragraph", "subsubsection", r"\thesubsubsection.\arabic{paragraph}")
        counters.define("equation", top, rf"\the{top}.\arabic{{equation}}" if top else None)
        return counters

    def resolve(self, name: str) -> str:
        seen = 0
        while name in self.alias and seen < 10:
            name, seen = self.alias[name], seen + 1
        return name

    def known(self, name: str) -> bool:
        return self.resolve(name) in self.value

    def define(self, name: str, parent: str | None, template: str | None = None) -> None:
        self.value[name] = 0
        self.parent[name] = parent
        self.template[name] = template or rf"\arabic{{{name}}}"

    def step(self, name: str) -> None:
        name = self.resolve(name)
        self.value[name] = self.value.get(name, 0) + 1
        self._reset_below(name, 0)

    def _reset_below(self, name: str, depth: int) -> None:
        if depth > MAX_RESET_DEPTH:
            return
        for child, parent in self.parent.items():
            if parent == name and child != name:
                self.value[child] = 0
                self._reset_below(child, depth + 1)

    def set(self, name: str, value: int) -> None:
        self.value[self.resolve(name)] = value

    def render(self, name: str, depth: int = 0) -> str:
        """\\the<name>, as the document's templates print it."""
        if depth > MAX_TEMPLATE_DEPTH:
            return ""
        template = self.template.get(name)
        if template is None:
            resolved = self.resolve(name)
            template = self.template.get(resolved, rf"\arabic{{{resolved}}}")
        out = []
        position = 0
        for match in _TEMPLATE_TOKEN.finditer(template):
            out.append(template[position : match.start()])
            position = match.end()
            form = match.group("format") or match.group("format2")
            if form:
                counter = match.group("counter") or match.group("counter2")
                out.append(_format(self.value.get(self.resolve(counter), 0), form))
            elif match.group("the"):
                out.append(self.render(match.group("the"), depth + 1))
            elif match.group("symbol"):
                out.append(match.group("symbol"))
        out.append(template[position:])
        return "".join(out).replace("~", " ").strip()


def _format(value: int, form: str) -> str:
    if form == "arabic":
        return str(value)
    if form in ("alph", "Alph"):
        letter = chr(ord("a") + value - 1) if 1 <= value <= 26 else ""
        return letter.upper() if form == "Alph" else letter
    if form in ("roman", "Roman"):
        roman = _roman(value)
        return roman.upper() if form == "Roman" else roman
    return _FNSYMBOLS[value] if 0 <= value < len(_FNSYMBOLS) else str(value)


def _roman(value: int) -> str:
    if value <= 0:
        return ""
    out = []
    for number, letters in (
        (1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"),
        (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"),
    ):  # fmt: skip
        while value >= number:
            out.append(letters)
            value -= number
    return "".join(out)


def appendix(counters: Counters) -> None:
    top = "chapter" if "chapter" in counters.value else "section"
    counters.value[top] = 0
    counters.template[top] = rf"\Alph{{{top}}}"
    if top == "section":
        counters.value["subsection"] = 0


def count_equation(counters: Counters, text: str, body_start: int, env: str) -> None:
    """Step `equation` for a numbered display (each numbered row of an align-like one)."""
    body = text[body_start : matching_end(text, body_start, env)]
    rows = [body] if env in EQUATION_ONE else _ROW_END.split(_top_level(body))
    for row in rows:
        if not _UNNUMBERED.search(row):
            counters.step("equation")


def _top_level(body: str) -> str:
    """`body` without nested environments (a matrix's rows are not the display's)."""
    out = []
    depth = 0
    position = 0
    for match in re.finditer(r"\\(begin|end)\s*\{[^{}]*\}", body):
        if depth == 0:
            out.append(body[position : match.start()])
        depth += 1 if match.group(1) == "begin" else -1
        depth = max(depth, 0)
        position = match.end()
    if depth == 0:
        out.append(body[position:])
    return "".join(out)


@lru_cache(maxsize=8)
def _environment_ends(text: str) -> dict[int, int]:
    """For each `\\begin{env}` of `text`, the offset after it -> the offset of the `\\end{env}`
    closing it (one pass, nesting of each environment counted)."""
    ends: dict[int, int] = {}
    opened: dict[str, list[int]] = {}
    for match in _ENVIRONMENT.finditer(text):
        env = match.group(2)
        if match.group(1) == "begin":
            opened.setdefault(env, []).append(match.end())
        elif opened.get(env):
            ends[opened[env].pop()] = match.start()
    return ends


def matching_end(text: str, body_start: int, env: str) -> int:
    """Where the `\\end{env}` closing the `\\begin{env}` that ends at `body_start` begins (the
    end of the text when it never closes)."""
    end = _environment_ends(text).get(body_start)
    return len(text) if end is None else end
