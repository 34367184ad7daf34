"""The store's failures after it was opened, and the reason a database error gives, in
words a person can act on and without passwords.

Imports no SQLAlchemy: `wirespeed.store` re-exports the errors, for callers that catch
them without opening a store.
"""

from __future__ import annotations

import re

from wirespeed.errors import WirespeedError
from wirespeed.store.redaction import mask_passwords


class StoreError(WirespeedError):
    """The store failed after it was opened: the server went away, the file is locked."""


class StoreUnavailableError(StoreError):
    """A commit failed for an outage (PostgreSQL gone or not answering) and kept failing
    for as long as the store retries it (Timeouts.retry_s)."""


def reason(error: BaseException) -> str:
    """What went wrong, in the driver's words, first line only and without passwords."""
    original = getattr(error, "orig", None) or error
    message = str(original).strip() or original.__class__.__name__
    lowered = message.lower()
    if "malformed" in lowered:  # SQLite's words for a damaged file
        return f"the file is damaged ({message})"
    if "connection refused" in lowered:
        return "connection refused; is the server running?"
    if "timeout expired" in lowered or "timed out" in lowered:
        return "no answer from the server (timed out)"
    if "could not translate host name" in lowered or "name or service not known" in lowered:
        return "unknown host"
    if "password authentication failed" in lowered or "no password supplied" in lowered:
        return "authentication failed; check the user name and password"
    first = next((line.strip() for line in message.splitlines() if line.strip()), "")
    # psycopg prefixes libpq's message with where it tried to connect; the URL says that.
    first = re.sub(r'^connection failed: connection to server at "[^"]*"[^:]*failed: ', "", first)
    first = re.sub(r"^(FATAL|ERROR):\s+", "", first)
    return mask_passwords(first) or original.__class__.__name__
