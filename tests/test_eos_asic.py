"""EOS per-queue QoS forms by switch family (switch_models.<m>.asic, railfabric/platforms/eos_asic.py, HW006/HW007).

Expected text is derived by hand from the inventories' QoS (inventory/fabric.yml; the small test inventory of
tests/helpers.py has no `qos:` block, so the same defaults): RoCE priority 3 lossless (PFC no-drop, the watchdog
on), CNP priority 6 strict, DWRR 50/50 on queues 0 and 3, ECN 150000/1500000 bytes at 100 % on queue 3. The queue
keyword and the MMU profile come from the family: Tomahawk 3/4/5 `uc-tx-queue` with `platform trident mmu queue
profile ROCE_LOSSLESS` (`ingress threshold 1`; `ingress headroom` 64000 on TH3, 165100 on TH4, none on TH5),
Jericho2 `tx-queue` and no profile.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from railfabric.configs.render import render_device
from railfabric.device import DeviceConfig, build_devices
from railfabric.pipeline import Result, run
from railfabric.platforms import PLATFORMS
from railfabric.verify.eos import read_eos
from tests.helpers import EXAMPLE, base_inventory, run_data, with_system

CONFIG = "running-config.cfg"


def _queues(word: str) -> list[str]:
    """The RoCE block of a port from `priority-flow-control on` on, with the family's queue keyword."""
    return [
        "   priority-flow-control on",
        "   priority-flow-control priority 3 no-drop",
        "   priority-flow-control pause watchdog",
        "   !",
        f"   {word} 0",
        "      no priority",
        "      bandwidth percent 50",
        "   !",
        f"   {word} 3",
        "      no priority",
        "      bandwidth percent 50",
        "      random-detect ecn minimum-threshold 150000 bytes maximum-threshold 1500000 bytes"
        " max-mark-probability 100",
        "   !",
        f"   {word} 6",
        "      priority strict",
    ]


def _block(text: str, header: str) -> list[str]:
    lines = text.splitlines()
    i = lines.index(header)
    end = next(j for j in range(i + 1, len(lines)) if not lines[j].startswith(" "))
    return lines[i:end]


def _devices(res: Result) -> dict[str, DeviceConfig]:
    assert res.inventory is not None and res.topology is not None and res.plan is not None
    return build_devices(res.inventory, res.topology, res.plan)


def _eos(asic: str | None) -> dict[str, Any]:
    """The small fabric all on EOS (2 spines, rails p1-s1-rail0/1 with hosts on 2x400G lanes), sw64 of `asic`."""
    data = with_system(base_inventory())
    data["fabric"]["platform"] = "eos"
    if asic is None:
        del data["switch_models"]["sw64"]["asic"]
    else:
        data["switch_models"]["sw64"]["asic"] = asic
    return data


@pytest.fixture(scope="module")
def example() -> dict[str, DeviceConfig]:
    res = run(EXAMPLE)
    assert res.findings == [], [str(f) for f in res.findings]
    return _devices(res)


# --- the example: pod 1 segment 2's EOS rail switches are 7060x6-dual, asic tomahawk-5 (inventory/hardware.yml) ---

def test_example_rail_switch_on_tomahawk5(example: dict[str, DeviceConfig]) -> None:
    dev = example["p1-s2-rail0-4"]
    assert dev.platform == "eos" and dev.model == "7060x6-dual" and dev.queue_form is not None
    assert dev.queue_form.family == "tomahawk-5" and dev.queue_form.queue == "uc-tx-queue"
    text = render_device(dev)[CONFIG]
    # host port 1 of rail slot 0 (port_blocks.rails[0] starts at 1), lane 1 of its 2x400G breakout
    block = _block(text, "interface Ethernet1/1")
    assert block[block.index("   priority-flow-control on"):] == _queues("uc-tx-queue")
    assert "   tx-queue 0" not in text.splitlines()
    # one profile, threshold only (no published Tomahawk 5 headroom), applied platform-wide after its definition
    lines = text.splitlines()
    i = lines.index("platform trident mmu queue profile ROCE_LOSSLESS")
    assert lines[i:i + 4] == [
        "platform trident mmu queue profile ROCE_LOSSLESS",
        "    ingress threshold 1",
        "!",
        "platform trident mmu queue profile ROCE_LOSSLESS apply",
    ]
    assert text.count("platform trident") == 2 and "ingress headroom" not in text


def test_example_sonic_switches_get_no_queue_form(example: dict[str, DeviceConfig]) -> None:
    # the SN5600s (asic spectrum-4) run SONiC, which has one form for every family: nothing to decide
    assert not PLATFORMS["sonic"].queue_forms
    assert {d.queue_form for d in example.values() if d.platform == "sonic"} == {None}
    assert {d.hostname for d in example.values() if d.queue_form is not None} == {
        "p1-s2-rail0-4", "p1-s2-rail1-5", "p1-s2-rail2-6", "p1-s2-rail3-7"}


# --- a second family on the small fabric -------------------------------------------------------------------------

def test_jericho2_writes_tx_queue_and_no_mmu_profile(tmp_path: Path) -> None:
    res = run_data(tmp_path, _eos("jericho-2"))
    assert [f for f in res.findings if f.severity == "error"] == []
    dev = _devices(res)["p1-s1-rail0"]
    text = render_device(dev)[CONFIG]
    # hosts of rail 0 start at port 1 lane 1 (default layout: host ports in the lower half)
    block = _block(text, "interface Ethernet1/1")
    assert block[block.index("   priority-flow-control on"):] == _queues("tx-queue")
    assert "uc-tx-queue" not in text and "platform trident" not in text and "ingress " not in text


@pytest.mark.parametrize(("asic", "headroom"), [("tomahawk-3", 64000), ("tomahawk-4", 165100)])
def test_tomahawk_profiles_carry_the_published_headroom(tmp_path: Path, asic: str, headroom: int) -> None:
    res = run_data(tmp_path, _eos(asic))
    text = render_device(_devices(res)["p1-spine1"])[CONFIG]
    lines = text.splitlines()
    i = lines.index("platform trident mmu queue profile ROCE_LOSSLESS")
    assert lines[i:i + 5] == [
        "platform trident mmu queue profile ROCE_LOSSLESS",
        "    ingress threshold 1",
        f"    ingress headroom {headroom}",
        "!",
        "platform trident mmu queue profile ROCE_LOSSLESS apply",
    ]
    assert "   uc-tx-queue 3" in lines


@pytest.mark.parametrize(("asic", "word"), [("tomahawk-5", "uc-tx-queue"), ("jericho-2", "tx-queue")])
def test_parse_back_reads_either_queue_keyword(tmp_path: Path, asic: str, word: str) -> None:
    """hier_config structures both forms (and the MMU block); the reader finds ECN on queue 3, strict queue 6."""
    res = run_data(tmp_path, _eos(asic))
    dev = _devices(res)["p1-s1-rail0"]
    out = tmp_path / "out"
    (out / "configs" / dev.hostname).mkdir(parents=True)
    (out / "configs" / dev.hostname / CONFIG).write_text(render_device(dev)[CONFIG], encoding="utf-8")
    observed = read_eos(dev.hostname, out)
    qos = observed.interfaces["Ethernet1/1"].qos
    assert qos is not None and word in render_device(dev)[CONFIG]
    assert qos.ecn_queues == frozenset({3}) and qos.strict_queues == frozenset({6})
    assert qos.pfc_priorities == frozenset({3}) and qos.watchdog


# --- findings ------------------------------------------------------------------------------------------------------

def _model_line(tmp_path: Path, key: str) -> int:
    """1-based line of `key:` under sw64 in the fabric.yml run_data wrote."""
    text = (tmp_path / "inv" / "fabric.yml").read_text().splitlines()
    start = next(i for i, ln in enumerate(text) if ln.strip() == "sw64:")
    return next(i for i in range(start, len(text)) if text[i].strip().startswith(f"{key}:")) + 1


def test_hw004_eos_model_without_family(tmp_path: Path) -> None:
    res = run_data(tmp_path, _eos(None))
    found = [f for f in res.findings if f.code == "HW006"]
    assert len(found) == 1, [str(f) for f in res.findings]  # one per (model, platform), not per switch
    f = found[0]
    # the first switch in topology order (spines before rail switches) names the model's users
    assert f.severity == "error" and "'sw64'" in f.message and "EOS switches (e.g. p1-spine1)" in f.message
    assert f.hint == "add `asic: <family>` to the model, one of jericho-2, tomahawk-3, tomahawk-4, tomahawk-5"
    # at the model's key `sw64:` (column 3 under switch_models:)
    assert f.location is not None and f.location.col == 3
    assert (tmp_path / "inv" / "fabric.yml").read_text().splitlines()[f.location.line - 1].strip() == "sw64:"


def test_hw005_family_without_an_eos_form(tmp_path: Path) -> None:
    res = run_data(tmp_path, _eos("spectrum-4"))
    found = [f for f in res.findings if f.code == "HW007"]
    assert len(found) == 1, [str(f) for f in res.findings]
    f = found[0]
    assert f.severity == "error" and "spectrum-4" in f.message
    assert "jericho-2, tomahawk-3, tomahawk-4, tomahawk-5" in f.hint
    assert f.location is not None and f.location.line == _model_line(tmp_path, "asic")


def test_unknown_family_is_refused_with_the_closest(tmp_path: Path) -> None:
    res = run_data(tmp_path, _eos("tomahawk5"))
    found = [f for f in res.findings if "asic" in f.message]
    assert [f.code for f in found] == ["SCH003"]
    assert found[0].hint.startswith("did you mean 'tomahawk-5'? known: spectrum-4, tomahawk-3")
    assert found[0].location is not None and found[0].location.line == _model_line(tmp_path, "asic")


def test_sonic_needs_no_family(tmp_path: Path) -> None:
    data = base_inventory()
    del data["switch_models"]["sw64"]["asic"]
    res = run_data(tmp_path, data)
    assert [f.code for f in res.findings if f.severity == "error"] == []


def test_a_sonic_switch_on_a_model_without_family_beside_eos_ones(tmp_path: Path) -> None:
    # spines on SONiC, the segment on EOS: only the EOS switches' model needs the family; one model, one finding
    data = _eos(None)
    data["fabric"]["platform"] = "sonic"
    data["pods"][0]["segments"][0]["platform"] = "eos"
    res = run_data(tmp_path, data)
    assert [(f.code, "p1-s1-rail0" in f.message) for f in res.findings if f.code.startswith("HW")] == [
        ("HW006", True)]
