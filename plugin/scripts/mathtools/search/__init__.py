"""The literature search, phase by phase (discover, judge, refine, chase, verify, finish), standing
side by side over one search-folder model and the run store. Imports every wing below it.

This file is the wing's face: the names other wings, cli.py, the scripts and the hooks may
import from it, loaded when first used (CONTRIBUTING.md, "Layout")."""

from typing import TYPE_CHECKING

from ..core import face_attribute

if TYPE_CHECKING:
    from .commandlines import Plan, check_per_query, command_lines
    from .confirmation import NOTHING_NEW, nothing_new, verify
    from .discovery import Found, chase, listing, more, problem_path, refine, start_discovery
    from .judging import check_refined, judge
    from .planning import plan
    from .problemfile import read_problem
    from .querylines import query_line, searched_query_lines
    from .recording import correct_search, finish_search, merge_search
    from .refinement import keep, next_refinement_step
    from .relaxation import ArxivRequest, search_arxiv, search_s2
    from .runrecords import (
        JUDGEMENT_COLUMNS,
        RUN_COLUMNS,
        Columns,
        check_judgements,
        record_judgements,
        record_runs,
        runs_of,
        table,
    )
    from .searchfolder import (
        Search,
        check_judged,
        given_search_folder,
        new_search_folder,
        write_json,
    )
    from .store import RunStore, open_store, stored_query_lines

__all__ = [
    "JUDGEMENT_COLUMNS",
    "NOTHING_NEW",
    "RUN_COLUMNS",
    "ArxivRequest",
    "Columns",
    "Found",
    "Plan",
    "RunStore",
    "Search",
    "chase",
    "check_judged",
    "check_judgements",
    "check_per_query",
    "check_refined",
    "command_lines",
    "correct_search",
    "finish_search",
    "given_search_folder",
    "judge",
    "keep",
    "listing",
    "merge_search",
    "more",
    "new_search_folder",
    "next_refinement_step",
    "nothing_new",
    "open_store",
    "plan",
    "problem_path",
    "query_line",
    "read_problem",
    "record_judgements",
    "record_runs",
    "refine",
    "runs_of",
    "search_arxiv",
    "search_s2",
    "searched_query_lines",
    "start_discovery",
    "stored_query_lines",
    "table",
    "verify",
    "write_json",
]


# Out of mypy's sight, so that a name off the face (a typo) is an error where it is imported,
# not an `object` (core/faces.py says why faces are lazy at all).
if not TYPE_CHECKING:

    def __getattr__(name: str) -> object:
        return face_attribute(__name__, name)
