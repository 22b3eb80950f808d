"""`fabric sonic-yang`'s parser. The check itself (railfabric.verify.sonic_yang.check, with its translator and yanglint
runner) is imported only when the command runs: every other command's start stays free of it (70 ms)."""

from __future__ import annotations

import argparse

from railfabric.verify.sonic_yang import ENV_MODELS


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sonic-yang", help="validate every rendered SONiC config_db.json against SONiC's YANG models",
                       description="Translate each configs/*/config_db.json of GENERATED into a YANG instance "
                                   "document the way SONiC's sonic-yang-mgmt does and validate it with yanglint "
                                   "against SONiC's YANG models, as the Generic Config Updater (config replace / "
                                   "apply-patch) does on the switch: every table modelled, every value and "
                                   "reference valid. Exit 1 on any problem, 2 when models or yanglint are missing.")
    p.add_argument("generated", nargs="?", default="generated", help="a generated/ tree (default: generated)")
    p.add_argument("--models", help=f"directory of SONiC YANG models (default: ${ENV_MODELS}); export them with "
                                    "`python -m railfabric.verify.sonic_yang.models SONIC_BUILDIMAGE DIR`")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    import sys
    from pathlib import Path

    from railfabric.verify.ib_render import infiniband_refusal
    from railfabric.verify.sonic_yang.check import cmd_sonic_yang

    refusal = infiniband_refusal(Path(args.generated), "sonic-yang")
    if refusal is not None:
        print(refusal, file=sys.stderr)
        return 2

    return cmd_sonic_yang(args)
