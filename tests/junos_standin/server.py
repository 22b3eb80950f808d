"""A stand-in Junos switch for the rollout tests: NETCONF 1.0 over SSH (paramiko server, subsystem `netconf`,
`]]>]]>` framing; the hello offers base:1.0 only, so ncclient keeps that framing), answering the RPCs that
junipernetworks.junos' junos_config / junos_command and ansible.netcommon's netconf connection really send:

  get-software-information             device facts (every module run asks once, for get_capabilities)
  lock / unlock (candidate)            one session at a time; a session that ends drops its lock and its changes
  load-configuration action=override   candidate := the text;  action=merge: merged into the candidate;
                     action=set        set/delete lines applied to the candidate (tests/junos_standin/config.py)
  load-configuration rollback=N        candidate := committed configuration N (rollback 0 = the running one)
  validate (candidate)                 the candidate parses
  get-configuration [format=text|set]  the candidate (or running) configuration as text / set lines
  get-configuration compare=rollback   `show | compare rollback N`: the candidate against commit N
  commit-configuration [confirmed + confirm-timeout] [check] [log]
                                       a new commit at rollback 0 (check: validate only); `confirmed` leaves a
                                       pending confirmed commit (its timer does not run here); any later commit
                                       confirms it, as on Junos
  discard-changes                      candidate := running
  command format=json                  `show bgp summary`, `show lldp neighbors` (see below)
  close-session

State: the committed history (rollback 0..n) as text, the candidate, the pending confirmed commit. The operational
answers come from the committed configuration and a JSON file the test writes ({host: {"bgp": {neighbour: the AS
that really answers there}, "lldp": [[local port, system name, port id], ...]}}): every `neighbor` of a BGP group is
Established when its configured peer-as (neighbour's, else the group's) is the AS that answers, else Active; LLDP
lists what the file says. Every RPC is appended to <log> as one JSON line: {"host", "rpc", "attrs", "detail"}.
"""

from __future__ import annotations

import json
import socket
import threading
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import paramiko

from tests.junos_standin import config as cfg

EOM = b"]]>]]>"
NC = "urn:ietf:params:xml:ns:netconf:base:1.0"
CAPABILITIES = (
    "urn:ietf:params:netconf:base:1.0",
    "urn:ietf:params:netconf:capability:candidate:1.0",
    "urn:ietf:params:netconf:capability:confirmed-commit:1.0",
    "urn:ietf:params:netconf:capability:validate:1.0",
    "urn:ietf:params:netconf:capability:url:1.0?scheme=http,ftp,file",
    "http://xml.juniper.net/netconf/junos/1.0",
    "http://xml.juniper.net/dmi/system/1.0",
)


class RpcError(Exception):
    pass


@dataclass
class Commit:
    text: str
    log: str | None
    confirmed_minutes: int | None = None


@dataclass
class Switch:
    """One switch's configuration state and its RPC log."""

    host: str
    history: list[Commit]  # index = rollback number
    log: Path
    ops: Path  # the operational state file the test writes
    candidate: str | None = None  # None: the same as rollback 0
    pending: Commit | None = None  # a commit confirmed not yet confirmed
    lock_owner: int | None = None
    mutex: threading.Lock = field(default_factory=threading.Lock)

    @property
    def running(self) -> str:
        return self.history[0].text

    def record(self, rpc: str, attrs: dict[str, str], detail: Any = None) -> None:
        line = json.dumps({"t": time.time(), "host": self.host, "rpc": rpc, "attrs": attrs, "detail": detail})
        with open(self.log, "a", encoding="utf-8") as f:
            f.write(line + "\n")

    # ------------------------------------------------------------------ RPCs (the element's local name)

    def handle(self, session: int, rpc: ET.Element) -> str:
        name = _local(rpc.tag)
        attrs = {_local(k): v for k, v in rpc.attrib.items()}
        detail = self._detail(name, rpc)
        self.record(name, attrs, detail)
        with self.mutex:
            method = getattr(self, "rpc_" + name.replace("-", "_"), None)
            if method is None:
                raise RpcError(f"syntax error, expecting <rpc> content: {name}")
            return method(session, rpc, attrs)

    @staticmethod
    def _detail(name: str, rpc: ET.Element) -> Any:
        if name == "command":
            return (rpc.text or "").strip()
        if name == "commit-configuration":
            return {_local(c.tag): (c.text or "").strip() for c in rpc}
        if name == "load-configuration":
            body = next(iter(rpc), None)
            return None if body is None else {_local(body.tag): body.text or ""}
        return None

    def _locked_by(self, session: int) -> None:
        if self.lock_owner not in (None, session):
            raise RpcError(f"configuration database locked by session {self.lock_owner}")

    def rpc_get_software_information(self, session: int, rpc: ET.Element, attrs: dict[str, str]) -> str:
        return (f"<software-information><host-name>{self.host}</host-name><product-model>qfx5240-64od</product-model>"
                "<product-name>qfx5240-64od</product-name><junos-version>23.4R2-S3.9</junos-version>"
                "</software-information>")

    def rpc_lock(self, session: int, rpc: ET.Element, attrs: dict[str, str]) -> str:
        self._locked_by(session)
        self.lock_owner = session
        return "<ok/>"

    def rpc_unlock(self, session: int, rpc: ET.Element, attrs: dict[str, str]) -> str:
        self._locked_by(session)
        self.lock_owner = None
        return "<ok/>"

    def rpc_load_configuration(self, session: int, rpc: ET.Element, attrs: dict[str, str]) -> str:
        self._locked_by(session)
        if "rollback" in attrs:
            n = int(attrs["rollback"])
            if n >= len(self.history):
                raise RpcError(f"rollback {n}: no such configuration")
            self.candidate = self.history[n].text
            return "<load-configuration-results><ok/></load-configuration-results>"
        action, fmt = attrs.get("action", "merge"), attrs.get("format", "xml")
        body = next(iter(rpc), None)
        text = "" if body is None else body.text or ""
        base = self.candidate if self.candidate is not None else self.running
        try:
            if action == "set" and fmt == "text":
                tree = cfg.parse(base)
                for line in text.splitlines():
                    if line.strip():
                        cfg.apply_set(tree, line.strip())
                self.candidate = cfg.to_text(tree)
            elif action == "override" and fmt == "text":
                cfg.parse(text)
                self.candidate = text
            elif action == "merge" and fmt == "text":
                tree = cfg.parse(base)
                cfg.merge(tree, cfg.parse(text))
                self.candidate = cfg.to_text(tree)
            else:
                raise RpcError(f"the stand-in does not load action={action} format={fmt}")
        except cfg.ConfigError as exc:
            raise RpcError(str(exc)) from exc
        return "<load-configuration-results><ok/></load-configuration-results>"

    def rpc_validate(self, session: int, rpc: ET.Element, attrs: dict[str, str]) -> str:
        try:
            cfg.parse(self.candidate if self.candidate is not None else self.running)
        except cfg.ConfigError as exc:
            raise RpcError(str(exc)) from exc
        return "<ok/>"

    def rpc_get_configuration(self, session: int, rpc: ET.Element, attrs: dict[str, str]) -> str:
        current = self.candidate if self.candidate is not None else self.running
        if attrs.get("compare") == "rollback":
            n = int(attrs.get("rollback", "0"))
            if n >= len(self.history):
                raise RpcError(f"rollback {n}: no such configuration")
            diff = cfg.compare(self.history[n].text, current)
            return (f"<configuration-information><configuration-output>\n{_esc(diff)}\n</configuration-output>"
                    "</configuration-information>")
        fmt = attrs.get("format", "xml")
        if fmt == "text":
            return f"<configuration-text>{_esc(current)}</configuration-text>"
        if fmt == "set":
            return f"<configuration-set>{_esc(chr(10).join(cfg.set_lines(cfg.parse(current))))}</configuration-set>"
        raise RpcError(f"the stand-in does not print format={fmt}")

    def rpc_commit_configuration(self, session: int, rpc: ET.Element, attrs: dict[str, str]) -> str:
        self._locked_by(session)
        options = {_local(c.tag): (c.text or "").strip() for c in rpc}
        text = self.candidate if self.candidate is not None else self.running
        try:
            cfg.parse(text)
        except cfg.ConfigError as exc:
            raise RpcError(str(exc)) from exc
        if "check" in options:
            return "<commit-results><routing-engine><name>re0</name><commit-check-success/></routing-engine>" \
                   "</commit-results>"
        minutes = int(options.get("confirm-timeout") or 10) if "confirmed" in options else None
        commit = Commit(text, options.get("log"), minutes)
        self.history.insert(0, commit)
        self.pending = commit if minutes is not None else None  # any later commit confirms a pending one
        self.candidate = None
        return "<commit-results><routing-engine><name>re0</name><commit-success/></routing-engine></commit-results>"

    def rpc_discard_changes(self, session: int, rpc: ET.Element, attrs: dict[str, str]) -> str:
        self.candidate = None
        return "<ok/>"

    def rpc_command(self, session: int, rpc: ET.Element, attrs: dict[str, str]) -> str:
        command = " ".join((rpc.text or "").split())
        if attrs.get("format") != "json":
            raise RpcError(f"the stand-in answers format=json only, not {attrs.get('format')}")
        state = json.loads(self.ops.read_text()).get(self.host, {}) if self.ops.exists() else {}
        if command == "show bgp summary":
            return _esc(json.dumps(bgp_summary(self.running, state.get("bgp", {})), indent=4))
        if command == "show lldp neighbors":
            return _esc(json.dumps(lldp_neighbors(state.get("lldp", [])), indent=4))
        raise RpcError(f"syntax error: {command}")

    def rpc_close_session(self, session: int, rpc: ET.Element, attrs: dict[str, str]) -> str:
        return "<ok/>"

    def session_ended(self, session: int) -> None:
        with self.mutex:
            if self.lock_owner == session:  # Junos drops the lock and the uncommitted changes
                self.lock_owner = None
                self.candidate = None


def _data(value: str) -> list[dict[str, str]]:
    return [{"data": value}]


def bgp_summary(running: str, answers: dict[str, str]) -> dict[str, Any]:
    """`show bgp summary | display json` from the committed configuration (see the module docstring)."""
    tree = cfg.parse(running)
    peers = []
    bgp = tree.child(("protocols",))
    bgp = bgp.child(("bgp",)) if bgp else None
    groups = [g for g in (bgp.children if bgp else []) if g.block and g.words[0] == "group"]
    for group in groups:
        group_as = next((c.words[1] for c in group.children if not c.block and c.words[0] == "peer-as"), None)
        for nb in (c for c in group.children if c.words[0] == "neighbor"):
            peer_as = next((c.words[1] for c in nb.children if not c.block and c.words[0] == "peer-as"), group_as)
            up = answers.get(nb.words[1]) == peer_as
            peers.append({"attributes": {"junos:style": "terse"}, "peer-address": _data(nb.words[1]),
                          "peer-as": _data(str(peer_as)), "peer-state": _data("Established" if up else "Active"),
                          "flap-count": _data("0"), "elapsed-time": _data("1:02")})
    down = sum(1 for p in peers if p["peer-state"][0]["data"] != "Established")
    return {"bgp-information": [{"group-count": _data(str(len(groups))),
                                 "peer-count": _data(str(len(peers))), "down-peer-count": _data(str(down)),
                                 "bgp-peer": peers}]}


def lldp_neighbors(rows: list[list[str]]) -> dict[str, Any]:
    return {"lldp-neighbors-information": [{"attributes": {"junos:style": "brief"}, "lldp-neighbor-information": [
        {"lldp-local-port-id": _data(local), "lldp-local-parent-interface-name": _data("-"),
         "lldp-remote-chassis-id-subtype": _data("Mac address"), "lldp-remote-chassis-id": _data("0c:42:a1:00:00:01"),
         "lldp-remote-port-id-subtype": _data("Interface name"), "lldp-remote-port-id": _data(port),
         "lldp-remote-system-name": _data(name)} for local, name, port in rows]}]}


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _hello(session: int) -> bytes:
    caps = "".join(f"<capability>{c}</capability>" for c in CAPABILITIES)
    return (f'<hello xmlns="{NC}"><capabilities>{caps}</capabilities><session-id>{session}</session-id></hello>'
            ).encode() + EOM


class _Auth(paramiko.ServerInterface):
    def __init__(self, user: str, password: str) -> None:
        self.user, self.password = user, password
        self.netconf = threading.Event()

    def get_allowed_auths(self, username: str) -> str:
        return "password"

    def check_auth_password(self, username: str, password: str) -> int:
        ok = (username, password) == (self.user, self.password)
        return paramiko.AUTH_SUCCESSFUL if ok else paramiko.AUTH_FAILED

    def check_channel_request(self, kind: str, chanid: int) -> int:
        return paramiko.OPEN_SUCCEEDED if kind == "session" else paramiko.OPEN_FAILED_ADMINISTRATIVELY_PROHIBITED

    def check_channel_subsystem_request(self, channel: paramiko.Channel, name: str) -> bool:
        if name != "netconf":
            return False
        self.netconf.set()
        return True


class StandIn:
    """One switch: a listening socket on 127.0.0.1 (a free port), a thread per SSH connection."""

    _sessions = iter(range(1000, 10**6))

    def __init__(self, switch: Switch, key: paramiko.PKey, user: str, password: str) -> None:
        self.switch, self.key, self.user, self.password = switch, key, user, password
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)  # the accept loop looks at `stopping` this often
        self.port = self.sock.getsockname()[1]
        self.stopping = threading.Event()
        self.threads: list[threading.Thread] = []
        self.transports: list[paramiko.Transport] = []

    def start(self) -> StandIn:
        t = threading.Thread(target=self._accept, name=f"junos-{self.switch.host}", daemon=True)
        t.start()
        self.threads.append(t)
        return self

    def stop(self) -> None:
        self.stopping.set()
        for tr in self.transports:
            tr.close()
        for t in self.threads:
            t.join(timeout=5)
        self.sock.close()

    def _accept(self) -> None:
        while not self.stopping.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            conn.settimeout(None)
            t = threading.Thread(target=self._serve, args=(conn,), daemon=True)
            t.start()
            self.threads.append(t)

    def _serve(self, conn: socket.socket) -> None:
        transport = paramiko.Transport(conn)
        self.transports.append(transport)
        transport.add_server_key(self.key)
        auth = _Auth(self.user, self.password)
        try:
            transport.start_server(server=auth)
            chan = transport.accept(timeout=20)
            if chan is None or not auth.netconf.wait(timeout=20):
                return
            self._netconf(chan, next(self._sessions))
        except (paramiko.SSHException, EOFError, OSError):
            return
        finally:
            transport.close()

    def _netconf(self, chan: paramiko.Channel, session: int) -> None:
        chan.sendall(_hello(session))
        buf = b""
        try:
            while True:
                while EOM not in buf:
                    data = chan.recv(65536)
                    if not data:
                        return
                    buf += data
                msg, buf = buf.split(EOM, 1)
                root = ET.fromstring(msg.decode())
                if _local(root.tag) == "hello":
                    continue
                mid = root.attrib.get("message-id", "")
                op = next(iter(root))
                try:
                    body = self.switch.handle(session, op)
                except RpcError as exc:
                    body = ("<rpc-error><error-type>protocol</error-type><error-tag>operation-failed</error-tag>"
                            f"<error-severity>error</error-severity><error-message>{_esc(str(exc))}"
                            "</error-message></rpc-error>")
                chan.sendall((f'<rpc-reply xmlns="{NC}" xmlns:junos="http://xml.juniper.net/junos/23.4R2/junos" '
                              f'message-id="{mid}">\n{body}\n</rpc-reply>').encode() + EOM)
                if _local(op.tag) == "close-session":
                    return
        finally:
            self.switch.session_ended(session)
            chan.close()


def switches(directory: Path, configs: dict[str, str]) -> dict[str, Switch]:
    """A switch per host whose running configuration (rollback 0, the only commit) is the given text."""
    directory.mkdir(parents=True, exist_ok=True)
    log = directory / "rpc.jsonl"
    log.write_text("")
    return {h: Switch(h, [Commit(text, "initial")], log, directory / "ops.json") for h, text in configs.items()}


def calls(directory: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (directory / "rpc.jsonl").read_text().splitlines() if x]
