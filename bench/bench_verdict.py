#!/usr/bin/env python3
"""How the gate answers each kind of citation: the labelled fixture, kind by kind, against targets.

tests/data/verdict_fixture.json (written by tools/make_verdict_fixture.py) holds real recorded
papers cited correctly and miscited the way each kind of hallucination does (issue 16). All of
it goes through one verify_batch.py run against the stand-in server (tests/support/standin.py,
answering from ../shared/recordings/), and the table shows, per kind, how many came out CONFIRMED,
CORRECTED and UNCONFIRMED, beside the targets:

  every miscited kind      flagged (CORRECTED or UNCONFIRMED) in at least 95% of cases;
  fabricated, swapped, merged, placeholder, near-miss (and impossible year, malformed id):
                           never CONFIRMED;
  real                     at least 97% CONFIRMED and 100% CONFIRMED or CORRECTED.

Three kinds more are made here from the fixture's real citations and recorded titles, the ways
a real paper is cited slightly off (the first two by title alone, no identifier):

  year_one_off             the exact title, every author, the year one off: at least 95%
                           identified (CONFIRMED where the record explains the year, else
                           CORRECTED; a citation whose year is already the other source's is
                           two off the record found);
  comma_title              a book's or proceedings' title without its place and date: 100%
                           CONFIRMED or CORRECTED;
  typographic_title        a real citation with an identifier, its title with a hyphen read as a
                           space, a function word dropped or a plural changed: 100% CORRECTED,
                           with the record's title.

And two kinds of issue 39, made from the recorded papers and zbMATH Open's and Crossref's
records:

  book_as_article          every recorded book and book chapter (zbMATH Open's document types
                           "b" and "a" outside a serial, Crossref's book types), cited as an
                           article in a real journal of the recordings, with a volume and pages,
                           by title and by DOI: never CONFIRMED, at least 95% flagged;
  published_later          a real citation of a recorded arXiv paper by title, its year two
                           years from the preprint's (the journal's year, PREPRINT_YEAR_BOUND),
                           every author cited: 100% identified (CONFIRMED or CORRECTED).

And translations, made from ../shared/corpus (real arXiv metadata, April 2007), since no
recording of a service holds a paper of a cover-to-cover translation journal or of its original:

  translation              every corpus paper whose journal reference names a journal of
                           core/venues.py TRANSLATION_JOURNALS, served as an arXiv record (its
                           metadata in arXiv's Atom form, marked synthesized), cited by title and
                           authors in each journal its reference names and in that journal's
                           counterpart (translation or original), with the volume: 100%
                           identified (CONFIRMED or CORRECTED).

And three of issue 48:

  translation_spellings    for each pair of tests/data/translation_spellings.json (the MSN/ISO
                           abbreviations and the short names sources give, written from their
                           usage, not from the table), a corpus paper without a journal
                           reference given one in the pair's journal (synthesized), cited in
                           every spelling of both journals, the other journal with its own
                           volume and the year one off: 100% CONFIRMED;
  book_types_down          the book_as_article citations again, in a second run where zbMATH
                           Open, Crossref and OpenAlex (the sources that know a work's type)
                           answer 503: never CONFIRMED, every one pending with the reason naming
                           the venue that could not be checked;
  the zbMATH world         the stand-in answers every zbMATH Open search that finds nothing as
                           the live service does (HTTP 404, "result" null, "successful access.
                           No results found."): no result says zbMATH Open was unavailable.

In both runs Semantic Scholar also holds a record of each book (synthesized: its title, authors,
year and DOI, no venue, no publicationTypes, as its records of books usually come), so a book is
identified by a source that cannot say it is a book, as in the campaign of issue 48.

The run also counts the requests that reach the stand-in: API calls per candidate, target at
most 0.85.

Run: .venv/bin/python bench/bench_verdict.py [--show-misses]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ROOT / "plugin"
sys.path[:0] = [str(PLUGIN / "scripts"), str(ROOT / "tests")]
FIXTURE = ROOT / "tests" / "data" / "verdict_fixture.json"
SPELLINGS = ROOT / "tests" / "data" / "translation_spellings.json"
TYPE_SOURCES = ("zbmath", "crossref", "openalex")  # the sources that know a work's type
FLAG_TARGET = 0.95
REAL_CONFIRMED_TARGET = 0.97


# zbMATH Open's recorded proceedings volume, cited without its place and date, or part of it:
# (cited title, authors, year).
ANTS = "ANTS XIII. Proceedings of the thirteenth algorithmic number theory symposium"
COMMA_TITLES = [
    (ANTS, ["Scheidler, R.", "Sorenson, J."], 2019),
    (f"{ANTS}, University of Wisconsin-Madison", ["Scheidler, R.", "Sorenson, J."], 2019),
    (f"{ANTS}, University of Wisconsin-Madison, WI, USA", "Scheidler, Renate", 2019),
    (ANTS, None, 2019),
]
PER_KIND = 24
CALLS_TARGET = 0.85  # API calls per candidate (issue 39)
# Real journals of the recordings (zbMATH Open's and Crossref's) a book is cited in.
JOURNALS = [
    "J. Number Theory",
    "American Mathematical Monthly",
    "LMS Journal of Computation and Mathematics",
    "Econometrica",
    "Neural Networks",
]
# year_one_off: a fixture citation may give Semantic Scholar's year where the title search finds
# only arXiv's record, a year later: shifted once more, that year is two off, rightly no match.
IDENTIFIED_TARGET = {
    "year_one_off": 0.95,
    "comma_title": 1.0,
    "published_later": 1.0,
    "translation": 1.0,
}


def _by_title(case: dict, kind: str, expect: str, **changed: object) -> dict:
    """A real case cited by title alone (no identifier, no venue), with `changed` fields."""
    kept = {k: case["candidate"][k] for k in ("title", "authors", "year")}
    candidate = {**kept, **changed, "key": f"{kind}-{case['candidate']['key']}"}
    return {"kind": kind, "expect": expect, "strict": False, "candidate": candidate}


def _typo(title: str) -> str | None:
    """The title written with other words, as the folding rules still read it: its first hyphen
    as a space, else a function word dropped, else a plural made singular."""
    if re.search(r"\w-\w", title):
        return re.sub(r"(?<=\w)-(?=\w)", " ", title, count=1)
    dropped = re.sub(r"(?<=\w) (?:the|of|a|an|for) (?=\w)", " ", title, count=1)
    if dropped != title:
        return dropped
    singular = re.sub(r"(?<=\w{3})s\b(?<!ss\b)", "", title, count=1)
    return singular if singular != title else None


def near_real_cases(cases: list[dict]) -> list[dict]:
    """The year_one_off, comma_title and typographic_title cases (module docstring)."""
    real = [c for c in cases if c["kind"] == "real" and c["candidate"].get("year")]
    extra = [
        _by_title(c, "year_one_off", "identified", year=c["candidate"]["year"] - 1) for c in real
    ]
    extra = extra[:PER_KIND]
    for number, (title, authors, year) in enumerate(COMMA_TITLES):
        candidate = {"key": f"comma_title-{number}", "title": title}
        candidate |= {k: v for k, v in (("authors", authors), ("year", year)) if v}
        extra.append({"kind": "comma_title", "expect": "identified", "candidate": candidate})
    typographic = [
        {
            "kind": "typographic_title",
            "expect": "corrected",
            "candidate": {
                **{k: v for k, v in c["candidate"].items() if k not in ("venue", "key")},
                "key": f"typographic_title-{c['candidate']['key']}",
                "title": _typo(c["candidate"]["title"]),
            },
        }
        for c in real
        # with an identifier: the stand-in's title searches match words exactly, as arXiv's
        # phrase search does, so a changed word is not found without one
        if _typo(c["candidate"]["title"])
        and (c["candidate"].get("arxiv_id") or c["candidate"].get("doi"))
    ]
    return extra + typographic[:PER_KIND]


def book_cases() -> list[dict]:
    """Every recorded book and chapter with a title and a year, cited as a journal article:
    once by title alone, once with its DOI too."""
    from mathtools.gate.venuematch import BOOK_TYPES
    from mathtools.services import crossref, zbmathrecords
    from support.standin import load_index

    index = load_index()
    records = [zbmathrecords.to_paper(r) for _, r in sorted(index.zbmath.items())]
    records += [crossref.to_paper(w) for _, w in sorted(index.crossref.items())]
    works = [
        p
        for p in records
        if p is not None
        and p.title
        and p.year
        and (p.document_type in BOOK_TYPES or p.document_type == "book-chapter")
    ]
    cases = []
    for number, paper in enumerate(works):
        for with_doi in (False, True):
            if with_doi and not paper.doi:
                continue
            candidate = {
                "key": f"book_as_article-{number}{'-doi' if with_doi else ''}",
                "title": paper.title,
                "year": paper.year,
                "venue": JOURNALS[(number + with_doi) % len(JOURNALS)],
                "volume": str(10 + number),
                "pages": f"{100 + number}--{130 + number}",
            }
            if paper.authors:
                candidate["authors"] = list(paper.authors)
            if with_doi:
                candidate["doi"] = paper.doi
            cases.append({"kind": "book_as_article", "strict": True, "candidate": candidate})
    return cases


def published_later_cases(cases: list[dict]) -> list[dict]:
    """Real citations of recorded arXiv papers by title, every author, the year two from the
    preprint's (later, then earlier: an old paper posted on arXiv after it appeared)."""
    from mathtools.services.arxivrecords import parse_feed
    from support.standin import load_index

    index = load_index()
    extra = []
    for case in cases:
        key = case.get("paper") or ""
        entry = index.arxiv.get(key.removeprefix("arXiv:")) if case["kind"] == "real" else None
        if entry is None:
            continue
        [paper] = parse_feed(f"{index.arxiv_feed_head}{entry.xml}</feed>".encode())[1]
        shift = 2 if len(extra) % 2 == 0 else -2
        extra.append(
            _by_title(case, "published_later", "identified", year=(paper.year or 0) + shift)
        )
    return extra[:PER_KIND]


def _journals(journal_ref: str) -> list[tuple[str, str | None, int | None]]:
    """(journal, volume, year) of each part of a journal reference ("...; English transl.: ...")
    that names a journal of TRANSLATION_JOURNALS."""
    from mathtools.core import venue_parts
    from mathtools.gate.venuematch import journal_sides

    named = []
    for part in journal_ref.split(";"):
        venue, volume, _ = venue_parts(part)
        venue = (venue or "").split(":")[-1].strip()  # "English transl.: Funct. Anal. ..."
        year = re.search(r"\((\d{4})\)", part)
        if venue and journal_sides(venue):
            named.append((venue, volume, int(year.group(1)) if year else None))
    return named


def _arxiv_record(record, journal_ref: str, year: int | None = None):
    """A corpus paper as the arXiv stand-in serves it: its real metadata in arXiv's Atom form,
    with `journal_ref` (and `year` as its first version's, when given), marked synthesized."""
    from xml.sax.saxutils import escape

    from support.worlds import arxiv_entry

    authors = [n.strip() for n in re.split(r",\s*|\s+and\s+", record.authors) if n.strip()]
    posted = year or int(record.submitted[:4])
    entry = arxiv_entry(
        "<entry>"
        f"<id>http://arxiv.org/abs/{record.arxiv_id}v1</id>"
        f"<published>{posted}-{record.submitted[4:6]}-01T00:00:00Z</published>"
        f"<title>{escape(record.title)}</title><summary>{escape(record.abstract)}</summary>"
        + "".join(f"<author><name>{escape(name)}</name></author>" for name in authors)
        + f"<arxiv:journal_ref>{escape(journal_ref)}</arxiv:journal_ref>"
        + "".join(f'<category term="{c}"/>' for c in record.categories)
        + "</entry>"
    )
    entry.synthesized = True  # real metadata in arXiv's form, not an answer arXiv sent
    return entry, authors, posted


def translation_cases() -> tuple[list[dict], list]:
    """The translation kind (module docstring): the citations of the corpus papers in each
    journal of the pair, in the year the journal printed them, and the papers' arXiv records
    for the stand-in."""
    from mathtools.gate.venuematch import counterpart_names
    from support import corpus_search

    cases, entries = [], []
    for record in corpus_search.load():
        journals = _journals(record.journal_ref)
        if not journals:
            continue
        entry, authors, posted = _arxiv_record(record, record.journal_ref)
        entries.append(entry)
        for venue, volume, year in journals:
            for cited in (venue, *counterpart_names(venue)[:1]):
                candidate = {
                    "key": f"translation-{record.arxiv_id}-{len(cases)}",
                    "title": " ".join(record.title.split()),
                    "authors": authors,
                    "year": year or posted,
                    "venue": cited,
                    **({"volume": volume} if volume else {}),
                }
                cases.append(
                    {"kind": "translation", "expect": "identified", "candidate": candidate}
                )
    return cases, entries


def translation_spelling_cases() -> tuple[list[dict], list]:
    """The translation_spellings kind (module docstring): for each pair of SPELLINGS, a corpus
    paper without a journal reference given one in the pair's journal (the original's for even
    pairs, the translation's for odd ones, in one of its spellings), cited in every spelling of
    both journals: the record's journal with its volume and year, the other with another volume
    and the year one off (the translation a year later)."""
    from support import corpus_search

    spellings = json.loads(SPELLINGS.read_text(encoding="utf-8"))["pairs"]
    papers = [r for r in corpus_search.load() if not r.journal_ref and r.authors and r.title]
    cases, entries = [], []
    for number, (pair, record) in enumerate(zip(spellings, papers[::7], strict=False)):
        side, other = (
            ("original", "translation") if number % 2 == 0 else ("translation", "original")
        )
        year = 1970 + number
        named = pair[side][number % len(pair[side])]
        entry, authors, _ = _arxiv_record(record, f"{named} {10 + number} ({year}) 101-120", year)
        entries.append(entry)
        shift = 1 if other == "translation" else -1
        for cited_side, volume, cited_year in (
            (side, 10 + number, year),
            (other, 60, year + shift),
        ):
            for venue in pair[cited_side]:
                candidate = {
                    "key": f"translation_spellings-{number}-{len(cases)}",
                    "title": " ".join(record.title.split()),
                    "authors": authors,
                    "year": cited_year,
                    "venue": venue,
                    "volume": str(volume),
                }
                cases.append(
                    {"kind": "translation_spellings", "expect": "confirmed", "candidate": candidate}
                )
    return cases, entries


def book_s2_records(cases: list[dict]) -> list[dict]:
    """SYNTHESIZED Semantic Scholar records of the book_as_article kind's books (no recording
    holds one): each book's title, authors, year and DOI in Semantic Scholar's shape, no venue
    and no publicationTypes, as Semantic Scholar's records of books usually come."""
    records = {}
    for case in cases:
        cited = case["candidate"]
        key = cited["title"]
        record = records.setdefault(
            key,
            {
                "paperId": f"{len(records) + 1:040x}",
                "title": cited["title"],
                "authors": [{"authorId": None, "name": n} for n in cited.get("authors", [])],
                "year": cited["year"],
                "venue": "",
                "externalIds": {},
            },
        )
        if cited.get("doi"):
            record["externalIds"]["DOI"] = cited["doi"]
    return list(records.values())


def run(
    cases: list[dict],
    arxiv_entries: list,
    s2_records: list[dict],
    failing: tuple[str, ...] = (),
) -> dict:
    """verify_batch.py's document for the cases' candidates, through the stand-in server, which
    also serves `arxiv_entries` and `s2_records`, with the services in `failing` answering 503;
    `zbmath_no_results` in it counts zbMATH Open's "no results" answers (the live form)."""
    from support.standin import StandIn
    from support.worlds import add_s2

    with StandIn() as standin, tempfile.TemporaryDirectory() as tmp:
        standin.index.arxiv.update({entry.arxiv_id: entry for entry in arxiv_entries})
        add_s2(standin.index, s2_records)
        for service in failing:
            standin.fail(service, 503)
        path = Path(tmp) / "candidates.json"
        path.write_text(json.dumps([c["candidate"] for c in cases]), encoding="utf-8")
        env = {
            **os.environ,
            **standin.env(),
            "MATH_CACHE_DIR": str(Path(tmp) / "cache"),
            "MATH_ARXIV_MIN_INTERVAL": "0",
            "MATH_S2_MIN_INTERVAL": "0",
        }
        env.pop("SEMANTIC_SCHOLAR_API_KEY", None)
        done = subprocess.run(
            [sys.executable, str(PLUGIN / "scripts" / "verify_batch.py"), str(path), "--no-cache"],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        calls = sum(standin.counts.values())
        no_results = standin.zbmath_no_results
    document = json.loads(done.stdout)
    document["zbmath_no_results"] = no_results
    if not failing:
        print(
            f"API calls: {calls}, {calls / len(cases):.2f} per candidate (target <= {CALLS_TARGET})"
        )
    return document


def zbmath_line(document: dict) -> tuple[str, bool]:
    """The zbMATH-zero-result world's figure: how many "no results" answers zbMATH Open sent
    in the live form, and how many results (and source_errors) say it was unavailable."""
    said_down = sum("zbMATH Open" in r["reason"] and "unavailable" in r["reason"]
                    for r in document["results"])  # fmt: skip
    failed = "zbmath" in document.get("source_errors", {})
    ok = not said_down and not failed
    line = (
        f"zbMATH Open's live 'no results' answers (404, result null): "
        f"{document['zbmath_no_results']}; results saying zbMATH Open unavailable: {said_down}, "
        f"in source_errors: {'yes' if failed else 'no'} (target 0, no)"
    )
    return line + ("" if ok else "  MISSED"), ok


UNCHECKED_VENUE = "could not be checked"  # how a pending verdict names the unchecked venue


def table(cases: list[dict], results: list[dict]) -> tuple[list[str], bool]:
    """The per-kind lines and whether every target is met."""
    by_kind: dict[str, Counter] = {}
    for case, result in zip(cases, results, strict=True):
        counts = by_kind.setdefault(case["kind"], Counter())
        counts[result["status"]] += 1
        counts["unchecked venue"] += UNCHECKED_VENUE in result["reason"]
    head = f"{'kind':<24}{'n':>4}{'CONF':>6}{'CORR':>6}{'UNCO':>6}  {'measured':<36}target"
    lines, met = [head], True
    for kind, counts in by_kind.items():
        n = sum(counts[status] for status in ("CONFIRMED", "CORRECTED", "UNCONFIRMED"))
        confirmed, corrected = counts["CONFIRMED"], counts["CORRECTED"]
        sample = next(c for c in cases if c["kind"] == kind)
        if sample.get("expect") == "identified":
            measured = f"{(confirmed + corrected) / n:.0%} identified"
            target = f">= {IDENTIFIED_TARGET[kind]:.0%} CONFIRMED or CORRECTED"
            ok = (confirmed + corrected) / n >= IDENTIFIED_TARGET[kind]
        elif sample.get("expect") == "confirmed":
            measured = f"{confirmed / n:.0%} CONFIRMED"
            target, ok = "100% CONFIRMED", confirmed == n
        elif sample.get("expect") == "corrected":
            measured = f"{corrected / n:.0%} CORRECTED"
            target, ok = "100% CORRECTED (title)", corrected == n
        elif sample.get("expect") == "unchecked":
            named = counts["unchecked venue"]
            measured = f"{named / n:.0%} name the unchecked venue"
            target = "0 CONFIRMED, 100% name the unchecked venue"
            ok = not confirmed and named == n
        elif kind == "real":
            measured = f"{confirmed / n:.0%} CONFIRMED, {(confirmed + corrected) / n:.0%} accepted"
            target = f">= {REAL_CONFIRMED_TARGET:.0%} CONFIRMED, 100% accepted"
            ok = confirmed / n >= REAL_CONFIRMED_TARGET and counts["UNCONFIRMED"] == 0
        else:
            flagged = (n - confirmed) / n
            measured = f"{flagged:.0%} flagged" + (f", {confirmed} CONFIRMED" if confirmed else "")
            target = f">= {FLAG_TARGET:.0%} flagged" + (", 0 CONFIRMED" if sample["strict"] else "")
            ok = flagged >= FLAG_TARGET and not (sample["strict"] and confirmed)
        met &= ok
        lines.append(
            f"{kind:<24}{n:>4}{confirmed:>6}{corrected:>6}{counts['UNCONFIRMED']:>6}  "
            f"{measured:<36}{target}{'' if ok else '  MISSED'}"
        )
    return lines, met


def missed(case: dict, result: dict) -> bool:
    """Whether one case's result is off its kind's target."""
    expect, status = case.get("expect", ""), result["status"]
    if expect == "identified":
        return status == "UNCONFIRMED"
    if expect in ("confirmed", "corrected"):
        return status != expect.upper()
    if expect == "unchecked":
        return status == "CONFIRMED" or UNCHECKED_VENUE not in result["reason"]
    return status != "CONFIRMED" if case["kind"] == "real" else status == "CONFIRMED"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--show-misses", action="store_true", help="print each case off target")
    parser.add_argument("--per-kind", type=int, metavar="N", help="only the first N of each kind")
    args = parser.parse_args(argv)
    cases = json.loads(FIXTURE.read_text(encoding="utf-8"))["cases"]
    if args.per_kind:
        kept: Counter = Counter()
        for case in cases:
            kept[case["kind"]] += 1
            case["kept"] = kept[case["kind"]] <= args.per_kind
        cases = [case for case in cases if case["kept"]]
    books = book_cases()[: args.per_kind or None]
    s2_books = book_s2_records(books)
    translations, corpus_entries = translation_cases()
    spelled, spelled_entries = translation_spelling_cases()
    spelled = spelled[: args.per_kind or None]
    cases += near_real_cases(cases) + books + published_later_cases(cases) + translations + spelled
    entries = corpus_entries + spelled_entries
    document = run(cases, entries, s2_books)
    # the books again, every source that knows a work's type failing (503)
    down = [{**c, "kind": "book_types_down", "expect": "unchecked"} for c in books]
    down_document = run(down, [], s2_books, failing=TYPE_SOURCES)
    every_case = cases + down
    results = document["results"] + down_document["results"]
    lines, met = table(every_case, results)
    zbmath, zbmath_ok = zbmath_line(document)
    print(
        f"{len(cases)} labelled citations of recorded papers, one verify_batch.py run; "
        f"{len(down)} more with {', '.join(TYPE_SOURCES)} failing"
    )
    print("\n".join(lines))
    print(zbmath)
    met &= zbmath_ok
    print(f"all targets met: {'yes' if met else 'no'}")
    if args.show_misses:
        for case, result in zip(every_case, results, strict=True):
            if missed(case, result):
                print(f"{case['candidate']['key']} {result['status']}: {result['reason'][:300]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
