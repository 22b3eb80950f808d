"""railfabric/configs/nvue/yaml_dump.py writes the bytes PyYAML's emitter writes (the reference is PyYAML itself, run
here on the same documents), including the cases its layout rules do not cover (it falls back to PyYAML for them)."""

from __future__ import annotations

import pytest
import yaml

from railfabric.configs.nvue import startup as nvue_startup
from railfabric.configs.nvue.startup import _Dumper
from railfabric.configs.nvue.yaml_dump import make_dump
from railfabric.device import build_devices
from railfabric.inventory.intent import Platform
from railfabric.pipeline import run
from railfabric.plan.allocate import allocate
from railfabric.topology import expand
from tests.helpers import EXAMPLE


def reference(doc: object) -> str:
    return yaml.dump(doc, Dumper=_Dumper, sort_keys=True, default_flow_style=False, allow_unicode=False,
                     width=1 << 30, indent=2)


DOCS: list[object] = [
    # the startup.yaml shape: a list holding {"set": tree}, nested mappings, empty mappings as leaves
    [{"set": {"interface": {"swp1": {"link": {"state": {"up": {}}, "mtu": 9216}, "type": "swp"},
                            "swp10": {"description": "unused", "link": {"state": {"down": {}}}}},
              "bridge": {"domain": {"br_default": {"vlan": {"100": {}, "101": {}}}}}}}],
    # scalars PyYAML quotes: numeric-looking strings, booleans as text, a leading indicator, an empty string,
    # a vault reference (the representer forces double quotes), spaces, a colon, non-ASCII (allow_unicode=False)
    {"a": "100", "b": "true", "c": "- x", "d": "", "e": "%%vault.secret%%", "f": "two words", "g": "k: v",
     "h": "caf\u00e9", "i": None, "j": True, "k": 0, "l": -5, "m": "null", "n": "~", "o": "'quoted'", "p": "#x"},
    # keys that need quoting, bool and int keys
    {"100": 1, "a b": 2, "": 3, "- k": 4, "y": 5},
    # words and addresses (the fast path): plain, or single-quoted where PyYAML's resolver reads another type
    {"10.0.0.1/31": {}, "192.168.0.1": "10.4.1.129", "swp1s0": "on", "off": "Yes", "1_000": "0x1F", "1e5": "1.5",
     "2020-01-01": "12:30", "0o17": "0b101", ".5": "-1", "-x": "...", "_a/b": "/etc/x", "NULL": "~", "<<": "=",
     "x" * 100: "y" * 101, "z" * 110: 1, "w" * 124: 2, ".inf": ".NaN", "v1.2.3": "1.2.3", "007": "08"},
    {1: "one", 2: "two"},
    # sequences: indentless in a mapping, of mappings, of sequences, empty ones, scalars
    {"list": [1, "two", None, {}, [], {"x": 1, "y": [2, 3]}, [4, [5, {"z": {"w": 6}}]]], "empty": [], "e": {}},
    [[1, 2], [], {"a": [{"b": [{"c": 1}]}]}],
    # a multi-line single-quoted value at several depths (the banner), with a blank line and leading spaces
    {"system": {"message": {"pre-login": "Authorized only.\nAtlas fabric\n\n  indented line"}}},
    {"top": "line one\nline two"},
    # not covered by the layout rules: a multi-line sequence item, a multi-line key, a long key, unsortable keys
    {"l": ["one\ntwo"]},
    {"multi\nline": 1},
    {"k" * 200: 1},
    {1: "int", "a": "str"},
    # a tuple (PyYAML's SafeDumper writes it as a list; not covered here), a scalar document, empty documents
    {"t": (1, 2)}, "just text", {}, [],
]


@pytest.mark.parametrize("doc", DOCS, ids=range(len(DOCS)))
def test_same_bytes_as_pyyaml(doc: object) -> None:
    dump = make_dump(_Dumper)
    assert dump(doc) == reference(doc)
    assert dump(doc) == reference(doc)  # the second time from the scalar caches


def test_every_switch_of_the_example_as_nvue(monkeypatch: pytest.MonkeyPatch) -> None:
    """The example rebuilt with `fabric.platform: nvue` (as tests/test_render_nvue.py): each Cumulus switch's document
    (MLAG pairs, a banner with line breaks, vault references) through both writers, byte for byte."""
    r = run(EXAMPLE)
    assert r.inventory is not None
    inv = r.inventory.model_copy(
        update={"fabric": r.inventory.fabric.model_copy(update={"platform": Platform("nvue")})})
    topo = expand(inv)
    devices = [d for d in build_devices(inv, topo, allocate(inv, topo)).values() if d.platform == "nvue"]
    assert len(devices) > 20  # every switch of the example but pod 1 segment 2 (EOS by its own setting)
    banners = 0
    whole: list[object] = []  # documents PyYAML was asked to write whole (a fallback): none expected
    real_dump = yaml.dump

    def spy(doc: object, *args: object, **kwargs: object) -> str:
        if not (isinstance(doc, dict) and len(doc) == 1):
            whole.append(doc)
        return real_dump(doc, *args, **kwargs)  # type: ignore[call-overload, no-any-return]

    for dev in devices:
        doc = nvue_startup.document(dev)
        with monkeypatch.context() as m:
            m.setattr(yaml, "dump", spy)
            text = nvue_startup.dump(doc)
        assert whole == []
        assert text == reference(doc), dev.hostname
        banners += "pre-login: '" in text
    assert banners == len(devices)  # the multi-line banner takes the multi-line path on every switch
