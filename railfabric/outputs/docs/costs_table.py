"""fabric.md's "What one failure costs" table: per failure class of the fabric, the GPUs isolated, the GPUs at
reduced bandwidth and the uplink capacity left per pod and tier, as railfabric/impact/costs.py computes them
(formatting only)."""

from __future__ import annotations

from railfabric.outputs.docs.tables import cell, table


def _tiers(row: dict) -> str:
    return ", ".join(f"pod {t['pod']} {t['tier']}: {t['left_pct']:g}%" for t in row["tiers_left"]) or "–"


def failure_cost_table(rows: list[dict]) -> list[str]:
    """The table and a line that says how it is computed."""
    if not rows:
        return []
    body = [[cell(r["class"]), cell(r["down"]),
             f"{r['gpus_isolated']:,}", f"{r['hosts_isolated']:,}", f"{r['gpus_reduced']:,}", _tiers(r)] for r in rows]
    return ["One of each failure class, the first in the fabric (the same as `fabric impact --down NAME`): GPUs "
            "isolated from their rail, GPUs that keep their rail at reduced bandwidth (a NIC port lost, or fewer "
            "uplinks out of their segment or their pod), and per pod and tier the share of the uplink capacity "
            "left.", "",
            *table(["what fails", "e.g.", "GPUs isolated", "hosts losing a rail", "GPUs at reduced bandwidth",
                    "uplink capacity left"], body, right=(2, 3, 4))]
