"""The ground every wing stands on: errors and exit codes, files and locks, configuration, the
clock, text folding, identifiers, source names, the records that cross boundaries. Imports no
wing."""

__all__ = [
    "authors",
    "bootstrap",
    "clock",
    "config",
    "domains",
    "errors",
    "files",
    "frontmatter",
    "identifiers",
    "installation",
    "locks",
    "records",
    "schemas",
    "slugs",
    "sources",
    "templates",
    "tex",
    "text",
    "titles",
    "venues",
    "version",
]
