"""check_refs.py's run: the paper read (paperinput.py), its bibliography checked and the outputs
written by the gate (gate/refrun.py), with the statements it cites by number looked up between
the check and the outputs.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from ..gate import RefsOptions, RefsRun, adopt_run, run_check
from .paperinput import add_statements, read_paper_input


def check_refs(options: RefsOptions, progress: Callable[[str], None]) -> RefsRun:
    """One /math:check-refs run as `options` ask (--adopt: the copy adopted, nothing checked);
    progress lines go to `progress`. BadInput for what cannot be read or written, before any
    check."""
    if options.adopt:
        return adopt_run(options.adopt)
    started = time.monotonic()
    paper = read_paper_input(
        list(options.files), cited_only=options.cited_only, use_cache=options.use_cache
    )
    return run_check(
        options,
        paper.bibliography,
        lambda document: add_statements(document, paper, progress),
        progress,
        started,
    )
