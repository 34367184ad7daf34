"""A store's URL, and any text that may hold one (a run's argv), as it can be shown or
stored: with its password replaced by ***.

SQLAlchemy is imported for type checking only: errors.py, which the package re-exports
without loading the database layer, uses mask_passwords.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlalchemy import URL

_PASSWORD_IN_URL = re.compile(
    # user:password@host, up to the authority's last @: a password may hold an unescaped @.
    r"(?P<head>[A-Za-z][A-Za-z0-9+.-]*://[^/@:\s]*:)[^/\s]*(?=@[^@/\s]*(?:[/?#\s]|$))"
)


def display_url(url: str | URL) -> str:
    """The URL as it can be shown or stored: its password (if any) replaced by ***."""
    if isinstance(url, str):
        # As the user wrote it, not as SQLAlchemy reads it: it takes a password's
        # unescaped @ for the host's start, and would show the password's rest as the host.
        return mask_passwords(url)
    return url.render_as_string(hide_password=True)


def mask_passwords(text: str) -> str:
    """Any scheme://user:password@ in text with the password replaced by ***."""
    return _PASSWORD_IN_URL.sub(r"\g<head>***", text)
