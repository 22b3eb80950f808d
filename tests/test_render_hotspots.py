"""What the render hot spots share across ports and switches, and the decisions moved out of templates.

Expected values are derived by hand from inventory/fabric.yml's QoS: RoCE DSCP 26 on priority 3 (lossless, PFC),
CNP DSCP 48 on priority 6 (strict), ECN 150000/1500000 bytes at probability 100 on the RoCE queue, DWRR weights 50
(queue 0) and 50 (queue 3), PFC watchdog on. The example's rail switches are SN5600s (64 × 800G, 8 serdes lanes a
port, 2x400G breakouts towards the hosts).
"""

from __future__ import annotations

import dataclasses

import pytest

from railfabric.configs.nxos.running_config import build_view
from railfabric.configs.render import environment
from railfabric.configs.sonic.config_db_buffers import buffer_tables
from railfabric.configs.sonic.config_db_qos import map_tables, port_tables, qos_tables, scheduler_tables
from railfabric.device import DeviceConfig, build_devices
from railfabric.device.interfaces import physical
from railfabric.pipeline import run
from railfabric.platforms.asic import AsicFamily
from railfabric.platforms.eos_asic import EOS_QUEUE_FORMS
from tests.helpers import EXAMPLE

# the EOS partial for the example's QoS on its 7060x6-dual rail switches (asic: tomahawk-5, hardware.yml: the unicast
# queue keyword uc-tx-queue): trust, PFC on priority 3 with the watchdog, then queues 0, 3 (ECN), 6
EOS_QOS = """\
   qos trust dscp
   priority-flow-control on
   priority-flow-control priority 3 no-drop
   priority-flow-control pause watchdog
   !
   uc-tx-queue 0
      no priority
      bandwidth percent 50
   !
   uc-tx-queue 3
      no priority
      bandwidth percent 50
      random-detect ecn minimum-threshold 150000 bytes maximum-threshold 1500000 bytes max-mark-probability 100
   !
   uc-tx-queue 6
      priority strict
"""


@pytest.fixture(scope="module")
def devices() -> dict[str, DeviceConfig]:
    r = run(EXAMPLE)
    assert r.findings == [] and r.inventory is not None and r.topology is not None and r.plan is not None
    return build_devices(r.inventory, r.topology, r.plan)


def test_render_once_text_and_reuse(devices: dict[str, DeviceConfig]) -> None:
    render_once = environment().globals["render_once"]
    qos, form = devices["p1-s2-rail0-4"].qos, devices["p1-s2-rail0-4"].queue_form
    text = render_once("eos/_interface_qos.j2", qos=qos, form=form)
    assert text == EOS_QOS
    assert render_once("eos/_interface_qos.j2", qos=qos, form=form) is text  # the same text object: rendered once
    # another profile is another text: no watchdog, no ECN
    other = render_once("eos/_interface_qos.j2", qos=dataclasses.replace(qos, watchdog=None, ecn=None), form=form)
    assert "pause watchdog" not in other and "random-detect" not in other
    assert other.count("uc-tx-queue") == 3
    # another family's form is another text: Sand (jericho-2) writes the same queues as tx-queue
    sand = render_once("eos/_interface_qos.j2", qos=qos, form=EOS_QUEUE_FORMS[AsicFamily.JERICHO_2])
    assert sand == EOS_QOS.replace("uc-tx-queue", "tx-queue")


def test_eos_roce_ports_carry_the_block(devices: dict[str, DeviceConfig]) -> None:
    """Every RoCE port of an EOS switch ends with the block, and only those ports have it."""
    from railfabric.configs.render import render_device

    dev = devices["p1-s2-rail0-4"]
    text = render_device(dev)["running-config.cfg"]
    roce = [i for i in dev.interfaces if i.qos]
    assert roce and text.count(EOS_QOS) == len(roce)
    for i in roce:
        stanza = text.split(f"\ninterface {i.name}\n", 1)[1].split("\n!\n", 1)[0] + "\n"
        assert stanza.endswith(EOS_QOS), i.name


def test_nxos_ports_view(devices: dict[str, DeviceConfig]) -> None:
    """NxosPort: one per interface in model order; no fec line on 800G / 400G PAM4 lanes, no switchport outside
    vPC; on a 100G port of 4 × 25G lanes `fec rs-fec`."""
    dev = dataclasses.replace(devices["p1-s1-rail3"], platform="nxos")
    view = build_view(dev)
    assert [p.i for p in view.ports] == list(dev.interfaces)
    assert {(p.fec, p.switchport) for p in view.ports} == {(None, None)}
    i = next(i for i in dev.interfaces if (i.port, i.lane) == (33, 0))
    hundred = dataclasses.replace(i, speed=100, lanes=i.lanes[:4], fec="rs", mode="member")
    (port,) = build_view(dataclasses.replace(dev, interfaces=(hundred,))).ports
    assert (port.fec, port.switchport) == ("rs-fec", None)  # a member outside a vPC pair: no switchport


def test_buffers_shared_by_switches_of_one_shape(devices: dict[str, DeviceConfig]) -> None:
    """p1-s1-rail0 and p1-s1-rail1 are alike (SN5600, 16 host lanes, the same uplinks): one Buffers object and
    one set of buffer tables; p1-s1-rail3 has port 8 disabled and hosts on port 9: its own Buffers."""
    a, b, c = (devices[n].buffers for n in ("p1-s1-rail0", "p1-s1-rail1", "p1-s1-rail3"))
    assert a is not None and b is not None and c is not None
    assert a is b and a is not c and a != c
    ta, tb = buffer_tables(a), buffer_tables(b)
    assert ta == tb and ta["BUFFER_PG"] is tb["BUFFER_PG"]
    ta["extra"] = {}  # the outer dict is the caller's own
    assert "extra" not in buffer_tables(a)


def test_sonic_port_rows_shared(devices: dict[str, DeviceConfig]) -> None:
    """PORT_QOS_MAP, QUEUE and PFC_WD rows: one dict per distinct row, shared by every RoCE port."""
    q = devices["p1-s1-rail0"].qos
    t = port_tables(q, ["Ethernet0", "Ethernet8"])
    assert t["PORT_QOS_MAP"]["Ethernet0"] is t["PORT_QOS_MAP"]["Ethernet8"]
    assert t["PORT_QOS_MAP"]["Ethernet0"] == {"dscp_to_tc_map": "AI_ROCE", "tc_to_queue_map": "AI_ROCE",
                                              "tc_to_pg_map": "AI_ROCE", "pfc_to_queue_map": "AI_ROCE",
                                              "pfc_enable": "3", "pfcwd_sw_enable": "3"}
    assert sorted(t["QUEUE"]) == ["Ethernet0|0", "Ethernet0|3", "Ethernet0|6", "Ethernet8|0", "Ethernet8|3",
                                  "Ethernet8|6"]
    assert t["QUEUE"]["Ethernet0|3"] is t["QUEUE"]["Ethernet8|3"]
    assert t["QUEUE"]["Ethernet8|3"] == {"scheduler": "AI_DWRR_Q3", "wred_profile": "AI_LOSSLESS"}
    assert t["QUEUE"]["Ethernet8|6"] == {"scheduler": "AI_STRICT"}
    assert t["PFC_WD"]["Ethernet0"] is t["PFC_WD"]["Ethernet8"]
    assert t["PFC_WD"]["GLOBAL"] == {"POLL_INTERVAL": "200"}
    # the fabric-wide tables: one build per Qos, the same dicts in every switch's document
    assert qos_tables(q, ())["DSCP_TO_TC_MAP"] is map_tables(q)["DSCP_TO_TC_MAP"]
    assert qos_tables(q, ())["SCHEDULER"] is scheduler_tables(q)["SCHEDULER"]
    assert map_tables(q)["DSCP_TO_TC_MAP"]["AI_ROCE"]["26"] == "3"  # RoCE DSCP 26 on TC 3
    assert map_tables(q)["DSCP_TO_TC_MAP"]["AI_ROCE"]["48"] == "6"  # CNP DSCP 48 on TC 6


def test_physical_facts() -> None:
    """SN5600 (8 serdes lanes a port): port 3 native 800G owns lanes 16-23; lane 2 of port 3 as 2x400G owns
    20-23 (4 lanes a 400G lane); SONiC's forced speed is Mb/s, PAM4 lanes take RS FEC."""
    assert physical("sonic", 8, 3, None, 0, 800) == ("", tuple(range(16, 24)), "800000", "rs")
    assert physical("sonic", 8, 3, (2, 400), 2, 400) == ("2x400G", (20, 21, 22, 23), "400000", "rs")
    assert physical("sonic", 8, 3, (2, 400), 2, 400) is physical("sonic", 8, 3, (2, 400), 2, 400)
