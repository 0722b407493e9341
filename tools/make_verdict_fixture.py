#!/usr/bin/env python3
"""Write tests/data/verdict_fixture.json: real recorded papers, cited correctly and miscited.

Every case is a real paper the stand-in server (tests/support/standin.py) serves from the
recordings in ../shared/recordings/ (arXiv entries, Semantic Scholar records), cited either the way
people write references (`real`) or perturbed the way one kind of hallucination does. The kinds
are issue 16's; `flag` says whether the gate must flag the case (CORRECTED or UNCONFIRMED), and
`strict` whether it must never be CONFIRMED. Wrong venues are real venue names from the Crossref
and zbMATH Open recordings (../shared/recordings, listed below) and from other recorded papers.

Deterministic: the same recordings give the same file (`random.Random(SEED)`, sorted pools).
Run: .venv/bin/python tools/make_verdict_fixture.py [--check]
(--check: exit 1 when the file on disk is not what this script writes.)
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ROOT / "plugin"
sys.path[:0] = [str(PLUGIN / "scripts"), str(ROOT / "tests")]
OUT = ROOT / "tests" / "data" / "verdict_fixture.json"
SEED = 16
PER_KIND = 24
REAL_CASES = 96  # real citations: every style of writing them, over most of the pool

KINDS = {
    # kind: (must be flagged, must never be CONFIRMED)
    "real": (False, False),
    "swapped_authors": (True, True),
    "merged": (True, True),
    "near_miss_title": (True, True),
    "placeholder_authors": (True, True),
    "wrong_venue": (True, False),
    "nonexistent_venue": (True, False),
    "preprint_as_published": (True, False),
    "partial_authors": (True, False),
    "fabricated": (True, True),
    "wrong_year": (True, False),
    "impossible_year": (True, True),
    "malformed_id": (True, True),
}

# Real venues: Crossref container-title values (crossref/refchecker-items/*.json) and zbMATH
# Open serial titles (zbmath/bibi_list_*.json) in the shared recordings.
REAL_VENUES = [
    "Journal of Number Theory",
    "American Mathematical Monthly",
    "Bulletin of the American Mathematical Society",
    "Bulletin of the Australian Mathematical Society",
    "Computational Statistics & Data Analysis",
    "Econometrica",
    "European Journal of Operational Research",
    "IEEE Transactions on Knowledge and Data Engineering",
    "Japanese Journal of Applied Physics",
    "Journal of Applied Statistics",
    "Journal of the Operational Research Society",
    "Lecture Notes in Computer Science",
    "Magnetic Resonance Imaging",
    "Mathematics of Control, Signals, and Systems",
    "Neural Networks",
    "Proceedings 42nd IEEE Symposium on Foundations of Computer Science",
    "Proceedings of the forty-fourth annual ACM symposium on Theory of computing",
    "Statistics & Probability Letters",
    "The Annals of Statistics",
    "The Economic Journal",
    "The Journal of the Acoustical Society of America",
    "Animal Behaviour",
    "Economics Letters",
]
# Invented: no such venue exists.
INVENTED_VENUES = [
    "Journal of Quantum Turing Dynamics",
    "International Journal of Algebraic Testing Theory",
    "Annals of Computational Hyperstructures",
    "Transactions on Stochastic Software Geometry",
    "Proceedings of the Symposium on Neural Arithmetic Topology",
    "Letters in Applied Category Engineering",
    "Journal of Combinatorial Machine Cognition",
    "Review of Probabilistic Verification Sciences",
]
# ISO 4 (LTWA) word abbreviations, as people write journal names: the fixture's own list, kept
# apart from the gate's general abbreviation rule (mathtools.gate.matching) so that neither is tuned
# to the other.
LTWA = {
    "journal": "J.",
    "international": "Int.",
    "mathematical": "Math.",
    "mathematics": "Math.",
    "proceedings": "Proc.",
    "transactions": "Trans.",
    "communications": "Commun.",
    "letters": "Lett.",
    "review": "Rev.",
    "physical": "Phys.",
    "physics": "Phys.",
    "applied": "Appl.",
    "computational": "Comput.",
    "computer": "Comput.",
    "computing": "Comput.",
    "science": "Sci.",
    "sciences": "Sci.",
    "society": "Soc.",
    "american": "Am.",
    "national": "Natl.",
    "academy": "Acad.",
    "conference": "Conf.",
    "symposium": "Symp.",
    "software": "Softw.",
    "systems": "Syst.",
    "information": "Inf.",
    "differential": "Differ.",
    "equations": "Equ.",
    "biology": "Biol.",
    "bulletin": "Bull.",
    "philosophical": "Philos.",
    "royal": "R.",
    "chemical": "Chem.",
    "nature": "Nat.",
    "neural": "Neural",
    "engineering": "Eng.",
    "theory": "Theory",
    "annual": "Annu.",
    "association": "Assoc.",
    "linguistics": "Linguist.",
    "processing": "Process.",
    "advances": "Adv.",
    "statistics": "Stat.",
    "research": "Res.",
    "analysis": "Anal.",
    "reliability": "Reliab.",
    "verification": "Verif.",
    "testing": "Test.",
    "intelligence": "Intell.",
    "artificial": "Artif.",
    "methods": "Methods",
    "biological": "Biol.",
    "chaos": "Chaos",
}
PLACEHOLDER_NAMES = [
    "Ling Chen",
    "Amara Diallo",
    "Viktor Horvat",
    "John Doe",
    "Jane Smith",
    "A. Author",
    "Maria Garcia",
    "Wei Zhang",
    "Rahul Sharma",
    "Anna Kowalska",
    "Kenji Tanaka",
    "Fatima Hassan",
]
INVENTED_TITLE_WORDS = (
    "Spectral",
    "Quasi-periodic",
    "Adelic",
    "Tropical",
    "Stochastic",
    "Hyperbolic",
    "Motivic",
    "Symplectic",
)
INVENTED_TITLE_TAILS = (
    "invariants of twisted Markov lattices",
    "bounds for sparse Turing diffusion operators",
    "rigidity of random testing hypergraphs",
    "cohomology of adversarial channel sheaves",
    "flows on noncommutative software manifolds",
    "zeta functions of group testing schemes",
)
WORD_SWAPS = {
    "testing": "verification",
    "learning": "reasoning",
    "quantum": "classical",
    "neural": "spiking",
    "models": "agents",
    "analysis": "synthesis",
    "random": "quasi-random",
    "turing": "morphogenetic",
    "language": "vision",
    "large": "small",
    "software": "hardware",
    "deep": "shallow",
}


# ----------------------------------------------------------------------------- the pool


def pool() -> list:
    """The recorded papers with a title, authors and a year: arXiv entries (parsed from the
    recorded feeds) and full Semantic Scholar records, sorted by key."""
    from mathtools.services.arxivrecords import parse_feed
    from mathtools.services.s2records import to_paper
    from support.standin import load_index

    index = load_index()
    papers = {}
    for entry in index.arxiv.values():
        if entry.synthesized:  # the samples' own entries: the fixture is made of recordings
            continue
        feed = f"{index.arxiv_feed_head}{entry.xml}</feed>"
        for paper in parse_feed(feed.encode())[1]:
            papers[paper.key] = paper
    for record in index.s2_papers.values():
        if record.get("authors") and record.get("year"):
            paper = to_paper(record)
            papers.setdefault(paper.key, paper)
    return [
        p
        for _, p in sorted(papers.items())
        if p.title and p.authors and p.year and len(p.title.split()) >= 3
    ]


# ----------------------------------------------------------------------------- how people cite


def family(name: str) -> str:
    return name.split()[-1]


def initials(name: str) -> str:
    return " ".join(f"{part[0]}." for part in name.split()[:-1] if part[0].isalpha())


def no_accents(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def cite_authors(authors: list[str], style: int) -> list[str] | str:
    """The whole author list in one of the ways people write it (long lists: et al.)."""
    if len(authors) > 6:
        first = authors[0]
        return f"{family(first)}, {initials(first)} and others" if style % 2 else f"{first} et al."
    if style == 0:
        return list(authors)
    if style == 1:
        return " and ".join(
            f"{family(a)}, {initials(a) or a.split()[0]}".strip(", ") for a in authors
        )
    if style == 2:
        return [f"{initials(a)} {family(a)}".strip() for a in authors]
    if style == 3:
        return [no_accents(a) for a in authors]
    return f"{family(authors[0])} et al." if len(authors) > 1 else list(authors)


def latex_title(title: str) -> str:
    """A title as BibTeX writes it: capitalised words braced, dashes doubled."""
    words = []
    for word in title.split():
        if re.match(r"[A-Z][a-z]", word):
            word = "{" + word[0] + "}" + word[1:]
        words.append(word)
    return " ".join(words).replace(" - ", " -- ").replace("&", r"\&")


def abbreviate(venue: str) -> str:
    """A venue's name in ISO 4 style: LTWA words abbreviated, articles and prepositions gone."""
    out = []
    for word in re.findall(r"[\w&'-]+", venue):
        low = word.lower()
        if low in ("of", "the", "and", "for", "on", "in", "&"):
            continue
        out.append(LTWA.get(low, word))
    return " ".join(out)


def published(paper) -> bool:
    return bool(paper.venue)


def identifier(paper) -> dict:
    if paper.arxiv_id:
        return {"arxiv_id": paper.arxiv_id}
    if paper.doi:
        return {"doi": paper.doi}
    return {"s2_paper_id": paper.s2_paper_id}


def real_citation(paper, n: int) -> dict:
    """The paper cited correctly, in the n-th of several ways."""
    cited = {
        "title": paper.title,
        "authors": cite_authors(paper.authors, n % 5),
        "year": paper.year,
    }
    if n % 3 == 0:
        cited.update(identifier(paper))
    if n % 4 == 1:
        cited["title"] = latex_title(paper.title)
    if published(paper) and n % 2 == 0:
        cited["venue"] = abbreviate(paper.venue) if n % 4 == 0 else paper.venue
    if published(paper) and paper.arxiv_id and n % 5 == 2:
        cited["year"] = paper.year - 1  # the arXiv preprint's year, a journal paper's
    return cited


# ----------------------------------------------------------------------------- the kinds


def shares_family(a: list[str], b: list[str]) -> bool:
    fold = {no_accents(family(x)).lower() for x in a}
    return any(no_accents(family(y)).lower() in fold for y in b)


def build() -> dict:
    rng = random.Random(SEED)
    papers = pool()
    rng.shuffle(papers)
    cases = []

    def add(kind: str, n: int, paper, cited: dict, note: str) -> None:
        flag, strict = KINDS[kind]
        cited = {"key": f"{kind}-{n:02d}", **cited}
        cases.append(
            {
                "kind": kind,
                "paper": paper.key if paper is not None else None,
                "flag": flag,
                "strict": strict,
                "note": note,
                "candidate": cited,
            }
        )

    def pick(k: int, where=lambda p: True, count: int = PER_KIND) -> list:
        chosen = [p for p in papers if where(p)]
        return [chosen[(i * 7 + k) % len(chosen)] for i in range(count)]

    for n, paper in enumerate(pick(0, count=REAL_CASES)):
        add("real", n, paper, real_citation(paper, n), "cited correctly")
    for n, paper in enumerate(pick(1)):
        other = next(
            p
            for p in papers[(n * 5) % len(papers) :] + papers
            if p.key != paper.key and not shares_family(p.authors, paper.authors)
        )
        cited = {"title": paper.title, "authors": other.authors[:6], "year": paper.year}
        if n % 2:
            cited.update(identifier(paper))
        add("swapped_authors", n, paper, cited, f"authors of {other.key}")
    for n, paper in enumerate(pick(2)):
        other = next(
            p
            for p in papers[(n * 3 + 1) % len(papers) :] + papers
            if p.key != paper.key
            and not shares_family(p.authors, paper.authors)
            and abs(p.year - paper.year) > 1
        )
        cited = {"title": paper.title, "authors": other.authors[:6], "year": other.year}
        if n % 3 == 0:
            cited.update(identifier(paper))
        add("merged", n, paper, cited, f"authors and year of {other.key}")
    for n, paper in enumerate(pick(3, lambda p: len(p.title.split()) >= 4)):
        words = paper.title.split()
        swappable = [i for i, w in enumerate(words) if w.lower().strip(":,") in WORD_SWAPS]
        if swappable and n % 2 == 0:
            i = swappable[0]
            bare = words[i].lower().strip(":,")
            words[i] = words[i].lower().replace(bare, WORD_SWAPS[bare])
            how = "one word changed"
        else:
            i = max(range(1, len(words)), key=lambda j: (len(words[j]), -j))
            del words[i]
            how = "one word dropped"
        cited = {
            "title": " ".join(words),
            "authors": cite_authors(paper.authors, 4),
            "year": paper.year,
        }
        if n % 2:
            cited.update(identifier(paper))
        add("near_miss_title", n, paper, cited, how)
    for n, paper in enumerate(pick(4)):
        fake = [PLACEHOLDER_NAMES[(n + i) % len(PLACEHOLDER_NAMES)] for i in range(3)]
        if n % 2 == 0:  # one placeholder shares a real author's family name ("matched on Chen")
            real = paper.authors[0].split()
            given = next(g for g in ("Ling", "Amara", "Viktor", "John") if g != real[0])
            fake[0] = f"{given} {real[-1]}"
        cited = {"title": paper.title, "authors": fake, "year": paper.year}
        if n % 3 == 0:
            cited.update(identifier(paper))
        add("placeholder_authors", n, paper, cited, "placeholder names")
    for n, paper in enumerate(pick(5, published)):
        venue = REAL_VENUES[n % len(REAL_VENUES)]
        cited = real_citation(paper, n * 2 + 1) | {"venue": venue}
        cited["authors"] = cite_authors(paper.authors, 0)
        add("wrong_venue", n, paper, cited, f"published in {paper.venue}")
    for n, paper in enumerate(pick(6, published)):
        cited = real_citation(paper, n * 2 + 1) | {
            "venue": INVENTED_VENUES[n % len(INVENTED_VENUES)]
        }
        cited["authors"] = cite_authors(paper.authors, 0)
        add("nonexistent_venue", n, paper, cited, "no such venue")
    for n, paper in enumerate(pick(7, lambda p: not published(p))):
        cited = real_citation(paper, n * 2 + 1) | {"venue": REAL_VENUES[(n * 5) % len(REAL_VENUES)]}
        cited["authors"] = cite_authors(paper.authors, 0)
        cited["year"] = paper.year
        if n % 3 == 0:
            cited |= {"volume": str(10 + n), "pages": f"{100 + n}--{120 + n}"}
        add("preprint_as_published", n, paper, cited, "the record knows only a preprint")
    for n, paper in enumerate(pick(8, lambda p: 3 <= len(p.authors) <= 12)):
        keep = 1 + n % (len(paper.authors) - 1)
        cited = {"title": paper.title, "authors": paper.authors[:keep], "year": paper.year}
        if n % 2:
            cited.update(identifier(paper))
        add("partial_authors", n, paper, cited, f"{keep} of {len(paper.authors)} authors")
    for n in range(PER_KIND):
        title = (
            f"{INVENTED_TITLE_WORDS[n % len(INVENTED_TITLE_WORDS)]} "
            f"{INVENTED_TITLE_TAILS[n % len(INVENTED_TITLE_TAILS)]}"
        )
        cited = {
            "title": title,
            "authors": [PLACEHOLDER_NAMES[(n * 5 + i) % len(PLACEHOLDER_NAMES)] for i in range(2)],
            "year": 2010 + n % 14,
        }
        if n % 4 == 1:
            cited["arxiv_id"] = f"{19 + n % 5}{(n % 9) + 1:02d}.{90000 + n:05d}"
        if n % 4 == 3:
            cited["venue"] = REAL_VENUES[n % len(REAL_VENUES)]
        add("fabricated", n, None, cited, "no such paper")
    for n, paper in enumerate(pick(9)):
        shift = (2 + n % 4) * (1 if n % 2 else -1)
        cited = {
            "title": paper.title,
            "authors": cite_authors(paper.authors, 4),
            "year": paper.year + shift,
        }
        if n % 2:
            cited.update(identifier(paper))
        add("wrong_year", n, paper, cited, f"year {shift:+d}")
    impossible = [2099, 2999, 1203, 20225, "soon", 0]
    for n, paper in enumerate(pick(10)):
        cited = real_citation(paper, n) | {"year": impossible[n % len(impossible)]}
        add("impossible_year", n, paper, cited, "no such year")
    malformed = [
        {"arxiv_id": "2310.XXXX"},
        {"arxiv_id": "arXiv:abc"},
        {"arxiv_id": "2310.123"},
        {"arxiv_id": "math/06010"},
        {"s2_paper_id": "S2:nonsense"},
        {"s2_paper_id": "12345"},
    ]
    for n, paper in enumerate(pick(11)):
        cited = real_citation(paper, n) | malformed[n % len(malformed)]
        cited.pop("doi", None)
        add("malformed_id", n, paper, cited, "malformed identifier")
    return {
        "description": (
            "Generated by tools/make_verdict_fixture.py (do not edit by hand): real recorded "
            "papers cited correctly ('real') or miscited the way each kind of hallucination "
            "does. 'flag': the gate must answer CORRECTED or UNCONFIRMED; 'strict': never "
            "CONFIRMED."
        ),
        "cases": cases,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--check", action="store_true", help="compare with the file on disk")
    args = parser.parse_args(argv)
    text = json.dumps(build(), ensure_ascii=False, indent=1) + "\n"
    if args.check:
        same = OUT.exists() and OUT.read_text(encoding="utf-8") == text
        print("up to date" if same else f"{OUT} differs from what the script writes")
        return 0 if same else 1
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}: {len(json.loads(text)['cases'])} cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
