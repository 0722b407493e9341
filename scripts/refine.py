#!/usr/bin/env python3
"""The refinement loop's rules (seed 004): stop, or search a refined query, decided by script.

After an iteration's runs are recorded (lit_update.py record-run) and judged (lit_update.py
judge), `feedback` reads them from the run store and decides:

  stop     a strong hit was found, or 3 iterations have run;
  refine   otherwise: it prints the feedback memo built from the partial (else irrelevant)
           judgements, and the model proposes ONE refined query.

`next` checks that refined query: it stops the loop when the query is empty or repeats an
earlier query of the problem (case, accents, quotes and spacing ignored), and otherwise prints
the next iteration's command lines: its searches (arxiv_query.py and s2_lookup.py) and the
lit_update.py record-run that stores them with the memo (written to RUN_DIR/feedback-i<N>.md
with --run-dir, whose searches write RUN_DIR/i<N>-arxiv-1.json and RUN_DIR/i<N>-s2-1.json).

`keep`, once the loop has stopped, writes the papers judged strong or partial in a search's
runs as a verify_batch.py candidate list (records from the run store, so nothing is retyped and
irrelevant papers never reach LITERATURE.md), and prints how many it kept.

Each prints one line of JSON.

Subcommands:
  feedback --runs ID [ID ...]                 decide after an iteration; print the memo
  next --runs ID [ID ...] --query TEXT        check a refined query; print the next searches
  keep --runs ID [ID ...] --out FILE          the kept papers, as candidates to verify

Example:
  refine.py feedback --runs 3 4
  refine.py next --runs 3 4 --query "Opial property nonexpansive" --run-dir RUN_DIR
  refine.py keep --runs 3 4 5 6 --out RUN_DIR/candidates.json

Exit codes: 0 decided (see "decision"), 2 bad input (unknown run, no run store there, a paper
of the runs not judged, an --out that cannot be written), 4 environment (dependencies could not
be installed, the run store is unusable), 5 internal error.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mathtools import bootstrap, errors, files

bootstrap.ensure()

from mathtools import cli, planning, refinement, rundir  # noqa: E402


def main(argv):
    parser = cli.ArgumentParser(description=__doc__)
    commands = parser.add_commands()
    db_parent = cli.run_store_option()
    feedback = commands.add_parser(
        "feedback", parents=[db_parent], help="stop or refine after an iteration"
    )
    feedback.add_argument("--runs", type=int, nargs="+", required=True, metavar="ID")
    following = commands.add_parser(
        "next", parents=[db_parent], help="check a refined query; the next searches"
    )
    following.add_argument("--runs", type=int, nargs="+", required=True, metavar="ID")
    following.add_argument("--query", required=True, help="the refined query the model proposes")
    following.add_argument("--per-query", type=int, default=5, help="results per search (5)")
    following.add_argument("--run-dir", help="folder the searches' --out files go to")
    keep = commands.add_parser(
        "keep", parents=[db_parent], help="write the strong and partial papers to verify"
    )
    keep.add_argument("--runs", type=int, nargs="+", required=True, metavar="ID")
    keep.add_argument("--out", required=True, help="the candidate list to write")
    args = parser.parse_args(argv)
    if args.command == "next":
        planning.check_per_query(args.per_query)

    from mathtools.store import open_store

    with open_store(args.db, create=False) as store:
        if args.command == "keep":
            return cli.acknowledge(kept(store, args.runs, Path(args.out)))
        iteration = Iteration.load(store, args.runs)
        problem = problem_of(iteration.problem)
        references = planning.reference_keys(problem) if problem else set()
        decision = refinement.after_iteration(iteration.number, iteration.judgements, references)
        result = {
            "iteration": iteration.number,
            "decision": "stop" if decision.stop else "refine",
            "reason": decision.reason,  # names the strong hits
        }
        if decision.stop:
            return cli.acknowledge(result)
        memo = refinement.memo(iteration.number, iteration.runs, iteration.judgements)
        if args.command == "feedback":
            return cli.acknowledge({**result, "memo": memo})
        earlier = [run["query"] for run in store.prior_queries(iteration.problem)]
        decision = refinement.check_refined(args.query, earlier)
        result["decision"] = "stop" if decision.stop else "search"
        result["reason"] = decision.reason
        if not decision.stop:  # the model has read the memo (feedback): it is not printed again
            result.update(next_iteration(iteration, args, memo, problem))
    cli.acknowledge(result)


class Iteration:
    """The runs of one iteration of one problem's loop, and their judgements."""

    def __init__(self, problem, number, runs, judgements):
        self.problem, self.number, self.runs, self.judgements = problem, number, runs, judgements

    @classmethod
    def load(cls, store, run_ids):
        runs = [store.run(run_id) for run_id in dict.fromkeys(run_ids)]
        problems = {run["problem"] for run in runs}
        numbers = {run["iteration"] for run in runs}
        if len(problems) > 1 or len(numbers) > 1:
            raise errors.BadInput(
                "--runs must name the runs of ONE iteration of ONE problem; got "
                + ", ".join(
                    f"run {r['run_id']} ({r['problem']}, iteration {r['iteration']})" for r in runs
                ),
                code="mixed_runs",
            )
        judgements = []
        for run in runs:
            unjudged = store.unjudged(run["run_id"])
            if unjudged:  # an unjudged paper would silently drop out of the loop and of `keep`
                shown = ", ".join(unjudged[:5]) + (", ..." if len(unjudged) > 5 else "")
                raise errors.BadInput(
                    f"run {run['run_id']}: {len(unjudged)} of its {run['result_count']} papers "
                    f"are not judged ({shown}): judge every paper with lit_update.py judge first",
                    code="not_judged",
                )
            judgements += store.judgements(run["run_id"])
        return cls(problems.pop(), numbers.pop(), runs, judgements)


def next_iteration(iteration, args, memo, problem):
    """The next iteration's number and its command lines: the searches, then the record-run
    that stores them with the memo (in the run folder's feedback-i<N>.md when there is one)."""
    number = iteration.number + 1
    queries = refinement.refined_queries(
        args.query, problem.domain if problem else None, args.per_query
    )
    plan = {
        "queries": {
            api: [
                planning.query_entry(q, args.run_dir, planning.results_stem(number, api, n))
                for n, q in enumerate(found, 1)
            ]
            for api, found in queries.items()
        }
    }
    if args.run_dir:
        memo_file = Path(args.run_dir) / f"feedback-i{number}.md"
        files.write_file(memo_file, memo)
        plan["record_run"] = planning.record_run_args(
            iteration.problem, number, args.run_dir, feedback=f"@{memo_file}"
        )
    return {"next_iteration": number, "commands": planning.command_lines(plan)}


def kept(store, run_ids, out):
    """Write the strong and partial papers of `run_ids` to `out` as candidates; the counts."""
    runs = [store.run(run_id) for run_id in dict.fromkeys(run_ids)]
    judgements = [j for run in runs for j in store.judgements(run["run_id"])]
    chosen = refinement.kept_papers(judgements)
    rundir.write_json(out, [refinement.as_candidate(j) for j in chosen])
    return {
        "kept": len(chosen),
        "strong": sum(j["label"] == "strong" for j in chosen),
        "partial": sum(j["label"] == "partial" for j in chosen),
        "judged": len({j["key"] for j in judgements}),
    }


def problem_of(slug):
    """The problem's PROBLEM.md in this workspace, read, if there is one."""
    path = rundir.problem_file(slug)
    return planning.read_problem(path) if path.exists() else None


if __name__ == "__main__":
    cli.run(main)
