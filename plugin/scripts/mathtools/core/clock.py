"""Time: the one clock and the one timestamp format of everything we write.

We write UTC as `YYYY-MM-DDTHH:MM:SSZ` (stamp()). One field needs more: STATE.md's `entered_at`
and `updated` carry microseconds (`stamp(..., microseconds=True)`), because an artifact counts as
fresh when it is newer than the moment its state was entered, and a script may write one within
the second of the transition. parse_stamp() reads what we and earlier versions wrote (`Z`, `+00:00`,
with or without fractions of a second; a time without a zone is UTC), so existing files still read.
"""

from __future__ import annotations

from datetime import datetime, timezone

STAMP_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


def now() -> datetime:
    """The current moment, in UTC."""
    return datetime.now(timezone.utc)


def stamp(moment: datetime | None = None, *, microseconds: bool = False) -> str:
    """`moment` (now by default; a naive one is taken as UTC) as `YYYY-MM-DDTHH:MM:SSZ`, or
    `YYYY-MM-DDTHH:MM:SS.ffffffZ` with `microseconds`."""
    moment = now() if moment is None else moment
    moment = moment.astimezone(timezone.utc) if moment.tzinfo else moment
    if microseconds:
        return moment.replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"
    return moment.strftime(STAMP_FORMAT)


def parse_stamp(text: str) -> datetime:
    """An ISO 8601 time as an aware datetime (UTC when it names no zone). Raises ValueError when
    `text` is no ISO 8601 time. Python 3.10's fromisoformat reads no `Z`: it is spelled out."""
    moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
