"""Lossless buffers on SONiC (railfabric/plan/buffers.py, railfabric/configs/sonic/config_db_buffers.py, BUF001-BUF003).

Hand derivations use the SN5600 facts of inventory/hardware.yml: cell 192 B (cell occupancy ceil(192/64) = 3),
pipeline latency 19 KiB = 19,456 B, MAC/PHY delay 819.2 B, 120 ns on tile, port MTU 9216, SONiC's lossless MTU
1,024, IEEE 802.3 pause quanta 905 at 400G and 800G (peer response 905 x 512 / 8 = 57,920 B), and the example's
solver figures: host cable 3 m, fabric 30 m, core 100 m, 5.0 ns/m.
"""

from __future__ import annotations

import copy
import json
import re
from fractions import Fraction
from pathlib import Path

import pytest

from railfabric.configs.render import render_device
from railfabric.device import DeviceConfig, build_devices
from railfabric.inventory.intent import CableLengths, SwitchBuffers
from railfabric.pipeline import run
from railfabric.plan.buffers import Headroom, PortFacts, build_buffers, cable_metres, index_ranges, pg_headroom
from tests.helpers import EXAMPLE, SONIC_BUFFERS, base_inventory, run_data, with_system

SN5600 = SwitchBuffers(**SONIC_BUFFERS)
SONIC_NS_PER_M = Fraction(10**9, 198_000_000)  # SONiC's speed_of_light 198,000,000 m/s (buffer_headroom_mellanox.lua)

# device/mellanox/x86_64-nvidia_sn5600-r0/ACS-SN5600/pg_profile_lookup.ini (sonic-buildimage @086b03bd), verbatim:
# speed (Mb/s), cable, size, xon, xoff (threshold 0 on every row). A vendor fact, not our output.
SN5600_INI = """
  10000    5m 64512   19456  45056
  25000    5m 67584   19456  48128
  40000    5m 75776   19456  57344
  50000    5m 82944   19456  63488
 100000    5m 133120  19456  113664
 200000    5m 150528  19456  131072
 400000    5m 250880  19456  231424
 800000    5m 304128  38912  257024
  10000   40m 65536   19456  46080
  25000   40m 71680   19456  52224
  40000   40m 81920   19456  62464
  50000   40m 89088   19456  69632
 100000   40m 146432  19456  126976
 200000   40m 177152  19456  157696
 400000   40m 303104  19456  283648
 800000   40m 410624  38912  362496
  10000  300m 75776   19456  56320
  25000  300m 96256   19456  76800
  40000  300m 120832  19456  101376
  50000  300m 138240  19456  118784
 100000  300m 244736  19456  225280
 200000  300m 374784  19456  355328
 400000  300m 697344  19456  677888
 800000  300m 1198080 38912  1150976
"""

# Size rows where the formula gives one rounding step (1 KiB) more than the ini (the ini's 40G 5m size is even below
# its own xon + xoff = 76,800): (speed Mb/s, cable m).
SIZE_ONE_KIB_ABOVE_INI = {(40000, 5), (800000, 5), (800000, 300)}


def test_formula_reproduces_the_sn5600_lookup_table() -> None:
    exact = 0
    for line in SN5600_INI.strip().splitlines():
        speed, cable, size, xon, xoff = line.split()
        gbps, metres = int(speed) // 1000, int(cable[:-1])
        lanes = 8 if gbps == 800 else 4  # 800G is a whole 8-lane OSFP; every other speed is a breakout
        got = pg_headroom(SN5600, gbps, metres, 9216, lanes, SONIC_NS_PER_M)
        assert got is not None
        assert (got.xon, got.xoff) == (int(xon), int(xoff)), line
        extra = 1024 if (int(speed), metres) in SIZE_ONE_KIB_ABOVE_INI else 0
        assert got.size == int(size) + extra, line
        exact += extra == 0
    assert exact == 21


def test_headroom_of_the_example_profiles_by_hand() -> None:
    # 400G host port (4 lanes), 3 m: cable 2 x 3 x 5.0 x 400 / 8 = 1,500 B; tile 400 x 120 / 8 = 6,000 B
    #   delay = 9216 + 1500 + 819.2 + 57920 + 6000 = 75,455.2; xoff = ceil_1KiB(1024 + 3 x 75,455.2 = 227,389.6)
    #   = 223 KiB = 228,352; xon = 19 KiB = 19,456; size = xon + xoff = 247,808 (not 8 lanes: no MTU extra)
    assert pg_headroom(SN5600, 400, 3, 9216, 4, 5.0) == Headroom(19456, 228352, 247808)
    # 800G uplink (8 lanes), 30 m: cable 2 x 30 x 5.0 x 800 / 8 = 30,000; tile 12,000
    #   delay = 9216 + 30000 + 819.2 + 57920 + 12000 = 109,955.2; 1024 + 3 x 109,955.2 = 330,889.6 -> 324 KiB
    #   = 331,776; xon doubled on 8 lanes: 38,912; size = 38,912 + 331,776 + 9,216 (MTU on 8 lanes) = 379,904
    assert pg_headroom(SN5600, 800, 30, 9216, 8, 5.0) == Headroom(38912, 331776, 379904)
    # 800G core link, 100 m: cable 100,000; delay 179,955.2; 1024 + 539,865.6 = 540,889.6 -> 529 KiB = 541,696;
    #   size = 38,912 + 541,696 + 9,216 = 589,824
    assert pg_headroom(SN5600, 800, 100, 9216, 8, 5.0) == Headroom(38912, 541696, 589824)
    # a shared headroom pool: the PG reserves only its xon, xoff comes from the pool
    shp = SN5600.model_copy(update={"shared_headroom_pool": 1 << 20})
    assert pg_headroom(shp, 800, 30, 9216, 8, 5.0) == Headroom(38912, 331776, 38912)
    assert pg_headroom(SN5600, 1600, 30, 9216, 8, 5.0) is None  # no IEEE pause quanta known for 1.6T


def test_cable_lengths_round_up_to_whole_metres() -> None:
    assert [cable_metres(x) for x in (0, 0.2, 1.0, 2.2, 30.0, 99.01)] == [1, 1, 1, 3, 30, 100]
    assert index_ranges([0, 1, 2, 4, 5, 6, 7]) == ["0-2", "4-7"]
    assert index_ranges([0]) == ["0"]


# --- the example, rendered ------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def devices() -> dict[str, DeviceConfig]:
    r = run(EXAMPLE)
    assert r.findings == [], [str(f) for f in r.findings]
    assert r.inventory is not None and r.topology is not None and r.plan is not None
    return build_devices(r.inventory, r.topology, r.plan)


@pytest.fixture(scope="module")
def dbs(devices: dict[str, DeviceConfig]) -> dict[str, dict]:
    return {name: json.loads(render_device(d)["config_db.json"]) for name, d in devices.items()
            if d.platform == "sonic"}


def test_named_host_port_pg_and_profile(dbs: dict[str, dict]) -> None:
    # p1-s1-rail3 Ethernet0 = port 1 lane 1 (2x400G) carries p1-s1-gpu001 nic3: 400G, 4 lanes, host cable 3 m
    c = dbs["p1-s1-rail3"]
    assert c["PORT"]["Ethernet0"]["speed"] == "400000"
    assert c["CABLE_LENGTH"]["AZURE"]["Ethernet0"] == "3m"
    assert c["BUFFER_PG"]["Ethernet0|0"] == {"profile": "ingress_lossy_profile"}
    assert c["BUFFER_PG"]["Ethernet0|3"] == {"profile": "pg_lossless_400000_3m_profile"}
    assert c["BUFFER_PROFILE"]["pg_lossless_400000_3m_profile"] == {
        "pool": "ingress_lossless_pool", "xon": "19456", "xoff": "228352", "size": "247808", "dynamic_th": "0"}
    assert [k for k in c["BUFFER_PG"] if k.startswith("Ethernet0|")] == ["Ethernet0|0", "Ethernet0|3"]
    assert {k: v["profile"] for k, v in c["BUFFER_QUEUE"].items() if k.startswith("Ethernet0|")} == {
        "Ethernet0|0-2": "q_lossy_profile", "Ethernet0|3": "egress_lossless_profile",
        "Ethernet0|4-7": "q_lossy_profile"}
    # Ethernet256 = port 33, the first uplink: 800G on all 8 lanes, fabric cable 30 m
    assert c["BUFFER_PG"]["Ethernet256|3"] == {"profile": "pg_lossless_800000_30m_profile"}
    assert c["BUFFER_PROFILE"]["pg_lossless_800000_30m_profile"] == {
        "pool": "ingress_lossless_pool", "xon": "38912", "xoff": "331776", "size": "379904", "dynamic_th": "0"}


def test_cable_length_per_role(dbs: dict[str, dict]) -> None:
    rail = dbs["p1-s1-rail3"]["CABLE_LENGTH"]["AZURE"]
    # host ports 3 m, uplinks to the spines 30 m; port 8 (Ethernet56) is disabled, ports 10-16 and 25-32 unused: 0m
    assert rail["Ethernet0"] == "3m" and rail["Ethernet256"] == "30m"
    assert rail["Ethernet56"] == "0m" and rail["Ethernet200"] == "0m"
    assert set(rail) == set(dbs["p1-s1-rail3"]["PORT"])  # every port has a length
    spine = dbs["p1-spine1"]["CABLE_LENGTH"]["AZURE"]
    assert spine["Ethernet0"] == "30m"  # downlink to p1-s1-rail0
    assert "100m" in spine.values()  # uplinks to the super-spines
    assert set(dbs["core-ss1"]["CABLE_LENGTH"]["AZURE"].values()) == {"100m", "0m"}
    assert dbs["core-ss1"]["BUFFER_PROFILE"]["pg_lossless_800000_100m_profile"]["size"] == "589824"


def test_pools_and_metadata(dbs: dict[str, dict]) -> None:
    c = dbs["p2-s1-rail0-1-2-3"]
    assert c["BUFFER_POOL"] == {
        "ingress_lossless_pool": {"type": "ingress", "mode": "dynamic", "size": "52161690"},
        "ingress_lossy_pool": {"type": "ingress", "mode": "dynamic", "size": "52161690"},
        "egress_lossless_pool": {"type": "egress", "mode": "dynamic", "size": "158229504"},
        "egress_lossy_pool": {"type": "egress", "mode": "dynamic", "size": "52161690"}}
    meta = c["DEVICE_METADATA"]["localhost"]
    assert meta["buffer_model"] == "traditional" and meta["create_only_config_db_buffers"] == "true"


PG_NUM = re.compile(r"[0-7](-[0-7])?")  # sonic-buffer-pg.yang pg_num
QINDEX = re.compile(r"(1[0-5]|[0-9])(-(1[0-5]|[0-9]))?")  # sonic-buffer-queue.yang qindex
LENGTH = re.compile(r"[0-9]+m")  # sonic-cable-length.yang length


def test_every_pfc_port_is_lossless_and_every_reference_resolves(dbs: dict[str, dict]) -> None:
    """Walk every rendered config_db: PORT_QOS_MAP's pfc_enable priorities have a lossless PG (a profile with xon and
    xoff, named as buffermgrd names it from the port's speed and cable) and a lossless queue; every key's port is in
    PORT, every profile in BUFFER_PROFILE, every pool in BUFFER_POOL; mandatory fields and patterns hold."""
    checked = 0
    for host, c in dbs.items():
        ports, profiles, pools = c["PORT"], c["BUFFER_PROFILE"], c["BUFFER_POOL"]
        cables = c["CABLE_LENGTH"]["AZURE"]
        pfc_to_queue = c["MAP_PFC_PRIORITY_TO_QUEUE"]["AI_ROCE"]
        tc_to_pg = c["TC_TO_PRIORITY_GROUP_MAP"]["AI_ROCE"]
        for name, pool in pools.items():
            assert pool["type"] in ("ingress", "egress") and pool["mode"] in ("static", "dynamic"), (host, name)
        for name, prof in profiles.items():
            assert prof["pool"] in pools and "size" in prof and -8 <= int(prof["dynamic_th"]) <= 7, (host, name)
        for port, length in cables.items():
            assert port in ports and LENGTH.fullmatch(length), (host, port)
        for table, pattern in (("BUFFER_PG", PG_NUM), ("BUFFER_QUEUE", QINDEX)):
            for key, value in c[table].items():
                port, index = key.split("|")
                assert port in ports and pattern.fullmatch(index) and value["profile"] in profiles, (host, key)
        for table in ("BUFFER_PORT_INGRESS_PROFILE_LIST", "BUFFER_PORT_EGRESS_PROFILE_LIST"):
            for port, value in c[table].items():
                assert port in ports and all(p in profiles for p in value["profile_list"].split(",")), (host, port)
        for port, qmap in c["PORT_QOS_MAP"].items():
            for prio in qmap["pfc_enable"].split(","):
                pg = tc_to_pg[prio]  # TC = priority in DSCP_TO_TC_MAP
                assert pg == prio  # buffermgrd takes pfc_enable's priorities as PG numbers
                name = c["BUFFER_PG"][f"{port}|{pg}"]["profile"]
                assert name == f"pg_lossless_{ports[port]['speed']}_{cables[port]}_profile", (host, port)
                prof = profiles[name]
                assert prof["pool"] == "ingress_lossless_pool" and int(prof["xoff"]) > 0 and int(prof["xon"]) > 0
                assert int(prof["size"]) >= int(prof["xon"]) + int(prof["xoff"])
                queue = pfc_to_queue[prio]
                assert c["BUFFER_QUEUE"][f"{port}|{queue}"]["profile"] == "egress_lossless_profile"
                checked += 1
        assert set(c["BUFFER_PORT_INGRESS_PROFILE_LIST"]) == set(c["PORT_QOS_MAP"]), host
    assert checked > 500


# --- findings ---------------------------------------------------------------------------------------------------------

def test_buf001_sonic_model_without_buffer_facts(tmp_path: Path) -> None:
    inv = base_inventory()
    del inv["switch_models"]["sw64"]["buffers"]
    res = run_data(tmp_path, inv)
    found = [f for f in res.findings if f.code == "BUF001"]
    assert len(found) == 1, [str(f) for f in res.findings]
    f = found[0]
    assert f.severity == "error" and "'sw64'" in f.message and "buffers: {total_bytes:" in f.hint
    # at the model's key `sw64:` (column 3 under switch_models:) in the fabric.yml tests.helpers.dump writes
    assert (f.location.file, f.location.col) == (str(tmp_path / "inv" / "fabric.yml"), 3)
    text = (tmp_path / "inv" / "fabric.yml").read_text().splitlines()
    assert text[f.location.line - 1].strip().startswith("sw64:")


def test_eos_needs_no_buffer_facts(tmp_path: Path) -> None:
    inv = with_system(base_inventory())  # EOS needs a push account (MGMT001)
    inv["fabric"]["platform"] = "eos"
    del inv["switch_models"]["sw64"]["buffers"]
    res = run_data(tmp_path, inv)
    assert [f.code for f in res.findings if f.severity == "error"] == []
    assert res.inventory is not None and res.topology is not None and res.plan is not None
    assert all(d.buffers is None for d in build_devices(res.inventory, res.topology, res.plan).values())


def _buf002(tmp_path: Path, total: int) -> list:
    inv = base_inventory()
    inv["switch_models"]["sw64"]["buffers"] = {**copy.deepcopy(SONIC_BUFFERS), "total_bytes": total}
    return [f for f in run_data(tmp_path, inv).findings if f.code == "BUF002"]


def test_buf002_headroom_must_fit(tmp_path: Path) -> None:
    # base inventory: each rail switch has 4 hosts at 400G (2x400G lanes, 3 m: 247,808 B each) and 2 uplinks at 800G
    # (30 m: 379,904 B each): 4 x 247,808 + 2 x 379,904 = 1,751,040 B; spines have 2 x 379,904 = 759,808.
    # Budget = total - 2 x 52,161,690.
    pools = 2 * 52_161_690
    assert _buf002(tmp_path / "fits", pools + 1_751_040) == []
    found = _buf002(tmp_path / "short", pools + 1_751_039)
    assert len(found) == 1
    assert "p1-s1-rail0" in found[0].message and "reserve 1,751,040 bytes" in found[0].message
    assert "leaves 1,751,039" in found[0].message and "by at least 1 bytes" in found[0].hint


def test_buf003_speed_without_pause_quanta(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["switch_models"]["sw64"].update({"speed": "1.6T", "breakouts": ["2x800G", "4x400G"]})
    inv["pods"][0]["spines"]["link_speed"] = "1.6T"
    found = [f for f in run_data(tmp_path, inv).findings if f.code == "BUF003"]
    assert len(found) == 1 and "1.6T" in found[0].message, [str(f) for f in found]


def test_ports_sharing_a_profile_name_get_the_largest_headroom() -> None:
    # buffermgrd names profiles by speed and cable only. An 800G 30 m port at MTU 9214 (facing EOS) and one at 9216
    # share pg_lossless_800000_30m_profile: the 9216 one needs more (size 379,904, test above), and both get it.
    # At 9214: delay 109,953.2; 1024 + 3 x 109,953.2 = 330,883.6 -> 324 KiB = 331,776 (same xoff); size = 38,912 +
    # 331,776 + 9,214 = 379,902 -> 371 KiB = 379,904: equal here, so check with a shorter MTU that changes xoff:
    # MTU 1500: delay 102,239.2; 1024 + 306,717.6 = 307,741.6 -> 301 KiB = 308,224; size = 38,912 + 308,224 + 1,500
    # = 348,636 -> 341 KiB = 349,184.
    assert pg_headroom(SN5600, 800, 30, 1500, 8, 5.0) == Headroom(38912, 308224, 349184)
    ports = [PortFacts("Ethernet0", 800, 1500, 8, "fabric", True),
             PortFacts("Ethernet8", 800, 9216, 8, "fabric", True)]
    b = build_buffers(SN5600, ports, CableLengths(), 5.0, (0, 0, 0, 3, 0, 0, 0, 0), (3,), ((3, 3),))
    lossless = [p for p in b.profiles if p.name.startswith("pg_lossless_")]
    assert [(p.name, p.xoff, p.size) for p in lossless] == [("pg_lossless_800000_30m_profile", 331776, 379904)]
    assert b.headroom_bytes == 2 * 379904
    assert [(a.port, a.index, a.profile) for a in b.pgs] == [
        ("Ethernet0", "0", "ingress_lossy_profile"), ("Ethernet0", "3", "pg_lossless_800000_30m_profile"),
        ("Ethernet8", "0", "ingress_lossy_profile"), ("Ethernet8", "3", "pg_lossless_800000_30m_profile")]
