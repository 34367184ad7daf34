"""Places where commands run: this machine, a network namespace, later an SSH device."""
