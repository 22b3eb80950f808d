"""The Ansible YAML writer's fast paths (railfabric/outputs/ansible_yaml.py) write what its plain definitions write:
_str_value (a str's _value with _text and _quoted inlined) is `_text` then the `!unsafe` mark, and _yaml's exact
type checks take the branches the ABC checks took."""

from __future__ import annotations

import json
from collections import OrderedDict

import yaml
from hypothesis import given
from hypothesis import strategies as st

from railfabric.core.textsafe import jinja_unsafe
from railfabric.outputs.ansible_yaml import _quoted, _scalar, _str_value, _text, _value, _yaml

# texts near the branches: plain words, addresses, numbers, indicators, quotes, Jinja openers, non-ASCII
_TEXTS = st.one_of(st.text(), st.text(alphabet="0123456789./:-_ {}%#\"'\\abyYnN~eE+", max_size=12),
                   st.sampled_from(["10.0.0.1", "10.0.0.1/31", "1.2", "1e3", "yes", "null", "~", "{{ x }}", "{% if",
                                    "from 10.0.0.1 lookup 101", "a\"b", "tab\there", "é", "0x1F", "..."]))


@given(_TEXTS)
def test_str_value_is_text_then_unsafe(text: str) -> None:
    plain = _text(text)
    assert _str_value(text) == _value(text) == (jinja_unsafe(plain, text) if "{" in text else plain)
    # and _text is _scalar: plain only where it reads back as the same string, else JSON-quoted
    assert plain == _scalar(text)
    assert plain == text or plain == _quoted(text) or plain == json.dumps(text)


def test_known_values() -> None:
    assert _str_value("rail") == "rail" and _str_value("10.0.12.0/32") == "10.0.12.0/32"
    assert _str_value("from 10.128.0.2 lookup 101") == '"from 10.128.0.2 lookup 101"'  # a space: quoted
    assert _str_value("1.2") == '"1.2"' and _str_value("yes") == '"yes"' and _str_value("é") == '"\\u00e9"'
    assert _str_value("{{ x }}") == '!unsafe "{{ x }}"'


def test_yaml_branches() -> None:
    # an OrderedDict (a Mapping, not a dict), a tuple, an empty mapping, a bool (not an int), None, an int
    data = {"a": OrderedDict(b=1), "c": ("x", 2), "d": {}, "e": True, "f": None, "g": 3, "h": "{{ y }}"}
    text = _yaml(data)
    assert text == ('a:\n  b: 1\nc: [x, 2]\nd: {}\ne: true\nf: null\ng: 3\nh: !unsafe "{{ y }}"\n')
    assert yaml.safe_load(text.replace("!unsafe ", "")) == {"a": {"b": 1}, "c": ["x", 2], "d": {}, "e": True,
                                                            "f": None, "g": 3, "h": "{{ y }}"}


_PATHS = st.text(alphabet="abc019._/-:{} ", max_size=12).map(lambda t: "../" + t)


@given(_PATHS)
def test_a_relative_path_is_what_the_resolver_says(text: str) -> None:
    # _text writes a plain "../..." text without asking PyYAML's resolver (_plain_text's slow path): the same verdict,
    # and it reads back as the same string
    from railfabric.outputs.ansible_yaml import _PLAIN, _plain_text

    out = _text(text)
    assert out == _str_value(text).removeprefix("!unsafe ")
    if _PLAIN.match(text):
        assert out == _plain_text.__wrapped__(text) == text  # type: ignore[attr-defined]
    assert yaml.safe_load(f"k: {out}") == {"k": text}


def test_relative_paths_known_values() -> None:
    assert _str_value("../configs/p1-s1-rail0/frr.conf") == "../configs/p1-s1-rail0/frr.conf"
    assert _str_value("../a b") == '"../a b"'  # a space: not plain, quoted
    assert _str_value("../x:y") == '"../x:y"'  # a colon: quoted
    # no "../": the resolver's verdict: ".." is no number (a digit must follow the dot), ".5" is a float
    assert _str_value("..") == ".." and _str_value(".5") == '".5"'


_FLAT_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), _TEXTS,
                         st.lists(st.integers(0, 3), max_size=3), st.lists(st.booleans(), max_size=2),
                         st.lists(_TEXTS, max_size=3), st.dictionaries(st.sampled_from(["a", "b"]), _TEXTS))


@given(st.dictionaries(st.sampled_from(["role", "pod", "rails", "rack", "x"]), _FLAT_VALUES))
def test_flat_yaml_is_yaml(data: dict) -> None:
    from railfabric.outputs.ansible_yaml import _flat_yaml

    assert _flat_yaml(data) == _flat_yaml(data) == _yaml(data)  # the second call from the kept lines


def test_flat_yaml_keeps_types_apart() -> None:
    from railfabric.outputs.ansible_yaml import _flat_yaml

    # 1 == True and (1,) == (True,) in Python: the kept lines are keyed by exact type too
    assert _flat_yaml({"pod": 1}) == "pod: 1\n" and _flat_yaml({"pod": True}) == "pod: true\n"
    assert _flat_yaml({"rails": [1]}) == "rails: [1]\n" and _flat_yaml({"rails": [True]}) == "rails: [true]\n"
    assert _flat_yaml({"rails": ["1"]}) == 'rails: ["1"]\n'  # a string that reads as a number: quoted
    assert _flat_yaml({"rack": "yes"}) == 'rack: "yes"\n' and _flat_yaml({"rack": "R1"}) == "rack: R1\n"
    assert _flat_yaml({"m": "10.0.0.1/31"}) == "m: 10.0.0.1/31\n" and _flat_yaml({"m": "1.2"}) == 'm: "1.2"\n'
    assert _flat_yaml({"x": "{{ y }}"}) == 'x: !unsafe "{{ y }}"\n'
    assert _flat_yaml({"c": {"f": "../configs/s/f"}}) == "c:\n  f: ../configs/s/f\n"


_NAMES = st.tuples(st.sampled_from("aAnNyYtTfFoOpZ"),
                   st.text(alphabet="aeflnorstuyNOTY019._/-\n", max_size=6)).map("".join)


@given(_NAMES)
def test_a_name_is_what_the_resolver_says(text: str) -> None:
    # _text writes a text of plain characters starting with a letter and holding a non-letter without asking the
    # resolver; letters-only texts (yes, No, null, y, ...) still go to it: the same verdict either way
    from railfabric.outputs.ansible_yaml import _PLAIN, _plain_text

    out = _text(text)
    assert out == _str_value(text)
    if _PLAIN.match(text):  # plain characters only (no newline): the resolver's own verdict
        assert out == _plain_text.__wrapped__(text)  # type: ignore[attr-defined]
    assert yaml.safe_load(f"k: {out}") == {"k": text}


def test_names_known_values() -> None:
    assert _str_value("p1-s1-rail0") == "p1-s1-rail0" and _text("DH1-R01") == "DH1-R01"
    # letters only: the resolver's verdict (booleans and nulls quoted, other words plain)
    assert _str_value("yes") == '"yes"' and _str_value("Off") == '"Off"' and _str_value("null") == '"null"'
    assert _str_value("y") == '"y"' and _str_value("rail") == "rail"
    assert _str_value("/etc/x") == "/etc/x" and _str_value("1.2.3.4") == "1.2.3.4"  # "/": the resolver's way
    # a trailing newline: no plain scalar (it was written bare before _PLAIN ended in \Z), JSON-quoted
    assert _str_value("p1\n") == '"p1\\n"' and _text("yes\n") == '"yes\\n"'
