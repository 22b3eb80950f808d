"""What each platform can express, and how it names things. A platform = a folder of templates + this row.

Asking a platform for something it cannot express is a validation finding (PLAT001), never a missing line.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Platform:
    name: str
    max_mtu: int  # the largest interface MTU the platform accepts
    ecmp_modes: frozenset[str]  # flow / flowlet / packet
    multipath_relax: bool  # needs `bestpath as-path multipath-relax` for ECMP across different neighbour ASNs
    port_channel_prefix: str
    watchdog_actions: frozenset[str]  # PFC watchdog actions the platform can express
    files: tuple[tuple[str, str], ...]  # (entry template under templates/<name>/, output file name)

    def interface(self, port: int, lane: int, lanes: int, serdes: int) -> str:
        """Interface name of physical `port`, breakout `lane` (0 = not broken out) of `lanes`."""
        if self.name == "sonic":
            # SONiC names ports by their first serdes lane: Ethernet0, Ethernet8, ...; breakouts Ethernet4, ...
            index = (port - 1) * serdes + ((lane - 1) * (serdes // max(lanes, 1)) if lane else 0)
            return f"Ethernet{index}"
        # EOS: Ethernet<port>/<first lane>; 2x400G on an 8-lane OSFP is Ethernet1/1 and Ethernet1/5
        if serdes == 1:
            return f"Ethernet{port}"
        sub = (lane - 1) * (serdes // max(lanes, 1)) + 1 if lane else 1
        return f"Ethernet{port}/{sub}"

    def port_channel(self, number: int) -> str:
        return f"{self.port_channel_prefix}{number}"

    def speed_setting(self, speed: int, lanes: int) -> str:
        """How the platform writes a forced port speed of `speed` Gbit/s over `lanes` serdes lanes.

        SONiC: PORT `speed` in Mbit/s (sonic-port.yang). EOS: `speed <rate>g-<lanes>`, the lane-count form Arista uses
        on multi-lane (octal) ports ("400G-8, 200G-4, 100G-2" in Arista's "Octal Port Renumber" page); a breakout is
        this form on each primary lane (Ethernet1/1 and 1/5 at 400g-4 for 2x400G of an 800G OSFP), so the port never
        stays at its native 1x800G with the second lane down."""
        if self.name == "sonic":
            return str(speed * 1000)
        return f"{speed}g-{lanes}"


def fec_for(speed: int, lanes: int) -> str:
    """Forward error correction a port needs at this lane rate: "rs" (Reed-Solomon) from 25G per lane, which IEEE
    802.3 makes mandatory for 50G-per-lane PAM4 (RS-544, 802.3cd/ck/df) and for 100G over 4x25G (RS-528, 802.3bj);
    "none" below. Both ends of a link get the same value because both get it from the same lane rate, and railfabric
    writes it explicitly rather than trusting each platform's default to agree."""
    return "rs" if lanes and speed / lanes >= 25 else "none"


PLATFORMS: dict[str, Platform] = {
    # SONiC: interface MTU up to 9216 (SONiC's default 9100 is raised explicitly); ECMP hashing per flow. Flowlet
    # (ARS) and packet spraying are SKU-specific extensions not in community config_db, so not offered.
    "sonic": Platform("sonic", 9216, frozenset({"flow"}), True, "PortChannel", frozenset({"drop", "forward", "alert"}),
                      (("config_db.json.j2", "config_db.json"), ("frr.conf.j2", "frr.conf"))),
    # Arista EOS: MTU ceiling 9214. Flow hashing; dynamic load balancing needs platform-specific profiles that
    # this generator does not model yet, so flowlet/packet are refused rather than silently dropped.
    # PFC watchdog: EOS's verified action word is `drop` (pyavd schema); forward/alert have no verified equivalent.
    "eos": Platform("eos", 9214, frozenset({"flow"}), True, "Port-Channel", frozenset({"drop"}),
                    (("running-config.j2", "running-config.cfg"),)),
}
