#!/usr/bin/env python3
"""Manage the research workspace `.math/`: its problems, the current one, and their status.

Subcommands (each prints JSON):
  init          create .math/ here (config.json, problems/, archive/, DASHBOARD.md); idempotent
  new-problem   start a problem: problems/<slug>/ with PROBLEM.md, JOURNAL.md, STATE.md,
                NOTATION.md (and LITERATURE.md); the slug comes from the title, made unique
  switch SLUG   make SLUG the current problem
  archive SLUG  move a problem to .math/archive/
  status        every problem's state and counts, read from its artifacts' frontmatter, and
                its write-up (`write_up`: compiled from the current OUTPUT.tex, tex only, or
                why not); whether TeX is installed and tex only chosen (`tex`); rebuilds
                .math/DASHBOARD.md from them
  dashboard     rebuild .math/DASHBOARD.md (init, new-problem, switch, archive, status and
                resume do it too; the research scripts do not)
  resume        what a new session needs to pick the current problem up again (rebuilds
                DASHBOARD.md)
  notation      show or change a problem's NOTATION.md: a domain preset, custom symbols
  models        the model each agent runs on: its agent file's `model:`, or the workspace's
                override in config.json ("models"), which --set AGENT=MODEL and --reset AGENT
                change (MODEL: opus, sonnet, haiku or fable); an agent's former name
                (session-manager, now journal-keeper) is still accepted, deprecated

Example:
  workspace.py init
  workspace.py new-problem --title "Spectral radius of compact perturbations" \\
      --domain analysis --subdomain "operator theory" --type proof --tags spectral-radius,compact \\
      --body - < statement.md
  workspace.py notation --preset analysis --add '\\mathcal{H}' 'a separable Hilbert space'
  workspace.py models --set literature-search=sonnet --reset journal-keeper

The workspace is $MATH_WORKSPACE, else the nearest folder at or above the working directory that
holds .math/ (init creates it in the working directory). Slugs are lowercase letters and digits in
words joined by single hyphens, at most 64 characters, never a Windows device name (con, nul,
...): one rule for every script (mathtools/core/slugs.py); anything else (paths, '..', spaces, a--b)
is refused (bad_slug).

Exit codes: 0 ok, 2 bad input (unknown problem, unsafe slug, no workspace), 4 environment
(dependencies could not be installed, a file locked by another process), 5 internal error.
"""

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

sys.dont_write_bytecode = True  # until ensure() sends it out of plugin/ (core/bootstrap.py)
sys.path.insert(0, str(Path(__file__).resolve().parent))
from mathtools.core import ensure  # noqa: E402

ensure()

from mathtools import cli  # noqa: E402
from mathtools.core import domain_name  # noqa: E402
from mathtools.research import (  # noqa: E402
    CUSTOM,
    PRESETS,
    PROBLEM_DOMAINS,
    PROBLEM_TYPES,
    Workspace,
    agent_models,
    archive,
    init,
    new_problem,
    parse_tags,
    presets,
    render_dashboard,
    resume,
    status,
    switch,
    update,
)


def main(argv: Sequence[str]) -> None:
    parser = cli.ArgumentParser(description=__doc__)
    sub = parser.add_commands()

    sub.add_parser("init", help="create .math/ in the working directory (idempotent)")

    new = sub.add_parser("new-problem", help="start a new problem and make it current")
    new.add_argument("--title", required=True, help="the problem's title (the slug comes from it)")
    new.add_argument("--slug", help="use this slug instead of one derived from the title")
    new.add_argument(
        "--domain", default="other", choices=PROBLEM_DOMAINS,
        type=lambda name: domain_name(name) or name,
        help="a row of the domain map, or a common name of its field (pde, optimization)",
    )  # fmt: skip
    new.add_argument("--subdomain", default="", help="e.g. 'operator theory'")
    new.add_argument("--type", default="proof", choices=PROBLEM_TYPES, dest="problem_type")
    new.add_argument("--output-type", default="note", help="the write-up wanted: note, paper, ...")
    new.add_argument("--tags", default="", help="comma-separated keywords: spectral-radius,banach")
    new.add_argument(
        "--body",
        help="PROBLEM.md body (markdown with '# Problem Statement', '## Known Results', "
        "'## References', '## Constraints', '## Goals'); '-' reads stdin, '@FILE' a file",
    )
    new.add_argument("--statement", help="just the statement; the other sections stay templates")
    new.add_argument("--no-switch", action="store_true", help="keep the current problem current")

    for name, text in (("switch", "make SLUG the current problem"), ("archive", "archive SLUG")):
        one = sub.add_parser(name, help=text)
        one.add_argument("slug", metavar="SLUG")

    sub.add_parser("status", help="every problem's state and counts")
    sub.add_parser("dashboard", help="regenerate .math/DASHBOARD.md")

    res = sub.add_parser("resume", help="state, recent journal entries and dead ends of a problem")
    res.add_argument("--problem", metavar="SLUG", help="default: the current problem")
    res.add_argument("--recent", type=int, default=5, help="how many latest entries (5)")

    nota = sub.add_parser("notation", help="show or change NOTATION.md")
    nota.add_argument("--problem", metavar="SLUG", help="default: the current problem")
    nota.add_argument(
        "--preset",
        choices=[*PRESETS, CUSTOM],
        help="replace the Preset section ('custom': none, only your own symbols)",
    )
    nota.add_argument(
        "--add", nargs=2, metavar=("SYMBOL", "MEANING"), help="add or redefine a custom symbol"
    )
    nota.add_argument("--list-presets", action="store_true", help="list the presets and stop")

    mods = sub.add_parser("models", help="the model each agent runs on; change the overrides")
    mods.add_argument(
        "--set", action="append", default=[], metavar="AGENT=MODEL", dest="set_models",
        help="run AGENT on MODEL in this workspace (repeatable)",
    )  # fmt: skip
    mods.add_argument(
        "--reset", action="append", default=[], metavar="AGENT",
        help="back to the model AGENT's file declares (repeatable)",
    )  # fmt: skip

    args = parser.parse_args(argv)
    result: Mapping[str, object]
    if args.command == "init":
        result = init()
    elif args.command == "new-problem":
        result = new_problem(
            args.title,
            slug=args.slug,
            domain=args.domain,
            subdomain=args.subdomain,
            problem_type=args.problem_type,
            output_type=args.output_type,
            tags=parse_tags(args.tags),
            body=cli.text_arg(args.body),
            statement=cli.text_arg(args.statement),
            make_current=not args.no_switch,
        )
    elif args.command == "switch":
        result = switch(args.slug)
    elif args.command == "archive":
        result = archive(args.slug)
    elif args.command == "status":
        result = status(refresh=True)
    elif args.command == "dashboard":
        result = render_dashboard()
    elif args.command == "resume":
        result = resume(args.problem, recent=max(args.recent, 0))
    elif args.command == "models":
        result = agent_models(args.set_models, args.reset)
    elif args.list_presets:
        result = presets()
    else:
        workspace = Workspace.find()
        path = workspace.problem_dir(workspace.resolve(args.problem)) / "NOTATION.md"
        result = update(path, preset=args.preset, add=args.add)
    cli.emit(result)


if __name__ == "__main__":
    cli.run(main)
