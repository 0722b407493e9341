"""Compiling OUTPUT.tex to OUTPUT.pdf, and the record that says the PDF is the current one.

`compile_pdf` runs latexmk (else pdflatex + bibtex) in the problem folder with one deadline for
the whole compilation, no shell escape, no latexmkrc, and TeX's reads and writes confined to the
folder (kpathsea's openin_any/openout_any `p`). It then writes COMPILE_RECORD, OUTPUT.compile.json
(plugin/schemas/compile_record.schema.json): the SHA-256 of every source it compiled (OUTPUT.tex,
the files it \\input's, references.bib) and of the PDF it made, or the first LaTeX error when it
failed, marked with the workspace's key (signing.py) like STATE.md and the run records, so that a
hand-made PDF with a hand-written record is no compiled write-up. Without TeX, and with
`"tex_only": true` in .math/config.json, it records the write-up as not compiled instead, and
marks OUTPUT.tex so with TEX_ONLY_NOTE.

`compile_violations` is what the move to DONE asks of that record: it must match OUTPUT.tex (and
its sources) as they are now and an OUTPUT.pdf that is a PDF with the recorded digest; or,
without TeX and tex-only chosen, the tex-only record of the current OUTPUT.tex. Without TeX and
without tex-only, DONE is refused with the line that says how to install TeX (INSTALL_TEX).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import TypedDict

from ..core import TEX_ONLY, BadInput, atomic_write, dumps, stamp, tex_only_configured
from ..sandbox import check_timeout, environment_without_secrets
from . import outputtex, signing
from .stateread import COMPILE_RECORD

# The tools compile_pdf looks for on PATH (latexmk drives pdflatex and bibtex).
TEX_TOOLS = ("latexmk", "pdflatex", "bibtex")
INSTALL_TEX = (
    "install TeX (Debian/Ubuntu: sudo apt-get install --no-install-recommends texlive-latex-base "
    "texlive-latex-recommended latexmk; macOS: brew install --cask mactex-no-gui, or MacTeX from "
    "tug.org/mactex; elsewhere: TeX Live, tug.org/texlive)"
)
TEX_ONLY_NOTE = (
    f'% math: tex only: not compiled (no TeX here, and "{TEX_ONLY}": true in '
    ".math/config.json); compile it with: latexmk -pdf OUTPUT.tex"
)
# kpathsea reads these from the environment: TeX opens no file outside the folder (nor a
# dotfile) for reading or writing, runs no shell command, and writes its log lines unbroken.
_CONFINED = {"openin_any": "p", "openout_any": "p", "shell_escape": "f", "max_print_line": "1000"}
_FLAGS = ["-no-shell-escape", "-interaction=nonstopmode", "-halt-on-error"]
_ERROR_LOCATION = re.compile(r"^l\.(\d+)")


class CompileRecord(TypedDict):
    """OUTPUT.compile.json: what latex.py compile last did with OUTPUT.tex."""

    at: str
    tool: str | None  # latexmk or pdflatex; None: tex only
    tex_only: bool
    sources: dict[str, str]  # file (relative to the problem folder) -> SHA-256
    pdf: str | None  # SHA-256 of the OUTPUT.pdf it made; None when it made none
    error: str | None  # the first LaTeX error when it failed
    mark: str  # the other fields' mark under the workspace's key (signing.py)


class _Compiled(TypedDict):
    compiled: bool


class Compiled(_Compiled, total=False):
    """`compile_pdf`'s answer: the PDF made, or why none was (the tool's error, no TeX with the
    line that installs it, or tex only chosen)."""

    tool: str | None  # latexmk or pdflatex; None: no TeX here
    pdf: str | None  # the OUTPUT.pdf made
    error: str  # the first LaTeX error, or the timeout
    how: str  # without TeX: how to compile it
    tex_only: bool
    note: str  # tex only: the note OUTPUT.tex now opens with
    warnings: list[str]  # BibTeX's, when the PDF was made all the same


def tex_installed() -> bool:
    return shutil.which("pdflatex") is not None


def how_to_compile(folder: Path) -> str:
    return (
        f"{INSTALL_TEX}, then run latex.py compile; or compile it yourself in {folder} "
        "(latexmk -pdf OUTPUT.tex), or upload OUTPUT.tex and references.bib to Overleaf"
    )


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def sources(folder: Path) -> dict[str, str]:
    """SHA-256 of OUTPUT.tex, of each file it \\input's (outputtex.included_files) and of
    references.bib: what a PDF is compiled from."""
    tex = outputtex.read_file(folder / "OUTPUT.tex")
    if tex is None:
        raise BadInput(f"{folder / 'OUTPUT.tex'} does not exist yet", code="file_not_found")
    names = ["OUTPUT.tex", *outputtex.included_files(folder, tex), "references.bib"]
    return {name: _sha256(folder / name) for name in names if (folder / name).is_file()}


def read_record(folder: Path) -> CompileRecord | None:
    """The compile record, or None when there is none or it is not latex.py compile's (a
    hand-made file: its mark, keyed like STATE.md's digest, does not match)."""
    try:
        data = json.loads((folder / COMPILE_RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    fields = set(CompileRecord.__annotations__)
    if not isinstance(data, dict) or set(data) != fields or not isinstance(data["sources"], dict):
        return None
    unmarked = {key: value for key, value in data.items() if key != "mark"}
    if not signing.matches(signing.math_dir_of(folder), unmarked, data["mark"]):
        return None
    return data  # type: ignore[return-value]  # its keys and mark checked above


def _write_record(
    folder: Path,
    tool: str | None,
    *,
    sources: dict[str, str],
    tex_only: bool = False,
    pdf: str | None = None,
    error: str | None = None,
) -> CompileRecord:
    record: CompileRecord = {
        "at": stamp(),
        "tool": tool,
        "tex_only": tex_only,
        "sources": sources,
        "pdf": pdf,
        "error": error,
        "mark": "",
    }
    unmarked = {key: value for key, value in record.items() if key != "mark"}
    record["mark"] = signing.mark(signing.math_dir_of(folder), unmarked)
    atomic_write(folder / COMPILE_RECORD, dumps(record))
    return record


def _mark_tex_only(folder: Path, marked: bool) -> None:
    """Add TEX_ONLY_NOTE as OUTPUT.tex's first line (`marked`) or take it away."""
    path = folder / "OUTPUT.tex"
    text = outputtex.read_file(path) or ""
    lines = [
        line for line in text.splitlines(keepends=True) if not line.startswith("% math: tex only")
    ]
    wanted = "".join(([TEX_ONLY_NOTE + "\n"] if marked else []) + lines)
    if wanted != text:
        atomic_write(path, wanted)


def _runs() -> list[list[str]]:
    latexmk, pdflatex, bibtex = (shutil.which(tool) for tool in TEX_TOOLS)
    assert pdflatex is not None  # tex_installed() was asked first
    if latexmk:
        return [[latexmk, "-norc", "-pdf", *_FLAGS, "OUTPUT.tex"]]
    runs = [[pdflatex, *_FLAGS, "OUTPUT.tex"]]
    if bibtex:
        runs.append([bibtex, "OUTPUT"])
    return runs + [[pdflatex, *_FLAGS, "OUTPUT.tex"]] * 2


def _run(argv: list[str], folder: Path, seconds: float) -> tuple[int | None, str]:
    """(exit code, or None when the deadline passed; what it printed)."""
    env = {**environment_without_secrets(), **_CONFINED}  # a document could \input its environ
    env.pop("TEXMFOUTPUT", None)  # TeX's other place to write
    with subprocess.Popen(
        argv,
        cwd=folder,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
        start_new_session=True,  # latexmk's pdflatex dies with it at the deadline
    ) as proc:
        try:
            out, _ = proc.communicate(timeout=max(seconds, 0.001))
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return None, ""
    return proc.returncode, out


def first_error(log: Path, printed: str) -> str:
    """The first `! ...` error of a LaTeX log with the line of OUTPUT.tex it names
    ("! Missing $ inserted. (line 9)"); else the last line the tool printed."""
    lines = log.read_text(errors="replace").splitlines() if log.exists() else []
    for i, line in enumerate(lines):
        if line.startswith("!"):
            where = next(
                (m[1] for later in lines[i + 1 : i + 30] if (m := _ERROR_LOCATION.match(later))),
                None,
            )
            return line.strip() + (f" (line {where})" if where else "")
    tail = [line.strip() for line in printed.splitlines() if line.strip()]
    return tail[-1] if tail else "LaTeX failed without a message"


def compile_pdf(folder: Path, timeout: float = 300) -> Compiled:
    """Compile folder/OUTPUT.tex to OUTPUT.pdf within `timeout` seconds in all (BadInput unless
    sandbox.check_timeout accepts it) and record the outcome (COMPILE_RECORD)."""
    check_timeout(timeout)  # before looking for LaTeX: a bad value is refused on every machine
    if not (folder / "OUTPUT.tex").is_file():
        raise BadInput(f"{folder / 'OUTPUT.tex'} does not exist yet", code="file_not_found")
    if not tex_installed():
        if tex_only_configured(folder):
            _mark_tex_only(folder, True)
            _write_record(folder, None, tex_only=True, sources=sources(folder))
            return {"compiled": False, "tex_only": True, "note": TEX_ONLY_NOTE.lstrip("% ")}
        (folder / COMPILE_RECORD).unlink(missing_ok=True)
        return {"compiled": False, "tool": None, "pdf": None, "how": how_to_compile(folder)}
    _mark_tex_only(folder, False)
    for name in ("OUTPUT.pdf", "OUTPUT.log", "OUTPUT.aux", "OUTPUT.bbl"):
        if (folder / name).is_symlink():  # TeX would write through it, out of the folder
            (folder / name).unlink()
    if (folder / "OUTPUT.log").is_file():  # an error is read from this run's log only
        (folder / "OUTPUT.log").unlink()
    compiled = sources(folder)
    runs = _runs()
    tool = Path(runs[0][0]).name
    deadline = time.monotonic() + timeout
    for argv in runs:
        code, printed = _run(argv, folder, deadline - time.monotonic())
        error = None
        if code is None:
            error = f"timed out after {timeout:g} s"
        elif code != 0 and Path(argv[0]).name != "bibtex":
            error = first_error(folder / "OUTPUT.log", printed)
        if error:
            _write_record(folder, tool, sources=compiled, error=error)
            return {"compiled": False, "tool": tool, "pdf": None, "error": error}
    pdf = folder / "OUTPUT.pdf"
    if not is_pdf(pdf):
        error = f"{tool} ended without error but made no OUTPUT.pdf"
        _write_record(folder, tool, sources=compiled, error=error)
        return {"compiled": False, "tool": tool, "pdf": None, "error": error}
    _write_record(folder, tool, sources=compiled, pdf=_sha256(pdf))
    answer: Compiled = {"compiled": True, "tool": tool, "pdf": str(pdf)}
    warnings = bibtex_warnings(folder)
    if warnings:
        answer["warnings"] = warnings
    return answer


def is_pdf(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            return path.is_file() and handle.read(5) == b"%PDF-"
    except OSError:
        return False


def compile_violations(folder: Path) -> list[outputtex.TexViolation]:
    """Why the compile record does not show OUTPUT.pdf built from the current OUTPUT.tex (or,
    without TeX and tex-only chosen, the current OUTPUT.tex recorded as tex only). Without TeX
    and without tex-only, whatever is amiss, the answer is the line that installs TeX."""
    installed, tex_only = tex_installed(), tex_only_configured(folder)
    problem = _record_problem(folder, read_record(folder), installed, tex_only)
    if problem is None:
        return []
    if not installed and not tex_only:
        problem = (
            "no_tex",
            "no TeX on this machine, so OUTPUT.tex cannot be compiled to OUTPUT.pdf: "
            f'{INSTALL_TEX}; or, to finish with OUTPUT.tex alone, set "{TEX_ONLY}": true '
            "in .math/config.json",
        )
    return [{"kind": problem[0], "message": problem[1]}]


def _record_problem(
    folder: Path, record: CompileRecord | None, installed: bool, tex_only: bool
) -> tuple[str, str] | None:
    """(kind, message) of what keeps `record` from vouching for the current write-up; None when
    it does."""
    if record is None:
        made = (folder / COMPILE_RECORD).exists()
        why = "its record is not latex.py compile's (made by hand)" if made else "no record"
        return (
            "not_compiled",
            f"OUTPUT.tex was not compiled by latex.py compile ({COMPILE_RECORD}: {why}): run it",
        )
    changed = [
        name
        for name, digest in {**record["sources"], **sources(folder)}.items()
        if record["sources"].get(name) != digest or not (folder / name).is_file()
    ]
    if changed:
        return (
            "not_compiled",
            f"{', '.join(changed)} changed after latex.py compile ran: compile it again",
        )
    if record["error"]:
        return "compile_failed", f"OUTPUT.tex does not compile: {record['error']}"
    if record["tex_only"]:
        if installed:
            return (
                "not_compiled",
                "OUTPUT.tex was recorded as tex only, but TeX is installed now: run latex.py "
                "compile",
            )
        if tex_only:
            return None
        return "not_compiled", "OUTPUT.tex was recorded as tex only, but tex only is not chosen now"
    pdf = folder / "OUTPUT.pdf"
    if not is_pdf(pdf) or _sha256(pdf) != record["pdf"]:
        return (
            "not_compiled",
            "OUTPUT.pdf is not the PDF latex.py compile made from OUTPUT.tex: compile it again",
        )
    return None


def write_up_status(folder: Path) -> str | None:
    """One line for `status`: what became of the problem's OUTPUT.tex (None: none yet)."""
    if not (folder / "OUTPUT.tex").is_file():
        return None
    violations = compile_violations(folder)
    if violations:
        return str(violations[0]["message"])
    if read_record(folder)["tex_only"]:  # type: ignore[index]  # no violation: a record
        return "OUTPUT.tex only, not compiled: no TeX here, and tex only chosen"
    return "OUTPUT.pdf compiled from the current OUTPUT.tex"


# What BibTeX says when the bibliography came out empty or wrong; LaTeX still builds a PDF.
_BIBTEX_PROBLEMS = re.compile(
    r"^(I found no \\citation commands|I found no \\bibdata command|I found no "
    r"\\bibstyle command|I couldn't open .*|Warning--.*|.*---line \d+ of file .*)",
    re.MULTILINE,
)


def bibtex_warnings(folder: Path) -> list[str]:
    """BibTeX's complaints in OUTPUT.blg (no \\citation commands: the bibliography is empty)."""
    log = folder / "OUTPUT.blg"
    if not log.exists():
        return []
    text = log.read_text(errors="replace")
    found = [match.group(0).strip() for match in _BIBTEX_PROBLEMS.finditer(text)]
    advice = {
        "I found no \\citation commands": " (OUTPUT.tex cites nothing with \\cite, so the "
        "bibliography is empty: leave out \\bibliography when nothing is cited)",
    }
    return [
        line + next((a for k, a in advice.items() if line.startswith(k)), "") for line in found
    ][:20]
