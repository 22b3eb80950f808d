"""An InfiniBand fabric's site outputs beside the SM files: cabling.csv naming HCAs, hosts/railmap.csv, docs/fabric.md
and its pictures (railfabric/outputs/ib_railmap.py, ib_docs.py, ib_paths.py, docs/ib_facts.py, docs/ib_markdown.py).

Expected values are derived by hand from the shipped example (examples/infiniband/inventory: 32 DGX H100 × 8 HCAs,
rdma_devices mlx5_0, 3, 4, 5, 6, 9, 10, 11 in rail order, leaf r per rail (QM9700, 64 ports: hosts on ports 1-32,
host dgxNN on port NN), 4 spines with 8 links from every leaf, SMs on su1-spine1 (15) and su1-spine2 (14),
tenant-a = dgx[01-16], tenant-b = dgx[17-32], both SL "compute" = 0, default partition limited) and from
tests/test_ib_inventory.small() (2 hosts × 2 HCAs without rdma_devices: mlx5_0, mlx5_1; leaves leaf0, leaf1 with 8
ports; 2 spines).
"""

from __future__ import annotations

import csv
import io
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import resvg_py
from PIL import Image

from railfabric.infiniband.model import IbFabric
from railfabric.outputs.cabling import HEADER as CABLING_HEADER
from railfabric.outputs.cabling import cabling_files
from railfabric.outputs.ib_docs import ib_docs
from railfabric.outputs.ib_railmap import HEADER, hca_of_links
from railfabric.outputs.infiniband import IbSources, ib_files
from railfabric.outputs.pictures_svg import RAIL_COLOURS
from railfabric.pipeline import Result, run
from railfabric.topology import Topology
from railfabric.topology.infiniband import ib_fabric
from tests.helpers import dump, write_files
from tests.test_ib_inventory import EXAMPLE, small

SVG = "{http://www.w3.org/2000/svg}"


def _planned(res: Result) -> tuple[IbFabric, Topology]:
    assert res.inventory is not None and res.topology is not None
    return ib_fabric(res.inventory, res.topology), res.topology


@pytest.fixture(scope="module")
def example() -> tuple[IbFabric, IbSources]:
    res = run(EXAMPLE)
    fab, topo = _planned(res)
    return fab, IbSources(topo, res.report)


@pytest.fixture(scope="module")
def files(example: tuple[IbFabric, IbSources]) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in ib_files(*example).values():
        out.update(part)
    return out


def _rows(text: str) -> tuple[str, list[str], list[list[str]]]:
    title, body = text.split("\n", 1)
    rows = list(csv.reader(io.StringIO(body)))
    return title, rows[0], rows[1:]


def test_cabling_names_the_hca_at_each_host_end(files: dict[str, str]) -> None:
    title, head, rows = _rows(files["cabling.csv"])
    assert title == "# railfabric cabling plan v1" and tuple(head) == CABLING_HEADER  # Ethernet's columns
    by_id = {r[0]: r for r in rows}
    # 256 host cables + 8 leaves × 32 uplinks = 512 rows
    assert len(rows) == 512
    # dgx01 rail 1: rdma_devices[1] = mlx5_3, port 1, on su1-leaf1 port 1 (host 1)
    assert by_id["dgx01:nic1p1"] == ["dgx01:nic1p1", "host", "1", "dgx01", "1", "mlx5_3", "", "su1-leaf1", "1", "1",
                                     "", "400G", ""]
    # dgx17 rail 5: mlx5_9 on su1-leaf5 port 17
    assert by_id["dgx17:nic5p1"][3:10] == ["dgx17", "1", "mlx5_9", "", "su1-leaf5", "17", "17"]
    # uplinks unchanged: leaf r port 33 + 8·s + k to spine s+1 port 8·r + k + 1; leaf0, s = 1, k = 0 → 41, spine2 1
    assert by_id["su1-leaf0>su1-spine2#1"][3:10] == ["su1-leaf0", "41", "41", "", "su1-spine2", "1", "1"]
    assert not any(r[5].startswith("nic") for r in rows)


def test_cabling_of_hcas_without_rdma_devices(tmp_path: Path) -> None:
    res = run(write_files(tmp_path / "inv", {"fabric.yml": dump(small())}))
    fab, topo = _planned(res)
    _, _, rows = _rows(ib_files(fab, IbSources(topo, None))["cabling"]["cabling.csv"])
    hosts = [r for r in rows if r[1] == "host"]
    # h02's second HCA: index 1 → mlx5_1, rail 1 → leaf1 port 2 (h02 is the second host)
    assert ["h02:nic1p1", "host", "1", "h02", "1", "mlx5_1", "", "leaf1", "2", "2"] in [r[:10] for r in hosts]
    assert sorted(r[5] for r in hosts) == ["mlx5_0", "mlx5_0", "mlx5_1", "mlx5_1"]


def test_cabling_escapes_a_formula_in_a_host_end(example: tuple[IbFabric, IbSources]) -> None:
    fab, src = example
    links = [lk for lk in src.topology.links if lk.id == "dgx01:nic0p1"]
    text = cabling_files(links, {"su1-leaf0": None}, {"su1-leaf0": ((1, 0, "1", None, "", "", ""),)},
                         {"dgx01:nic0p1": ("1", "=cmd()")})["cabling.csv"]
    assert "'=cmd()" in text  # the spreadsheet-formula escape of csv_text
    assert hca_of_links(fab, src.topology)["dgx01:nic0p1"][0].device == "mlx5_0"


def test_hca_of_links_refuses_another_topology(example: tuple[IbFabric, IbSources], tmp_path: Path) -> None:
    fab, _ = example
    other = run(write_files(tmp_path / "inv", {"fabric.yml": dump(small())}))
    assert other.topology is not None
    with pytest.raises(ValueError, match="cables for"):
        hca_of_links(fab, other.topology)


def test_railmap_one_row_per_host_and_rail(files: dict[str, str]) -> None:
    title, head, rows = _rows(files["hosts/railmap.csv"])
    assert title == "# railfabric InfiniBand rail map v1" and tuple(head) == HEADER
    assert len(rows) == 32 * 8
    # dgx01: tenant-a full member, SL 0 (compute); rails in order with the DGX H100 devices, leaf r port 1
    assert rows[:2] == [["dgx01", "0", "mlx5_0", "1", "su1-leaf0", "1", "tenant-a:0x0a01:full", "0"],
                        ["dgx01", "1", "mlx5_3", "1", "su1-leaf1", "1", "tenant-a:0x0a01:full", "0"]]
    # dgx17 is the 17th host: rows 16·8 = 128 onwards; rail 7 → mlx5_11 on su1-leaf7 port 17, tenant-b
    assert rows[128 + 7] == ["dgx17", "7", "mlx5_11", "1", "su1-leaf7", "17", "tenant-b:0x0a02:full", "0"]
    assert rows[-1][:6] == ["dgx32", "7", "mlx5_11", "1", "su1-leaf7", "32"]


def test_railmap_without_qos_or_partitions(tmp_path: Path) -> None:
    res = run(write_files(tmp_path / "inv", {"fabric.yml": dump(small())}))
    fab, topo = _planned(res)
    _, _, rows = _rows(ib_files(fab, IbSources(topo, None))["railmap"]["hosts/railmap.csv"])
    # no partitions, no QoS: empty partitions and SL cells; h01 rail 1 on leaf1 port 1
    assert rows == [["h01", "0", "mlx5_0", "1", "leaf0", "1", "", ""],
                    ["h01", "1", "mlx5_1", "1", "leaf1", "1", "", ""],
                    ["h02", "0", "mlx5_0", "1", "leaf0", "2", "", ""],
                    ["h02", "1", "mlx5_1", "1", "leaf1", "2", "", ""]]


def _section(page: str, title: str) -> str:
    return page.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_docs_page_key_numbers(files: dict[str, str]) -> None:
    page = files["docs/fabric.md"]
    glance = _section(page, "At a glance")
    assert "| leaf | 8 | 8 × QM9700 | 64 |" in glance and "| spine | 4 | 4 × QM9700 | 64 |" in glance
    # 32 hosts × 8 = 256 HCAs; 256 host cables and 8 × 32 = 256 leaf–spine cables, all 400G
    assert "256 HCAs on 32 hosts" in glance
    assert "| host–leaf | 256 | 400G |" in glance and "| leaf–spine | 256 | 400G |" in glance
    assert "mlx5\\_0, mlx5\\_3, mlx5\\_4, mlx5\\_5, mlx5\\_6, mlx5\\_9, mlx5\\_10, mlx5\\_11" in glance
    sms = _section(page, "Subnet managers")
    assert "| su1-spine1 | 15 | master | spine switch |" in sms
    assert "| su1-spine2 | 14 | standby | spine switch |" in sms
    routing = _section(page, "Routing")
    assert "`ftree`" in routing and "LMC: 0" in routing
    assert "roots: su1-spine1, su1-spine2, su1-spine3, su1-spine4" in routing
    parts = _section(page, "Partitions")
    # default: every HCA (256) of 32 hosts, limited; tenants 16 hosts × 8 = 128 HCAs, full, SL 0
    assert "| default | `0x7fff` | 32 | 256 | limited | no | 0 |" in parts
    assert "| tenant-a | `0x0a01` | 16 | 128 | full | no | 0 |" in parts
    assert "| tenant-b | `0x0a02` | 16 | 128 | full | no | 0 |" in parts
    qos = _section(page, "QoS")
    # fabric.yml: the low table only (Quantum-2), VL 0 weight 128, VL 1 64; high limit 0; SL 1 → VL 1
    assert "| VL | 0 | 1 | 0 |" in qos and "| low | VL 0: 128, VL 1: 64 |" in qos and "| high | – |" in qos
    assert "Data VLs: 2; high-priority limit: 0; default SL: 0." in qos
    solver = _section(page, "The solver's figures")
    # leaves: 8 × 32 × 400G = 102,400 Gbps down and up, 1:1; bisection: 16 hosts × 8 × 400G = 51,200 Gbps
    assert "| rail | 8 | 102,400 | 102,400 | 1.00:1 |" in solver
    assert "51,200 Gbps of the 51,200 Gbps of full bisection" in solver
    # LIDs: 256 HCAs + 12 switches = 268 of 0xbfff = 49,151; host–leaf–spine–leaf–host = 3 switches
    assert "LIDs: 268 needed of 49,151 (LMC 0); at most 3 switch hops" in solver
    # a spine lost: each leaf keeps 3 of 4 spines' 8 × 400G: 9,600 of 12,800 Gbps = 75%
    assert "| switch su1-spine1 | su1-leaf0 | 75% (9,600 of 12,800 Gbps) | 75% |" in solver
    deploy = _section(page, "Where each file goes")
    assert "| `infiniband/su1-spine1/opensm.conf` | /etc/opensm/opensm.conf | su1-spine1 |" in deploy
    assert "| `infiniband/partitions.conf` | /etc/opensm/partitions.conf | su1-spine1, su1-spine2 |" in deploy
    assert "| `infiniband/hosts/<host>/nccl.conf` | /etc/nccl.conf |" in deploy


def test_docs_without_a_report_has_no_pictures(example: tuple[IbFabric, IbSources]) -> None:
    fab, src = example
    out = ib_docs(fab, src.topology, None)
    assert list(out) == ["docs/fabric.md"]
    assert ".svg" not in out["docs/fabric.md"] and "solver" not in out["docs/fabric.md"]


def _texts(svg: str) -> list[str]:
    return ["".join(t.itertext()) for t in ET.fromstring(svg).iter(f"{SVG}text")]


def test_pictures_render_with_infiniband_labels(files: dict[str, str]) -> None:
    page = files["docs/fabric.md"]
    pictures = sorted(p for p in files if p.endswith(".svg"))
    assert pictures == ["docs/fabric-at-a-glance.svg", "docs/rails/pod-1-segment-1.svg"]
    assert "![su1 at a glance](fabric-at-a-glance.svg)" in page and "(rails/pod-1-segment-1.svg)" in page
    for path in pictures:
        svg = files[path]
        root = ET.fromstring(svg)
        _x, _y, w, h = (int(v) for v in root.attrib["viewBox"].split())
        image = Image.open(io.BytesIO(bytes(resvg_py.svg_to_bytes(svg_string=svg))))
        assert image.size == (w, h)
        texts = " ".join(_texts(svg))
        assert "SONiC" not in texts and "InfiniBand" in texts, path
        assert not re.search(r"\b\d+\.\d+\.\d+\.\d+\b|\bAS ?\d", texts), path  # no address, no AS number
    glance = " ".join(_texts(files["docs/fabric-at-a-glance.svg"]))
    # 4 spines, 8 rail switches (leaves), 32 hosts, 256 GPUs; 256 host links × 400G
    assert "256 GPUs, 32 hosts; 4 spines, 8 rail switches in 1 pod" in glance and "256 × 400G" in glance
    assert "256 GPUs, 8 HCAs" in glance and "NICs" not in glance  # 8 HCAs per DGX H100
    rails = files["docs/rails/pod-1-segment-1.svg"]
    found = {"#{:02X}{:02X}{:02X}".format(*rgb) for _n, rgb in  # type: ignore[misc]
             Image.open(io.BytesIO(bytes(resvg_py.svg_to_bytes(svg_string=rails)))).convert("RGB").getcolors(1 << 24)}
    assert set(RAIL_COLOURS[:8]) <= found  # one colour per rail, 8 rails
    texts = _texts(rails)
    assert [t for t in texts if t.startswith("su1-leaf")] == [f"su1-leaf{r}" for r in range(8)]
    # each rail's column headed by its HCA's device (hardware.yml rdma_devices, rail order), no "NIC r"
    assert [t for t in texts if t.startswith("mlx5_")] == ["mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6",
                                                            "mlx5_9", "mlx5_10", "mlx5_11"]
    assert "HCA of rail r" in texts and not any(t.startswith("NIC ") for t in texts)


def test_site_outputs_are_deterministic(example: tuple[IbFabric, IbSources], files: dict[str, str]) -> None:
    again: dict[str, str] = {}
    for part in ib_files(*example).values():
        again.update(part)
    assert again == files


def test_docs_of_a_fabric_with_cores_and_an_sm_on_an_hca(tmp_path: Path) -> None:
    """small() twice (pods 1 and 2: 2 leaves, 2 spines, 2 hosts × 2 HCAs each) under 2 cores; the standby SM on
    h02's HCA 1."""
    data = small()
    data["super_spines"] = {"count": 2, "model": "qm", "name": "core{index}", "ports_per_pod": 4}
    pod = data["pods"][0]
    data["pods"].append({**pod, "id": 2, "spines": {**pod["spines"], "name": "p2spine{index}"},
                         "segments": [{**pod["segments"][0], "rail_switch_name": "p2leaf{rails}",
                                       "host_groups": [{"model": "box", "count": 2, "name": "g{host:02d}"}]}]})
    res = run(write_files(tmp_path / "inv", {"fabric.yml": dump(data)}))
    fab, topo = _planned(res)
    out = ib_docs(fab, topo, res.report)
    assert sorted(out) == ["docs/fabric-at-a-glance.svg", "docs/fabric.md", "docs/rails/pod-1-segment-1.svg",
                           "docs/rails/pod-2-segment-1.svg"]
    page = out["docs/fabric.md"]
    # 2 × 2 leaves, 2 × 2 spines, 2 cores, all qm (8 ports)
    assert "| leaf | 4 | 4 × qm | 8 |" in page and "| spine | 4 | 4 × qm | 8 |" in page
    assert "| core | 2 | 2 × qm | 8 |" in page
    # 4 hosts × 2 HCAs = 8 host cables; per pod 2 leaves × 2 spines = 4, × 2 pods = 8; 4 spines × 2 cores = 8
    assert "| host–leaf | 8 | 400G |" in page and "| leaf–spine | 8 | 400G |" in page
    assert "| spine–core | 8 | 400G |" in page
    assert "| h02 mlx5\\_1 | 3 | standby | HCA mlx5\\_1 of host h02 |" in page
    assert "roots: core1, core2" in page  # the top tier
    glance = " ".join(_texts(out["docs/fabric-at-a-glance.svg"]))
    assert "2 super-spines" in glance and "SONiC" not in glance and "InfiniBand" in glance


def test_railmap_lists_every_partition_of_an_hca_in_pkey_order(tmp_path: Path) -> None:
    """h01 in two partitions (store 0x0102 limited, SL storage = 1; compute 0x0a01 full, SL compute = 3), h02 only
    in compute: the cell lists by PKey value (0x0102 < 0x0a01), the SL is the compute partition's (NCCL's)."""
    qos = {"service_levels": {"compute": 3, "storage": 1}, "sl2vl": [0, 1, 0, 1] + [0] * 12,
           "vlarb_high": [[0, 128], [1, 64]], "vlarb_low": [[0, 4], [1, 4]], "high_limit": 255, "max_vls": 2}
    data = small(partitions=[
        {"name": "compute", "pkey": "0x0a01", "hosts": ["h[01-02]"], "service_level": "compute"},
        {"name": "store", "pkey": "0x0102", "hosts": ["h01"], "membership": "limited", "service_level": "storage"}],
        qos=qos)
    res = run(write_files(tmp_path / "inv", {"fabric.yml": dump(data)}))
    fab, topo = _planned(res)
    _, _, rows = _rows(ib_files(fab, IbSources(topo, None))["railmap"]["hosts/railmap.csv"])
    assert rows[0] == ["h01", "0", "mlx5_0", "1", "leaf0", "1", "store:0x0102:limited;compute:0x0a01:full", "3"]
    assert rows[3] == ["h02", "1", "mlx5_1", "1", "leaf1", "2", "compute:0x0a01:full", "3"]
    page = ib_docs(fab, topo, None)["docs/fabric.md"]
    # compute: 2 hosts × 2 HCAs; store: h01's 2 HCAs, limited, SL 1
    assert "| compute | `0x0a01` | 2 | 4 | full | no | 3 |" in page
    assert "| store | `0x0102` | 1 | 2 | limited | no | 1 |" in page
    assert "| VL | 0 | 1 | 0 | 1 | 0 |" in page


def test_rail_diagram_names_an_hca_only_when_every_host_agrees(tmp_path: Path) -> None:
    """small() plus one host of a model whose HCAs are mlx5_0, mlx5_7: rail 0 is mlx5_0 on all three hosts (its
    column says so), rail 1 is mlx5_1 on two and mlx5_7 on one (its column keeps "NIC 1")."""
    data = small()
    data["host_models"]["box2"] = {"gpus": 2, "nics": 2, "nic_speed": "400G", "rdma_devices": ["mlx5_0", "mlx5_7"]}
    groups = data["pods"][0]["segments"][0]["host_groups"]
    groups[0]["first"] = 1
    groups.append({"model": "box2", "count": 1, "name": "k{host:02d}", "first": 3})
    res = run(write_files(tmp_path / "inv", {"fabric.yml": dump(data)}))
    fab, topo = _planned(res)
    texts = _texts(ib_docs(fab, topo, res.report)["docs/rails/pod-1-segment-1.svg"])
    assert "mlx5_0" in texts and "NIC 1" in texts and "mlx5_1" not in texts and "NIC 0" not in texts
    _, _, rows = _rows(ib_files(fab, IbSources(topo, None))["railmap"]["hosts/railmap.csv"])
    # k03 is host number 3: leaf1 port 3, its HCA mlx5_7
    assert rows[-1] == ["k03", "1", "mlx5_7", "1", "leaf1", "3", "", ""]
