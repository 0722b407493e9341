"""What one research agent reads before it works: `state.py brief --for AGENT` prints it.

Claude Code does not expand `@path` lines in an Agent prompt (the subagent sees the literal line:
checked on 2.1.197 and 2.1.332), so an agent's inputs reach it through its first call, this
brief. Each brief holds what that agent needs and no more, cut from the problem's files by the
parsers that own them, and the few protocol lines its runbook would otherwise send it to read:

- proof: the time now (for its **Updated:** lines), PROBLEM.md, NOTATION.md, what is open in
  PROOF.md (its steps, gaps and requests by name: the agent Reads PROOF.md itself before it
  Edits it; on a first pass, the PROOF.md template to Write instead), the confirmed
  references' Key Results (and the statements of those its steps cite), the computations'
  results and interpretations, the referee's gap and wrong verdicts, the journal's dead ends,
  the proof strategies and outcomes the journal takes, PROOF.md's format (protocols/
  proof-format.md: whole on a first pass, the rules for revising on a later one), and the
  confidence tiers' choice table (with the speculative-steps warning on a later pass: the
  first pass's template carries it);
- computation: PROBLEM.md's statement and tags, PROOF.md's Strategy (whose symbols a request
  may use), the requests COMPUTATION.md has not answered (with the gaps that ask for them), the
  runs whose Interpretation is pending (code and output),
  the runs already recorded, the computation strategies and outcomes;
- referee: PROBLEM.md, NOTATION.md, PROOF.md's Strategy and steps (abandoned ones and the
  steps' **Updated:** lines left out),
  the statements of the REFs
  they cite, every computation (request, code, output, interpretation: a step an output
  contradicts is wrong, cited or not), and the step names its REVIEW.md blocks take;
- latex-writer: PROBLEM.md, NOTATION.md, PROOF.md's Strategy, steps and open gaps, the
  referee's verdicts, the confirmed references' Key Results, the unconfirmed references (to
  mention in words, never cite), the computations the proof cites (for the appendix: code,
  output, Interpretation and the environment's versions), the `\author{...}` line (`author`
  in .math/config.json, else git's user.name), and the OUTPUT.tex template (without its
  comment lines) when there is no OUTPUT.tex yet.

What a brief shows of COMPUTATION.md is computationbrief.py's (a run's Code and Output read as
fenced blocks, so a `# ` line in a snippet is code, not a heading that ends the part).

Printed as Markdown, not JSON: LaTeX and line breaks read as written, with no escaping. A file
that does not exist is left out, and the first lines list the files the folder holds (the folder
itself is in the agent's prompt). PROBLEM.md's text left as its template has it (the default
Goals) says nothing of the problem and is left out.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import cast

from ..bibliography import bibtex_text
from ..core import (
    PLUGIN_ROOT,
    BadInput,
    configured_author,
    instantiate,
    read_frontmatter,
    read_text,
    split_frontmatter,
    split_sections,
    stamp,
)
from ..litdoc import export, load_literature
from . import blocks, computation, computationbrief, review, smallcases
from .blocks import section_text
from .gaps import parse as parse_gaps
from .journalread import DEAD_END_OUTCOMES, OUTCOMES, STRATEGIES, is_dead_end, read_journal

AGENTS = ("proof", "computation", "referee", "latex-writer")
FILES = (
    "PROBLEM.md",
    "NOTATION.md",
    "LITERATURE.md",
    "JOURNAL.md",
    "PROOF.md",
    "COMPUTATION.md",
    "REVIEW.md",
    "OUTPUT.tex",
    "references.bib",
)
TIERS_PROTOCOL = PLUGIN_ROOT / "protocols" / "confidence-tiers.md"
FORMAT_PROTOCOL = PLUGIN_ROOT / "protocols" / "proof-format.md"
_REVISION_MARK = " *(revision)*"


def brief(folder: Path, slug: str, agent: str) -> str:
    """The brief of `agent` (one of AGENTS, `math:` prefix allowed) for the problem in `folder`."""
    name = agent.removeprefix("math:")
    if name not in AGENTS:
        raise BadInput(f"no brief for {agent!r}: one of {', '.join(AGENTS)}", code="unknown_agent")
    present = [n for n in FILES if (folder / n).exists()]
    head = (  # the folder is in the agent's prompt
        f"# Brief for math:{name}: problem `{slug}`\n"
        f"Files in its folder: {', '.join(present) or 'none'}. What follows is cut from them: "
        "Read a file only to change it.\n"
    )
    parts = {
        "proof": _proof,
        "computation": _computation,
        "referee": _referee,
        "latex-writer": _writer,
    }[name](folder, slug)
    return "\n".join([head, *(p.rstrip() + "\n" for p in parts if p.strip())])


# ----------------------------------------------------------------------------------- the briefs


def _proof(folder: Path, slug: str) -> list[str]:
    proof_md = _text(folder, "PROOF.md")
    return [
        f"now: {stamp()}",  # proof-format.md § Updated lines: copied into them
        _problem(folder),
        _notation(folder),
        _open_in_proof(folder, proof_md) if proof_md else _proof_template(folder, slug),
        _proof_format(revision=bool(proof_md)),
        _references(folder, _cited_refs(proof_md or ""), every=True),
        computationbrief.computation_results(folder),
        _review_notes(folder),
        _dead_ends(folder),
        _journal_rules("proof"),
        _tier_rules(revision=bool(proof_md)),
    ]


def _computation(folder: Path, slug: str) -> list[str]:
    proof_md = _text(folder, "PROOF.md") or ""
    return [
        _problem(folder, statement_only=True),
        _strategy(proof_md),
        computationbrief.open_requests(folder, proof_md),
        computationbrief.pending_interpretations(folder),
        computationbrief.recorded_runs(folder),
        _journal_rules("computation"),
    ]


def _referee(folder: Path, slug: str) -> list[str]:
    proof_md = _text(folder, "PROOF.md") or ""
    judged = [s.name for s in review.steps(proof_md) if s.status != "abandoned"]
    return [
        _problem(folder),
        _notation(folder),
        _strategy(proof_md),
        _proof_steps(proof_md),
        _references(folder, _cited_refs(proof_md), every=False),
        computationbrief.every_computation(folder, proof_md),
        "## Your REVIEW.md blocks\n\nOne `### ` block for each of: " + ", ".join(judged) + ".",
    ]


def _writer(folder: Path, slug: str) -> list[str]:
    proof_md = _text(folder, "PROOF.md") or ""
    parts = [
        _problem(folder),
        _notation(folder),
        _strategy(proof_md),
        _proof_steps(proof_md),
        _open_gaps(proof_md),
        _verdicts(folder),
        _bibliography(folder),
        _references(folder, _cited_refs(proof_md), every=True, statements=False),
        _unconfirmed(folder),
        computationbrief.cited_computations(folder, proof_md),
        _author(folder),
    ]
    if not (folder / "OUTPUT.tex").exists():
        template = (PLUGIN_ROOT / "templates" / "OUTPUT.tex").read_text(encoding="utf-8")
        # its comment lines are notes for people: the runbook gives each rule they state
        template = "".join(
            line for line in template.splitlines(keepends=True) if not line.startswith("%")
        )
        parts.append("## The OUTPUT.tex template (start from it)\n\n```latex\n" + template + "```")
    return parts


# ------------------------------------------------------------------------------ the sections


def _author(folder: Path) -> str:
    """The write-up's `\author{...}` line: `author` in .math/config.json (set by hand), else the
    name git signs the user's commits with, written as LaTeX text; or that none is known."""
    name, source = configured_author(folder), ".math/config.json `author`"
    if name is None:
        name, source = _git_user_name(folder), "git's user.name"
    if not name:
        return (
            "## Author\n\nnone known: write `\\author{}` (the user may set `author` in "
            ".math/config.json)"
        )
    return f"## Author\n\n`\\author{{{bibtex_text(name)}}}` (from {source})"


def _git_user_name(folder: Path) -> str | None:
    """`git config user.name` as run in `folder`, or None (no git, no name, no answer in 5 s)."""
    try:
        done = subprocess.run(
            ["git", "config", "user.name"],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None


def _text(folder: Path, name: str) -> str | None:
    path = folder / name
    return read_text(path, name) if path.exists() else None


def _body(folder: Path, name: str) -> tuple[dict[str, object], str] | None:
    text = _text(folder, name)
    return None if text is None else split_frontmatter(text, name)


def _problem(folder: Path, statement_only: bool = False) -> str:
    found = _body(folder, "PROBLEM.md")
    if found is None:
        return "## PROBLEM.md\n\n(there is no PROBLEM.md)"
    meta, body = found
    tags = meta.get("tags") or []
    words = [str(tag) for tag in tags] if isinstance(tags, list) else [str(tags)]
    line = f"title: {meta.get('title', '')} · tags: {', '.join(words) or 'none'}"
    if statement_only:
        statement = split_sections(body).get("problem statement", "")
        return f"## PROBLEM.md (statement)\n\n{line}\n\n{statement}"
    return f"## PROBLEM.md\n\n{line}\n\n{_without_guidance(body)}"


def _without_guidance(body: str) -> str:
    """A body without comments, the template's guidance paragraphs (wholly in parentheses), the
    template's text left as it stands (its default Goals: the loop's own steps, nothing of this
    problem) and the headings left with nothing under them."""
    body = re.sub(r"(?s)<!--.*?-->", "", body)
    template = split_frontmatter(
        (PLUGIN_ROOT / "templates" / "PROBLEM.md").read_text(encoding="utf-8"), "PROBLEM.md"
    )[1]
    untouched = {p.strip() for p in _paragraphs(template) if not _heading_level(p.strip())}
    paragraphs = [
        p.strip()
        for p in _paragraphs(body)
        if p.strip()
        and p.strip() not in untouched
        and not re.fullmatch(r"(?s)\(.*\)\.?", p.strip())
    ]
    kept = []
    for index, paragraph in enumerate(paragraphs):
        level = _heading_level(paragraph)
        after = paragraphs[index + 1] if index + 1 < len(paragraphs) else None
        if level and (after is None or 0 < _heading_level(after) <= level):
            continue  # an empty section
        kept.append(paragraph)
    return "\n\n".join(kept)


def _paragraphs(text: str) -> list[str]:
    return re.split(r"\n\s*\n", text.strip())


def _heading_level(paragraph: str) -> int:
    """The level of a paragraph that is one heading line (0: it is not)."""
    found = re.fullmatch(r"(#+) [^\n]+", paragraph)
    return len(found.group(1)) if found else 0


def _notation(folder: Path) -> str:
    found = _body(folder, "NOTATION.md")
    if found is None:
        return ""
    sections = split_sections(found[1])
    symbols = "\n".join(
        sections[name] for name in ("preset", "custom") if sections.get(name, "").strip()
    )
    return f"## NOTATION.md\n\n{symbols}"


def _open_in_proof(folder: Path, proof_md: str) -> str:
    meta, _ = split_frontmatter(proof_md, "PROOF.md")
    flags = ", ".join(
        f"{key}: {str(meta.get(key)).lower() if isinstance(meta.get(key), bool) else meta.get(key)}"
        for key in ("status", "approach", "computation_needed", "literature_needed")
    )
    lines = [f"## PROOF.md: what is open (Read it before you change it)\n\n{flags}"]
    runs, requests = computation.vouched_runs(folder), blocks.requests(proof_md)
    for step in review.steps(proof_md):
        if step.status == "abandoned":
            continue
        updated = step.fields.get("Updated", "").strip()
        if retest := smallcases.retest_needed(step.name, runs, requests, updated):
            lines.append(f"- {retest}")
        elif step.status != "complete":
            lines.append(f"- {step.name}: {step.status or 'no status'}, {step.tier or 'no tier'}")
    for gap in parse_gaps(proof_md):
        if not gap.fields.get("Resolved", "").strip():
            lines.append(f"- {gap.name} ({gap.type or 'no type'}; blocking {gap.blocking})")
    asked = sorted(computation.requests_asked(proof_md))
    if asked:
        unanswered = set(review.unanswered_requests(folder))
        claims = computation.unvouched_claims(folder)  # e.g. runs older than the run records
        lines.append(
            "- requests: "
            + ", ".join(
                f"Request {n} ("
                + (
                    "run"
                    if n not in unanswered
                    else f"Computation {claims[n]} has no run record: run it again"
                    if n in claims
                    else "open"
                )
                + ")"
                for n in asked
            )
        )
    if len(lines) == 1:
        lines.append("- nothing open: every step complete or abandoned, every gap resolved")
    return "\n".join(lines)


def _proof_template(folder: Path, slug: str) -> str:
    problem = _body(folder, "PROBLEM.md")
    title = str(problem[0].get("title") or slug) if problem else slug
    text = instantiate("PROOF.md", {"slug": slug, "title": title}, {"problem": slug})
    text = re.sub(r"(?s)<!--.*?-->\n*", "", text)  # its note for people: the format says it
    return f"## There is no PROOF.md yet: Write it from this template\n\n```markdown\n{text}```"


def _proof_format(revision: bool) -> str:
    """PROOF.md's format (protocols/proof-format.md): every section on a first pass; on a
    revision pass only those marked for it, since the PROOF.md the agent Reads shows the rest."""
    text = FORMAT_PROTOCOL.read_text(encoding="utf-8")
    sections = re.split(r"(?m)^(?=## )", text)[1:]
    kept = [
        section.replace(_REVISION_MARK, "", 1).strip()
        for section in sections
        if not revision or _REVISION_MARK in section.split("\n", 1)[0]
    ]
    title = "revising PROOF.md" if revision else "PROOF.md's format"
    body = "\n\n".join("#" + section for section in kept)
    return f"## {title} (protocols/proof-format.md)\n\n{body}"


def _cited_refs(proof_md: str) -> list[str]:
    return sorted({ref for step in review.steps(proof_md) for ref in step.refs()})


def _references(folder: Path, cited: list[str], every: bool, statements: bool = True) -> str:
    """Confirmed references: each one's Key Results when `every`, else only the cited ones;
    the statements the paper's source gives for the cited ones (with `statements`)."""
    if not (folder / "LITERATURE.md").exists():
        return ""
    entries = load_literature(folder / "LITERATURE.md").confirmed
    lines = ["## Confirmed references (LITERATURE.md; a UREF may support no step)"]
    for entry in entries:
        number = entry.entry_number
        if not every and number not in cited:
            continue
        by = f"{entry.field('Authors') or '?'}, {entry.field('Year') or '?'}"
        lines.append(f"\n### {number}: {entry.title} ({by})")
        lines.append(f"Key Results: {entry.field('Key Results') or '(none)'}")
        if statements and number in cited:
            lines += [f"- {name}: {text}" for name, text in entry.statements().items()]
    missing = [ref for ref in cited if ref.startswith("REF") and ref not in {
        e.entry_number for e in entries}]  # fmt: skip
    if missing:
        lines.append(f"\nCited but not confirmed in LITERATURE.md: {', '.join(missing)}")
    return "\n".join(lines) if len(lines) > 1 else ""


def _bibliography(folder: Path) -> str:
    """references.bib, written now from the confirmed references (bib_export.py's export, so
    that the writer needs no call of its own for it), and the key each REF is cited by."""
    if not (folder / "LITERATURE.md").exists():
        return "## references.bib\n\nnot written: there is no LITERATURE.md, so cite nothing"
    try:
        done = export(folder)
    except BadInput as exc:  # hand-added entries it cannot keep: the writer reports it
        return f"## references.bib\n\nnot written: {exc}"
    entries = cast(list[dict[str, str]], done["entries"])
    lines = [
        "## references.bib (written now from the confirmed references; never edit it): "
        "the only keys you may \\cite",
        ", ".join(f"{e['ref']} \\cite{{{e['key']}}}" for e in entries) or "none",
    ]
    for label, key in (
        ("kept as added by hand", "kept_by_hand"),
        ("left out, unconfirmed (never cite)", "left_out_unconfirmed"),
        ("left out, confirmed without a verification stamp", "left_out_unverified"),
    ):
        if done[key]:
            lines.append(f"{label}: {', '.join(cast(list[str], done[key]))}")
    return "\n".join(lines)


def _unconfirmed(folder: Path) -> str:
    """LITERATURE.md's unconfirmed references, each with why it is unconfirmed: never cited."""
    if not (folder / "LITERATURE.md").exists():
        return ""
    entries = load_literature(folder / "LITERATURE.md").unconfirmed
    if not entries:
        return ""
    lines = [
        "## Unconfirmed references (LITERATURE.md): never \\cite one; if the text needs it, say "
        "in words that the result is reported in the literature but not verified"
    ]
    for entry in entries:
        by = f"{entry.field('Authors') or '?'}, {entry.field('Year') or '?'}"
        lines.append(f"- {entry.entry_number}: {entry.title} ({by}): {entry.field('Reason')}")
    return "\n".join(lines)


def _strategy(proof_md: str) -> str:
    """PROOF.md's `## Strategy`, whole: the approach, and the symbols the steps use from it."""
    body = split_frontmatter(proof_md, "PROOF.md")[1] if proof_md else ""
    text = section_text(body, "## Strategy")
    return f"## PROOF.md's Strategy (the steps use its symbols)\n\n{text}" if text else ""


def _review_notes(folder: Path) -> str:
    text = _text(folder, "REVIEW.md")
    if text is None:
        return ""
    verdicts = review.verdicts(text)
    by_step = dict(review.step_blocks(split_frontmatter(text, "REVIEW.md")[1]))
    checked = [v.name for v in verdicts if v.verdict == "checked"]
    lines = ["## The referee's verdicts (REVIEW.md): answer every gap and wrong"]
    lines.append("checked: " + (", ".join(checked) or "none"))
    for verdict in verdicts:
        if verdict.verdict != "checked":
            lines += ["", by_step.get(verdict.name, "").strip()]
    return "\n".join(lines)


def _verdicts(folder: Path) -> str:
    text = _text(folder, "REVIEW.md")
    if text is None:
        return "## The referee's verdicts\n\n(there is no REVIEW.md)"
    meta = read_frontmatter(text, "REVIEW.md")
    lines = [f"## The referee's verdicts (REVIEW.md, verdict {meta.get('verdict')})"]
    lines += [f"- {v.name}: {v.verdict}" for v in review.verdicts(text)]
    return "\n".join(lines)


def _dead_ends(folder: Path) -> str:
    path = folder / "JOURNAL.md"
    entries = []
    if path.exists():
        entries = [e for e in read_journal(path).entries if is_dead_end(e, "proof")]
    if not entries:  # so no `journal.py check` can answer anything but clear
        return "## Dead ends (JOURNAL.md)\n\nnone recorded: every strategy is clear"
    lines = ["## Dead ends (JOURNAL.md): do not retry them unless conditions changed"]
    for entry in entries:
        lines.append(
            f"- {entry.id} ({entry.strategy}, {entry.outcome}; tags {', '.join(entry.tags)}): "
            f"{entry.title}. Insight: {entry.fields.get('insight', '')}"
        )
    return "\n".join(lines)


def _journal_rules(kind: str) -> str:
    strategies = ", ".join(STRATEGIES[kind] + STRATEGIES["general"])
    return (
        f"## Journal entries\n\nstrategies: {strategies}\noutcomes: {', '.join(OUTCOMES)} "
        f"({', '.join(DEAD_END_OUTCOMES)} are dead ends)"
    )


def _tier_rules(revision: bool) -> str:
    """The confidence tiers' choice table, from the protocol; on a revision pass also the
    speculative-steps warning block (on a first pass the template carries it, and the format's
    § Confidence tiers says when to keep it)."""
    text = TIERS_PROTOCOL.read_text(encoding="utf-8")
    choose = section_text(text, "## Choosing a tier")
    lines = [f"## Confidence tiers (protocols/confidence-tiers.md)\n\n{choose}"]
    if revision:
        warning = section_text(text, "## The speculative-steps warning")
        block = re.search(r"(?s)```markdown\n.*?```", warning)
        lines.append(f"The speculative-steps warning:\n\n{block.group(0) if block else warning}")
    return "\n\n".join(lines)


def _proof_steps(proof_md: str) -> str:
    if not proof_md:
        return "## PROOF.md\n\n(there is no PROOF.md)"
    kept = [  # without their **Updated:** lines, kept for the journal's dead-end check
        re.sub(r"(?m)^\*\*Updated:\*\*.*\n?", "", step.text).strip()
        for step in review.steps(proof_md)
        if step.status != "abandoned"
    ]
    return "## PROOF.md's steps (abandoned ones left out)\n\n" + "\n\n".join(kept)


def _open_gaps(proof_md: str) -> str:
    open_gaps = [g for g in parse_gaps(proof_md) if not g.fields.get("Resolved", "").strip()]
    if not open_gaps:
        return ""
    lines = ["## Open gaps (PROOF.md): say so in the introduction"]
    lines += [f"- {g.name} ({g.type}; blocking {g.blocking})" for g in open_gaps]
    return "\n".join(lines)
