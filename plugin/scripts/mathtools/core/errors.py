"""The errors every part of math raises, their exit codes, and how an error quotes what it names.

Exit codes: EXIT_MEANINGS below, their one home (docs/reference.md is written from it; the
agents rely on them; bootstrap.py keeps its own copy of 4, held equal by tests/test_reference.py).

Standard library only: it is imported before the plugin's dependencies are installed.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_VIOLATIONS = 1
EXIT_BAD_INPUT = 2
EXIT_SERVICE = 3
EXIT_ENVIRONMENT = 4
EXIT_INTERNAL = 5
# Kept: no code reads the codes' meanings, but this is their one home, beside the codes:
# tools/make_reference.py writes docs/reference.md's table from it, tests hold the scripts to it.
EXIT_MEANINGS = {
    EXIT_OK: "success",
    EXIT_VIOLATIONS: "`validate`/`check`/`literature.py finish` found violations (listed in the"
    " output); `check_refs.py --strict`: an entry is UNCONFIRMED or pending",
    EXIT_BAD_INPUT: "bad input (arguments, files, ids, JSON, an `--out` file that cannot be"
    " written, a request the service rejected with HTTP 400)",
    EXIT_SERVICE: "a service still failing after the bounded retries, or answering malformed data",
    EXIT_ENVIRONMENT: "environment (a contract variable out of range, dependencies could not be"
    " installed, a tool is missing, the cache folder is unusable, another process keeps a file"
    " locked)",
    EXIT_INTERNAL: "internal error (a bug; `MATH_DEBUG=1` shows the traceback)",
}


# Values never to be printed (an API key), registered where they are read (config.py): every
# error line and stderr note passes through redact(), whatever a service echoed back.
_SECRETS: set[str] = set()
REDACTED = "[redacted]"


def keep_secret(value: str) -> None:
    _SECRETS.add(value)


def redact(text: str) -> str:
    for secret in _SECRETS:
        text = text.replace(secret, REDACTED)
    return text


class MathError(Exception):
    """An error we expect and explain; `code` is a short machine-readable name."""

    exit_code = EXIT_INTERNAL
    default_code = "error"

    def __init__(self, message: str, code: str | None = None):
        message = redact(message)  # a service may have echoed a secret into what we quote
        super().__init__(message)
        self.message = message
        self.code = code or self.default_code


class BadInput(MathError):
    exit_code = EXIT_BAD_INPUT
    default_code = "bad_input"


class ServiceError(MathError):
    exit_code = EXIT_SERVICE
    default_code = "service_unavailable"

    @classmethod
    def malformed(cls, source_name: str, what: str, url: str | None = None) -> ServiceError:
        """A malformed answer of `source_name` (to `url`): the service is failing (exit 3; the
        gate's source_errors), never one that found nothing."""
        where = f" ({url})" if url else ""
        return cls(f"{source_name} sent a malformed answer: {what}{where}", code="malformed_answer")


class EnvironmentProblem(MathError):
    exit_code = EXIT_ENVIRONMENT
    default_code = "environment"


def shown(text: str, limit: int = 200) -> str:
    """`text` (a path, an argument) as an error message quotes it: at most `limit` characters,
    and bytes that are not UTF-8 (they reach argv as lone surrogates) escaped."""
    text = str(text)
    if len(text) > limit:
        text = f"{text[: limit // 2]}...({len(text)} characters)...{text[-limit // 4 :]}"
    return printable(text)


def printable(text: str) -> str:
    """`text` with lone surrogates (undecodable bytes of argv or a file name) as backslash escapes:
    printing it never fails."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")
