"""Soak tests: a paced UDP stream each way for hours, its outages and the kernel's words.

chunk.py (irtt's JSON -> one chunk's loss runs and delay), outages.py (loss runs across
chunks -> outages), matching.py (outages <- kernel events), sentence.py (the one-line
verdict) are pure; stream.py drives irtt chunk after chunk, faults.py injects a lab's
outages, soak_runner.py runs a soak and keeps it in the store (records.py).
"""
