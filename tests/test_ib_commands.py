"""Every `fabric` command on the InfiniBand example (examples/infiniband/inventory): each works, or refuses with one
clear line naming why and a non-zero exit; never a traceback or an internal error. `fabric lab` itself runs in
tests/test_lab_ib*.py (it needs ibsim); here only its refusal of an FRR-lab option. Expected figures by hand: the
example's 8 leaves × 32 uplinks × 400G = 102.4T; a spine down takes 8 of each leaf's 32 uplinks (75 % left); a leaf
down isolates rail 0's 32 HCAs = 32 GPUs."""

from __future__ import annotations

from pathlib import Path

import pytest

from railfabric.cli import main
from tests.test_ib_inventory import EXAMPLE

GEN = EXAMPLE.parent / "generated"
INV = str(EXAMPLE)

# (argv, exit code, text that must be in stdout + stderr); "{tmp}" is a fresh directory
CASES = [
    (["validate", INV], 0, "fabric su1: 1 pod(s), 1 segment(s)"),
    (["validate", INV, "--format", "sarif"], 0, '"results": []'),
    (["render", INV, "--out", "{tmp}/g", "-q"], 0, ""),
    (["plan", INV, "--out", "{tmp}/none", "-q"], 0, "Plan:"),
    (["report", INV], 0, "capacity"),
    (["report", INV, "--format", "json"], 0, '"infiniband"'),
    (["size", "--gpus", "256", "--host-model", "dgx-h100", "--switch-model", "qm9700"], 0, ""),
    (["schema"], 0, '"$defs"'),
    (["explain", "IB040"], 0, "IB040 (ib-no-breakouts)"),
    (["show", "su1-leaf0", INV], 0, "su1-leaf0  tier=leaf"),
    (["show", "dgx01", INV], 0, "NCCL_IB_HCA=="),
    (["show", "nothing", INV], 2, "fabric show: no switch or host named 'nothing'"),
    (["impact", INV, "--down", "su1-spine1"], 0, "oversubscription 1.333:1"),  # 32/24
    (["impact", INV, "--down", "su1-leaf0"], 1, "GPUs isolated from their rail: 32 of 256"),
    (["impact", INV, "--down", "su1-leaf0", "--format", "json"], 1, '"isolated"'),
    (["impact", INV, "--maintenance", "su1-spine1", "su1-leaf0"], 0, "wave 1: su1-spine1 su1-leaf0"),
    (["impact", INV, "--maintenance", "su1-spine1", "--emit-waves", "{tmp}/w.yml"], 2,
     "fabric impact: --emit-waves writes the waves for the Ethernet rollout"),
    (["lab", INV, "--pod", "1"], 2, "fabric lab: --pod is for the FRR lab of an Ethernet fabric"),
    (["verify", str(GEN)], 2, "is an InfiniBand render: no switch configs to read back"),
    (["sonic-yang", str(GEN)], 2, "is an InfiniBand render: no switch configs to read back"),
    (["ib", "bind", INV, "--discovered", "{tmp}/missing.topo", "--out", "{tmp}/b"], 2, "missing.topo"),
    (["completion", "bash"], 0, "_shtab_fabric"),
]


@pytest.mark.parametrize(("argv", "rc", "text"), CASES, ids=[f"{i:02d}-{c[0][0]}" for i, c in enumerate(CASES)])
def test_each_command_works_or_refuses_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   argv: list[str], rc: int, text: str) -> None:
    got = main([a.replace("{tmp}", str(tmp_path)) for a in argv])
    out, err = capsys.readouterr()
    assert got == rc, (out, err)
    assert text in out + err
    assert "Traceback" not in err and "internal error" not in err
    if rc == 2:  # a refusal (1 is impact's answer: GPUs isolated)
        assert len(err.strip().splitlines()) == 1  # one clear line
    assert not (tmp_path / "b").exists()  # a refused bind writes nothing


def test_the_help_lists_only_commands_this_test_walks() -> None:
    from railfabric.cli.parser import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    walked = {c[0][0] for c in CASES}
    assert set(sub.choices) == walked  # type: ignore[attr-defined]
