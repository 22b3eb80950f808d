"""The verifier's flow: read the plan files, read every device with its platform's reader, run the checks.

Nothing here (or anywhere under railfabric/verify/) imports railfabric's device model, templates or pipeline: the
rendered files are the only input, so a bug there cannot hide itself (tests/test_verify.py asserts this).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from railfabric.platforms import PLATFORMS
from railfabric.verify.checks_control import ControlChecks
from railfabric.verify.checks_hosts import HostChecks
from railfabric.verify.checks_links import LinkChecks
from railfabric.verify.frr import have_vtysh, vtysh_problems
from railfabric.verify.hosts import read_hosts, read_railmap
from railfabric.verify.inputs import read_plan, read_text
from railfabric.verify.load_balancing import check_uniform
from railfabric.verify.model import Failure, ObservedDevice, VerifyInputError
from railfabric.verify.raw import RawSeen, check_raw
from railfabric.verify.readers import READERS, SCHEMA_CHECKS


def reader(platform: str) -> Callable[[str, Path], ObservedDevice]:
    """The platform's reader of its rendered files (railfabric.verify.readers)."""
    return READERS[platform]


def schema_check(platform: str) -> Callable[[str, str], list[str]] | None:
    """The platform's vendor-schema check of one rendered file, or None (railfabric.verify.readers)."""
    return SCHEMA_CHECKS.get(platform)


def _vendor_schemas(root: Path, devices: dict, notes: list[str]) -> list[Failure]:
    """Every rendered file of a platform with a vendor schema, checked against the schema of its release (host_vars
    `release`, else the platform's default, said in a note)."""
    out: list[Failure] = []
    checked: dict[str, int] = {}
    for name, vars_ in sorted(devices.items()):
        check = schema_check(vars_.platform)
        if check is None:
            continue
        traits = PLATFORMS[vars_.platform]
        release = vars_.release or traits.default_release
        if not vars_.release:
            notes.append(f"{name}: host_vars name no release: checked against {traits.title} {release}")
        for file in traits.config_files():
            where = f"configs/{name}/{file}"
            out += [Failure("vendor-schema", name, file, f"{traits.title} {release} schema accepts it", p, where)
                    for p in check(read_text(root / where, root), release)]
            checked[traits.title] = checked.get(traits.title, 0) + 1
    notes += [f"{title}: {n} file(s) checked against the vendor's schema of their release"
              for title, n in sorted(checked.items())]
    return out


@dataclass(slots=True)
class Result:
    failures: list[Failure] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.failures


def verify(root: Path, *, frr_parser: bool = True, progress: bool = False) -> Result:
    """Check the rendered tree under `root`; raises VerifyInputError when it cannot be used at all."""
    start = time.perf_counter()
    root = Path(root)
    plan = read_plan(root)
    result = Result(notes=list(plan.notes))
    devices: dict[str, ObservedDevice] = {}
    configs = root / "configs"
    if not configs.is_dir():
        raise VerifyInputError("configs/: missing")
    for extra in sorted(p.name for p in configs.iterdir() if p.is_dir() and p.name not in plan.devices):
        result.failures.append(Failure("coverage", extra, "configs", "a device in ansible/host_vars", "none",
                                       f"configs/{extra}"))
    for n, (name, vars_) in enumerate(sorted(plan.devices.items()), 1):
        if progress and n % 500 == 0:
            print(f"verify: read {n}/{len(plan.devices)} devices", file=sys.stderr)
        missing = [f for f in PLATFORMS[vars_.platform].config_files() if not (configs / name / f).is_file()]
        if missing:
            raise VerifyInputError(f"configs/{name}/{missing[0]}: missing ({vars_.platform} device)")
        devices[name] = reader(vars_.platform)(name, root)
    for dev in devices.values():
        result.failures += dev.failures
    links = LinkChecks(plan, devices)
    result.failures += links.run()
    control = ControlChecks(plan, devices)
    result.failures += control.run()
    result.failures += check_uniform(devices)
    ports = read_railmap(root)
    hosts = HostChecks(ports, read_hosts(root, {p.host for p in ports}), devices)
    result.failures += hosts.run()
    frr = [configs / n / "frr.conf" for n, d in sorted(devices.items())
           if "frr.conf" in PLATFORMS[d.platform].config_files()]
    if frr and frr_parser and have_vtysh():
        for path, problems in vtysh_problems(frr).items():
            name = path.parent.name
            result.failures += [Failure("frr-parse", name, "frr.conf", "FRR's parser (vtysh -C) accepts it", p,
                                        f"configs/{name}/frr.conf") for p in problems]
        result.notes.append(f"FRR's parser (vtysh -C) read {len(frr)} frr.conf file(s)")
    elif frr:
        result.notes.append("FRR's parser skipped: " + ("--no-frr" if not frr_parser else "vtysh is not installed"))
    result.failures += _vendor_schemas(root, plan.devices, result.notes)
    raw = RawSeen()
    result.failures += check_raw(root, plan.devices, raw)
    if raw.devices:
        result.notes.append(raw.note())
    for p in sorted({d.platform for d in devices.values()} - {p for p in PLATFORMS if PLATFORMS[p].buffer_tables}):
        result.notes.append(f"{PLATFORMS[p].title} lossless buffers are platform defaults: nothing in "
                            f"{', '.join(PLATFORMS[p].config_files())} to verify")
    result.counts = {"devices": len(devices),
                     **{p: n for p in PLATFORMS if (n := sum(d.platform == p for d in devices.values()))},
                     "links": links.links, "host_ports": links.host_ports, "bgp_neighbors": control.sessions,
                     "host_nic_ports": hosts.checked,
                     **({"raw_lines": raw.lines, "raw_values": raw.values} if raw.devices else {}),
                     "failures": len(result.failures)}
    result.failures = list(dict.fromkeys(result.failures))  # a broken pair seen from both ends is one line
    result.counts["failures"] = len(result.failures)
    result.seconds = time.perf_counter() - start
    return result
