"""The SONiC config_db builder (railfabric/configs/sonic/config_db.py) on the shipped example, its serialisation, and
how render.py calls it.

Hand derivations for p1-s1-rail0 (inventory/; the layout rules of railfabric/plan/allocate.py and railfabric/topology/):
- rail tier slot 0 → ASN rail_switch_base 4200100000 + 0; device slot 16 super-spines + 8 pods × 16 spines + 0 =
  144 → loopback 10.0.0.0/20 + 144 = 10.0.0.144/32; management 192.168.0.0/20 from first_offset 16: .16 + 144 =
  192.168.0.160/20, gateway pools.management.gateway 192.168.0.1.
- sn5600: 64 × 800G, 8 serdes lanes per port, so SONiC names port p Ethernet(8·(p-1)); hosts sit two per 2x400G
  breakout from port 1: Ethernet0 is port 1 lane 1 of 2 → serdes 0-3 (8 / 2 = 4 lanes), 400 Gbit/s = "400000"
  Mbit/s, 400G / 4 lanes = 100G per lane ≥ 25G → RS-FEC; mtu fabric.mtu 9216; host p1-s1-gpu001, NIC 0 for rail 0.
- rail 0 → VLAN rail_vlan_base 100 + 0, named RAIL0; segment (1,1) is the first /21 of 172.16.0.0/12 and
  single-rail switch 0 owns its first /24: 172.16.0.0/24, gateway .1.
- uplinks: slot 0 × 64 /31s from 10.4.0.0, the spine takes the even end → 10.4.0.1/31 on the first uplink, port 33
  (ports 1-32 are downlinks) = Ethernet(8·32) = Ethernet256, to p1-spine1.
- QoS (fabric.yml): RoCE DSCP 26 → TC 3 lossless, CNP DSCP 48 → TC 6 strict; weights 50/50 on queues 0 and 3;
  watchdog 200 ms detection / 200 ms restoration / 200 ms poll, action drop.
"""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

from railfabric.configs.render import RenderError, builder_for, render_device
from railfabric.configs.sonic.config_db import TABLES, config_db, config_db_tables, dumps, identity_tables, sonic_type
from railfabric.device import DeviceConfig, build_devices
from railfabric.pipeline import run
from railfabric.platforms import PLATFORMS
from tests.helpers import EXAMPLE


@pytest.fixture(scope="module")
def devices() -> dict[str, DeviceConfig]:
    r = run(EXAMPLE)
    assert r.inventory is not None and r.topology is not None and r.plan is not None and r.findings == []
    return build_devices(r.inventory, r.topology, r.plan)


@pytest.fixture(scope="module")
def rail0(devices: dict[str, DeviceConfig]) -> dict:
    return config_db_tables(devices["p1-s1-rail0"])


def test_identity_of_p1_s1_rail0(devices: dict[str, DeviceConfig]) -> None:
    assert identity_tables(devices["p1-s1-rail0"]) == {
        "DEVICE_METADATA": {"localhost": {
            "hostname": "p1-s1-rail0", "bgp_asn": "4200100000", "type": "LeafRouter",
            "docker_routing_config_mode": "split", "default_pfcwd_status": "enable", "buffer_model": "traditional",
            # the sn5600 model names no hwsku; its buffer facts set create_only (the SN5600 SKU does)
            "create_only_config_db_buffers": "true"}},
        "LOOPBACK_INTERFACE": {"Loopback0": {}, "Loopback0|10.0.0.144/32": {}},
    }
    assert [sonic_type(r) for r in ("rail", "spine", "super-spine")] == ["LeafRouter", "SpineRouter", "SpineRouter"]


def test_port_vlan_and_uplink_of_p1_s1_rail0(rail0: dict) -> None:
    assert rail0["PORT"]["Ethernet0"] == {"admin_status": "up", "speed": "400000", "fec": "rs", "mtu": "9216",
                                          "lanes": "0,1,2,3", "description": "p1-s1-gpu001 nic0 port1 rail0"}
    assert rail0["PORT"]["Ethernet4"]["lanes"] == "4,5,6,7"  # lane 2 of the same breakout
    assert rail0["VLAN"] == {"Vlan100": {"vlanid": "100", "mtu": "9216", "description": "RAIL0"}}
    assert rail0["VLAN_INTERFACE"] == {"Vlan100": {}, "Vlan100|172.16.0.1/24": {}}
    assert rail0["VLAN_MEMBER"]["Vlan100|Ethernet0"] == {"tagging_mode": "untagged"}
    assert "Ethernet256|10.4.0.1/31" in rail0["INTERFACE"]
    assert rail0["PORT"]["Ethernet256"]["speed"] == "800000"  # uplinks run the native 800G
    assert rail0["MGMT_INTERFACE"] == {"eth0|192.168.0.160/20": {"gwaddr": "192.168.0.1"}}


def test_qos_of_p1_s1_rail0(rail0: dict) -> None:
    assert rail0["DSCP_TO_TC_MAP"]["AI_ROCE"]["26"] == "3" and rail0["DSCP_TO_TC_MAP"]["AI_ROCE"]["48"] == "6"
    assert rail0["QUEUE"]["Ethernet0|3"] == {"scheduler": "AI_DWRR_Q3", "wred_profile": "AI_LOSSLESS"}
    assert rail0["QUEUE"]["Ethernet0|6"] == {"scheduler": "AI_STRICT"}
    assert rail0["SCHEDULER"]["AI_DWRR_Q0"] == {"type": "DWRR", "weight": "50"}
    assert rail0["PFC_WD"]["GLOBAL"] == {"POLL_INTERVAL": "200"}
    assert rail0["PFC_WD"]["Ethernet0"] == {"action": "drop", "detection_time": "200", "restoration_time": "200"}
    assert rail0["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"] == "3"


def test_serialised_once_sorted_indented_with_final_newline(devices: dict[str, DeviceConfig]) -> None:
    dev = devices["p1-s1-rail0"]
    text = config_db(dev)
    assert text == dumps(config_db_tables(dev))
    assert text.endswith("}\n") and not text.endswith("\n\n")
    assert text.startswith('{\n  "AAA": {\n    "authentication": {\n      "login": "tacacs+,local"\n')  # sorted, 2
    doc = json.loads(text)
    assert text == json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"  # canonical form
    # every CONFIG_DB value is text (except DNS_OPTIONS search, a leaf-list)
    leaves = [v for table in doc.values() for row in table.values() for v in row.values()]
    assert all(isinstance(v, str) for v in leaves if not isinstance(v, list))
    assert dumps({"B": {"k": {"x": "1"}}, "A": {}}) == (
        '{\n  "A": {},\n  "B": {\n    "k": {\n      "x": "1"\n    }\n  }\n}\n')


def test_text_fields_are_escaped_as_json(devices: dict[str, DeviceConfig]) -> None:
    import dataclasses

    dev = devices["p1-s1-rail0"]
    evil = 'x", "admin_status": "down\\\n'
    port = dataclasses.replace(dev.interfaces[0], description=evil)
    doc = json.loads(config_db(dataclasses.replace(dev, interfaces=(port, *dev.interfaces[1:]))))
    assert doc["PORT"]["Ethernet0"]["description"] == evil and doc["PORT"]["Ethernet0"]["admin_status"] == "up"


def test_tables_constant_is_what_the_families_write() -> None:
    # 2 identity + 9 ports/interfaces + 3 MCLAG + 9 QoS + 7 buffers + 17 management tables + SWITCH_HASH (lb30)
    assert len(TABLES) == 48


# --------------------------------------------------------------------------- render.py


def test_sonic_files_come_from_the_builder_and_the_frr_template(devices: dict[str, DeviceConfig]) -> None:
    specs = {f.name: f for f in PLATFORMS["sonic"].files}
    assert specs["config_db.json"].template == "" and specs["frr.conf"].template == "frr.conf.j2"
    assert builder_for("sonic", specs["config_db.json"]) is config_db  # railfabric/configs/sonic/__init__.py
    out = render_device(devices["p1-s1-rail0"])
    assert set(out) == {"config_db.json", "frr.conf"}
    assert out["config_db.json"] == config_db(devices["p1-s1-rail0"])


def test_a_builder_error_names_the_builder_the_line_and_the_device(devices: dict[str, DeviceConfig]) -> None:
    import dataclasses

    import railfabric.configs.sonic.config_db_qos as qos

    dev = devices["p1-s1-rail0"]
    broken = dataclasses.replace(dev, qos=dataclasses.replace(dev.qos, ecn="not an Ecn"))  # type: ignore[arg-type]
    with pytest.raises(RenderError) as info:
        render_device(broken)
    err = info.value
    assert err.builder == "railfabric.configs.sonic.config_db.config_db" and err.device == "p1-s1-rail0"
    assert err.template == "railfabric/configs/sonic/config_db_qos.py" and err.line is not None
    source = Path(qos.__file__).read_text(encoding="utf-8").splitlines()[err.line - 1]
    assert "q.ecn.min_bytes" in source  # the line that failed
    assert str(err).startswith(f"railfabric/configs/sonic/config_db_qos.py:{err.line} (builder "
                               "railfabric.configs.sonic.config_db.config_db, device p1-s1-rail0): AttributeError")
    # the error crosses a process boundary intact (render workers are forked processes)
    back = pickle.loads(pickle.dumps(err))
    assert (back.device, back.template, back.line, back.builder, str(back)) == (
        err.device, err.template, err.line, err.builder, str(err))


def test_template_render_error_keeps_its_form() -> None:
    err = RenderError("p1-s1-rail3", "sonic/frr.conf.j2", 12, "'x' is undefined")
    assert str(err) == "templates/sonic/frr.conf.j2:12 (device p1-s1-rail3): 'x' is undefined"
    assert str(pickle.loads(pickle.dumps(err))) == str(err)
