"""The verifier's flow: read the plan files, read every device with its platform's reader, run the checks.

Nothing here (or anywhere under railfabric/verify/) imports railfabric's device model, templates or pipeline: the
rendered files are the only input, so a bug there cannot hide itself (tests/test_verify.py asserts this).
"""

from __future__ import annotations

import gc
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
from railfabric.verify.inputs import DeviceVars, read_plan, read_text
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


class VendorSchemas:
    """Every rendered file of a platform with a vendor schema, checked against the schema of its release (host_vars
    `release`, else the platform's default, said in a note). `device` runs right after the device's reader, while
    the file's parsed document is still in its platform's small cache (railfabric.verify.nvue_schema.document: the
    file is parsed once, not twice); `failures` and `notes` are reported where the whole pass used to run."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.failures: list[Failure] = []
        self.notes: list[str] = []
        self.checked: dict[str, int] = {}

    def device(self, name: str, vars_: DeviceVars) -> None:
        check = schema_check(vars_.platform)
        if check is None:
            return
        traits = PLATFORMS[vars_.platform]
        release = vars_.release or traits.default_release
        if not vars_.release:
            self.notes.append(f"{name}: host_vars name no release: checked against {traits.title} {release}")
        for file in traits.config_files():
            where = f"configs/{name}/{file}"
            self.failures += [Failure("vendor-schema", name, file, f"{traits.title} {release} schema accepts it", p,
                                      where) for p in check(read_text(self.root / where, self.root), release)]
            self.checked[traits.title] = self.checked.get(traits.title, 0) + 1

    def summary(self) -> list[str]:
        return self.notes + [f"{title}: {n} file(s) checked against the vendor's schema of their release"
                             for title, n in sorted(self.checked.items())]


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
    """Check the rendered tree under `root`; raises VerifyInputError when it cannot be used at all.

    The cyclic garbage collector is paused meanwhile, as `fabric verify` runs (railfabric.cli pauses it for every
    command) and as railfabric.pipeline.run and railfabric.emit.build do: the parsed files are hundreds of thousands
    of small dicts and config-tree nodes, and the collector's passes over them freed nothing while costing a quarter
    to a third of verify's time when it is called as a function (docs/testing-time.md). What is left for it (the
    config trees link child and parent) is collected once it runs again."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _verify(root, frr_parser, progress)
    finally:
        if enabled:
            gc.enable()


def _verify(root: Path, frr_parser: bool, progress: bool) -> Result:
    start = time.perf_counter()
    root = Path(root)
    plan = read_plan(root)
    result = Result(notes=list(plan.notes))
    devices: dict[str, ObservedDevice] = {}
    schemas = VendorSchemas(root)
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
        schemas.device(name, vars_)
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
    result.failures += schemas.failures
    result.notes += schemas.summary()
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
