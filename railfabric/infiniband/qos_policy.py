"""OpenSM's QoS policy file, the simplified form (qos-ulps): the service level of path records per partition.

Form (linux-rdma/opensm doc/QoS_management_in_OpenSM.txt, "qos-ulps", OpenSM 3.3.x): a `qos-ulps` ...
`end-qos-ulps` section with `default : <SL>` and `any, pkey <PKey> : <SL>` lines, '#' comments. Verified offline:
the lab loads it (opensm.conf `qos_policy_file`) and asks the SA for a path record in each partition
(saquery -p --src-to-dst SLID:DLID --pkey PKEY): the record's SL is the planned one (tests/test_lab_ib.py).
"""

from __future__ import annotations

from railfabric.infiniband.model import IbFabric


def qos_policy(fab: IbFabric) -> str | None:
    """The file, or None without QoS or without a per-partition service level."""
    if fab.qos is None or not fab.qos.partition_sl:
        return None
    names = {p.pkey: p.name for p in fab.partitions}
    lines = [f"# railfabric: OpenSM QoS policy of fabric {fab.name} (qos-ulps)", "qos-ulps",
             f"    default : {fab.qos.default_sl}"]
    lines += [f"    any, pkey {pkey:#06x} : {sl} # {names.get(pkey, '?')}" for pkey, sl in fab.qos.partition_sl]
    return "\n".join([*lines, "end-qos-ulps"]) + "\n"
