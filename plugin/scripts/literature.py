#!/usr/bin/env python3
"""/math:literature's phases, one call each (agents/literature-search.md plays them in order).

  discover [SLUG] [FOCUS ...]   plan the queries from PROBLEM.md, run every one (arXiv and
                                Semantic Scholar, under their rate limits, progress on stderr),
                                record the runs, and print one line per distinct paper with a
                                gist of its abstract, ranked against the problem, the best
                                down to a cut (then how many more are below it; `more` lists
                                them); when it lists none, the loop's decision as judge prints
                                it. The first word is the problem when a problem of that slug
                                exists, else the current problem's focus.
                                Creates the search folder R, which it prints.
                                With --gap, the focus is PROOF.md's first reference-needed
                                gap not yet searched (its Suggested resolution, LaTeX
                                stripped): it prints `gap: Gap N: ...` first and marks the
                                gap searched (a `**Searched:**` line under its fields, even
                                when the search finds nothing, so the next call takes the
                                next gap); when every such gap was searched, it says so and
                                searches nothing
  more R                        list the current iteration's papers ranked below the cut (the
                                listing names how many there are); judge takes those
                                judged, the others stay recorded as not read
  judge R                       store R/judgements-i<N>.json (every listed paper labelled
                                strong, partial or irrelevant; a paper left below the cut is
                                recorded as not read; `remembered` papers go to verification)
                                and print the loop's decision: refine with the memo, or
                                stop, then verify's lines (it runs verify at once)
  refine R --query TEXT         search the refined query as the next iteration (stops when it is
                                empty or repeats an earlier one) and list its new papers; when
                                there are none, the loop's decision as judge prints it (and
                                at stop, verify's lines)
  chase R KEY                   list the papers KEY cites (Semantic Scholar's references) as
                                one more iteration, to judge like the others
  verify R                      (run by whichever phase prints the decision stop; by itself
                                only to try again after a failure) verify the strong and
                                partial papers, PROBLEM.md's references and the remembered
                                papers; per confirmed paper its title and an
                                abstract excerpt, per unconfirmed one the title given and why;
                                when every one is an entry already, it merges too and says
                                `nothing new`: finish next
  merge R                       merge R/verified.json with R/relevance.json into
                                LITERATURE.md, validate it, and name what is still to write
  correct R                     set the fields R/corrections.json gives ({"REF-003":
                                {"key_results": "..."}}, relevance.json's words) in
                                LITERATURE.md's entries (a quote merge named as not in its
                                source), under the file's lock, every other line kept; validate
  finish R --outcome O ...      put R/synthesis.md in (a follow-up's extends the Synthesis;
                                none keeps it), validate, and record
                                the search: the LIT journal entry and STATE.md

Files in R: search.json (the search's problem and runs), plan.json, i<N>-<source>-<n>.json
(each query's results), problem-references.json, judgements-i<N>.json, memory.json,
candidates.json, verified.json, relevance.json, corrections.json, synthesis.md.

Example:
  literature.py discover tolerant-testing
  literature.py discover tolerant-testing --gap
  literature.py judge .math/problems/tolerant-testing/literature-runs/1

Exit codes: 0 done, 1 finish found LITERATURE.md invalid (nothing recorded; the violations are
listed), 2 bad input (a file to fix, a call to correct), 3 every service failing after
retries, 4 environment, 5 internal error.
"""

import argparse
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

sys.dont_write_bytecode = True  # until ensure() sends it out of plugin/ (core/bootstrap.py)
sys.path.insert(0, str(Path(__file__).resolve().parent))
from mathtools.core import EXIT_OK, EXIT_VIOLATIONS, BadInput, ServiceError, ensure  # noqa: E402

ensure()

from mathtools import cli  # noqa: E402

if TYPE_CHECKING:  # the search stack loads only in the commands that need it
    from mathtools.research import Gap
    from mathtools.search import Found, Search


def main(argv: Sequence[str]) -> int | None:
    parser = cli.ArgumentParser(description=__doc__)
    commands = parser.add_commands()
    discover = commands.add_parser("discover", help="plan, search, record, list the papers")
    discover.add_argument("words", nargs="*", metavar="WORD", help="[SLUG] [FOCUS ...]")
    discover.add_argument("--per-query", type=int, default=5, help="results per query (5)")
    discover.add_argument(
        "--gap",
        action="store_true",
        help="search PROOF.md's next unsearched reference-needed gap, and mark it searched",
    )
    for name, what in (
        ("more", "list the papers ranked below the listing's cut"),
        ("judge", "store the iteration's judgements; stop or refine"),
        ("refine", "search a refined query as the next iteration"),
        ("chase", "the papers a strong hit cites, as the next iteration"),
        ("verify", "verify the kept papers and the other candidates"),
        ("merge", "merge into LITERATURE.md and validate"),
        ("correct", "apply R/corrections.json to LITERATURE.md's entries and validate"),
        ("finish", "install the Synthesis, validate, record the journal entry and state"),
    ):
        sub = commands.add_parser(name, help=what)
        sub.add_argument("search_folder", metavar="R", help="the search folder discover printed")
        if name == "chase":
            sub.add_argument("key", help="a paper's key, as a listing showed it")
            sub.add_argument("--limit", type=int, default=20, help="references to list (20)")
        if name == "refine":
            sub.add_argument("--query", required=True, help="ONE refined query, plain words")
        if name == "finish":
            sub.add_argument("--outcome", required=True, choices=["SUCCEEDED", "PARTIAL", "FAILED"])
            sub.add_argument("--title", required=True, help="the journal entry's one-line title")
            sub.add_argument("--reasoning", required=True, help="what was confirmed, what not")
            sub.add_argument("--insight", required=True, help="one observation on the literature")
            sub.add_argument("--tags", default="literature", help="comma separated")
            sub.add_argument(
                "--strategy",
                help="default: broad-survey on a first search, else "
                "targeted-search (citation-chase for a chase of references)",
            )
    args = parser.parse_args(argv)
    return COMMANDS[args.command](args)


def do_discover(args: argparse.Namespace) -> None:
    from mathtools.research import claimed, none_left
    from mathtools.search import problem_path

    path, focus = problem_path(args.words)
    if not args.gap:
        search_focus(path, focus, None, args.per_query)
        return
    if focus:
        raise BadInput(
            "--gap takes its focus from PROOF.md's gap: give the slug and no focus words",
            code="gap_and_focus",
        )
    # the gap stays this run's until it is marked: a run started meanwhile takes another
    with claimed(path.parent / "PROOF.md") as (gap, wanted, busy):
        if gap is None:
            print_lines([none_left(wanted, path.parent.name, busy)])
            return
        search_focus(path, gap.focus(), gap, args.per_query)


def search_focus(path: Path, focus: str | None, gap: "Gap | None", per_query: int) -> None:
    """Search `focus` for the problem at `path`, and mark `gap` searched once it was."""
    from mathtools.research import mark
    from mathtools.search import listing, start_discovery

    search, found = start_discovery(path, focus, per_query)
    named = [f"gap: {gap.name}"] if gap else []
    if not found["runs"] and found["failed"]:  # nothing searched: the gap stays unmarked
        print_lines(named + listing(search, found))
        raise ServiceError("no service answered: try again later", code="all_failed")
    if gap is not None:  # searched, whatever it found: the next call takes the next gap
        mark(path.parent / "PROOF.md", gap.number, search.folder.name)
    print_lines(named)
    show_iteration(search, found)


def do_more(args: argparse.Namespace) -> None:
    from mathtools.search import Search, more

    search = Search.load(args.search_folder)
    search.check_open("listing")
    print_lines(more(search))


def do_judge(args: argparse.Namespace) -> None:
    from mathtools.search import Search, judge

    search = Search.load(args.search_folder)
    search.check_open("judging")
    decide(search, judge(search))


def decide(search: "Search", decision: dict[str, object]) -> None:
    """Print the loop's decision; at `stop`, verify at once: the next phase, which needs nothing
    from the model (one call fewer)."""
    cli.acknowledge(decision)
    if decision.get("decision") == "stop":
        verify_search(search)


def do_refine(args: argparse.Namespace) -> None:
    from mathtools.search import Search, check_refined, refine

    search = Search.load(args.search_folder)
    search.check_open("refining")
    repeated, memo = check_refined(search, args.query)
    if repeated is not None:
        decide(search, {"decision": "stop", "reason": repeated})
    else:
        show_iteration(search, refine(search, args.query, memo))


def show_iteration(search: "Search", found: "Found") -> None:
    """A later iteration's new papers; when it found none, the loop's decision at once (the
    labels of the papers found again carry over: there is nothing to judge)."""
    from mathtools.search import judge, listing

    print_lines(listing(search, found))
    if not found["papers"]:
        decide(search, judge(search))


def do_chase(args: argparse.Namespace) -> None:
    from mathtools.search import Search, chase, check_judged, open_store
    from mathtools.services import check_graph_window

    check_graph_window(args.limit, 100)
    search = Search.load(args.search_folder)
    search.check_open("chasing references")
    with open_store(create=False) as store:
        check_judged(store, search, "chasing references")
    show_iteration(search, chase(search, args.key, args.limit))


def do_verify(args: argparse.Namespace) -> None:
    from mathtools.search import Search

    verify_search(Search.load(args.search_folder))


def verify_search(search: "Search") -> None:
    from mathtools.search import NOTHING_NEW, merge_search, nothing_new, verify

    document, lines = verify(search)
    if document is None:  # no prior work found, an outcome: merged now, LITERATURE.md says so
        lines += merge_search(search)[1]
    elif nothing_new(search, document):
        # nothing to assess or synthesise: the merge is made now, its head line and violations
        report, merged = merge_search(search)
        violations = report["violations"]
        lines += [merged[0], *(violations if isinstance(violations, list) else []), NOTHING_NEW]
    print_lines(lines)


def do_merge(args: argparse.Namespace) -> None:
    from mathtools.search import Search, merge_search

    _, lines = merge_search(Search.load(args.search_folder))
    print_lines(lines)


def do_correct(args: argparse.Namespace) -> None:
    from mathtools.search import Search, correct_search

    print_lines(correct_search(Search.load(args.search_folder)))


def do_finish(args: argparse.Namespace) -> int | None:
    from mathtools.search import Search, finish_search

    done = finish_search(
        Search.load(args.search_folder),
        outcome=args.outcome,
        title=args.title,
        reasoning=args.reasoning,
        insight=args.insight,
        tags=[tag.strip() for tag in args.tags.split(",") if tag.strip()],
        strategy=args.strategy,
    )
    cli.acknowledge(done)
    return EXIT_OK if done["valid"] else EXIT_VIOLATIONS


def print_lines(lines: Iterable[str]) -> None:
    sys.stdout.write("".join(line + "\n" for line in lines))


COMMANDS: dict[str, Callable[[argparse.Namespace], int | None]] = {
    "discover": do_discover,
    "more": do_more,
    "judge": do_judge,
    "refine": do_refine,
    "chase": do_chase,
    "verify": do_verify,
    "merge": do_merge,
    "correct": do_correct,
    "finish": do_finish,
}

if __name__ == "__main__":
    cli.run(main)
