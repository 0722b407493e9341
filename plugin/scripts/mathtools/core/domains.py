"""The protocol's domains: the arXiv categories each one targets (protocol section 5), and the
Mathematics Subject Classification (MSC 2020) classes zbMATH Open searches use for it.

One row per domain: its primary categories (searched by default) and its secondary ones (added by
`--secondary`, and by a plan's browse query). The first nine are the protocol's original table;
the rest are where much of today's mathematics lives. A PROBLEM.md may name more
categories in its frontmatter (`arxiv_categories: [math.QA]`), which planning adds to these.

A domain is also accepted by a common name of its field (ALIASES: "optimization", "PDE",
"geometric topology"), in any case, with spaces, underscores or hyphens: domain_name() gives the
row, and every reader of a domain (PROBLEM.md's frontmatter, `arxiv_query.py --domain`,
`workspace.py new --domain`) goes through it.
"""

from __future__ import annotations

import re
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
    # Analysis of PDEs: without a row, a math.AP paper fell outside "analysis" searches.
    "partial-differential-equations": Categories(
        ("math.AP",), ("math.FA", "math.CA", "math.DG", "math-ph")
    ),
}


# Common names of the fields (hyphenated, lower case) -> the row they name: the names people
# write in a PROBLEM.md's `domain` ("optimization" and "pde" were once refused).
ALIASES: dict[str, str] = {
    "groups": "algebra", "group-theory": "algebra", "ring-theory": "algebra",
    "commutative-algebra": "algebra", "representation-theory": "algebra",
    "functional-analysis": "analysis", "harmonic-analysis": "analysis",
    "complex-analysis": "analysis", "real-analysis": "analysis", "classical-analysis": "analysis",
    "operator-theory": "analysis", "operator-algebras": "analysis", "spectral-theory": "analysis",
    "geometric-topology": "topology", "algebraic-topology": "topology",
    "general-topology": "topology", "low-dimensional-topology": "topology",
    "knot-theory": "topology",
    "analytic-number-theory": "number-theory", "algebraic-number-theory": "number-theory",
    "arithmetic-geometry": "number-theory",
    "graph-theory": "combinatorics", "discrete-mathematics": "combinatorics",
    "riemannian-geometry": "differential-geometry",
    "geometric-analysis": "differential-geometry",
    "probability-theory": "probability", "stochastic-processes": "probability",
    "set-theory": "logic", "model-theory": "logic", "mathematical-logic": "logic",
    "computer-science": "theoretical-computer-science", "tcs": "theoretical-computer-science",
    "computational-complexity": "theoretical-computer-science",
    "complexity-theory": "theoretical-computer-science",
    "algorithms": "theoretical-computer-science",
    "mathematical-statistics": "statistics", "stats": "statistics",
    "math-ph": "mathematical-physics", "physics": "mathematical-physics",
    "numerical-methods": "numerical-analysis", "scientific-computing": "numerical-analysis",
    "optimization": "optimization-control", "optimisation": "optimization-control",
    "control": "optimization-control", "control-theory": "optimization-control",
    "optimal-control": "optimization-control", "operations-research": "optimization-control",
    "dynamics": "dynamical-systems", "ergodic-theory": "dynamical-systems",
    "coding-theory": "information-theory",
    "pde": "partial-differential-equations",
    "analysis-of-pdes": "partial-differential-equations",
}  # fmt: skip


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
    "partial-differential-equations": ("35",),
}


def domain_name(name: str) -> str | None:
    """The row a domain name gives: itself, or the row of a common name of its field ("PDE",
    "Geometric topology", "optimization"); None for a name the table does not know."""
    key = "-".join(re.findall(r"[a-z]+", name.lower().replace("&", " and ")))
    key = key.replace("-and-", "-")  # "Optimization and control": optimization-control
    for form in (key, f"{key}s", key.removesuffix("s")):  # "dynamical system", "PDEs"
        if form in DOMAINS or form in ALIASES:
            return form if form in DOMAINS else ALIASES[form]
    return None


def named_fields(text: str) -> list[str]:
    """The rows whose field the text names by a name of two words or more, or an abbreviation
    ("partial differential equations", "dynamical system", "PDE"), in the order of the table. A
    field's one-word name ("control", "analysis") is a common word of any statement: no sign."""
    words = f" {' '.join(re.findall(r'[a-z]+', text.lower()))} "
    rows: list[str] = []
    for name in [*DOMAINS, *ALIASES]:
        phrase = name.replace("-", " ")
        if ("-" in name or len(name) <= 3) and re.search(rf" {phrase}s? ", words):
            row = domain_name(name)
            if row and row not in rows:
                rows.append(row)
    return rows


def known_domain(name: str) -> str:
    """domain_name(), or BadInput naming the rows for a name the table does not know."""
    row = domain_name(name)
    if row is None:
        known = ", ".join(DOMAINS)
        raise BadInput(f"unknown domain {name!r}; known domains: {known}", code="unknown_domain")
    return row


def msc_classes(domain: str) -> list[str]:
    """The MSC 2020 classes for `domain`, its own first."""
    return list(MSC.get(known_domain(domain), ()))


def categories(domain: str, secondary: bool = False) -> list[str]:
    """The arXiv categories for `domain` (primary first; with `secondary`, those too)."""
    primary, extra = DOMAINS[known_domain(domain)]
    return [*primary, *(extra if secondary else ())]
