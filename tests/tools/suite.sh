#!/usr/bin/env bash
# `make test`'s pytest runs: the suite in four processes at once, because CI has 2 cores and half of the suite
# waits (on FRR daemons, ansible-playbook, stand-in switches, pip) while the other half computes.
#   render-a, render-b  the unit and whole-fabric render tests, split in two by files (CPU-bound);
#   lab                 the FRR lab files (tests/test_lab*.py but test_lab_down.py) and the rollout in the FRR lab;
#   push                the push tests against stand-in switches, the wheel, the fresh-clone `make render` and
#                       test_lab_down.py (so that the four end together).
# render-a prints as it goes (and keeps .cache/test-render-a.log); the other three write .cache/test-<group>.log,
# printed after. Each process of the
# render groups ends with tests/test_render_all_clean.py's "every inventory validated clean renders" over the
# inventories that process's tests recorded (tests/conftest.py), so the two halves together cover them all.
# Each prints its 15 slowest tests (where to cut when the suite outgrows CI). Exit status: 0 when all four passed,
# else 1.
set -uo pipefail
py=${1:?usage: suite.sh PYTHON}
cd "$(dirname "$0")/../.."
mkdir -p .cache
# the two render processes' "every inventory validated clean renders" share the work: each inventory (by content
# digest) is rendered by the process that claims it first (tests/test_render_all_clean.py)
RAILFABRIC_RENDER_CLAIMS=$(mktemp -d "${TMPDIR:-/tmp}/railfabric-render-claims.XXXXXX")
export RAILFABRIC_RENDER_CLAIMS
trap 'rm -rf "$RAILFABRIC_RENDER_CLAIMS"' EXIT
# each process prints its 15 slowest tests by wall time and the 15 that used the most CPU (tests/cpu_time.py: on 2
# shared cores the wall time of a test depends on the other processes, its CPU time does not), and keeps the CPU
# seconds of every test phase in .cache/cpu-<group>.tsv
opts=(-q -p no:cacheprovider --durations=15 --cpu-durations=15)

# test_lab_down.py (mostly waiting on its labs: ~28 s CPU, ~95 s wall) runs in the push process, which ended
# ~5 minutes before the lab process (docs/testing-time.md)
lab=()
for f in tests/test_lab*.py; do [ "$f" = tests/test_lab_down.py ] || lab+=("$f"); done
lab+=(tests/test_rollout_lab.py)
push=(tests/test_rollout_nvue.py tests/test_rollout_nxos.py tests/test_rollout_junos.py tests/test_wheel.py
      tests/test_make_render.py tests/test_lab_down.py)
# the heaviest render files (pytest --durations on 2 cores), about half of the render tests' CPU
render_b=(tests/test_option_walk.py tests/test_option_walk_junos.py tests/test_rollout_playbook.py
          tests/test_nvue_schema.py tests/test_stability.py tests/test_fuzz.py tests/test_reuse.py
          tests/test_journal_recovery.py)
last=tests/test_render_all_clean.py::test_every_inventory_the_suite_validates_clean_renders

ignore=()
for f in "${lab[@]}" "${push[@]}" "${render_b[@]}"; do ignore+=("--ignore=$f"); done

"$py" -m pytest "${opts[@]}" --cpu-log=.cache/cpu-lab.tsv "${lab[@]}" > .cache/test-lab.log 2>&1 & lab_pid=$!
"$py" -m pytest "${opts[@]}" --cpu-log=.cache/cpu-push.tsv "${push[@]}" > .cache/test-push.log 2>&1 & push_pid=$!
"$py" -m pytest "${opts[@]}" --cpu-log=.cache/cpu-render-b.tsv "${render_b[@]}" "$last" > .cache/test-render-b.log 2>&1 & b_pid=$!
PYTHONUNBUFFERED=1 "$py" -m pytest -q --durations=15 --cpu-durations=15 --cpu-log=.cache/cpu-render-a.tsv "${ignore[@]}" 2>&1 | tee .cache/test-render-a.log; status=${PIPESTATUS[0]}

for group in render-b:$b_pid lab:$lab_pid push:$push_pid; do
  wait "${group#*:}" || status=1
  echo "--- ${group%%:*} (.cache/test-${group%%:*}.log):"
  cat ".cache/test-${group%%:*}.log"
done
exit $(( status != 0 ))
