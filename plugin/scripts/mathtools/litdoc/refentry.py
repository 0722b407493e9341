"""One REF-NNN or UREF-NNN entry of LITERATURE.md (literature.py holds the whole document): its
original lines, the protocol's fields read from them, and the field and identifier lines a merge
rewrites, every other line (a person's notes) kept as it was."""

from __future__ import annotations

import re
from collections.abc import Mapping

from ..core import as_int, inert_markdown

REF_FIELDS = (
    "Authors",
    "Year",
    "Source",
    "arXiv ID",
    "DOI",
    "Zbl",
    "MSC",
    "Venue",
    "Corrected",
    "Retracted",
    "Abstract",
    "Relevance",
    "Key Results",
    "Statements",
    "Confidence",
    "First verified",
    "Verified",
    "Moved from",
)
UREF_FIELDS = ("Authors", "Year", "Source", "Reason", "Relevance", "Suggestion", "Status")
FIELD_ORDER = {"REF": REF_FIELDS, "UREF": UREF_FIELDS}

ENTRY_HEADING = re.compile(r"### (?P<kind>U?REF)-(?P<number>\d{3,}): (?P<title>.*\S)\s*$")
_FIELD = re.compile(r"- \*\*(?P<name>[^*]+?):\*\*(?: (?P<value>.*?))?\s*$")
_IDS = re.compile(r"<!-- ids: (?P<ids>.*?) -->\s*$")
_URL = re.compile(r"https?://\S+")
_TIER_FIRST = re.compile(r"\[(V|S|~)\]")
# One statement a REF keeps, under its Statements bullet: `  - Theorem 2.3: <its LaTeX, one line>`.
_STATEMENT = re.compile(r"^\s+[-*] (?P<printed>[^:]+?): (?P<text>.*\S)\s*$")


def entry_number(kind: str, number: int) -> str:
    """`REF-007`, `UREF-012`: at least three digits, more once past 999."""
    return f"{kind}-{number:03d}"


def one_line(text: object) -> str:
    """A value as it goes on a field line: all whitespace (newlines too) collapsed to one space."""
    return " ".join(str(text).split())


def _field_value(name: str) -> property:
    """A read-only attribute for one field: its value, or None when absent or empty."""
    return property(lambda entry: entry.field(name) or None, doc=f"The {name} field, or None.")


class Entry:
    """One REF-NNN or UREF-NNN entry, kept as its original lines (heading first).

    Field values are read from the lines; `set_field` replaces one field's line (or inserts it in
    the protocol's order), leaving every other line, including a person's notes, as it was.
    """

    def __init__(self, kind: str, number: int, lines: list[str], line_no: int = 0):
        self.kind = kind
        self.number = number
        self.lines = lines
        self.line_no = line_no
        self._fields: dict[str, tuple[int, int]] | None = None

    @classmethod
    def new(
        cls, kind: str, number: int, title: str, values: Mapping[str, object], ids: list[str]
    ) -> Entry:
        lines = [f"### {entry_number(kind, number)}: {inert_markdown(one_line(title))}\n"]
        lines += [
            f"- **{name}:** {inert_markdown(one_line(values[name]))}\n"
            for name in FIELD_ORDER[kind]
            if values.get(name) not in (None, "")
        ]
        if ids:
            lines.append(f"<!-- ids: {' '.join(ids)} -->\n")
        lines.append("\n")
        return cls(kind, number, lines)

    @property
    def entry_number(self) -> str:
        return entry_number(self.kind, self.number)

    @property
    def title(self) -> str:
        heading = ENTRY_HEADING.match(self.lines[0])
        assert heading is not None, "an entry's first line is its heading (new() and the parser)"
        return heading.group("title")

    def _index(self) -> dict[str, tuple[int, int]]:
        """Field name -> (first line, end line) of its bullet and continuation lines."""
        if self._fields is None:
            found: dict[str, tuple[int, int]] = {}
            current = None
            for i, line in enumerate(self.lines[1:], start=1):
                match = _FIELD.match(line)
                if match:
                    name = match.group("name").strip()
                    current = None if name in found else name  # a repeated field: first counts
                    if current:
                        found[current] = (i, i + 1)
                elif current and line[:1] in (" ", "\t") and line.strip():
                    found[current] = (found[current][0], i + 1)
                else:
                    current = None
            self._fields = found
        return self._fields

    def field(self, name: str) -> str | None:
        """The field's value (continuation lines joined), or None when the entry lacks it."""
        span = self._index().get(name)
        if span is None:
            return None
        bullet = _FIELD.match(self.lines[span[0]])
        assert bullet is not None, "_index() spans start at a field line"
        first = bullet.group("value") or ""
        return one_line(" ".join([first, *self.lines[span[0] + 1 : span[1]]]))

    def set_field(self, name: str, value: str) -> bool:
        """Set one field (inert Markdown); True if the entry changed."""
        value = inert_markdown(one_line(value))
        if self.field(name) == value:
            return False
        line = f"- **{name}:** {value}\n"
        index = self._index()
        if name in index:
            start, end = index[name]
            self.lines[start:end] = [line]
        else:
            self.lines.insert(self._insert_at(name), line)
        self._fields = None
        return True

    def hand_written(self) -> list[str]:
        """The lines a person wrote into the entry: neither its heading, a field (with its
        continuation lines), its ids comment nor a blank line."""
        fields = {i for start, end in self._index().values() for i in range(start, end)}
        return [
            line
            for i, line in enumerate(self.lines[1:], start=1)
            if i not in fields and line.strip() and not _IDS.match(line)
        ]

    def keep_hand_written(self, other: Entry) -> bool:
        """Take the lines a person wrote into `other` (an entry this one replaces: a UREF
        promoted or merged into a REF), below this one's heading; True if any."""
        kept = [line for line in other.hand_written() if line not in self.lines]
        self.lines[1:1] = kept
        self._fields = None
        return bool(kept)

    def statements(self) -> dict[str, str]:
        """The statements of the paper's own source this REF keeps: printed name -> LaTeX text
        (the quotes of [V] claims are checked against them: quotes.py)."""
        span = self._index().get("Statements")
        if span is None:
            return {}
        found: dict[str, str] = {}
        for line in self.lines[span[0] + 1 : span[1]]:
            if match := _STATEMENT.match(line):
                found.setdefault(match.group("printed").strip(), match.group("text"))
        return found

    @property
    def statements_source(self) -> str | None:
        """The source URL the Statements bullet names (`quoted from <URL>`)."""
        value = self.field("Statements")
        found = _URL.search(value.split(" - ", 1)[0]) if value else None
        return found.group(0) if found else None

    def set_statements(self, source: str, statements: dict[str, str]) -> bool:
        """Keep these statements (and those kept already) under the Statements bullet, quoted
        from `source`; True if the entry changed."""
        kept = {**self.statements(), **statements}
        if kept == self.statements() and source == self.statements_source:
            return False
        lines = [f"- **Statements:** quoted from {source}\n"]
        lines += [f"  - {printed}: {one_line(text)}\n" for printed, text in kept.items()]
        index = self._index()
        if "Statements" in index:
            start, end = index["Statements"]
            self.lines[start:end] = lines
        else:
            at = self._insert_at("Statements")
            self.lines[at:at] = lines
        self._fields = None
        return True

    def _insert_at(self, name: str) -> int:
        order = FIELD_ORDER[self.kind]
        index = self._index()
        before = order[: order.index(name)] if name in order else order
        ends = [index[other][1] for other in before if other in index]
        if ends:
            return max(ends)
        after = [index[other][0] for other in order if other in index]
        return min(after) if after else 1

    @property
    def ids(self) -> list[str]:
        """Identifiers from the `<!-- ids: ... -->` line, e.g. ["arXiv:2104.12255", "S2:abc"]."""
        for line in reversed(self.lines):
            match = _IDS.match(line)
            if match:
                return match.group("ids").split()
        return []

    def set_ids(self, ids: list[str]) -> bool:
        if ids == self.ids:
            return False
        line = f"<!-- ids: {' '.join(ids)} -->\n"
        for i in range(len(self.lines) - 1, 0, -1):
            if _IDS.match(self.lines[i]):
                self.lines[i] = line
                break
        else:
            end = len(self.lines)
            while end > 1 and not self.lines[end - 1].strip():
                end -= 1
            self.lines.insert(end, line)
        self._fields = None
        return True

    # The attributes other scripts read (bib_export reads confirmed entries through these).
    @property
    def authors(self) -> list[str]:
        value = self.field("Authors")
        return [name.strip() for name in value.split(",") if name.strip()] if value else []

    @property
    def year(self) -> int | None:
        value = self.field("Year")
        return as_int(value)

    source = _field_value("Source")
    arxiv_id = _field_value("arXiv ID")
    doi = _field_value("DOI")
    zbl = _field_value("Zbl")
    abstract = _field_value("Abstract")
    relevance = _field_value("Relevance")
    key_results = _field_value("Key Results")
    confidence = _field_value("Confidence")
    reason = _field_value("Reason")
    status = _field_value("Status")

    @property
    def msc(self) -> list[str]:
        value = self.field("MSC")
        return [code.strip() for code in value.split(",") if code.strip()] if value else []

    @property
    def assessed(self) -> bool:
        """True when the Confidence line starts with a tier: [V], [S] or [~]."""
        return bool(_TIER_FIRST.match(self.confidence or ""))

    @property
    def verified_at(self) -> str | None:
        value = self.field("Verified")
        return value.split(" via ", 1)[0].strip() or None if value else None

    @property
    def verified_via(self) -> list[str]:
        value = self.field("Verified")
        return _URL.findall(value.split(" via ", 1)[1]) if value and " via " in value else []

    def to_dict(self) -> dict[str, object]:
        """The entry as schemas/literature_ref (or literature_uref).schema.json describes it."""
        common = {
            "entry_number": self.entry_number,
            "number": self.number,
            "title": self.title,
            "authors": self.authors,
            "year": self.year,
            "source": self.source,
            "relevance": self.relevance,
            "ids": self.ids,
        }
        if self.kind == "REF":
            return {
                **common,
                "arxiv_id": self.arxiv_id,
                "doi": self.doi,
                "zbl": self.zbl,
                "msc": self.msc,
                "venue": self.field("Venue"),
                "corrected": self.field("Corrected"),
                "abstract": self.abstract,
                "key_results": self.key_results,
                "statements": self.statements(),
                "statements_source": self.statements_source,
                "confidence": self.confidence,
                "verified_at": self.verified_at,
                "verified_via": self.verified_via,
            }
        return {
            **common,
            "reason": self.reason,
            "suggestion": self.field("Suggestion"),
            "status": self.status,
        }
