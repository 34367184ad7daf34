"""Where a boot script goes on each init system, and what runs it.

    openwrt   /usr/sbin/NAME                  the boot script
              /etc/init.d/NAME                a procd init script that runs it at boot
              /etc/hotplug.d/net/40-NAME      runs it for a network device added later
              /etc/rc.d/S95NAME               enabled: the link `/etc/init.d/NAME enable` makes
    systemd   /usr/local/sbin/NAME            the boot script
              /etc/systemd/system/NAME.service    a oneshot unit
              /etc/udev/rules.d/90-NAME.rules     runs it for a network device added later
              /etc/systemd/system/multi-user.target.wants/NAME.service
                                              enabled: the link `systemctl enable` makes

Enabling is a symbolic link made here rather than the system's command, which is what
those commands make (rc.common's enable, for a procd script with START=95 and no STOP;
systemctl's for WantedBy=multi-user.target): it works in an image tree under an install
root as on the device, and the journal removes exactly what was made.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from wirespeed.tune.keep import KeepError

DEFAULT_NAME = "wirespeed-tune"
_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")


class System(enum.StrEnum):
    OPENWRT = "openwrt"
    SYSTEMD = "systemd"


@dataclass(frozen=True)
class BootFile:
    path: str  # where it goes, from the device's /
    text: str
    mode: str  # for chmod
    what: str  # for people


@dataclass(frozen=True)
class Layout:
    system: System
    name: str
    files: tuple[BootFile, ...]
    link: str  # the link that enables it at boot
    link_to: str  # what the link points to, as the system's own command writes it
    enable_command: str  # the system's command that makes the same link

    @property
    def script(self) -> str:
        return self.files[0].path


def check_name(name: str) -> str:
    if not _NAME.fullmatch(name):
        raise KeepError(
            f"refused name {name!r}", hint="1-40 characters of a-z 0-9 _ -, first a letter or digit"
        )
    return name


def layout(system: System, name: str, script: str) -> Layout:
    check_name(name)
    if system is System.OPENWRT:
        return _openwrt(name, script)
    return _systemd(name, script)


def _late_device_note(name: str, worker: str) -> str:
    """What the hotplug hook (OpenWrt) or udev rule (systemd) says it is for."""
    return (
        f"# {name}: a network device that appears after boot (a USB NIC) gets its kept tuning\n"
        f"# too; {worker} skips an interface it keeps nothing for."
    )


def _openwrt(name: str, script: str) -> Layout:
    worker = f"/usr/sbin/{name}"
    init = f"""#!/bin/sh /etc/rc.common
# {name}: the tuning kept by `wirespeed tune keep`, set at every boot by {worker}.
# /etc/hotplug.d/net/40-{name} sets it on a network device that appears later.

START=95
USE_PROCD=1

start_service() {{
	{worker}
}}
"""
    hook = f"""{_late_device_note(name, worker)}
[ "$ACTION" = add ] && [ -n "$INTERFACE" ] && {worker} "$INTERFACE"
"""
    return Layout(
        System.OPENWRT,
        name,
        (
            BootFile(worker, script, "755", "the boot script"),
            BootFile(f"/etc/init.d/{name}", init, "755", "its procd init script"),
            BootFile(f"/etc/hotplug.d/net/40-{name}", hook, "644", "its hotplug hook"),
        ),
        link=f"/etc/rc.d/S95{name}",
        link_to=f"../init.d/{name}",
        enable_command=f"/etc/init.d/{name} enable",
    )


def _systemd(name: str, script: str) -> Layout:
    worker = f"/usr/local/sbin/{name}"
    unit = f"""[Unit]
Description=Tuning kept by wirespeed tune keep (IRQ affinity, packet steering)
After=network-pre.target
Before=network.target

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart={worker}
# Its lines reach the journal through logger already.
StandardError=null

[Install]
WantedBy=multi-user.target
"""
    rule = f"""{_late_device_note(name, worker)}
ACTION=="add", SUBSYSTEM=="net", RUN+="{worker} $name"
"""
    return Layout(
        System.SYSTEMD,
        name,
        (
            BootFile(worker, script, "755", "the boot script"),
            BootFile(f"/etc/systemd/system/{name}.service", unit, "644", "its oneshot unit"),
            BootFile(f"/etc/udev/rules.d/90-{name}.rules", rule, "644", "its udev rule"),
        ),
        link=f"/etc/systemd/system/multi-user.target.wants/{name}.service",
        link_to=f"/etc/systemd/system/{name}.service",
        enable_command=f"systemctl enable {name}.service",
    )
