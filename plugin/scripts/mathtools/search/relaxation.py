"""One planned search, relaxed until it finds something (a plan checks itself), and screened.

arXiv's search is boolean: every quoted phrase and every AND-ed word must occur, so one word the
paper does not use empties a query. A search that comes back empty is therefore asked again,
within the same call, in looser forms, stopping at the first that returns papers:

  unquoted   the phrases become AND-ed words ("Links-Gould invariant" finds "Links-Gould
             polynomial invariant")
  dropped    the weakest term left out: an author search's name (namesakes and spellings
             miss), else the most generic word (keyterms.generality), the last of equals, and
             never one of two equals ("Markov bases" without either is another subject)
  any        the search words OR-ed (the categories still hold)
  widened    the loosest form in every category (a subject may live outside the domain's)

Each looser form is one more request, under the service's rate limit (arXiv: 3 s apart).
Semantic Scholar's relevance search has no operators: its forms are the query without quotes,
then without its most generic word, then its two rarest words alone, then without its names;
and, for a search kept to a field of study (Mathematics, the client's default), last the query
as planned and then its loosest form in every field of study, as arXiv's last form leaves its
categories: a paper on the subject may be filed under physics.

The papers of the form that answered are all kept: none is set aside for lacking a word of
the query (a name or a notation of the statement the paper says otherwise); the listing ranks an
iteration's papers against the whole problem instead (ranking.py).

`run_planned(search, client)` runs one planned search (commandlines' typed query) this way and
returns the search result, whose `relaxation` says which form answered (None: the query as
planned). arxiv_query.py and s2_lookup.py do the same for a search given `--relax`, which every
planned search carries. A raw `--query` (arXiv syntax typed by the model) is never rewritten.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from ..core import BadInput, Relaxation, SearchResult, categories, fold
from ..services import search_query
from .commandlines import ArxivQuery, TypedQuery, ZbmathQuery
from .keyterms import STOPWORDS, generality
from .querylines import query_line

if TYPE_CHECKING:
    from ..services import ArxivClient, S2Client, ZbmathClient

    # The client of a planned search's source (or a test's stand-in with the same calls).
    Client = ArxivClient | S2Client | ZbmathClient


class Form(NamedTuple):
    """One form of a query: step None is the query as given."""

    step: str | None
    query: str
    dropped: str | None = None  # the word this form leaves out
    any_field: bool = False  # Semantic Scholar: asked without its field-of-study filter


STEP_NOTES = {
    "unquoted": "phrases searched as separate words",
    "dropped": "weakest word left out",
    "any": "any of the words",
    "widened": "in every category",
}


@dataclass
class ArxivRequest:
    """An arxiv_query.py search: text terms as (field, words) in the order given, and the rest."""

    terms: list[tuple[str, str]] = field(default_factory=list)  # field: title/abstract/all_terms
    authors: list[str] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)
    raw: str | None = None
    submitted: str | None = None
    max_results: int = 10

    def query(self) -> str:
        # the arXiv client loads lxml (~90 ms): arXiv's path only
        from ..services import build_query

        by_field: dict[str, list[str]] = {"title": [], "abstract": [], "all_terms": []}
        for name, words in self.terms:
            by_field[name].append(words)
        return build_query(
            raw=self.raw,
            title=by_field["title"],
            abstract=by_field["abstract"],
            all_terms=by_field["all_terms"],
            author=self.authors,
            categories=self.categories,
            submitted=self.submitted,
        )


def arxiv_forms(request: ArxivRequest) -> list[Form]:
    """The query as planned, then each looser form that differs from the one before; none for
    a raw query or a search without text terms."""
    if request.raw or not request.terms:
        return [Form(None, request.query())]
    words = [(name, word) for name, text in request.terms for word in _term_words(text)]
    plain = [word for _, word in words]
    forms = [Form(None, request.query())]
    if not words:
        return forms
    loose = replace(request, terms=words)
    forms.append(Form("unquoted", loose.query()))
    if request.authors:  # the weakest term of an author search is the name: namesakes, spelling
        dropped = replace(loose, authors=[]).query()
        forms.append(Form("dropped", dropped, request.authors[-1]))
    elif (weakest := _weakest(plain)) is not None:
        kept = words[:weakest] + words[weakest + 1 :]
        query = replace(request, terms=kept).query()
        forms.append(Form("dropped", query, plain[weakest]))
    loosest = replace(loose, authors=[])
    if len(words) > 1:
        # lxml (~90 ms), as in query(): arXiv only
        from ..services import FIELD_PREFIX, field_term

        either = " OR ".join(field_term(FIELD_PREFIX[name], word, name) for name, word in words)
        loosest = replace(request, terms=[], authors=[], raw=either)
        forms.append(Form("any", loosest.query()))
    if request.categories:  # the subject may live in a category the domain does not name
        widest = replace(loosest, categories=[]).query()
        forms.append(Form("widened", widest))
    return _distinct(forms)


def _weakest(words: Sequence[str]) -> int | None:
    """The index of the word a looser form leaves out: the most generic (keyterms.generality),
    the last of equals (a plan puts the core first), so that "stochastic resetting" keeps
    "resetting". None for one word, or for two as generic as each other: either alone is
    another subject ("Markov bases", "arithmetic progressions")."""
    ranks = [generality(word) for word in words]
    if len(words) < 2 or (len(words) == 2 and ranks[0] == ranks[1]):
        return None
    return max(range(len(words)), key=lambda i: (ranks[i], i))


def _term_words(text: str) -> list[str]:
    """A term's words as arXiv terms of their own: letters and digits with inner hyphens and
    apostrophes ("Links-Gould", "Noether's"); "(k,l)-sparse" gives "sparse", no bracket that
    would break the query's syntax, no one-letter word."""
    return [w for w in re.findall(r"[^\W_][\w'\-]*", text) if len(w) > 1]


def _distinct(forms: list[Form]) -> list[Form]:
    """The forms without one that repeats an earlier query (dropping quotes from a query that
    had none changes nothing)."""
    kept: list[Form] = []
    for form in forms:
        asked = {(k.query, k.any_field) for k in kept}
        if form.query.strip() and (form.query, form.any_field) not in asked:
            kept.append(form)
    return kept


def s2_forms(text: str, in_field: bool = False) -> list[Form]:
    """A Semantic Scholar query and its looser forms: without quotes, without its most generic
    word, its two rarest words, then its words that are no name (capitalised); with `in_field`
    (the search is kept to a field of study), last the query as planned and the loosest form in
    every field of study."""
    words = text.replace('"', " ").split()
    forms = [Form(None, text)]
    forms.append(Form("unquoted", " ".join(words)))
    # The looser forms keep content words only: a function word alone is no query ("of
    # Hamiltonian"), and "s" of a split "Rédei's" no word.
    content = [w for w in words if fold(w) not in STOPWORDS and len(w) > 1]
    if (weakest := _weakest(content)) is not None:
        kept = content[:weakest] + content[weakest + 1 :]
        forms.append(Form("dropped", " ".join(kept), content[weakest]))
    elif content and len(content) < len(words):  # "Nevanlinna-Pick problem": the name alone
        left_out = next(w for w in words if w not in content)
        forms.append(Form("dropped", " ".join(content), left_out))
    if len(content) > 1:
        rarest = sorted(sorted(range(len(content)), key=lambda i: generality(content[i]))[:2])
        pair = [content[i] for i in rarest]
        forms.append(Form("any", " ".join(pair)))
    # Last, the query without its names ("Chapman-Robbins and Hammersley bound information
    # inequality"): a result's name that no paper writes so empties every form above, while
    # its subject's words find the papers on it.
    names = [word for word in content if word[:1].isupper()]
    subject = [word for word in content if not word[:1].isupper()]
    if names and len(subject) > 1:
        forms.append(Form("dropped", " ".join(subject), " ".join(names)))
    if in_field:  # a subject filed under another field (mathematical physics as physics)
        loosest = forms[-1].query
        forms.append(Form("widened", forms[1].query, any_field=True))
        forms.append(Form("widened", loosest, any_field=True))
    return _distinct(forms)


def relaxed(forms: Sequence[Form], search: Callable[[Form], SearchResult]) -> SearchResult:
    """Ask `search(form)` for each form in turn; the first result with papers (else the last
    one) carries `relaxation`: {"step", "query", "dropped"?} when a looser form answered. Every
    paper it returned is kept: the listing ranks them (ranking.py)."""
    if not forms:  # the query had no words (say `""`): nothing to ask
        raise BadInput("the query is empty", code="bad_query")
    for form in forms:
        result = search(form)
        if result.papers:
            if form.step:
                result.relaxation = {"step": form.step, "query": form.query}
                if form.dropped:
                    result.relaxation["dropped"] = form.dropped
            return result
    if len(forms) > 1:
        result.relaxation = {"step": "exhausted", "query": forms[-1].query}
    return result


def search_arxiv(
    client: ArxivClient,
    request: ArxivRequest,
    start: int = 0,
    sort: str = "relevance",
    order: str = "descending",
) -> SearchResult:
    """ArxivClient.search for `request`, relaxed when empty."""
    return relaxed(
        arxiv_forms(request),
        lambda form: client.search(form.query, start, request.max_results, sort, order),
    )


def search_s2(client: S2Client, text: str, **options: Any) -> SearchResult:
    """S2Client.search for `text` (and its options), relaxed when empty; kept to a field of
    study (the client's default unless `fields_of_study` is None), widened last."""
    in_field = "fields_of_study" not in options or options["fields_of_study"] is not None
    widened = {**options, "fields_of_study": None}
    return relaxed(
        s2_forms(text, in_field),
        lambda form: client.search(form.query, **(widened if form.any_field else options)),
    )


# --- planned searches ------------------------------------------------------------------------


def arxiv_request(search: ArxivQuery) -> ArxivRequest:
    request = ArxivRequest(raw=search.query, max_results=search.limit)
    request.terms += [("title", words) for words in search.title]
    request.terms += [("abstract", words) for words in search.abstract]
    request.terms += [("all_terms", words) for words in search.all_terms]
    request.authors += search.author
    request.categories += search.category
    if search.domain:
        request.categories += categories(search.domain, search.secondary)
    return request


def run_planned(search: TypedQuery, client: Client) -> SearchResult:
    """One planned search through `client` (ArxivClient, S2Client or ZbmathClient), relaxed
    when empty (arXiv and Semantic Scholar); the result carries its query
    line and, when a looser form answered, `relaxation`."""
    if isinstance(search, ArxivQuery):
        result = search_arxiv(cast("ArxivClient", client), arxiv_request(search))
    elif isinstance(search, ZbmathQuery):
        # zbMATH queries are few and MSC-restricted; they run as planned, without relaxation.
        query = search_query(
            query=search.query, title=search.title, author=search.author, msc=list(search.msc)
        )
        result = cast("ZbmathClient", client).search(query, limit=search.limit)
    else:
        if not search.query:
            raise BadInput("a planned Semantic Scholar query needs --query", code="bad_plan")
        fields = {"fields_of_study": None} if search.any_field else {}  # else the client's
        result = search_s2(cast("S2Client", client), search.query, limit=search.limit, **fields)
    result.query_line = query_line(search.source, search.args())
    return result


def describe(relaxation: Relaxation | None) -> str:
    """How a Search History row names a relaxation: `relaxed: weakest word left out (tolerant)`."""
    if not relaxation:
        return ""
    if relaxation["step"] == "exhausted":
        return "empty even relaxed"
    note = STEP_NOTES[relaxation["step"]]
    dropped = relaxation.get("dropped")
    return f"relaxed: {note}" + (f" ({dropped})" if dropped else "")
