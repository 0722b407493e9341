#!/usr/bin/env python3
"""Parse the real 100-entry arXiv page with mathtools.services.arxivrecords.parse_feed and with the
`arxiv` package (PyPI, a bench-only dependency) side by side, on the very same bytes; print median
ms.

arxiv 4.x parses with its own lxml code (arxiv/_feed.py; earlier versions used feedparser) and
builds `arxiv.Result` objects with datetimes; we build `Paper` records with normalised text.

  .venv/bin/python bench/bench_arxiv_parse.py [--rounds N]

Target: parse_feed at least 5x faster than arxiv's parser. The last lines print the bound on that
ratio: building the lxml tree alone, and building it and reading every entry child's tag once (the
least any parser that returns each entry's fields from an lxml tree must do), against arxiv's time.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ROOT / "plugin"
sys.path[:0] = [str(PLUGIN / "scripts"), str(ROOT / "tests")]
from support import shared  # noqa: E402

PAGE = shared.RECORDINGS / "arxiv" / "q_testing_s0_m100_cfe7536492ca.json"  # ../shared
TARGET = 5.0


def median_ms(parse, content: bytes, rounds: int) -> float:
    parse(content)  # warm up: imports, parser construction
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        parse(content)
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    rounds = parser.parse_args().rounds

    from lxml import etree
    from mathtools.services.arxivrecords import _parser, parse_feed

    # The recording keeps the response bytes as latin-1 text (see its README).
    page = shared.need(PAGE)  # stops, naming the folder, without ../shared/recordings
    content = json.loads(page.read_text(encoding="utf-8"))["body"].encode("latin-1")
    _, papers = parse_feed(content)
    try:
        import arxiv
        from arxiv import _feed
    except ImportError:
        print("the arxiv package is not installed: pip install 'arxiv>=4'", file=sys.stderr)
        return 4
    theirs = _feed.parse(content)
    assert len(theirs.results) == len(papers) == 100, "both parsers must see the same 100 entries"

    ours_ms = median_ms(parse_feed, content, rounds)
    theirs_ms = median_ms(_feed.parse, content, rounds)
    floors = {
        "lxml tree only": lambda data: etree.fromstring(data, _parser()),
        "tree + read each child tag once": lambda data: _child_tags(
            etree.fromstring(data, _parser())
        ),
    }
    speedup = theirs_ms / ours_ms
    version = getattr(arxiv, "__version__", None) or _version("arxiv")
    print(f"page: {PAGE.name} ({len(content) / 1024:.0f} KiB, {len(papers)} entries)")
    print(f"{'parser':<44}{'median ms':>10}")
    print(f"{'mathtools.services.arxivrecords.parse_feed':<44}{ours_ms:>10.2f}")
    print(f"{f'arxiv {version} (_feed.parse)':<44}{theirs_ms:>10.2f}")
    verdict = "meets" if speedup >= TARGET else "misses"
    print(f"speed-up: {speedup:.1f}x ({verdict} the {TARGET:.0f}x target), rounds={rounds}")
    print("bound on any parser that reads an lxml tree (work it cannot skip):")
    for name, floor in floors.items():
        floor_ms = median_ms(floor, content, rounds)
        print(f"{'  ' + name:<44}{floor_ms:>10.2f}   speed-up at most {theirs_ms / floor_ms:.1f}x")
    return 0


def _child_tags(root) -> list[str]:
    return [child.tag for entry in root for child in entry]


def _version(name: str) -> str:
    from importlib.metadata import version

    return version(name)


if __name__ == "__main__":
    raise SystemExit(main())
