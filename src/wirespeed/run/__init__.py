"""The run loop: a plan's trials run one after the other (runner.py), each a traffic test
(trial.py) or a benchmark on one host (bench_trial.py), in its variant (variants.py,
cpu_variants.py), committed to the store before the next starts."""
