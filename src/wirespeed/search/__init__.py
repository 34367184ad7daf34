"""The forwarding-rate search: the highest load a device forwards within a loss goal.

RFC 2544's throughput is the highest rate without loss; RFC 9971 (MLRsearch) finds it
robustly, with short trials first and full-length ones at the end, several goals at
once, and an exceed ratio against noise. This package is pure: it decides which load to
try next from the trials so far; run/search_trial.py makes a trial happen.
"""
