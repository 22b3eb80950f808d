"""What each platform in use can express of the fabric-wide policy (railfabric/checks/rules/platform_rules.py).

QOS005: NX-OS counts both watchdog times in polls (multipliers), Cumulus and Junos the detection time (robustness,
detection count); SONiC and EOS take milliseconds. With poll_ms 200: detection 250 ms is ceil(250 / 200) = 2 polls
= 400 ms on a switch that counts polls; 400 ms is exactly 2 polls (no finding).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from railfabric.core.finding import Severity
from tests.helpers import base_inventory, run_data, with_system


def _watchdog(tmp_path: Path, platform: str, **wd: int):
    data = with_system(base_inventory())
    data["fabric"]["platform"] = platform
    data.setdefault("qos", {})["pfc_watchdog"] = {"poll_ms": 200, **wd}
    if platform == "nxos":  # NX-OS has no TCP syslog (PLAT001): the example's system sends it over UDP here
        for server in data["system"].get("syslog", []):
            server["protocol"] = "udp"
    return [f for f in run_data(tmp_path, data).findings if f.code == "QOS005"]


@pytest.mark.parametrize(("platform", "wd", "expected"), [
    ("nxos", {"detection_ms": 250}, [("detection", 2, 400)]),
    ("nxos", {"detection_ms": 400, "restoration_ms": 500}, [("restoration", 3, 600)]),
    ("nvue", {"detection_ms": 250}, [("detection", 2, 400)]),
    ("junos", {"detection_ms": 1100}, [("detection", 6, 1200)]),
    ("junos", {"detection_ms": 400, "restoration_ms": 500}, []),  # Junos sets restoration in ms
    ("sonic", {"detection_ms": 250, "restoration_ms": 500}, []),  # SONiC: both in ms
    ("eos", {"detection_ms": 250}, []),
    ("nxos", {"detection_ms": 400, "restoration_ms": 600}, []),  # whole polls
])
def test_watchdog_rounding_is_named(tmp_path: Path, platform: str, wd: dict, expected: list) -> None:
    found = _watchdog(tmp_path, platform, **wd)
    assert [f.severity for f in found] == [Severity.WARNING] * len(expected)
    for f, (name, polls, ms) in zip(found, expected, strict=True):
        assert f"{name}_ms" in f.message and f"after {polls} polls = {ms} ms" in f.message, f.message
        assert f.location is not None and f.location.line > 0


def test_disabled_watchdog_is_not_checked(tmp_path: Path) -> None:
    assert _watchdog(tmp_path, "nxos", detection_ms=250, enabled=False) == []
