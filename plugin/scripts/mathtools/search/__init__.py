"""The literature search, phase by phase (discover, judge, refine, chase, verify, finish), standing
side by side over one search-folder model and the run store. Imports every wing below it."""

__all__ = [
    "abstracts",
    "commandlines",
    "confirmation",
    "discovery",
    "judging",
    "keyterms",
    "planning",
    "problemfile",
    "querylines",
    "ranking",
    "readorder",
    "recording",
    "refinement",
    "relaxation",
    "runrecords",
    "searchfolder",
    "store",
]
