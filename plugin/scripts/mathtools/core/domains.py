"""The protocol's domains: the arXiv categories each one targets (protocol section 5), and the
Mathematics Subject Classification (MSC 2020) classes zbMATH Open searches use for it.

One row per domain: its primary categories (searched by default) and its secondary ones (added by
`--secondary`, and by a plan's browse query). The first nine are the protocol's original table;
the rest are where much of today's mathematics lives. A PROBLEM.md may name more
categories in its frontmatter (`arxiv_categories: [math.QA]`), which planning adds to these.
"""

from __future__ import annotations

from typing import NamedTuple

from .errors import BadInput


class Categories(NamedTuple):
    primary: tuple[str, ...]
    secondary: tuple[str, ...]


DOMAINS: dict[str, Categories] = {
    "algebra": Categories(("math.RA", "math.GR", "math.AC"), ("math.RT", "math.CT")),
    "analysis": Categories(("math.FA", "math.CA", "math.CV"), ("math.AP", "math.SP", "math.OA")),
    "topology": Categories(("math.AT", "math.GN", "math.GT"), ("math.DG", "math.KT")),
    "number-theory": Categories(("math.NT",), ("math.AG", "math.CO")),
    "combinatorics": Categories(("math.CO",), ("math.PR", "math.RT")),
    "algebraic-geometry": Categories(("math.AG",), ("math.AC", "math.CT", "math.KT")),
    "differential-geometry": Categories(("math.DG",), ("math.AP", "math.SG", "math.MG")),
    "probability": Categories(("math.PR",), ("math.FA", "math.ST", "math.DS")),
    "logic": Categories(("math.LO",), ("math.CT", "math.GN")),
    "theoretical-computer-science": Categories(
        ("cs.DS", "cs.CC", "cs.DM", "cs.IT"), ("cs.LO", "cs.GT", "math.CO")
    ),
    "statistics": Categories(("math.ST", "stat.TH"), ("stat.ME", "stat.ML", "math.PR")),
    "mathematical-physics": Categories(("math-ph", "math.MP"), ("math.AP", "math.SP", "quant-ph")),
    "numerical-analysis": Categories(("math.NA", "cs.NA"), ("math.AP", "math.OC")),
    "optimization-control": Categories(("math.OC",), ("math.NA", "cs.SY", "math.AP")),
    "dynamical-systems": Categories(("math.DS",), ("nlin.CD", "math.CA", "math.PR")),
    "information-theory": Categories(("cs.IT", "math.IT"), ("math.PR", "math.ST", "math.CO")),
}


# domain -> MSC 2020 top-level classes (two digits), the domain's own first: what a zbMATH search
# restricts `cc:` to. Every domain of DOMAINS has an entry (tests/test_plan_queries.py checks).
MSC: dict[str, tuple[str, ...]] = {
    "algebra": ("16", "20", "13", "17"),  # associative rings, groups, commutative, nonassociative
    "analysis": ("46", "26", "30", "47"),  # functional, real functions, complex, operators
    "topology": ("54", "55", "57"),  # general, algebraic, manifolds
    "number-theory": ("11",),
    "combinatorics": ("05",),
    "algebraic-geometry": ("14",),
    "differential-geometry": ("53", "58"),  # differential geometry, global analysis
    "probability": ("60",),
    "logic": ("03",),
    "theoretical-computer-science": ("68", "05"),  # computer science (68Q, 68R, 68W), combinatorics
    "statistics": ("62",),
    "mathematical-physics": ("81", "82", "83"),  # quantum theory, statistical mechanics, relativity
    "numerical-analysis": ("65",),
    "optimization-control": ("90", "49", "93"),  # programming, variations and control, systems
    "dynamical-systems": ("37",),
    "information-theory": ("94",),  # 94A: information and communication theory
}


def _known(domain: str) -> None:
    if domain not in DOMAINS:
        known = ", ".join(DOMAINS)
        raise BadInput(f"unknown domain {domain!r}; known domains: {known}", code="unknown_domain")


def msc_classes(domain: str) -> list[str]:
    """The MSC 2020 classes for `domain`, its own first."""
    _known(domain)
    return list(MSC.get(domain, ()))


def categories(domain: str, secondary: bool = False) -> list[str]:
    """The arXiv categories for `domain` (primary first; with `secondary`, those too)."""
    _known(domain)
    primary, extra = DOMAINS[domain]
    return [*primary, *(extra if secondary else ())]
