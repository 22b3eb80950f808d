"""A stand-in for the commands the NVUE rollout play (templates/nvue/ansible/tasks/nvue.yml) runs on a Cumulus
Linux switch, so the generated deploy.yml can run unchanged on the controller (ansible_connection=local).

Per switch a state directory DIR/HOST holds:
  applied.json   the applied revision {"tree": ..., "pushed": bool} (tree = the NVUE object model, the value of
                 the `- set:` item; pushed: the revision came from a `nv config replace`, i.e. it is the new
                 configuration of the push, not the switch's own)
  pending.json   the pending revision (absent: none; `nv set` starts one from the applied revision)
  confirm.json   an unconfirmed `apply --confirm T`: {"timer": T, "seconds": s, "started": t, "previous": revision}
  bgp.json       what FRR would answer, written by the test: {"peers": {ip: {"remoteAs": asn, "state": S}},
                 "down_when_pushed": [ip]}: those sessions are not Established while the applied revision is the
                 pushed one (a fault the new configuration causes; they come back after --confirm-no)
  lldp.json      what lldpd would answer, written by the test: {local interface: [neighbour name, neighbour port]}
and DIR/calls.jsonl gets one JSON line per call ({"t", "host", "argv"}; argv starts with the command name).

  standin.py --state DIR --host H [--fail OP] nv config replace FILE | diff [-o commands] | detach
                                              | apply [--assume-yes|-y] [--confirm T] | apply --confirm-yes
                                              | apply --confirm-no
  standin.py ... nv set PATH... VALUE | nv unset PATH...
  standin.py ... vtysh -c 'show bgp summary json'      FRR's JSON (ipv4Unicast.peers.<ip>.state / remoteAs)
  standin.py ... lldpctl -f json                        lldpd's JSON (lldp.interface: [{if: {chassis, port}}])

NVUE semantics modelled (Cumulus Linux 5.x NVUE CLI guide, "Configuration Management Commands"; NVUE command
reference "Config Commands"): replace = the pending revision becomes the file (a YAML list whose items are `set:` /
`unset:` objects; anything else is refused, exit 1, nothing changed); set/unset edit the pending revision; diff
shows pending against applied; apply makes the pending revision the applied one; `--confirm T` applies it but rolls
back to the revision before unless confirmed within T (here: checked at every later `nv` call); detach drops the
pending revision. Not in NVIDIA's reference, modelled after secondary sources: `apply --confirm-yes` (keep) and
`apply --confirm-no` (roll back now). Stand-in choices: a `nv set` path's last word is the value (a scalar), except
after `action`, where NVUE's object model keys the choice (`action: {permit: {}}`, as the renderer writes it);
`nv unset` removes the subtree and the parents it leaves empty; a second apply while a confirm is pending is refused.
`--fail OP` makes one operation exit 1 with nothing changed: OP is set, unset, replace, diff, detach, apply (without
--confirm), confirm (apply --confirm T), confirm-yes, confirm-no, vtysh or lldpctl.
"""

from __future__ import annotations

import copy
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

import yaml

KEYED_CHOICES = {"action"}  # `nv set ... action permit` → action: {permit: {}}
_TIMER = re.compile(r"(\d+)([smh]?)")


class Refused(Exception):
    """An NVUE error: message on stderr, exit 1, nothing changed."""


# --------------------------------------------------------------------------- state files


def _read(path: Path, default: Any = None) -> Any:
    return json.loads(path.read_text()) if path.exists() else default


def _write(path: Path, data: Any) -> None:
    tmp = path.with_suffix(".new")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    os.replace(tmp, path)


def log(state: Path, host: str, argv: list[str]) -> None:
    with open(state / "calls.jsonl", "a", encoding="utf-8") as f:
        f.write(json.dumps({"t": time.time(), "host": host, "argv": argv}) + "\n")


def init_switch(state: Path, host: str, tree: dict[str, Any], bgp: dict[str, Any], lldp: dict[str, Any]) -> None:
    """A switch whose applied revision is `tree` (its own configuration, not a pushed one), nothing pending."""
    home = state / host
    home.mkdir(parents=True, exist_ok=True)
    if not (state / "calls.jsonl").exists():
        (state / "calls.jsonl").write_text("")
    _write(home / "applied.json", {"tree": tree, "pushed": False})
    for name in ("pending.json", "confirm.json"):
        (home / name).unlink(missing_ok=True)
    _write(home / "bgp.json", bgp)
    _write(home / "lldp.json", lldp)


# --------------------------------------------------------------------------- the object model


def document_tree(doc: Any) -> dict[str, Any]:
    """The configuration an NVUE document describes: its `set:` and `unset:` items applied in order to an empty
    configuration. Refused unless it is a non-empty list of such objects (a `header:` item, as `nv config show`
    writes, is allowed and ignored)."""
    if not isinstance(doc, list) or not doc:
        raise Refused("not an NVUE configuration: a YAML list of `- set:` / `- unset:` objects")
    tree: dict[str, Any] = {}
    for item in doc:
        if not isinstance(item, dict) or not item or set(item) - {"set", "unset", "header"}:
            raise Refused(f"not an NVUE configuration item: {str(item)[:60]!r}")
        if "set" in item:
            if not isinstance(item["set"], dict):
                raise Refused("not an NVUE configuration: `set:` is not an object")
            _merge(tree, item["set"])
        if "unset" in item:
            _remove(tree, item["unset"])
    return tree


def _merge(into: dict[str, Any], tree: dict[str, Any]) -> None:
    for key, value in tree.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = copy.deepcopy(value)


def _remove(tree: dict[str, Any], what: Any) -> None:
    if not isinstance(what, dict):
        return
    for key, sub in what.items():
        if key in tree:
            if isinstance(sub, dict) and sub and isinstance(tree[key], dict):
                _remove(tree[key], sub)
            else:
                del tree[key]


def path_tree(words: list[str], with_value: bool) -> dict[str, Any]:
    """`nv set a b c V` → {a: {b: {c: V}}} (numbers stay strings: NVUE keys are strings, values are checked by its
    schema, which the stand-in does not have); `nv unset a b c` → {a: {b: {c: {}}}}."""
    if not words or (with_value and len(words) < 2):
        raise Refused("Error: incomplete command")
    keys, leaf = (words[:-1], words[-1]) if with_value else (words, None)
    node: Any = ({leaf: {}} if keys[-1] in KEYED_CHOICES else _scalar(leaf)) if with_value else {}
    for key in reversed(keys):
        node = {key: node}
    return node


def _scalar(word: str) -> Any:
    return int(word) if word.isdigit() else word


def unset_path(tree: dict[str, Any], words: list[str]) -> None:
    """Remove the subtree at `words`, then every parent that removal left empty."""
    chain = [tree]
    for key in words[:-1]:
        nxt = chain[-1].get(key)
        if not isinstance(nxt, dict):
            return
        chain.append(nxt)
    if words[-1] not in chain[-1]:
        return
    del chain[-1][words[-1]]
    for depth in range(len(chain) - 1, 0, -1):
        if chain[depth]:
            break
        del chain[depth - 1][words[depth - 1]]


def diff_commands(old: Any, new: Any, path: tuple[str, ...] = ()) -> list[str]:
    """`nv config diff -o commands`: the `nv set` / `nv unset` commands that turn `old` into `new`."""
    if isinstance(old, dict) and isinstance(new, dict):
        out = []
        for key in sorted(set(old) | set(new), key=str):
            if key not in new:
                out.append("nv unset " + " ".join((*path, str(key))))
            else:
                out += diff_commands(old.get(key), new[key], (*path, str(key)))
        return out
    if old == new:
        return []
    if isinstance(new, dict):
        return diff_commands({}, new, path) or ["nv set " + " ".join(path)]
    return ["nv set " + " ".join((*path, json.dumps(new) if isinstance(new, str) and " " in new else str(new)))]


def timer_seconds(text: str) -> int:
    """`--confirm 15m` / `300s` / `1h`; a bare number is minutes (NVUE reference: `--confirm 60` = one hour)."""
    m = _TIMER.fullmatch(text)
    if not m:
        raise Refused(f"Error: invalid confirm time {text!r}")
    return int(m.group(1)) * {"": 60, "s": 1, "m": 60, "h": 3600}[m.group(2)]


# --------------------------------------------------------------------------- one switch


class Switch:
    def __init__(self, home: Path) -> None:
        self.home = home
        self.applied = _read(home / "applied.json")
        self.pending = _read(home / "pending.json")
        self.confirm = _read(home / "confirm.json")

    def save(self) -> None:
        _write(self.home / "applied.json", self.applied)
        for name, value in (("pending.json", self.pending), ("confirm.json", self.confirm)):
            if value is None:
                (self.home / name).unlink(missing_ok=True)
            else:
                _write(self.home / name, value)

    def expire(self, now: float) -> None:
        """The switch's own rollback when an unconfirmed apply's timer has ended."""
        if self.confirm and now >= self.confirm["started"] + self.confirm["seconds"]:
            self.applied, self.confirm = self.confirm["previous"], None

    def pending_or_applied(self) -> dict[str, Any]:
        if self.pending is None:
            self.pending = copy.deepcopy(self.applied)
        return self.pending

    def replace(self, file: str) -> str:
        try:
            doc = yaml.safe_load(Path(file).read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as e:
            raise Refused(f"Error: cannot read {file}: {e}") from e
        self.pending = {"tree": document_tree(doc), "pushed": True}
        return ""

    def set(self, words: list[str]) -> str:
        _merge(self.pending_or_applied()["tree"], path_tree(words, with_value=True))
        return ""

    def unset(self, words: list[str]) -> str:
        path_tree(words, with_value=False)  # refuses an empty path
        unset_path(self.pending_or_applied()["tree"], words)
        return ""

    def diff(self, commands: bool) -> str:
        new = self.pending["tree"] if self.pending else self.applied["tree"]
        lines = diff_commands(self.applied["tree"], new)
        return "\n".join(lines) if commands else yaml.safe_dump(lines)

    def apply(self, confirm: str | None, now: float) -> str:
        if self.confirm:
            raise Refused("Error: an applied revision is waiting for confirmation (--confirm-yes / --confirm-no)")
        if self.pending is None:
            return "Warning: no pending configuration to apply"
        if confirm is not None:
            self.confirm = {"timer": confirm, "seconds": timer_seconds(confirm), "started": now,
                            "previous": self.applied}
        self.applied, self.pending = self.pending, None
        return "applied" + (f" (rolls back in {confirm} unless confirmed)" if confirm else "")

    def confirm_yes(self) -> str:
        if not self.confirm:
            raise Refused("Error: no applied revision is waiting for confirmation")
        self.confirm = None
        return "confirmed"

    def confirm_no(self) -> str:
        if not self.confirm:
            raise Refused("Error: no applied revision is waiting for confirmation")
        self.applied, self.confirm = self.confirm["previous"], None
        return "rolled back"

    def detach(self) -> str:
        self.pending = None
        return ""


def nv(sw: Switch, args: list[str], fail: str, now: float) -> str:
    op, rest = (args[0], args[1:]) if args else ("", [])
    if op in ("set", "unset"):
        _check(fail, op)
        return sw.set(rest) if op == "set" else sw.unset(rest)
    if op != "config" or not rest:
        raise Refused(f"stand-in: unsupported nv {' '.join(args)}")
    verb, opts = rest[0], rest[1:]
    if verb == "replace" and len(opts) == 1:
        _check(fail, "replace")
        return sw.replace(opts[0])
    if verb == "diff" and opts in ([], ["-o", "commands"]):
        _check(fail, "diff")
        return sw.diff(bool(opts))
    if verb == "detach" and not opts:
        _check(fail, "detach")
        return sw.detach()
    if verb == "apply":
        if opts == ["--confirm-yes"]:
            _check(fail, "confirm-yes")
            return sw.confirm_yes()
        if opts == ["--confirm-no"]:
            _check(fail, "confirm-no")
            return sw.confirm_no()
        flags = [o for o in opts if o not in ("--assume-yes", "-y", "--y")]
        if flags[:1] == ["--confirm"] and len(flags) == 2:
            _check(fail, "confirm")
            return sw.apply(flags[1], now)
        if not flags:
            _check(fail, "apply")
            return sw.apply(None, now)
    raise Refused(f"stand-in: unsupported nv {' '.join(args)}")


def _check(fail: str, op: str) -> None:
    if fail == op:
        raise Refused(f"Error: {op} failed (stand-in --fail {op})")


def vtysh(sw: Switch, args: list[str]) -> str:
    if args != ["-c", "show bgp summary json"]:
        raise Refused(f"stand-in: unsupported vtysh {args}")
    bgp = _read(sw.home / "bgp.json", {})
    peers = copy.deepcopy(bgp.get("peers", {}))
    if sw.applied.get("pushed"):
        for ip in bgp.get("down_when_pushed", []):
            peers[ip]["state"] = "Active"
    return json.dumps({"ipv4Unicast": {"peerCount": len(peers), "peers": peers}}, indent=2)


def lldpctl(sw: Switch, args: list[str]) -> str:
    if args != ["-f", "json"]:
        raise Refused(f"stand-in: unsupported lldpctl {args}")
    seen = _read(sw.home / "lldp.json", {})
    return json.dumps({"lldp": {"interface": [
        {ifname: {"chassis": {name: {"id": {"type": "mac", "value": "0c:42:a1:00:00:02"}}},
                  "port": {"id": {"type": "ifname", "value": port}}}}
        for ifname, (name, port) in sorted(seen.items())]}}, indent=2)


def main(argv: list[str]) -> int:
    """standin.py --state DIR --host H [--fail OP] COMMAND ARGS... (argparse would eat the commands' own options)."""
    opts: dict[str, str] = {"--fail": ""}
    while argv and argv[0] in ("--state", "--host", "--fail") and len(argv) > 1:
        opts[argv[0]], argv = argv[1], argv[2:]
    if "--state" not in opts or "--host" not in opts or not argv or argv[0] not in ("nv", "vtysh", "lldpctl"):
        print("usage: standin.py --state DIR --host H [--fail OP] nv|vtysh|lldpctl ARGS...", file=sys.stderr)
        return 2
    state, host, fail = Path(opts["--state"]), opts["--host"], opts["--fail"]
    log(state, host, argv)
    sw = Switch(state / host)
    now = time.time()
    sw.expire(now)
    try:
        if argv[0] == "nv":
            out = nv(sw, argv[1:], fail, now)
        else:
            _check(fail, argv[0])
            out = vtysh(sw, argv[1:]) if argv[0] == "vtysh" else lldpctl(sw, argv[1:])
    except Refused as e:
        sw = Switch(state / host)  # nothing changed, but the timer's own rollback if it happened
        sw.expire(now)
        sw.save()
        print(str(e), file=sys.stderr)
        return 1
    sw.save()
    if out:
        print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
