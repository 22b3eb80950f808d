"""The stand-in NX-OS switches' SSH side (paramiko): password login, an interactive CLI on the shell channel, and an
SCP sink on exec channels (`scp -t FILE`, how ansible.netcommon's network_cli copy_file sends nxos_file_copy's file
with the `scp` package over a second SSH connection).

One listening thread per switch on its own loopback address (127.0.0.0/8 is all local on Linux, so every switch
keeps its rendered management address) and a free port; one thread per SSH connection and per channel. No root.
"""

from __future__ import annotations

import contextlib
import logging
import re
import socket
import threading
from pathlib import Path

import paramiko

from tests.nxos_standin.cli import INVALID, Session, Switch, _bootflash_name

# Ansible's paramiko clients drop their connections without a goodbye; paramiko logs each as an ERROR
logging.getLogger("paramiko.transport").setLevel(logging.CRITICAL)


class _Server(paramiko.ServerInterface):
    def __init__(self, standin: Standin) -> None:
        self.standin = standin

    def get_allowed_auths(self, username: str) -> str:
        return "password"

    def check_auth_password(self, username: str, password: str) -> int:
        ok = (username, password) == (self.standin.user, self.standin.password)
        return paramiko.AUTH_SUCCESSFUL if ok else paramiko.AUTH_FAILED

    def check_channel_request(self, kind: str, chanid: int) -> int:
        return paramiko.OPEN_SUCCEEDED if kind == "session" else paramiko.OPEN_FAILED_ADMINISTRATIVELY_PROHIBITED

    def check_channel_pty_request(self, *args: object) -> bool:
        return True

    def check_channel_shell_request(self, channel: paramiko.Channel) -> bool:
        threading.Thread(target=self.standin.shell, args=(channel,), daemon=True).start()
        return True

    def check_channel_exec_request(self, channel: paramiko.Channel, command: bytes) -> bool:
        threading.Thread(target=self.standin.exec, args=(channel, command.decode()), daemon=True).start()
        return True


class Standin:
    """One stand-in switch listening on address:port (port 0: a free one, see .port)."""

    def __init__(self, switch: Switch, address: str, key: paramiko.PKey, user: str, password: str) -> None:
        self.switch, self.key, self.user, self.password = switch, key, user, password
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((address, 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.transports: list[paramiko.Transport] = []
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            transport = paramiko.Transport(conn)
            transport.add_server_key(self.key)
            self.transports.append(transport)
            try:
                transport.start_server(server=_Server(self))
            except (paramiko.SSHException, EOFError):
                continue

    def stop(self) -> None:
        self.sock.close()
        for t in self.transports:
            t.close()
        with self.switch.lock:
            self.switch.cancel_timer()

    def shell(self, chan: paramiko.Channel) -> None:
        """The CLI: echo each line, then its output and the prompt (as a terminal shows them)."""
        session = Session(self.switch)
        chan.sendall(f"\r\n{session.prompt()}".encode())
        buf = b""
        try:
            while True:
                data = chan.recv(4096)
                if not data:
                    return
                buf += data
                while (m := re.search(rb"\r\n?|\n", buf)) is not None:
                    line, buf = buf[:m.start()].decode(errors="replace"), buf[m.end():]
                    out = session.run(line)
                    if out is None:
                        return
                    body = out.replace("\r\n", "\n").replace("\n", "\r\n")
                    tail = "\r\n" if body else ""
                    chan.sendall(f"{line}\r\n{body}{tail}{session.prompt()}".encode())
        except (OSError, EOFError):
            return
        finally:
            _close(chan)

    def exec(self, chan: paramiko.Channel, command: str) -> None:
        try:
            m = re.fullmatch(r"scp( -[a-z])* -t (?:'([^']*)'|(\S+))", command)
            if m is None:
                self.switch.log({"exec": command})
                chan.sendall_stderr(f"{INVALID}\n".encode())
                chan.send_exit_status(1)
                return
            if not self.switch.scp_server():  # NX-OS's SCP server runs only with `feature scp-server`
                self.switch.log({"exec": command, "refused": "no feature scp-server"})
                chan.sendall_stderr(b"scp: the SCP server is not enabled (feature scp-server)\n")
                chan.send_exit_status(1)
                return
            self._scp_sink(chan, m.group(2) if m.group(2) is not None else m.group(3))
            chan.send_exit_status(0)
        except (OSError, EOFError):
            return
        finally:
            _close(chan)

    def _scp_sink(self, chan: paramiko.Channel, target: str) -> None:
        """The receiving end of `scp -t`: acknowledge, read `C<mode> <size> <name>`, the bytes and their NUL, store
        the file in bootflash (under the target name, or the sent name when the target is the directory)."""
        f = chan.makefile("rb")
        chan.sendall(b"\0")
        while True:
            header = f.readline()
            if not header:
                return
            if header[:1] == b"T":
                chan.sendall(b"\0")
                continue
            if header[:1] != b"C":
                chan.sendall(b"\x01scp: only single files are supported\n")
                return
            _mode, size, name = header[1:].decode().rstrip("\n").split(" ", 2)
            chan.sendall(b"\0")
            data = f.read(int(size))
            f.read(1)  # the NUL after the data
            where = _bootflash_name(target)
            where = name if where in ("", ".") else where
            with self.switch.lock:
                self.switch.bootflash[where] = data
                self.switch.log({"scp": where, "bytes": len(data)})
            chan.sendall(b"\0")


def _close(chan: paramiko.Channel) -> None:
    with contextlib.suppress(OSError, EOFError):  # the client closed the connection first
        chan.close()


def host_key() -> paramiko.PKey:
    return paramiko.RSAKey.generate(2048)


def start(name: str, address: str, running: str, state: Path, log: Path, log_lock: threading.Lock,
          key: paramiko.PKey, user: str, password: str) -> Standin:
    return Standin(Switch(name, running, state, log, log_lock), address, key, user, password)


__all__ = ["Standin", "Switch", "host_key", "start"]
