"""The problem slug: the one rule for what may name a problem, and how a title becomes one.

A slug names a folder, `.math/problems/<slug>/`, and the problem's runs in the run store, so it
must be safe as a path on every system: lower-case ASCII letters and digits in words joined by
single hyphens (`fixed-points`, not `a--b` or `-x`), at most 64 characters, and never a device
name Windows refuses (`con`, `nul`, `com1`, ...). Every reader of a slug (the workspace, the
run store, the literature scripts) checks it with check_slug or is_slug.
"""

from __future__ import annotations

import re
import unicodedata

from .errors import BadInput
from .text import FUNCTION_WORDS

SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
MAX_SLUG = 64
DERIVED_SLUG_LENGTH = 48
# Folder names Windows refuses, whatever the extension: never a slug.
RESERVED_SLUGS = frozenset(
    {"con", "prn", "aux", "nul"} | {f"{dev}{n}" for dev in ("com", "lpt") for n in range(1, 10)}
)


def slugify(title: str) -> str:
    """A path-safe slug from a title: ASCII letters and digits joined by hyphens (48 at most).
    A long title is cut after a whole word, and never after a word that leads on to the cut
    words ("kakeya-sets-whose-segment-midpoints", not "...-midpoints-lie-in-a")."""
    # A possessive is its name ("Rédei's" -> "redei"); an apostrophe inside a name joins it
    # ("O'Neil" -> "oneil"): neither leaves a word "s" or "neil" of its own.
    title = re.sub(r"(?<=\w)['\u2019](?:s\b)?", "", title)
    # Accents go (ő -> o); any other non-ASCII character (a dash, a symbol) separates words.
    ascii_title = "".join(
        c if c.isascii() else "" if unicodedata.combining(c) else " "
        for c in unicodedata.normalize("NFKD", title)
    )
    words = re.findall(r"[a-z0-9]+", ascii_title.lower())
    if len("-".join(words)) > DERIVED_SLUG_LENGTH:
        kept: list[str] = []
        for word in words:
            if len("-".join([*kept, word])) > DERIVED_SLUG_LENGTH:
                break
            kept.append(word)
        while len(kept) > 1 and (kept[-1] in FUNCTION_WORDS or kept[-1] in LEADING_WORDS):
            kept.pop()
        words = kept or [words[0][:DERIVED_SLUG_LENGTH]]
    return "-".join(words) or "problem"


# Words after which a title goes on: a slug cut there ends mid-phrase.
LEADING_WORDS = frozenset(
    """
    whose which that where when while such lie lies is are be being has have with without under
    over into onto between among than as
    """.split()  # noqa: SIM905
)


def check_slug(slug: str) -> str:
    """`slug` if it can safely name a folder under .math/, else BadInput saying why."""
    if not isinstance(slug, str) or not SLUG_RE.fullmatch(slug) or len(slug) > MAX_SLUG:
        raise BadInput(
            f"unsafe problem slug {slug!r}: use lowercase letters, digits and single hyphens "
            f"(at most {MAX_SLUG} characters), no paths",
            code="bad_slug",
        )
    if slug in RESERVED_SLUGS:
        raise BadInput(f"problem slug {slug!r} is a reserved device name", code="bad_slug")
    return slug


def is_slug(text: str) -> bool:
    """Does `text` follow the slug rule (check_slug without the error)?"""
    return bool(SLUG_RE.fullmatch(text)) and len(text) <= MAX_SLUG and text not in RESERVED_SLUGS
