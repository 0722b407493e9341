"""An arXiv paper's theorem-like statements as one record: its LaTeX source fetched
(services/latex_source.py), its statements extracted (theorems.py), what `arxiv_query.py
theorems` prints (schemas/theorems.schema.json).

`status` is "ok" when arXiv gave LaTeX to read (the statements may still be none), "no_latex_source"
when it has none, with `reason` (unknown_id, invalid_id, withdrawn, unavailable, access_denied,
pdf_only, postscript_only, html_only, dvi_only) and arXiv's words in `message`. A failing
service or an answer that cannot be read safely is an error, never a "no_latex_source".
"""

from __future__ import annotations

from typing import Literal, TypedDict

from ..core import arxiv_id_text
from ..services import LatexSourceAnswer, LatexSourceClient, NoLatexSource
from .texmacros import Macro
from .texsource import MissingInput
from .theorems import Statement, TheoremEnvironment, extract


class TheoremsResult(TypedDict):
    id: str
    version: int | None  # the version asked for; None: the latest
    src_url: str
    status: Literal["ok", "no_latex_source"]
    reason: str | None
    message: str | None
    archive: str | None  # tar.gz, gz (one gzipped file), tar, tex
    files: list[str]
    main_file: str | None
    statements: list[Statement]
    environments: list[TheoremEnvironment]
    missing_inputs: list[MissingInput]
    macros: list[Macro]


def paper_theorems(
    arxiv_id: str, version: int | None = None, client: LatexSourceClient | None = None
) -> TheoremsResult:
    """The statements of `arxiv_id` (normalised, without version) at `version`."""
    return result((client or LatexSourceClient()).fetch(arxiv_id, version))


def result(answer: LatexSourceAnswer) -> TheoremsResult:
    """The record of one source answer (the extraction runs on what it unpacked)."""
    outcome = answer.outcome
    no_latex_source = isinstance(outcome, NoLatexSource)
    found = extract({} if isinstance(outcome, NoLatexSource) else outcome.members)
    return TheoremsResult(
        id=answer.arxiv_id,
        version=answer.version,
        src_url=answer.url,
        status="no_latex_source" if no_latex_source else "ok",
        reason=outcome.reason if isinstance(outcome, NoLatexSource) else None,
        message=outcome.message if isinstance(outcome, NoLatexSource) else None,
        archive=None if isinstance(outcome, NoLatexSource) else outcome.archive,
        files=[] if isinstance(outcome, NoLatexSource) else sorted(outcome.members),
        main_file=found.main_file,
        statements=found.statements,
        environments=found.environments,
        missing_inputs=found.missing_inputs,
        macros=found.macros,
    )


def theorems_summary_lines(record: TheoremsResult) -> list[str]:
    """What `--out` prints: one line for the paper, one per statement."""
    asked = arxiv_id_text(record["id"], record["version"])
    if record["status"] == "no_latex_source":
        return [
            f"arxiv theorems {asked}: no LaTeX source ({record['reason']}): {record['message']}"
        ]
    lines = [
        f"arxiv theorems {asked}: {len(record['statements'])} statements from "
        f"{record['main_file'] or 'no main file'} (files: {len(record['files'])})"
    ]
    for statement in record["statements"]:
        note = f" ({' '.join(statement['note'].split())})" if statement["note"] else ""
        where = f"{statement['source_file']}:{statement['source_line']}"
        lines.append(f"{statement['printed']}{note} | {where}")
    return lines
