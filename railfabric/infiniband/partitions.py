"""partitions.conf in OpenSM's grammar, and the PKey table each HCA port must then hold.

Grammar (opensm(8) "PARTITION CONFIGURATION", OpenSM 3.3.23; linux-rdma/opensm doc/partition-config.txt):
  `Name[=PKey][,ipoib][,defmember=full|limited] : <port-guid>[=full|limited], ... ;` with the keywords ALL_CAS,
  ALL_SWITCHES and SELF; '#' starts a comment; a definition may continue over lines until ';' (the parser keeps
  the open partition across lines: opensm/osm_prtn_config.c, osm_prtn_config_parse_file / parse_part_conf), which
  keeps each line under the parser's 4096-byte line buffer however many members a partition has.
  Verified offline: the lab loads this file with OpenSM 3.3.23 and reads every HCA's PKey table back
  (smpquery pkeys); a full member's PKey carries bit 15 (0x8000), a limited member's does not (IBTA vol. 1,
  P_Key membership bit).
"""

from __future__ import annotations

from collections.abc import Mapping

from railfabric.infiniband.model import DEFAULT_PKEY, IbFabric, Membership
from railfabric.infiniband.opensm_conf import guid_text

FULL_BIT = 0x8000


def partitions_conf(fab: IbFabric, port_guids: Mapping[str, int]) -> str:
    """The file; `port_guids` maps each HCA's node description to its port GUID (from the GUID binding)."""
    lines = [
        f"# railfabric: OpenSM partitions of fabric {fab.name} (partitions.conf grammar of OpenSM 3.3.23)",
        f"# Default partition: every HCA {fab.default_membership}, the switches and the SM full",
        f"Default={DEFAULT_PKEY:#06x}, ipoib : ALL_CAS={fab.default_membership}, ALL_SWITCHES=full, SELF=full ;",
    ]
    for part in fab.partitions:
        flags = ", ipoib" if part.ipoib else ""
        lines += ["", f"# {part.name}: {len(part.members)} members", f"{part.name}={part.pkey:#06x}{flags} :"]
        if not part.members:
            lines[-1] += " ;"
            continue
        last = len(part.members) - 1
        lines += [f"\t{guid_text(port_guids[m.node])}={m.membership}{' ;' if i == last else ','} # {m.node}"
                  for i, m in enumerate(part.members)]
    return "\n".join(lines) + "\n"


def expected_pkeys(fab: IbFabric) -> dict[str, frozenset[int]]:
    """Each HCA's PKey table as a set (OpenSM's index order is its own): the default partition with the planned
    membership, then every partition the HCA is a member of."""
    default = DEFAULT_PKEY | (FULL_BIT if fab.default_membership is Membership.FULL else 0)
    table: dict[str, set[int]] = {h.name: {default} for h in fab.hcas}
    for part in fab.partitions:
        for m in part.members:
            table[m.node].add(part.pkey | (FULL_BIT if m.membership is Membership.FULL else 0))
    return {name: frozenset(keys) for name, keys in table.items()}


def planned_partitions_conf(fab: IbFabric) -> str:
    """partitions.conf as rendered before the GUIDs are known (`fabric render`): the default partition with keywords
    only, and every tenant partition with an EMPTY member list, fail-closed ("Empty list means no ports in this
    partition": opensm(8) "PARTITION CONFIGURATION", OpenSM 3.3.23), its planned members as comments.
    `fabric ib bind` writes the GUID-bound file (partitions_conf) once the fabric is discovered. Verified offline:
    OpenSM 3.3.23 in ibsim loads it with no PARSE ERROR, the subnet comes up and every HCA holds only the default
    PKey (tests/test_ib_render_opensm.py)."""
    lines = [
        f"# railfabric: OpenSM partitions of fabric {fab.name} (partitions.conf grammar of OpenSM 3.3.23), as planned",
        "# GUIDs are bound late: the tenant partitions below have no members until `fabric ib bind` writes the file",
        "# with the discovered port GUIDs. Until then only the default partition has members (fail-closed).",
        f"# Default partition: every HCA {fab.default_membership}, the switches and the SM full",
        f"Default={DEFAULT_PKEY:#06x}, ipoib : ALL_CAS={fab.default_membership}, ALL_SWITCHES=full, SELF=full ;",
    ]
    for part in fab.partitions:
        flags = ", ipoib" if part.ipoib else ""
        lines += ["", f"# {part.name}: {len(part.members)} planned members (bound by `fabric ib bind`):"]
        lines += [f"#   {m.node}={m.membership}" for m in part.members]
        lines.append(f"{part.name}={part.pkey:#06x}{flags} : ;")
    return "\n".join(lines) + "\n"
