"""Sources: what artifacts are built from (the pipeline's values) and the narrow projections the parts are handed,
each built at most once per render (railfabric/outputs/views.py and the builders' own `*_view` functions)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from functools import cached_property

from railfabric.device import DeviceConfig
from railfabric.device.vlans import Vlan
from railfabric.hosts.build import GroupInput, group_inputs
from railfabric.inventory.intent import Inventory
from railfabric.outputs.digest import code_digest, combine, model_digests, value_digest
from railfabric.plan.allocate import Plan
from railfabric.topology import Topology

from .ipplan import PlanAddresses, plan_addresses
from .part import Once
from .railmap import host_shapes
from .rollout import RolloutSwitch
from .state_index import FabricIndex, Twins, index_from, prefix_lists, prefix_twins
from .views import (
    Addresses,
    Digested,
    Port,
    PortViews,
    RailSubnet,
    Routed,
    Sessions,
    addresses_view,
    docs_topology_values,
    links_digest,
    ports_pass,
    rail_subnets_view,
    sessions_digested,
    topology_links,
    vlans_view,
)


class Sources:
    """What artifacts are built from: the pipeline's values and, each built at most once per render, the narrow
    projections the parts are handed (railfabric/outputs/views.py and the builders' own `*_view` functions) with their
    digests (`shared`). Nothing here reads a file."""

    def __init__(self, inv: Inventory, topo: Topology, plan: Plan, devices: Mapping[str, DeviceConfig],
                 report: dict | None = None, summary: dict | None = None,
                 model_digests: Mapping[str, str] | None = None) -> None:
        self.inv, self.topo, self.plan, self.devices = inv, topo, plan, devices
        self.report, self.summary = report, summary
        self._model_digests = model_digests
        self._digests: dict[str, str] = {}

    @cached_property
    def host_groups(self) -> list[GroupInput]:
        """What each host group's plan is built from (railfabric.hosts.build.group_inputs)."""
        return group_inputs(self.inv, self.topo, self.plan)

    @cached_property
    def group_digests(self) -> list[str]:
        """Per host group (in host_groups' order): its input and the code that builds its plan and files."""
        code = code_digest("railfabric.outputs.hosts", "railfabric.hosts")
        return [combine([code, value_digest(g)]) for g in self.host_groups]

    @cached_property
    def rollout(self) -> dict[str, RolloutSwitch]:
        """Each switch's place and its switch peers (railfabric/outputs/rollout.py), the peers taken from `ports`
        (rollout.switch_peers, in the pass that makes them)."""
        peers = self._ports_pass.peers
        return {n: RolloutSwitch(n, d.role, d.pod, d.segment, d.rails, peers[n]) for n, d in self.devices.items()}

    @cached_property
    def addresses(self) -> dict[str, Addresses]:
        return addresses_view(self.devices)

    @cached_property
    def plan_addresses(self) -> PlanAddresses:
        return plan_addresses(self.inv, self.plan)

    @cached_property
    def docs_topology(self) -> Once[Topology]:
        """The topology without what the docs never show and the inventory often changes: each switch's pinned
        management address and whether it has a `devices:` entry (the links are the same objects). Built on first
        use; its digest (`shared("docs_topology")`, views.docs_topology_values) reads the topology without them."""
        topo = self.topo

        def build() -> Topology:
            switches = {n: replace(sw, management=None, overridden=False) for n, sw in topo.switches.items()}
            return replace(topo, switches=switches)
        return Once(build)

    @cached_property
    def access(self) -> dict[str, tuple[str, str]]:
        """Each switch's platform and management address."""
        return {n: (d.platform, d.management) for n, d in self.devices.items()}

    # ---- narrow projections (railfabric/outputs/views.py), each built once; `shared(name)` digests one once

    @cached_property
    def links(self) -> tuple:
        return topology_links(self.topo)

    @cached_property
    def _ports_pass(self) -> PortViews:
        """ports, routed (with their digests) and each switch's switch peers, in one pass (views.ports_pass)."""
        return ports_pass(self.devices)

    @cached_property
    def ports(self) -> dict[str, tuple[Port, ...]]:
        return self._ports_pass.ports.view

    @cached_property
    def racks(self) -> dict[str, str | None]:
        return {n: sw.rack for n, sw in self.topo.switches.items()}

    @cached_property
    def vlans(self) -> dict[str, tuple[Vlan, ...]]:
        return vlans_view(self.devices)

    @cached_property
    def routed(self) -> dict[str, Routed]:
        """state_index.routed_view of `ports`, made in the same pass."""
        return self._ports_pass.routed.view

    @cached_property
    def prefix_lists(self) -> dict[str, tuple[str, ...]]:
        return prefix_lists(self.devices)

    @cached_property
    def prefix_twins(self) -> dict[str, Twins]:
        """Dual-stack: each switch's IPv4 prefixes with their IPv6 twins (state_index.prefix_twins)."""
        return prefix_twins(self.devices)

    @cached_property
    def index(self) -> Once[FabricIndex]:
        """The routing index (railfabric/outputs/state_index.py), built on first use from the views it reads only."""
        routed, addresses, sessions, places, lists = self.routed, self.addresses, self.sessions, self.rollout, \
            self.prefix_lists
        twins = self.prefix_twins
        return Once(lambda: index_from(routed, addresses, sessions, places, lists, twins))

    @cached_property
    def index_digest(self) -> str:
        """The digest of everything the routing index is made of (it is built only when a part needs it)."""
        return combine([code_digest("railfabric.outputs.state_index"),
                        *(self.shared(v) for v in ("routed", "addresses", "sessions", "rollout", "prefix_lists",
                                                   "prefix_twins"))])

    @cached_property
    def _sessions(self) -> Digested[dict[str, Sessions]]:
        return sessions_digested(self.devices)

    @cached_property
    def sessions(self) -> dict[str, Sessions]:
        return self._sessions.view

    @cached_property
    def host_addr(self) -> dict[str, int]:
        """The plan's host link id → NIC address (read by the IP plan and the rail map)."""
        return self.plan.host_addr

    @cached_property
    def host_models(self) -> dict[str, str]:
        return {h.name: h.model for h in self.topo.hosts.values()}

    @cached_property
    def host_shapes(self) -> dict:
        return host_shapes(self.inv)

    @cached_property
    def rail_subnets(self) -> dict[tuple[str, int], RailSubnet]:
        return rail_subnets_view(self.plan)

    def shared(self, name: str) -> str:
        """The digest of projection `name` (an attribute above; of docs_topology every field but the links, which
        "links" digests), computed once (ports, routed and sessions: as they are built)."""
        key = f"view:{name}"
        if key not in self._digests:
            self._digests[key] = self._digest_of(name)
        return self._digests[key]

    def _digest_of(self, name: str) -> str:
        if name == "links":
            return links_digest(self.links)
        if name in ("ports", "routed"):  # digested as they are built (views.ports_and_routed)
            return (self._ports_pass.ports if name == "ports" else self._ports_pass.routed).digest
        if name == "sessions":
            return self._sessions.digest
        return value_digest(self._digestable(name))

    def _digestable(self, name: str) -> object:
        if name == "docs_topology":
            return docs_topology_values(self.topo)
        if name == "rail_subnets":
            return sorted(self.rail_subnets.items())
        return getattr(self, name)

    @cached_property
    def model_digests(self) -> Mapping[str, str]:
        if self._model_digests is not None:
            return self._model_digests
        return model_digests(self.devices)
