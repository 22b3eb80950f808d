"""SONiC (community, config_db.json + FRR): the platform's facts and naming. Templates: templates/sonic/.

Graceful shutdown (drain30, routing.drain): the drain is FRR's `bgp graceful-shutdown` under `router bgp`; the
receiver `bgp community-list standard CL-GSHUT seq 5 permit graceful-shutdown`, route-map `match community` / `set
local-preference 0`, `neighbor <group> route-map ... in` (FRR user guide bgp.rst; parsed by FRR 8.4's vtysh and bgpd
in tests/test_frr_syntax.py and run in the FRR lab, tests/test_lab_drain.py).
"""

from __future__ import annotations

from railfabric.platforms.base import OutputFile, Platform, first_lane_offset


def interface_name(port: int, lane: int, lanes: int, serdes: int) -> str:
    """SONiC names ports by their first serdes lane: Ethernet0, Ethernet8, ...; breakouts Ethernet4, ..."""
    return f"Ethernet{(port - 1) * serdes + first_lane_offset(lane, lanes, serdes)}"


def speed_form(speed: int, lanes: int) -> str:
    """PORT `speed` in Mbit/s (sonic-port.yang)."""
    return str(speed * 1000)


PLATFORM = Platform(
    name="sonic",
    title="SONiC",
    # interface MTU up to 9216 (SONiC's default 9100 is raised explicitly)
    max_mtu=9216,
    # ECMP hashing per flow. Flowlet (ARS) and packet spraying are SKU-specific extensions not in community
    # config_db, so not offered.
    ecmp_modes=frozenset({"flow"}),
    multipath_relax=True,
    watchdog_actions=frozenset({"drop", "forward", "alert"}),
    files=(OutputFile("config_db.json"),
           OutputFile("frr.conf", template="frr.conf.j2")),
    port_channel_prefix="PortChannel",
    management_interface="eth0",
    loopback_interface="Loopback0",
    naming=interface_name,
    speed_form=speed_form,
    # Community SONiC is a Debian host: plain SSH, privilege through sudo. No ansible_network_os is defined for it
    # in ansible-core; `sonic` is informational (the playbook selects the tasks by the host's `platform`).
    ansible_vars={
        "ansible_connection": "ssh",
        "ansible_network_os": "sonic",
        "ansible_become": True,
        "ansible_become_method": "sudo",
        "ansible_python_interpreter": "/usr/bin/python3",
    },
    ansible_plugin="ansible_plugin.py",
    aaa_login=lambda method, group: "tacacs+" if method == "tacacs" else "radius",  # AAA_AUTHENTICATION login
    management_vrf="mgmt",  # SONiC's management VRF has a fixed name (MGMT_VRF_CONFIG)
    buffer_tables=True,
    dual_homing=frozenset({"mlag"}),  # MCLAG (iccpd)
    frr_lab=True,
    # graceful shutdown (drain30): FRR `bgp graceful-shutdown` under `router bgp` (FRR user guide bgp.rst; the FRR
    # lab runs it): 65535:0 on what it sends to eBGP peers. Receipt: railfabric's inbound route-map. FRR 8.4 also
    # lowers LOCAL_PREF of a received 65535:0 route by itself (measured in the FRR lab, tests/test_lab_drain.py; not
    # found in FRR's documentation), so it is not relied on: the policy keeps it explicit for any FRR a SONiC ships
    graceful_shutdown=True,
)
