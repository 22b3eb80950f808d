"""The InfiniBand writers on a small rail-optimized fat tree, every expected file derived by hand.

The fabric (railfabric.infiniband.build.rail_fat_tree(hosts=2, rails=4, spines=2, ports=8)):
  spines spine1, spine2; leaves leaf-rail0..3; hosts dgx01, dgx02 with HCAs mlx5_0..3, HCA r on leaf-rail<r>.
  Leaf ports: h+1 to host h's HCA (dgx01 -> 1, dgx02 -> 2), then hosts+1+s = 3 to spine1, 4 to spine2.
  Spine ports: r+1 to leaf-rail<r> (links=1).
  SMs: spine1 priority 15 (master), spine2 priority 14.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from railfabric.infiniband.build import TWO_CLASS_QOS, rail_fat_tree, two_tenants
from railfabric.infiniband.model import Cable, End, Member, Membership, Partition, SubnetManager, problems
from railfabric.infiniband.netfile import net_file
from railfabric.infiniband.opensm_conf import Paths, cn_guids, opensm_conf, root_guids
from railfabric.infiniband.partitions import expected_pkeys, partitions_conf
from railfabric.infiniband.qos_policy import qos_policy


@pytest.fixture
def fab():
    f = rail_fat_tree("lab", hosts=2, rails=4, spines=2, ports=8, qos=TWO_CLASS_QOS)
    return replace(f, partitions=two_tenants(f))


def test_plan_is_consistent(fab) -> None:
    assert problems(fab) == []
    assert [s.name for s in fab.roots] == ["spine1", "spine2"]
    assert fab.master == SubnetManager("spine1", 15)


NET = """\
# railfabric: planned topology of lab (ibnetdiscover / ibsim net form, names not GUIDs)

Switch\t8 "spine1"
[1]\t"leaf-rail0"[3]
[2]\t"leaf-rail1"[3]
[3]\t"leaf-rail2"[3]
[4]\t"leaf-rail3"[3]

Switch\t8 "spine2"
[1]\t"leaf-rail0"[4]
[2]\t"leaf-rail1"[4]
[3]\t"leaf-rail2"[4]
[4]\t"leaf-rail3"[4]

Switch\t8 "leaf-rail0"
[1]\t"dgx01 mlx5_0"[1]
[2]\t"dgx02 mlx5_0"[1]
[3]\t"spine1"[1]
[4]\t"spine2"[1]

Switch\t8 "leaf-rail1"
[1]\t"dgx01 mlx5_1"[1]
[2]\t"dgx02 mlx5_1"[1]
[3]\t"spine1"[2]
[4]\t"spine2"[2]

Switch\t8 "leaf-rail2"
[1]\t"dgx01 mlx5_2"[1]
[2]\t"dgx02 mlx5_2"[1]
[3]\t"spine1"[3]
[4]\t"spine2"[3]

Switch\t8 "leaf-rail3"
[1]\t"dgx01 mlx5_3"[1]
[2]\t"dgx02 mlx5_3"[1]
[3]\t"spine1"[4]
[4]\t"spine2"[4]

Hca\t1 "dgx01 mlx5_0"
[1]\t"leaf-rail0"[1]

Hca\t1 "dgx01 mlx5_1"
[1]\t"leaf-rail1"[1]

Hca\t1 "dgx01 mlx5_2"
[1]\t"leaf-rail2"[1]

Hca\t1 "dgx01 mlx5_3"
[1]\t"leaf-rail3"[1]

Hca\t1 "dgx02 mlx5_0"
[1]\t"leaf-rail0"[2]

Hca\t1 "dgx02 mlx5_1"
[1]\t"leaf-rail1"[2]

Hca\t1 "dgx02 mlx5_2"
[1]\t"leaf-rail2"[2]

Hca\t1 "dgx02 mlx5_3"
[1]\t"leaf-rail3"[2]
"""


def test_net_file(fab) -> None:
    assert net_file(fab) == NET
    assert net_file(fab) == net_file(fab)  # deterministic


# The master's opensm.conf: ftree needs the root and compute-node files; QoS TWO_CLASS_QOS: 2 VLs, high limit 255,
# high table VL0:128 VL1:64, low table VL0:4 VL1:4, SL0 -> VL0, SL1 -> VL1, SL2-15 -> VL0.
OPENSM_MASTER = """\
# railfabric: OpenSM 3.3.23 configuration of the subnet manager on spine1 (fabric lab)
# priority 15 of spine1=15, spine2=14: the higher is master
subnet_prefix 0xfe80000000000000
routing_engine ftree
root_guid_file /etc/opensm/root-guids.conf
cn_guid_file /etc/opensm/cn-guids.conf
lmc 0
sm_priority 15
sweep_interval 10
partition_config_file /etc/opensm/partitions.conf
qos TRUE
qos_max_vls 2
qos_high_limit 255
qos_vlarb_high 0:128,1:64
qos_vlarb_low 0:4,1:4
qos_sl2vl 0,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0
qos_policy_file /etc/opensm/qos-policy.conf
"""


def test_opensm_conf_master(fab) -> None:
    assert opensm_conf(fab, fab.sms[0]) == OPENSM_MASTER


def test_opensm_conf_standby_differs_in_its_priority_and_name_only(fab) -> None:
    standby = opensm_conf(fab, fab.sms[1]).splitlines()
    master = OPENSM_MASTER.splitlines()
    diff = [(a, b) for a, b in zip(master, standby, strict=True) if a != b]
    assert diff == [
        ("# railfabric: OpenSM 3.3.23 configuration of the subnet manager on spine1 (fabric lab)",
         "# railfabric: OpenSM 3.3.23 configuration of the subnet manager on spine2 (fabric lab)"),
        ("# priority 15 of spine1=15, spine2=14: the higher is master",
         "# priority 14 of spine1=15, spine2=14: the higher is master"),
        ("sm_priority 15", "sm_priority 14"),
    ]


def test_opensm_conf_updn_without_qos_and_lab_paths(fab) -> None:
    f = replace(fab, routing_engine="updn", qos=None)
    text = opensm_conf(f, f.sms[0], Paths(root_guid_file="/x/r", log_file="/x/l", dump_files_dir="/x/"))
    # updn reads the root file but not the compute-node file; no QoS: qos FALSE only
    assert text.splitlines()[2:] == [
        "subnet_prefix 0xfe80000000000000", "routing_engine updn", "root_guid_file /x/r", "lmc 0", "sm_priority 15",
        "sweep_interval 10", "partition_config_file /etc/opensm/partitions.conf", "qos FALSE", "log_file /x/l",
        "dump_files_dir /x/"]


# GUIDs as ibsim would assign them (switches 0x200000.. in file order; HCA n: node 0x100000+2n, port +1): here only
# an input, the files are what matters.
NODE = {"spine1": 0x200000, "spine2": 0x200001}
PORT = {f"dgx0{h + 1} mlx5_{r}": 0x100001 + 2 * (4 * h + r) for h in range(2) for r in range(4)}


def test_guid_files(fab) -> None:
    assert root_guids(fab, NODE) == "# roots of lab\n0x0000000000200000 spine1\n0x0000000000200001 spine2\n"
    # HCAs in plan order: dgx01 mlx5_0..3 (0x100001, 03, 05, 07), dgx02 mlx5_0..3 (0x100009, 0b, 0d, 0f)
    assert cn_guids(fab, PORT) == (
        "# compute nodes of lab\n"
        "0x0000000000100001 dgx01 mlx5_0\n0x0000000000100003 dgx01 mlx5_1\n"
        "0x0000000000100005 dgx01 mlx5_2\n0x0000000000100007 dgx01 mlx5_3\n"
        "0x0000000000100009 dgx02 mlx5_0\n0x000000000010000b dgx02 mlx5_1\n"
        "0x000000000010000d dgx02 mlx5_2\n0x000000000010000f dgx02 mlx5_3\n")


# two_tenants: tenant-a = dgx01's four HCAs (full), tenant-b = dgx02's (full), storage = dgx01's four full (the
# stand-in storage targets) and dgx02's four limited, ipoib.
PARTITIONS = """\
# railfabric: OpenSM partitions of fabric lab (partitions.conf grammar of OpenSM 3.3.23)
# Default partition: every HCA full, the switches and the SM full
Default=0x7fff, ipoib : ALL_CAS=full, ALL_SWITCHES=full, SELF=full ;

# tenant-a: 4 members
tenant-a=0x0a01 :
\t0x0000000000100001=full, # dgx01 mlx5_0
\t0x0000000000100003=full, # dgx01 mlx5_1
\t0x0000000000100005=full, # dgx01 mlx5_2
\t0x0000000000100007=full ; # dgx01 mlx5_3

# tenant-b: 4 members
tenant-b=0x0a02 :
\t0x0000000000100009=full, # dgx02 mlx5_0
\t0x000000000010000b=full, # dgx02 mlx5_1
\t0x000000000010000d=full, # dgx02 mlx5_2
\t0x000000000010000f=full ; # dgx02 mlx5_3

# storage: 8 members
storage=0x0b01, ipoib :
\t0x0000000000100001=full, # dgx01 mlx5_0
\t0x0000000000100003=full, # dgx01 mlx5_1
\t0x0000000000100005=full, # dgx01 mlx5_2
\t0x0000000000100007=full, # dgx01 mlx5_3
\t0x0000000000100009=limited, # dgx02 mlx5_0
\t0x000000000010000b=limited, # dgx02 mlx5_1
\t0x000000000010000d=limited, # dgx02 mlx5_2
\t0x000000000010000f=limited ; # dgx02 mlx5_3
"""


def test_partitions_conf(fab) -> None:
    assert partitions_conf(fab, PORT) == PARTITIONS


def test_expected_pkeys(fab) -> None:
    # default full: 0x7fff|0x8000 = 0xffff; tenant-a full: 0x0a01|0x8000 = 0x8a01; storage full on dgx01: 0x8b01,
    # limited on dgx02: 0x0b01
    pk = expected_pkeys(fab)
    assert pk["dgx01 mlx5_2"] == {0xFFFF, 0x8A01, 0x8B01}
    assert pk["dgx02 mlx5_0"] == {0xFFFF, 0x8A02, 0x0B01}
    limited = replace(fab, default_membership=Membership.LIMITED, partitions=())
    assert set(expected_pkeys(limited).values()) == {frozenset({0x7FFF})}


def test_qos_policy(fab) -> None:
    # TWO_CLASS_QOS: every path SL 0 but the storage partition's (0x0b01), SL 1
    assert qos_policy(fab) == ("# railfabric: OpenSM QoS policy of fabric lab (qos-ulps)\n"
                               "qos-ulps\n"
                               "    default : 0\n"
                               "    any, pkey 0x0b01 : 1 # storage\n"
                               "end-qos-ulps\n")
    assert TWO_CLASS_QOS.sl_of(0x0B01) == 1 and TWO_CLASS_QOS.sl_of(0x0A01) == 0
    # without per-partition levels there is no policy file, and opensm.conf names none
    plain = replace(fab, qos=replace(TWO_CLASS_QOS, partition_sl=()))
    assert qos_policy(plain) is None
    assert "qos_policy_file" not in opensm_conf(plain, plain.sms[0])


def test_empty_partition_is_one_line(fab) -> None:
    f = replace(fab, partitions=(Partition("spare", 0x0123, ()),))
    assert partitions_conf(f, PORT).splitlines()[-2:] == ["# spare: 0 members", "spare=0x0123 : ;"]


@pytest.mark.parametrize(("change", "problem"), [
    (dict(lmc=1), "ftree does not support LMC > 0 (OpenSM falls back to minhop): set lmc 0 or use updn"),
    (dict(lmc=8), "LMC 8 is outside 0-7"),
    (dict(routing_engine="fattree"), "routing engine 'fattree' is not one OpenSM knows"),
    (dict(sms=(SubnetManager("spine1", 16),)), "subnet manager on spine1: priority 16 is outside 0-15"),
    (dict(sms=(SubnetManager("spine1", 7), SubnetManager("spine2", 7))),
     "2 subnet managers share priority 7: the master is then the lowest GUID, not planned"),
    (dict(sms=(SubnetManager("ufm1", 15),)), "subnet manager on 'ufm1': not a planned switch or HCA"),
    (dict(sms=()), "no subnet manager is planned"),
    (dict(partitions=(Partition("a", 0x10, ()), Partition("b", 0x10, ())), qos=None),
     "PKey 0x0010 is used by 2 partitions"),
    (dict(partitions=(Partition("d", 0x7FFF, ()),), qos=None),
     "partition d: PKey 0x7fff is outside 0x0001-0x7ffe (0x7fff is the default)"),
    (dict(partitions=(Partition("a b", 0x10, ()),), qos=None),
     "partition 'a b': a name is letters, digits, '-' and '_'"),
    (dict(partitions=(Partition("a", 0x10, (Member("spine1"),)),), qos=None),
     "partition a: member 'spine1' is not a planned HCA"),
    (dict(qos=replace(TWO_CLASS_QOS, partition_sl=((0x0B01, 16),))), "QoS: service level 16 is outside 0-15"),
    (dict(partitions=()), "QoS: PKey 0x0b01 has a service level but no partition"),
])
def test_problems(fab, change, problem) -> None:
    # (the partition cases drop the QoS plan, whose storage service level would name the missing 0x0b01 too)
    assert problems(replace(fab, **change)) == [problem]


def test_cable_problems(fab) -> None:
    # leaf-rail0 has 8 ports; port 9 does not exist; dgx01 mlx5_0[1] is already cabled to leaf-rail0[1]
    extra = (Cable(End("leaf-rail0", 9), End("spine1", 5)), Cable(End("leaf-rail0", 5), End("dgx01 mlx5_0", 1)),
             Cable(End("leaf-rail0", 6), End("nowhere", 1)))
    assert problems(replace(fab, cables=fab.cables + extra)) == [
        "cable leaf-rail0[9] - spine1[5]: leaf-rail0 has ports 1-8, not 9",
        "cable leaf-rail0[6] - nowhere[1]: 'nowhere' is not a planned switch or HCA",
        "port dgx01 mlx5_0[1] is used by 2 cables",
    ]


def test_qos_problems(fab) -> None:
    bad = replace(TWO_CLASS_QOS, max_vls=3, sl2vl=(0, 3) + (0,) * 13, vlarb_high=((15, 300),))
    assert problems(replace(fab, qos=bad)) == [
        "QoS: max VLs 3 is not 1, 2, 4, 8 or 15",
        "QoS: the SL-to-VL map has 15 entries, not 16",
        "QoS: SL 1 maps to VL 3, beyond the 3 data VLs",
        "QoS: VL arbitration high entry 15:300 is outside VL 0-14, weight 0-255",
    ]
