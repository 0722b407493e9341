"""The research workspace's folder, `.math/` in the user's project, as it is read: its paths and
config.json (`Workspace`), each problem's status read from its artifacts' frontmatter, the status
of every problem, and DASHBOARD.md rendered from it (the workspace's changes:
workspacechanges.py).

Layout::

    .math/
      config.json          current problem, problems, archived problems, settings
      DASHBOARD.md         one table over every problem (rebuilt by each change, status, resume)
      problems/<slug>/     PROBLEM.md, LITERATURE.md, JOURNAL.md, STATE.md, NOTATION.md, ...
      archive/<slug>/      problems put away with `archive`

A slug names a folder, so it is the one thing that must never escape `.math/`: slugs are lowercase
ASCII letters and digits joined by single hyphens, nothing else. Status is read from the artifacts'
frontmatter only, never from the mathematics below it. Every write is atomic; every
read-modify-write of config.json happens under its lock. The locks are `NAME.lock` side files
(filelock's) next to the files they guard; they stay after release, because deleting one while
another process waits on it would let two writers in. Nothing reports or archives them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from datetime import date, datetime
from pathlib import Path
from typing import TypedDict, cast, final

from ..core import (
    RESERVED_SLUGS,
    BadInput,
    atomic_write,
    check_slug,
    dumps,
    instantiate,
    is_slug,
    locked,
    read_frontmatter,
    read_json,
    read_text,
    stamp,
    tex_only_configured,
    workspace_root,
)
from . import models, texbuild

# The per-problem artifacts a new problem starts with, in the order they are created.
STARTING_ARTIFACTS = ("PROBLEM.md", "LITERATURE.md", "JOURNAL.md", "STATE.md", "NOTATION.md")
# The artifacts whose frontmatter `status` reads, in research order.
ARTIFACTS = (*STARTING_ARTIFACTS, "PROOF.md", "COMPUTATION.md", "REVIEW.md")

NOTES_HEADING = "## Notes"


class _WorkspaceConfig(TypedDict):
    problems: list[str]  # the active problems' slugs
    archived: list[str]
    current_problem: str | None


class WorkspaceConfig(_WorkspaceConfig, total=False):
    """.math/config.json: the fields read_config checks, and the agents' model overrides
    (research/models.py checks those where it reads them)."""

    models: object
    semantic_scholar_api_key: str | None  # read by core/config.py


class Papers(TypedDict):
    total: object  # the frontmatter's counts, as written
    confirmed: object
    unconfirmed: object
    last_search: str | None


class JournalCounts(TypedDict):
    entries: object
    last_entry: object


@final
class ProblemStatus(TypedDict):
    """One problem as `status` shows it: its artifacts' frontmatter values (dates as ISO text),
    what became of its write-up, and what could not be read."""

    slug: str
    current: bool
    title: object
    status: object
    domain: object
    type: object
    tags: object
    state: object
    loops: object
    state_updated: str | None
    papers: Papers
    journal: JournalCounts
    proof: object
    computation: object
    artifacts: list[str]
    write_up: str | None
    warnings: list[str]


@final  # `"title" not in` tells it from a ProblemStatus
class MissingProblem(TypedDict):
    slug: str
    warnings: list[str]


class WorkspaceStatus(TypedDict):
    workspace: str
    current_problem: str | None
    problems: list[ProblemStatus | MissingProblem]
    archived: list[str]
    dashboard: str
    models: dict[str, object]
    tex: dict[str, bool]


class Workspace:
    """One `.math/` folder. `Workspace.find()` locates the user's; `init()` creates it."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.math_dir = self.root / ".math"
        self.config_path = self.math_dir / "config.json"
        self.problems_dir = self.math_dir / "problems"
        self.archive_dir = self.math_dir / "archive"
        self.dashboard_path = self.math_dir / "DASHBOARD.md"

    @classmethod
    def find(cls) -> Workspace:
        """The workspace around the working directory (or $MATH_WORKSPACE); BadInput if none."""
        workspace = cls(workspace_root())
        if not workspace.config_path.exists():
            raise BadInput(
                f"no math workspace at {workspace.root} or above it: run /math:init "
                "(workspace.py init) first",
                code="no_workspace",
            )
        return workspace

    # -- config.json -----------------------------------------------------------------------------

    def read_config(self) -> WorkspaceConfig:
        data = read_json(str(self.config_path), what="workspace config", regular=True)
        if not isinstance(data, dict):
            raise BadInput(f"{self.config_path} must hold a JSON object", code="bad_config")
        for key in ("problems", "archived"):
            value = data.setdefault(key, [])
            if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
                raise BadInput(f"{self.config_path}: {key!r} must be a list of slugs", "bad_config")
        data.setdefault("current_problem", None)
        return cast(WorkspaceConfig, data)  # checked above: the fields this module reads

    def write_config(self, data: WorkspaceConfig) -> None:
        atomic_write(self.config_path, dumps(data))

    @contextlib.contextmanager
    def changing_config(self) -> Iterator[WorkspaceConfig]:
        """config.json to change in place, under its lock; written back unless the block raised.
        The dashboard is regenerated afterwards."""
        with locked(self.config_path):
            cfg = self.read_config()
            yield cfg
            self.write_config(cfg)
        render_dashboard(self)

    # -- problems --------------------------------------------------------------------------------

    def problem_dir(self, slug: str) -> Path:
        return self.problems_dir / check_slug(slug)

    def resolve(self, slug: str | None, cfg: WorkspaceConfig | None = None) -> str:
        """The problem `slug` names, or the current one; BadInput unless it is an active problem."""
        cfg = self.read_config() if cfg is None else cfg
        if slug is None:
            slug = cfg.get("current_problem")
            if not slug:
                raise BadInput(
                    "no current problem: pass --problem SLUG, or start one with /math:problem",
                    code="no_current_problem",
                )
        check_slug(slug)
        if slug not in cfg["problems"] or not self.problem_dir(slug).is_dir():
            hint = " (it is archived)" if slug in cfg["archived"] else ""
            known = ", ".join(cfg["problems"]) or "none"
            raise BadInput(
                f"no active problem {slug!r}{hint}; problems: {known}", code="unknown_problem"
            )
        return slug

    def taken_slugs(self, cfg: WorkspaceConfig) -> set[str]:
        taken = set(cfg["problems"]) | set(cfg["archived"]) | RESERVED_SLUGS
        for folder in (self.problems_dir, self.archive_dir):
            if folder.is_dir():
                taken.update(p.name for p in folder.iterdir() if p.suffix != ".lock")
        return taken


def frontmatter_of(path: Path, warnings: list[str]) -> dict[str, object] | None:
    """A file's frontmatter, None if it does not exist; a broken one becomes a warning."""
    if not path.exists():
        return None
    try:
        return read_frontmatter(read_text(path, path.name), path.name)
    except BadInput as exc:  # its message already starts with the file's name
        warnings.append(exc.message)
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        warnings.append(f"{path.name}: {exc}")
        return {}


def problem_status(folder: Path, current: str | None) -> ProblemStatus:
    """One problem's state and counts, read from its artifacts' frontmatter, and what became of
    its write-up (texbuild.write_up_status)."""
    warnings: list[str] = []
    meta = {name: frontmatter_of(folder / name, warnings) for name in ARTIFACTS}
    problem = meta["PROBLEM.md"] or {}
    state = meta["STATE.md"] or {}
    literature = meta["LITERATURE.md"] or {}
    journal = meta["JOURNAL.md"] or {}
    if meta["PROBLEM.md"] is None:
        warnings.append("PROBLEM.md is missing")
    return {
        "slug": folder.name,
        "current": folder.name == current,
        "title": jsonable(problem.get("title", folder.name)),
        "status": jsonable(problem.get("status")),
        "domain": jsonable(problem.get("domain")),
        "type": jsonable(problem.get("type")),
        "tags": jsonable(problem.get("tags") or []),
        "state": jsonable(state.get("current_state")),
        "loops": jsonable(state.get("loops") or {}),
        "state_updated": _text(state.get("updated")),
        "papers": {
            "total": jsonable(literature.get("total_papers", 0)),
            "confirmed": jsonable(literature.get("confirmed_count", 0)),
            "unconfirmed": jsonable(literature.get("unconfirmed_count", 0)),
            "last_search": _text(literature.get("last_search")),
        },
        "journal": {
            "entries": jsonable(journal.get("total_entries", 0)),
            "last_entry": jsonable(journal.get("last_entry")),
        },
        "proof": jsonable((meta["PROOF.md"] or {}).get("status")),
        "computation": jsonable((meta["COMPUTATION.md"] or {}).get("status")),
        "artifacts": [name for name in ARTIFACTS if meta[name] is not None],
        "write_up": texbuild.write_up_status(folder),
        "warnings": warnings,
    }


def _text(value: object) -> str | None:
    """YAML turns unquoted timestamps into datetimes; report them as the ISO text they were."""
    value = jsonable(value)
    return None if value in (None, "") else str(value)


def jsonable(value: object) -> object:
    """Frontmatter as JSON can carry it: dates and datetimes become ISO text."""
    if isinstance(value, datetime):
        if value.tzinfo is None:
            return value.isoformat()
        return stamp(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, dict):
        return jsonable_mapping(value)
    if isinstance(value, list):
        return [jsonable(v) for v in value]
    return value


def jsonable_mapping(value: Mapping[object, object]) -> dict[str, object]:
    """A frontmatter mapping as JSON can carry it: text keys, dates as ISO text."""
    return {str(k): jsonable(v) for k, v in value.items()}


def status(workspace: Workspace | None = None, refresh: bool = False) -> WorkspaceStatus:
    """Every problem's state and counts; `refresh` also rebuilds DASHBOARD.md from them (the
    artifacts change under the scripts that write them, which do not touch the dashboard)."""
    workspace = workspace or Workspace.find()
    if refresh:
        render_dashboard(workspace)
    cfg = workspace.read_config()
    problems: list[ProblemStatus | MissingProblem] = []
    for slug in cfg["problems"]:
        folder = workspace.problems_dir / slug
        if is_slug(slug) and folder.is_dir():
            problems.append(problem_status(folder, cfg["current_problem"]))
        else:
            problems.append({"slug": slug, "warnings": [f"folder {folder} is missing"]})
    return {
        "workspace": str(workspace.root),
        "current_problem": cfg["current_problem"],
        "problems": problems,
        "archived": cfg["archived"],
        "dashboard": str(workspace.dashboard_path),
        "models": models.in_use(cfg),
        "tex": {
            "installed": texbuild.tex_installed(),
            "tex_only": tex_only_configured(workspace.root),
        },
    }


def render_dashboard(workspace: Workspace | None = None) -> dict[str, object]:
    """Write .math/DASHBOARD.md from `status`; whatever is under '## Notes' is kept."""
    workspace = workspace or Workspace.find()
    with locked(workspace.dashboard_path):
        report = status(workspace)
        rows = [
            "| | problem | domain | type | state | papers (confirmed / unconfirmed) | journal "
            "| last entry |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for p in report["problems"]:
            if "title" not in p:
                rows.append(f"| | `{p['slug']}` | | | missing | | | |")
                continue
            rows.append(
                f"| {'▶' if p['current'] else ''} | **{_cell(p['title'])}** (`{p['slug']}`) "
                f"| {_cell(p['domain'])} | {_cell(p['type'])} | {_cell(p['state'])} "
                f"| {p['papers']['confirmed']} / {p['papers']['unconfirmed']} "
                f"| {p['journal']['entries']} | {_cell(p['journal']['last_entry'])} |"
            )
        if not report["problems"]:
            rows = ["No problems yet: start one with `/math:problem`."]
        archived = "\n".join(f"- `{slug}`" for slug in report["archived"]) or "None."
        current = report["current_problem"]
        text = instantiate(
            "DASHBOARD.md",
            {
                "current_problem": f"`{current}`" if current else "none",
                "problems_table": "\n".join(rows),
                "archived_list": archived,
            },
            {
                "updated": stamp(),
                "current_problem": current,
                "problems": len(report["problems"]),
                "archived": len(report["archived"]),
            },
        )
        if workspace.dashboard_path.exists():
            old = workspace.dashboard_path.read_text(encoding="utf-8")
            kept = old.partition("\n" + NOTES_HEADING + "\n")[2]
            if kept:
                text = text.partition("\n" + NOTES_HEADING + "\n")[0]
                text += "\n" + NOTES_HEADING + "\n" + kept
        atomic_write(workspace.dashboard_path, text)
    return {"dashboard": str(workspace.dashboard_path), "problems": len(report["problems"])}


def _cell(value: object) -> str:
    return "" if value is None else str(value).replace("|", "\\|").replace("\n", " ")
