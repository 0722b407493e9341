"""The `\\bibitem`s of a `.bbl` (amsalpha, plain or an author-year style) or of a `.tex`'s
thebibliography, read as references: authors, title, venue, volume, pages, year, arXiv id and
DOI found in each item's text.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..core import ARXIV_ID_CITED, DOI_CITED, latex_to_unicode
from .bibentry import (
    YEAR,
    BibliographyEntry,
    drop_commands,
    plain_text,
    read_file,
    without_comments,
)

_VOLUME_PAGES = re.compile(  # 6(2):290--297, 19(1-2):57--70
    r"\b(\d+)\s*(?:\(\d+(?:\s*[-–]+\s*\d+)?\))?\s*:\s*(\d+(?:\s*-+\s*\d+)?)"
)
_VOLUME = re.compile(r"\bvol(?:ume)?\.?\s*(\d+)", re.I)
_PAGES = re.compile(r"\b(?:pp?\.|pages)\s*(\d+(?:\s*-+\s*\d+)?)")
_VOLUME_YEAR_PAGES = re.compile(  # amsplain: "Ann. of Math. 72 (1960), 20-103"
    r"\b(\d+)\s*\(\s*(?:1[5-9]|20)\d\d\s*\)\s*,?\s*(?:no\.\s*\d+\s*,\s*)?(?:pp?\.\s*)?"
    r"(\d+(?:\s*-+\s*\d+)?)"
)
_VOLUME_COMMA_PAGES = re.compile(r"\b(\d+)\s*,\s*(?:pp?\.\s*)?(\d+\s*-+\s*\d+)")  # 19, 1655--1664
_VENUE_END = re.compile(
    r"\b\d+\s*,\s*(?:pp?\.\s*)?\d+\s*-+\s*\d+|\b\d+\s*\(\s*(?:1[5-9]|20)\d\d\s*\)"
    r"|\b\d+\s*(?:\(\d+(?:\s*[-–]+\s*\d+)?\))?\s*:\s*\d+|\bvol(?:ume)?\.?\s*\d+|\bpp?\.\s*\d+"
    r"|,?\s*\bpages\s+\d+|\(?\b(?:1[5-9]|20)\d\d\b",
    re.I,
)
_BIBITEM = re.compile(r"\\bibitem\s*(?:\[(?:[^\[\]]|\[[^\]]*\])*\])?\s*\{([^}]+)\}")


def read_bibitems(path: str | Path, text: str | None = None) -> list[BibliographyEntry]:
    """The `\\bibitem`s of a .bbl file or of a .tex's thebibliography, as references: the first
    `\\newblock` is the authors, the second the title, the rest the venue (else the title is the
    `\\emph`/`\\textit`/`{\\bf ...}` part or the quoted part, or, in an author-year style, the
    sentence after the year); year, arXiv id and DOI are found in the text."""
    path = Path(path)
    text = read_file(path, "bibliography") if text is None else text
    body = without_comments(text)
    end = body.find("\\end{thebibliography}")
    body = body if end < 0 else body[:end]
    items = list(_BIBITEM.finditer(body))
    references = []
    for number, item in enumerate(items):
        stop = items[number + 1].start() if number + 1 < len(items) else len(body)
        line = text.count("\n", 0, item.start()) + 1
        fields = bibitem_fields(body[item.end() : stop])
        references.append(
            BibliographyEntry(item.group(1).strip(), str(path), line, "bibitem", fields)
        )
    return references


_TITLE = re.compile(
    r"\\(?:emph|textit|textsl)\s*\{((?:[^{}]|\{[^{}]*\})+)\}"
    r"|\{\\(?:em|it|itshape|sl|slshape)\b\s*((?:[^{}]|\{[^{}]*\})+)\}"
    r"|``(.+?)''|\"(.+?)\"|“(.+?)”"
    r"|\\textbf\s*\{((?:[^{}]|\{[^{}]*\})+)\}|\{\\(?:bf|bfseries)\b\s*((?:[^{}]|\{[^{}]*\})+)\}"
)
_NAME_STYLE = re.compile(
    r"\{\\(?:sc|scshape|textsc|bf|bfseries|rm|upshape)\b\s*((?:[^{}]|\{[^{}]*\})*)\}"
    r"|\\(?:textsc|textbf|textrm)\s*\{((?:[^{}]|\{[^{}]*\})*)\}"
)
_AUTHOR_YEAR = re.compile(
    r"([^(){}\\`'\"“]{3,300}?)\(\s*((?:1[5-9]|20)\d\d)[a-z]?\s*\)[.:,]?\s+(.+)", re.S
)
_PAGE_RANGE = re.compile(r"\b\d+\s*(?:-+|–|—)\s*\d+\b")
_YEAR_IN_PARENTHESES = re.compile(r"\(\s*(?:[^()]*?\s)?((?:1[5-9]|20)\d\d)[a-z]?\s*\)")
# A year alone in parentheses ("(1989)", "(2009a)"): the publication's; "(Mexico, 1956)" is a
# conference's place and date, not the year of the volume printed after it.
_YEAR_ALONE = re.compile(r"\(\s*((?:1[5-9]|20)\d\d)[a-z]?\s*\)")
# A fragment after the entry's last sentence that starts with a year ("... 1962. 1986, pp.
# 34--56."): a stray line of another entry, not this one's year.
_STRAY_FRAGMENT = re.compile(r"(?<=\.)\s+(?:1[5-9]|20)\d\d\s*,.*$")


_ITALIC_CORRECTION = re.compile(r"\\/")
_BOLD = re.compile(
    r"\{\\(?:bf|bfseries)\b\s*((?:[^{}]|\{[^{}]*\})*)\}|\\textbf\s*\{((?:[^{}]|\{[^{}]*\})*)\}"
)
# What a forthcoming paper's venue starts with: the journal follows.
_FORTHCOMING = re.compile(
    r"^(?:to\s+appear|forthcoming|accepted(?:\s+for\s+publication)?|in\s+press)\b"
    r"(?:\s+in\b)?\s*[:,]?\s*",
    re.I,
)
_MR = re.compile(r"\\MR\{\s*(?:MR\s*)?(\d{4,8})")


def bibitem_fields(text: str) -> dict[str, str]:
    mr = _MR.search(text)  # amsplain's \MR{...}, which drop_commands removes with its number
    text = " ".join(re.sub(r"(?<!\\)~", " ", text).split())  # ties are spaces
    text = _ITALIC_CORRECTION.sub("", text).replace("\\ ", " ")  # `\/` prints nothing
    text = drop_commands(text)
    fields = {"text": text, **({"mrnumber": mr.group(1)} if mr else {})}
    blocks = [b.strip(" .,") for b in re.split(r"\\newblock\b", text) if b.strip(" .,")]
    author_year = _AUTHOR_YEAR.match(text) or _AUTHOR_YEAR.match(latex_to_unicode(text))
    if len(blocks) >= 2:
        authors, title, rest = blocks[0], blocks[1], " ".join(blocks[2:])
    elif author_year and not _TITLE.match(author_year.group(3)):
        # "Alexander, D. H., J. Novembre, and K. Lange (2009). Title. \emph{Journal} 19, 1--2."
        authors, after = author_year.group(1) + f" ({author_year.group(2)})", author_year.group(3)
        title, _, rest = after.partition(". ")
    else:
        quoted = next(
            (
                found
                for found in _TITLE.finditer(text)
                if re.search(r"[^\W\d_]{2}", next(g for g in found.groups() if g))
                # bold opening the entry is its authors ("{\bf A. One}, \emph{Title}")
                and (not (found.group(6) or found.group(7)) or text[: found.start()].strip(" ,."))
            ),
            None,
        )
        if not quoted:
            # "Albers, P., Mazzucchelli, M.: Periodic bounce orbits ..., Int. Math. Res. Notices"
            authors, title, rest = plain_citation_parts(text)
            if not (authors and title) or "\\newblock" in text:
                return fields
            split = bibitem_fields(f"{authors} \\newblock {title} \\newblock {rest}")
            return {**split, "text": fields["text"], **({"mrnumber": mr.group(1)} if mr else {})}
        title = next(group for group in quoted.groups() if group)
        authors, rest = text[: quoted.start()], text[quoted.end() :]
    authors = _NAME_STYLE.sub(lambda m: m.group(1) or m.group(2) or "", authors)
    # an author-year style: "Alexander, D. H., J. Novembre, and K. Lange (2009)"
    year_given = _YEAR_IN_PARENTHESES.search(authors) or _YEAR_ALONE.search(rest)
    authors = _YEAR_IN_PARENTHESES.sub(" ", authors)
    title_year = re.search(r",\s*((?:1[5-9]|20)\d\d)\W*$", title)
    if title_year and not rest.strip():  # "\newblock Enumerating longest ..., 2000."
        title, rest = title[: title_year.start()], title_year.group(1)
    fields["title"] = title.strip(" .,")
    fields["author"] = " and ".join(_bibitem_names(authors))
    rest = ARXIV_ID_CITED.sub(" ", DOI_CITED.sub(" ", rest))  # an id's digits are no year
    if year_given:
        fields["year"] = year_given.group(1)
    else:
        own = _STRAY_FRAGMENT.sub("", _YEAR_IN_PARENTHESES.sub(_unless_alone, rest))
        year = YEAR.findall(_PAGE_RANGE.sub(" ", own)) or YEAR.findall(_PAGE_RANGE.sub(" ", rest))
        year = year or YEAR.findall(ARXIV_ID_CITED.sub(" ", authors))
        if year:
            fields["year"] = year[-1]
    rest = " ".join(re.sub(r"\\url\s*\{[^}]*\}|\\href\s*\{[^}]*\}", " ", rest).split())
    rest = _BOLD.sub(lambda m: m.group(1) or m.group(2) or "", rest)  # a bold volume: {\bf 29}
    numbers = (
        _VOLUME_PAGES.search(rest)
        or _VOLUME_YEAR_PAGES.search(rest)
        or _VOLUME_COMMA_PAGES.search(rest)
    )
    if numbers:
        fields["volume"], fields["pages"] = numbers.group(1), numbers.group(2)
    else:
        for name, pattern in (("volume", _VOLUME), ("pages", _PAGES)):
            found = pattern.search(rest)
            if found:
                fields[name] = found.group(1)
    # the venue is what comes before its volume, pages or year: "Adv. Math. 6:290--297, 1959"
    first_number = _VENUE_END.search(rest)
    venue = (rest[: first_number.start()] if first_number else rest).strip(" .,;:(")
    venue = _FORTHCOMING.sub("", venue)  # "to appear in J. Fixed Point Theory Appl.": the journal
    if re.search(r"[^\W\d_]", plain_text(venue)):  # not a lone journal macro (\ANNMAone)
        fields["journal"] = venue
    return fields


def _unless_alone(found: re.Match[str]) -> str:
    """A parenthesised part holding a year among other words, blanked (see _YEAR_ALONE)."""
    return found.group() if _YEAR_ALONE.fullmatch(found.group()) else " "


_INITIALS = re.compile(r"(?:[^\W\d_]{1,2}\.\s*-?\s*)+|[A-Z]{1,2}")


def _bibitem_names(text: str) -> list[str]:
    """Names from the author part of a \\bibitem: "A. One, B. Two, and C. Three", "One, A. and
    Two, B.", "A.~One and B.~Two", "One, A. B., C. Two, and D. Three"."""
    text = re.sub(r"\s*,?\s+(?:and|\\&|&)\s+", " and ", text.replace("~", " ").strip(" ,"))
    text = re.sub(r"(?<=\w\w)\.$", "", text.strip(" ,"))  # the sentence's period, not an initial's
    if " and " in text and all(part.count(",") == 1 for part in text.split(" and ")):
        return [part.strip() for part in text.split(" and ")]  # "Family, Given" names
    parts = [name.strip() for name in re.split(r",| and ", text) if name.strip(" .")]
    names: list[str] = []
    for part in parts:
        # "Family, A. B.": initials after a one-word family name belong to it
        if names and _INITIALS.fullmatch(part) and " " not in names[-1] and "," not in names[-1]:
            names[-1] += ", " + part
        else:
            names.append(part)
    return names


_NAME = re.compile(
    r"(?:(?:[A-Z][a-z]?\.\s?-?)+\s?[A-Z][\w'’`\-]+(?:\s[A-Z][\w'’`\-]+)?"  # A. B. Family
    r"|[A-Z][\w'’`\-]+(?:\s[A-Z][\w'’`\-]+)?,\s?(?:[A-Z][a-z]?\.\s?-?)+"  # Family, A. B.
    r"|[A-Z][a-z]+\s[A-Z][\w'’`\-]+)$"  # Given Family
)


# "A. Pensia, V. Jog and P. Loh (2024). The Sample Complexity of .... arXiv:2403.16981": the names,
# the year in parentheses, the title to its closing full stop (or question mark), the rest.
AUTHOR_YEAR = re.compile(
    r"^(?P<names>[^()]+?)\s*\((?P<year>(?:1[5-9]|20)\d\d)[a-z]?\)[.,:]?\s+"
    r"(?P<title>.+?[^A-Z.][.?!])(?:\s+(?P<rest>.*))?$"
)


def plain_citation_parts(text: str) -> tuple[str, str, str]:
    """(authors, title, rest) of a plain citation; empty strings when its start is no names.
    The parts end at a colon ("Albers, P., Mazzucchelli, M.: Periodic ..."), at commas
    ("V. Benci and F. Giannoni, Periodic ..., Ann. ...") or at sentence ends, as plain, abbrv,
    alpha and natbib's styles print them ("A. One and B. Two. Periodic .... Ann. ..., 2009.").
    In the author-year form (names, the year in parentheses, the title) the year leads the
    rest."""
    author_year = AUTHOR_YEAR.match(text)
    if author_year and _names(re.sub(r",?\s+and\s+", ", ", author_year["names"])):
        title = author_year["title"]
        rest = f"({author_year['year']}) {author_year['rest'] or ''}".strip()
        return author_year["names"], title[:-1] if title.endswith(".") else title, rest
    head, colon, tail = text.partition(": ")
    if colon and _names(head):
        title, _, rest = tail.partition(", ")
        return head, title, rest
    ends = [m for m in _SENTENCE_END.finditer(text) if not _INITIAL.search(text[: m.start()])]
    if len(ends) >= 2 and all(_names(part) for part in text[: ends[0].start()].split(", ")):
        head = text[: ends[0].start()]
        return head, text[ends[0].end() : ends[1].start()], text[ends[1].end() :]
    parts = text.split(", ")
    names = 0
    while names < len(parts) and _names(parts[names]):
        names += 1
    # "W. Jiang, Q. An, et al., Title, ...": the list cut short, and the title after it
    title_at = names + 1 if names < len(parts) and _ET_AL.fullmatch(parts[names].strip()) else names
    if names == 0 or title_at >= len(parts):
        return "", "", ""
    return ", ".join(parts[:names]), parts[title_at], ", ".join(parts[title_at + 1 :])


_ET_AL = re.compile(r"et\.?\s*al\.?")


_SENTENCE_END = re.compile(r"\.\s+")
_INITIAL = re.compile(r"(?:^|[\s.\-])[A-Z][a-z]?$")  # "A" of "A. One", "Ju" of "Ju. One"


def _names(part: str) -> bool:
    """Whether `part` is one name or names joined by "and" ("K. Bezdek and R. Connelly")."""
    # "A, B, and C": the last name of a serial-comma list opens with "and"
    part = re.sub(r"^(?:and|&)\s+", "", part.strip())
    pieces = re.split(r"\s+(?:and|&)\s+|(?<=[A-Z]\.),\s*|,\s*(?=[A-Z]\.\s?[A-Z])", part)
    return all(_NAME.match(piece.strip()) for piece in pieces if piece.strip())
