"""The refinement loop's stop rules and feedback memo (mathtools.search.refinement), on plain
data."""

from __future__ import annotations

from itertools import pairwise

import pytest
from mathtools.search import refinement


def judgement(key, label, confidence=0.5, rationale="because"):
    return {"key": key, "label": label, "confidence": confidence, "rationale": rationale}


RUNS = [
    {"run_id": 1, "source": "arxiv", "query": 'arxiv --all "fixed point" --domain analysis'},
    {"run_id": 2, "source": "semantic_scholar", "query": 's2 --query "fixed point theorem"'},
]


# --- stop rule 1: a strong hit ---------------------------------------------------------------


def test_a_strong_hit_that_problem_md_already_cites_does_not_stop_the_loop():
    """Issue 19: finding the problem's own reference again is no answer."""
    judged = [judgement("arXiv:2106.13414", "strong"), judgement("arXiv:1111.1111", "partial")]
    decision = refinement.after_iteration(1, judged, references={"arXiv:2106.13414"})
    assert not decision.stop and "arXiv:2106.13414" in decision.reason
    judged.append(judgement("arXiv:2222.2222", "strong"))
    decision = refinement.after_iteration(1, judged, references={"arXiv:2106.13414"})
    assert decision.stop and decision.reason == "strong hit: arXiv:2222.2222"


def test_a_strong_hit_recorded_by_an_earlier_search_is_named_as_recorded():
    """Issue 37: refine said "the strong hits are PROBLEM.md's own references (arXiv:...)" of a
    REF an earlier search recorded; and the memo beside it, "found no strong match ... no papers
    at all", with one strong judgement."""
    judged = [judgement("arXiv:2505.12496", "strong")]
    decision = refinement.after_iteration(1, judged, recorded={"arXiv:2505.12496": "REF-001"})
    assert "PROBLEM.md" not in decision.reason
    assert "recorded by an earlier search: arXiv:2505.12496 (REF-001)" in decision.reason
    memo = refinement.memo(1, RUNS, judged)
    assert "found no new strong match (1 strong, known already)" in memo
    assert "no papers at all" not in memo and "found no strong match" not in memo


def test_a_strong_hit_an_earlier_search_recorded_stops_a_follow_up():
    """Issue 50: a follow-up finding its recorded strong hit again was told "refine: the strong
    hits are known already" until the iteration cap, 6 calls that found nothing; it stops, and
    the cap's reason never says "without a strong hit" beside a strong judgement."""
    judged = [judgement("arXiv:2505.12496", "strong"), judgement("arXiv:1", "partial")]
    decision = refinement.after_iteration(1, judged, recorded={"arXiv:2505.12496": "REF-001"})
    assert decision.stop and decision.reason.startswith("strong hit recorded by an earlier")
    cited = refinement.after_iteration(3, judged, references={"arXiv:2505.12496"})
    assert cited.stop and cited.reason == "3 iterations reached without a new strong hit"


def test_the_memo_counts_papers_and_points_at_the_rationales_its_file_holds():
    """Issue 50: "5 partial" beside `"partial": 3` (a paper both services returned counted
    twice), and "your rationales for these 5 papers" pointing at a file holding one."""
    record = {"title": "Same paper", "arxiv_id": "2001.00001", "authors": ["A. B"], "year": 2020}
    judged = [
        {**judgement("arXiv:2001.00001", "partial"), "record": record},
        {**judgement("S2:abc", "partial"), "record": {**record, "s2_paper_id": "abc"}},
        judgement("arXiv:2", "partial"),
    ]
    said = refinement.memo(2, RUNS, judged, ("R/judgements-i2.json", {"arXiv:2"}))
    assert "2 partial, 0 irrelevant" in said
    assert "- your rationales for arXiv:2, in R/judgements-i2.json" in said
    assert "- arXiv:2001.00001 (" in said and "S2:abc" not in said


def test_a_strong_hit_stops_the_loop():
    decision = refinement.after_iteration(
        1, [judgement("arXiv:1", "partial"), judgement("S2:abc", "strong", 0.9)]
    )
    assert decision.stop
    assert decision.reason == "strong hit: S2:abc"


def test_the_reason_names_the_first_three_strong_hits_and_counts_the_rest():
    keys = [f"arXiv:{n}" for n in range(1, 6)]
    decision = refinement.after_iteration(1, [judgement(key, "strong") for key in keys])
    assert decision.reason == "strong hit: arXiv:1, arXiv:2, arXiv:3 and 2 more"


def test_a_paper_two_runs_returned_is_named_once():
    """Issue 27: "strong hit: arXiv:2505.05709, arXiv:2505.05709" (a judgement per run)."""
    judged = [judgement("arXiv:2505.05709", "strong"), judgement("arXiv:2505.05709", "strong")]
    assert refinement.after_iteration(1, judged).reason == "strong hit: arXiv:2505.05709"


def test_a_strong_hit_in_the_last_allowed_iteration_is_reported_as_the_reason():
    decision = refinement.after_iteration(3, [judgement("arXiv:1", "strong")])
    assert decision.stop and decision.reason.startswith("strong hit")


# --- stop rule 2: the iteration cap ----------------------------------------------------------


@pytest.mark.parametrize("iteration", [1, 2])
def test_below_the_cap_without_a_strong_hit_the_model_refines(iteration):
    decision = refinement.after_iteration(iteration, [judgement("arXiv:1", "partial")])
    assert not decision.stop


@pytest.mark.parametrize("iteration", [3, 4])
def test_three_iterations_stop_the_loop(iteration):
    decision = refinement.after_iteration(iteration, [judgement("arXiv:1", "partial")])
    assert decision.stop
    assert decision.reason == "3 iterations reached without a strong hit"


def test_an_iteration_that_found_nothing_is_refined_not_stopped():
    assert not refinement.after_iteration(1, []).stop
    assert not refinement.after_iteration(1, [judgement("arXiv:1", "irrelevant")], earlier=[]).stop


def test_a_second_iteration_near_nothing_like_the_first_stops_the_loop():
    """Issue 51's play: a problem the sources hold nothing on went through all three
    iterations, every paper irrelevant, 14 calls. Two barren iterations stop it; a partial paper
    in either, or a follow-up's unknown earlier iterations (None), keep the loop's other rules."""
    barren = [judgement("arXiv:2", "irrelevant")]
    decision = refinement.after_iteration(2, barren, earlier=[judgement("arXiv:1", "irrelevant")])
    assert decision.stop and decision.reason.startswith("2 iterations found no paper even")
    assert refinement.after_iteration(2, [], earlier=[]).stop  # nothing returned at all
    partial_before = [judgement("arXiv:1", "partial")]
    assert not refinement.after_iteration(2, barren, earlier=partial_before).stop
    assert not refinement.after_iteration(2, [judgement("arXiv:2", "partial")], earlier=[]).stop
    assert not refinement.after_iteration(2, barren).stop


# --- stop rule 3: an empty refined query -----------------------------------------------------


@pytest.mark.parametrize("refined", ["", "   ", "\n\t", " . ", '""', "$$"])
def test_an_empty_refined_query_stops_the_loop(refined):
    decision = refinement.check_refined(refined, [])
    assert decision.stop
    assert decision.reason == "the refined query is empty"


# --- stop rule 4: a repeated refined query ---------------------------------------------------


@pytest.mark.parametrize(
    "refined",
    [
        "Opial property nonexpansive",
        "  opial   PROPERTY nonexpansive ",
        '"Opial property" nonexpansive.',
        "Opíal property nonexpansive",
    ],
)
def test_a_refined_query_that_repeats_an_earlier_one_stops_the_loop(refined):
    decision = refinement.check_refined(refined, ["Opial property nonexpansive"])
    assert decision.stop
    assert decision.reason.startswith("the refined query repeats an earlier one")


def test_repeating_the_words_of_a_planned_query_line_is_a_repeat():
    earlier = ['arxiv --all "fixed point" --domain analysis; s2 --query "Fixed point theorem"']
    assert refinement.check_refined("fixed point theorem", earlier).stop
    assert refinement.check_refined("fixed point", earlier).stop
    assert not refinement.check_refined("fixed point analysis", earlier).stop


def test_a_repeat_names_the_one_query_it_repeats():
    earlier = ['arxiv --all "fixed point" --domain analysis; s2 --query "Fixed point theorem"']
    decision = refinement.check_refined("fixed point theorem", earlier)
    assert decision.reason == (
        'the refined query repeats an earlier one: s2 --query "Fixed point theorem"'
    )


def test_a_new_refined_query_is_searched():
    decision = refinement.check_refined(
        "Opial condition weak convergence", [r["query"] for r in RUNS]
    )
    assert not decision.stop


def test_a_malformed_recorded_query_line_does_not_break_the_check():
    earlier = ['s2 --query "unbalanced quote']
    assert not refinement.check_refined("something else", earlier).stop


# --- the feedback memo -----------------------------------------------------------------------


def test_memo_lists_partial_matches_most_confident_first_and_leaves_out_the_rest():
    judgements = [
        judgement("arXiv:2", "partial", 0.4, "finite dimensions only"),
        judgement("arXiv:1", "partial", 0.7, "Hilbert spaces, not uniformly convex ones"),
        judgement("S2:x", "irrelevant", 0.9, "about neural networks"),
    ]
    memo = refinement.memo(1, RUNS, judgements)
    lines = memo.splitlines()
    assert lines[0].startswith('Iteration 1 (searched: "fixed point"; "fixed point theorem") ')
    assert "1 partial" not in lines[0] and "2 partial, 1 irrelevant" in lines[0]
    assert lines[2] == "- arXiv:1 (0.70): Hilbert spaces, not uniformly convex ones"
    assert lines[3] == "- arXiv:2 (0.40): finite dimensions only"
    assert "neural networks" not in memo


def test_memo_falls_back_to_irrelevant_judgements_when_nothing_was_partial():
    memo = refinement.memo(2, RUNS[:1], [judgement("S2:x", "irrelevant", 0.9, "about biology")])
    assert "Nothing was even partially relevant" in memo
    assert "- S2:x (0.90): about biology" in memo


def test_memo_says_so_when_the_searches_returned_nothing():
    assert "returned no papers at all" in refinement.memo(1, RUNS, [])


def test_memo_is_compact_and_deterministic():
    judgements = [judgement(f"arXiv:{n}", "partial", 0.5, "x" * 500) for n in range(20)]
    first = refinement.memo(1, RUNS, judgements)
    assert first == refinement.memo(1, RUNS, list(reversed(judgements)))
    assert "- and 12 more" in first
    assert len(first) < 2500


# --- the next iteration's searches -----------------------------------------------------------


def test_a_refined_query_becomes_one_search_per_api():
    queries = refinement.refined_queries(r"Opial property of $\ell^p$ spaces", "analysis", 5)
    s2 = queries["semantic_scholar"][0]
    assert s2.args == [
        "search", "--query", "Opial property of l^p spaces", "--limit", "5", "--relax",
    ]  # fmt: skip
    arxiv = queries["arxiv"][0]
    assert arxiv.args[0] == "search" and arxiv.args[-5:] == [
        "--domain", "analysis", "--limit", "5", "--relax",
    ]  # fmt: skip
    assert "Opial property" in arxiv.args


def test_a_refined_arxiv_query_keeps_every_word_the_model_chose():
    refined = (
        "tolerant uniformity testing sample complexity lower bound via conditional sampling "
        "oracle, Poissonization and moment matching"
    )
    (arxiv,) = refinement.refined_queries(refined, None, 5)["arxiv"]
    terms = [value for option, value in pairwise(arxiv.args) if option == "--all"]
    searched = " ".join(terms).split()
    for word in refined.replace(",", "").split():
        if word not in ("via", "and"):  # stopwords separate the phrases
            assert word in searched, (word, terms)
    assert "tolerant uniformity testing sample complexity lower bound" in terms


# --- what the loop keeps for verification ----------------------------------------------------


def test_kept_papers_are_the_strong_and_partial_ones_once_each_best_label_first():
    record = {"title": "T", "authors": ["A B"], "year": 2020, "arxiv_id": "2001.00001"}
    judgements = [
        {**judgement("arXiv:2001.00001", "partial", 0.6), "record": record},
        {**judgement("arXiv:2001.00001", "strong", 0.8), "record": record},  # seen by both
        {**judgement("S2:b", "partial", 0.9), "record": {"title": "U", "s2_paper_id": "b"}},
        {**judgement("S2:c", "irrelevant", 0.9), "record": {"title": "V"}},
    ]
    kept = refinement.kept_papers(judgements)
    assert [(j["key"], j["label"]) for j in kept] == [
        ("arXiv:2001.00001", "strong"),
        ("S2:b", "partial"),
    ]
    assert refinement.as_candidate(kept[0]) == {
        "key": "arXiv:2001.00001",
        "title": "T",
        "authors": ["A B"],
        "year": 2020,
        "arxiv_id": "2001.00001",
        "source": "discovery",
    }


def test_a_follow_up_whose_searched_focus_found_nothing_relevant_new_stops():
    """Issue 50: the focus was searched and every paper LITERATURE.md lacks is irrelevant (the
    recorded ones carry their labels): nothing new to refine towards; without the focus, or
    with one partial new paper, the loop refines as before."""
    judged = [judgement("arXiv:2008.10111", "irrelevant"), judgement("arXiv:2505.12496", "partial")]
    recorded = {"arXiv:2505.12496": "REF-001"}
    decision = refinement.after_iteration(1, judged, recorded=recorded, focus="undecidable flows")
    assert decision.stop and "the focus (undecidable flows) was searched" in decision.reason
    assert not refinement.after_iteration(1, judged, recorded=recorded).stop
    partial = [*judged, judgement("arXiv:2012.12828", "partial")]
    assert not refinement.after_iteration(1, partial, recorded=recorded, focus="flows").stop


def test_a_focus_counts_as_searched_only_when_a_run_queried_it():
    runs = [
        's2 --query "undecidable fluid dynamics"; arxiv --all "euler flows"',
        "tolerant testing",
    ]
    assert refinement.searched("Undecidable  fluid dynamics", runs)
    assert not refinement.searched("fluid dynamics undecidable", runs)
