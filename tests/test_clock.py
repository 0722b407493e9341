"""The one clock (mathtools/clock.py): what we write, and what we read back."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

import pytest
from mathtools.core import clock

STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


def test_a_stamp_is_utc_to_the_second_with_a_z():
    moment = datetime(2026, 2, 10, 13, 4, 5, 678901, tzinfo=timezone(timedelta(hours=1)))
    assert clock.stamp(moment) == "2026-02-10T12:04:05Z"
    assert clock.stamp(moment, microseconds=True) == "2026-02-10T12:04:05.678901Z"
    assert STAMP.fullmatch(clock.stamp())


@pytest.mark.parametrize(
    "text",
    [
        "2026-02-10T12:04:05Z",  # what we write
        "2026-02-10T12:04:05+00:00",  # verified_at / checked_at before the one format
        "2026-02-10T12:04:05.000000Z",  # STATE.md's entered_at
        "2026-02-10T12:04:05",  # no zone: UTC
        " 2026-02-10T13:04:05+01:00 ",
    ],
)
def test_every_format_we_ever_wrote_reads_back_as_the_same_moment(text):
    assert clock.parse_stamp(text) == datetime(2026, 2, 10, 12, 4, 5, tzinfo=timezone.utc)


def test_a_stamp_reads_back_as_the_moment_it_wrote():
    moment = clock.now()
    assert clock.parse_stamp(clock.stamp(moment, microseconds=True)) == moment
    assert clock.parse_stamp(clock.stamp(moment)) == moment.replace(microsecond=0)


def test_no_time_is_a_value_error():
    with pytest.raises(ValueError):
        clock.parse_stamp("last Tuesday")
