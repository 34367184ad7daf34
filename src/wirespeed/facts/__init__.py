"""What a machine is, for benchmarks and tuning: board, kernel, CPU clusters, NICs, the
IRQs that carry their packets and where those IRQs run.

    from wirespeed.facts import TreeSource, collect, render_text
    facts = collect(TreeSource(Path("tests/fixtures/boards/r4s")))
    facts.fastest_cluster.cpus            # (4, 5): the Cortex-A72s
    facts.nics[1].irqs[0].number          # 234: eth1's MSI
"""

from wirespeed.facts.collect import collect
from wirespeed.facts.model import Bus, Cluster, Facts, Irq, IrqLink, Nic, QueueMask, ThermalZone
from wirespeed.facts.read import FactSource, HostSource, TreeSource
from wirespeed.facts.render import FORMAT_NAME, FORMAT_VERSION, render_text, to_document, to_json

__all__ = [
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "Bus",
    "Cluster",
    "FactSource",
    "Facts",
    "HostSource",
    "Irq",
    "IrqLink",
    "Nic",
    "QueueMask",
    "ThermalZone",
    "TreeSource",
    "collect",
    "render_text",
    "to_document",
    "to_json",
]
