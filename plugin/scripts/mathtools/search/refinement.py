"""The refinement loop of the literature search, decided by rules, not by mood.

One iteration is the runs (one per source) that one set of queries produced, each judged paper by
paper `strong`, `partial` or `irrelevant`. After an iteration:

  - a `strong` judgement anywhere in it stops the loop (the search found what it was after),
    unless the paper is one of PROBLEM.md's own references (found again, nothing new); a strong
    hit LITERATURE.md records from an earlier search stops it too (a follow-up that finds its
    answer again has nothing new to look for), and the model refines on only when the task
    asks for more (`literature.py refine` searches below the cap whenever it is asked);
  - a follow-up whose iteration searched its focus (the user's words, or a gap's) and found no
    paper LITERATURE.md lacks that is even partially relevant stops it too: the focus was
    searched and found nothing new (again, `refine` searches on when the model asks);
  - a second iteration that, like every one before it, found no paper even partially relevant
    stops it (BARREN_ITERATIONS: the planned queries and the model's own found nothing near the
    problem; a third query in other words seldom does, and costs the user a round);
  - the third iteration stops it (MAX_ITERATIONS);
  - otherwise the feedback memo (what the partial matches lack; the irrelevant ones only when
    nothing was partial) goes to the model, which proposes one refined query, and
  - that query stops the loop when it is empty or repeats an earlier query of the problem once
    case, accents, quoting and spacing are ignored; else it is searched as the next iteration.

The rules work on plain data (runs and judgements as the run store returns them), so they are
tested without a database; `next_step` and `keep` (refine.py's subcommands) read an iteration
from the run store and apply them.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..core import BadInput, Judgement, fold, strip_latex, write_file
from ..litdoc import paper_identity
from ..research import problem_file
from . import commandlines, problemfile, searchfolder
from .commandlines import ArxivQuery, Query, S2Query
from .keyterms import key_terms
from .querylines import query_line_terms, query_summary
from .store import Run, RunStore

MAX_ITERATIONS = 3
BARREN_ITERATIONS = 2  # iterations with no paper even partially relevant that stop the loop
SHOWN_HITS = 3  # strong hits a stop reason names
MEMO_ITEMS = 8  # judgements quoted in a memo
RATIONALE_CHARS = 160


@dataclass(frozen=True)
class Decision:
    stop: bool
    reason: str


def strong_hits(judgements: list[Judgement]) -> list[str]:
    """The keys judged strong, each once: a paper two runs returned has a judgement in each."""
    return list(dict.fromkeys(j["key"] for j in judgements if j["label"] == "strong"))


def after_iteration(
    iteration: int,
    judgements: list[Judgement],
    references: Collection[str] = (),
    recorded: Mapping[str, str] | None = None,
    focus: str | None = None,
    earlier: Sequence[Judgement] | None = None,
) -> Decision:
    """Stop or refine, once an iteration's papers are judged. A strong hit that is one of the
    problem's own `references` (paper keys: PROBLEM.md already cites it) or that LITERATURE.md
    `recorded` already (paper key -> its REF) found nothing new, so it does not stop the loop;
    the reason says which it is. `focus`: a follow-up's focus this iteration searched; when every
    paper it found that LITERATURE.md lacks is irrelevant, the loop stops. `earlier`: the
    judgements of the search's earlier iterations (None: not known, and the barren rule not
    applied); BARREN_ITERATIONS iterations with no paper even partially relevant stop it."""
    recorded = recorded or {}
    hits = strong_hits(judgements)
    strong = [key for key in hits if key not in references and key not in recorded]
    if strong:  # the first few by key (the model judged them all; the store holds the list)
        more = f" and {len(strong) - SHOWN_HITS} more" if len(strong) > SHOWN_HITS else ""
        return Decision(True, f"strong hit: {', '.join(strong[:SHOWN_HITS])}{more}")
    known = [key for key in hits if key in recorded]
    if known:  # a follow-up that finds its recorded strong hit again found its answer
        named = ", ".join(f"{key} ({recorded[key]})" for key in known[:SHOWN_HITS])
        return Decision(
            True, f"strong hit recorded by an earlier search: {named}; `literature.py refine` "
            "searches on only if the task asks for more than it",
        )  # fmt: skip
    new = [j for j in judgements if j["key"] not in recorded]
    if focus and not hits and all(j["label"] == "irrelevant" for j in new):
        return Decision(
            True, f"the focus ({focus}) was searched: no new paper is even partially relevant;"
            " `literature.py refine` searches on only if the task asks for more",
        )  # fmt: skip
    judged = [*(earlier or ()), *judgements]
    barren = earlier is not None and all(j["label"] == "irrelevant" for j in judged)
    if barren and iteration >= BARREN_ITERATIONS:
        return Decision(
            True, f"{iteration} iterations found no paper even partially relevant: the search "
            "found no prior work; `literature.py refine` searches on only if the task asks for "
            "more",
        )  # fmt: skip
    if iteration >= MAX_ITERATIONS:
        without = "without a new strong hit" if hits else "without a strong hit"
        return Decision(True, f"{MAX_ITERATIONS} iterations reached {without}")
    if hits:
        cited = ", ".join(hits[:SHOWN_HITS])
        return Decision(
            False, f"the strong hits are PROBLEM.md's own references ({cited}): propose a refined "
            "query for what they leave open",
        )  # fmt: skip
    return Decision(False, "no strong hit yet: propose a refined query")


def searched(focus: str, queries: Iterable[str]) -> bool:
    """Whether one of the recorded run `queries` searched `focus` (normalised) as one query."""
    wanted = normalise_query(focus)
    return any(wanted in query_texts(query) for query in queries)


def check_refined(refined: str, earlier_queries: list[str]) -> Decision:
    """Stop when the refined query is empty or repeats an earlier one (normalised)."""
    wanted = normalise_query(refined)
    if not wanted:
        return Decision(True, "the refined query is empty")
    for earlier in earlier_queries:
        if wanted in query_texts(earlier):
            # name the one label it repeats, not every label of that run
            repeated = next((p for p in earlier.split(";") if wanted in query_texts(p)), earlier)
            return Decision(True, f"the refined query repeats an earlier one: {repeated.strip()}")
    return Decision(False, "a new query: search it as the next iteration")


def normalise_query(text: str) -> str:
    """Case, accents, LaTeX, quotes, punctuation and spacing do not make a query new."""
    plain = strip_latex(text or "", for_search=True)
    return " ".join(fold(plain).replace('"', " ").replace("'", " ").strip(" .,;:!?").split())


def query_texts(recorded: str) -> set[str]:
    """The normalised search texts a recorded run query stands for.

    A recorded query is either the refined text itself or planned query labels joined by '; '
    (`s2 --query "fixed point"`, `arxiv --all "fixed point" --domain analysis`): for a label,
    its search words count (here "fixed point"), not its option names."""
    texts = {normalise_query(recorded)}
    for part in recorded.split(";"):
        texts.add(normalise_query(part))
        terms = query_line_terms(part)
        if terms is not None:
            texts.add(normalise_query(" ".join(value for _, value in terms)))
    texts.discard("")
    return texts


def per_paper(judgements: list[Judgement]) -> list[Judgement]:
    """One judgement per paper (its best label): a paper both services returned is judged in
    each run, under each key, and is one paper (identifiers, then title, author and year)."""
    seen: set[object] = set()
    kept: list[Judgement] = []
    for judgement in sorted(judgements, key=lambda j: RANK[j["label"]]):
        keys = paper_identity(judgement.get("record") or {}) or [("key", judgement["key"])]
        if not seen & set(keys):
            kept.append(judgement)
        seen |= set(keys)
    return kept


def memo(
    iteration: int,
    runs: list[Run],
    judgements: list[Judgement],
    rationales: tuple[str, Collection[str]] | None = None,
) -> str:
    """The compact feedback memo built from an iteration's non-strong judgements, as the run
    store records it, each paper once. With `rationales` (the judgements file's name and the keys
    it holds) the memo is the model's: it wrote those rationales a turn ago, so it is pointed to
    them by key rather than shown them again; the others (carried over) are shown."""
    judgements = per_paper(judgements)
    counts = {label: 0 for label in ("strong", "partial", "irrelevant")}
    for judgement in judgements:
        counts[judgement["label"]] += 1
    # What was searched, as words (each search once, the summary cut short): the full labels are
    # in the run store, and a refined query that repeats one is refused there.
    labels = [part.strip() for run in runs for part in run["query"].split(";") if part.strip()]
    known = len(strong_hits(judgements))  # strong, but found before: nothing new
    found = f"no new strong match ({known} strong, known already)" if known else "no strong match"
    lines = [
        f"Iteration {iteration} (searched: {query_summary(labels)}) found {found}: "
        f"{counts['partial']} partial, {counts['irrelevant']} irrelevant."
    ]
    partial = _ranked(j for j in judgements if j["label"] == "partial")
    if partial:
        lines.append("Partial matches, and what they lack:")
        chosen = partial
    else:
        lines.append("Nothing was even partially relevant; why the results missed:")
        chosen = _ranked(j for j in judgements if j["label"] == "irrelevant")
    if not chosen:
        lines.append(
            "- nothing else: every paper found is known already"
            if judgements
            else "- the queries returned no papers at all"
        )
    elif rationales:
        name, written = rationales
        pointed = [j["key"] for j in chosen if j["key"] in written]
        if pointed:
            which = f"these {len(pointed)} papers" if len(pointed) == len(chosen) else None
            lines.append(f"- your rationales for {which or ', '.join(pointed)}, in {name}")
        chosen = [j for j in chosen if j["key"] not in written]
    for judgement in chosen[:MEMO_ITEMS]:
        rationale = " ".join(str(judgement.get("rationale") or "no rationale").split())
        if len(rationale) > RATIONALE_CHARS:
            rationale = rationale[: RATIONALE_CHARS - 1].rstrip() + "…"
        lines.append(f"- {judgement['key']} ({judgement['confidence']:.2f}): {rationale}")
    if len(chosen) > MEMO_ITEMS:
        lines.append(f"- and {len(chosen) - MEMO_ITEMS} more")
    return "\n".join(lines)


def _ranked(judgements: Iterable[Judgement]) -> list[Judgement]:
    """Most confident first; equal confidence in key order (so the memo is deterministic)."""
    return sorted(judgements, key=lambda j: (-float(j["confidence"]), j["key"]))


def refined_queries(refined: str, domain: str | None, per_query: int) -> dict[str, list[Query]]:
    """The refined query as one search per API: Semantic Scholar takes the text as it is; arXiv
    takes every key phrase of it, whole and each required, inside the domain's categories (the
    model chose each word: none is cut; only stopwords fall between the phrases). Both relax
    when they find nothing (relaxation.py)."""
    text = " ".join(strip_latex(refined, for_search=True).split())
    terms = key_terms(text, limit=None, max_words=None) or [text]
    return {
        "arxiv": [
            Query("refined", ArxivQuery(all_terms=tuple(terms), domain=domain, limit=per_query))
        ],
        "semantic_scholar": [Query("refined", S2Query(query=text, limit=per_query))],
    }


RANK = {"strong": 0, "partial": 1, "irrelevant": 2}
CANDIDATE_FIELDS = ("title", "authors", "year", "arxiv_id", "doi", "s2_paper_id", "zbl")


def kept_papers(judgements: list[Judgement]) -> list[Judgement]:
    """The judgements worth verifying: strong or partial, one per paper key (its best label),
    strong first, then by confidence, then by key."""
    best: dict[str, Judgement] = {}
    for judgement in judgements:
        known = best.get(judgement["key"])
        if known is None or _better(judgement, known):
            best[judgement["key"]] = judgement
    chosen = [j for j in best.values() if j["label"] != "irrelevant"]
    return sorted(chosen, key=lambda j: (RANK[j["label"]], -float(j["confidence"]), j["key"]))


def _better(a: Judgement, b: Judgement) -> bool:
    return (RANK[a["label"]], -float(a["confidence"])) < (RANK[b["label"]], -float(b["confidence"]))


def as_candidate(judgement: Judgement) -> dict[str, object]:
    """A verify_batch.py candidate from the paper record the run store kept with a judgement."""
    record: Mapping[str, object] = judgement["record"]
    candidate: dict[str, object] = {"key": judgement["key"]}
    candidate.update({name: record[name] for name in CANDIDATE_FIELDS if record.get(name)})
    candidate["source"] = record.get("source") or "discovery"
    return candidate


@dataclass
class Iteration:
    """The runs of one iteration of one problem's loop, and their judgements."""

    problem: str
    number: int
    runs: list[Run]
    judgements: list[Judgement]

    @classmethod
    def load(cls, store: RunStore, run_ids: list[int]) -> Iteration:
        runs = [store.run(run_id) for run_id in dict.fromkeys(run_ids)]
        problems = {run["problem"] for run in runs}
        numbers = {run["iteration"] for run in runs}
        if len(problems) > 1 or len(numbers) > 1:
            raise BadInput(
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
                raise BadInput(
                    f"run {run['run_id']}: {len(unjudged)} of its {run['result_count']} papers "
                    f"are not judged ({shown}): judge every paper with lit_update.py judge first",
                    code="not_judged",
                )
            judgements += store.judgements(run["run_id"])
        return cls(problems.pop(), numbers.pop(), runs, judgements)


def next_refinement_step(
    store: RunStore,
    run_ids: list[int],
    query: str | None = None,
    per_query: int = 5,
    search_folder: str | None = None,
) -> dict[str, object]:
    """After the iteration of `run_ids`: stop, or (without `query`) the feedback memo for the
    model, or (with the refined `query` it proposed) stop on a repeat, else the next iteration's
    command lines."""
    iteration = Iteration.load(store, run_ids)
    problem = problem_of(iteration.problem)
    references = problemfile.reference_keys(problem) if problem else set()
    decision = after_iteration(iteration.number, iteration.judgements, references)
    result: dict[str, object] = {
        "iteration": iteration.number,
        "decision": "stop" if decision.stop else "refine",
        "reason": decision.reason,  # names the strong hits
    }
    if decision.stop:
        return result
    feedback = memo(iteration.number, iteration.runs, iteration.judgements)
    if query is None:
        return {**result, "memo": feedback}
    earlier = [run["query"] for run in store.prior_queries(iteration.problem)]
    decision = check_refined(query, earlier)
    result["decision"] = "stop" if decision.stop else "search"
    result["reason"] = decision.reason
    if not decision.stop:  # the model has read the memo (feedback): it is not printed again
        result.update(next_iteration(iteration, query, per_query, search_folder, feedback, problem))
    return result


def next_iteration(
    iteration: Iteration,
    query: str,
    per_query: int,
    search_folder: str | None,
    feedback: str,
    problem: problemfile.Problem | None,
) -> dict[str, object]:
    """The next iteration's number and its command lines: the searches, then the record-run
    that stores them with the memo (in the search folder's feedback-i<N>.md when there is one)."""
    number = iteration.number + 1
    queries = refined_queries(query, problem.domain if problem else None, per_query)
    plan: commandlines.PlannedQueries = {
        "queries": {
            api: [
                commandlines.query_entry(
                    q, search_folder, commandlines.results_stem(number, api, n)
                )
                for n, q in enumerate(found, 1)
            ]
            for api, found in queries.items()
        }
    }
    if search_folder:
        memo_file = Path(search_folder) / f"feedback-i{number}.md"
        write_file(memo_file, feedback)
        plan["record_run"] = commandlines.record_run_args(
            iteration.problem, number, search_folder, feedback=f"@{memo_file}"
        )
    return {"next_iteration": number, "commands": commandlines.command_lines(plan)}


def keep(store: RunStore, run_ids: list[int], out: Path) -> dict[str, object]:
    """Write the strong and partial papers of `run_ids` to `out` as candidates; the counts."""
    runs = [store.run(run_id) for run_id in dict.fromkeys(run_ids)]
    judgements = [j for run in runs for j in store.judgements(run["run_id"])]
    chosen = kept_papers(judgements)
    searchfolder.write_json(out, [as_candidate(j) for j in chosen])
    return {
        "kept": len(chosen),
        "strong": sum(j["label"] == "strong" for j in chosen),
        "partial": sum(j["label"] == "partial" for j in chosen),
        "judged": len({j["key"] for j in judgements}),
    }


def problem_of(slug: str) -> problemfile.Problem | None:
    """The problem's PROBLEM.md in this workspace, read, if there is one."""
    path = problem_file(slug)
    return problemfile.read_problem(path) if path.exists() else None
