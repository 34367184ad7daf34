"""A device's identity and the configuration that changes its results, read in one call
with POSIX sh and busybox (an OpenWrt router has nothing else): board, SoC, kernel,
distribution and release, each NIC's driver, driver version, firmware, offloads, RPS/XPS
masks and IRQ affinities, the qdiscs, the CPU governor, OpenWrt's flow offloading, the
firewall's rule count and the conntrack entries. Stored with every run (provenance), in
a bundle's identity, and shown beside compared figures when they differ.

IDENTITY_SCRIPT prints files and command outputs as sections; parse_identity makes the
facts of them (a pure function). The script reads under a root given as $1 ("" on a
device), so tests run it with busybox against captured /proc + /sys + /etc trees; what
needs a live kernel (ethtool, tc, nft) it asks only when the root is "/".
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from wirespeed.errors import WirespeedError
from wirespeed.facts.cpus import parse_cpuinfo
from wirespeed.hosts.base import Host

# Each section starts with a line "@@ KIND NAME"; its lines follow. Values travel as
# arguments or through files, never inside the script text.
IDENTITY_SCRIPT = r"""
R="$1"
sect() { printf '@@ %s\n' "$*"; }
file() { [ -r "$R$2" ] || return 0; sect file "$1"; tr '\000' '\n' < "$R$2" 2>/dev/null; echo; }
file model /proc/device-tree/model
[ -r "$R/proc/device-tree/model" ] || file model /sys/firmware/devicetree/base/model
file compatible /proc/device-tree/compatible
file dmi_vendor /sys/class/dmi/id/sys_vendor
file dmi_product /sys/class/dmi/id/product_name
file openwrt_release /etc/openwrt_release
file os_release /etc/os-release
file osrelease /proc/sys/kernel/osrelease
file cpuinfo /proc/cpuinfo
file conntrack /proc/sys/net/netfilter/nf_conntrack_count
file interrupts /proc/interrupts
if [ -r "$R/etc/config/firewall" ]; then
  sect file firewall_config; grep flow_offloading "$R/etc/config/firewall"; echo
fi
for g in "$R"/sys/devices/system/cpu/cpufreq/policy*/scaling_governor; do
  [ -r "$g" ] || continue
  p=${g%/scaling_governor}; sect governor "${p##*/}"; cat "$g"
done
for irq in "$R"/proc/irq/*/smp_affinity_list; do
  [ -r "$irq" ] || continue
  n=${irq%/smp_affinity_list}; sect affinity "${n##*/}"; cat "$irq"
done
for n in "$R"/sys/class/net/*; do
  i=${n##*/}
  [ "$i" = lo ] && continue
  [ -e "$n/device" ] || continue
  sect nic "$i"
  d=$(readlink "$n/device/driver" 2>/dev/null); d=${d##*/}
  echo "driver=$d"
  v="$R/sys/module/$d/version"
  [ -n "$d" ] && [ -r "$v" ] && echo "driver_version=$(cat "$v")"
  for q in "$n"/queues/rx-*/rps_cpus "$n"/queues/tx-*/xps_cpus; do
    [ -r "$q" ] || continue
    v=$(cat "$q" 2>/dev/null) || continue
    qq=${q%/*}; echo "mask ${qq##*/} ${q##*/} $v"
  done
  if [ -z "$R" ] || [ "$R" = / ]; then
    command -v ethtool >/dev/null 2>&1 && {
      ethtool -i "$i" 2>/dev/null | sed 's/^/info /'
      ethtool -k "$i" 2>/dev/null | sed 's/^/offload /'
    }
  fi
done
if [ -z "$R" ] || [ "$R" = / ]; then
  command -v tc >/dev/null 2>&1 && { sect qdiscs; tc qdisc show 2>/dev/null; }
  if command -v nft >/dev/null 2>&1; then
    sect nft; nft -a list ruleset 2>/dev/null | grep -c '# handle [0-9]*$'
  elif command -v iptables-save >/dev/null 2>&1; then
    sect iptables; iptables-save 2>/dev/null | grep -c '^-A'
  fi
fi
exit 0
"""

_HEADER = re.compile(r"^@@ (\S+)(?: (.*))?$")
_KEY_VALUE = re.compile(r"""^([A-Z_]+)=["']?(.*?)["']?$""")
# SoCs told apart by their cores alone, where no device tree names them.
_SOC_BY_CORES = {
    (("Cortex-A53", 4), ("Cortex-A72", 2)): "RK3399",
    (("Cortex-A55", 4), ("Cortex-A76", 4)): "RK3588",
    (("Cortex-A53", 4), ("Cortex-A73", 4)): "Amlogic S922X",
}
# ethtool -k features people tune for routing; the rest are in the raw list.
_OFFLOADS = {
    "rx-checksumming": "rx-csum",
    "tx-checksumming": "tx-csum",
    "scatter-gather": "sg",
    "tcp-segmentation-offload": "tso",
    "generic-segmentation-offload": "gso",
    "generic-receive-offload": "gro",
    "large-receive-offload": "lro",
    "hw-tc-offload": "hw-tc",
}


def _sections(text: str) -> list[tuple[str, str, list[str]]]:
    found: list[tuple[str, str, list[str]]] = []
    for line in text.splitlines():
        header = _HEADER.match(line)
        if header:
            found.append((header[1], header[2] or "", []))
        elif found:
            found[-1][2].append(line)
    return found


def _key_values(lines: list[str]) -> dict[str, str]:
    values = {}
    for line in lines:
        match = _KEY_VALUE.match(line.strip())
        if match:
            values[match[1]] = match[2]
    return values


def _first(lines: list[str]) -> str | None:
    return next((line.strip() for line in lines if line.strip()), None)


def soc_guess(compatible: list[str], cpuinfo: str | None) -> str | None:
    """The SoC: the device tree's last compatible string ("rockchip,rk3399" → RK3399),
    else a guess from the cores (4 A53 and 2 A72: the RK3399), else the cores themselves
    ("4 x Cortex-A53" with a multiplication sign), or x86's model name."""
    socs = [c for c in (line.strip() for line in compatible) if "," in c]
    if socs:
        return socs[-1].split(",", 1)[1].upper()
    entries = parse_cpuinfo(cpuinfo or "")
    cores = Counter(e.core for e in entries if e.core)
    if not cores:
        return None
    key = tuple(sorted(cores.items()))
    if key in _SOC_BY_CORES:
        return f"{_SOC_BY_CORES[key]} (guessed from its cores)"
    return " + ".join(f"{n} \N{MULTIPLICATION SIGN} {core}" for core, n in sorted(cores.items()))


def parse_identity(text: str) -> dict[str, Any]:
    """The script's output as JSON values: only what was found (a key left out was not
    there to read)."""
    files: dict[str, list[str]] = {}
    governors: dict[str, str] = {}
    affinity: dict[str, str] = {}
    nics: dict[str, dict[str, Any]] = {}
    qdiscs: list[str] = []
    rules: int | None = None
    for kind, name, lines in _sections(text):
        if kind == "file":
            files[name] = lines
        elif kind == "governor" and _first(lines):
            governors[name] = str(_first(lines))
        elif kind == "affinity" and _first(lines):
            affinity[name] = str(_first(lines))
        elif kind == "nic":
            nics[name] = _nic(lines)
        elif kind == "qdiscs":
            qdiscs = [line.strip() for line in lines if line.strip()]
        elif kind in ("nft", "iptables"):
            first = _first(lines)
            rules = int(first) if first and first.isdigit() else None
    found: dict[str, Any] = {}
    model = _first(files.get("model", []))
    dmi = " ".join(
        v for v in (_first(files.get("dmi_vendor", [])), _first(files.get("dmi_product", []))) if v
    )
    if model or dmi:
        found["board"] = model or dmi
    cpuinfo = "\n".join(files["cpuinfo"]) if "cpuinfo" in files else None
    soc = soc_guess(files.get("compatible", []), cpuinfo)
    if soc:
        found["soc"] = soc
    kernel = _first(files.get("osrelease", []))
    if kernel:
        found["kernel"] = kernel
    openwrt = _key_values(files.get("openwrt_release", []))
    os_release = _key_values(files.get("os_release", []))
    distribution = openwrt.get("DISTRIB_DESCRIPTION") or os_release.get("PRETTY_NAME")
    if distribution:
        found["distribution"] = distribution
    release = openwrt.get("DISTRIB_RELEASE") or os_release.get("VERSION_ID")
    if release:
        found["release"] = release
    for key, field in (("DISTRIB_REVISION", "revision"), ("DISTRIB_TARGET", "target")):
        if openwrt.get(key):
            found[field] = openwrt[key]
    if governors:
        values = set(governors.values())
        found["governor"] = (
            values.pop()
            if len(values) == 1
            else ", ".join(f"{p} {g}" for p, g in sorted(governors.items()))
        )
    interrupts = files.get("interrupts", [])
    for name, nic in nics.items():
        irqs = {
            number: affinity[number] for number in _irqs_of(interrupts, name) if number in affinity
        }
        if irqs:
            nic["irq_affinity"] = irqs
    if nics:
        found["nics"] = nics
    if qdiscs:
        found["qdiscs"] = qdiscs
    flow = _flow_offloading(files.get("firewall_config"))
    if flow:
        found["flow_offloading"] = flow
    if rules is not None:
        found["firewall_rules"] = rules
    conntrack = _first(files.get("conntrack", []))
    if conntrack and conntrack.isdigit():
        found["conntrack"] = int(conntrack)
    return found


def _nic(lines: list[str]) -> dict[str, Any]:
    nic: dict[str, Any] = {}
    masks: dict[str, str] = {}
    offloads: dict[str, str] = {}
    for line in lines:
        if line.startswith("driver="):
            if line[7:]:
                nic["driver"] = line[7:]
        elif line.startswith("driver_version="):
            nic["driver_version"] = line[15:]
        elif line.startswith("mask "):
            _, queue, kind, value = [*line.split(" ", 3), "", "", ""][:4]
            masks[f"{kind.removesuffix('_cpus')} {queue}"] = value
        elif line.startswith("info "):
            key, _, value = line[5:].partition(":")
            value = value.strip()
            if key == "firmware-version" and value and value != "N/A":
                nic["firmware"] = value
            elif key == "version" and value and "driver_version" not in nic:
                nic["driver_version"] = value
        elif line.startswith("offload "):
            key, _, value = line[8:].partition(":")
            if key.strip() in _OFFLOADS:
                offloads[_OFFLOADS[key.strip()]] = value.strip().split(" ")[0]
    if masks:
        nic["steering"] = masks
    if offloads:
        nic["offloads"] = offloads
    return nic


def _irqs_of(interrupts: list[str], interface: str) -> list[str]:
    """The IRQs /proc/interrupts names after the interface (eth0, eth0-rx-0)."""
    found = []
    for line in interrupts:
        number, colon, rest = line.strip().partition(":")
        if colon and number.isdigit():
            names = rest.split()
            if any(n.rstrip(",") == interface or n.startswith(f"{interface}-") for n in names):
                found.append(number)
    return found


def _flow_offloading(lines: list[str] | None) -> str | None:
    """OpenWrt's fw4 (or fw3) flow offloading: "hardware", "software" or "off"."""
    if lines is None:
        return None
    on = {
        key: value
        for key, value in (
            (m[1], m[2])
            for m in (
                re.search(r"option\s+(flow_offloading(?:_hw)?)\s+'?(\d)'?", line) for line in lines
            )
            if m
        )
    }
    if on.get("flow_offloading_hw") == "1":
        return "hardware"
    if on.get("flow_offloading") == "1":
        return "software"
    return "off"


def read_identity(host: Host, root: str = "") -> dict[str, Any]:
    """The host's identity, in one call of sh; {} when it could not be read."""
    try:
        done = host.run(["sh", "-c", IDENTITY_SCRIPT, "sh", root], timeout=20.0)
    except (OSError, TimeoutError, ValueError, WirespeedError):
        return {}
    return parse_identity(done.stdout) if done.returncode == 0 else {}
