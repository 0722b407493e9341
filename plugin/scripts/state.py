#!/usr/bin/env python3
"""The research loop's state machine over a problem's STATE.md: show it, say what comes next,
move it, and archive a finished run.

States: INTAKE, LITERATURE_SEARCH, PROOF_DEVELOPMENT, COMPUTATION, REVIEW, LATEX_OUTPUT, DONE.
Legal moves: INTAKE -> LITERATURE_SEARCH -> PROOF_DEVELOPMENT -> REVIEW -> LATEX_OUTPUT -> DONE,
plus the back-edges PROOF_DEVELOPMENT -> LITERATURE_SEARCH, PROOF_DEVELOPMENT <-> COMPUTATION and
REVIEW -> PROOF_DEVELOPMENT (the referee found a gap or a wrong step). Each move is checked against
the files: PROOF_DEVELOPMENT from LITERATURE_SEARCH needs a search recorded in this visit
(literature.py merge or finish; one that found nothing too) or, on the first visit, one the user
already made (the rule `next` follows; else the user's continue), REVIEW needs a PROOF.md complete
by its own rules, COMPUTATION an unanswered request, LATEX_OUTPUT a REVIEW.md sealed on this
PROOF.md in which every step is checked, DONE an OUTPUT.tex that passes latex.py check and the
OUTPUT.pdf latex.py compile made from it as it is (OUTPUT.compile.json, keyed like STATE.md; every
claim the PDF's text prints under a Theorem, Lemma, ... head a sealed [P] step's statement or its
lower tier; without TeX: refused with the install line, unless "tex_only": true in
.math/config.json, then its tex-only record). Each back-edge pair may loop 3 times; a fourth, or
a write-up without a passing review, needs the user: they type /math:research continue (or
accept-partial), which the plugin records as they type it, and --user-approved uses that record
up; without it --user-approved is refused.
STATE.md carries a digest keyed by .math/signing.key: a hand-edited state is refused (code
state_tampered). When the key is lost every state reads so; the way back is `resign`, after the
user types /math:research resign.

subcommands:
  show                        STATE.md as JSON (state, loops, history, legal moves) and
                              the problem's files that exist
  next                        the next step, from the artifacts' frontmatter only: which
                              transition to record, which agent to spawn (and its task), or
                              what to ask the user
  advance                     record every move that needs no agent and no user, then print
                              the step that does (as `next`, the moves made in `applied`)
  transition TO --reason R    record a move; refuses illegal moves and capped loops
  archive-session [--partial] check DONE's grounds again, copy the finished run into
                              sessions/session-NNN/ and restart
  resign                      after .math/signing.key was lost or replaced (every STATE.md
                              then reads as hand-edited): seal every problem's STATE.md and
                              run records again with the key there now; only after the user
                              checked the files and typed /math:research resign
  brief --for AGENT           what that agent reads before it works (proof, computation,
                              referee, latex-writer), as Markdown: the parts of the problem's
                              files it needs, and the protocol lines its runbook uses; its
                              first call (Claude Code does not attach files to an agent)

example:
  state.py advance --problem twin-primes
  state.py transition COMPUTATION --reason "PROOF.md computation_needed: true"
  state.py brief --for proof --problem twin-primes

Exit codes: 0 ok, 2 bad input or a refused move (codes illegal_transition, loop_cap, needs_user,
no_search, proof_incomplete, no_request, not_reviewed, latex_check_failed, state_tampered,
not_done), 4 environment, 5 internal error.
"""

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

sys.dont_write_bytecode = True  # until ensure() sends it out of plugin/ (core/bootstrap.py)
sys.path.insert(0, str(Path(__file__).resolve().parent))
from mathtools.core import ensure  # noqa: E402

ensure()

from mathtools import cli  # noqa: E402
from mathtools.research import (  # noqa: E402
    AGENTS,
    STATES,
    advance,
    archive_session,
    brief,
    next_step,
    parse_problem_command,
    resign,
    show_state,
    transition,
)


def _printed(step: Mapping[str, object]) -> dict[str, object]:
    """What the orchestrator reads at every turn of the loop, on one line: no empty field, no
    cap it already knows, no `flags` (the frontmatter values the router read: its `reason` says
    what they decided, and `state.py next` prints them), and the state's history and loop
    counts only where the loop stops (done, a question), for its report and the user; at a
    spawn, `applied` names the moves just made."""
    return {
        key: value
        for key, value in step.items()
        if value not in (None, [], {}, "")
        and key not in ("loop_cap", "flags")
        and (key not in ("history", "loops") or step.get("action") != "spawn")
    }


def main(argv: Sequence[str]) -> None:
    parser = cli.ArgumentParser(description=__doc__)
    commands = parser.add_commands()
    commands.add_parser("show", help="STATE.md as JSON")
    commands.add_parser("next", help="the next step, as JSON")
    commands.add_parser("advance", help="record the moves that need no agent; the next step")
    move = commands.add_parser("transition", help="record a move to state TO")
    move.add_argument("to", metavar="TO", help=", ".join(STATES))
    move.add_argument("--reason", required=True, help="why (recorded in the history)")
    move.add_argument(
        "--user-approved",
        action="store_true",
        help="use the approval the user gave by typing /math:research continue|accept-partial",
    )
    archive = commands.add_parser("archive-session", help="archive the finished run")
    archive.add_argument(
        "--partial", action="store_true", help="archive a run that is not DONE (user's decision)"
    )
    commands.add_parser(
        "resign", help="after signing.key was lost: seal the workspace again (the user's resign)"
    )
    agent = commands.add_parser("brief", help="what an agent reads before it works (Markdown)")
    agent.add_argument("--for", dest="agent", required=True, choices=AGENTS)
    args, slug, folder = parse_problem_command(parser, commands, argv)
    if args.command == "show":
        cli.emit(show_state(folder, slug))
    elif args.command == "next":
        cli.emit(next_step(folder, slug))
    elif args.command == "advance":
        cli.acknowledge(_printed(advance(folder, slug)))
    elif args.command == "transition":
        cli.emit(transition(folder, slug, args.to, args.reason, args.user_approved))
    elif args.command == "brief":
        sys.stdout.write(brief(folder, slug, args.agent))
    elif args.command == "resign":
        cli.emit(resign(folder, slug))
    else:
        cli.emit(archive_session(folder, slug, args.partial))


if __name__ == "__main__":
    cli.run(main)
