# ruff: noqa: E501, W291  (socket tables exactly as the kernel printed them)
"""Socket tables captured from a lab namespace with iperf3 -s -p 15302 and iperf -s -u
-p 15303 running (and a TIME_WAIT left by the lab's own probe)."""

from __future__ import annotations

from wirespeed.hosts.sockets import TCP_LISTEN, is_listening, listening, parse_proc_net
from wirespeed.model import Proto

TCP = """\
  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode                                                     
   0: 020113C6:9DB7 020112C6:920E 06 00000000:00000000 03:00001750 00000000     0        0 0 3 00000000ca999a54                                      
"""
TCP6 = """\
  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000000000000:3BC6 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 52425 1 00000000de74cc88 100 0 0 10 0
"""
UDP = """\
   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops            
 8383: 00000000:3BC7 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 52430 2 00000000e62014b8 0         
"""


def test_a_time_wait_row_decodes_addresses_in_kernel_byte_order() -> None:
    (entry,) = parse_proc_net(TCP)
    assert (entry.local_address, entry.local_port) == ("198.19.1.2", 40375)
    assert (entry.remote_address, entry.remote_port) == ("198.18.1.2", 37390)
    assert entry.state == 0x06


def test_iperf3_listens_on_the_ipv6_wildcard() -> None:
    (entry,) = parse_proc_net(TCP6)
    assert entry.local_address == "::"
    assert entry.local_port == 15302
    assert entry.state == TCP_LISTEN
    assert entry.inode == 52425


def test_listening_needs_the_listen_state_for_tcp_but_not_for_udp() -> None:
    assert is_listening(parse_proc_net(TCP6), 15302, Proto.TCP)
    assert not is_listening(parse_proc_net(TCP), 40375, Proto.TCP)  # TIME_WAIT
    assert is_listening(parse_proc_net(UDP), 15303, Proto.UDP)
    assert not is_listening(parse_proc_net(UDP), 15302, Proto.UDP)


def test_an_empty_table_has_no_rows() -> None:
    assert parse_proc_net(TCP.splitlines()[0]) == []


class _FakeProc:
    """The files a host would serve; a missing one is FileNotFoundError, as on Linux."""

    name = "fake"

    def __init__(self, files: dict[str, str]) -> None:
        self.files = files

    def read_file(self, path: str) -> str:
        if path not in self.files:
            raise FileNotFoundError(path)
        return self.files[path]


def test_listening_reads_both_tables_of_the_process_namespace() -> None:
    host = _FakeProc({"/proc/42/net/tcp": TCP, "/proc/42/net/tcp6": TCP6})
    assert listening(host, 42, 15302, Proto.TCP)  # type: ignore[arg-type]
    assert not listening(host, 43, 15302, Proto.TCP)  # type: ignore[arg-type]


def test_without_a_pid_the_host_own_tables_say_whether_a_port_is_taken() -> None:
    host = _FakeProc({"/proc/net/udp": UDP})
    assert listening(host, None, 15303, Proto.UDP)  # type: ignore[arg-type]
    assert not listening(host, None, 15303, Proto.TCP)  # type: ignore[arg-type]
