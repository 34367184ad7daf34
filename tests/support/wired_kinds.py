"""Every test finds each kind's hooks from the layers below the kinds (the plan, the
runner, the drivers), as the command line does when it starts (kinds/__init__.py): a
plugin loaded by `addopts` in pyproject.toml."""

from wirespeed.kinds import wire_hooks

wire_hooks()
