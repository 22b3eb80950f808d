"""generated/docs/: the pictures (the fabric at a glance, a rail diagram per segment) and fabric.md.

Each SVG is parsed as XML and rendered to PNG by resvg (resvg-py, a wheel of the test extra: a missing renderer is
an import error, never a skip), the PNG checked for its size and its colours. The counts in the pictures are derived
by hand from inventory/ (pods.yml, hardware.yml, devices.yml) in the comments.
"""

from __future__ import annotations

import importlib.util
import io
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import resvg_py
from PIL import Image

from railfabric.outputs.docs import docs_files
from railfabric.outputs.docs.tables import cell
from railfabric.outputs.pictures_glance import glance_svg
from railfabric.outputs.pictures_rails import port_ranges
from railfabric.outputs.pictures_svg import RAIL_COLOURS
from railfabric.pipeline import Result, run
from tests.helpers import EXAMPLE, ROOT, base_inventory, mlag_inventory, run_data

SVG = "{http://www.w3.org/2000/svg}"


def _docs(res: Result) -> dict[str, str]:
    assert res.inventory is not None and res.topology is not None and res.report is not None
    summary = res.summary()
    assert summary is not None
    return docs_files(res.inventory, res.topology, res.report, summary)


@pytest.fixture(scope="module")
def example_docs() -> dict[str, str]:
    return _docs(run(EXAMPLE))


def _png(svg: str) -> Image.Image:
    """The SVG rendered by resvg, checked: well-formed, an <svg> root whose viewBox has the size of the picture."""
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    x, y, w, h = (int(v) for v in root.attrib["viewBox"].split())
    assert (x, y) == (-16, -16)  # the drawing starts at 0, 0 inside a 16 px margin
    assert (w, h) == (int(root.attrib["width"]), int(root.attrib["height"]))
    image = Image.open(io.BytesIO(bytes(resvg_py.svg_to_bytes(svg_string=svg))))
    assert image.size == (w, h)
    return image.convert("RGB")


def _colours(image: Image.Image) -> set[str]:
    found = image.getcolors(1 << 24)
    assert found is not None
    return {"#{:02X}{:02X}{:02X}".format(*rgb) for _n, rgb in found}  # type: ignore[misc]


def _texts(svg: str) -> list[str]:
    return [t.text or "" for t in ET.fromstring(svg).iter(f"{SVG}text")]


def test_example_has_one_picture_per_segment_and_the_glance(example_docs: dict[str, str]) -> None:
    # pods.yml: pod 1 segments 1 and 2, pod 2 segment 1, pod 3 segment 1
    assert sorted(example_docs) == ["docs/fabric-at-a-glance.svg", "docs/fabric.md",
                                    "docs/rails/pod-1-segment-1.svg", "docs/rails/pod-1-segment-2.svg",
                                    "docs/rails/pod-2-segment-1.svg", "docs/rails/pod-3-segment-1.svg"]


def test_every_example_picture_renders_and_is_not_blank(example_docs: dict[str, str]) -> None:
    for path, svg in example_docs.items():
        if not path.endswith(".svg"):
            continue
        image = _png(svg)
        assert image.size[0] > 600 and image.size[1] > 300, path
        colours = _colours(image)
        assert "#FFFFFF" in colours and len(colours) > 50, path  # white page, text and boxes antialiased on it
        if "/rails/" in path:  # 8 rails (pods.yml: rails: 8 everywhere): every rail's colour is drawn
            assert set(RAIL_COLOURS[:8]) <= colours, path


def test_glance_counts_match_the_inventory(example_docs: dict[str, str]) -> None:
    texts = _texts(example_docs["docs/fabric-at-a-glance.svg"])
    # hosts: pod 1 16 + (8 + 8), pod 2 16, pod 3 8 = 56; hgx-h100 has 8 GPUs: 448. Spines: pods 1 and 2, 4 each;
    # rail switches: single-rail 8 rails → 8, dual-rail → 4, multi-rail 4 per switch → 2, pod 3 single-rail → 8
    assert texts[0] == ("Fabric atlas: 448 GPUs, 56 hosts; 4 super-spines, 8 spines, 22 rail switches in 3 pods")
    # spine → super-spine links per pod: 4 spines × links_per_super_spine × 4 super-spines: pod 1 8 → 128, pod 2 4 → 64
    # rail switch → spine links per segment: pod 1 seg 1: 8 switches × 4 spines × 2; seg 2: 4 × 4 × 4 (links_per_spine);
    # pod 2: 2 × 4 × 8 in port-channels of 2 members. Pod 3 has no spines: no such edge
    assert texts.count("128 × 800G") == 1  # pod 1's spines
    assert texts.count("64 × 800G") == 4  # pod 2's spines, pod 1's segments 1 and 2, pod 2's segment
    assert texts.count("port-channels of 2") == 1  # pod 2's segment: the label's second line
    i = texts.index("port-channels of 2")
    assert texts[i - 1:i + 2] == ["64 × 800G", "port-channels of 2", "rail tier 1.00:1"]
    assert texts.count("rail tier 1.00:1") == 3 and texts.count("spine tier 1.00:1") == 2
    # host links: 16 hosts × 8 NICs = 128 in three segments, pod 3 8 × 8 = 64
    assert texts.count("128 × 400G") == 3 and texts.count("64 × 400G") == 1
    assert "rail-only: no spines" in texts and "pod 3" in texts
    assert "4 rail switches × 7060x6-dual" in texts and "2 rail switches × sn5600" in texts
    assert "16 × hgx-h100 (2 groups)" in texts  # pod 1 segment 2: host groups of 8 (first 1) and 8 (first 9)


def _table(svg: str) -> tuple[dict[str, dict[str, str]], dict[str, str]]:
    """The rail grid read back from the SVG by position: row label → column heading ("NIC r", "NIC r port a") →
    cell text, and the fold cells' tooltips by (row label + column heading). Rows are the texts at x=0 that name a
    host or a fold; columns the coloured headings; a cell the text centred in a column on a row's baseline."""
    root = ET.fromstring(svg)
    texts = [(t.attrib, t.text or "") for t in root.iter(f"{SVG}text")]
    rows = {a["y"]: t for a, t in texts if a["x"] == "0" and re.fullmatch(r"p\d+-s\d+-gpu\d+|hosts \S+ \(×\d+\)", t)}
    columns = {a["x"]: t for a, t in texts if re.fullmatch(r"NIC \d+( port [ab])?", t)}
    assert len(columns) == len(set(columns.values()))  # one heading per column
    table: dict[str, dict[str, str]] = {label: {} for label in rows.values()}
    for a, t in texts:
        if a["y"] in rows and a["x"] in columns and a.get("text-anchor") == "middle":
            table[rows[a["y"]]][columns[a["x"]]] = t
    tips = {}
    rects = [r for r in root.iter(f"{SVG}rect") if r.find(f"{SVG}title") is not None]
    for r in rects:
        middle = str(int(r.attrib["x"]) + int(r.attrib["width"]) // 2)
        baseline = str(int(r.attrib["y"]) + 14)
        tips[rows[baseline] + " " + columns[middle]] = r.find(f"{SVG}title").text or ""  # type: ignore[union-attr]
    return table, tips


def _cables(table: dict[str, dict[str, str]], tips: dict[str, str]) -> int:
    """The cables the grid shows: one per port a host's cell lists, the fold's count from its cells' tooltips."""
    count = 0
    for row, cells in table.items():
        for column, text in cells.items():
            if text in ("–",) or text.endswith(" off"):
                continue
            if row.startswith("hosts "):
                count += int(re.search(r": (\d+) cables", tips[f"{row} {column}"]).group(1))  # type: ignore[union-attr]
            else:
                count += len(text.removesuffix(" *").split(", "))
    return count


def test_rail_grid_shows_every_cable_of_the_example(example_docs: dict[str, str]) -> None:
    seg11 = example_docs["docs/rails/pod-1-segment-1.svg"]
    table, tips = _table(seg11)
    # pods.yml pod 1 segment 1: 16 hosts (not more than MAX_HOSTS: every host a row), 8 rails single-rail: a column
    # per NIC and switch; 16 × 8 = 128 cables × 400G
    assert list(table) == [f"p1-s1-gpu{n:03d}" for n in range(1, 17)]
    assert all(list(cells) == [f"NIC {r}" for r in range(8)] for cells in table.values())
    assert _cables(table, tips) == 128 and tips == {}
    assert "<line " not in seg11 and "<path " not in seg11 and "<polyline " not in seg11  # a grid: no connectors
    # hardware.yml sn5600: no port blocks, 2x400G breakout: host h on port ⌈h/2⌉, lane 2 - h % 2 of every rail's
    # switch; devices.yml: p1-s1-rail3 port 8 disabled, hosts 15 and 16 re-cabled (`cabling:`) to port 9 lanes 1, 2
    assert table["p1-s1-gpu001"]["NIC 0"] == "1/1" and table["p1-s1-gpu002"]["NIC 7"] == "1/2"
    assert table["p1-s1-gpu009"]["NIC 5"] == "5/1" and table["p1-s1-gpu016"]["NIC 2"] == "8/2"
    assert table["p1-s1-gpu015"]["NIC 3"] == "9/1 *" and table["p1-s1-gpu016"]["NIC 3"] == "9/2 *"
    assert table["p1-s1-gpu014"]["NIC 3"] == "7/2"
    texts = _texts(seg11)
    assert "r3: 1–7, 9 /1–2" not in texts and "1–7, 9 /1–2" in texts and texts.count("1–8 /1–2") == 7
    assert [t for t in texts if re.fullmatch(r"p1-s1-rail\d", t)] == [f"p1-s1-rail{r}" for r in range(8)]
    assert any(t.startswith("*: a cable placed by an explicit `cabling:`") for t in texts)
    assert any(t.startswith("128 cables × 400G") for t in texts)


def test_rail_grid_dual_and_multi_rail(example_docs: dict[str, str]) -> None:
    table, tips = _table(example_docs["docs/rails/pod-1-segment-2.svg"])
    # pods.yml pod 1 segment 2: dual-rail, rail_groups [[0, 4], [1, 5], [2, 6], [3, 7]]: each switch heads its two
    # rails' columns, in switch order. hardware.yml 7060x6-dual: slot 0 (rails 0-3) on ports 1, 4, ..., 22, slot 1
    # (rails 4-7) on 2, 5, ..., 23, 2x400G: host h on the ⌈h/2⌉-th port of the block, lane 2 - h % 2
    assert list(table["p1-s2-gpu001"]) == ["NIC 0", "NIC 4", "NIC 1", "NIC 5", "NIC 2", "NIC 6", "NIC 3", "NIC 7"]
    assert table["p1-s2-gpu001"]["NIC 0"] == "1/1" and table["p1-s2-gpu001"]["NIC 4"] == "2/1"
    assert table["p1-s2-gpu003"]["NIC 1"] == "4/1" and table["p1-s2-gpu016"]["NIC 7"] == "23/2"
    assert table["p1-s2-gpu009"]["NIC 6"] == "14/1"  # 9th host: 5th port of slot 1 = 14, lane 1
    assert _cables(table, tips) == 16 * 8
    texts = _texts(example_docs["docs/rails/pod-1-segment-2.svg"])
    assert texts.count("1, 4, … 22 /1–2") == 4 and texts.count("2, 5, … 23 /1–2") == 4
    assert "rails 0, 4" in texts and "p1-s2-rail3-7" in texts
    table, tips = _table(example_docs["docs/rails/pod-2-segment-1.svg"])
    # pod 2 segment 1: multi-rail, 4 rails a switch, sn5600 without blocks: host h's rail slot i at position
    # (h-1)·4 + i, 2 lanes a port: port position // 2 + 1, lane position % 2 + 1
    assert [table["p2-s1-gpu001"][f"NIC {r}"] for r in range(4)] == ["1/1", "1/2", "2/1", "2/2"]
    assert table["p2-s1-gpu002"]["NIC 4"] == "3/1" and table["p2-s1-gpu016"]["NIC 7"] == "32/2"  # 60+3=63: 32/2
    assert _cables(table, tips) == 16 * 8
    texts = _texts(example_docs["docs/rails/pod-2-segment-1.svg"])
    assert {"1, 3, … 31 /1", "1, 3, … 31 /2", "2, 4, … 32 /1", "2, 4, … 32 /2"} <= set(texts)
    assert "rails 0, 1, 2, 3" in texts and "rails 4, 5, 6, 7" in texts
    table, tips = _table(example_docs["docs/rails/pod-3-segment-1.svg"])
    # pod 3: rail-only, 8 hosts × 8 NICs, 2 a port: ports 1-4
    assert list(table) == [f"p3-s1-gpu{n:03d}" for n in range(1, 9)] and _cables(table, tips) == 64
    assert table["p3-s1-gpu008"]["NIC 7"] == "4/2"
    assert any(t.startswith("Rail-only pod") for t in _texts(example_docs["docs/rails/pod-3-segment-1.svg"]))


def test_rail_grid_folds_the_middle_of_a_large_segment(tmp_path: Path) -> None:
    data = base_inventory()
    data["pods"][0]["segments"][0]["host_groups"] = [{"model": "h2", "count": 40}]
    svg = _docs(run_data(tmp_path, data))["docs/rails/pod-1-segment-1.svg"]
    table, tips = _table(svg)
    # 40 hosts > MAX_HOSTS (16): hosts 1-8, a row for hosts 9-38 (30 hosts), hosts 39 and 40
    assert list(table) == [f"p1-s1-gpu{n:03d}" for n in range(1, 9)] + ["hosts 9–38 (×30)", "p1-s1-gpu039",
                                                                           "p1-s1-gpu040"]
    # helpers._BASE: h2 has 2 NICs of 400G, sw64 2x400G: host h on port ⌈h/2⌉; hosts 9-38 on ports 5-19 lanes 1-2
    assert table["hosts 9–38 (×30)"] == {"NIC 0": "5–19 /1–2", "NIC 1": "5–19 /1–2"}
    assert table["p1-s1-gpu040"]["NIC 1"] == "20/2"
    assert tips["hosts 9–38 (×30) NIC 0"] == "hosts 9–38 (×30): NIC 0 → p1-s1-rail0 ports 5–19 /1–2: 30 cables"
    assert _cables(table, tips) == 40 * 2  # every cable: 10 drawn hosts × 2 + 30 folded × 2
    assert any("dashed row" in t for t in _texts(svg))


def test_rail_grid_marks_cables_taken_off(tmp_path: Path) -> None:
    data = base_inventory()
    data["devices"] = {"p1-s1-rail0": {"disabled_ports": [1]}}
    table, tips = _table(_docs(run_data(tmp_path, data))["docs/rails/pod-1-segment-1.svg"])
    # port 1 of rail 0's switch carries hosts 1 and 2 (lanes 1, 2): both lose NIC 0, nothing else moves
    assert [cells["NIC 0"] for cells in table.values()] == ["1/1 off", "1/2 off", "2/1", "2/2"]
    assert [cells["NIC 1"] for cells in table.values()] == ["1/1", "1/2", "2/1", "2/2"]
    assert _cables(table, tips) == 4 * 2 - 2


def test_rail_grid_of_shared_nics(tmp_path: Path) -> None:
    data = base_inventory()
    data["host_models"]["h8"] = {"gpus": 8, "nics": 2, "nic_speed": "400G", "gpu_to_nic": [0, 0, 0, 0, 1, 1, 1, 1]}
    data["pods"][0]["segments"][0]["host_groups"] = [{"model": "h8", "count": 2}]
    svg = _docs(run_data(tmp_path, data))["docs/rails/pod-1-segment-1.svg"]
    table, _tips = _table(svg)
    # 2 NICs, each shared by 4 GPUs: a column per NIC (the cables), 2 hosts × 2 NICs
    assert table == {"p1-s1-gpu001": {"NIC 0": "1/1", "NIC 1": "1/1"},
                     "p1-s1-gpu002": {"NIC 0": "1/2", "NIC 1": "1/2"}}
    assert any(t.startswith("8 GPUs share 2 NICs") for t in _texts(svg))


def test_mlag_segment_shows_both_ports_and_the_peer_links(tmp_path: Path) -> None:
    docs = _docs(run_data(tmp_path, mlag_inventory(rails=2, hosts=4)))
    svg = docs["docs/rails/pod-1-segment-1.svg"]
    texts = _texts(svg)
    # 2 rails, a pair each: rail0a/b, rail1a/b; peer link: 2 ports (default) of the 800G model, one bar per pair
    assert texts.count("peer link 2 × 800G") == 2 and svg.count("<polyline ") == 2
    assert [t for t in texts if t.startswith("p1-s1-rail")] == ["p1-s1-rail0a", "p1-s1-rail0b", "p1-s1-rail1a",
                                                                "p1-s1-rail1b"]
    assert "rail 0, side a" in texts and "rail 1, side b" in texts
    table, tips = _table(svg)
    # each host: NIC 0 and 1, ports a (side a's switch) and b: 4 cells; 4 hosts on port ⌈h/2⌉ lane 2 - h % 2 of both
    assert list(table["p1-s1-gpu001"]) == ["NIC 0 port a", "NIC 0 port b", "NIC 1 port a", "NIC 1 port b"]
    assert table["p1-s1-gpu004"] == dict.fromkeys(["NIC 0 port a", "NIC 0 port b", "NIC 1 port a", "NIC 1 port b"],
                                                  "2/2")
    assert _cables(table, tips) == 16
    assert any("LACP bond" in t for t in texts)
    assert set(RAIL_COLOURS[:2]) <= _colours(_png(svg))
    glance = _texts(docs["docs/fabric-at-a-glance.svg"])
    assert "dual-homed: mlag" in glance and "2 NICs × 2 ports" in " ".join(glance)


def test_two_tier_fabric_has_no_super_spine_box(tmp_path: Path) -> None:
    docs = _docs(run_data(tmp_path, base_inventory()))
    texts = _texts(docs["docs/fabric-at-a-glance.svg"])
    # helpers._BASE: 1 pod, 2 spines, 1 segment of 4 hosts × 2 GPUs, 2 rails single-rail → 2 rail switches
    assert texts[0] == "Fabric mini: 8 GPUs, 4 hosts; 2 spines, 2 rail switches in 1 pod"
    assert "super-spines" not in texts
    _png(docs["docs/fabric-at-a-glance.svg"])


def test_fabric_md_embeds_the_pictures_and_tables(example_docs: dict[str, str]) -> None:
    md = example_docs["docs/fabric.md"]
    links = re.findall(r"\]\(([^)]+\.svg)\)", md)
    assert {f"docs/{p}" for p in links} == {p for p in example_docs if p.endswith(".svg")}  # relative, all there
    assert "![The fabric at a glance](fabric-at-a-glance.svg)" in md
    # pods table: pod 2 has 1 segment of 16 hosts, 2 rail switches, 4 spines, 64 uplinks to super-spines, bundles of 2
    assert "| 2 | 1 | 16 | 128 | 2 | 4 × sn5600 | SONiC | 64 × 800G | 51.2T | 1.00:1 | 2 members |" in md
    assert "| 3 | 1 | 8 | 64 | 8 | none (rail-only) | – | – | – | – | – |" in md
    # segments table: pod 1 segment 2, EOS rail switches, 16 hosts in two groups of 8
    assert ("| 1 | 2 | dual-rail | 8 | 16 | 2 | 16 × hgx-h100 | 128 | 128 × 400G | 4 × 7060x6-dual | EOS | no | "
            "64 × 800G | 1.00:1 | [svg](rails/pod-1-segment-2.svg) |") in md
    # failure table: a spine of pod 1 carries 2 of a rail switch's 8 uplinks: 6 of 8 × 800G left = 75%
    assert "| rail | switch p1-spine1 | p1-s1-rail0 | 75% (4,800 of 6,400 Gbps) | 83.333% |" in md
    assert "## Solver" in md


def test_cells_are_escaped() -> None:
    assert cell("a|b_c*`d`") == "a\\|b\\_c\\*\\`d\\`"


def test_port_ranges() -> None:
    assert port_ranges([(p, 0) for p in (1, 2, 3, 4)]) == "1–4"
    assert port_ranges([(p, 1) for p in (1, 4, 7, 10)]) == "1, 4, … 10 /1"
    assert port_ranges([(1, 1), (1, 2), (2, 1), (5, 1)]) == "1–2, 5 /1–2"
    assert port_ranges([(3, 0), (9, 0)]) == "3, 9"


def test_pictures_are_deterministic(example_docs: dict[str, str]) -> None:
    assert _docs(run(EXAMPLE)) == example_docs


def _bench() -> Any:
    spec = importlib.util.spec_from_file_location("bench_pipeline", ROOT / "bench" / "bench_pipeline.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_glance_of_65k_gpus_stays_small(tmp_path: Path) -> None:
    bench = _bench()
    inv = bench.write_inventory(tmp_path / "inv", bench.Geometry.for_gpus(65536))
    res = run(inv)
    assert res.topology is not None and res.report is not None
    from railfabric.outputs.docs.facts import fabric_facts, host_links_by_segment

    facts = fabric_facts("bench", res.topology, res.report, 16, host_links_by_segment(res.topology))
    svg, boxes = glance_svg(facts)
    # 64 identical pods of 8 identical segments (bench_pipeline.py): super-spines, one pod box, one segment box,
    # one host box
    assert boxes == 4
    texts = _texts(svg)
    assert "pods 1–64 (×64)" in texts and "segments 1–8 (×8 per pod)" in texts
    assert "8,192 hosts, 65,536 GPUs in all" in texts and "4,096 rail switches in all" in texts
    image = _png(svg)
    assert image.size[0] < 1200 and image.size[1] < 900


def test_glance_box_count_is_bounded_for_a_fabric_of_unlike_pods() -> None:
    from railfabric.outputs.docs.facts import FabricFacts, PodFacts, SegmentFacts
    from railfabric.outputs.pictures_glance import MAX_COLUMNS, MAX_SEGMENT_KINDS

    def segment(pod: int, sid: int, hosts: int) -> SegmentFacts:
        return SegmentFacts(pod, sid, "single-rail", 8, 1, "", 8, "sw", "SONiC", hosts, 8 * hosts, f"{hosts} × h",
                            1, 8, 1, 8 * hosts, 400, 64, 800, 3200 * hosts, 51200, 1.0, "x")

    # 20 pods, each unlike the others (pod p has p hosts a segment) and with 10 unlike segments
    pods = tuple(PodFacts(p, tuple(segment(p, s, p * 100 + s) for s in range(1, 11)), 4, "sw", "SONiC", 0, 32, 800,
                          1, 1, 1.0, "x") for p in range(1, 21))
    svg, boxes = glance_svg(FabricFacts("big", 4, "sw", "SONiC", 0, pods))
    # super-spines, then per drawn pod kind: its box, MAX_SEGMENT_KINDS (4) × (rails, hosts) and one "more
    # segments" box, 5 columns: 2 pod kinds fit in MAX_COLUMNS (12); one "more pods" box for the other 18
    assert (MAX_SEGMENT_KINDS, MAX_COLUMNS) == (4, 12)
    assert boxes == 1 + 2 * (1 + 2 * 4 + 1) + 1 == 22
    texts = _texts(svg)
    assert "18 more pods of 18 other kinds" in texts and texts.count("6 more segments") == 2
    assert _png(svg).size[0] < 2600
