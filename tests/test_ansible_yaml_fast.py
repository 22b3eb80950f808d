"""The Ansible YAML writer's fast paths (fabric/outputs/ansible_yaml.py) write what its plain definitions write:
_str_value (a str's _value with _text and _quoted inlined) is `_text` then the `!unsafe` mark, and _yaml's exact
type checks take the branches the ABC checks took."""

from __future__ import annotations

import json
from collections import OrderedDict

import yaml
from hypothesis import given
from hypothesis import strategies as st

from fabric.outputs.ansible_yaml import _quoted, _scalar, _str_value, _text, _value, _yaml
from fabric.textsafe import jinja_unsafe

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
