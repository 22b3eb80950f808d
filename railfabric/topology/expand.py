"""Expand the intent into a concrete topology: switches, hosts and links with both ends.

Expansion is total for an inventory that passed the intent rules (models exist, rails group correctly):
ports that do not exist on a model are still numbered (above the model's port count) so that the checks can
say how many more are needed instead of failing half-way.

Identity and order: everything is sorted by declared identity (pod id, segment id, switch index, host number),
never by list position, so reordering the YAML changes nothing.

Port rules (logical port numbers; platform interface names come with rendering):
- rail switch host ports follow the model's rail port blocks (rail slot i → port_blocks.rails[i]); without blocks
  they run consecutively from port 1, host-major (host 1 rails..., host 2 rails...), so adding hosts appends;
- rail switch and spine uplinks take the uplink ports (port_blocks.uplinks, default the upper half), ascending by
  uplink index u = (upper switch index - 1) × links + link, which depends on identity only;
- downlinks (rail switch host ports without blocks, spine downlinks under super-spines) are the ports outside the
  uplink block; super-spines use every port;
- spine and super-spine downlinks run from port 1 in identity order of the lower switch (append-stable); with
  spines.ports_per_segment / super_spines.ports_per_pod they start at (id-1)·N+1 per segment / pod, so
  inserting a segment or pod with a lower id never moves an existing cable;
- MLAG (`dual_homing: mlag`): each rail group is a pair of switches (side a, b) joined by a peer link of
  `peer_link_ports` (default 2) native ports: port_blocks.peer_link, else the highest-numbered ports outside the
  uplinks and rail blocks (taken off the top of the host ports when the model has no rail blocks), the same ports
  on both sides; both links of a NIC form one bond, numbered MLAG_CHANNEL_BASE + its host position;
- a breakout puts `lanes` logical ports on one physical port (lane 1..n);
- a disabled port keeps its place in the sequence: the link(s) it would carry are taken off (`Topology.off`,
  reported as PORT005) and nothing else moves. A `cabling:` entry puts such a host link back on another port.
"""

from __future__ import annotations

from railfabric.core.units import expand_pattern
from railfabric.inventory.intent import Inventory, Pod
from railfabric.topology.cabling import apply_cabling
from railfabric.topology.expansion import Expansion
from railfabric.topology.model import Role, Switch, Topology
from railfabric.topology.rails import expand_segment
from railfabric.topology.uplinks import CoreDownlinks, core_links, fabric_links


def expand(inv: Inventory) -> Topology:
    """The topology of `inv`: super-spines, then per pod (by id) its spines, its segments (by id: rail switches,
    hosts, host links, MLAG peer links), its rail → spine links and its spine → super-spine links; then `cabling:`."""
    x = Expansion(inv)
    core = CoreDownlinks(super_spines(x))
    for pi, pod in sorted(enumerate(inv.pods), key=lambda t: t[1].id):
        spines = pod_spines(x, pi, pod)
        has_uplinks = pod.spines is not None
        seg_switches = [expand_segment(x, pi, pod.id, has_uplinks, si, seg)
                        for si, seg in sorted(enumerate(pod.segments), key=lambda t: t[1].id)]
        if pod.spines:
            fabric_links(x, pi, pod, spines, seg_switches)
        if pod.spines and core.supers:
            core_links(x, pi, pod, spines, core)
    if inv.cabling:
        apply_cabling(inv, x.topo)
    return x.topo


def super_spines(x: Expansion) -> list[Switch]:
    """The super-spines by index, round-robin over the planes (plane set only when planes are declared)."""
    ss_cfg = x.inv.super_spines
    if not ss_cfg:
        return []
    planes = ss_cfg.planes or 1
    out = []
    for i in range(1, ss_cfg.count + 1):
        plane = (i - 1) % planes + 1
        key = expand_pattern(ss_cfg.name, index=i, plane=plane)
        out.append(x.make(Switch(key, key, Role.SUPER_SPINE, None, None, i, ss_cfg.model,
                                 (ss_cfg.platform or x.inv.fabric.platform).value, slot=i - 1, tier_slot=i - 1,
                                 src=("super_spines",), plane=plane if ss_cfg.planes else None)))
    return out


def pod_spines(x: Expansion, pi: int, pod: Pod) -> list[Switch]:
    """The spines of `pod` (index `pi` in the inventory) by index, on the super-spine planes round-robin."""
    sp = pod.spines
    if not sp:
        return []
    ss_cfg, lim, p = x.inv.super_spines, x.inv.limits, pod.id
    planes = (ss_cfg.planes if ss_cfg else None) or 1
    out = []
    for j in range(1, sp.count + 1):
        plane = (j - 1) % planes + 1
        key = expand_pattern(sp.name, pod=p, index=j, plane=plane)
        tier = (p - 1) * lim.spines_per_pod + (j - 1)
        platform = (sp.platform or x.inv.fabric.platform).value
        out.append(x.make(Switch(key, key, Role.SPINE, p, None, j, sp.model, platform,
                                 slot=lim.super_spines + tier, tier_slot=tier, src=("pods", pi, "spines"),
                                 plane=plane if ss_cfg and ss_cfg.planes else None)))
    return out
