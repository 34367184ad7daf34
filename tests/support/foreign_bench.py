"""A bench of real machines, built by hand as a user would: namespaces standing for an
OpenWrt-like router, a workstation and a PC, wired with plain `ip`, `tc` and `nft`
commands (nothing of wirespeed's lab), reached only over SSH.

    this machine (root namespace): wirespeed, nothing of the bench's
        │  SSH through ProxyCommand `ip netns exec <pc> busybox nc %h %p`:
        │  every login starts on the PC, as from a laptop on the router's LAN
    ┌───┴────────────────── pc ──────────────────────┐
    │ OpenSSH sshd on 192.168.7.50:22 (login: pc)    │
    │ porta 192.168.7.50/24, default via .1          │
    │ [portb 198.51.100.3/24 with pc_wan_port; sshd  │
    │  there too, login: pc-wan]                     │
    └───┬───────────────────────────────────┬────────┘
        │ gbe veth (port A)                  │ gbe veth (port B), optional
    ┌───┴─────────── router ───────────┐    │
    │ lan 192.168.7.1/24               │    │
    │ dropbear; root's shell busybox   │    │
    │   sh; /usr/bin busybox + iperf   │    │
    │ nft: masquerade LAN → WAN;       │    │
    │   dnat WAN udp/tcp 5800-5899 →   │    │
    │   192.168.7.50; limit N/second   │    │
    │   (25 ms burst) on all forwarded │    │
    │ wan 198.51.100.1/24              │    │
    └───┬──────────────────────────────┘    │
        │ gbe veth                           │
    ┌───┴───── wan switch: br0, a plain bridge ┴──┐
    └───┬─────────────────────────────────────────┘
        │ gbe veth
    ┌───┴────────── workstation ──────────┐
    │ OpenSSH sshd on 198.51.100.2:22     │
    │ eth0 198.51.100.2/24, no route to   │
    │ the LAN (hidden behind NAT)         │
    └─────────────────────────────────────┘

Every link is a veth pair shaped as gigabit Ethernet on both ends (tbf rate 1gbit,
overhead 24: 941.5 Mbit/s of TCP goodput at MTU 1500, LIMITS.md) with the offloads off;
`link_mbit=100` makes them Fast Ethernet. `tunnel_tools=True` gives the router what
OpenWrt's VPN packages install (openvpn, wg, wireguard-go in its /usr/bin).

The router is a device, not a test: it is never told anything (no key, no flag, no
file of wirespeed's); it runs dropbear in a private mount namespace in which /usr/bin
holds busybox's applets plus iperf and iperf3, and root's login shell is busybox sh.
The workstation and the PC run Debian's OpenSSH server with a config of their own (port
22 in their namespace, never the system's sshd). Keys (host keys and the client's) are
made per bench in a temporary directory, with a known_hosts and an ssh_config file that
name the hosts `pc`, `router` and `workstation` for `wirespeed --ssh-config`.

With `root_ports=True`, two more gigabit veths stand for this PC's own two NICs: `port_a`
and `port_b`, in this machine's namespace (down and bare), cabled to a second port of the
router's LAN (`lan2`; the router's LAN becomes the bridge br-lan of `lan` and `lan2`, with
192.168.7.1, as OpenWrt's) and to the WAN switch; a plan names them with `port:`, and
the ssh_config gains the router by its LAN address, reached through port A. With
`cpu_board="r4s"`, the router's /sys/devices/system/cpu is a copy of that board's
captured tree (fake_cpus.py), bind-mounted in dropbear's mount namespace: CPU variants
write there, never to this machine's CPUs.

`ForeignBench.build()` removes whatever it built if building fails; `down()` stops
every process in the bench's namespaces (by PID), deletes them and the directory.
Names are unique per test process: `fb<pid>-<n>-pc` etc.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

LAN_PREFIX = "192.168.7"
WAN_PREFIX = "198.51.100"
ROUTER_LAN = f"{LAN_PREFIX}.1"
PC_LAN = f"{LAN_PREFIX}.50"
ROUTER_WAN = f"{WAN_PREFIX}.1"
WORKSTATION = f"{WAN_PREFIX}.2"
PC_WAN = f"{WAN_PREFIX}.3"
# The router's port forward, as a home router's: WAN udp/tcp to the PC on the LAN.
DEFAULT_FORWARD = (5800, 5899)
# What iperf's and iperf3's TCP goodput can be at most on gigabit Ethernet, MTU 1500.
TCP_CEILING_BPS = 941.48e6

_serial = itertools.count(1)

# dropbear as OpenWrt runs it, in a mount namespace of its own where /usr/bin (and so
# /bin) holds busybox's applets plus iperf: $1 the device's directory, $2 its address.
_ROUTER_SCRIPT = """\
set -e
mount --bind /usr/bin "$1/usr-bin"
mount --bind "$1/passwd" /etc/passwd
mount --bind "$1/shells" /etc/shells
mount --bind "$1/empty" /usr/local
mount --bind "$1/bin" /usr/bin
if [ -n "$3" ]; then mount --bind "$3" /sys/devices/system/cpu; fi
exec /usr/sbin/dropbear -F -E -s -g -p "$2:22" -r "$1/host_key" -P "$1/dropbear.pid"
"""

_SSHD_CONFIG = """\
{listen}
HostKey {directory}/host_key
PidFile {directory}/sshd.pid
AuthorizedKeysFile {authorized}
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
AllowTcpForwarding no
X11Forwarding no
"""


def _run(argv: Sequence[str], stdin: str | None = None) -> str:
    done = subprocess.run(
        list(argv), input=stdin, capture_output=True, text=True, timeout=30, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.strip()}")
    return done.stdout


def ensure_openssh_server() -> None:
    """Debian's OpenSSH server, installed if missing (its service is never started)."""
    if not Path("/usr/sbin/sshd").exists():
        subprocess.run(
            ["apt-get", "install", "-y", "openssh-server"],
            env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
            capture_output=True,
            timeout=600,
            check=True,
        )
    # sshd's privilege separation directory, which the package's service would make.
    Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)


@dataclass
class ForeignBench:
    """The bench's names, addresses and files; see the module's drawing."""

    prefix: str
    directory: Path
    limit_pps: int | None = None
    forward: tuple[int, int] | None = DEFAULT_FORWARD
    pc_wan_port: bool = False
    # This machine's own ports (root namespace) cabled to the router's LAN and the WAN
    # switch: with_root_ports().
    root_ports: bool = False
    # A CPU tree (fake_cpus.py) the router sees as its /sys/devices/system/cpu.
    cpu_tree: Path | None = None
    tunnel_tools: bool = False  # openvpn, wg and wireguard-go in the router's /usr/bin
    link_mbit: int = 1000  # every link's rate: 100 for Fast Ethernet
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)
    namespaces: list[str] = field(default_factory=list)

    # -- names ------------------------------------------------------------------------

    @property
    def pc(self) -> str:
        return f"{self.prefix}-pc"

    @property
    def router(self) -> str:
        return f"{self.prefix}-rt"

    @property
    def switch(self) -> str:
        return f"{self.prefix}-sw"

    @property
    def workstation(self) -> str:
        return f"{self.prefix}-ws"

    @property
    def pc_addresses(self) -> tuple[str, ...]:
        return (PC_LAN, PC_WAN) if self.pc_wan_port else (PC_LAN,)

    @property
    def ssh_config(self) -> Path:
        return self.directory / "ssh_config"

    @property
    def client_key(self) -> Path:
        return self.directory / "client_key"

    @property
    def known_hosts(self) -> Path:
        return self.directory / "known_hosts"

    # -- building ---------------------------------------------------------------------

    @classmethod
    def build(
        cls,
        *,
        limit_pps: int | None = None,
        forward: tuple[int, int] | None = DEFAULT_FORWARD,
        pc_wan_port: bool = False,
        root_ports: bool = False,
        cpu_board: str | None = None,
        tunnel_tools: bool = False,
        link_mbit: int = 1000,
    ) -> ForeignBench:
        """root_ports: see with_root_ports(); cpu_board: a board of tests/fixtures/boards
        whose CPUs the router shows (fake_cpus.py), e.g. "r4s"."""
        ensure_openssh_server()
        prefix = f"fb{os.getpid()}-{next(_serial)}"
        directory = Path(tempfile.mkdtemp(prefix=f"{prefix}-"))
        bench = cls(
            prefix,
            directory,
            limit_pps,
            forward,
            pc_wan_port,
            root_ports=root_ports,
            tunnel_tools=tunnel_tools,
            link_mbit=link_mbit,
        )
        try:
            if cpu_board is not None:
                from support.fake_cpus import board_cpu_tree

                bench.cpu_tree = board_cpu_tree(cpu_board, directory / "router-cpu")
            bench._wire()
            if root_ports:
                bench._wire_root_ports()
            bench._keys()
            bench._start_router()
            bench._start_sshd("pc", bench.pc, *bench.pc_addresses)
            bench._start_sshd("workstation", bench.workstation, WORKSTATION)
            bench._write_ssh_config()
            bench._wait_listening()
        except BaseException:
            bench.down()
            raise
        return bench

    def _netns(self, name: str) -> None:
        self.namespaces.append(name)  # before: a half-made one is removed too
        _run(["ip", "netns", "add", name])
        _run(["ip", "-n", name, "link", "set", "lo", "up"])

    def _veth(self, left: tuple[str, str], right: tuple[str, str]) -> None:
        """A gigabit link: a veth pair made inside the first namespace (no name ever
        exists in the root namespace), both ends shaped."""
        (left_ns, left_if), (right_ns, right_if) = left, right
        _run([
            "ip", "-n", left_ns, "link", "add", left_if, "type", "veth",
            "peer", "name", right_if, "netns", right_ns,
        ])  # fmt: skip
        for namespace, interface in (left, right):
            _run([
                "ip", "netns", "exec", namespace, "ethtool", "-K", interface,
                "tso", "off", "gso", "off", "gro", "off",
            ])  # fmt: skip
            # 2 ms of burst, 20 ms of queue; overhead 24 and mpu 84 make it count wire
            # bytes (FCS, preamble, inter-frame gap) as an Ethernet port does.
            burst = self.link_mbit * 250
            _run([
                "tc", "-n", namespace, "qdisc", "replace", "dev", interface, "root", "tbf",
                "rate", f"{self.link_mbit}mbit", "burst", str(burst), "limit", str(burst * 10),
                "overhead", "24", "mpu", "84",
            ])  # fmt: skip
            _run(["ip", "-n", namespace, "link", "set", interface, "up"])

    # -- this machine's own ports (root_ports) -----------------------------------------

    @property
    def port_a(self) -> str:
        """This machine's port cabled to the router's LAN (a second port of its switch)."""
        return f"{self.prefix}pa"

    @property
    def port_b(self) -> str:
        """This machine's port cabled to the WAN switch."""
        return f"{self.prefix}pb"

    def _wire_root_ports(self) -> None:
        """Two ports of this machine, as the NICs of a PC with two: in the root namespace,
        down and bare as a user leaves an unused port, each a gigabit veth whose far end
        is a port of the router's LAN switch (br-lan: `lan`, to the PC namespace that
        reaches the router over SSH, and `lan2`) or of the WAN switch. The router's LAN
        address moves from `lan` to br-lan, as OpenWrt has it."""
        for port, (namespace, peer) in (
            (self.port_a, (self.router, "lan2")),
            (self.port_b, (self.switch, "pcb")),
        ):
            _run(["ip", "link", "add", port, "type", "veth", "peer", "name", peer,
                  "netns", namespace])  # fmt: skip
            _run(["ethtool", "-K", port, "tso", "off", "gso", "off", "gro", "off"])
            _run(["ip", "netns", "exec", namespace, "ethtool", "-K", peer,
                  "tso", "off", "gso", "off", "gro", "off"])  # fmt: skip
            # Shaped on the bench's side only: a port's qdisc does not survive its move
            # into a namespace, and every direction crosses a shaped side anyway.
            burst = self.link_mbit * 250
            _run(["tc", "-n", namespace, "qdisc", "replace", "dev", peer, "root", "tbf",
                  "rate", f"{self.link_mbit}mbit", "burst", str(burst), "limit",
                  str(burst * 10), "overhead", "24", "mpu", "84"])  # fmt: skip
            _run(["ip", "-n", namespace, "link", "set", peer, "up"])
        _run(["ip", "-n", self.switch, "link", "set", "pcb", "master", "br0"])
        router = ["ip", "-n", self.router]
        _run([*router, "link", "add", "br-lan", "type", "bridge"])
        _run([*router, "addr", "del", f"{ROUTER_LAN}/24", "dev", "lan"])
        for member in ("lan", "lan2"):
            _run([*router, "link", "set", member, "master", "br-lan"])
        _run([*router, "addr", "add", f"{ROUTER_LAN}/24", "dev", "br-lan"])
        _run([*router, "link", "set", "br-lan", "up"])

    def _address(self, namespace: str, interface: str, address: str) -> None:
        _run(["ip", "-n", namespace, "addr", "add", f"{address}/24", "dev", interface])

    def _wire(self) -> None:
        for name in (self.pc, self.router, self.switch, self.workstation):
            self._netns(name)
        self._veth((self.pc, "porta"), (self.router, "lan"))
        self._veth((self.router, "wan"), (self.switch, "rt"))
        self._veth((self.workstation, "eth0"), (self.switch, "ws"))
        _run(["ip", "-n", self.switch, "link", "add", "br0", "type", "bridge"])
        ports = ["rt", "ws"]
        if self.pc_wan_port:
            self._veth((self.pc, "portb"), (self.switch, "pc"))
            self._address(self.pc, "portb", PC_WAN)
            ports.append("pc")
        for port in ports:
            _run(["ip", "-n", self.switch, "link", "set", port, "master", "br0"])
        _run(["ip", "-n", self.switch, "link", "set", "br0", "up"])
        self._address(self.pc, "porta", PC_LAN)
        _run(["ip", "-n", self.pc, "route", "add", "default", "via", ROUTER_LAN])
        self._address(self.router, "lan", ROUTER_LAN)
        self._address(self.router, "wan", ROUTER_WAN)
        self._address(self.workstation, "eth0", WORKSTATION)
        _run(["ip", "netns", "exec", self.router, "sysctl", "-qw", "net.ipv4.ip_forward=1"])
        _run(["ip", "netns", "exec", self.router, "nft", "-f", "-"], stdin=self.router_ruleset())

    def router_ruleset(self) -> str:
        """The router's firewall as `nft -f` reads it, in its own namespace."""
        lines = [
            f"table ip {self.prefix} {{",
            "  chain prerouting {",
            "    type nat hook prerouting priority dstnat;",
        ]
        if self.forward is not None:
            first, last = self.forward
            lines.append(
                f'    iifname "wan" ip daddr {ROUTER_WAN} meta l4proto {{ tcp, udp }} '
                f"th dport {first}-{last} dnat to {PC_LAN}"
            )
        lines += [
            "  }",
            "  chain postrouting {",
            "    type nat hook postrouting priority srcnat;",
            '    oifname "wan" masquerade',
            "  }",
            "  chain forward {",
            "    type filter hook forward priority filter; policy accept;",
        ]
        if self.limit_pps is not None:
            # A CPU's limit: both directions together. The burst, 25 ms of packets, is
            # what a NIC's receive ring of a few hundred descriptors holds while the
            # CPU catches up; it lets a 2 s trial pass at most 1.25 % above the limit.
            burst = max(5, self.limit_pps // 40)
            lines.append(f"    limit rate over {self.limit_pps}/second burst {burst} packets drop")
        lines += ["  }", "}"]
        return "\n".join(lines) + "\n"

    def _keys(self) -> None:
        _run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(self.client_key)])
        (self.directory / "authorized_keys").write_text(Path(f"{self.client_key}.pub").read_text())

    def _start_router(self) -> None:
        root = self.directory / "router"
        for sub in ("bin", "usr-bin", "empty", "home/.ssh"):
            (root / sub).mkdir(parents=True, mode=0o755)
        os.chmod(root / "home" / ".ssh", 0o700)
        busybox = shutil.which("busybox")
        assert busybox is not None
        real_bin = root / "usr-bin"  # the real /usr/bin, reachable under the device's
        for applet in _run([busybox, "--list"]).split():
            (root / "bin" / applet).symlink_to(real_bin / os.path.basename(busybox))
        for program in ("iperf", "iperf3"):
            found = shutil.which(program)
            assert found is not None and os.path.dirname(found) == "/usr/bin", program
            (root / "bin" / program).unlink(missing_ok=True)
            (root / "bin" / program).symlink_to(real_bin / program)
        if self.tunnel_tools:
            _add_tunnel_tools(root / "bin", real_bin)
        (root / "passwd").write_text(f"root:x:0:0:root:{root / 'home'}:/bin/sh\n")
        (root / "shells").write_text("/bin/sh\n/bin/ash\n")
        shutil.copy(self.directory / "authorized_keys", root / "home/.ssh/authorized_keys")
        os.chmod(root / "home/.ssh/authorized_keys", 0o600)
        _run(["dropbearkey", "-t", "ed25519", "-f", str(root / "host_key")])
        public = _run(["dropbearkey", "-y", "-f", str(root / "host_key")])
        line = next(word for word in public.splitlines() if word.startswith("ssh-"))
        self._trust(("router", ROUTER_LAN), " ".join(line.split()[:2]))
        self._spawn(
            [
                "ip", "netns", "exec", self.router,
                "unshare", "--mount", "--propagation", "private",
                "/bin/sh", "-c", _ROUTER_SCRIPT, "sh", str(root), ROUTER_LAN,
                str(self.cpu_tree or ""),
            ],
            root / "dropbear.log",
        )  # fmt: skip

    def _start_sshd(self, name: str, namespace: str, *addresses: str) -> None:
        home = self.directory / name
        home.mkdir(mode=0o700)
        _run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(home / "host_key")])
        public = Path(f"{home / 'host_key'}.pub").read_text().split()
        self._trust((name, *addresses), " ".join(public[:2]))
        config = home / "sshd_config"
        config.write_text(
            _SSHD_CONFIG.format(
                listen="\n".join(f"ListenAddress {address}:22" for address in addresses),
                directory=home,
                authorized=self.directory / "authorized_keys",
            )
        )
        self._spawn(
            ["ip", "netns", "exec", namespace, "/usr/sbin/sshd", "-D", "-e", "-f", str(config)],
            home / "sshd.log",
        )

    def _spawn(self, argv: list[str], log: Path) -> None:
        with log.open("wb") as out:
            self.processes.append(
                subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=out)
            )

    def _trust(self, names: tuple[str, ...], key: str) -> None:
        with self.known_hosts.open("a") as out:
            out.write(f"{','.join(names)} {key}\n")

    def _write_ssh_config(self) -> None:
        entries = []
        aliases = [("pc", PC_LAN), ("router", ROUTER_LAN), ("workstation", WORKSTATION)]
        if self.pc_wan_port:
            # The PC's second port, as a user names it: the same machine, logged in to
            # by its other address.
            aliases.append(("pc-wan", PC_WAN))
        for alias, address in aliases:
            entries.append(
                f"Host {alias}\n"
                f"  HostName {address}\n"
                "  User root\n"
                "  Port 22\n"
                f"  IdentityFile {self.client_key}\n"
                f"  UserKnownHostsFile {self.known_hosts}\n"
                f"  ProxyCommand ip netns exec {self.pc} busybox nc %h %p\n"
            )
        if self.root_ports:
            # The router by its LAN address, as the user of a PC with two ports reaches
            # it: through port A (no ProxyCommand; wirespeed logs in from the namespace
            # it moved the port into).
            entries.append(
                f"Host {ROUTER_LAN}\n"
                "  User root\n"
                f"  IdentityFile {self.client_key}\n"
                f"  UserKnownHostsFile {self.known_hosts}\n"
            )
        self.ssh_config.write_text("\n".join(entries))

    def _wait_listening(self) -> None:
        """Until each SSH server answers with its banner, from the PC."""
        for address in (*self.pc_addresses, ROUTER_LAN, WORKSTATION):
            deadline = time.monotonic() + 10
            while True:
                banner = subprocess.run(
                    ["ip", "netns", "exec", self.pc, "busybox", "nc", "-w", "1", address, "22"],
                    input=b"",
                    capture_output=True,
                    timeout=10,
                    check=False,
                ).stdout
                if banner.startswith(b"SSH-"):
                    break
                if time.monotonic() > deadline:
                    raise RuntimeError(f"no SSH server answers at {address}: {self.logs()}")
                for process in self.processes:
                    if process.poll() is not None:
                        raise RuntimeError(f"an SSH server exited: {self.logs()}")
                time.sleep(0.05)

    def logs(self) -> str:
        return "; ".join(
            f"{log.parent.name}: {log.read_text(errors='replace').strip()}"
            for log in sorted(self.directory.glob("*/*.log"))
        )

    # -- tearing down -----------------------------------------------------------------

    def down(self) -> None:
        """Stop every process in the bench's namespaces, delete them and the files."""
        for process in self.processes:
            with contextlib.suppress(ProcessLookupError):
                process.terminate()
        for namespace in self.namespaces:
            for pid in _pids_in(namespace):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        for process in self.processes:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=5)
        for namespace in self.namespaces:
            subprocess.run(["ip", "netns", "del", namespace], capture_output=True, check=False)
        if self.root_ports:
            # Wherever a run left them (moved into a namespace of wirespeed's, or here):
            # their peers went with the bench's namespaces, and a veth goes with its peer.
            for port in (self.port_a, self.port_b):
                for namespace in (f"{port}-port",):
                    for pid in _pids_in(namespace):
                        with contextlib.suppress(ProcessLookupError):
                            os.kill(pid, signal.SIGKILL)
                    subprocess.run(
                        ["ip", "netns", "del", namespace], capture_output=True, check=False
                    )
                subprocess.run(["ip", "link", "del", port], capture_output=True, check=False)
        shutil.rmtree(self.directory, ignore_errors=True)


# What OpenWrt's openvpn-openssl, wireguard-tools and wireguard-go packages install (the
# router's kernel, this machine's, has no wireguard module: wireguard-go stands in).
TUNNEL_TOOLS = ("openvpn", "wg", "wireguard-go")


def _add_tunnel_tools(device_bin: Path, real_bin: Path) -> None:
    """The tunnel programs in the router's /usr/bin: this machine's Debian ones, each
    reached where the device sees it (/usr/bin under real_bin, /usr/sbin as it is)."""
    for program in TUNNEL_TOOLS:
        found = shutil.which(program)
        assert found is not None, f"{program} is not installed on this machine"
        where = Path(found)
        if where.parent == Path("/usr/bin"):
            where = real_bin / where.name
        (device_bin / program).unlink(missing_ok=True)
        (device_bin / program).symlink_to(where)


def _pids_in(namespace: str) -> list[int]:
    done = subprocess.run(
        ["ip", "netns", "pids", namespace], capture_output=True, text=True, check=False
    )
    return [int(word) for word in done.stdout.split()]
