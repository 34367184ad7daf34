"""An iperf2 server's log of several tests, one after another, cut into one per test.

`iperf -s` keeps running and prints every client's test into the same log. Parsed as
one, six tests of 1 to 8 streams became one result of 19 streams whose rates were added
up. A test's connections are accepted together, before any of its reports (-d's reverse
connections too); a connection accepted once every stream of the test so far has
reported from 0 s, or reusing an ID the test already has (2.0.x numbers each test from
the same ID again), is the next test's. Each test keeps the log's banner ("Server
listening on ... port"), which the parser needs to tell -d's flows apart.
"""

from __future__ import annotations

import re

_CONNECTED = re.compile(r"^\[\s*\*?(?P<id>\d+)\]\s+local\s+\S+\s+port\s+\d+\s+connected\s+with")
_REPORT_FROM_ZERO = re.compile(r"^\[\s*\*?(?P<id>\d+)\]\s+0(?:\.0+)?\s*-\s*[\d.]+\s+sec\s")


def split_tests(text: str) -> list[str]:
    """The log of each test in the server's log `text`, in order; [text] for one test."""
    lines = text.splitlines(keepends=True)
    first = next((i for i, line in enumerate(lines) if _CONNECTED.match(line.strip())), None)
    if first is None:
        return [text]
    banner, tests = lines[:first], [[]]  # type: list[str], list[list[str]]
    connected: set[int] = set()
    reported: set[int] = set()
    for line in lines[first:]:
        stripped = line.strip()
        if match := _CONNECTED.match(stripped):
            stream_id = int(match["id"])
            if reported and (stream_id in connected or connected <= reported):
                tests.append([])
                connected, reported = set(), set()
            connected.add(stream_id)
        elif match := _REPORT_FROM_ZERO.match(stripped):
            reported.add(int(match["id"]))
        tests[-1].append(line)
    if len(tests) == 1:
        return [text]
    return ["".join(banner + test) for test in tests]
