"""iperf drivers: argv builders for runs, and pure parsers from saved output to a Result.

- `iperf2`, `iperf3`: argv builders, parsers, completion checks, version parsing.
- `merge`: one Result per test from the client's and the server's outputs.
- `detect`: which tool, format and side produced a saved output.
- `modes`: which directions a tool can measure through which topology.
"""
