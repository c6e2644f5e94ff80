"""Time windows from the evidence, not from a clock.

An echo (a watchdog on the surviving ranks, a barrier timeout) is printed when a timeout expires:
the failure it echoes happened at least that long before. So the window to search for the root
cause is ``[echo time - timeout - margin, echo time + margin]``, not "incident time +- 30 min",
which misses the start of a stall whenever the printed timeout is longer than the guess.

    >>> window("2026-05-20T08:00:00Z", "30m", "5m")
    ('2026-05-20T07:25:00Z', '2026-05-20T08:05:00Z')
"""

from __future__ import annotations

import datetime as dt
import re

DEFAULT_MARGIN = "10m"
_UNITS = {"ms": 0.001, "s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "d": 86400}
_DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*(ms|sec|min|s|m|h|d)")
_TIME = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?\s*(Z|[+-]\d{2}:?\d{2})$", re.I
)


class WindowError(ValueError):
    """A time or duration that cannot be read; the message names the value and the rule."""


def parse_duration(text: str, name: str = "timeout") -> dt.timedelta:
    """``600000ms``, ``1800s``, ``30m``, ``1h30m``, ``2h``, ``1d`` (a unit is required: a bare
    number is ambiguous, since PyTorch prints milliseconds and JAX seconds)."""
    s = text.strip().lower().replace(" ", "")
    pos, total = 0, 0.0
    for m in _DURATION.finditer(s):
        if m.start() != pos:
            break
        total += float(m.group(1)) * _UNITS[m.group(2)]
        pos = m.end()
    if not s or pos != len(s):
        raise WindowError(
            f"{name} {text!r} is not a duration: write a number with a unit (ms, s, m, h, d), e.g. 600000ms, 30m, 1h30m"
        )
    return dt.timedelta(seconds=total)


def parse_time(text: str, name: str = "evidence time") -> dt.datetime:
    """RFC 3339 with a zone (``2026-05-20T08:00:00Z``, ``...+02:00``); a space may replace ``T``."""
    m = _TIME.match(text.strip())
    if not m:
        raise WindowError(
            f"{name} {text!r} is not an RFC 3339 time with a zone, e.g. 2026-05-20T08:00:00Z "
            "(log lines often print local time without a zone: add the zone the cluster logs in)"
        )
    y, mo, d, h, mi, sec, frac, zone = m.groups()
    try:
        tz = dt.timezone.utc
        if zone.upper() != "Z":
            sign = 1 if zone[0] == "+" else -1
            digits = zone[1:].replace(":", "")
            tz = dt.timezone(sign * dt.timedelta(hours=int(digits[:2]), minutes=int(digits[2:])))
        micro = int((frac or "0")[:6].ljust(6, "0"))
        return dt.datetime(int(y), int(mo), int(d), int(h), int(mi), int(sec), micro, tzinfo=tz)
    except ValueError as exc:
        raise WindowError(f"{name} {text!r} is not a valid time ({exc})") from None


def _rfc3339(t: dt.datetime) -> str:
    t = t.astimezone(dt.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S") + (f".{t.microsecond:06d}".rstrip("0") if t.microsecond else "") + "Z"


def window(evidence_time: str, timeout: str, margin: str = DEFAULT_MARGIN) -> tuple[str, str]:
    """(start_time, end_time) in UTC RFC 3339: echo time minus the printed timeout minus a
    margin, to echo time plus the margin."""
    t = parse_time(evidence_time)
    wait = parse_duration(timeout, "timeout")
    pad = parse_duration(margin, "margin")
    return _rfc3339(t - wait - pad), _rfc3339(t + pad)
