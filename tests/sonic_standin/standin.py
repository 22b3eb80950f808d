"""A stand-in for the SONiC commands the rollout playbook runs, for the FRR lab (which has FRR but no SONiC).

One CONFIG_DB per switch, kept as a JSON file; every call is appended to a log so a test can check what was run,
on which switch, in which order. It implements only what the playbook uses, with a few of SONiC's real checks:

  standin.py --state DIR --host H config checkpoint NAME       CONFIG_DB → DIR/H/checkpoints/NAME.json
  standin.py --state DIR --host H config replace [--dry-run] F  CONFIG_DB := F after the checks below (dry run:
                                                               print the change, apply nothing)
  standin.py --state DIR --host H config rollback NAME         replace with the checkpoint
  standin.py --state DIR --host H sonic-cfggen -d --var-json T print table T of CONFIG_DB as JSON
  standin.py --state DIR --host H sonic-cfggen -d --print-data   print the whole CONFIG_DB as JSON
  standin.py --state DIR --host H exec -- CMD ...              log, then run CMD (vtysh, frr-reload.py)
  --fail OP (before the command): `config OP` fails, to test what the playbook does then

Checks of `config replace` (each refusal exits 1 and changes nothing, like GCU's "Given patch will produce invalid
config"): the file is a JSON object of tables of objects; no empty table (GCU refuses targets that leave one);
leafrefs: PORT_QOS_MAP, QUEUE, INTERFACE and VLAN_MEMBER name ports of PORT (or PORTCHANNEL), VLAN_MEMBER and
VLAN_INTERFACE name VLANs of VLAN, MGMT_INTERFACE names MGMT_PORT when MGMT_PORT exists; the management address
of the running CONFIG_DB is kept; DEVICE_METADATA|localhost keeps the running mac and platform.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path


def log(state: Path, host: str, argv: list[str]) -> None:
    line = json.dumps({"t": time.time(), "host": host, "argv": argv}) + "\n"
    with open(state / "calls.jsonl", "a", encoding="utf-8") as f:
        f.write(line)


def problems(running: dict, target: object) -> list[str]:
    if not isinstance(target, dict):
        return ["not a JSON object of tables"]
    out = []
    for name, table in target.items():
        if not isinstance(table, dict) or not all(isinstance(v, dict) for v in table.values()):
            out.append(f"table {name}: not an object of objects")
        elif not table:
            out.append(f"table {name}: empty")
    if out:
        return out
    ports = set(target.get("PORT", {})) | set(target.get("PORTCHANNEL", {}))
    vlans = set(target.get("VLAN", {}))
    for table in ("PORT_QOS_MAP", "QUEUE", "INTERFACE"):
        for key in target.get(table, {}):
            port = key.split("|")[0]
            if port != "global" and port not in ports:
                out.append(f"{table}|{key}: port {port} is not in PORT")
    for key in target.get("VLAN_MEMBER", {}):
        vlan, _, port = key.partition("|")
        if vlan not in vlans:
            out.append(f"VLAN_MEMBER|{key}: {vlan} is not in VLAN")
        if port not in ports:
            out.append(f"VLAN_MEMBER|{key}: {port} is not in PORT")
    for key in target.get("VLAN_INTERFACE", {}):
        if key.split("|")[0] not in vlans:
            out.append(f"VLAN_INTERFACE|{key}: not in VLAN")
    if "MGMT_PORT" in target:
        for key in target.get("MGMT_INTERFACE", {}):
            if key.split("|")[0] not in target["MGMT_PORT"]:
                out.append(f"MGMT_INTERFACE|{key}: not in MGMT_PORT")
    mgmt = {k.split("|")[-1] for k in running.get("MGMT_INTERFACE", {})}
    if mgmt and not mgmt & {k.split("|")[-1] for k in target.get("MGMT_INTERFACE", {})}:
        out.append(f"MGMT_INTERFACE: the management address {sorted(mgmt)[0]} is removed")
    mine = running.get("DEVICE_METADATA", {}).get("localhost", {})
    theirs = target.get("DEVICE_METADATA", {}).get("localhost", {})
    for fact in ("mac", "platform"):
        if fact in mine and theirs.get(fact) != mine[fact]:
            out.append(f"DEVICE_METADATA|localhost: {fact} {theirs.get(fact)!r} differs from the switch's "
                       f"{mine[fact]!r}")
    return out


def diff(running: dict, target: dict) -> list[str]:
    lines = []
    for table in sorted(set(running) | set(target)):
        a, b = running.get(table, {}), target.get(table, {})
        for key in sorted(set(a) | set(b)):
            if key not in b:
                lines.append(f"- {table}|{key}")
            elif key not in a:
                lines.append(f"+ {table}|{key}")
            elif a[key] != b[key]:
                lines.append(f"~ {table}|{key}")
    return lines


def replace(db: Path, target_file: Path, dry_run: bool) -> int:
    running = json.loads(db.read_text())
    try:
        target = json.loads(target_file.read_text())
    except (OSError, ValueError) as e:
        print(f"Error: cannot read {target_file}: {e}", file=sys.stderr)
        return 1
    bad = problems(running, target)
    if bad:
        print("Error: Given patch will produce invalid config:\n  " + "\n  ".join(bad), file=sys.stderr)
        return 1
    changes = diff(running, target)
    print("\n".join(changes) if changes else "no change")
    if not dry_run:
        tmp = db.with_suffix(".new")
        tmp.write_text(json.dumps(target, indent=2, sort_keys=True) + "\n")
        os.replace(tmp, db)
    return 0


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--state", type=Path, required=True)
    p.add_argument("--host", required=True)
    p.add_argument("--fail", default="", help="a `config` operation that fails (exit 1, nothing changed)")
    p.add_argument("command", choices=["config", "sonic-cfggen", "exec"])
    p.add_argument("args", nargs=argparse.REMAINDER)
    a = p.parse_args(argv)
    args = [x for x in a.args if x != "--"] if a.command == "exec" else a.args
    log(a.state, a.host, [a.command, *args])
    home = a.state / a.host
    db = home / "config_db.json"
    if a.command == "exec":
        return subprocess.run(args).returncode
    if a.command == "sonic-cfggen":
        if args == ["-d", "--print-data"]:
            print(json.dumps(json.loads(db.read_text()), indent=4))
            return 0
        if args[:2] != ["-d", "--var-json"] or len(args) != 3:
            print(f"stand-in: unsupported sonic-cfggen {args}", file=sys.stderr)
            return 2
        print(json.dumps(json.loads(db.read_text()).get(args[2], {}), indent=4))
        return 0
    op, rest = (args[0], args[1:]) if args else ("", [])
    if op and op == a.fail:
        print(f"Error: {op} failed (stand-in --fail {op})", file=sys.stderr)
        return 1
    if op == "checkpoint" and len(rest) == 1:
        (home / "checkpoints").mkdir(exist_ok=True)
        (home / "checkpoints" / f"{rest[0]}.json").write_text(db.read_text())
        print("Checkpoint created successfully.")
        return 0
    if op == "replace" and rest:
        dry = any(x in ("--dry-run", "-d") for x in rest)
        files = [x for x in rest if not x.startswith("-")]
        return replace(db, Path(files[0]), dry)
    if op == "rollback" and len(rest) == 1:
        cp = home / "checkpoints" / f"{rest[0]}.json"
        if not cp.exists():
            print(f"Error: checkpoint {rest[0]} does not exist", file=sys.stderr)
            return 1
        return replace(db, cp, False)
    print(f"stand-in: unsupported config {args}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
