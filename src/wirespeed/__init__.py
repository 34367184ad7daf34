"""wirespeed: network benchmarks for routers and single-board computers."""

__version__ = "0.1.0"
