"""The real arista.eos, cisco.nxos, ansible.netcommon and ansible.utils collections for the playbook tests.

They are not on PyPI on their own, only inside the `ansible` bundle (50 MB, 100+ collections), and Galaxy is not
reachable from every CI machine. So `pip download --no-deps ansible==<BUNDLE>` fetches the bundle's wheel through
pip's configured index, and only the four collections the EOS and NX-OS tasks use are unpacked into
.cache/ansible-collections/ (git-ignored), once. `python -m tests.ansible_collections_setup` does it up front
(`make test` calls it through tests/tools/install.sh); the tests call `collections_path()`, which does it on first use.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# ansible 12.3.0 (ansible-core 2.19): arista.eos 12.0.0, cisco.nxos 11.1.0, ansible.netcommon 8.2.0,
# ansible.utils 6.0.0,
# junipernetworks.junos 11.0.0
BUNDLE = "12.3.0"
COLLECTIONS = ("arista/eos", "ansible/netcommon", "ansible/utils", "cisco/nxos", "junipernetworks/junos")
TARGET = ROOT / ".cache" / "ansible-collections"


def _installed() -> bool:
    return all((TARGET / "ansible_collections" / c / "MANIFEST.json").exists() for c in COLLECTIONS)


def collections_path() -> Path | None:
    """The collections directory (for ANSIBLE_COLLECTIONS_PATH), or None when the bundle cannot be fetched."""
    if _installed():
        return TARGET
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", tmp,
                               f"ansible=={BUNDLE}"], capture_output=True, text=True, timeout=600)
        wheels = list(Path(tmp).glob("ansible-*.whl"))
        if proc.returncode != 0 or not wheels:
            print(f"ansible {BUNDLE} not downloadable: {proc.stderr.strip()[-300:]}", file=sys.stderr)
            return None
        prefixes = tuple(f"ansible_collections/{c}/" for c in COLLECTIONS)
        with zipfile.ZipFile(wheels[0]) as wheel:
            members = [n for n in wheel.namelist() if n.startswith(prefixes)]
            TARGET.parent.mkdir(parents=True, exist_ok=True)
            staging = Path(tempfile.mkdtemp(prefix="collections-", dir=TARGET.parent))
            wheel.extractall(staging, members)
    if TARGET.exists():
        import shutil

        shutil.rmtree(TARGET)
    staging.rename(TARGET)
    return TARGET if _installed() else None


if __name__ == "__main__":
    where = collections_path()
    print(f"collections: {where}" if where else "collections: not available")
    sys.exit(0 if where else 1)
