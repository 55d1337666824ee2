"""When to try a failed batch again: exponential backoff with jitter, never sooner than the
server's Retry-After. Pure."""

import random as _random
import re
import time
from email.utils import parsedate_to_datetime
from typing import Callable, Optional

#: A Retry-After longer than this is capped (a misconfigured server should not stall a client for hours).
MAX_RETRY_AFTER = 300.0


def backoff_delay(attempt: int, initial: float, maximum: float, random: Callable[[], float] = _random.random) -> float:
    """Seconds before retry number ``attempt`` (0 = the first retry): a random point in the upper
    half of min(maximum, initial * 2**attempt) ("equal jitter")."""
    ceiling = min(maximum, initial * 2 ** min(attempt, 30))
    return ceiling / 2 + random() * ceiling / 2


def retry_delay(
    attempt: int,
    retry_after: Optional[float],
    initial: float,
    maximum: float,
    random: Callable[[], float] = _random.random,
) -> float:
    """The backoff delay, or the server's Retry-After (seconds) when that is longer."""
    return max(backoff_delay(attempt, initial, maximum, random), min(retry_after or 0.0, MAX_RETRY_AFTER))


def parse_retry_after(value: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """A Retry-After header (seconds, or an HTTP date) as seconds from ``now``."""
    if not value:
        return None
    v = value.strip()
    if re.fullmatch(r"\d+(\.\d+)?", v):
        return float(v)
    try:
        at = parsedate_to_datetime(v).timestamp()
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, at - (time.time() if now is None else now))
