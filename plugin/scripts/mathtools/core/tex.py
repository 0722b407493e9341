"""LaTeX source as text: comments and citations, read the way LaTeX reads them. The write-up's
check (research/texcheck.py) and /math:check-refs (bibliography/loading.py) read .tex files with
these."""

from __future__ import annotations

import re

_COMMENT = re.compile(r"(?<!\\)%.*")
_CITE = re.compile(r"\\(?:no)?[a-zA-Z]*cite[a-zA-Z]*\*?\s*(?:\[[^\]]*\]\s*){0,2}\{([^}]*)\}")


def strip_comments(tex: str) -> str:
    return "\n".join(_COMMENT.sub("", line) for line in tex.splitlines())


def cited_keys(tex: str) -> list[str]:
    """Every key cited (\\cite, \\citep, \\citet, \\parencite, \\nocite, ...), in order, once."""
    keys: dict[str, None] = {}
    for group in _CITE.findall(strip_comments(tex)):
        for key in group.split(","):
            if key.strip() and key.strip() != "*":
                keys.setdefault(key.strip(), None)
    return list(keys)
