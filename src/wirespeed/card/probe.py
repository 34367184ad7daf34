"""Before a card runs: what its bench lacks and what its device is, asked of the hosts
themselves (over SSH where they are devices), from where the run will reach them.

A test whose program is missing is skipped with the package to install; the device's
facts become the card's facts lines and what `--tuned` decides from.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from wirespeed.errors import WirespeedError

if TYPE_CHECKING:
    from wirespeed.card.target import CardBench
    from wirespeed.facts.model import Facts
    from wirespeed.hosts.ssh_connection import SshSettings
    from wirespeed.plan import Plan


def probe(
    bench: CardBench,
    plan: Plan,
    ssh: SshSettings,
    db: str | None,
    *,
    warn: Callable[[str], None],
    say: Callable[[str], None],
) -> tuple[dict[str, str], tuple[str, ...], Facts | None]:
    """Before the run: the tests whose program is missing (the tunnels' on this machine,
    the benchmarks' on the device, asked over SSH where it is one, from where the run of
    `plan` will log in to it), and what the device is (its facts, as lines and as read)."""
    from wirespeed.card.availability import tool_skips
    from wirespeed.card.facts_lines import card_lines
    from wirespeed.facts import HostSource, TreeSource, collect
    from wirespeed.hosts.local import LocalHost

    local = LocalHost(name="this machine")
    tunnels = _tunnel_probe(bench, ssh, warn)
    if bench.device_ssh is None:
        skips = tool_skips(
            lambda p: local.which(p) is not None, "this machine", tunnels=bench.in_lab
        )
        skips |= tunnels
        try:
            facts = collect(TreeSource(Path("/"), where="this machine"), local)
        except (OSError, ValueError) as error:
            warn(f"this machine's facts could not be read ({error})")
            return skips, (), None
        return skips, card_lines(facts, nics=not bench.in_lab), facts
    from wirespeed.card.device_reach import device_reached
    from wirespeed.hosts.ssh import SshHost
    from wirespeed.hosts.ssh_target import SshTarget

    where = bench.device_ssh
    with device_reached(plan, where, ssh, db, say) as settings:
        device = SshHost(SshTarget.parse(where), settings, name=where)
        try:
            device.connect()
            skips = tool_skips(lambda p: device.which(p) is not None, where, tunnels=False)
            skips |= tunnels
            facts = collect(HostSource(device), device)
            return skips, card_lines(facts, nics=True), facts
        except WirespeedError:
            raise
        except Exception as error:  # the run logs in again and says it in its own words
            warn(f"{where}: could not ask what it is and has ({error})")
            return tunnels, (), None
        finally:
            device.close()


def _tunnel_probe(
    bench: CardBench, ssh: SshSettings, warn: Callable[[str], None]
) -> dict[str, str]:
    """A real bench's tunnels its ends cannot build (each end asked, over SSH where it is
    one, for the tools run/host_tunnel.py needs), each with the package to install; {}
    in the lab (this machine's tools: tool_skips) or where the card builds no tunnel."""
    ends = bench.tunnel_ends
    if ends is None:
        return {}
    from wirespeed.card.availability import TunnelEnd, tunnel_skips
    from wirespeed.hosts.local import LocalHost
    from wirespeed.hosts.ssh import SshHost
    from wirespeed.hosts.ssh_target import SshTarget
    from wirespeed.run.host_tunnel import WIREGUARD_MODULE

    here = LocalHost(name="this machine")
    asked: list[TunnelEnd] = []
    for name in dict.fromkeys(ends):
        entry = bench.hosts.get(name)
        login = entry.get("ssh") if isinstance(entry, dict) else None
        if not login:
            asked.append(
                TunnelEnd(
                    f"{name} (this machine)",
                    lambda p: here.which(p) is not None,
                    Path(WIREGUARD_MODULE).is_dir(),
                )
            )
            continue
        host = SshHost(SshTarget.parse(str(login)), ssh, name=name)
        where = f"{name} ({login})"
        try:
            host.connect()
            found = {
                program
                for program in ("openvpn", "wg", "ip", "wireguard-go")
                if host.which(program) is not None
            }
            module = host.run(["test", "-d", WIREGUARD_MODULE], timeout=15.0).returncode == 0
        except WirespeedError:
            raise
        except Exception as error:  # the run logs in again and says it in its own words
            warn(f"{where}: could not ask for its tunnel tools ({error})")
            continue
        finally:
            host.close()
        asked.append(TunnelEnd(where, found.__contains__, module))
    return tunnel_skips(asked, openssl_here=here.which("openssl") is not None)
