"""YAML frontmatter of the Markdown artifacts (PROBLEM.md, LITERATURE.md, JOURNAL.md, ...), and
the sections of their body.

`split_frontmatter` keeps the body exactly as written, so a document whose frontmatter we rewrite
keeps every byte of prose a person or the model put below it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .errors import BadInput

FRONTMATTER_FENCE = "---"


def split_frontmatter(text: str, name: str = "document") -> tuple[dict[str, Any], str]:
    """(frontmatter mapping, body). A document without frontmatter yields ({}, text)."""
    if not text.startswith(FRONTMATTER_FENCE + "\n"):
        return {}, text
    end = text.find("\n" + FRONTMATTER_FENCE + "\n", len(FRONTMATTER_FENCE))
    if end == -1:
        if text.endswith("\n" + FRONTMATTER_FENCE):
            end = len(text) - len(FRONTMATTER_FENCE) - 1
        else:
            raise BadInput(f"{name}: frontmatter opened on line 1 is never closed by '---'")
    import yaml

    raw = text[len(FRONTMATTER_FENCE) + 1 : end + 1]
    try:
        data = yaml.safe_load(raw) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" on line {mark.line + 2}" if mark is not None else ""
        raise BadInput(
            f"{name}: frontmatter is not valid YAML{line}", code="bad_frontmatter"
        ) from None
    if not isinstance(data, dict):
        raise BadInput(f"{name}: frontmatter must be a YAML mapping", code="bad_frontmatter")
    return data, text[end + len(FRONTMATTER_FENCE) + 2 :]


def with_frontmatter(data: Mapping[str, object], body: str) -> str:
    """Frontmatter (keys in the given order, block style, Unicode kept) followed by `body`."""
    import yaml

    dumped = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, default_flow_style=False)
    return f"{FRONTMATTER_FENCE}\n{dumped}{FRONTMATTER_FENCE}\n{body}"


def read_frontmatter(text: str, name: str = "document") -> dict[str, Any]:
    """Only the frontmatter (for routing decisions that must not parse the mathematics)."""
    return split_frontmatter(text, name)[0]


def split_sections(body: str) -> dict[str, str]:
    """Heading text (lower case) -> the text under it, up to the next heading of any level."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in body.splitlines():
        heading = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if heading:
            current = sections.setdefault(heading.group(1).strip().lower(), [])
        elif current is not None:
            current.append(line)
    return {name: "\n".join(lines).strip() for name, lines in sections.items()}
