"""The option walk of tests/test_option_walk.py on Junos: every option that a switch's own configuration expresses
(fabric, routing, QoS, system, dual homing) either changes what a Junos fabric renders or is refused by an error
finding. The same variants, with `fabric.platform: junos` on both sides of the comparison (options whose walk
context is EOS-only run on Junos instead).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.test_option_walk import EOS, OPTIONAL, VARIANTS, _render, _with

JUNOS = {("fabric", "platform"): "junos"}
PREFIXES = ("fabric.", "routing.", "qos.", "system", "pods.*.segments.*.dual_homing", "pods.*.segments.*.platform",
            "pods.*.spines.platform", "devices.{}.platform", "super_spines.platform")

REFUSED: dict[str, str] = {
    # routing.ecmp.mode flowlet / packet render (lb30: enhanced-hash-key ecmp-dlb); the mode options are LB001 with
    # the base's flow mode, and the QFX5000 hash has no flow-label or ingress-port option (PLAT053)
    "routing.ecmp.flowlet_inactivity_us=256": "LB001",
    "routing.ecmp.link_utilization_threshold=50": "LB001",
    "routing.ecmp.hash.*=ipv6_flow_label": "PLAT053",
    "routing.ecmp.hash.*=ingress_port": "PLAT053",
    # the base tier's key is md5, which holds one key (tests/test_key_rollover.py renders the TCP-AO rollover)
    "routing.authentication.{}.next=" + json.dumps(OPTIONAL["routing.authentication.{}.next"]): "AUTH002",
    # dual-stack: IPv6 over the IPv4 sessions not confirmed on Junos (platforms/junos.py); IPv6-only is refused anywhere
    'routing.address_families=["ipv4", "ipv6"]': "PLAT047",
    "routing.address_families.*=ipv4": "PLAT047",  # [ipv6, ipv4] (tests/test_option_walk.py AS_LIST)
    "routing.address_families.*=ipv6": "V6005",
    "qos.pfc_watchdog.action=forward": "PLAT001",  # only the documented default action (drop)
    "qos.pfc_watchdog.action=alert": "PLAT001",
    "pods.*.segments.*.dual_homing=esi": "PLAT002",
    "pods.*.segments.*.dual_homing=mlag": "PLAT001",  # MC-LAG not documented for Junos OS Evolved (junos.py)
    "system=unset": "MGMT001",  # load override would remove the push account
    "system.users=unset": "MGMT001",
    "system.push_user=unset": "MGMT002",
    "system.users.{}.role=network-operator": "MGMT004",
    "system.users.{}.password=unset": "MGMT010",
    "system.aaa.radius=unset": "MGMT006",
    "system.aaa.tacacs=unset": "MGMT006",
}
# options Junos has no statement for, with the reason (the same as on SONiC: not part of this platform's config)
NOT_APPLICABLE = {
    "system.management.eapi=false": "no eAPI on Junos: the push uses NETCONF over SSH, always rendered",
    "system.management=unset": "the base only names the VRF (OOB): the Junos management instance is always "
                               "mgmt_junos (system management-instance), like SONiC's fixed mgmt",
    "system.users.{}.privilege=1": "Junos login classes follow the role (super-user / read-only), not a level",
    'fabric.releases={"nvue": "5.10"}': "a release of NVUE, which this all-Junos fabric does not run (the NVUE "
                                        "walk of tests/test_option_walk.py shows it changing the files)",
}


def _junos_variants() -> list[tuple[str, dict, dict]]:
    out = []
    for name, dotted, context, change in VARIANTS:
        if not dotted.startswith(PREFIXES) or name in NOT_APPLICABLE or name.endswith(".platform=junos") \
                or name.startswith("nxos: "):  # the NX-OS walk's own variants (tests/test_option_walk.py)
            continue  # a `platform: junos` below the fabric's restates what the context inherits
        ctx: dict[tuple, Any] = {k: v for k, v in context.items() if k not in EOS}
        out.append((name, {**ctx, **JUNOS}, change))
    return out


JUNOS_VARIANTS = _junos_variants()
_BASELINES: dict[str, dict[str, bytes]] = {}


def test_the_junos_walk_covers_the_platform_options() -> None:
    names = {v[0] for v in JUNOS_VARIANTS}
    assert {"routing.bfd=false", "qos.ecn.enabled=false", "qos.pfc_watchdog.enabled=false",
            "system.management.ssh=false", "routing.ecmp.mode=packet"} <= names
    assert len(JUNOS_VARIANTS) >= 25


@pytest.mark.parametrize(("name", "context", "change"), JUNOS_VARIANTS, ids=[v[0] for v in JUNOS_VARIANTS])
def test_option_on_junos(tmp_path: Path, name: str, context: dict, change: dict) -> None:
    key = repr(sorted(context.items(), key=repr))
    if key not in _BASELINES:
        base, errors = _render(tmp_path / "base", _with(context))
        assert base is not None, f"the Junos baseline with context {context} does not validate: {errors}"
        _BASELINES[key] = base
    files, errors = _render(tmp_path / "variant", _with({**context, **change}))
    if name in REFUSED:
        assert REFUSED[name] in errors, f"{name} should be refused on Junos with {REFUSED[name]}, got {errors}"
        return
    assert files is not None, f"{name} was refused on Junos ({errors}) but should render"
    changed = sorted(p for p in set(files) | set(_BASELINES[key]) if files.get(p) != _BASELINES[key].get(p))
    assert changed, f"{name} changed no rendered file on Junos: the option is silently ignored"
