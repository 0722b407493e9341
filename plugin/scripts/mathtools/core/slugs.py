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

SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
MAX_SLUG = 64
DERIVED_SLUG_LENGTH = 48
# Folder names Windows refuses, whatever the extension: never a slug.
RESERVED_SLUGS = frozenset(
    {"con", "prn", "aux", "nul"} | {f"{dev}{n}" for dev in ("com", "lpt") for n in range(1, 10)}
)


def slugify(title: str) -> str:
    """A path-safe slug from a title: ASCII letters and digits joined by hyphens (48 at most)."""
    # Accents go (ő -> o); any other non-ASCII character (a dash, a symbol) separates words.
    ascii_title = "".join(
        c if c.isascii() else "" if unicodedata.combining(c) else " "
        for c in unicodedata.normalize("NFKD", title)
    )
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_title.lower()).strip("-")
    if len(slug) > DERIVED_SLUG_LENGTH:
        slug = slug[:DERIVED_SLUG_LENGTH].rsplit("-", 1)[0] or slug[:DERIVED_SLUG_LENGTH]
    return slug or "problem"


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
