"""`fabric size` (railfabric/plan/sizing.py) against NVIDIA's DGX SuperPOD tables (../shared/REFERENCE.md §4.1) and the
k-ary fat-tree formulas (§4.3). Where our model differs from a published number we assert our own value and say
why in a comment; the model is never bent to hit a number it cannot justify.

Reminder of the model (the module docstring has it in full): radix R = ports × lanes at the NIC speed; a rail
switch takes R/2 hosts (R·r/(r+1) at oversubscription r) and has one rail; a segment (SU) = that many hosts, one
rail switch per rail; spines = the fewest with which every rail switch has the same number of links to every spine;
2 tiers up to R rail switches, then pods of R/2 rail switches under super-spines in planes.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from railfabric.core.finding import Severity
from railfabric.pipeline import Result, run
from railfabric.plan.sizing import (
    HostSpec,
    Sizing,
    SwitchSpec,
    format_text,
    host_preset,
    inventory_skeleton,
    presets,
    size_fabric,
    switch_preset,
)

H100 = host_preset("dgx-h100")  # 8 GPUs, 8 × 400G
B200 = host_preset("dgx-b200")  # 8 GPUs, 8 × 400G
B300 = host_preset("dgx-b300")  # 8 GPUs, 8 × 800G
QM9700 = switch_preset("qm9700")  # 64 × 400G NDR: radix 64
SN5600 = switch_preset("sn5600")  # 64 × 800G, 2x400G: radix 64 at 800G, 128 at 400G
Q3400 = switch_preset("q3400")  # 144 × 800G XDR: radix 144


def counts(s: Sizing) -> tuple[int, int, int]:
    return s.rail_switches, s.spines, s.super_spines


def cables(s: Sizing) -> tuple[int, int, int]:
    return s.host_links, s.fabric_links, s.core_links


# --------------------------------------------------------------------------- presets


def test_presets_and_radix() -> None:
    p = presets()
    assert {"dgx-h100", "dgx-b200", "dgx-b300"} <= set(p.hosts)
    assert {"qm9700", "sn5600"} <= set(p.switches)
    assert (H100.gpus, H100.nics, H100.nic_speed_gbps) == (8, 8, 400)
    assert (B300.gpus, B300.nics, B300.nic_speed_gbps) == (8, 8, 800)
    assert QM9700.radix(400) == 64
    assert SN5600.radix(400) == 128 and SN5600.radix(800) == 64 and SN5600.radix(100) == 0
    assert Q3400.radix(800) == 144
    assert SwitchSpec("x", 32, 400, [(2, 200)]).breakouts == ((2, 200),)  # a list is accepted


# --------------------------------------------------------------------------- NVIDIA DGX SuperPOD H100 (Table 4)

# SU, leaves, spines, leaf-spine cables, NVIDIA's node-leaf cables
H100_TABLE = [(1, 8, 4, 256, 252), (2, 16, 8, 512, 508), (3, 24, 16, 768, 764), (4, 32, 16, 1024, 1020)]


@pytest.mark.parametrize(("su", "leaves", "spines", "leaf_spine", "nvidia_node_leaf"), H100_TABLE)
def test_h100_superpod(su: int, leaves: int, spines: int, leaf_spine: int, nvidia_node_leaf: int) -> None:
    # Full SUs of 32 DGX H100 (QM9700: 64 ports, 32 down and 32 up per leaf, one leaf per rail per SU).
    s = size_fabric(256 * su, H100, QM9700)
    assert s.tiers == 2 and s.hosts_per_segment == 32 and s.segments == su
    assert counts(s) == (leaves, spines, 0)
    assert cables(s) == (256 * su, leaf_spine, 0)

    # NVIDIA's table has 32·SU - 1 nodes (31, 63, 95, 127): the UFM appliance takes one node slot of the first SU,
    # fabric-wide (not one per SU: 2 SU = 63 nodes, not 62), and NVIDIA's node-leaf count includes the UFM's
    # 4 NDR links: 252 = 31·8 + 4, 508 = 63·8 + 4, 764 = 95·8 + 4, 1020 = 127·8 + 4. We size GPU servers only, so
    # our host-leaf count is 4 lower; leaves, spines and leaf-spine cables are the same, because a partial SU keeps
    # the uplinks of a full one (as NVIDIA prescribes) and 31 hosts' 31 uplinks round up to 32 when spread evenly.
    nodes = 32 * su - 1
    n = size_fabric(8 * nodes, H100, QM9700)
    assert counts(n) == (leaves, spines, 0)
    assert cables(n) == (nvidia_node_leaf - 4, leaf_spine, 0)
    assert n.leaf_uplinks == 32


def test_h100_three_su_spines_spread_evenly() -> None:
    # Pure arithmetic says 24 leaves × 32 uplinks = 768 = 12 spines × 64 ports. But railfabric (and NVIDIA) give
    # every leaf the same number of links to every spine: 32 uplinks over 12 spines would need 3 links each, i.e.
    # 36 uplinks on a leaf that has only 32 ports left (and 72 ports on a 64-port spine). The first count that
    # works is 16 spines with 2 links each: NVIDIA's 16. Each spine then uses 48 of its 64 ports (room for a 4th
    # SU, which NVIDIA's 4-SU row fills: 32 leaves × 2 = 64).
    s = size_fabric(768, H100, QM9700)
    assert s.min_spines_per_pod == 12
    assert (s.spines_per_pod, s.links_per_spine, s.spine_downlinks) == (16, 2, 48)
    assert any("not the arithmetic 12" in note for note in s.notes)


# --------------------------------------------------------------------------- NVIDIA DGX SuperPOD B200

# SU, leaves, spines, core, node-leaf, leaf-spine, spine-core: every row of REFERENCE.md's B200 table
B200_TABLE = [
    (2, 16, 8, 0, 512, 512, 0),
    (4, 32, 16, 0, 1024, 1024, 0),
    (8, 64, 32, 0, 2048, 2048, 0),
    (16, 128, 128, 64, 4096, 4096, 4096),
    (32, 256, 256, 128, 8192, 8192, 8192),
    (64, 512, 512, 256, 16384, 16384, 16384),
]


@pytest.mark.parametrize(("su", "leaves", "spines", "core", "node_leaf", "leaf_spine", "spine_core"), B200_TABLE)
def test_b200_superpod(su: int, leaves: int, spines: int, core: int, node_leaf: int, leaf_spine: int,
                       spine_core: int) -> None:
    # Our model reproduces every row. 8 SU = 2,048 GPUs is the 2-tier limit of radix 64 (R²/2 = 2048 ports: 64
    # leaves with one link to each of 32 spines); from 16 SU a core tier is needed. In 3 tiers a pod is R/2 = 32
    # leaves (4 SU) under 32 spines (32 down, 32 up each), so spines = 8 per SU as in NVIDIA's table, and the core
    # holds the spines' uplinks: 16 SU = 4 pods × 32 spines × 32 = 4096 links = 64 core switches × 64 ports.
    s = size_fabric(256 * su, B200, QM9700)
    assert s.tiers == (3 if core else 2)
    assert counts(s) == (leaves, spines, core)
    assert cables(s) == (node_leaf, leaf_spine, spine_core)
    if core:
        # A spine has 32 uplinks but there are 64+ core switches, so spines cannot each meet every core switch:
        # the core comes in planes (spine i of every pod meets only plane i's core switches, as in a fat-tree).
        # With 4 pods: 2 planes × 32, one link from each of the 16 spines of a plane in each pod (4 × 16 = 64).
        assert (s.pods, s.spines_per_pod, s.links_per_spine) == (su // 4, 32, 1)
        assert s.planes * s.super_spines_per_plane == core
        assert s.pods * (s.spines_per_pod // s.planes) * s.links_per_super_spine == 64  # every core port used
    assert s.notes == ()


# --------------------------------------------------------------------------- NVIDIA DGX SuperPOD B300

# SU (64 DGX B300), leaves, spines, node-leaf cables, leaf-spine cables (Spectrum-X 800G Ethernet)
B300_TABLE = [(1, 16, 8, 512, 512), (2, 32, 16, 1024, 1024), (4, 64, 32, 2048, 2048), (8, 128, 64, 4096, 4096),
              (16, 256, 128, 8192, 8192)]


@pytest.mark.parametrize(("su", "leaves", "spines", "node_leaf", "leaf_spine"), B300_TABLE)
def test_b300_superpod(su: int, leaves: int, spines: int, node_leaf: int, leaf_spine: int) -> None:
    # Sized naively, as 8 × 800G NICs on a radix-64 800G switch (SN5600 class): an NVIDIA SU of 64 nodes is two of
    # our 32-host segments. This matches NVIDIA up to 4 SU (2,048 ports = R²/2, the 2-tier limit of radix 64), but
    # from 8 SU our model needs a third tier where NVIDIA stays at two.
    s = size_fabric(512 * su, B300, SN5600)
    if su <= 4:
        assert s.tiers == 2 and counts(s) == (leaves, spines, 0)
        assert cables(s) == (node_leaf, leaf_spine, 0)
    else:
        assert s.tiers == 3
        assert counts(s) == {8: (128, 128, 64), 16: (256, 256, 128)}[su]
        assert cables(s) == (node_leaf, leaf_spine, leaf_spine)

    # Why: NVIDIA's B300 Spectrum-X fabric is twin-planar (docs.nvidia.com/dgx-superpod/reference-architecture/
    # scalable-infrastructure-b300/latest/network-fabrics.html: "each GPU has 2x 400GbE connectivity through two
    # different planes"); the planes are two independent fabrics. Sizing one plane as 8 × 400G NICs on the same
    # switch at 2x400G (radix 128: 64 hosts per leaf, 2 tiers up to 8,192 ports) and doubling reproduces every
    # row, 8 and 16 SU included (16 SU: 128 leaves × 1 link to each of 64 spines per plane).
    plane = size_fabric(512 * su, HostSpec(8, 8, 400, "b300-plane"), SN5600)
    assert plane.tiers == 2 and plane.hosts_per_segment == 64 and plane.segments == su
    assert (2 * plane.rail_switches, 2 * plane.spines) == (leaves, spines)
    # NVIDIA's cable counts equal one plane's 400G link count: both planes together have twice as many 400G
    # links, so NVIDIA counts 800G cables carrying two 400G links each (our derivation; the RA gives counts only).
    assert (plane.host_links, plane.fabric_links) == (node_leaf, leaf_spine)


# SU (72 DGX B300 on Quantum-X800 XDR), leaves, spines: REFERENCE.md's B300-XDR variant and NVIDIA's table
B300_XDR_TABLE = [(1, 8, 4), (2, 16, 8), (4, 32, 18), (8, 64, 36), (18, 144, 72)]


@pytest.mark.parametrize(("su", "leaves", "spines"), B300_XDR_TABLE)
def test_b300_xdr_superpod(su: int, leaves: int, spines: int) -> None:
    # Radix 144 at 800G: 72 hosts per leaf (NVIDIA's SU of 72 nodes), 2 tiers up to 144 leaves (18 SU).
    s = size_fabric(576 * su, B300, Q3400)
    assert s.tiers == 2 and s.hosts_per_segment == 72
    assert counts(s) == (leaves, spines, 0)
    assert cables(s) == (576 * su, 576 * su, 0)
    if su == 4:
        # Not a power of two, and not the arithmetic 16 (32 × 72 / 144): 72 uplinks over 16 spines would need 5
        # links each (spines: 32 × 5 = 160 > 144 ports); 18 spines take exactly 4. NVIDIA's count is the even
        # split too, so "powers of two" in the QM9700 tables is a consequence of 32 uplinks, not a rule.
        assert (s.min_spines_per_pod, s.spines_per_pod, s.links_per_spine) == (16, 18, 4)


# --------------------------------------------------------------------------- fat-tree (Al-Fares et al. 2008)


def one_nic_switch(k: int) -> tuple[HostSpec, SwitchSpec]:
    return HostSpec(1, 1, 400, "one-nic"), SwitchSpec(f"k{k}", k, 400)


@pytest.mark.parametrize("k", [8, 16, 64])
def test_fat_tree(k: int) -> None:
    # Hosts with one NIC are one rail: a segment is k/2 hosts on one edge switch, a pod is k/2 segments (k/2 edge
    # switches) under k/2 spines (aggregation), and the core comes in k/2 planes of k/2 (the fat-tree's core groups).
    host, switch = one_nic_switch(k)
    s = size_fabric(k**3 // 4, host, switch)
    assert s.tiers == 3 and s.hosts == k**3 // 4
    assert s.switches == 5 * k * k // 4
    assert counts(s) == (k * k // 2, k * k // 2, k * k // 4)
    assert (s.hosts_per_segment, s.segments_per_pod, s.pods, s.spines_per_pod) == (k // 2, k // 2, k, k // 2)
    assert (s.planes, s.super_spines_per_plane) == (k // 2, k // 2)
    assert (s.links_per_spine, s.links_per_super_spine) == (1, 1)
    assert cables(s) == (k**3 // 4,) * 3
    assert s.max_gpus == k**3 // 4
    # k³/4 is the ceiling: one host more needs a (k+1)-th pod, and a core switch has only k ports.
    with pytest.raises(ValueError, match=rf"joins at most {k} pods"):
        size_fabric(k**3 // 4 + 1, host, switch)


@pytest.mark.parametrize("k", [8, 16, 64])
def test_two_tier_limit(k: int) -> None:
    # 2 tiers hold R²/2 ports: k edge switches (k/2 hosts each) with one link to each of k/2 spines.
    host, switch = one_nic_switch(k)
    s = size_fabric(k * k // 2, host, switch)
    assert s.tiers == 2 and counts(s) == (k, k // 2, 0) and s.max_gpus == k * k // 2
    assert size_fabric(k * k // 2 + 1, host, switch).tiers == 3
    with pytest.raises(ValueError, match="use 3 tiers"):
        size_fabric(k * k // 2 + 1, host, switch, tiers=2)


# --------------------------------------------------------------------------- oversubscription and tiers


def test_oversubscription_three_to_one() -> None:
    # 3:1 at the rail switches: 48 host ports + 16 uplinks on a 64-port QM9700 (64·3/4 = 48), so a segment is 48
    # hosts. 1,536 GPUs = 192 hosts = 4 segments = 32 rail switches × 16 uplinks = 512 = 8 spines × 64 (2 links
    # from each rail switch to each spine).
    s = size_fabric(1536, H100, QM9700, oversubscription=3)
    assert (s.hosts_per_segment, s.segments, s.leaf_uplinks, s.links_per_spine) == (48, 4, 16, 2)
    assert counts(s) == (32, 8, 0)
    assert cables(s) == (1536, 512, 0)
    assert s.leaf_ratio == 3
    assert s.max_gpus == 8 * 48 * 8  # 2 tiers: 64 rail switches = 8 segments of 48 hosts
    # Non-blocking, the same GPUs need 6 segments of 32, 48 rail switches and 32 spines (32 uplinks do not split
    # evenly over the arithmetic 24), and three times the leaf-spine cables.
    nb = size_fabric(1536, H100, QM9700)
    assert counts(nb) == (48, 32, 0) and cables(nb) == (1536, 1536, 0)
    # On SN5600 at 2x400G (radix 128): 96 hosts + 32 uplinks per rail switch.
    sn = size_fabric(1536, H100, SN5600, oversubscription=3)
    assert (sn.hosts_per_segment, sn.leaf_uplinks) == (96, 32)
    assert counts(sn) == (16, 4, 0) and cables(sn) == (1536, 512, 0)


def test_forced_three_tiers_on_a_small_fabric() -> None:
    # 16 GPUs: one segment of 2 hosts; 2 tiers need a single spine (2 uplinks per rail switch, 16 links), and
    # with tiers=3 that spine gets one super-spine above it.
    two = size_fabric(16, H100, QM9700)
    assert (two.tiers, *counts(two), *cables(two)) == (2, 8, 1, 0, 16, 16, 0)
    assert any("single spine" in note for note in two.notes)
    three = size_fabric(16, H100, QM9700, tiers=3)
    assert (three.tiers, *counts(three), *cables(three)) == (3, 8, 1, 1, 16, 16, 16)


def test_partial_pod_keeps_the_full_spine_set() -> None:
    # 10 SU = pods of 4, 4 and 2 SU. Every pod gets 32 spines so that spine i (and its plane) exists in every pod;
    # 3 pods × 32 × 32 = 3,072 spine uplinks would fill 48 core switches, but each core switch takes the same
    # number of links from every spine of its plane: 2 planes × 32 (16 links per pod each, room for a 4th pod).
    s = size_fabric(2560, H100, QM9700)
    assert s.pod_segments == (4, 4, 2)
    assert counts(s) == (80, 96, 64)
    assert cables(s) == (2560, 2560, 3072)
    assert any("not the arithmetic 48" in note for note in s.notes)
    assert any("last pod holds 2 of 4" in note for note in s.notes)


@settings(max_examples=300, deadline=None)
@given(hosts=st.integers(1, 3000), gpus_per_host=st.sampled_from([1, 2, 4, 8]), nics=st.sampled_from([1, 2, 4, 8]),
       ports=st.sampled_from([8, 16, 32, 48, 64]), lanes=st.sampled_from([1, 2]),
       ratio=st.sampled_from([1, 1.5, 2, 3, 7]), tiers=st.sampled_from([None, 2, 3]))
def test_every_design_fits_its_ports(hosts: int, gpus_per_host: int, nics: int, ports: int, lanes: int,
                                     ratio: float, tiers: int | None) -> None:
    """Whatever the inputs: a clear ValueError, or a design in which every switch's links fit its ports."""
    host = HostSpec(gpus_per_host, nics, 400)
    switch = SwitchSpec("sw", ports, 400 * lanes, [(lanes, 400)] if lanes > 1 else [])
    try:
        s = size_fabric(hosts * gpus_per_host, host, switch, tiers, ratio)
    except ValueError as exc:
        assert "GPUs" in str(exc) or "rail switches" in str(exc)
        return
    R = ports * lanes
    assert sum(s.segment_hosts) == hosts and max(s.segment_hosts) <= s.hosts_per_segment
    assert sum(s.pod_segments) == s.segments and max(s.pod_segments) <= s.segments_per_pod
    assert s.leaf_downlinks + s.leaf_uplinks <= R  # rail switch ports
    assert s.leaf_uplinks * ratio >= s.leaf_downlinks  # the ratio holds
    assert s.leaf_uplinks == s.spines_per_pod * s.links_per_spine
    assert s.pod_segments[0] * s.rails * s.links_per_spine == s.spine_downlinks
    assert s.gpus <= s.max_gpus
    if s.tiers == 2:
        assert s.spine_downlinks <= R and s.super_spines == 0
    else:
        assert s.spine_downlinks <= (ports // 2) * lanes  # spine: lower half down
        assert s.spine_downlinks <= s.spine_uplinks <= R - (ports // 2) * lanes  # non-blocking, upper half up
        assert s.spines_per_pod % s.planes == 0
        assert s.spine_uplinks == s.super_spines_per_plane * s.links_per_super_spine
        assert s.pods * (s.spines_per_pod // s.planes) * s.links_per_super_spine <= R  # super-spine ports
    # one spine fewer would break the even spread (or a port budget)
    if s.spines_per_pod > 1:
        fewer = s.spines_per_pod - 1
        links = -(-s.uplinks_needed // fewer)
        spine_down = R if s.tiers == 2 else (ports // 2) * lanes
        assert (s.leaf_downlinks + fewer * links > R
                or s.pod_segments[0] * s.rails * links > spine_down)


# --------------------------------------------------------------------------- inventory skeleton


def validate(tmp_path: Path, text: str) -> Result:
    d = tmp_path / "inv"
    d.mkdir(parents=True)
    (d / "fabric.yml").write_text(text, encoding="utf-8")
    return run(d)


SKELETONS = [
    pytest.param(768, H100, QM9700, None, 1, id="h100-3su"),
    pytest.param(8 * 31, H100, QM9700, None, 1, id="h100-31-nodes"),
    pytest.param(4096, B200, QM9700, None, 1, id="b200-16su-3-tiers"),
    pytest.param(2560, H100, QM9700, None, 1, id="partial-pod"),
    pytest.param(1536, H100, QM9700, None, 3, id="oversubscribed-port-blocks"),
    pytest.param(1536, H100, SN5600, None, 3, id="oversubscribed-breakouts"),
    pytest.param(576, B300, Q3400, None, 1, id="b300-xdr"),
    pytest.param(16, H100, QM9700, 3, 1, id="forced-3-tiers"),
    pytest.param(128, *one_nic_switch(8), None, 1, id="fat-tree-k8"),
    pytest.param(256, HostSpec(8, 2, 400, "shared-nic"), SN5600, None, 1, id="shared-nics"),
]


@pytest.mark.parametrize(("gpus", "host", "switch", "tiers", "ratio"), SKELETONS)
def test_inventory_skeleton_validates(tmp_path: Path, gpus: int, host: HostSpec, switch: SwitchSpec,
                                      tiers: int | None, ratio: float) -> None:
    s = size_fabric(gpus, host, switch, tiers, ratio)
    platform = "sonic"
    if not switch.buffers:
        # no SONiC buffer facts for this switch (the InfiniBand Quantum presets, test switches): a SONiC skeleton
        # cannot be lossless and says so with BUF001 alone; the EOS skeleton has no ASIC family for the EOS queue
        # form either (no preset names one an EOS form exists for) and says so with HW006 alone
        sonic = validate(tmp_path / "sonic", inventory_skeleton(s, name="sized"))
        assert {f.code for f in sonic.findings if f.severity is Severity.ERROR} == {"BUF001"}
        platform = "eos"
    res = validate(tmp_path, inventory_skeleton(s, name="sized", platform=platform))
    errors = {f.code for f in res.findings if f.severity is Severity.ERROR}  # HW006: once per model (and -leaf)
    assert errors == (set() if platform == "sonic" else {"HW006"}), [str(f) for f in res.findings]
    # the validator's own expansion agrees with the sizing: switches per role, cables per tier, GPUs
    summary = res.summary()
    assert summary is not None
    assert summary["gpus"] == gpus and summary["hosts"] == s.hosts
    assert summary["switches"] == {"super-spine": s.super_spines, "spine": s.spines, "rail": s.rail_switches}
    expected = {"host": s.host_links, "fabric": s.fabric_links, "core": s.core_links}
    assert summary["links"] == {k: v for k, v in sorted(expected.items()) if v}


def test_inventory_skeleton_shape() -> None:
    text = inventory_skeleton(size_fabric(1536, H100, QM9700, oversubscription=3), name="lab")
    assert text.startswith("# railfabric inventory skeleton")
    assert "name: lab" in text and "&id" not in text
    # 48 host ports exceed the default lower half of 32: the rail switches get an explicit port layout
    assert "qm9700-leaf:" in text and "port_blocks: {rails: [1-48], uplinks: 49-64}" in text
    # the ratio is declared, else the solver would report the rail switches' 3:1 as CAP001
    assert "solver:\n  oversubscription: {rail: 3.0}\n" in text
    assert "solver:" not in inventory_skeleton(size_fabric(768, H100, QM9700))
    with pytest.raises(ValueError, match="RFC 1123"):
        inventory_skeleton(size_fabric(768, H100, QM9700), name="bad name")


# --------------------------------------------------------------------------- text and errors


def test_format_text() -> None:
    text = format_text(size_fabric(768, H100, QM9700))
    assert "768 GPUs = 96 × dgx-h100" in text
    assert "2 tiers" in text and "non-blocking" in text
    assert "rail switches        24" in text and "spines               16" in text
    assert "rail switch - spine           768" in text
    assert "not the arithmetic 12" in text
    three = format_text(size_fabric(4096, B200, QM9700))
    assert "super-spines         64  2 planes × 32" in three and "spine - super-spine         4,096" in three


@pytest.mark.parametrize(("call", "message"), [
    (lambda: size_fabric(0, H100, QM9700), "positive whole number, got 0"),
    (lambda: size_fabric(-8, H100, QM9700), "positive whole number"),
    (lambda: size_fabric(1001, H100, QM9700), r"not a multiple of the 8 GPUs .* use 1,000 or 1,008"),
    (lambda: size_fabric(4, H100, QM9700), "fewer than the 8 GPUs of one 'dgx-h100' host; use 8"),
    (lambda: host_preset("dgx-h10"), "unknown host model preset 'dgx-h10'; did you mean 'dgx-h100'"),
    (lambda: switch_preset("nope"), "unknown switch model preset 'nope'"),
    (lambda: size_fabric(64, H100, QM9700, oversubscription=0.5), "below 1"),
    (lambda: size_fabric(64, H100, QM9700, tiers=4), "tiers must be 2 or 3"),
    (lambda: size_fabric(4096, H100, QM9700, tiers=2), r"at most 64 rail switches \(2,048 GPUs"),
    (lambda: size_fabric(64, B300, QM9700), "cannot run ports at the 800G of the host NICs; it offers 400G"),
    (lambda: size_fabric(65536 + 8, H100, QM9700), r"at most 64 pods \(65,536 GPUs"),
    (lambda: size_fabric(64, HostSpec(8, 0, 400), QM9700), "at least 1 GPU, 1 NIC"),
])
def test_errors(call, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()


def test_cli_size(capsys) -> None:
    from railfabric.cli import main

    # H100 4 SU: 32 leaves, 16 spines (NVIDIA's table), asked through the command line
    assert main(["size", "--gpus", "1024", "--host-model", "dgx-h100", "--switch-model", "qm9700"]) == 0
    out = capsys.readouterr().out
    assert "rail switches        32" in out and "spines               16" in out
    assert main(["size", "--gpus", "1024", "--host-model", "dgx-h10", "--switch-model", "qm9700"]) == 2
    assert "did you mean 'dgx-h100'" in capsys.readouterr().err
