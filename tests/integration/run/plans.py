"""Plans of the run tests, as text: the runner reads them like any plan file."""

from __future__ import annotations

# Both ends on this machine, over loopback: runs without root.
LOOPBACK = """
title: loopback
hosts:
  me: {address: 127.0.0.1}
paths:
  - {name: lo, topology: endpoint, client: me, server: me, dut: me}
defaults: {duration: 1}
tests:
  - {id: "1", name: iperf3 TCP, tool: iperf3}
  - {id: "2", name: iperf2 UDP 100M, tool: iperf2, protocol: udp, rate: 100M}
  - {id: "3", name: iperf2 TCP both ways, tool: iperf2, direction: bidir}
"""

# The seed matrix's first and fifth tests on the lab's bridge path.
LAB_BRIDGE = """
title: lab bridge
lab: {link: gbe}
paths:
  - {name: Br0, topology: bridge}
defaults: {tool: iperf2, duration: 5}
tests:
  - {id: "1", name: "TCP, default window"}
  - {id: "5", name: UDP 1000M, protocol: udp, rate: 1000M}
"""

# Long enough to be interrupted in the middle of its second trial.
LAB_SLOW = """
title: interrupted
lab: {link: gbe}
paths:
  - {name: Br0, topology: bridge}
defaults: {tool: iperf3, duration: 2}
tests:
  - {id: "1", name: first}
  - {id: "2", name: second, duration: 30}
"""
