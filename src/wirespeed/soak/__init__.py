"""Soak tests: a paced UDP stream each way for hours, its outages and the kernel's words.

chunk.py (irtt's JSON -> one chunk's loss runs and delay), outages.py (loss runs across
chunks -> outages), matching.py (outages <- kernel events), sentence.py (the one-line
verdict), measurements.py (a soak's figures as measurements, judged against `expect:`)
are pure; stream.py drives irtt chunk after chunk, faults.py injects a lab's outages,
soak_runner.py runs a soak and keeps it in the store (records.py), session.py runs a
plan's soaks (begun, resumed, one per variant); comparison.py puts soaks side by side
in the table of runs.
"""
