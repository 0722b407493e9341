"""Property: any sequence of merges keeps LITERATURE.md valid, every confirmed paper present exactly
once, and every number bound to one paper forever. Inputs are synthesized from a pool of papers
that arXiv, Semantic Scholar or both return, under varying identifiers."""

from __future__ import annotations

from conftest import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mathtools.litdoc import checks, literature, merging
from support.verified import confirmed, paper, unconfirmed, verification

POOL = 12


def record(n: int, source: str) -> dict:
    """Paper n as `source` returns it. n % 3: 0 on arXiv (S2 adds a DOI and its paperId),
    1 only in S2 with a DOI, 2 only in S2 with nothing but its paperId."""
    if n % 3 == 0:
        return paper(n, source) if source == "semantic_scholar" else paper(n, "arxiv")
    return paper(n, "semantic_scholar", arxiv_id=None, doi=f"10.1/{n}" if n % 3 == 1 else None)


def candidate(n: int) -> dict:
    """What the model believed about paper n before it could be verified."""
    truth = record(n, "semantic_scholar")
    believed = {
        "key": f"cand-{n}",
        "title": truth["title"],
        "authors": truth["authors"],
        "year": truth["year"],
        "source": "memory",
    }
    if truth["arxiv_id"]:
        believed["arxiv_id"] = truth["arxiv_id"]
    return believed


result_strategy = st.one_of(
    st.tuples(
        st.just("CONFIRMED"),
        st.integers(0, POOL - 1),
        st.sampled_from([("arxiv",), ("semantic_scholar",), ("arxiv", "semantic_scholar")]),
    ),
    st.tuples(st.just("UNCONFIRMED"), st.integers(0, POOL - 1), st.just(None)),
    st.tuples(st.just("NEVER"), st.integers(100, 103), st.just(None)),  # a paper that never is
)


def build(status: str, n: int, sources: tuple[str, ...] | None) -> dict:
    if status == "CONFIRMED":
        sources = ("semantic_scholar",) if n % 3 else sources or ("arxiv",)
        return confirmed(record(n, sources[-1]), sources)
    if status == "UNCONFIRMED":
        return unconfirmed(candidate(n), "API timeout -- verification pending")
    return unconfirmed(
        {"key": f"ghost-{n}", "title": f"A paper that does not exist {n}"},
        "Title not found in Semantic Scholar",
    )


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    merges=st.lists(st.lists(result_strategy, min_size=1, max_size=6), min_size=1, max_size=8),
    repeat=st.lists(st.booleans(), min_size=8, max_size=8),
)
def test_random_merges_keep_the_document_valid(merges, repeat):
    text = literature.template("prop")
    ever_confirmed: set[int] = set()
    owner: dict[str, str] = {}  # label -> title: a number never changes paper
    for step, results in enumerate(merges):
        verified = verification([build(*r) for r in results], f"2026-03-{step + 1:02d}T00:00:00Z")
        # the model assesses every paper confirmed (an unassessed REF is a violation)
        relevance = {
            r["key"]: {"relevance": f"step {step}", "confidence": "[S]"}
            for r in verified["results"]
            if r["status"] == "CONFIRMED"
        }
        doc = literature.parse_literature(text)
        merging.merge(doc, verified, relevance, summary=f"step {step}")
        new_text = doc.render()
        if repeat[step]:  # the same merge again changes nothing
            again = literature.parse_literature(new_text)
            merging.merge(again, verified, relevance, summary=f"step {step}")
            assert again.render() == new_text
        text = new_text

        assert checks.validate(text) == []
        doc = literature.parse_literature(text)
        assert doc.render() == text
        ever_confirmed |= {n for status, n, _ in results if status == "CONFIRMED"}
        titles = [entry.title for entry in doc.confirmed]
        for n in ever_confirmed:
            assert titles.count(record(n, "arxiv")["title"]) == 1
        assert len(titles) == len(ever_confirmed)
        unconfirmed_titles = {entry.title for entry in doc.unconfirmed}
        assert not unconfirmed_titles & set(titles)
        numbers = [entry.number for entry in doc.confirmed]
        assert numbers == sorted(set(numbers))
        for entry in doc.confirmed + doc.unconfirmed:
            assert owner.setdefault(entry.entry_number, entry.title) == entry.title
        assert len(doc.history) == step + 1
