"""What the discovery tests take from the search wing, computed as the library does: the sources
a query plan is discovered in (sources.REGISTRY's `discovery` rows), and one query of a stored
plan run as search/discovery.py runs it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mathtools.core import SearchResult
from mathtools.core.sources import REGISTRY
from mathtools.search import commandlines, relaxation

DISCOVERY = tuple(source.code for source in REGISTRY if source.discovery)


def run_entry(api: str, entry: Mapping[str, Any], client: Any) -> SearchResult:
    """One query of a stored plan (commandlines.planned_query: typed, or an old plan's arguments
    migrated), run with its relaxations (relaxation.run_planned)."""
    return relaxation.run_planned(commandlines.planned_query(api, entry).typed, client)
