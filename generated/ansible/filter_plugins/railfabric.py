"""Ansible filter plugin for generated/ansible/deploy.yml: the rollout's platform-neutral decisions on the controller.

This file is copied verbatim to generated/ansible/filter_plugins/railfabric.py (Ansible loads filter plugins from a
`filter_plugins/` directory beside the playbook), so it must stand alone: standard library only, no railfabric
import. The tests import it as a module and run it through the real ansible-playbook.

What a platform decides (its access check, drain, the shape of its `show` output) lives with the platform, in its
own standalone plugin railfabric/configs/<name>/ansible_plugin.py, copied next to this one as railfabric_<name>.py
(Ansible loads it too, for its own rf_<name>_* filters). The filters here that depend on the platform take it as an
argument and call that plugin's hooks: access_problems(directory, host, user, connection), drain(text, count,
method), undrain(text, method), bgp_peers(show), lldp_seen(show). A platform without a plugin or without the hook is
refused, never pushed blind.

Filters (all pure: text or data in, data out):
- rf_batches(sizes, cap): the play's `serial` list: every precomputed wave split into batches of at most `cap`.
- rf_wave_pattern(waves), rf_wave_sizes(waves, planned), rf_wave_numbers(hosts, waves, planned),
  rf_waves_problems(waves, inventory_hosts, play_hosts): the order taken from maintenance waves (`-e @FILE` written
  by `fabric impact --maintenance ... --emit-waves FILE`: rollout_maintenance_waves, a list of lists of switch
  names) instead of the rendered plan, and why such a file cannot order this run.
- rf_vault_names(text) / rf_vault_resolve(text, values, kind): the `%%vault.NAME%%` placeholders of a rendered file
  and the file with each replaced by its value (JSON-escaped in JSON files; a value holding a line break or another
  control character is refused, so a secret can never add a configuration line).
- rf_access_problems(directory, platform, host, user, connection): why the resolved files would cut off the access
  the push itself uses ([] when they would not), by the platform's check.
- rf_drain(text, platform, count, method) / rf_undrain(text, platform, method): the configuration lines that drain a
  switch (method graceful-shutdown: RFC 8326 on every eBGP session; as-path-prepend: its own ASN prepended on every
  eBGP peer group, outbound) and undo it.
- rf_expected_rows(csv_text, device), rf_bgp_problems(show_json, rows, platform), rf_lldp_problems(show_json, rows,
  platform): the verification against generated/expected/; rf_established(show_json, platform): the sessions up
  before the change, which a rollback must bring back.
"""

from __future__ import annotations

import csv
import importlib.util
import io
import json
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

VAULT = re.compile(r"%%vault\.([a-z_][a-z0-9_]{0,47})%%")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_PLATFORM_NAME = re.compile(r"[a-z][a-z0-9_]{0,31}")
_HERE = Path(__file__).resolve().parent


class FilterError(ValueError):
    """Raised to fail the task (Ansible reports the message of any exception a filter raises)."""

# --------------------------------------------------------------------------- order

def rf_batches(sizes: list[int], cap: int | str = 1) -> list[int]:
    """[3, 1] with cap 2 → [2, 1, 1]: a batch never spans two waves, so it never holds two switches that conflict."""
    limit = int(cap)
    if limit < 1:
        raise FilterError(f"rollout_batch must be 1 or more, not {cap!r}")
    out: list[int] = []
    for size in sizes:
        left = int(size)
        while left > 0:
            out.append(min(limit, left))
            left -= limit
    return out or [1]


def _waves(waves: Any) -> list[list[str]]:
    """`rollout_maintenance_waves` (`fabric impact --maintenance ... --emit-waves FILE`) checked: a list of
    non-empty lists of switch names, no name twice."""
    if not isinstance(waves, list) or not all(isinstance(w, list) and w and all(isinstance(h, str) and h for h in w)
                                              for w in waves):
        raise FilterError("rollout_maintenance_waves must be a list of waves, each a non-empty list of switch names "
                          "(write it with `fabric impact --maintenance NAME ... --emit-waves FILE`)")
    seen: set[str] = set()
    twice: set[str] = set()
    for h in (h for w in waves for h in w):
        (twice if h in seen else seen).add(h)
    if twice:
        raise FilterError(f"rollout_maintenance_waves has {', '.join(sorted(twice))} in more than one wave")
    return waves


def rf_wave_pattern(waves: Any) -> str:
    """The play's host pattern: `rollout` in the rendered order, or with maintenance waves their switches first, wave
    after wave, then `rollout` (what --limit leaves of it is refused by rf_waves_problems when not in a wave)."""
    if not waves:
        return "rollout"
    return ",".join([h for w in _waves(waves) for h in w] + ["rollout"])


def rf_wave_sizes(waves: Any, planned: list[int]) -> list[int]:
    """The wave sizes `serial` splits: the maintenance waves' when given, else the rendered plan's."""
    return [len(w) for w in _waves(waves)] if waves else list(planned)


def rf_wave_numbers(hosts: list[str], waves: Any, planned: list[int]) -> list[int]:
    """Each host's wave: its maintenance wave when waves are given (1-based; 0 for a host in none), else its wave in
    the rendered plan (`planned`, the hosts' `rollout_wave` in the same order)."""
    if not waves:
        return list(planned)
    of = {h: i for i, w in enumerate(_waves(waves), 1) for h in w}
    return [of.get(h, 0) for h in hosts]


def rf_waves_problems(waves: Any, inventory_hosts: list[str], play_hosts: list[str]) -> list[str]:
    """Why a waves file cannot order this run ([] when it can): a switch of the file the inventory's `rollout` group
    lacks, or a switch the run would push (the play's hosts after --limit) that is in no wave."""
    if not waves:
        return []
    listed = [h for w in _waves(waves) for h in w]
    known = set(inventory_hosts)
    out = []
    unknown = [h for h in listed if h not in known]
    if unknown:
        out.append(f"not switches of this inventory's rollout: {', '.join(unknown)}")
    mine = set(listed)
    uncovered = [h for h in play_hosts if h not in mine]
    if uncovered:
        out.append(f"{len(uncovered)} switch(es) this run would push are in no wave: {', '.join(uncovered[:12])}"
                   + (", ..." if len(uncovered) > 12 else "") + "; limit the run to the waves' switches (--limit "
                   "as the waves file's first lines say) or add them to the maintenance set")
    return out

# --------------------------------------------------------------------------- secrets

def rf_vault_names(text: str) -> list[str]:
    return sorted(set(VAULT.findall(text)))

def rf_vault_resolve(text: str, values: dict[str, Any], kind: str = "text") -> str:
    """Replace every placeholder. `kind` json: the value is escaped as a JSON string body (the placeholders of
    config_db.json sit inside JSON strings)."""
    missing = [n for n in rf_vault_names(text) if values.get(n) is None]
    if missing:
        raise FilterError(f"undefined vault variable(s): {', '.join(missing)}")

    def value(m: re.Match[str]) -> str:
        secret = str(values[m.group(1)])
        if _CONTROL.search(secret):
            raise FilterError(f"vault variable {m.group(1)} holds a line break or control character: refused")
        return json.dumps(secret)[1:-1] if kind == "json" else secret

    return VAULT.sub(value, text)

# --------------------------------------------------------------------------- platform plugins


def _plugin_files(platform: str) -> list[tuple[str, Path]]:
    """Where the plugin of `platform` may be, with the module name it is loaded as: next to this file in
    generated/ansible/filter_plugins/, or in the source tree (railfabric/configs/<platform>/, ../configs/ from here)."""
    return [(f"railfabric_{platform}", _HERE / f"railfabric_{platform}.py"),
            (f"railfabric.configs.{platform}.ansible_plugin",
             _HERE.parent / "configs" / platform / "ansible_plugin.py")]


def _plugin(platform: str) -> ModuleType:
    """The platform's filter plugin, loaded once (a module already loaded under its name is the one used)."""
    if not isinstance(platform, str) or not _PLATFORM_NAME.fullmatch(platform):
        raise FilterError(f"not a platform name: {platform!r}: refusing to push")
    for name, path in _plugin_files(platform):
        if not path.is_file():
            continue
        loaded = sys.modules.get(name)
        if loaded is not None and Path(getattr(loaded, "__file__", "") or "").resolve() == path.resolve():
            return loaded
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            break
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            sys.modules.pop(name, None)
            raise
        return module
    raise FilterError(f"no filter plugin for platform {platform!r} (railfabric_{platform}.py): refusing to push")


def _hook(platform: str, hook: str, what: str) -> Any:
    fn = getattr(_plugin(platform), hook, None)
    if not callable(fn):
        raise FilterError(f"no {what} for platform {platform!r}: refusing to push")
    return fn

# --------------------------------------------------------------------------- access guard


def rf_access_problems(directory: str, platform: str, host: str, user: str = "", connection: str = "") -> list[str]:
    """Why pushing the resolved files in `directory` (the pre-flight's private directory) to this switch would cut
    the push off: the platform's own check of the management access it keeps ([] = safe). A platform without a
    check is refused, never pushed blind."""
    check = _hook(platform, "access_problems", "management-access check")
    return list(check(Path(directory), host, user or "", connection or ""))


# --------------------------------------------------------------------------- drain


def rf_drain(text: str, platform: str, count: int | str = 3, method: str = "as-path-prepend") -> str:
    """Lines that drain the switch by `method` (host_vars rollout_drain): graceful-shutdown sends the RFC 8326
    GRACEFUL_SHUTDOWN community on every eBGP session (each neighbour lowers LOCAL_PREF of those routes to 0);
    as-path-prepend: every route it advertises leaves with its own ASN prepended `count` more times, so every eBGP
    neighbour (in another AS, RFC 7938) prefers the same prefix through any other switch."""
    return str(_hook(platform, "drain", "drain")(text, count, method))


def rf_undrain(text: str, platform: str, method: str = "as-path-prepend") -> str:
    return str(_hook(platform, "undrain", "undrain")(text, method))

# --------------------------------------------------------------------------- verification


def rf_expected_rows(text: str, device: str) -> list[dict[str, str]]:
    """The rows of a generated/expected/*.csv file (first line `# <title>`) whose `device` is this one."""
    body = "\n".join(line for line in text.splitlines() if not line.startswith("#"))
    return [row for row in csv.DictReader(io.StringIO(body)) if row.get("device") == device]


def _peers(show: Any, platform: str) -> dict[str, tuple[str, str]]:
    """neighbour address → (state, remote ASN), by the platform's reader of its `show` output (JSON text or
    parsed)."""
    data = json.loads(show) if isinstance(show, str) else show
    return dict(_hook(platform, "bgp_peers", "BGP summary reader")(data))


def rf_bgp_problems(show: Any, rows: list[dict[str, str]], platform: str) -> list[str]:
    """Every planned session of the device Established with the planned remote ASN; [] when all are."""
    peers = _peers(show, platform)
    problems = []
    for row in rows:
        # an unnumbered session (empty neighbor_ip, routing.addressing: unnumbered) is keyed by its interface in
        # the switch's BGP summary (FRR `show bgp summary json`, NVUE's neighbor list): both name the peer so
        key, ip = row["neighbor_ip"] or row["interface"], row["neighbor_ip"] or "unnumbered"
        state, asn = peers.get(key, ("absent", ""))
        if state != "Established":
            problems.append(f"{row['interface']} {ip} ({row['peer_device']}): {state}")
        elif asn != row["remote_asn"]:
            problems.append(f"{row['interface']} {ip} ({row['peer_device']}): remote AS {asn}, planned "
                            f"{row['remote_asn']}")
    return problems


def rf_established(show: Any, platform: str) -> list[str]:
    """The neighbours whose session is Established (a snapshot before the change, to check a rollback by)."""
    return sorted(ip for ip, (state, _asn) in _peers(show, platform).items() if state == "Established")


def rf_lldp_problems(show: Any, rows: list[dict[str, str]], platform: str) -> list[str]:
    """Every planned LLDP neighbour seen on its interface (local interface → neighbour name and port by the
    platform's reader); [] when all are."""
    data = json.loads(show) if isinstance(show, str) else show
    seen = dict(_hook(platform, "lldp_seen", "LLDP neighbour reader")(data))
    problems = []
    for row in rows:
        got = seen.get(row["interface"])
        want = (row["neighbor"], row["neighbor_interface"])
        if got != want:
            problems.append(f"{row['interface']}: planned {want[0]} {want[1]}, seen "
                            + (f"{got[0]} {got[1]}" if got else "nothing"))
    return problems

class FilterModule:
    def filters(self) -> dict[str, Any]:
        return {name: fn for name, fn in globals().items() if name.startswith("rf_") and callable(fn)}
