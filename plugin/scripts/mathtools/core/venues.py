"""Venues as sources and citations write them: a journal reference's venue, volume and pages, and
whether a venue names a preprint server. The clients read journal references with these; the gate
compares venues with them (gate/venuematch.py)."""

from __future__ import annotations

import re

from .text import FUNCTION_WORDS, fold, strip_latex, word_set

# The first word of a preprint server's name, as sources and citations write it.
PREPRINT_SERVERS = word_set("arxiv corr biorxiv medrxiv chemrxiv ssrn preprint eprint")
# Words a venue's name may carry or drop without becoming another venue: publishers, the
# "Proceedings of the ... Annual" around a conference's name, and the words of a journal
# reference that are not the name.
VENUE_OPTIONAL = word_set(
    "proc proceedings annual acm ieee siam springer verlag elsevier wiley lncs vol volume"
    " no issue pp pages ed eds st nd rd th"
)
VENUE_FUNCTION_WORDS = FUNCTION_WORDS | word_set(
    # and the function words of transliterated Russian titles: i "and", ego "its", v "in"
    "de des du der die das und fur la le et il di del della i ego v"
)
MONTHS = "(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)"
PROCEEDINGS_WORDS = word_set(
    "proc proceedings conference conf symposium symp workshop colloquium congress meeting"
)
# A venue held beside or inside another: a workshop is not its host conference, nor a companion
# volume the main one. Never left out on either side of a comparison.
SUBVENUE_WORDS = word_set("workshop workshops companion satellite tutorial doctoral")
# Cover-to-cover translation journals and their originals: each journal's names as sources and
# citations write them (the translation's names first, then the original's, transliterated).
# A venue naming one journal of a pair names the other: the translation is the same paper.
TRANSLATION_JOURNALS: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (
        ("Mathematical Notes", "Mathematical Notes of the Academy of Sciences of the USSR"),
        ("Matematicheskie Zametki", "Mat. Zametki", "Matem. Zametki"),
    ),
    (
        ("Sbornik: Mathematics", "Mathematics of the USSR-Sbornik", "Math. USSR Sb."),
        ("Matematicheskii Sbornik", "Mat. Sb.", "Mat. Sbornik"),
    ),
    (
        ("Russian Mathematical Surveys", "Russian Math. Surveys"),
        ("Uspekhi Matematicheskikh Nauk", "Usp. Mat. Nauk"),
    ),
    (
        ("Izvestiya: Mathematics", "Mathematics of the USSR-Izvestiya", "Izv. Math."),
        (
            "Izvestiya Rossiiskoi Akademii Nauk. Seriya Matematicheskaya",
            "Izvestiya Akademii Nauk SSSR. Seriya Matematicheskaya",
            "Izv. Akad. Nauk SSSR Ser. Mat.",
            "Izv. Ross. Akad. Nauk Ser. Mat.",
        ),
    ),
    (
        ("Soviet Mathematics. Doklady", "Doklady Mathematics", "Sov. Math. Dokl."),
        # "Doklady" alone: the original as Semantic Scholar names it
        ("Doklady Akademii Nauk SSSR", "Doklady Akademii Nauk", "Dokl. Akad. Nauk SSSR", "Doklady"),
    ),
    (
        ("Journal of Soviet Mathematics", "Journal of Mathematical Sciences", "J. Sov. Math."),
        ("Zapiski Nauchnykh Seminarov LOMI", "Zapiski Nauchnykh Seminarov POMI", "Itogi Nauki"),
    ),
    (
        ("Theory of Probability and its Applications", "Theory Probab. Appl."),
        ("Teoriya Veroyatnostei i ee Primeneniya", "Teor. Veroyatn. Primen."),
    ),
    (
        ("Siberian Mathematical Journal", "Sib. Math. J."),
        ("Sibirskii Matematicheskii Zhurnal", "Sib. Mat. Zh."),
    ),
    (
        ("Ukrainian Mathematical Journal", "Ukr. Math. J."),
        ("Ukrainskii Matematicheskii Zhurnal", "Ukr. Mat. Zh."),
    ),
    (
        ("Functional Analysis and its Applications", "Funct. Anal. Appl."),
        ("Funktsional'nyi Analiz i ego Prilozheniya", "Funkts. Anal. Prilozh."),
    ),
    (
        ("Transactions of the Moscow Mathematical Society", "Trans. Mosc. Math. Soc."),
        ("Trudy Moskovskogo Matematicheskogo Obshchestva", "Tr. Mosk. Mat. O.-va"),
    ),
    (
        ("Proceedings of the Steklov Institute of Mathematics", "Proc. Steklov Inst. Math."),
        ("Trudy Matematicheskogo Instituta imeni V. A. Steklova", "Tr. Mat. Inst. Steklova"),
    ),
    (
        ("St. Petersburg Mathematical Journal", "Leningrad Mathematical Journal"),
        ("Algebra i Analiz",),
    ),
    (
        ("Differential Equations",),
        ("Differentsial'nye Uravneniya", "Differ. Uravn."),
    ),
    (
        ("Algebra and Logic",),
        ("Algebra i Logika",),
    ),
    (
        ("Chinese Mathematics",),
        ("Acta Mathematica Sinica", "Shuxue Xuebao"),
    ),
    (
        ("Chinese Journal of Contemporary Mathematics",),
        ("Chinese Annals of Mathematics. Series A", "Shuxue Niankan"),
    ),
    (
        ("Sugaku Expositions",),
        ("Sugaku",),
    ),
    (
        ("Moscow University Mathematics Bulletin", "Moscow Univ. Math. Bull."),
        (
            "Vestnik Moskovskogo Universiteta. Seriya I. Matematika, Mekhanika",
            "Vestnik Moskovskogo Universiteta. Seriya I",
            "Vestnik Moskovskogo Universiteta",
        ),
    ),
    (
        (
            "USSR Computational Mathematics and Mathematical Physics",
            "Computational Mathematics and Mathematical Physics",
        ),
        ("Zhurnal Vychislitel'noi Matematiki i Matematicheskoi Fiziki",),
    ),
    (
        ("Theoretical and Mathematical Physics",),
        ("Teoreticheskaya i Matematicheskaya Fizika",),
    ),
    (
        (
            "Soviet Mathematics (Izvestiya VUZ. Matematika)",
            "Russian Mathematics (Izvestiya VUZ. Matematika)",
            "Soviet Math. (Iz. VUZ)",
            "Russian Math. (Iz. VUZ)",
        ),
        ("Izvestiya Vysshikh Uchebnykh Zavedenii. Matematika",),
    ),
)


def is_preprint_venue(name: str | None) -> bool:
    """Whether a venue names a preprint server ("arXiv", "ArXiv", "arXiv.org", "CoRR", "arXiv
    preprint arXiv:2301.00001", "SSRN Electronic Journal", "IACR Cryptology ePrint Archive")."""
    words = re.findall(r"[a-z]+", fold(strip_latex(name or "")))
    return bool(words) and (
        words[0] in PREPRINT_SERVERS or bool({"preprint", "eprint"} & set(words))
    )


def venue_parts(text: str) -> tuple[str | None, str | None, str | None]:
    """(venue, volume, pages) from a journal reference such as arXiv's journal_ref: "Phys.Lett.
    B573:94-100,2003" -> ("Phys.Lett.B", "573", "94-100"); "IEEE Transactions on Information
    Theory ( Volume: 65 , Issue: 4 , April 2019 )" -> (..., "65", None). The venue is the text
    before the first number, volume or page mark (a leading year and "In" dropped)."""
    text = " ".join(text.split())
    body = re.sub(r"^in(?:\b:?\s*|(?=proc))", "", text, flags=re.I)  # "In Proc.", "InProceedings"
    body = re.sub(rf"\b(?:1[5-9]|20)\d\d\s+(?!{MONTHS})(?=[A-Za-z])", "", body, flags=re.I)
    cut = re.search(
        r"\s*(?:[,(:]\s*)?(?:\bvol(?:ume)?\b|\bno\.|\bpp?\.|\bpages\b|\d(?!\d*(?:st|nd|rd|th)\b))",
        body,
        re.I,
    )
    venue = body[: cut.start()] if cut else body
    if venue.count("(") > venue.count(")"):  # "(ISSTA" of "(ISSTA 2020)"
        venue = venue[: venue.rindex("(")]
    venue = venue.strip(" ,;:(@-–")
    pages_match = re.search(r"(?<![\w.])(e?\d+)\s*(?:-+|–|—)\s*(e?\d+)(?!\w|\.\d)", text)
    pages = f"{pages_match.group(1)}-{pages_match.group(2)}" if pages_match else None
    rest = text[: pages_match.start()] + text[pages_match.end() :] if pages_match else text
    volume = None
    for number in re.finditer(r"(?<!\d)(?<!\d\.)(\d+)(?!\.?\d|[A-Za-z])", rest):
        before = rest[max(0, number.start() - 8) : number.start()].lower()
        if re.fullmatch(r"(?:1[5-9]|20)\d\d", number.group(1)) or re.search(
            rf"(?:no|issue|{MONTHS}[a-z]*)\W*$", before
        ):
            continue
        volume = number.group(1)
        break
    return venue or None, volume, pages
