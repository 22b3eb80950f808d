"""railfabric/device/system.py: the management plane record, with the decisions the templates no longer make (which
ports are written, the AAA protocol names, the groups in use) derived by hand from a small `system:` block."""

from __future__ import annotations

from pathlib import Path

from railfabric.device.system import build_system
from tests.helpers import base_inventory, run_data

SYSTEM = {
    "users": {"netops": {"role": "network-admin", "password": {"vault": "netops_hash"}},
              "audit": {"role": "network-operator", "password": {"vault": "audit_hash"}}},
    "push_user": "netops",
    "ntp": {"servers": ["192.0.2.20", "192.0.2.21"]},
    "aaa": {"tacacs": {"key": {"vault": "tkey"}, "servers": [{"address": "192.0.2.10"},
                                                             {"address": "192.0.2.11", "port": 4949}]},
            "radius": {"key": {"vault": "rkey"}, "servers": [{"address": "192.0.2.12", "port": 1812}]},
            "login": ["tacacs", "radius", "local"]},
    "syslog": [{"address": "192.0.2.40"}, {"address": "192.0.2.41", "port": 1514},
               {"address": "192.0.2.42", "port": 514, "protocol": "tcp"}],
}


def _system(tmp_path: Path, platform: str):
    data = base_inventory()
    data["system"] = SYSTEM
    inv = run_data(tmp_path, data).inventory
    assert inv is not None
    return build_system(inv, "p1-s1-rail0", platform, "192.168.0.5")


def test_ports_written_only_when_not_the_default(tmp_path: Path) -> None:
    s = _system(tmp_path, "eos")
    # syslog: UDP 514 is the default (not written); UDP 1514 and TCP (even on 514) are written
    assert [(x.address, x.port, x.protocol, x.explicit_port) for x in s.syslog] == [
        ("192.0.2.40", 514, "udp", False), ("192.0.2.41", 1514, "udp", True), ("192.0.2.42", 514, "tcp", True)]
    assert s.tacacs is not None and s.radius is not None
    # TACACS+ default 49; RADIUS 1812 given explicitly is still the default
    assert [(x.port, x.explicit_port) for x in s.tacacs.servers] == [(49, False), (4949, True)]
    assert [(x.port, x.explicit_port) for x in s.radius.servers] == [(1812, False)]


def test_aaa_groups_and_protocols(tmp_path: Path) -> None:
    s = _system(tmp_path, "eos")
    assert [(g.kind, g.protocol) for g in s.aaa_groups] == [("tacacs", "tacacs+"), ("radius", "radius")]
    assert s.tacacs is not None and [x.priority for x in s.tacacs.servers] == [2, 1]  # the first server highest
    assert s.login == ("group TACACS", "group RADIUS", "local") and s.authorization == s.login


def test_platform_decisions(tmp_path: Path) -> None:
    eos, sonic = _system(tmp_path / "e", "eos"), _system(tmp_path / "s", "sonic")
    assert (eos.interface, sonic.interface) == ("Management1", "eth0")  # platform registry
    assert (eos.vrf, sonic.vrf) == ("MGMT", "mgmt")  # the inventory default; SONiC's fixed VRF
    assert eos.eapi and not sonic.eapi
    assert [u.name for u in eos.users] == ["audit", "netops"]  # sorted by name
    assert [u.privilege for u in eos.users] == [1, 15]  # operator 1, admin 15
    assert eos.vault_names == ("audit_hash", "netops_hash", "rkey", "tkey")
    assert eos.agent_address == "192.168.0.5"
    assert eos.ntp_servers == (("192.0.2.20", True), ("192.0.2.21", False))  # the first one preferred


def test_no_aaa(tmp_path: Path) -> None:
    data = base_inventory()
    inv = run_data(tmp_path, data).inventory
    assert inv is not None
    s = build_system(inv, "p1-s1-rail0", "sonic", "192.168.0.5")
    assert (s.tacacs, s.radius, s.aaa_groups, s.syslog) == (None, None, (), ())
