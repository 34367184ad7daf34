"""Apply the lab changes in a namespace, say "applied", then sleep: a benchmark's stand-in,
to be stopped with SIGTERM or SIGKILL. Exits 143 on SIGTERM, like wirespeed."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from tune_lab import lab_changes

from wirespeed.cli.exit import Terminated, raise_on_sigterm
from wirespeed.hosts.netns import NetnsHost
from wirespeed.tune import Journal, tuned


def main(db: str, namespace: str) -> int:
    raise_on_sigterm()
    host = NetnsHost(namespace)
    try:
        with Journal.open(Path(db)) as journal, tuned(host, lab_changes(host), journal):
            print("applied", flush=True)
            time.sleep(120)
    except Terminated:
        return 143
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
