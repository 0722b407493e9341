"""The protocol's nine domains and the arXiv categories each one targets (protocol section 5)."""

from __future__ import annotations

# domain -> (primary categories, secondary categories)
DOMAINS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "algebra": (("math.RA", "math.GR", "math.AC"), ("math.RT", "math.CT")),
    "analysis": (("math.FA", "math.CA", "math.CV"), ("math.AP", "math.SP", "math.OA")),
    "topology": (("math.AT", "math.GN", "math.GT"), ("math.DG", "math.KT")),
    "number-theory": (("math.NT",), ("math.AG", "math.CO")),
    "combinatorics": (("math.CO",), ("math.PR", "math.RT")),
    "algebraic-geometry": (("math.AG",), ("math.AC", "math.CT", "math.KT")),
    "differential-geometry": (("math.DG",), ("math.AP", "math.SG", "math.MG")),
    "probability": (("math.PR",), ("math.FA", "math.ST", "math.DS")),
    "logic": (("math.LO",), ("math.CT", "math.GN")),
}


def categories(domain: str, secondary: bool = False) -> list[str]:
    """The arXiv categories for `domain` (primary first; with `secondary`, those too)."""
    from .cli import BadInput

    if domain not in DOMAINS:
        known = ", ".join(DOMAINS)
        raise BadInput(f"unknown domain {domain!r}; known domains: {known}", code="unknown_domain")
    primary, extra = DOMAINS[domain]
    return [*primary, *(extra if secondary else ())]
