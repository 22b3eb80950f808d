#!/usr/bin/env bash
# What the test suite needs beyond Python, installed by `make test` (and so by CI, which runs `make test`):
#   Debian packages: frr + frr-pythontools (the FRR syntax checks and the lab), iputils-ping (the lab's pings),
#   netplan.io (host files through the real `netplan generate`), zsh and fish (shell completion scripts),
#   ibsim-utils, opensm and infiniband-diags (the InfiniBand lab: ibsim with OpenSM and the diags preloaded with
#   libumad2sim, a dependency of ibsim-utils; tests/test_lab_ib.py, tests/test_ib_opensm.py);
#   ibutils (the legacy IBDM checker ibdmchk reads the ibdiagnet topology file: tests/test_ib_ibdmchk.py);
#   the Ansible collections the playbook tests load (tests/ansible_collections_setup.py, from PyPI's bundle).
# As root with apt-get, missing packages are installed (no services started: there may be no init system).
# Otherwise nothing is installed and the tests that need a missing tool skip, saying which package to install.
# Usage: tests/tools/install.sh PYTHON     (the virtual environment's interpreter, for the collections)
set -euo pipefail
cd "$(dirname "$0")/../.."
python=${1:-python3}

need=()
if ! command -v vtysh >/dev/null 2>&1 || [ ! -x /usr/lib/frr/bgpd ]; then need+=(frr); fi
if [ ! -x /usr/lib/frr/frr-reload.py ]; then need+=(frr-pythontools); fi
command -v ping >/dev/null 2>&1 || need+=(iputils-ping)
command -v netplan >/dev/null 2>&1 || need+=(netplan.io)
for sh in zsh fish; do command -v "$sh" >/dev/null 2>&1 || need+=("$sh"); done
command -v ibsim >/dev/null 2>&1 || need+=(ibsim-utils)
[ -x /usr/sbin/opensm ] || command -v opensm >/dev/null 2>&1 || need+=(opensm)
[ -x /usr/sbin/ibnetdiscover ] || command -v ibnetdiscover >/dev/null 2>&1 || need+=(infiniband-diags)
command -v ibdmchk >/dev/null 2>&1 || need+=(ibutils)

if [ "${#need[@]}" -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "test tools: installing ${need[*]} (apt-get)"
    export DEBIAN_FRONTEND=noninteractive
    policy=/usr/sbin/policy-rc.d  # keep the packages' install scripts from starting their services
    if [ ! -e "$policy" ]; then
      printf '#!/bin/sh\nexit 101\n' > "$policy" && chmod +x "$policy"
      trap 'rm -f "$policy"' EXIT
    fi
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  else
    echo "test tools: ${need[*]} missing and not root (or no apt-get): the tests that need them skip" >&2
  fi
fi

"$python" -m tests.ansible_collections_setup \
  || echo "test tools: the Ansible collections are not available: the playbook tests that need them skip" >&2
