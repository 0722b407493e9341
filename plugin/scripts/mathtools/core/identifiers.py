"""Identifiers: how an arXiv id, a DOI and a Zbl number are written, read and normalised.

The one home of these rules (Semantic Scholar's own id forms, `ARXIV:`/`CorpusId:`..., are read by
semantic_scholar.s2_id, which uses these for the arXiv ids and DOIs inside them):
- arXiv: `2104.12255v1`, `arXiv:...`, `math.AG/0601001`, abs/pdf URLs and arXiv DOIs all name
  one id; normalise_arxiv_id gives it without its version, and the version apart.
- DOI: `doi:`/doi.org prefixes dropped, lower case (DOIs are case-insensitive).
- Zbl: `Zbl 1409.11141`, `Zbl:1409.11141`.
"""

from __future__ import annotations

import re

from .errors import BadInput

ARXIV_NEW_ID = re.compile(r"(\d{4}\.\d{4,5})(?:v(\d+))?")
ARXIV_OLD_ID = re.compile(r"([a-z]+(?:-[a-z]+)?)(?:\.[a-z]{2})?/(\d{7})(?:v(\d+))?", re.IGNORECASE)
ARXIV_WRAPPERS = re.compile(
    r"^(?:arxiv:|(?:https?://)?(?:dx\.)?doi\.org/|10\.48550/arxiv\."
    r"|(?:https?://)?(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/)",
    re.IGNORECASE,
)
ARXIV_VERSION = re.compile(r"v\d+$")
# An arXiv id inside running text (a PROBLEM.md reference line), version dropped.
ARXIV_NEW_ID_IN_TEXT = re.compile(r"(?<![\d.])(\d{4}\.\d{4,5})(?:v\d+)?(?![\d])")
ARXIV_OLD_ID_IN_TEXT = re.compile(r"\b([a-z][a-z\-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?\b")
# An arXiv id a bibliography entry announces (`arXiv:2101.00001v2`, `arXiv preprint math/0211159`,
# an arxiv.org URL): the id and its version suffix. Bare digits in an entry may be pages.
ARXIV_ID_CITED = re.compile(
    r"(?:arxiv(?:\s*preprint)?\s*[:.]?\s*(?:arxiv\s*:\s*)?|arxiv\.org/(?:abs|pdf)/)"
    r"([a-z.-]+/\d{7}|\d{4}\.\d{4,5})(v\d+)?",
    re.IGNORECASE,
)
ARXIV_DOI_PREFIX = "10.48550/arxiv."  # arXiv's own DOIs: 10.48550/arXiv.<id>

DOI_WRAPPER = re.compile(r"^(?:doi:\s*|https?://(?:dx\.)?doi\.org/)", re.IGNORECASE)
DOI = re.compile(r"(?:doi:\s*|https?://(?:dx\.)?doi\.org/)?(10\.\d{4,9}/\S+)", re.IGNORECASE)
# A DOI inside running text: it ends before a quote, bracket, comma or a closing full stop.
DOI_IN_TEXT = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>,;]+[^\s\"<>,;.)])", re.IGNORECASE)
# A DOI a bibliography entry announces (`doi:`, `doi = {`, a doi.org URL), up to BibTeX syntax.
DOI_CITED = re.compile(r"(?:doi\.org/|doi\s*[:=]?\s*\{?)(10\.\d{4,9}/[^\s{}\\,\"]+)", re.I)

ZBL = re.compile(r"(?:zbl\s*:?\s*)?(\d{4}\.\d{5})", re.IGNORECASE)


def without_identifiers(text: str) -> str:
    """The text with its URLs, DOIs and arXiv ids blanked out: what is left to read a year or a
    name from without taking one out of an identifier."""
    text = re.sub(r"https?://\S+", " ", text)
    for pattern in (DOI_IN_TEXT, ARXIV_NEW_ID_IN_TEXT, ARXIV_OLD_ID_IN_TEXT):
        text = pattern.sub(" ", text)
    return text


def normalise_arxiv_id(text: str) -> tuple[str, int | None]:
    """The arXiv id (without version) and the version, from any way people write an id.

    Accepts `2104.12255`, `2104.12255v1`, `arXiv:2104.12255`, `math/0601001`, `math.AG/0601001`
    (becomes `math/0601001`), abs and pdf URLs (`https://arxiv.org/pdf/2104.12255v1.pdf`) and
    arXiv DOIs (`10.48550/arXiv.2104.12255`, also as a doi.org URL). Raises BadInput (code
    "bad_id") naming the text otherwise.
    """
    raw = text.strip()
    core = raw
    # At most two wrappers: a DOI URL around the DOI prefix.
    for _ in range(2):
        core = ARXIV_WRAPPERS.sub("", core, count=1)
    core = core.rstrip("/")
    if core.lower().endswith(".pdf"):
        core = core[:-4]
    match = ARXIV_NEW_ID.fullmatch(core)
    if match:
        version = match.group(2)
        return match.group(1), int(version) if version else None
    match = ARXIV_OLD_ID.fullmatch(core)
    if match:
        version = match.group(3)
        return f"{match.group(1).lower()}/{match.group(2)}", int(version) if version else None
    raise BadInput(f"not an arXiv id: {raw!r}", code="bad_id")


def is_arxiv_id(text: str) -> bool:
    """Is `text` an arXiv id as arXiv writes it (new or old style, a version allowed)?"""
    return bool(ARXIV_NEW_ID.fullmatch(text) or ARXIV_OLD_ID.fullmatch(text))


def arxiv_id_text(arxiv_id: str, version: int | None) -> str:
    """`2104.12255v1`, or the bare id when no version is meant."""
    return f"{arxiv_id}v{version}" if version else arxiv_id


def unversioned(arxiv_id: str) -> str:
    """An arXiv id as written, without a trailing version (`2104.12255v2` -> `2104.12255`)."""
    return ARXIV_VERSION.sub("", arxiv_id)


def normalise_doi(text: str) -> str:
    """A DOI, lower case, without `doi:` or a doi.org prefix; BadInput (bad_id) otherwise."""
    match = DOI.fullmatch(text.strip())
    if not match:
        raise BadInput(f"not a DOI: {text!r} (a DOI starts with 10.)", code="bad_id")
    return match.group(1).lower()


def doi_text(text: str) -> str:
    """What a DOI field holds, prefix dropped and lower case, without checking it is a DOI (a
    candidate's DOI is asked for as given: a wrong one is the service's to refuse)."""
    return DOI_WRAPPER.sub("", text.strip()).lower()
