"""A PostgreSQL store's engine, with every use of a connection bounded in time.

libpq waits forever by default: for a server that does not answer a connection, for
the answer to a query, for the acknowledgment of a commit. A frozen server (stopped,
swapping to death, a VM paused) still has its kernel acknowledge every TCP packet, so
neither TCP keepalives nor tcp_user_timeout notice it, and its own statement_timeout
cannot fire. So, besides those options (which catch a host or a network that is gone),
each connection taken from the pool is watched: if it is still out after the call
timeout, its socket is shut down, and whatever libpq was waiting for fails at once
with a connection error that the store reports, or retries (Store.write).
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
from dataclasses import dataclass
from typing import Any

from sqlalchemy import URL, Engine, create_engine, event
from sqlalchemy.exc import DBAPIError, DisconnectionError, OperationalError

from wirespeed.errors import UsageError

# Environment variables that change the bounds (seconds), e.g. for a store across a slow
# link: the longest a connection may be out for one store call, and how long a commit is
# retried across an outage before the trial is kept in the spool instead.
TIMEOUT_VARIABLE = "WIRESPEED_STORE_TIMEOUT"
RETRY_VARIABLE = "WIRESPEED_STORE_RETRY"

DEFAULT_CALL_TIMEOUT_S = 30.0
DEFAULT_RETRY_S = 30.0
# Opening a connection (libpq's connect_timeout, whole seconds): a server that does not
# answer at all (e.g. behind a firewall that drops packets) is given up after this.
DEFAULT_CONNECT_TIMEOUT_S = 10
# A connection taken from the pool is checked first; a frozen server fails this quickly.
PING_TIMEOUT_S = 5.0
# Opening or migrating a store may rewrite every row of a big one: its own bound.
MIGRATION_TIMEOUT_S = 3600.0


@dataclass(frozen=True)
class Timeouts:
    call_s: float = DEFAULT_CALL_TIMEOUT_S
    retry_s: float = DEFAULT_RETRY_S

    @classmethod
    def from_environment(cls) -> Timeouts:
        return cls(
            call_s=_seconds(TIMEOUT_VARIABLE, DEFAULT_CALL_TIMEOUT_S, minimum=1.0),
            retry_s=_seconds(RETRY_VARIABLE, DEFAULT_RETRY_S, minimum=0.0),
        )


def _seconds(variable: str, default: float, *, minimum: float) -> float:
    text = os.environ.get(variable, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not minimum <= value <= 86_400:
        raise UsageError(
            f"{variable}={text!r}: give seconds, {minimum:g} to 86400",
            hint=f"unset it for the default, {default:g} s",
        )
    return value


def postgres_engine(url: URL, timeouts: Timeouts) -> tuple[Engine, Watchdog]:
    """An engine whose connections fail instead of waiting forever (module docstring).
    libpq options given in the URL (?connect_timeout=3, ?keepalives_idle=...) win."""
    connect_timeout = max(2, min(DEFAULT_CONNECT_TIMEOUT_S, round(timeouts.call_s)))
    defaults: dict[str, Any] = {
        "connect_timeout": connect_timeout,
        # A peer that vanished (host down, cable pulled) while the connection idles
        # between trials: found dead in 10 + 3 x 5 s instead of hours.
        "keepalives": 1,
        "keepalives_idle": 10,
        "keepalives_interval": 5,
        "keepalives_count": 3,
        # Data sent and not acknowledged for this long (the network is gone): fail.
        "tcp_user_timeout": int(timeouts.call_s * 1000),
    }
    engine = create_engine(
        url, connect_args={k: v for k, v in defaults.items() if k not in url.query}
    )
    watchdog = Watchdog(timeouts.call_s)
    watchdog.attach(engine)
    return engine, watchdog


def is_outage(error: BaseException) -> bool:
    """A failure that a later attempt may not meet: the server or the connection to it
    is gone (refused, reset, timed out, shut down by the watchdog), not a bad statement."""
    if isinstance(error, DBAPIError) and error.connection_invalidated:
        return True
    return isinstance(error, OperationalError)


class Watchdog:
    """Bounds the time each connection spends out of the pool (module docstring).

    Armed on checkout, disarmed on checkin: every store call (and the tuning journal's,
    which shares the engine) holds a connection only for its own transaction."""

    def __init__(self, call_s: float) -> None:
        self.call_s = call_s
        self._lock = threading.Lock()
        # dbapi connection id -> the timer that cuts it
        self._armed: dict[int, threading.Timer] = {}
        # How many connections were cut: a call that sees it grow failed for no answer.
        self.cuts = 0

    def attach(self, engine: Engine) -> None:
        event.listen(engine, "checkout", self._on_checkout)
        event.listen(engine, "checkin", self._on_checkin)
        event.listen(engine, "close", self._on_close)

    def extend(self, dbapi_connection: Any, seconds: float) -> None:
        """Give the connection now out `seconds` from now (a migration)."""
        self._arm(dbapi_connection, seconds)

    def _on_checkout(self, dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
        # The pool's own pre-ping runs before this event, unwatched: the ping is here.
        self._arm(dbapi_connection, min(PING_TIMEOUT_S, self.call_s))
        try:
            cursor = dbapi_connection.cursor()
            try:
                cursor.execute("SELECT 1")
            finally:
                cursor.close()
            # psycopg begins a transaction for the ping; the store begins its own.
            dbapi_connection.rollback()
        except Exception as error:
            self._disarm(dbapi_connection)
            # The pool replaces the connection (a server restarted between two trials).
            raise DisconnectionError(str(error)) from error
        self._arm(dbapi_connection, self.call_s)

    def _on_checkin(self, dbapi_connection: Any, _record: Any) -> None:
        if dbapi_connection is not None:
            self._disarm(dbapi_connection)

    def _on_close(self, dbapi_connection: Any, _record: Any) -> None:
        self._disarm(dbapi_connection)

    def _arm(self, dbapi_connection: Any, seconds: float) -> None:
        timer = threading.Timer(seconds, self._cut, (dbapi_connection,))
        timer.daemon = True
        with self._lock:
            old = self._armed.pop(id(dbapi_connection), None)
            self._armed[id(dbapi_connection)] = timer
        if old is not None:
            old.cancel()
        timer.start()

    def _disarm(self, dbapi_connection: Any) -> None:
        with self._lock:
            timer = self._armed.pop(id(dbapi_connection), None)
        if timer is not None:
            timer.cancel()

    def _cut(self, dbapi_connection: Any) -> None:
        with self._lock:
            timer = self._armed.get(id(dbapi_connection))
            if timer is None or timer is not threading.current_thread():
                return  # disarmed or re-armed since: the connection came back in time
            del self._armed[id(dbapi_connection)]
            self.cuts += 1
        # A duplicate of the connection's descriptor: shutting it down ends libpq's wait
        # (its poll sees the end of the stream) without closing a descriptor that libpq
        # still owns and another thread could reuse.
        with (
            contextlib.suppress(OSError, ValueError, AttributeError),
            socket.socket(fileno=os.dup(dbapi_connection.fileno())) as duplicate,
        ):
            duplicate.shutdown(socket.SHUT_RDWR)
