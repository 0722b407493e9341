#!/usr/bin/env python3
"""API calls and time for check_refs.py on a 300-entry .bib, and for the same check run again.

The .bib cites each of the 106 arXiv entries of ../shared/recordings/arxiv/ by its recorded arXiv
id, title, authors and year, and each Semantic Scholar record with a DOI by its DOI, title, authors
and year, round after round until it holds 300 entries (a long bibliography's repeats included).
check_refs.py runs on it twice against the stand-in server (tests/support/standin.py) with the
rate-limit intervals at 0 and a fresh cache, and the requests that reach the server are counted.

Then check_refs.py runs on each shared arXiv paper (../shared/recordings/arxiv-src) by its id, as a
referee would (`check_refs.py arXiv:<id>`): its source fetched, its own bibliography read and
checked, its cited statements looked up; the figures are entries per second and API calls per
entry (most of these entries are old journal papers with no identifier: one title search each, in
every service that has one).

Target: the first run in a handful of calls (one arXiv id_list per 100 ids, one Semantic Scholar
/paper/batch per 500 ids, no title search), the second in none (the HTTP cache). The projection
multiplies the calls by the services' real intervals (arXiv one request every 3 s, Semantic
Scholar 1 a second with a key).

Run: .venv/bin/python bench/bench_check_refs.py [--entries 300] [--papers 2008.10111 ...]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from standin_calls import PLUGIN, calls, standin_scratch


def braced(text: str) -> str:
    """Recorded text as a BibTeX value (bibvalues.bibtex_text: the plugin's own escaping)."""
    from mathtools.bibliography.bibvalues import bibtex_names, bibtex_text

    return "{" + (bibtex_names(text) if isinstance(text, list) else bibtex_text(text)) + "}"


def build_bib(entries: int) -> str:
    from mathtools.services.arxiv import ArxivClient
    from support.standin import load_index

    index = load_index()
    papers = [
        (p.title, p.authors, p.year, f"eprint = {{{p.arxiv_id}}}")
        for p in ArxivClient(use_cache=False).fetch_ids(sorted(index.arxiv)).papers
    ]
    papers += [
        (
            r["title"],
            [a["name"] for a in r["authors"]],
            r["year"],
            f"doi = {{{r['externalIds']['DOI']}}}",
        )
        for r in index.s2_papers.values()
        if (r.get("externalIds") or {}).get("DOI") and r.get("authors") and r.get("year")
    ]
    out = []
    for number in range(entries):
        title, authors, year, identifier = papers[number % len(papers)]
        out.append(
            f"@article{{ref{number},\n  title = {braced(title)},\n  author = {braced(authors)},"
            f"\n  year = {year},\n  {identifier},\n}}\n"
        )
    return "\n".join(out)


def run(standin, bib: Path | str) -> tuple[dict, float, dict]:
    standin.counts.clear()
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, str(PLUGIN / "scripts" / "check_refs.py"), str(bib), "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    elapsed = time.perf_counter() - started
    return dict(standin.counts), elapsed, json.loads(done.stdout)["summary"]


def arxiv_runs(standin, papers: list[str]) -> list[tuple[str, dict, float, dict]]:
    """check_refs.py arXiv:<id> --json on each paper: (id, counts, seconds, summary)."""
    found = []
    for arxiv_id in papers:
        counts, elapsed, summary = run(standin, f"arXiv:{arxiv_id}")
        found.append((arxiv_id, counts, elapsed, summary))
    return found


def main() -> None:
    from support.arxiv_src import PAPERS

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--entries", type=int, default=300)
    parser.add_argument("--papers", nargs="*", default=list(PAPERS))
    options = parser.parse_args()
    entries = options.entries
    with standin_scratch() as (standin, scratch):
        bib = scratch / "long.bib"
        bib.write_text(build_bib(entries), encoding="utf-8")
        rows = [("first run", *run(standin, bib)), ("second run (cached)", *run(standin, bib))]
        papers = arxiv_runs(standin, options.papers)
    print(f"check_refs.py on a {entries}-entry .bib (arXiv ids and DOIs) against the stand-in")
    print(
        f"{'run':22} {'arXiv':>6} {'S2':>6} {'calls':>6} {'identified':>10} {'local':>9} "
        f"{'at real rate limits':>20}"
    )
    for name, counts, elapsed, summary in rows:
        arxiv, s2, projected = calls(counts)
        confirmed = summary["confirmed"] + summary["corrected"]  # the paper identified
        print(
            f"{name:22} {arxiv:>6} {s2:>6} {arxiv + s2:>6} {confirmed:>10} "
            f"{elapsed:>8.2f}s {projected:>19.0f}s"
        )
    first, second = (sum(row[1].values()) for row in rows)
    print(f"target: a handful of calls first ({first}; <= 5), none when cached ({second})")
    print()
    print("check_refs.py arXiv:<id> on the shared arXiv LaTeX sources (the stand-in, intervals 0)")
    print(
        f"{'paper':12} {'entries':>7} {'statements':>10} {'local':>8} {'entries/s':>9} "
        f"{'API calls':>9} {'calls/entry':>11}"
    )
    for arxiv_id, counts, elapsed, summary in papers:
        total = sum(counts.values())
        read = summary["entries"]
        print(
            f"{arxiv_id:12} {read:>7} {summary.get('statements', 0):>10} {elapsed:>7.2f}s "
            f"{read / elapsed:>9.1f} {total:>9} {total / max(read, 1):>11.2f}"
        )


if __name__ == "__main__":
    main()
