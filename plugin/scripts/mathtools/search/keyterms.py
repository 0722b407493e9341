"""Key terms: the phrases of PROBLEM.md text worth a search (the RAKE rule, protocol section 2),
and the theorem and technique names of its Known Results.
"""

from __future__ import annotations

import re

from ..core import GREEK_COMMAND, fold, strip_latex

# Words that never make a search term on their own (English function words and the vocabulary
# every problem statement uses about itself).
STOPWORDS = frozenset(
    """
    a about above after again all also an and any are as at be because been before being below
    between both but by can cannot could did do does doing down during each either every few
    for from further had has have having here how if in into is it its itself just least let like
    may might more most much must my no nor not now of off on once only or other our out over own
    same shall should show shows shown so some such than that the their them then there these
    they this those through thus to too under until up upon very via was we were what when where
    whether which while who whom why will with within without would you your
    assume assuming case cases consider determine does exist exists find given give holds known
    prove proof question result results statement suppose true false whenever wherever
    obtain obtained problem problems well new open one two three every
    describe compute decide explain establish verify many lie lies contain contains need needs
    needed require requires required along across beyond toward towards around among versus
    nothing something anything
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
    constructing characterizing characterising classifying solving
    corresponding associated related various several suitable appropriate particular
    respective analogous similar different containing concerning regarding involving including
    include includes included excluded
    possible famous resulting underlying predict predicts predicted carry carries say says said
    """.split()  # noqa: SIM905 (a word list reads better as text)
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
    term unconditionally infinitely analogue variant version answer example setting form empty
    """.split()  # noqa: SIM905 (a word list reads better as text)
)


# The commonest words of mathematics abstracts (a few dozen papers of any domain use each): a
# phrase's specific word is rarer. A query of one of them alone is noise ("Complexity" in
# theoretical computer science, "Brownian" in probability), and relaxing a query drops one of
# them before a rarer word ("stochastic resetting" keeps "resetting").
COMMON = frozenset(
    word.rstrip("s")
    for word in """
    first second even odd base basis program criterion lemma identity hypothesis method
    equation system model solution theory field point algebra dimension dimensional class
    theorem polynomial limit conjecture manifold analysis differential representation invariant
    distribution vector existence compact local complete matrix positive negative symmetric
    generalized algebraic coefficient parameter sequence formula product integral measure
    surface series element rate domain process network quantum equivalent information family
    relation integer power asymptotic action zero continuous geometric behavior behaviour
    convergence degree free complexity size curve fixed dynamic dynamics dynamical geometry
    variety partial unit projective decomposition sum curvature length variable boundary factor
    singular flow nonlinear exponential particle subset characteristic error numerical weak
    plane lattice spectral spectrum density derivative principle computation functional law
    component global growth rank regular subgroup square quadratic approximation stability
    cohomology module abelian minimal maximal optimal transformation extension energy path
    weight stochastic scheme analytic hyperbolic convex bundle stable orbit homogeneous
    expansion uniform noise inequality problem type brownian motion markov gaussian poisson
    chain tree cycle category functor ring ideal prime eigenvalue semigroup kernel moment
    entropy potential mean variance statistic statistics test testing estimation regression
    learning game strategy code coding channel signal control optimization minimization
    convexity
    """.split()  # noqa: SIM905 (a word list reads better as text)
)


NAMED_RESULT = re.compile(
    r"((?:[A-Z][\w'\u2019\-]*(?:\s+(?:and\s+)?|[-\u2013]))*[A-Z][\w'\u2019\-]*)"
    r"(?:'s|\u2019s)?\s+(theorem|lemma|inequality|conjecture|principle|formula|bound|criterion|"
    r"estimate|identity|hypothesis|problem|method|decomposition|transform|property)s?\b"
)


EMPHASIS = re.compile(r"\*\*(.+?)\*\*|__(.+?)__")


# A dash inside a word: "Brezis–Van Schaftingen" writes with an en dash what "Brezis-Van
# Schaftingen" writes with a hyphen, and "$k$-graphs" leaves "k -graphs" once its LaTeX goes.
INNER_DASH = re.compile(r"(?<=\w)\s?[\u2010-\u2014](?=\w)|(?<=\b\w) -(?=[^\W\d_]{3})")


def search_text(text: str) -> str:
    """PROBLEM.md text as the planner reads it: LaTeX stripped for search, and every dash
    inside a word a hyphen ("Brezis–Van Schaftingen", "k -graphs" -> "k-graphs")."""
    return INNER_DASH.sub("-", strip_latex(text, for_search=True))


def key_terms(
    text: str,
    limit: int | None = 8,
    max_words: int | None = 4,
    stopwords: frozenset[str] = STOPWORDS,
) -> list[str]:
    """Key phrases by the RAKE rule: runs of content words between stopwords and punctuation,
    scored by the sum of word degree / frequency; ties keep the order of first appearance.
    `limit` phrases at most and `max_words` words a phrase (None: no cut)."""
    plain = search_text(text)
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
    """A comparison key under which "Fixed points" and "fixed point" are one phrase, and so are
    "Formulae" and "formula", "Brezis–Yung" and "Brezis-Yung"."""
    words = fold(INNER_DASH.sub("-", phrase)).split()
    return " ".join(LATIN_PLURAL.sub("", word).rstrip("s") for word in words)


LATIN_PLURAL = re.compile(r"(?<=[a-z]{3}a)e$")  # formulae, nebulae: the plural's final e


def _content_word(word: str, stopwords: frozenset[str]) -> bool:
    folded = fold(word)
    if folded in stopwords or (len(folded) < 3 and "^" not in folded):
        return False
    return not folded.isdigit()


def result_names(item: str, phrase: bool = True) -> list[str]:
    """Theorem and technique names in a Known Results item ("Banach fixed point theorem"): the
    ones it names or stresses in bold; with `phrase`, an item naming none gives its key phrase."""
    plain = search_text(item)
    names = [a or b for a, b in EMPHASIS.findall(item)]
    names += [f"{m.group(1)} {m.group(2)}" for m in NAMED_RESULT.finditer(plain)]
    if not names and phrase:
        names = problem_terms(item, limit=1)
    cleaned: list[str] = []
    for name in names:
        name = " ".join(search_text(name).replace("\u2019", "'").split()).strip(" .,:")
        name = re.sub(r"^(?:The|A|An)\s+", "", name)
        if name and fold(name) not in {fold(c) for c in cleaned}:
            cleaned.append(name)
    return cleaned


def distinct(phrases: list[str]) -> list[str]:
    """The phrases, each once by stem ("Fixed points" and "fixed point" are one), in order."""
    kept: dict[str, str] = {}
    for phrase in phrases:
        kept.setdefault(same_stem(phrase), phrase)
    return list(kept.values())


def problem_terms(text: str, limit: int) -> list[str]:
    """Key phrases of PROBLEM.md text that are worth a search: the statement's own verbs end a
    phrase, a Greek letter is a variable (no word), typed as a LaTeX command or as the letter
    ("(φ,Γ)-modules"), notation ending a phrase goes ("torus T^n" -> "torus") and a phrase of
    generic words or notation only is none ("Bound", "R^n")."""
    text = GREEK_LETTER.sub(",", GREEK_COMMAND.sub(",", text))
    text = OF_THE_FORM.sub(",", text)  # "primes of the form floor(n^c)": primes, floor
    terms: list[str] = []
    for phrase in key_terms(text, None, stopwords=STOPWORDS | STATEMENT_WORDS):
        words = phrase.split()
        while words and is_notation(words[-1]):
            words.pop()
        if not _generic(" ".join(words)):
            terms.append(" ".join(words))
    return distinct(terms)[:limit]


# A Greek letter standing alone, as a user types one in a title ("(φ,Γ)-modules", "α-stable").
GREEK_LETTER = re.compile(
    r"(?<![^\W\d_])[\u0391-\u03a9\u03b1-\u03c9\u03d1\u03d5\u03f5](?![^\W\d_])"
)
OF_THE_FORM = re.compile(r"\b(?:of|in)\s+the\s+form\b", re.IGNORECASE)


def generality(word: str) -> int:
    """How generic a word is, for ranking the words of a query: 2 for a word that is no search
    term alone (GENERIC), 1 for one of mathematics' commonest words (COMMON), 0 otherwise."""
    key = re.sub(r"ie$", "y", same_stem(word))  # "families" is "family"
    return 2 if key in GENERIC else 1 if key in COMMON else 0


def is_notation(word: str) -> bool:
    """A symbol rather than a word: "T^n", "11n", "d-2"."""
    return "^" in word or any(c.isdigit() for c in word)


def _generic(phrase: str) -> bool:
    """Is the phrase empty, or made of generic words and notation only?"""
    return all(same_stem(w) in GENERIC or is_notation(w) for w in phrase.split())
