"""`fabric verify` output: one line per failure (device, interface or neighbour, expected, found, file), the notes,
a summary; or the same as JSON."""

from __future__ import annotations

import json

from railfabric.platforms import PLATFORMS
from railfabric.verify.model import Failure
from railfabric.verify.run import Result

ORDER = ("coverage", "cabling", "link", "link-qos", "host", "bgp", "bgp-plan", "vlan", "mgmt", "address", "leafref",
         "frr-parse")


def _key(f: Failure) -> tuple[int, str, str]:
    return (ORDER.index(f.check) if f.check in ORDER else len(ORDER), f.device, f.subject)


def format_text(result: Result) -> str:
    lines = [f"FAIL {f.check}: {f.line()}" for f in sorted(result.failures, key=_key)]
    lines += [f"note: {n}" for n in result.notes]
    c = result.counts
    per = ", ".join(f"{c[p]} {PLATFORMS[p].title}" for p in PLATFORMS if c.get(p))
    lines.append(f"verify: {c.get('devices', 0)} devices ({per or 'none'}), "
                 f"{c.get('links', 0)} fabric links, {c.get('host_ports', 0)} host ports "
                 f"({c.get('host_nic_ports', 0)} against the hosts' files), "
                 f"{c.get('bgp_neighbors', 0)} BGP neighbours: "
                 + ("all promises kept" if result.ok else f"{len(result.failures)} failure(s)"))
    return "\n".join(lines) + "\n"


def format_json(result: Result) -> str:
    return json.dumps({"ok": result.ok, "failures": [f.as_dict() for f in sorted(result.failures, key=_key)],
                       "notes": result.notes, "counts": result.counts}, indent=2) + "\n"
