"""BFD timers per session tier and BGP session keys (routing.bfd_timers, routing.authentication), on every platform.

The fabric (tests/helpers.py mlag_inventory): 2 spines p1-spine1/2, one segment of 2 rails dual-homed by MLAG, so
rail r has the pair p1-s1-rail<r>a / b; each rail switch has one uplink per spine (2 sessions of tier rail_spine) and
its MLAG peer (1 iBGP session of tier mlag_peer over the peer VLAN); no super-spines (no spine_super_spine session).
ROUTING below sets the fabric-wide timers 200 ms × 4 and mlag_peer's own 500 ms × 3, a TCP MD5 key for rail_spine
(vault bgp_rail_key) and one for mlag_peer (bgp_mlag_key). Derived by hand:
- p1-s1-rail0a's peer groups, in railfabric's order (super-spine groups first, then by name): MLAG-PEER (tier
  mlag_peer: 500 ms × 3, detection 1500 ms, profile RF-MLAG-PEER, key %%vault.bgp_mlag_key%%) and SPINES (tier
  rail_spine: no tier timers, so the fabric's 200 ms × 4, detection 800 ms, RF-RAIL-SPINE, %%vault.bgp_rail_key%%);
- p1-spine1's one group RAIL-SWITCHES is tier rail_spine too: 200 ms × 4 and the rail key only.
"""

from __future__ import annotations

import copy
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from railfabric.core import safe_yaml
from railfabric.core.finding import Severity
from railfabric.emit.build import build_files
from railfabric.lab.expect import Session
from railfabric.lab.spec import build_spec, lab_secret
from railfabric.lab.verify import bfd_timers_seen
from railfabric.pipeline import Result
from railfabric.platforms.nvue_release import RELEASES
from railfabric.verify.bgp_statements import neighbors
from tests.helpers import base_inventory, mlag_inventory, run_data, with_system
from tests.vendor_schemas import vendor_schema_problems

ROUTING: dict[str, Any] = {
    "bfd_timers": {"interval_ms": 200, "multiplier": 4, "tiers": {"mlag_peer": {"interval_ms": 500, "multiplier": 3}}},
    "authentication": {"rail_spine": {"password": {"vault": "bgp_rail_key"}},
                       "mlag_peer": {"password": {"vault": "bgp_mlag_key"}}},
}
RAIL, SPINE = "p1-s1-rail0a", "p1-spine1"


def _data(platform: str, routing: dict[str, Any] | None = None, mlag: bool = True) -> dict[str, Any]:
    data = mlag_inventory() if mlag else base_inventory()
    if platform != "sonic":
        with_system(data)
        data["system"]["syslog"] = []  # no syslog server: nothing platform-specific to refuse (NX-OS has no TCP)
    data["fabric"]["platform"] = platform
    data["routing"] = copy.deepcopy(ROUTING if routing is None else routing)
    return data


def _run(tmp_path: Path, data: dict[str, Any]) -> Result:
    return run_data(tmp_path, data)


def _files(tmp_path: Path, data: dict[str, Any]) -> dict[str, str]:
    res = _run(tmp_path, data)
    errors = [f.code for f in res.findings if f.severity is Severity.ERROR]
    assert not errors, errors
    raw = build_files(res)
    assert vendor_schema_problems(raw) == []
    return {p: b.decode("utf-8") for p, b in raw.items() if p != "manifest.json"}


def _lines(text: str) -> list[str]:
    return text.splitlines()


def _block(text: str, header: str) -> list[str]:
    out: list[str] = []
    for line in _lines(text):
        if out and not line.startswith(" "):
            break
        if out or line == header:
            out.append(line)
    return out


# --------------------------------------------------------------------------- device model


def test_peer_groups_carry_their_tiers_timers_and_key(tmp_path: Path) -> None:
    from railfabric.device import build_devices

    res = _run(tmp_path, _data("sonic"))
    assert res.inventory and res.topology and res.plan
    devices = build_devices(res.inventory, res.topology, res.plan)
    groups = {g.name: g for g in devices[RAIL].bgp.peer_groups}
    assert list(groups) == ["MLAG-PEER", "SPINES"]
    peer, spines = groups["MLAG-PEER"], groups["SPINES"]
    assert (peer.tier, peer.bfd_timers and (peer.bfd_timers.interval_ms, peer.bfd_timers.multiplier,
                                             peer.bfd_timers.detection_ms, peer.bfd_timers.profile)) == (
        "mlag_peer", (500, 3, 1500, "RF-MLAG-PEER"))
    assert (spines.tier, spines.bfd_timers and (spines.bfd_timers.interval_ms, spines.bfd_timers.multiplier,
                                                 spines.bfd_timers.detection_ms)) == ("rail_spine", (200, 4, 800))
    assert peer.key and (peer.key.placeholder, peer.key.algorithm) == ("%%vault.bgp_mlag_key%%", "md5")
    assert spines.key and spines.key.placeholder == "%%vault.bgp_rail_key%%"
    (down,) = devices[SPINE].bgp.peer_groups
    assert (down.name, down.tier, down.bfd_timers and down.bfd_timers.interval_ms) == ("RAIL-SWITCHES", "rail_spine",
                                                                                      200)
    assert [k.vault for k in devices[SPINE].bgp.keys] == ["bgp_rail_key"]


def test_bfd_off_leaves_no_timers(tmp_path: Path) -> None:
    from railfabric.device import build_devices

    routing = {"bfd": False, "authentication": ROUTING["authentication"]}
    res = _run(tmp_path, _data("sonic", routing))
    assert res.inventory and res.topology and res.plan
    devices = build_devices(res.inventory, res.topology, res.plan)
    assert all(g.bfd_timers is None and not g.bfd for g in devices[RAIL].bgp.peer_groups)
    assert devices[RAIL].bgp.bfd_profiles == ()


# --------------------------------------------------------------------------- each platform


def test_frr_profiles_neighbors_and_passwords(tmp_path: Path) -> None:
    files = _files(tmp_path, _data("sonic"))
    frr = files[f"configs/{RAIL}/frr.conf"]
    assert _block(frr, "bfd") == [
        "bfd", " profile RF-MLAG-PEER", "  detect-multiplier 3", "  receive-interval 500", "  transmit-interval 500",
        " exit", " !", " profile RF-RAIL-SPINE", "  detect-multiplier 4", "  receive-interval 200",
        "  transmit-interval 200", " exit", " !"]
    assert _lines(frr)[_lines(frr).index(" !", _lines(frr).index("bfd") + 12) + 1] == "exit"
    for line in (" neighbor MLAG-PEER bfd profile RF-MLAG-PEER", " neighbor MLAG-PEER password %%vault.bgp_mlag_key%%",
                 " neighbor SPINES bfd profile RF-RAIL-SPINE", " neighbor SPINES password %%vault.bgp_rail_key%%"):
        assert _lines(frr).count(line) == 1, line
    assert " neighbor SPINES bfd" not in _lines(frr)  # the profile line alone turns BFD on
    spine = files[f"configs/{SPINE}/frr.conf"]
    assert " neighbor RAIL-SWITCHES password %%vault.bgp_rail_key%%" in _lines(spine)
    assert "bgp_mlag_key" not in spine
    host_vars = safe_yaml.load(files[f"ansible/host_vars/{RAIL}.yml"])
    assert host_vars["vault_variables"] == ["bgp_mlag_key", "bgp_rail_key"]


@pytest.mark.skipif(shutil.which("vtysh") is None, reason="FRR's vtysh is not installed")
def test_frr_parser_takes_the_file_and_refuses_a_bad_range(tmp_path: Path) -> None:
    """FRR 8.4's own parser (`vtysh --dryrun`) reads the rendered frr.conf; the same file with a detect multiplier
    of 1 (below FRR's 2) is refused: the parser really checks the ranges the capability record quotes."""
    frr = _files(tmp_path, _data("sonic"))[f"configs/{RAIL}/frr.conf"]
    good, bad = tmp_path / "good.conf", tmp_path / "bad.conf"
    good.write_text(frr, encoding="utf-8")
    bad.write_text(frr.replace("  detect-multiplier 4\n", "  detect-multiplier 1\n"), encoding="utf-8")
    assert subprocess.run(["vtysh", "--dryrun", "-f", str(good)], capture_output=True, timeout=60).returncode == 0
    assert subprocess.run(["vtysh", "--dryrun", "-f", str(bad)], capture_output=True, timeout=60).returncode != 0


def test_eos_md5_and_timers(tmp_path: Path) -> None:
    cfg = _lines(_files(tmp_path, _data("eos"))[f"configs/{RAIL}/running-config.cfg"])
    for line in ("   neighbor MLAG-PEER bfd", "   neighbor MLAG-PEER bfd interval 500 min-rx 500 multiplier 3",
                 "   neighbor MLAG-PEER password 0 %%vault.bgp_mlag_key%%", "   neighbor SPINES bfd",
                 "   neighbor SPINES bfd interval 200 min-rx 200 multiplier 4",
                 "   neighbor SPINES password 0 %%vault.bgp_rail_key%%"):
        assert cfg.count(line) == 1, line
    assert "management security" not in cfg  # no TCP-AO, no shared-secret profile


def test_eos_tcp_ao_is_a_shared_secret_profile(tmp_path: Path) -> None:
    routing = copy.deepcopy(ROUTING)
    routing["authentication"]["rail_spine"]["algorithm"] = "tcp-ao"
    text = _files(tmp_path, _data("eos", routing))[f"configs/{RAIL}/running-config.cfg"]
    assert _block(text, "management security") == [
        "management security", "   session shared-secret profile RF-RAIL-SPINE",
        "      secret 0 0 %%vault.bgp_rail_key%% receive-lifetime infinite transmit-lifetime infinite", "   !"]
    cfg = _lines(text)
    assert "   neighbor SPINES password shared-secret profile RF-RAIL-SPINE algorithm hmac-sha1-96" in cfg
    assert not any(ln.startswith("   neighbor SPINES password 0") for ln in cfg)
    assert "   neighbor MLAG-PEER password 0 %%vault.bgp_mlag_key%%" in cfg  # the other tier stays MD5


def test_nxos_timers_per_interface_and_template_password(tmp_path: Path) -> None:
    """NX-OS keeps BFD timers on interfaces: each of p1-s1-rail0a's 2 routed uplinks (one per spine) gets rail_spine's
    200/200/4, its vPC peer SVI (the mlag_peer session) 500/500/3; the keys sit in the template peers."""
    cfg = _lines(_files(tmp_path, _data("nxos"))[f"configs/{RAIL}/running-config.cfg"])
    assert cfg.count("  bfd interval 200 min_rx 200 multiplier 4") == 2
    assert cfg.count("  bfd interval 500 min_rx 500 multiplier 3") == 1
    svi = next(i for i, ln in enumerate(cfg) if ln.startswith("interface Vlan") and "vPC peer" in cfg[i + 1])
    assert "  bfd interval 500 min_rx 500 multiplier 3" in cfg[svi:cfg.index("", svi)]
    spines = cfg.index("  template peer SPINES")
    assert cfg[spines + 1:spines + 4] == ["    remote-as 4200001001", "    bfd",
                                          "    password 0 %%vault.bgp_rail_key%%"]
    peer = cfg.index("  template peer MLAG-PEER")
    assert "    password 0 %%vault.bgp_mlag_key%%" in cfg[peer:peer + 5]


@pytest.mark.parametrize("release", RELEASES)
def test_nvue_every_release_passes_nvidias_schema(tmp_path: Path, release: str) -> None:
    """Up to 5.14 the timers sit on the peer group, from 5.15 in one `router bfd profile` per tier; the key is the
    peer group's `password`. _files checks the whole file against NVIDIA's schema of the release."""
    data = _data("nvue")
    data["fabric"]["releases"] = {"nvue": release}
    doc = safe_yaml.load(_files(tmp_path, data)[f"configs/{RAIL}/startup.yaml"])[0]["set"]
    groups = doc["vrf"]["default"]["router"]["bgp"]["peer-group"]
    assert groups["SPINES"]["password"] == "%%vault.bgp_rail_key%%"
    assert groups["MLAG-PEER"]["password"] == "%%vault.bgp_mlag_key%%"
    if tuple(map(int, release.split("."))) >= (5, 15):
        assert groups["SPINES"]["bfd"] == {"profile": "RF-RAIL-SPINE"}
        assert doc["router"]["bfd"] == {"state": "enabled", "profile": {
            "RF-MLAG-PEER": {"detect-multiplier": 3, "min-rx-interval": 500, "min-tx-interval": 500},
            "RF-RAIL-SPINE": {"detect-multiplier": 4, "min-rx-interval": 200, "min-tx-interval": 200}}}
    else:
        assert groups["SPINES"]["bfd"] == {"enable": "on", "detect-multiplier": 4, "min-rx-interval": 200,
                                           "min-tx-interval": 200}
        assert "bfd" not in doc["router"]


@pytest.mark.parametrize("algorithm", ["md5", "tcp-ao"])
def test_junos_group_timers_and_key(tmp_path: Path, algorithm: str) -> None:
    """Junos renders no MLAG: the base fabric (rail switches p1-s1-rail0/1), rail_spine at 250 ms × 3."""
    routing = {"bfd_timers": {"interval_ms": 250},
               "authentication": {"rail_spine": {"password": {"vault": "bgp_rail"}, "algorithm": algorithm}}}
    text = _files(tmp_path, _data("junos", routing, mlag=False))["configs/p1-s1-rail0/junos.conf"]
    cfg = [ln.strip() for ln in _lines(text)]
    at = cfg.index("bfd-liveness-detection {")
    assert cfg[at + 1:at + 3] == ["minimum-interval 250;", "multiplier 3;"]
    if algorithm == "md5":
        assert 'authentication-key "%%vault.bgp_rail%%";' in cfg and "security {" not in cfg
    else:
        assert cfg[at + 4:at + 6] == ["authentication-algorithm ao;", "authentication-key-chain RF-RAIL-SPINE;"]
        chain = cfg.index("key-chain RF-RAIL-SPINE {")
        assert cfg[chain + 1:chain + 9] == [
            "key 0 {", 'secret "%%vault.bgp_rail%%";', 'start-time "2020-1-1.00:00:00 +0000";', "algorithm ao;",
            "ao-attribute {", "send-id 0;", "recv-id 0;", "}"]
        assert not any(ln.startswith("authentication-key ") for ln in cfg)


# --------------------------------------------------------------------------- findings


def _codes(tmp_path: Path, platform: str, routing: dict[str, Any], mlag: bool = False) -> list[tuple[str, str]]:
    res = _run(tmp_path, _data(platform, routing, mlag=mlag))
    return [(f.code, f.severity.value) for f in res.findings if f.code.startswith(("BFD", "AUTH", "PLAT046"))]


def test_nxos_refuses_an_interval_of_a_second(tmp_path: Path) -> None:
    # NX-OS interface timers stop at 999 ms: 1000 is refused for the one tier the base fabric has (rail_spine)
    assert _codes(tmp_path, "nxos", {"bfd_timers": {"interval_ms": 1000}}) == [("BFD001", "error")]
    assert _codes(tmp_path / "ok", "nxos", {"bfd_timers": {"interval_ms": 999}}) == []


def test_eos_refuses_a_multiplier_of_two(tmp_path: Path) -> None:
    res = _run(tmp_path, _data("eos", {"bfd_timers": {"tiers": {"rail_spine": {"multiplier": 2}}}}, mlag=False))
    (f,) = [f for f in res.findings if f.code == "BFD002"]
    assert "tiers.rail_spine.multiplier 2" in f.message and "eos's range 3-50" in f.message
    assert f.location is not None and f.location.line > 0
    # SONiC (FRR: 2-255) takes it
    assert _codes(tmp_path / "sonic", "sonic", {"bfd_timers": {"tiers": {"rail_spine": {"multiplier": 2}}}}) == []


def test_timers_without_bfd_are_refused(tmp_path: Path) -> None:
    assert _codes(tmp_path, "sonic", {"bfd": False, "bfd_timers": {"interval_ms": 100}}) == [("BFD003", "error")]
    assert _codes(tmp_path / "b", "sonic", {"bfd": False}) == []


def test_a_tier_without_sessions_is_a_warning(tmp_path: Path) -> None:
    # the base fabric has no super-spines and no MLAG pair
    routing = {"bfd_timers": {"tiers": {"spine_super_spine": {"interval_ms": 100}}},
               "authentication": {"mlag_peer": {"password": {"vault": "k"}}}}
    assert _codes(tmp_path, "sonic", routing) == [("BFD004", "warning"), ("AUTH001", "warning")]


@pytest.mark.parametrize(("platform", "refused"), [("sonic", True), ("nvue", True), ("nxos", True), ("eos", False),
                                                   ("junos", False)])
def test_tcp_ao_only_where_a_form_exists(tmp_path: Path, platform: str, refused: bool) -> None:
    routing = {"authentication": {"rail_spine": {"password": {"vault": "k"}, "algorithm": "tcp-ao"}}}
    assert _codes(tmp_path, platform, routing) == ([("PLAT046", "error")] if refused else [])


# --------------------------------------------------------------------------- verify, report, lab (no root)


def test_verifier_reads_a_bfd_profile_as_bfd_on() -> None:
    got = neighbors([["neighbor", "G", "peer-group"], ["neighbor", "G", "bfd", "profile", "RF-RAIL-SPINE"],
                     ["neighbor", "10.0.0.1", "peer-group", "G"], ["neighbor", "10.0.0.3", "remote-as", "65000"]])
    assert got["10.0.0.1"].bfd and not got["10.0.0.3"].bfd


def test_failure_report_gives_the_detection_time(tmp_path: Path) -> None:
    # base fabric: rail_spine sessions only; its own 100 ms × 5 = 500 ms
    res = _run(tmp_path, _data("sonic", {"bfd_timers": {"tiers": {"rail_spine": {"interval_ms": 100,
                                                                                 "multiplier": 5}}}}, mlag=False))
    fail = res.report["failures"]
    assert fail["detection"] == {"rail_spine": {"interval_ms": 100, "multiplier": 5, "detection_ms": 500}}
    assert fail["tiers"]["rail"]["detection_ms"] == 500
    off = _run(tmp_path / "off", _data("sonic", {"bfd": False}, mlag=False)).report["failures"]
    assert off["detection"] == {} and "detection_ms" not in off["tiers"]["rail"]


def test_lab_keys_are_the_runs_and_the_auth_fault_rewrites_one_end(tmp_path: Path) -> None:
    routing = {"authentication": {"rail_spine": {"password": {"vault": "bgp_rail_key"}}}}
    res = _run(tmp_path, _data("sonic", routing, mlag=False))
    clean = build_spec(res, run="abc123")
    key = lab_secret("abc123", "bgp_rail_key")
    assert key != lab_secret("other1", "bgp_rail_key")
    for name in ("p1-s1-rail0", "p1-spine1"):
        conf = clean.nodes[name].frr_conf
        assert "%%vault." not in conf and conf.count(f" password {key}\n") == 1
    spec = build_spec(res, faults=["auth"], run="abc123")
    (f,) = spec.faults
    changed = [n for n in spec.nodes if spec.nodes[n].frr_conf != clean.nodes[n].frr_conf]
    assert changed == ["p1-s1-rail0"] and f.where == "p1-s1-rail0:neighbor 10.32.0.0"
    added = set(_lines(spec.nodes["p1-s1-rail0"].frr_conf)) - set(_lines(clean.nodes["p1-s1-rail0"].frr_conf))
    assert added == {f" neighbor 10.32.0.0 password {lab_secret('abc123', 'fault-auth')}"}
    assert f.marks[0] == "p1-s1-rail0 10.32.0.1 <-> p1-spine1 10.32.0.0"


def test_bfd_timer_check_compares_frrs_json_with_the_plan() -> None:
    s = Session("a", "10.0.0.1", "b", "10.0.0.0", 1, 2, True, bfd_interval=200, bfd_multiplier=4)
    ok, _ = bfd_timers_seen({"receive-interval": 200, "transmit-interval": 200, "detect-multiplier": 4}, s, "a",
                            "10.0.0.0")
    assert ok
    ok, why = bfd_timers_seen({"receive-interval": 300, "transmit-interval": 300, "detect-multiplier": 3}, s, "a",
                              "10.0.0.0")
    assert not ok and why == "a 10.0.0.1 <-> b 10.0.0.0: BFD at a toward 10.0.0.0 rx/tx/multiplier 300/300/3, plan " \
                             "200/200/4"
    assert bfd_timers_seen({}, s, "b", "10.0.0.1") == (
        False, "a 10.0.0.1 <-> b 10.0.0.0: BFD at b toward 10.0.0.1 rx/tx/multiplier no BFD peer, plan 200/200/4")


# --------------------------------------------------------------------------- parse-back verifier


@pytest.fixture(scope="module")
def every_platform(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tests/test_all_platforms.py's fabric (a 2-rail segment per platform under a SONiC and an EOS spine) with
    rail_spine at 250 ms × 4 and an MD5 key (vault bgp_rail_key): rendered once, read back per test."""
    from railfabric.cli import main
    from tests.helpers import dump, write_files
    from tests.test_all_platforms import every_platform_inventory

    inv = every_platform_inventory()
    inv["system"]["syslog"] = []
    inv["routing"] = {"bfd_timers": {"interval_ms": 250, "multiplier": 4},
                      "authentication": {"rail_spine": {"password": {"vault": "bgp_rail_key"}}}}
    base = tmp_path_factory.mktemp("every-platform-keys")
    write_files(base / "inv", {"fabric.yml": dump(inv)})
    assert main(["render", str(base / "inv"), "--out", str(base / "out"), "-q"]) == 0
    return base / "out"


def _verify(out: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    import json

    from railfabric.cli import main

    capsys.readouterr()
    main(["verify", str(out), "--no-frr", "--format", "json"])
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("platform", ["eos", "junos", "nvue", "nxos", "sonic"])
def test_verifier_reads_timers_and_keys_and_catches_one_end_changed(every_platform: Path, tmp_path: Path,
                                                                    platform: str,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """Each platform's reader gives its rail switch's uplink sessions (tx 250, rx 250, × 4) and (md5, the
    placeholder), the same as the spines' readers (SONiC and EOS): verify is clean. With that switch's files edited
    to 260 ms and another vault variable, each of its 2 sessions (one per spine) fails twice (timers and key), said
    from both ends: by the rail switch against each spine, and by each spine against the rail switch."""
    from railfabric.platforms import PLATFORMS
    from railfabric.verify.run import reader

    seg = list(PLATFORMS).index(platform) + 1  # one segment per platform, in the registry's order
    name = f"p1-s{seg}-rail0"
    dev = reader(platform)(name, every_platform)
    assert {(n.bfd_timers, n.key) for n in dev.bgp.neighbors.values()} == {((250, 250, 4),
                                                                            ("md5", "%%vault.bgp_rail_key%%"))}
    assert len(dev.bgp.neighbors) == 2
    assert _verify(every_platform, capsys)["failures"] == []
    out = tmp_path / "out"
    shutil.copytree(every_platform, out)
    for f in (out / "configs" / name).iterdir():
        text = f.read_text(encoding="utf-8")
        f.write_text(text.replace(" 250", " 260").replace(": 250", ": 260").replace("bgp_rail_key", "bgp_other_key"),
                     encoding="utf-8")
    failures = _verify(out, capsys)["failures"]
    planned, edited = "tx 250 ms / rx 250 ms × 4", "tx 260 ms / rx 260 ms × 4"
    assert sorted((f["device"], f["expected"].split(" as on ")[0], f["found"]) for f in failures) == sorted(
        [(name, f"BFD timers {planned}", edited)] * 2
        + [(name, "session key md5 bgp_rail_key", "md5 bgp_other_key")] * 2
        + [(spine, f"BFD timers {edited}", planned) for spine in ("p1-spine1", "p1-spine2")]
        + [(spine, "session key md5 bgp_other_key", "md5 bgp_rail_key") for spine in ("p1-spine1", "p1-spine2")])


@pytest.mark.parametrize("platform", ["eos", "junos"])
def test_verifier_reads_tcp_ao_keys(tmp_path: Path, platform: str, capsys: pytest.CaptureFixture[str]) -> None:
    """An all-EOS and an all-Junos base fabric with TCP-AO on rail_spine: the reader finds the key through the
    shared-secret profile (EOS) or the key chain (Junos), and both ends agree."""
    from railfabric.cli import main
    from railfabric.verify.run import reader
    from tests.helpers import dump, write_files

    routing = {"authentication": {"rail_spine": {"password": {"vault": "bgp_rail_key"}, "algorithm": "tcp-ao"}}}
    write_files(tmp_path / "inv", {"fabric.yml": dump(_data(platform, routing, mlag=False))})
    assert main(["render", str(tmp_path / "inv"), "--out", str(tmp_path / "out"), "-q"]) == 0
    dev = reader(platform)("p1-s1-rail0", tmp_path / "out")
    # the profile's / chain's one key with its KeyID, 0 (verify.model.ao_keys)
    assert {n.key for n in dev.bgp.neighbors.values()} == {("tcp-ao", "0=%%vault.bgp_rail_key%%")}
    assert _verify(tmp_path / "out", capsys)["failures"] == []
