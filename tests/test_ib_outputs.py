"""The site outputs of an InfiniBand fabric (railfabric/infiniband/outputs_*.py), every expected text derived by hand.

The fabric: rail_fat_tree("lab", hosts=2, rails=2, spines=2, ports=8) (railfabric.infiniband.build):
  spines spine1, spine2; leaves leaf-rail0, leaf-rail1; hosts dgx01, dgx02, each with mlx5_0 (rail 0) and mlx5_1
  (rail 1), HCA r on leaf-rail<r>. Leaf ports: host h's HCA on port h+1 (dgx01 -> 1, dgx02 -> 2), then
  hosts+1+s = 3 to spine1 and 4 to spine2. Spine ports: r+1 to leaf-rail<r>. Switch model QM9700 (NDR, lane
  speed 100G, ibdiagnet type MQM9700). SMs on spine1 (15, master) and spine2 (14).
Partitions (build.two_tenants): tenant-a 0x0a01 = dgx01's HCAs full; tenant-b 0x0a02 = dgx02's HCAs full; storage
0x0b01 = dgx01 full, dgx02 limited. QoS (TWO_CLASS_QOS): default SL 0, storage (0x0b01) SL 1.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from railfabric.infiniband.build import TWO_CLASS_QOS, rail_fat_tree, two_tenants
from railfabric.infiniband.model import Cable, End, Hca, Member, Membership, Partition, SubnetManager, Switch
from railfabric.infiniband.outputs_hosts import host_plans, hosts_json, nccl_conf, pkey_order, pkey_table
from railfabric.infiniband.outputs_ibdiag import host_type, ibnl_files, topology_file
from railfabric.infiniband.outputs_nvidia_sm import nvidia_opensm_conf, plan
from railfabric.infiniband.outputs_site import site_outputs


@pytest.fixture
def fab():
    f = rail_fat_tree("lab", hosts=2, rails=2, spines=2, ports=8, qos=TWO_CLASS_QOS)
    return replace(f, partitions=two_tenants(f))


# Every cable from both ends. spine1: P1 to leaf-rail0's port 3 (spine1 = s 0 -> leaf port 2+1+0 = 3), P2 to
# leaf-rail1's port 3; spine2 the same on leaf port 4. leaf-rail0: P1 dgx01's rail-0 HCA = unit mlx5_0 of the host
# with 2 HCAs mlx5_* (type HCA_mlx5_2), P2 dgx02's mlx5_0, P3 spine1 P1, P4 spine2 P1; leaf-rail1 likewise with
# mlx5_1 and spine ports P2. The host sections: mlx5_0/P1 to the host's leaf-rail0 port, mlx5_1/P1 to leaf-rail1's.
# Every link: switch-to-switch or HCA-to-switch on QM9700 -> -4x-100G->.
TOPO = """\
MQM9700 spine1
   P1 -4x-100G-> MQM9700 leaf-rail0 P3
   P2 -4x-100G-> MQM9700 leaf-rail1 P3

MQM9700 spine2
   P1 -4x-100G-> MQM9700 leaf-rail0 P4
   P2 -4x-100G-> MQM9700 leaf-rail1 P4

MQM9700 leaf-rail0
   P1 -4x-100G-> HCA_mlx5_2 dgx01 mlx5_0/P1
   P2 -4x-100G-> HCA_mlx5_2 dgx02 mlx5_0/P1
   P3 -4x-100G-> MQM9700 spine1 P1
   P4 -4x-100G-> MQM9700 spine2 P1

MQM9700 leaf-rail1
   P1 -4x-100G-> HCA_mlx5_2 dgx01 mlx5_1/P1
   P2 -4x-100G-> HCA_mlx5_2 dgx02 mlx5_1/P1
   P3 -4x-100G-> MQM9700 spine1 P2
   P4 -4x-100G-> MQM9700 spine2 P2

HCA_mlx5_2 dgx01
   mlx5_0/P1 -4x-100G-> MQM9700 leaf-rail0 P1
   mlx5_1/P1 -4x-100G-> MQM9700 leaf-rail1 P1

HCA_mlx5_2 dgx02
   mlx5_0/P1 -4x-100G-> MQM9700 leaf-rail0 P2
   mlx5_1/P1 -4x-100G-> MQM9700 leaf-rail1 P2
"""

# Both hosts have two single-port HCAs: one type HCA_mlx5_2, units mlx5_0, mlx5_1 (ConnectX-7, MT4129), port 1 each.
IBNL = """\
TOPSYSTEM HCA_mlx5_2

NODE CA 1 MT4129 mlx5_0
   1 -> mlx5_0/P1

NODE CA 1 MT4129 mlx5_1
   1 -> mlx5_1/P1
"""


def test_topology_file(fab) -> None:
    assert topology_file(fab) == TOPO
    assert ibnl_files(fab) == {"hca_mlx5_2.ibnl": IBNL}
    assert topology_file(fab) == topology_file(fab)  # deterministic


def test_width_only_form_and_switch_ibnl(fab) -> None:
    # speed=False: every known-model link as -4x-> (the legacy IBDM form); the switch IBNL: QM9700 -> MQM9700,
    # Quantum-2 ASIC MT54002, 8 ports (ports=8) each P<p>.
    assert topology_file(fab, speed=False) == TOPO.replace("-4x-100G->", "-4x->")
    files = ibnl_files(fab, switches=True)
    assert sorted(files) == ["hca_mlx5_2.ibnl", "mqm9700.ibnl"]
    assert files["mqm9700.ibnl"] == "TOPSYSTEM MQM9700\n\nNODE SW 8 MT54002 U1\n" + "".join(
        f"   {p} -> P{p}\n" for p in range(1, 9))


def test_topology_unknown_model_and_rail_order(fab) -> None:
    # An unknown switch model: its own name as the type, links to it without width/speed (`->`). HCAs listed out of
    # rail order in the plan are still listed in rail order: mlx5_0 (rail 0) first.
    sw = tuple(replace(s, model="X1") if s.name == "spine2" else s for s in fab.switches)
    f = replace(fab, switches=sw, hcas=tuple(reversed(fab.hcas)))
    text = topology_file(f)
    assert "X1 spine2\n   P1 -> MQM9700 leaf-rail0 P4\n   P2 -> MQM9700 leaf-rail1 P4\n" in text
    assert "   P4 -> X1 spine2 P1\n" in text
    # hosts in plan order (reversed: dgx02 first), units still by rail
    assert text.endswith("HCA_mlx5_2 dgx01\n   mlx5_0/P1 -4x-100G-> MQM9700 leaf-rail0 P1\n"
                         "   mlx5_1/P1 -4x-100G-> MQM9700 leaf-rail1 P1\n")


def test_host_type_with_two_port_hcas(fab) -> None:
    # dgx01's HCAs with 2 ports each: type HCA_mlx5_2_2-2, its IBNL lists ports 1 and 2 of each unit; dgx02 keeps
    # HCA_mlx5_2.
    f = replace(fab, hcas=tuple(replace(h, ports=2) if h.host == "dgx01" else h for h in fab.hcas))
    files = ibnl_files(f)
    assert sorted(files) == ["hca_mlx5_2.ibnl", "hca_mlx5_2_2-2.ibnl"]
    assert files["hca_mlx5_2_2-2.ibnl"] == (
        "TOPSYSTEM HCA_mlx5_2_2-2\n\nNODE CA 2 MT4129 mlx5_0\n   1 -> mlx5_0/P1\n   2 -> mlx5_0/P2\n\n"
        "NODE CA 2 MT4129 mlx5_1\n   1 -> mlx5_1/P1\n   2 -> mlx5_1/P2\n")
    assert "HCA_mlx5_2_2-2 dgx01\n   mlx5_0/P1 -4x-100G-> MQM9700 leaf-rail0 P1\n" in topology_file(f)


class _Named(Hca):
    """An HCA whose device name is given (the host model's RDMA name, as the inventory will supply it)."""

    def __init__(self, host: str, index: int, device: str) -> None:
        super().__init__(host, index, index)
        object.__setattr__(self, "_dev", device)

    @property
    def device(self) -> str:  # type: ignore[override]
        return str(self.__dict__["_dev"])


def test_host_type_names() -> None:
    # devices <stem>_<digits> with one stem: HCA_<stem>_<n>; anything else: HCA_<n>.
    assert host_type((Hca("h", 0, 0), Hca("h", 1, 1), Hca("h", 2, 2))) == "HCA_mlx5_3"
    assert host_type((_Named("h", 0, "ibp0"), _Named("h", 1, "ibp1"))) == "HCA_2"
    assert host_type((_Named("h", 0, "mlx5_0"), _Named("h", 1, "ibp_1"))) == "HCA_2"
    assert host_type((_Named("h", 0, "mlx5_0"), _Named("h", 1, "mlx5_x"))) == "HCA_2"


# The upstream profile of spine1 (tests/test_ib_files.py derives it) with: the header replaced by the NVIDIA one;
# routing_engine ftree -> ar_ftree (QM9700 is not XDR); all switches QM9700 (Quantum-2) and an ar_* engine, SHIELD
# wanted -> pFRN on -> shield_mode not written; pfrn_sl = the QoS default SL 0.
NVIDIA_SPINE1 = """\
# railfabric: NVIDIA SM (MLNX OpenSM / UFM) configuration of the subnet manager on spine1 (fabric lab)
# NOT checkable offline: upstream OpenSM does not know the NVIDIA keys below; check on NVIDIA's SM
# adaptive routing on (ar_ftree), SHIELD on, pFRN on
# priority 15 of spine1=15, spine2=14: the higher is master
subnet_prefix 0xfe80000000000000
routing_engine ar_ftree
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
# shield_mode: NVIDIA's default (SHIELD and pFRN on) is kept
pfrn_sl 0
"""


def test_nvidia_sm_profile(fab) -> None:
    assert nvidia_opensm_conf(fab, fab.master) == NVIDIA_SPINE1


def test_nvidia_sm_decisions(fab) -> None:
    # SHIELD off: shield_mode 0, no pFRN, no pfrn_sl.
    p = plan(fab, shield=False)
    assert (p.engine, p.shield_mode, p.pfrn, p.pfrn_sl) == ("ar_ftree", 0, False, None)
    text = nvidia_opensm_conf(fab, fab.sms[1], shield=False)
    assert text.splitlines()[-1] == "shield_mode 0" and "sm_priority 14\n" in text and "pfrn_sl" not in text
    # XDR (a Q3400 spine): ar_ftree -> ar_updn (no cn_guid_file for updn), pFRN not on Quantum-X800 -> shield_mode 2.
    xdr = replace(fab, switches=tuple(Switch(s.name, "Q3400", 144, s.tier) if s.name == "spine1" else s
                                      for s in fab.switches))
    p = plan(xdr)
    assert (p.engine, p.shield_mode, p.pfrn) == ("ar_updn", 2, False)
    text = nvidia_opensm_conf(xdr, xdr.master)
    assert "routing_engine ar_updn\nroot_guid_file /etc/opensm/root-guids.conf\nlmc 0\n" in text
    assert text.endswith("shield_mode 2\n")
    # A QoS plan with default SL 3: pfrn_sl 3. An engine without AR variant (minhop): AR off, pFRN off, mode 2.
    q3 = replace(fab, qos=replace(TWO_CLASS_QOS, default_sl=3))
    assert plan(q3).pfrn_sl == 3
    p = plan(replace(fab, routing_engine="minhop"))
    assert (p.engine, p.adaptive_routing, p.shield_mode) == ("minhop", False, 2)


def test_pkey_order_is_openSM_walk_order() -> None:
    # Network byte order read little-endian: 0x7000 -> (0x00, 0x70), 0x0a01 -> (0x01, 0x0a), 0x0b01 -> (0x01, 0x0b),
    # 0x0102 -> (0x02, 0x01), 0x0a02 -> (0x02, 0x0a). The full-membership bit does not count.
    keys = [0x0A02, 0x0102, 0x0B01, 0x0A01, 0x7000]
    assert sorted(keys, key=pkey_order) == [0x7000, 0x0A01, 0x0B01, 0x0102, 0x0A02]
    assert pkey_order(0x8A01) == pkey_order(0x0A01)


def test_pkey_tables(fab) -> None:
    # dgx01 HCAs: default, tenant-a 0x0a01 (low byte 01, high 0a), storage 0x0b01 (01, 0b).
    # dgx02 HCAs: default, storage 0x0b01 (01, 0b), tenant-b 0x0a02 (02, 0a): storage comes BEFORE tenant-b.
    assert pkey_table(fab, "dgx01 mlx5_0") == (0x7FFF, 0x0A01, 0x0B01)
    assert pkey_table(fab, "dgx02 mlx5_1") == (0x7FFF, 0x0B01, 0x0A02)


# dgx01: full in tenant-a (SL default 0) and storage (SL 1, not the compute SL) -> compute partition tenant-a,
# index 1 in (0x7fff, 0x0a01, 0x0b01); SL 0. dgx02: full in tenant-b only (storage limited) -> tenant-b at index 2
# in (0x7fff, 0x0b01, 0x0a02); SL 0.
NCCL_DGX01 = """\
# railfabric: NCCL settings of dgx01 (fabric lab), for /etc/nccl.conf
# NCCL skips lines without an equals sign, and a variable already set in the environment wins
# HCAs in rail order: rail 0 mlx5_0, rail 1 mlx5_1
# compute partition tenant-a PKey 0x0a01, at this index in every HCA's PKey table (OpenSM order, see \
docs/infiniband-outputs.md)
NCCL_IB_HCA==mlx5_0:1,mlx5_1:1
NCCL_IB_SL=0
NCCL_IB_PKEY=1
"""


def test_nccl_conf(fab) -> None:
    plans = host_plans(fab)
    assert [hp.host for hp in plans] == ["dgx01", "dgx02"]
    assert nccl_conf(fab, plans[0]) == NCCL_DGX01
    dgx02 = nccl_conf(fab, plans[1])
    assert dgx02.splitlines()[-3:] == ["NCCL_IB_HCA==mlx5_0:1,mlx5_1:1", "NCCL_IB_SL=0", "NCCL_IB_PKEY=2"]
    # every line NCCL would take as a variable is one we mean
    for text in (NCCL_DGX01, dgx02):
        assert [ln.split("=", 1)[0] for ln in text.splitlines() if "=" in ln] == \
            ["NCCL_IB_HCA", "NCCL_IB_SL", "NCCL_IB_PKEY"]


def test_nccl_sl_from_qos(fab) -> None:
    # The compute SL is the QoS plan's default SL: with default 2 and storage 1, tenant-a (no SL of its own) runs
    # on SL 2; storage (SL 1) is then still not a compute partition.
    f = replace(fab, qos=replace(TWO_CLASS_QOS, default_sl=2))
    assert host_plans(f)[0].sl == 2 and host_plans(f)[0].partition is not None
    # tenant-b given its own SL 4: it is no longer in the compute class (SL != default 0), so dgx02 has no compute
    # partition: the default partition, no PKey index, SL = the default 0.
    g = replace(fab, qos=replace(TWO_CLASS_QOS, partition_sl=((0x0B01, 1), (0x0A02, 4))))
    hp = host_plans(g)[1]
    assert (hp.partition, hp.pkey_index, hp.sl) == (None, None, 0)
    assert "NCCL_IB_PKEY=" not in nccl_conf(g, hp)


def test_no_qos_no_partitions() -> None:
    f = rail_fat_tree("plain", hosts=1, rails=3, spines=1, ports=8)
    (hp,) = host_plans(f)
    text = nccl_conf(f, hp)
    assert text.splitlines()[-1] == "NCCL_IB_HCA==mlx5_0:1,mlx5_1:1,mlx5_2:1"
    assert "NCCL_IB_SL=" not in text and "NCCL_IB_PKEY=" not in text
    assert "# compute partition: the default partition (PKey index 0, NCCL's default)" in text


def test_limited_default_without_compute_partition() -> None:
    # Default partition limited for every HCA (partitions.conf "ALL_CAS=limited"), no other partition: limited
    # members cannot talk to each other (IBTA P_Key rules), so the host gets a note, no index, and the conf says so.
    f = rail_fat_tree("plain", hosts=2, rails=1, spines=1, ports=8, default_membership=Membership.LIMITED)
    hp = host_plans(f)[0]
    assert hp.pkey_index is None and hp.notes == (
        "no compute partition and the HCAs are limited members of the default partition: two limited members cannot "
        "talk, so NCCL between hosts fails until a compute partition is planned",)
    assert "# no compute partition and the HCAs are limited members" in nccl_conf(f, hp)
    # with tenant partitions (full) the note goes away
    g = replace(f, partitions=(Partition("t", 0x0A01, tuple(Member(h.name) for h in f.hcas)),))
    assert host_plans(g)[0].notes == () and host_plans(g)[0].pkey_index == 1


def test_ambiguous_and_uncabled(fab) -> None:
    # dgx01 also full in a second SL-0 partition: two compute candidates -> no index, a note naming both.
    extra = Partition("tenant-c", 0x0A03, tuple(Member(h.name) for h in fab.hcas if h.host == "dgx01"))
    f = replace(fab, partitions=(*fab.partitions, extra))
    hp = host_plans(f)[0]
    assert hp.pkey_index is None and hp.notes == (
        "in several compute partitions (tenant-a, tenant-c): NCCL_IB_PKEY not written, the job must choose",)
    assert "NCCL_IB_PKEY=" not in nccl_conf(f, hp)
    # dgx01 mlx5_1's cable removed: NCCL_IB_HCA lists only mlx5_0:1.
    g = replace(fab, cables=tuple(c for c in fab.cables if "dgx01 mlx5_1" not in (c.a.node, c.z.node)))
    assert "NCCL_IB_HCA==mlx5_0:1\n" in nccl_conf(g, host_plans(g)[0])


def test_different_indices_on_one_host(fab) -> None:
    # dgx01 mlx5_1 alone also in partition 0x0001 (low byte 01, high 00: first of its partitions) -> tenant-a at
    # index 1 on mlx5_0 but 2 on mlx5_1: one NCCL_IB_PKEY cannot serve both, none is written.
    odd = Partition("odd", 0x0001, (Member("dgx01 mlx5_1", Membership.LIMITED),))
    f = replace(fab, partitions=(*fab.partitions, odd))
    assert pkey_table(f, "dgx01 mlx5_1") == (0x7FFF, 0x0001, 0x0A01, 0x0B01)
    hp = host_plans(f)[0]
    assert hp.pkey_index is None
    assert hp.notes == ("the HCAs hold tenant-a at different PKey indices [1, 2]: NCCL_IB_PKEY not written",)


def test_hosts_json(fab) -> None:
    data = json.loads(hosts_json(fab))
    assert data["fabric"] == "lab" and sorted(data["hosts"]) == ["dgx01", "dgx02"]
    d2 = data["hosts"]["dgx02"]
    assert d2["compute_partition"] == {"name": "tenant-b", "pkey": "0x0a02"}
    assert d2["nccl"] == {"NCCL_IB_HCA": "=mlx5_0:1,mlx5_1:1", "NCCL_IB_SL": 0, "NCCL_IB_PKEY": 2}
    assert d2["hcas"][1] == {"device": "mlx5_1", "rail": 1, "node_description": "dgx02 mlx5_1",
                             "ibdiagnet_port": "HCA_mlx5_2 dgx02 mlx5_1/P1",
                             "pkey_table": ["0x7fff", "0x0b01", "0x0a02"]}
    assert hosts_json(fab) == hosts_json(fab)



def test_a_comment_with_an_equals_sign_is_refused(fab) -> None:
    # NCCL would read "# railfabric: ... (fabric a=b) ..." as a variable named "# railfabric: ... (fabric a":
    # the writer refuses rather than write it.
    f = replace(fab, name="a=b")
    with pytest.raises(ValueError, match="comment line with '='"):
        nccl_conf(f, host_plans(f)[0])


def test_a_cable_to_an_unplanned_node_is_refused(fab) -> None:
    # model.problems() reports it first; the writer refuses rather than invent a name.
    f = replace(fab, cables=(*fab.cables, Cable(End("leaf-rail0", 5), End("ghost mlx5_0", 1))))
    with pytest.raises(ValueError, match="ghost mlx5_0"):
        topology_file(f)


def test_site_outputs(fab) -> None:
    # Files: the topology, one IBNL (both hosts are HCA_mlx5_2), one NVIDIA SM conf per SM (spine1, spine2), one
    # nccl.conf per host (dgx01, dgx02), the JSON: 1 + 1 + 2 + 2 + 1 = 7, sorted by name.
    files = site_outputs(fab)
    assert list(files) == ["hosts/dgx01/nccl.conf", "hosts/dgx02/nccl.conf", "hosts/hosts.json",
                           "ibdiag/ibnl/hca_mlx5_2.ibnl", "ibdiag/topology.topo", "nvidia-sm/opensm-spine1.conf",
                           "nvidia-sm/opensm-spine2.conf"]
    assert files["ibdiag/topology.topo"] == TOPO and files["nvidia-sm/opensm-spine1.conf"] == NVIDIA_SPINE1
    assert files["hosts/dgx01/nccl.conf"] == NCCL_DGX01
    # an SM on an HCA: its node description has a space, the file name an underscore
    g = replace(fab, sms=(SubnetManager("dgx01 mlx5_0", 15),))
    assert "nvidia-sm/opensm-dgx01_mlx5_0.conf" in site_outputs(g)
