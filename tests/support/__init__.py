"""What tests of several parts share: the one in-process CLI runner (cli.py) and the
builders of sample runs (samples.py). On the import path through pytest's `pythonpath`."""
