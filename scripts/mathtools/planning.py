"""Discovery query planning: from a PROBLEM.md to 3-5 queries per API (protocol sections 2 and 7).

The plan is deterministic: the same PROBLEM.md and LITERATURE.md always give the same queries.
Each query is drawn from one of the protocol's five sources:

  keywords    key terms of the title and problem statement (LaTeX stripped)
  tags        the frontmatter tags, inside the domain's primary arXiv categories
  known       theorem and technique names from `## Known Results`
  authors     family names from `## References`
  browse      the core term across the domain's primary and secondary categories

and is given as the exact argument list of `arxiv_query.py`, `s2_lookup.py` or `zbmath_lookup.py`
(zbMATH Open queries are restricted to the domain's MSC classes, domains.MSC). Every query also
has a `label`, the one-line form the run store records (LITERATURE.md's Search History shows a
short summary of it); a query whose label the problem's runs, or the Search History, already hold
is skipped (the incremental rule: never re-run an identical query).

Identifiers in `## References` (arXiv ids, DOIs) are not queries: they become candidates that go
straight to verification.
"""

from __future__ import annotations

import re
import shlex
import unicodedata
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

from . import domains, frontmatter
from .errors import BadInput
from .files import read_text

APIS = ("arxiv", "semantic_scholar")  # the discovery sources; every search of theirs relaxes
# What a plan queries: the discovery sources, and zbMATH Open restricted to the domain's MSC class.
PLAN_APIS = (*APIS, "zbmath")
API_LABELS = {
    "arxiv": "arxiv",
    "semantic_scholar": "s2",
    "zbmath": "zbmath",
    "crossref": "crossref",
}
API_NAMES = {"arxiv": "arXiv", "semantic_scholar": "Semantic Scholar", "zbmath": "zbMATH Open"}
MIN_QUERIES, MAX_QUERIES = 3, 5
# zbMATH Open supplements the two discovery sources (classics, books, journal-only work): three
# queries at most, and a plan with fewer needs no note.
MAX_ZBMATH_QUERIES = 3
# Options a label leaves out, and whether each takes a value.
LEFT_OUT = {
    "--max-results": True, "--limit": True, "--rows": True, "--out": True, "--no-cache": False,
    "--relax": False,
}  # fmt: skip
TEXT_OPTIONS = ("--query", "--all", "--title", "--abstract", "--author")  # a label's search words
OPTION_WITH_VALUE = re.compile(r"(?<!\S)(--[a-z][a-z-]*)=")  # `--query=` in a label
SUMMARY_CHARS = 160  # a Search History Query Summary, at most (then "(+N more)")
MAX_PER_QUERY = 100  # results per search: Semantic Scholar's relevance search gives 100 at most

# Words that never make a search term on their own (English function words and the vocabulary
# every problem statement uses about itself).
STOPWORDS = frozenset(
    """
    a about above after again all also an and any are as at be because been before being below
    between both but by can could did do does doing down during each either every few for from
    further had has have having here how if in into is it its itself just least let like may
    might more most much must my no nor not now of off on once only or other our out over own
    same shall should show shows shown so some such than that the their them then there these
    they this those through thus to too under until up upon very via was we were what when where
    whether which while who whom why will with within without would you your
    assume assuming case cases consider determine does exist exists find given give holds known
    prove proof question result results statement suppose true false whenever wherever
    obtain obtained problem problems well new open one two three first second every
    describe compute decide explain establish verify many lie lies contain contains need needs
    needed require requires required along across beyond toward towards around among versus
    """.split()  # noqa: SIM905 (a word list reads better as text)
)
# Verbs and fillers a problem statement or a Known Results line uses about the mathematics
# ("Bound the mixing time", "Turing instability occurs", "Sah improved ..."): they end a key
# phrase in PROBLEM.md, though a query the model refines may keep them.
STATEMENT_WORDS = frozenset(
    """
    characterize characterise classify compare relate relates exhibit exhibits follow
    follows following occur occurs emerge emerges arise arises near give gives gave build built
    builds showed proved proves prove improve improved improves take taken takes call called
    denote denotes use used using satisfy satisfies satisfying admit admits yield yields iff
    namely respectively general arbitrary certain alone depend depends depending whose
    approximating computing bounding estimating deciding determining finding proving
    constructing characterizing characterising classifying
    """.split()  # noqa: SIM905
)
# Words that are no search term on their own (a query of "Groups" or "norm" finds everything),
# nor a modifier worth an arXiv field of its own; inside a longer phrase they stay. Kept as
# same_stem keys: "bounds" is "bound".
GENERIC = frozenset(
    word.rstrip("s")
    for word in """
    bound upper lower estimate constant large small smooth flat decidable rational random real
    complex linear bounded closed finite infinite nonzero nontrivial red blue edge vertex
    vertices operator group metric norm infinity probability algorithm sample function set space
    map graph time counting number value condition property properties structure method order
    term unconditionally infinitely analogue variant version answer example setting form
    """.split()  # noqa: SIM905
)
# Title words that introduce the setting rather than the subject: "Fixed points of
# nonexpansive maps on uniformly convex Banach spaces" is about fixed points.
SETTING = re.compile(r"\s(?:on|in|over|inside|of\s+the\s+form)\s", re.IGNORECASE)

# How LaTeX commands read in a search box: Greek letters spelled out, a few named symbols worded
# (only symbols of one meaning: \nabla is a gradient, a connection or a Conway polynomial).
GREEK = (  # as a regex alternation
    "alpha|beta|gamma|delta|epsilon|varepsilon|zeta|eta|theta|vartheta|iota|kappa|lambda|mu|nu|"
    "xi|pi|varpi|rho|varrho|sigma|varsigma|tau|upsilon|phi|varphi|chi|psi|omega|Gamma|Delta|"
    "Theta|Lambda|Xi|Pi|Sigma|Upsilon|Phi|Psi|Omega"
)
NAMED_SYMBOLS = {
    "lfloor": "floor",  # \lfloor n^c \rfloor: the floor function, as a paper words it
    "lceil": "ceiling",
    "infty": "infinity",
    "ell": "l",
    "partial": "partial",
    "otimes": "tensor",
    "oplus": "direct sum",
    "zeta": "zeta",
}
TEXT_MACROS = ("text", "textrm", "textit", "textbf", "emph", "mathrm", "operatorname", "mbox")
BLACKBOARD = {"R": "real", "C": "complex", "Z": "integer", "N": "natural", "Q": "rational"}

ARXIV_CATEGORY = re.compile(r"[a-z]+(?:-[a-z]+)?(?:\.[A-Za-z-]{2,})?")  # math.SG, math-ph
ARXIV_NEW_ID = re.compile(r"(?<![\d.])(\d{4}\.\d{4,5})(?:v\d+)?(?![\d])")
ARXIV_OLD_ID = re.compile(r"\b([a-z][a-z\-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?\b")
DOI = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>,;]+[^\s\"<>,;.)])", re.IGNORECASE)
YEAR = re.compile(r"\((1[89]\d\d|20\d\d)[a-z]?\)|\b(1[89]\d\d|20\d\d)\b")
NAMED_RESULT = re.compile(
    r"((?:[A-Z][\w'\u2019\-]*(?:\s+(?:and\s+)?|[-\u2013]))*[A-Z][\w'\u2019\-]*)"
    r"(?:'s|\u2019s)?\s+(theorem|lemma|inequality|conjecture|principle|formula|bound|criterion|"
    r"estimate|identity|hypothesis|problem|method|decomposition|transform|property)s?\b"
)
EMPHASIS = re.compile(r"\*\*(.+?)\*\*|__(.+?)__")
TITLE_MARKUP = re.compile(
    r"\"([^\"]{8,})\"|\u201c([^\u201d]{8,})\u201d|\*([^*]{8,})\*|_([^_]{8,})_"
)


@dataclass
class Reference:
    """One item of `## References`, as far as a heuristic can read it."""

    text: str
    authors: list[str] = field(default_factory=list)  # family names
    title: str | None = None
    year: int | None = None
    arxiv_id: str | None = None
    doi: str | None = None


@dataclass
class Problem:
    """What the planner reads from a PROBLEM.md."""

    slug: str
    title: str
    domain: str | None
    subdomain: str | None
    tags: list[str]
    statement: str
    known_results: list[str]
    references: list[Reference]
    extra_categories: list[str] = field(default_factory=list)  # frontmatter arxiv_categories


# --- reading PROBLEM.md -----------------------------------------------------------------------


def read_problem(path: Path) -> Problem:
    """Parse a PROBLEM.md (frontmatter plus the protocol's body sections)."""
    meta, body = frontmatter.split(read_text(path, "PROBLEM.md"), str(path))
    sections = split_sections(body)
    domain = meta.get("domain")
    if domain is not None and str(domain) not in domains.DOMAINS:
        domain = None  # a custom domain has no category map; queries then carry no category
    tags = meta.get("tags") or []
    if isinstance(tags, str):
        tags = [part.strip() for part in tags.split(",")]
    title = str(meta.get("title") or "").strip()
    extra = meta.get("arxiv_categories") or []
    if isinstance(extra, str):
        extra = extra.replace(",", " ").split()
    return Problem(
        slug=str(meta.get("slug") or path.parent.name),
        title=title,
        domain=str(domain) if domain else None,
        subdomain=str(meta["subdomain"]) if meta.get("subdomain") else None,
        tags=[str(tag).strip() for tag in tags if str(tag).strip()],
        statement=sections.get("problem statement", ""),
        known_results=list_items(sections.get("known results", "")),
        references=[parse_reference(item) for item in list_items(sections.get("references", ""))],
        extra_categories=[str(c) for c in extra if ARXIV_CATEGORY.fullmatch(str(c))],
    )


def split_sections(body: str) -> dict[str, str]:
    """Heading text (lower case) -> the text under it, up to the next heading of any level."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in body.splitlines():
        heading = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if heading:
            current = sections.setdefault(heading.group(1).strip().lower(), [])
        elif current is not None:
            current.append(line)
    return {name: "\n".join(lines).strip() for name, lines in sections.items()}


def list_items(text: str) -> list[str]:
    """The items of a Markdown list (continuation lines joined); plain paragraphs if no list.

    Placeholders are no items: a paragraph wholly in parentheses (templates/PROBLEM.md's
    guidance) and a line such as "None given." (what the intake writes for an empty section)."""
    paragraphs = re.split(r"\n\s*\n", text)
    text = "\n\n".join(p for p in paragraphs if not _guidance(p.strip().removesuffix(".")))
    items: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        marker = re.match(r"([-*+]|\d+[.)])\s+(.*)", stripped)
        if marker:
            items.append(marker.group(2))
        elif stripped and items and line[:1].isspace():
            items[-1] += " " + stripped
        elif stripped and not stripped.startswith(("<!--", ">")):
            items.append(stripped)
    return [item for item in (i.strip() for i in items) if item and not _placeholder(item)]


PLACEHOLDER = re.compile(r"(?:none(?: given| yet| known| so far)?|n/a|tbd|todo)(?:\s*[:;,.].*)?")


def _guidance(paragraph: str) -> bool:
    """Is the paragraph one parenthesis, opened at its start and closed at its end?"""
    depth = 0
    for position, char in enumerate(paragraph):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0:
            return position == len(paragraph) - 1 and position > 0
    return False


def _placeholder(item: str) -> bool:
    return bool(PLACEHOLDER.fullmatch(item.lower().strip(" ()_*")))


def parse_reference(text: str) -> Reference:
    """Authors, title, year and identifiers of one reference line, as written.

    Understood shapes: `Authors (Year). Title. Venue.`, `Authors, "Title", Venue (Year).`,
    `Authors, *Title*, ...`, `Authors, Title, Venue.` and bare identifiers (`arXiv:...`, DOIs)."""
    ref = Reference(text=text)
    if match := ARXIV_NEW_ID.search(text) or ARXIV_OLD_ID.search(text):
        ref.arxiv_id = match.group(1)
    if match := DOI.search(text):
        ref.doi = match.group(1).lower()
        if ref.doi.startswith("10.48550/arxiv."):
            ref.arxiv_id = ref.arxiv_id or ref.doi.split("arxiv.", 1)[1]
    year = YEAR.search(text)
    if year:
        ref.year = int(year.group(1) or year.group(2))
    markup = TITLE_MARKUP.search(text)
    sentence_end = SENTENCE_END.search(text)
    cut = min([m.start() for m in (year, markup, sentence_end) if m] + [len(text)])
    ref.authors, rest_at = _leading_names(text[:cut])
    if markup:
        ref.title = next(group for group in markup.groups() if group).strip().rstrip(".,")
        return ref
    rest = text[rest_at:] if rest_at < cut else text[cut:]
    rest = re.sub(r"^[\s.,;:]*(?:\((?:1[89]|20)\d\d[a-z]?\))?[\s.,;:]*", "", rest)
    rest = re.split(r",\s+(?=[A-Z]\w*\.\s)", rest)[0]  # ", Ann. Math. 12" starts the venue
    title = SENTENCE_END.split(rest, maxsplit=1)[0].strip(" .,;")
    title = TRAILING_YEAR.sub("", title).strip(" .,;")  # "..., NeurIPS (2015)" is no title
    if len(title.split()) >= 2 and not re.search(r"arxiv|doi|https?:", title, re.IGNORECASE):
        ref.title = title
    return ref


# A year closing a reference, with the short venue before it: ", NeurIPS (2015)", " (2008)".
TRAILING_YEAR = re.compile(r"(?:,\s*[A-Z][\w.&' -]{0,40}?)?\s*\((?:1[89]|20)\d\d[a-z]?\)$")
SENTENCE_END = re.compile(r"(?<=[^\W\d_][^\W\d_])\.\s|(?<=\d)\.\s(?=[A-Z])")
PARTICLES = frozenset("van von der den de del della di da du la le ter ten".split())  # noqa: SIM905
SEPARATOR = re.compile(r",\s*|\s+and\s+|\s*&\s*|;\s*")


def _leading_names(head: str) -> tuple[list[str], int]:
    """Family names of the author list that opens `head`, and where the rest of `head` begins.

    Reads "F. E. Browder", "W. van der Kallen" and "Goldreich, O., Ron, D." alike."""
    families: list[str] = []
    position = 0
    for chunk in re.split(f"({SEPARATOR.pattern})", head):
        name = re.sub(r"^(?:and|&)\s+", "", chunk.strip())
        if not name or SEPARATOR.fullmatch(chunk) or name in ("et al.", "et al"):
            position += len(chunk)
            continue
        words = name.split()
        if len(words) > 5 or not all(_name_word(w) for w in words):
            break
        full = [w for w in words if not w.endswith(".")]
        if full:
            first = next((i for i, w in enumerate(full) if w.lower() in PARTICLES), len(full) - 1)
            families.append(" ".join(full[first:]))
        elif not families:  # initials before any name: not an author list
            break
        position += len(chunk)
    return families, position


def _name_word(word: str) -> bool:
    """An initial ("F.", "J.-P."), a particle ("van") or a capitalised name ("O'Neil")."""
    if re.fullmatch(r"[^\W\d_]\.(?:-?[^\W\d_]\.)*", word) or word.lower() in PARTICLES:
        return True
    return bool(re.fullmatch(r"[^\W\d_][\w'\u2019\-]*", word)) and word[:1].isupper()


# --- LaTeX and key terms ----------------------------------------------------------------------


def strip_latex(text: str) -> str:
    r"""Plain words for a search box: `\mathbb{R}^n` -> "R^n", `\|T\|` -> "norm T", `\alpha` ->
    "alpha", `\emph{x}` -> "x"; other commands, `$`, braces and sub/superscript marks go."""
    text = re.sub(r"\\\|(.*?)\\\|", r" norm \1 ", text)
    text = re.sub(r"\\(?:mathbb|mathbf|mathcal|mathfrak|mathscr|bm)\{(\w+)\}", r"\1", text)
    for macro in TEXT_MACROS:
        text = re.sub(rf"\\{macro}\*?\{{([^{{}}]*)\}}", r" \1 ", text)
    text = re.sub(rf"\\({GREEK})(?![A-Za-z])", r" \1 ", text)
    for macro, words in NAMED_SYMBOLS.items():
        text = re.sub(rf"\\{macro}(?![A-Za-z])", f" {words}", text)
    text = re.sub(r"\\[\"'`^~=.]\{?(\w)\}?", r"\1", text)  # accents: \"o -> o
    text = re.sub(r"\\[A-Za-z]+\*?", " ", text)
    text = re.sub(r"\\.", " ", text)
    text = text.replace("--", "-")
    text = re.sub(r"[${}_]", " ", text)
    text = re.sub(r"\^\s+", "^", text)  # \ell^\infty -> "l^infinity", one word
    return " ".join(text.split())


def fold(text: str) -> str:
    """Lower case, diacritics removed (for comparing words, never for display)."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


def key_terms(
    text: str,
    limit: int | None = 8,
    max_words: int | None = 4,
    stopwords: frozenset[str] = STOPWORDS,
) -> list[str]:
    """Key phrases by the RAKE rule: runs of content words between stopwords and punctuation,
    scored by the sum of word degree / frequency; ties keep the order of first appearance.
    `limit` phrases at most and `max_words` words a phrase (None: no cut)."""
    plain = strip_latex(text)
    phrases: list[list[str]] = []
    for chunk in re.split(r"[.,;:!?()\[\]\"=<>+*/|]|\s-\s", plain):
        run: list[str] = []
        for word in re.findall(r"[^\W_][\w'\u2019\-^]*", chunk):
            if _content_word(word, stopwords):
                run.append(word)
            else:
                if run:
                    phrases.append(run)
                run = []
        if run:
            phrases.append(run)
    phrases = [run[-max_words:] if max_words else run for run in phrases]
    frequency: dict[str, int] = {}
    degree: dict[str, int] = {}
    for run in phrases:
        for word in run:
            frequency[fold(word)] = frequency.get(fold(word), 0) + 1
            degree[fold(word)] = degree.get(fold(word), 0) + len(run)
    best: dict[str, tuple[float, int, str]] = {}  # same-stem phrases count once, best score kept
    for position, run in enumerate(phrases):
        score = sum(degree[fold(w)] / frequency[fold(w)] for w in run)
        key = same_stem(" ".join(run))
        if key not in best:
            best[key] = (score, position, " ".join(run))
        elif score > best[key][0]:
            best[key] = (score, best[key][1], best[key][2])
    ranked = sorted(best.values(), key=lambda entry: (-entry[0], entry[1]))
    return [phrase for _, _, phrase in ranked[:limit]]


def same_stem(phrase: str) -> str:
    """A comparison key under which "Fixed points" and "fixed point" are one phrase."""
    return " ".join(word.rstrip("s") for word in fold(phrase).split())


def _content_word(word: str, stopwords: frozenset[str]) -> bool:
    folded = fold(word)
    if folded in stopwords or (len(folded) < 3 and "^" not in folded):
        return False
    return not folded.isdigit()


def result_names(item: str, phrase: bool = True) -> list[str]:
    """Theorem and technique names in a Known Results item ("Banach fixed point theorem"): the
    ones it names or stresses in bold; with `phrase`, an item naming none gives its key phrase."""
    plain = strip_latex(item)
    names = [a or b for a, b in EMPHASIS.findall(item)]
    names += [f"{m.group(1)} {m.group(2)}" for m in NAMED_RESULT.finditer(plain)]
    if not names and phrase:
        names = problem_terms(item, limit=1)
    cleaned = []
    for name in names:
        name = " ".join(strip_latex(name).replace("\u2019", "'").split()).strip(" .,:")
        name = re.sub(r"^(?:The|A|An)\s+", "", name)
        if name and fold(name) not in {fold(c) for c in cleaned}:
            cleaned.append(name)
    return cleaned


# --- the plan ---------------------------------------------------------------------------------


@dataclass
class Query:
    api: str  # "arxiv" or "semantic_scholar"
    origin: str  # keywords, tags, known, authors, browse, focus
    args: list[str]  # the script's arguments after the subcommand, without --out

    @property
    def label(self) -> str:
        return label(self.api, self.args)


def label(api: str, args: list[str]) -> str:
    """The one-line form of a search script's call recorded in Search History and the run store:
    `arxiv --all "fixed point" --domain analysis` for `arxiv_query.py search --all 'fixed point'
    --domain analysis --max-results 5 --out F`. The `search` subcommand, result counts (the same
    query with more results is the same query), --out and --no-cache are left out, and so is
    '|', so that a label fits a table cell. `--query=-abc` and `--query -abc` give one label."""
    shown, skip = [], False
    for arg in split_options(args[1:] if args[:1] == ["search"] else args):
        if skip:
            skip = False
        elif arg in LEFT_OUT:
            skip = LEFT_OUT[arg]
        else:
            shown.append(f'"{arg}"' if " " in arg or "'" in arg else arg)  # shlex reads it back
    return f"{API_LABELS[api]} {' '.join(shown)}".replace("|", "/")


def label_terms(label: str) -> list[tuple[str, str]] | None:
    """The (option, search words) pairs of a query label: `arxiv --all "fixed point" --domain
    analysis` -> [("--all", "fixed point")]; None for text that is not a label (a refined query
    recorded as typed)."""
    words = label.strip().split(maxsplit=1)
    if len(words) != 2 or words[0] not in API_LABELS.values():
        return None
    try:
        tokens = split_options(shlex.split(words[1]))
    except ValueError:
        return None
    return [(option, value) for option, value in pairwise(tokens) if option in TEXT_OPTIONS]


def readable_query(label: str) -> str:
    """What a label searched, for a person: `"distribution testing" tolerant` for `arxiv --title
    "distribution testing" --abstract tolerant --domain probability`, `by Canonne` for an author
    search; the label itself when it has no search words (a category browse)."""
    terms = label_terms(label)
    if terms is None:
        return " ".join(label.split())
    shown = [
        ("by " if option == "--author" else "") + (f'"{value}"' if " " in value else value)
        for option, value in terms
    ]
    return " ".join(shown) or " ".join(label.split()[1:]) or label.strip()


def query_summary(
    labels: list[str], notes: dict[str, str] | None = None, width: int = SUMMARY_CHARS
) -> str:
    """A short Search History Query Summary for a search's query labels: each search's words
    once (case ignored), with its note in parentheses (`notes`: label -> how an empty search
    was relaxed), '; '-joined, cut after `width` characters with "(+N more)". The full labels
    stay in the run store, which is what later plans compare against."""
    items: list[str] = []
    for label in labels:
        item = readable_query(label)
        if notes and notes.get(label):
            item += f" ({notes[label]})"
        if item and fold(item) not in {fold(known) for known in items}:
            items.append(item)
    summary = ""
    for shown, item in enumerate(items):
        longer = f"{summary}; {item}" if summary else item
        if summary and len(longer) > width:
            return f"{summary}; (+{len(items) - shown} more)"
        summary = longer
    return summary


def normalise_label(label: str) -> str:
    """How two recorded queries are compared: case, quotes, whitespace and the spelling of an
    option's value (`--query=x`, as labels recorded before label() split it, or `--query x`) do
    not count."""
    label = OPTION_WITH_VALUE.sub(r"\1 ", fold(label))
    return " ".join(label.replace("'", " ").replace('"', " ").split())


def option(name: str, *values: str) -> list[str]:
    """Command-line arguments giving option `name` each of `values` (`--all a --all b`). A value
    that starts with '-' is joined to its name, `--query=-abc`: argparse reads `--query -abc` as
    two options and refuses it."""
    return [
        part
        for value in values
        for part in ([f"{name}={value}"] if value.startswith("-") else [name, value])
    ]


def split_options(args: list[str]) -> list[str]:
    """The arguments with every `--name=value` written as `--name`, `value` (option() writes
    either spelling; a label shows one)."""
    split = []
    for arg in args:
        name, equals, value = arg.partition("=")
        split += [name, value] if equals and name.startswith("--") else [arg]
    return split


def searched_labels(literature: Path | None) -> set[str]:
    """Normalised query labels from LITERATURE.md's Search History (empty when there is none).

    A row's Query Summary may hold labels separated by '; ' (a summary given with
    `lit_update.py merge --query-summary`, or an older file); merges from the run store write a
    readable summary instead, and stored_labels gives their labels."""
    if literature is None or not literature.exists():
        return set()
    body = frontmatter.split(read_text(literature, "LITERATURE.md"), str(literature))[1]
    history = split_sections(body).get("search history", "")
    labels: set[str] = set()
    for line in history.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 2 or set(cells[0]) <= set("-: ") or cells[0].lower() == "date":
            continue
        labels.update(normalise_label(part) for part in cells[1].split(";") if part.strip())
    return labels


def stored_labels(slug: str, db: Path | None = None) -> set[str]:
    """Normalised query labels of the problem's runs in the run store (empty when there is no
    store: reading never creates one). The Search History shows a short summary; the run store
    keeps every label in full."""
    from . import config
    from .store import RunStore

    path = config.literature_db(str(db) if db else None)
    if not path.exists():
        return set()
    with RunStore(path) as store:
        queries = [run["query"] for run in store.prior_queries(slug)]
    return {normalise_label(part) for query in queries for part in query.split(";") if part.strip()}


def plan(
    problem: Problem,
    searched: set[str] = frozenset(),
    focus: str | None = None,
    per_query: int = 5,
    run_dir: str | None = None,
) -> dict[str, Any]:
    """The plan: up to five queries per API, new ones only, and the references to verify.

    With `run_dir`, every query's `args` end with `--out <run_dir>/i1-<api>-<n>.json`."""
    proposals = {api: _proposals(problem, api, focus, per_query) for api in PLAN_APIS}
    queries: dict[str, list[Query]] = {}
    skipped = []
    for api, candidates in proposals.items():
        chosen: list[Query] = []
        seen: set[str] = set()
        for query in candidates:
            label = normalise_label(query.label)
            if label in seen:
                continue
            seen.add(label)
            if label in searched:
                skipped.append({"api": api, "label": query.label, "reason": "in Search History"})
            elif len(chosen) < (MAX_ZBMATH_QUERIES if api == "zbmath" else MAX_QUERIES):
                chosen.append(query)
        queries[api] = chosen
    skipped_apis = {item["api"] for item in skipped}
    notes = [
        f"only {len(queries[api])} {API_NAMES[api]} queries: PROBLEM.md gives few search terms; "
        "tags, known results or references in it would give more"
        for api in PLAN_APIS
        if len(queries[api]) < MIN_QUERIES and api not in skipped_apis and api != "zbmath"
    ]
    if (
        focus
        and focus.strip()
        and not any(q.origin == "focus" for qs in queries.values() for q in qs)
    ):
        notes.append(
            f"no new query for the focus {focus.strip()!r}: each of its queries is in the "
            "Search History; refine with other key terms"
        )
    result = {
        "problem": problem.slug,
        "domain": problem.domain,
        "categories": [
            *(domains.categories(problem.domain) if problem.domain else []),
            *problem.extra_categories,
        ],
        "secondary_categories": _secondary(problem.domain),
        "msc_classes": domains.msc_classes(problem.domain) if problem.domain else [],
        "terms": _terms(problem),
        "tags": problem.tags,
        "known_results": [n for item in problem.known_results for n in result_names(item)],
        "reference_authors": _reference_authors(problem),
        "queries": {
            api: [
                query_entry(q, run_dir, results_stem(1, api, n))
                for n, q in enumerate(queries[api], 1)
            ]
            for api in PLAN_APIS
        },
        "skipped": skipped,
        "notes": notes,
        "reference_candidates": reference_candidates(problem),
        "query_summary": "; ".join(q.label for api in PLAN_APIS for q in queries[api]),
        "first_search": not searched,
    }
    if run_dir and any(result["queries"].values()):
        result["record_run"] = record_run_args(problem.slug, 1, run_dir)
    return result


def check_per_query(per_query: int) -> None:
    """BadInput unless both search scripts accept `per_query` results (1..100): a plan's command
    lines must run as printed."""
    if not 1 <= per_query <= MAX_PER_QUERY:
        raise BadInput(
            f"--per-query must be between 1 and {MAX_PER_QUERY} (got {per_query})", code="usage"
        )


def results_stem(iteration: int, api: str, number: int) -> str:
    """The name of a search's --out file in the run folder, without `.json`: `i1-arxiv-2`. The
    iteration comes first so that one pattern, `i1-*.json`, names all of an iteration's files."""
    return f"i{iteration}-{API_LABELS[api]}-{number}"


def record_run_args(
    slug: str, iteration: int, run_dir: str, feedback: str | None = None
) -> list[str]:
    """`lit_update.py record-run` arguments storing an iteration's searches, one run per source:
    the results are the iteration's --out files in `run_dir` (a pattern record-run expands), the
    queries the labels those files carry. `feedback` is the memo, or `@FILE` holding it."""
    args = ["record-run", *option("--problem", slug), "--iteration", str(iteration)]
    if feedback:
        args += option("--feedback", feedback)
    return [*args, *option("--results", str(Path(run_dir) / f"i{iteration}-*.json"))]


def query_entry(query: Query, run_dir: str | None, stem: str) -> dict[str, Any]:
    """A query as the plan gives it; with `run_dir`, its args end with `--out run_dir/stem.json`."""
    args = list(query.args)
    if run_dir:
        args += option("--out", str(Path(run_dir) / f"{stem}.json"))
    return {"origin": query.origin, "label": query.label, "args": args}


def _secondary(domain: str | None) -> list[str]:
    return list(domains.DOMAINS[domain][1]) if domain else []


def _terms(problem: Problem) -> list[str]:
    """Key terms: the title's first (a title names the problem), then the statement's."""
    return _distinct(_title_terms(problem) + problem_terms(problem.statement, 8))


def _distinct(phrases: list[str]) -> list[str]:
    """The phrases, each once by stem ("Fixed points" and "fixed point" are one), in order."""
    kept: dict[str, str] = {}
    for phrase in phrases:
        kept.setdefault(same_stem(phrase), phrase)
    return list(kept.values())


def problem_terms(text: str, limit: int) -> list[str]:
    """Key phrases of PROBLEM.md text that are worth a search: the statement's own verbs end a
    phrase, a LaTeX Greek letter is a variable (no word), notation ending a phrase goes ("torus
    T^n" -> "torus") and a phrase of generic words or notation only is none ("Bound", "R^n")."""
    text = re.sub(rf"\\(?:{GREEK})(?![A-Za-z])", ",", text)
    text = OF_THE_FORM.sub(",", text)  # "primes of the form floor(n^c)": primes, floor
    terms: list[str] = []
    for phrase in key_terms(text, None, stopwords=STOPWORDS | STATEMENT_WORDS):
        words = phrase.split()
        while words and _notation(words[-1]):
            words.pop()
        if not _generic(" ".join(words)):
            terms.append(" ".join(words))
    return _distinct(terms)[:limit]


OF_THE_FORM = re.compile(r"\b(?:of|in)\s+the\s+form\b", re.IGNORECASE)


def _notation(word: str) -> bool:
    """A symbol rather than a word: "T^n", "11n", "d-2"."""
    return "^" in word or any(c.isdigit() for c in word)


def _generic(phrase: str) -> bool:
    """Is the phrase empty, or made of generic words and notation only?"""
    return all(same_stem(w) in GENERIC or _notation(w) for w in phrase.split())


def _title_terms(problem: Problem) -> list[str]:
    """The title's key phrases, its subject first: what comes before a setting word ("on",
    "in") leads. A one-word subject ("Mixing") is named by the statement's phrase that holds it
    ("mixing time"), so that no query repeats the word inside a longer phrase."""
    subject, *setting = SETTING.split(problem.title, maxsplit=1)
    terms = _distinct(problem_terms(subject, 4) + problem_terms(" ".join(setting), 4))
    if terms and len(terms[0].split()) == 1:
        word = same_stem(terms[0])
        longer = (t for t in problem_terms(problem.statement, 8) if word in same_stem(t).split())
        terms[0] = next(longer, terms[0])
    return terms


def _companion(problem: Problem, core: str, title_terms: list[str], terms: list[str]) -> list[str]:
    """The term that goes with the core one in the keywords query: the title's next phrase, else
    the statement phrase whose new words recur most in PROBLEM.md (a word the title, tags and
    known results repeat is central; RAKE alone favours long phrases such as "finite symmetric
    set"). None that holds, or is held by, the core phrase."""
    counts: dict[str, int] = {}
    for text in [problem.title, problem.statement, *problem.known_results, *problem.tags]:
        for word in re.findall(r"[^\W\d_]+", strip_latex(text)):
            counts[same_stem(word)] = counts.get(same_stem(word), 0) + 1
    core_words = set(same_stem(core).split())

    def salience(term: str) -> float:
        new = [w for w in same_stem(term).split() if w not in core_words and w not in GENERIC]
        return sum(counts.get(w, 0) for w in new) / len(new) if new else 0.0

    def apart(term: str) -> bool:
        words = set(same_stem(term).split())
        return not (words <= core_words or core_words <= words)

    rest = [t for t in terms if t not in title_terms]
    ranked = sorted(rest, key=lambda t: -salience(t))  # stable: ties keep their order
    return [t for t in title_terms[1:] + ranked if apart(t)][:1]


def _reference_authors(problem: Problem, references: list[Reference] | None = None) -> list[str]:
    families: list[str] = []
    for ref in problem.references if references is None else references:
        for family in ref.authors:
            if fold(family) not in {fold(f) for f in families}:
                families.append(family)
    return families


def _query_authors(problem: Problem, api: str) -> list[str]:
    """Reference authors for author queries, those of recent references first (a reference with
    an arXiv id, then the newest): their other papers are the ones a search can still add. On
    arXiv, only authors of a reference with an arXiv id: theirs is work known to be there, while
    a classic's author ("Turing", "Hamilton") finds only namesakes."""
    recent_first = sorted(problem.references, key=lambda r: (not r.arxiv_id, -(r.year or 0)))
    families = _reference_authors(problem, recent_first)
    if api != "arxiv":
        return families
    on_arxiv = {fold(name) for ref in problem.references if ref.arxiv_id for name in ref.authors}
    return [family for family in families if fold(family) in on_arxiv]


def _proposals(problem: Problem, api: str, focus: str | None, per_query: int) -> list[Query]:
    """Every query the five sources suggest for one API, best first (more than needed, so that
    skipping the ones already searched still leaves enough).

    Queries are what an expert types: the problem's mathematical nouns and named objects, a
    phrase quoted only when it names a result (a named theorem or object of Known Results), at
    most MAX_ARXIV_WORDS AND-ed words otherwise on arXiv (whose search is boolean: every word
    must occur), and an author always with a topic word."""
    if api == "zbmath":
        return _zbmath_proposals(problem, per_query)
    terms = _terms(problem)
    names = _query_names(problem)
    authors = _query_authors(problem, api)
    domain_args = _category_args(problem, secondary=False)
    tags = [_tag_words(tag) for tag in problem.tags]
    proper = _proper_names(problem)
    out: list[Query] = []

    def add(
        origin: str,
        arxiv_terms: list[str],
        s2_text: str,
        extra: list[str] = (),
        person: bool = False,
    ) -> None:
        """One query: arXiv ANDs `arxiv_terms` in any field, with `extra` options (categories,
        author); S2 searches `s2_text`, each word once. Every planned search relaxes itself.
        A `person` query (a name beside a topic word) keeps its categories: arXiv's any-field
        search reads author lists too, and the category keeps out namesakes."""
        if api == "arxiv":
            if origin == "tags" and FIELD_OF_STUDY.search(s2_text):
                return  # the category says it; papers of the field seldom name it
            if extra == domain_args and not person and _named(arxiv_terms, proper):
                extra = []  # a named object is specific in any field: no category hides it
            if arxiv_terms or extra:
                args = [*option("--all", *arxiv_terms), *extra, "--max-results", str(per_query)]
                out.append(Query(api, origin, ["search", *args, "--relax"]))
        elif s2_text.strip():
            text = _unique_words(s2_text.split())
            args = [*option("--query", text), "--limit", str(per_query)]
            out.append(Query(api, origin, ["search", *args, "--relax"]))

    title_terms = _title_terms(problem) or terms[:1]
    core = title_terms[0] if title_terms else (tags[0] if tags else problem.title)
    concepts = {same_stem(n) for n in names}
    core_words = _arxiv_words(core, concepts)
    topic = _topic_word(core)
    if focus and focus.strip():
        focus_terms = problem_terms(focus, 3) or [strip_latex(focus)]
        pairs = [focus_terms[:2], [focus_terms[0], core], *([t, core] for t in focus_terms[1:3])]
        for pair in pairs:
            words = _combined(pair, concepts)
            add("focus", words, " ".join(pair), domain_args)
    if terms:
        others = [] if len(core_words) > 1 else _companion(problem, core, title_terms, terms)
        add("keywords", _combined([core, *others], concepts), " ".join([core, *others]),
            domain_args)  # fmt: skip
    searched = {same_stem(t) for t in [core, *tags[:2]]}
    known = [n for n in names if same_stem(n) not in searched][:2]
    # One query of each kind before a second one: a tag, a named result, an author (a name
    # finds namesakes, so it goes with a topic word), then the next tag and named result.
    for rank in range(2):
        tag = tags[rank] if rank < len(tags) else None
        if tag and same_stem(tag) != same_stem(core):
            add("tags", _arxiv_words(tag, concepts), tag, domain_args)
        if rank < len(known):
            name = known[rank]
            # "Gromov's theorem" alone names many theorems: the person and the topic say which.
            if EPONYM.fullmatch(name):
                person = re.match(r"[^\s']+", name.replace("\u2019", "'")).group()
                add("known", [person, topic], f"{name} {core}", domain_args, person=True)
            else:
                add("known", [name], name, domain_args)
        for family in authors[:1] if rank == 0 else ():
            add("authors", [topic], f"{family} {core}", [*option("--author", family), *domain_args])
    if problem.domain or problem.extra_categories:
        add("browse", core_words, "", _category_args(problem, secondary=True))
        broader = [t for t in terms[1:3] if fold(t) != fold(core)]
        add("browse", [], " ".join(broader))
    # Fallbacks so that a sparse PROBLEM.md still yields at least three queries.
    add("keywords", core_words, "", domain_args)
    for term in terms[1:4]:
        add("keywords", _arxiv_words(term, concepts), term, domain_args)
    for tag in tags[2:]:
        add("tags", _arxiv_words(tag, concepts), tag, domain_args)
    return out


# A tag that names a field of study ("knot theory", "continuous logic", "algebraic statistics")
# says what the category filter already says, and papers of the field seldom write it in their
# abstract, which is all arXiv's search reads: on arXiv it is no query of its own.
FIELD_OF_STUDY = re.compile(r"\b(?:theory|logic|statistics|calculus|geometry|analysis)$", re.I)


def _proper_names(problem: Problem) -> set[str]:
    """Words PROBLEM.md writes as proper names (folded): capitalised inside a sentence of the
    statement or Known Results ("the Hartree equation", "Euler-Lagrange"), never lower case. A
    title capitalises every word, and a sentence its first: neither says anything."""
    capital, lower = set(), set()
    for text in [problem.statement, *problem.known_results]:
        for sentence in re.split(r"(?<=[.?!:])\s+|\n\s*\n", strip_latex(text)):
            for word in re.findall(r"[^\W\d_][\w'\u2019\-]*", sentence)[1:]:
                (capital if word[0].isupper() and not word.isupper() else lower).add(fold(word))
    return {word for word in capital - lower if len(word) > 2}


def _named(values: list[str], proper: set[str]) -> bool:
    """Does one of an arXiv query's values hold a proper name?"""
    return any(
        fold(part) in proper or fold(word) in proper
        for value in values
        for word in value.split()
        for part in word.split("-")
    )


MAX_ARXIV_WORDS = 3  # AND-ed words in one arXiv query, at most
COMPOUND = re.compile(r"[a-z]{3,}(?:-[a-z]{3,})+")  # lower-case words joined by hyphens


def _arxiv_words(term: str, concepts: set[str]) -> list[str]:
    """A term as arXiv search values: one quoted phrase when it names a concept, else its words
    (each AND-ed, in any order: "normalized Ricci flows" finds "normalized Ricci flow"), the
    last MAX_ARXIV_WORDS of them (the head of an English noun phrase ends it); a generic word
    that opens a longer phrase goes ("sample complexity" stays), and with too many words every
    generic one."""
    if same_stem(term) in concepts or len(term.split()) == 1:
        return [term]
    words = [w for w in term.split() if not _notation(w)] or term.split()
    # "edge-weighted" is as often "weighted edge": a compound of common words goes apart.
    words = [part for w in words for part in (w.split("-") if COMPOUND.fullmatch(w) else [w])]
    while len(words) > 2 and same_stem(words[0]) in GENERIC:  # "Counting lattice points"
        words = words[1:]
    if len(words) > MAX_ARXIV_WORDS:  # too many to AND: generic words go first
        words = [w for w in words if same_stem(w) not in GENERIC] or words
    return words[-MAX_ARXIV_WORDS:]


def _combined(terms: list[str], concepts: set[str]) -> list[str]:
    """Several terms as one arXiv query: the first term's values, then words of the others
    not already in while the query holds at most MAX_ARXIV_WORDS words."""
    values: list[str] = _arxiv_words(terms[0], concepts) if terms else []
    for term in terms[1:]:
        for value in _arxiv_words(term, concepts):
            held = {same_stem(w) for v in values for w in v.split()}
            if same_stem(value) in held or set(same_stem(value).split()) <= held:
                continue
            if sum(len(v.split()) for v in values) + len(value.split()) > MAX_ARXIV_WORDS:
                break
            values.append(value)
    return values


def _topic_word(core: str) -> str:
    """The word that keeps an author search on topic: the core term's head, its last
    non-generic word ("prime factor" -> "factor", "Maximal risk" -> "risk")."""
    words = [w for w in core.split() if not _notation(w)] or core.split()
    specific = [w for w in words if same_stem(w) not in GENERIC]
    return (specific or words)[-1]


def _category_args(problem: Problem, secondary: bool) -> list[str]:
    """The arXiv category options of a query: the domain's (with `secondary`, all of them), and
    the categories PROBLEM.md names itself."""
    args = ["--domain", problem.domain] if problem.domain else []
    if problem.domain and secondary:
        args.append("--secondary")
    return args + option("--category", *problem.extra_categories)


def _query_names(problem: Problem) -> list[str]:
    """Named results of `## Known Results` worth a query: theorems and objects the items name
    (or stress in bold), never a phrase of a sentence, nor what the problem sets itself against
    ("Non-tolerant uniformity testing")."""
    names: list[str] = []
    for item in problem.known_results:
        for name in result_names(item, phrase=False):
            if not NEGATED.match(name) and fold(name) not in map(fold, names):
                names.append(name)
    return names


NEGATED = re.compile(r"(?:non|not|un|in)-", re.IGNORECASE)


def _zbmath_proposals(problem: Problem, per_query: int) -> list[Query]:
    """zbMATH Open queries: mathematics' own index finds the journal articles, books and papers
    older than arXiv that the other two miss. Each is restricted to the domain's own MSC class
    (`cc:11` for number theory); the core term in titles, the known results and the reference
    authors (all of them: zbMATH indexes the classics arXiv lacks), then the other terms. A
    --focus narrows the two discovery sources only: zbMATH supplements the problem's classics."""
    msc = [*option("--msc", domains.msc_classes(problem.domain)[0])] if problem.domain else []
    limit = ["--limit", str(per_query)]
    terms = _terms(problem)
    title_terms = _title_terms(problem) or terms[:1]
    tags = [_tag_words(tag) for tag in problem.tags]
    core = title_terms[0] if title_terms else (tags[0] if tags else problem.title)
    names = _query_names(problem)
    out: list[Query] = []

    def add(origin: str, args: list[str]) -> None:
        out.append(Query("zbmath", origin, ["search", *args, *msc, *limit]))

    if core:
        add("keywords", option("--title", core))
    for name in [n for n in names if same_stem(n) != same_stem(core)][:2]:
        add("known", option("--query", name))
    for family in _reference_authors(problem)[:2]:
        add("authors", [*option("--author", family), *option("--query", core)])
    for tag in tags[:2]:
        add("tags", option("--query", tag))
    for term in terms[1:4]:
        add("keywords", option("--query", term))
    return out


# A theorem named after one person and nothing more ("Gromov's theorem", "Zhang theorem").
EPONYM = re.compile(
    r"[A-Z][\w\-\u2013]*(?:'s|s')?\s+(?:theorem|lemma|conjecture|inequality|formula|principle)"
)


def _tag_words(tag: str) -> str:
    """A tag as search words: "fixed-point" -> "fixed point", but "o-minimality" and "p-adic"
    keep the hyphen that makes them words."""
    return re.sub(r"(?<!\b[^\W\d_])-(?![^\W\d_]\b)", " ", tag).strip()


def _unique_words(words: list[str]) -> str:
    """The words, each once (by stem), in order."""
    seen: set[str] = set()
    kept = []
    for word in words:
        if same_stem(word) not in seen:
            seen.add(same_stem(word))
            kept.append(word)
    return " ".join(kept)


def reference_candidates(problem: Problem) -> list[dict[str, Any]]:
    """PROBLEM.md's references as verify_batch.py candidates (verified, never assumed)."""
    candidates = []
    for number, ref in enumerate(problem.references, 1):
        candidate: dict[str, Any] = {"key": f"problem-ref-{number}", "source": "PROBLEM.md"}
        for name in ("title", "arxiv_id", "doi", "year"):
            if getattr(ref, name):
                candidate[name] = getattr(ref, name)
        if ref.authors:
            candidate["authors"] = ref.authors
        if any(name in candidate for name in ("title", "arxiv_id", "doi")):
            candidates.append(candidate)
    return candidates


def reference_keys(problem: Problem) -> set[str]:
    """The paper keys (mathtools.paper.Paper.key) of PROBLEM.md's references that carry an
    arXiv id or a DOI: a search that finds one of them found what the problem already cites."""
    keys = set()
    for ref in problem.references:
        if ref.arxiv_id:
            keys.add(f"arXiv:{ref.arxiv_id}")
        if ref.doi:
            keys.add(f"DOI:{ref.doi}")
    return keys


def command_lines(plan_data: dict[str, Any]) -> list[str]:
    """The searches, then the run-store records, as the command lines the runbook runs."""
    scripts = {
        "arxiv": "arxiv_query.py",
        "semantic_scholar": "s2_lookup.py",
        "zbmath": "zbmath_lookup.py",
    }
    lines = [
        f"{scripts[api]} {shlex.join(query['args'])}"
        for api in PLAN_APIS
        for query in plan_data["queries"].get(api, [])  # a refined iteration: arXiv and S2
    ]
    record = plan_data.get("record_run")
    return lines + ([f"lit_update.py {shlex.join(record)}"] if record else [])
