"""`fabric ib bind` (railfabric/cli/ib.py, railfabric/infiniband/bindfiles.py): ibnetdiscover output bound to the
planned fabric of an InfiniBand inventory, the GUID files written, refusals with every difference named.

The inventory: examples/infiniband/inventory cut down to 2 DGX H100 and 2 spines with 1 link from each leaf
(tiny() below). From its YAML by hand: 8 rails -> leaves su1-leaf0..7 (one per rail); spines su1-spine1/2; switches
in plan order: spine1, spine2, leaf0..leaf7 (10). HCAs: dgx01 then dgx02, each in rail order with the host model's
rdma_devices: mlx5_0, mlx5_3, mlx5_4, mlx5_5, mlx5_6, mlx5_9, mlx5_10, mlx5_11 (16). Cables: leaf r port h to
host h's HCA r (16), leaf r port 33 to spine1 port r+1, port 34 to spine2 port r+1 (the leaf's 32 host ports come
first: 16): 32. Roots: the two spines. Partitions: tenant-a 0x0a01 = dgx01's 8 HCAs, tenant-b 0x0a02 = dgx02's,
full; the default partition limited.

The discovered fabric (ibnetdiscover() below, in the form infiniband-diags 44.0 prints, as tests/test_ib_binding.py):
switch i (plan order, from 1) node GUID 0xb83fd20300a10000 + i*0x100 (spine1 ...0100, spine2 ...0200); HCA j
(plan order, from 1) node GUID 0x0c42a10300b00000 + j*0x10, its port 1 GUID the node GUID + 1 (dgx01 mlx5_0
...0011, dgx02 mlx5_0 (j=9) ...0091, dgx02 mlx5_11 (j=16) ...0101).
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from railfabric.cli import main
from railfabric.infiniband.lab import miswire
from railfabric.infiniband.model import Cable, IbFabric, Switch
from railfabric.infiniband.netfile import peers
from tests.helpers import EXAMPLE, ROOT

IB_EXAMPLE = ROOT / "examples" / "infiniband" / "inventory"


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new))


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    inv = tmp_path_factory.mktemp("ib") / "inventory"
    shutil.copytree(IB_EXAMPLE, inv)
    _edit(inv / "pods.yml", "count: 4", "count: 2")  # spines
    _edit(inv / "pods.yml", "links_per_rail_switch: 8", "links_per_rail_switch: 1")
    _edit(inv / "pods.yml", "count: 32", "count: 2")  # hosts
    _edit(inv / "fabric.yml", "dgx[01-16]", "dgx01")
    _edit(inv / "fabric.yml", "dgx[17-32]", "dgx02")
    return inv


@pytest.fixture(scope="module")
def fab(tiny: Path) -> IbFabric:
    from railfabric.cli.ib import planned_fabric

    got = planned_fabric(tiny, "test")
    assert got is not None
    return got


def ibnetdiscover(fab: IbFabric, unplug: Cable | None = None) -> str:
    """What ibnetdiscover prints for `fab` cabled as its cables say (GUIDs as in the module docstring)."""
    sw = {s.name: 0xB83FD20300A10000 + (i + 1) * 0x100 for i, s in enumerate(fab.switches)}
    ca = {h.name: 0x0C42A10300B00000 + (j + 1) * 0x10 for j, h in enumerate(fab.hcas)}
    cables = replace(fab, cables=tuple(c for c in fab.cables if c != unplug))
    links = peers(cables)

    def ref(name: str, port: int) -> str:
        return f'"S-{sw[name]:016x}"[{port}]' if name in sw else f'"H-{ca[name]:016x}"[{port}]({ca[name] + 1:x})'

    blocks = ["#\n# Topology file: generated on Sat Nov 28 17:40:00 2026\n#"]
    for node in (*fab.switches, *fab.hcas):
        name = node.name
        if isinstance(node, Switch):
            head = (f"vendid=0x2c9\ndevid=0xd2f0\nsysimgguid=0x{sw[name]:016x}\n"
                    f"switchguid=0x{sw[name]:016x}({sw[name]:x})\n"
                    f"Switch\t{node.ports} \"S-{sw[name]:016x}\"\t\t# \"{name}\" base port 0 lid 1 lmc 0")
            lines = [f"[{p}]\t{ref(far.node, far.port)}\t\t# \"{far.node}\" lid 2 4xNDR"
                     for p, far in sorted(links.get(name, {}).items())]
        else:
            head = (f"vendid=0x2c9\ndevid=0x1021\nsysimgguid=0x{ca[name]:016x}\ncaguid=0x{ca[name]:016x}\n"
                    f"Ca\t1 \"H-{ca[name]:016x}\"\t\t# \"{name}\"")
            lines = [f"[{p}]({ca[name] + 1:x}) \t{ref(far.node, far.port)}\t\t# lid 4 lmc 0 \"{far.node}\" lid 2 4xNDR"
                     for p, far in sorted(links.get(name, {}).items())]
        blocks.append("\n".join([head, *lines]))
    return "\n\n".join(blocks) + "\n"


def _bind(tiny: Path, discovered: Path, out: Path) -> int:
    return main(["ib", "bind", str(tiny), "--discovered", str(discovered), "--out", str(out)])


def _tree(d: Path) -> dict[str, str]:
    return {str(p.relative_to(d)): p.read_text() for p in sorted(d.rglob("*")) if p.is_file()} if d.exists() else {}


def test_bound_as_planned(tiny: Path, fab: IbFabric, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    disc = tmp_path / "su1.topo"
    disc.write_text(ibnetdiscover(fab))
    out = tmp_path / "etc-opensm"
    out.mkdir()
    (out / "opensm.conf").write_text("# the rendered file: not ours to touch\n")
    (out / "partitions.conf").write_text("# the rendered, memberless one: replaced\n")
    assert _bind(tiny, disc, out) == 0
    files = _tree(out)
    assert sorted(files) == ["cn-guids.conf", "opensm.conf", "partitions.conf", "root-guids.conf"]
    assert files["opensm.conf"] == "# the rendered file: not ours to touch\n"
    assert files["root-guids.conf"] == "# roots of su1\n0xb83fd20300a10100 su1-spine1\n0xb83fd20300a10200 su1-spine2\n"
    devices = ["mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11"]
    hcas = [f"dgx0{h} {d}" for h in (1, 2) for d in devices]
    port = {name: 0x0C42A10300B00000 + (j + 1) * 0x10 + 1 for j, name in enumerate(hcas)}
    assert port["dgx01 mlx5_0"] == 0x0C42A10300B00011 and port["dgx02 mlx5_11"] == 0x0C42A10300B00101
    assert files["cn-guids.conf"] == "# compute nodes of su1\n" + "".join(f"0x{port[n]:016x} {n}\n" for n in hcas)
    part = files["partitions.conf"]
    assert "Default=0x7fff, ipoib : ALL_CAS=limited, ALL_SWITCHES=full, SELF=full ;" in part
    assert "tenant-a=0x0a01 :\n\t0x0c42a10300b00011=full, # dgx01 mlx5_0\n" in part
    assert "\t0x0c42a10300b00081=full ; # dgx01 mlx5_11\n" in part
    assert "tenant-b=0x0a02 :\n\t0x0c42a10300b00091=full, # dgx02 mlx5_0\n" in part
    assert part.endswith("\t0x0c42a10300b00101=full ; # dgx02 mlx5_11\n")
    assert capsys.readouterr().out == (f"bound 10 switches, 16 HCAs and 32 cables of su1 as planned; wrote "
                                       f"{out}/cn-guids.conf, {out}/partitions.conf, {out}/root-guids.conf\n")


def test_a_miswired_fabric_is_refused_naming_each_cable(tiny: Path, fab: IbFabric, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    # miswire() crosses the first two leaf-HCA cables on different leaves: su1-leaf0[1] - dgx01 mlx5_0[1] and
    # su1-leaf1[1] - dgx01 mlx5_3[1]. The links discovered but not planned are listed in GUID order of their first
    # end: the HCAs (0x0c42...) before the switches (0xb83f...), mlx5_0 (...0010) before mlx5_3 (...0020).
    disc = tmp_path / "crossed.topo"
    disc.write_text(ibnetdiscover(miswire(fab)[0]))
    out = tmp_path / "out"
    out.mkdir()
    (out / "root-guids.conf").write_text("old\n")
    assert _bind(tiny, disc, out) == 1
    assert _tree(out) == {"root-guids.conf": "old\n"}
    assert capsys.readouterr().out.splitlines() == [
        "fabric ib bind: the discovered fabric (10 switches, 16 HCAs) differs from the plan of su1 (10 switches, "
        "16 HCAs): 4 difference(s), nothing written",
        "  cable su1-leaf0[1] - dgx01 mlx5_0[1] is missing: su1-leaf0[1] goes to dgx01 mlx5_3[1], dgx01 mlx5_0[1] "
        "goes to su1-leaf1[1]",
        "  cable su1-leaf1[1] - dgx01 mlx5_3[1] is missing: su1-leaf1[1] goes to dgx01 mlx5_0[1], dgx01 mlx5_3[1] "
        "goes to su1-leaf0[1]",
        "  cable dgx01 mlx5_0[1] - su1-leaf1[1] is discovered but not planned",
        "  cable dgx01 mlx5_3[1] - su1-leaf0[1] is discovered but not planned",
    ]


def test_a_missing_cable_is_named_and_no_directory_made(tiny: Path, fab: IbFabric, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    # the last cable of the plan (su1-leaf7[34] - su1-spine2[8]) unplugged
    assert str(fab.cables[-1]) == "su1-leaf7[34] - su1-spine2[8]"
    disc = tmp_path / "unplugged.topo"
    disc.write_text(ibnetdiscover(fab, unplug=fab.cables[-1]))
    out = tmp_path / "not-yet"
    assert _bind(tiny, disc, out) == 1
    assert not out.exists()
    assert capsys.readouterr().out.splitlines()[1:] == [
        "  cable su1-leaf7[34] - su1-spine2[8] is missing: su1-leaf7[34] has no link, su1-spine2[8] has no link"]


@pytest.mark.parametrize(("content", "message"), [
    (b"\x89PNG\r\n\x1a\n\x00\x00", " is not text (byte 0 is not UTF-8): not ibnetdiscover output"),
    (b"hello\nworld\n", " holds no node ('Switch', 'Ca' or 'Rt' header line with a GUID and a node description): "
                        "is it the output of `ibnetdiscover` (no options)?"),
    # a link reported from one end only (the far end lists no port 1 back)
    (b'Switch\t8 "S-0000000000000001"\t\t# "a" base port 0 lid 1 lmc 0\n[1]\t"S-0000000000000002"[1]\n\n'
     b'Switch\t8 "S-0000000000000002"\t\t# "b" base port 0 lid 2 lmc 0\n',
     ": not consistent ibnetdiscover output: link 0x1[1] -> 0x2[1] is not reported from the far end"),
], ids=["binary", "no-nodes", "one-sided"])
def test_garbage_is_refused_without_a_traceback(tiny: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                content: bytes, message: str) -> None:
    disc = tmp_path / "input"
    disc.write_bytes(content)
    assert _bind(tiny, disc, tmp_path / "out") == 2
    err = capsys.readouterr().err
    assert err == f"fabric ib bind: {disc}{message}\n"
    assert "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_unreadable_input_and_unwritable_out(tiny: Path, fab: IbFabric, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert _bind(tiny, tmp_path / "absent.topo", tmp_path / "out") == 2
    assert capsys.readouterr().err == f"fabric ib bind: cannot read {tmp_path}/absent.topo: No such file or directory\n"
    disc = tmp_path / "su1.topo"
    disc.write_text(ibnetdiscover(fab))
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    assert _bind(tiny, disc, blocker) == 2
    assert capsys.readouterr().err == (f"fabric ib bind: cannot write into {blocker}: {blocker} exists and is not a "
                                       "directory (nothing written)\n")
    assert blocker.read_text() == "x"


def test_an_ethernet_inventory_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["ib", "bind", str(EXAMPLE), "--discovered", "x", "--out", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err.endswith(f"fabric ib bind: {EXAMPLE} is not an InfiniBand fabric "
                                            "(fabric.kind: infiniband)\n")


def test_help_has_an_example(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["ib", "bind", "--help"])
    assert exit_.value.code == 0
    assert "fabric ib bind examples/infiniband/inventory --discovered su1.topo --out /etc/opensm" in \
        capsys.readouterr().out


def test_an_inventory_that_does_not_validate_is_refused(tiny: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    # an Ethernet-only key on the InfiniBand fabric (fabric.mtu) is an error finding: nothing is bound or written
    broken = tmp_path / "inventory"
    shutil.copytree(tiny, broken)
    _edit(broken / "fabric.yml", "  kind: infiniband\n", "  kind: infiniband\n  mtu: 9216\n")
    assert _bind(broken, tmp_path / "x.topo", tmp_path / "out") == 2
    err = capsys.readouterr().err
    assert err.endswith("fabric ib bind: the inventory does not validate\n")
    assert "fabric.yml:14:3: error IB008: fabric.mtu is Ethernet-only" in err
    assert not (tmp_path / "out").exists()
