"""Frame sizes on the wire: what a frame of RFC 2544's size costs, and what a UDP
generator must send to make one.

A frame is counted with its FCS and without preamble and inter-frame gap (RFC 2544):
64 .. 1518 bytes at MTU 1500. On the wire each frame also takes 20 bytes of preamble,
start delimiter and gap (layer 1); a frame shorter than 64 bytes is padded to 64.
"""

from __future__ import annotations

from wirespeed.model import ModelError

PREAMBLE_AND_GAP = 20  # preamble 7 + SFD 1 + inter-frame gap 12
MIN_FRAME = 64  # bytes with FCS; shorter frames are padded
MAC_HEADER_AND_FCS = 18  # destination, source, EtherType 14 + FCS 4
IP_HEADER = 20
UDP_HEADER = 8
UDP_FRAME_OVERHEAD = MAC_HEADER_AND_FCS + IP_HEADER + UDP_HEADER  # 46: frame = payload + 46
# iperf2 writes a 16-byte header (sequence number, timestamp) into every datagram. It
# accepts a shorter -l without a word, but then its count is garbage (-l 15: "1095216660480
# lost") or its end is never acknowledged (-l 10): 16 + 46 = 62 bytes, padded to 64.
IPERF2_MIN_PAYLOAD = 16


def frames_per_second(link_rate_bps: int, frame_bytes: int) -> float:
    """Frames per second at line rate; frame_bytes counted with FCS (64 .. 1518 for 1500)."""
    if frame_bytes <= 0:
        raise ModelError(f"a frame has a positive size, got {frame_bytes}")
    return link_rate_bps / (wire_bytes(frame_bytes) * 8)


def wire_bytes(frame_bytes: int) -> int:
    """Bytes of wire time one frame takes: padded to 64, plus preamble and gap."""
    return max(frame_bytes, MIN_FRAME) + PREAMBLE_AND_GAP


def l2_bits_per_second(packets_per_second: float, frame_bytes: int) -> float:
    """The frames' own bits per second (layer 2, with FCS, padding included)."""
    return packets_per_second * max(frame_bytes, MIN_FRAME) * 8


def l1_bits_per_second(packets_per_second: float, frame_bytes: int) -> float:
    """Wire bits per second (layer 1): the frames plus preamble and gap."""
    return packets_per_second * wire_bytes(frame_bytes) * 8


def udp_payload_for_frame(frame_bytes: int) -> int:
    """The UDP payload that makes an IPv4 frame of this size (with FCS): frame - 46.

    A payload below the generator's minimum is raised to it; the frame is then padded
    to 64 by Ethernet, so the frame on the wire is the same size."""
    return max(frame_bytes - UDP_FRAME_OVERHEAD, IPERF2_MIN_PAYLOAD)


def largest_frame(mtu: int) -> int:
    """The largest frame an MTU allows: 1518 at 1500."""
    return mtu + MAC_HEADER_AND_FCS
