"""QoS on NVIDIA Quantum-2 switches (IB050, IB051): what the switch firmware's release notes say its VL arbiter does
not do as OpenSM's QoS options expect.

NVIDIA Quantum-2 Firmware Release Notes (31.2010.1310 onwards; still listed as known issues in 31.2010.3004,
31.2010.5002, 31.2010.5042 and the 31.2010.4708 LTS), "Known Issues":
- 955641, "VL_HIGH_LIMIT is not affecting the VL arbiter as expected. Workaround: Arbitration table should be set
  using only the low priority VL arbitration table." -> IB050 (warning): a plan with a high-priority table
  (`vlarb_high`) or a high limit other than 0 on a Quantum-2 fabric. The plan the workaround asks for: `vlarb_high:
  []`, `high_limit: 0`, the weights in `vlarb_low`.
- 1249608, "Configuring weight "0" for VL, results in unexpected behavior. Workaround: Arbitration table should be
  configured with weights other than "0"." -> IB051 (warning): a weight 0 in either table.
Quantum-2 systems are recognised by their model names (QM97xx: QM9700, QM9790, the names NVIDIA gives them and the
example's hardware catalogue uses). Other switch models are not judged: their firmware's notes were not read.
"""

from __future__ import annotations

from railfabric.core.finding import Finding, Severity
from railfabric.core.source_map import SourceMap
from railfabric.inventory.intent import Inventory
from railfabric.topology import Topology

QUANTUM2_PREFIX = "QM97"


def quantum2_models(inv: Inventory, topo: Topology) -> list[str]:
    """The Quantum-2 switch models the fabric uses, sorted."""
    used = {sw.model for sw in topo.switches.values()}
    return sorted(m for m in used if m.upper().startswith(QUANTUM2_PREFIX))


def check_quantum2_qos(inv: Inventory, topo: Topology, src: SourceMap) -> list[Finding]:
    """IB050 and IB051 (module docstring)."""
    ib = inv.infiniband
    if ib is None or ib.qos is None:
        return []
    models = quantum2_models(inv, topo)
    if not models:
        return []
    qos = ib.qos
    on = f"Quantum-2 switches ({', '.join(models)})"
    out: list[Finding] = []
    if qos.vlarb_high or qos.high_limit != 0:
        out.append(Finding(
            "IB050", f"the QoS plan uses the high-priority VL arbitration table (vlarb_high {len(qos.vlarb_high)} "
            f"entries, high_limit {qos.high_limit}) on {on}: their firmware does not apply the high limit as "
            "expected (Quantum-2 firmware release notes, known issue 955641)",
            src.loc(("infiniband", "qos")),
            "put the weights in vlarb_low and set vlarb_high: [] and high_limit: 0, NVIDIA's workaround",
            severity=Severity.WARNING))
    for table in ("vlarb_high", "vlarb_low"):
        for i, (vl, weight) in enumerate(getattr(qos, table)):
            if weight == 0:
                out.append(Finding(
                    "IB051", f"{table} gives VL {vl} weight 0 on {on}: their firmware behaves unexpectedly with a "
                    "weight of 0 (Quantum-2 firmware release notes, known issue 1249608)",
                    src.loc(("infiniband", "qos", table, i)),
                    "leave the VL out of the table, or give it a weight of 1 or more",
                    severity=Severity.WARNING))
    return out
