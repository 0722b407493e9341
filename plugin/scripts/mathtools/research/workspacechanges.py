"""Changing the workspace (its folder, config and status: workspaceread.py): `init` creates
`.math/`, `new_problem` starts a problem from the templates, `switch` makes one current, `archive`
puts one away, and `agent_models` shows and sets the agents' models in config.json. Each change
is made under config.json's lock and rebuilds DASHBOARD.md."""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TypedDict

from ..core import (
    DOMAINS,
    FRONTMATTER_FENCE,
    BadInput,
    atomic_write,
    check_slug,
    domain_name,
    instantiate,
    locked,
    slugify,
    split_frontmatter,
    stamp,
    with_frontmatter,
    workspace_root,
)
from ..litdoc import template
from . import models
from .notation import new_notation
from .workspaceread import STARTING_ARTIFACTS, Workspace, render_dashboard

PROBLEM_TYPES = ("proof", "computation", "exploration", "conjecture-testing")
PROBLEM_DOMAINS = (*DOMAINS, "other")
PROBLEM_SECTIONS = (
    "# Problem Statement",
    "## Known Results",
    "## References",
    "## Constraints",
    "## Goals",
)


class ProblemFields(TypedDict):
    """A new problem's PROBLEM.md frontmatter."""

    title: str
    slug: str
    status: str
    domain: str
    subdomain: str
    type: str
    output_type: str
    tags: list[str]
    created: str


def init(root: Path | None = None) -> dict[str, object]:
    """Create `.math/` (config, problems/, archive/, DASHBOARD.md); an existing one is kept."""
    workspace = Workspace(root or workspace_root())
    if workspace.math_dir.exists() and not workspace.math_dir.is_dir():
        raise BadInput(
            f"{workspace.math_dir} is a file, not the workspace folder: move it away first",
            code="not_a_folder",
        )
    with locked(workspace.config_path):
        created = not workspace.config_path.exists()
        if created:
            workspace.write_config(
                {
                    "current_problem": None,
                    "problems": [],
                    "archived": [],
                    "semantic_scholar_api_key": None,
                }
            )
        workspace.problems_dir.mkdir(parents=True, exist_ok=True)
        workspace.archive_dir.mkdir(parents=True, exist_ok=True)
        cfg = workspace.read_config()
    render_dashboard(workspace)
    return {
        "workspace": str(workspace.root),
        "math_dir": str(workspace.math_dir),
        "created": created,
        "current_problem": cfg["current_problem"],
        "problems": cfg["problems"],
        "dashboard": str(workspace.dashboard_path),
    }


def problem_body(text: str) -> tuple[str, list[str]]:
    """A PROBLEM.md body given by the caller, and the standard sections it lacks.
    `# Problem Statement` is required; the others are reported so the intake can fill them."""
    body = text.strip("\n") + "\n"
    if body.startswith(FRONTMATTER_FENCE + "\n"):
        raise BadInput(
            "the problem body must not carry frontmatter; pass the fields as options",
            code="bad_body",
        )
    headings = {line.rstrip() for line in body.splitlines()}
    missing = [section for section in PROBLEM_SECTIONS if section not in headings]
    if PROBLEM_SECTIONS[0] in missing:
        raise BadInput("the problem body needs a '# Problem Statement' section", code="bad_body")
    return "\n" + body, missing


def new_problem(
    title: str,
    *,
    slug: str | None = None,
    domain: str = "other",
    subdomain: str = "",
    problem_type: str = "proof",
    output_type: str = "note",
    tags: list[str] | None = None,
    body: str | None = None,
    statement: str | None = None,
    make_current: bool = True,
) -> dict[str, object]:
    """Create problems/<slug>/ with its starting artifacts and register it in config.json."""
    title = " ".join(title.split())
    if not title:
        raise BadInput("the problem needs a non-empty title", code="bad_title")
    domain = domain_name(domain) or domain  # "pde", "optimization": the row they name
    if domain not in PROBLEM_DOMAINS:
        raise BadInput(
            f"unknown domain {domain!r}; use one of: {', '.join(PROBLEM_DOMAINS)}", "bad_domain"
        )
    if problem_type not in PROBLEM_TYPES:
        raise BadInput(
            f"unknown problem type {problem_type!r}; use one of: {', '.join(PROBLEM_TYPES)}",
            code="bad_type",
        )
    missing: list[str] = []
    if body is not None:
        body, missing = problem_body(body)
    workspace = Workspace.find()
    with workspace.changing_config() as cfg:
        taken = workspace.taken_slugs(cfg)
        if slug is not None:
            check_slug(slug)
            if slug in taken:
                raise BadInput(f"problem slug {slug!r} is already taken", code="slug_taken")
        else:
            base = slugify(title)
            slug, n = base, 1
            while slug in taken:
                n += 1
                slug = f"{base}-{n}"
        created = stamp()
        fields: ProblemFields = {
            "title": title,
            "slug": slug,
            "status": "defined",
            "domain": domain,
            "subdomain": subdomain,
            "type": problem_type,
            "output_type": output_type,
            "tags": tags or [],
            "created": created,
        }
        folder = workspace.problem_dir(slug)
        folder.mkdir(parents=True)
        try:
            files = _write_starting_artifacts(folder, fields, body, statement)
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        cfg["problems"].append(slug)
        if make_current or not cfg["current_problem"]:
            cfg["current_problem"] = slug
    return {
        "slug": slug,
        "title": title,
        "path": str(folder),
        "files": files,
        "sections_missing": missing,
        "current_problem": cfg["current_problem"],
    }


def _write_starting_artifacts(
    folder: Path, fields: ProblemFields, body: str | None, statement: str | None
) -> list[str]:
    """Write a new problem's artifacts from the templates; returns their paths."""
    slug, title, created = fields["slug"], fields["title"], fields["created"]
    values = {"title": title, "slug": slug, "statement": statement or "(to be stated)"}
    fill = {"problem": slug, "created": created, "updated": created}
    files = []
    for name in STARTING_ARTIFACTS:
        if name == "PROBLEM.md":
            text = instantiate(name, values, fields)
            if body is not None:
                text = with_frontmatter(split_frontmatter(text)[0], body)
        elif name == "LITERATURE.md":
            text = template(slug, title)
        elif name == "NOTATION.md":
            domain = fields["domain"]
            text = new_notation(slug, title, domain if domain in DOMAINS else None)
        else:
            text = instantiate(name, values, {}, fill)
        atomic_write(folder / name, text)
        files.append(str(folder / name))
    return files


def switch(slug: str) -> dict[str, object]:
    workspace = Workspace.find()
    with workspace.changing_config() as cfg:
        slug = workspace.resolve(slug, cfg)
        previous, cfg["current_problem"] = cfg["current_problem"], slug
    return {"current_problem": slug, "previous": previous, "path": str(workspace.problem_dir(slug))}


def archive(slug: str) -> dict[str, object]:
    """Move problems/<slug>/ to archive/<slug>/; the current problem becomes none if it was this."""
    workspace = Workspace.find()
    with workspace.changing_config() as cfg:
        slug = workspace.resolve(slug, cfg)
        target = workspace.archive_dir / slug
        if target.exists():
            raise BadInput(f"{target} already exists; move it away first", code="archive_exists")
        workspace.archive_dir.mkdir(parents=True, exist_ok=True)
        shutil.move(str(workspace.problem_dir(slug)), str(target))
        cfg["problems"].remove(slug)
        cfg["archived"].append(slug)
        if cfg["current_problem"] == slug:
            cfg["current_problem"] = None
    return {"archived": slug, "path": str(target), "current_problem": cfg["current_problem"]}


def agent_models(set_models: Sequence[str] = (), reset: Sequence[str] = ()) -> dict[str, object]:
    """The model each agent runs on; `set_models` ("AGENT=MODEL") and `reset` (AGENT) first change
    the workspace's overrides in config.json. Without a workspace, only reading works."""
    agents = models.declared()
    changes = [_model_assignment(text, agents) for text in set_models]
    reset = [models.current_name(agent) for agent in reset]
    for agent in reset:
        if agent not in agents:
            raise BadInput(f"no agent {agent!r}; agents: {', '.join(agents)}", code="unknown_agent")
    if not changes and not reset:
        root = workspace_root()
        found = (root / ".math" / "config.json").exists()
        cfg: Mapping[str, object] = Workspace(root).read_config() if found else {}
        return {"workspace": str(root) if cfg else None, **models.in_use(cfg, agents)}
    workspace = Workspace.find()
    with workspace.changing_config() as changing:
        chosen = changing.get(models.CONFIG_KEY)
        chosen = dict(chosen) if isinstance(chosen, dict) else {}
        chosen.update(changes)
        for agent in reset:
            chosen.pop(agent, None)
        changed = {agent for agent, _ in changes} | set(reset)
        for saved_as in [name for name in chosen if models.current_name(name) != name]:
            if models.current_name(saved_as) in changed:
                del chosen[saved_as]  # a former name's entry gives way to the one just saved
        changing[models.CONFIG_KEY] = chosen
    return {"workspace": str(workspace.root), **models.in_use(changing, agents)}


def _model_assignment(text: str, agents: Mapping[str, object]) -> tuple[str, str]:
    agent, sep, model = text.partition("=")
    problem = models.check(agent.strip(), model.strip(), agents) if sep else None
    if not sep or problem:
        raise BadInput(problem or f"{text!r} is not AGENT=MODEL", code="bad_model")
    return models.current_name(agent.strip()), model.strip()
