"""The device card: one run of every kind on one device, summarised on one page.

A card is a plan (card/plan_text.py composes it from a target: the lab, a plan's bench,
or a device over SSH) that `run` executes like any other, plus a summary read from the
run's report (card/summary.py), rendered before the report's own sections.
"""
