# railfabric: every target creates .venv on first use (Python 3.11+, no other prerequisites). The targets that only
# run railfabric install railfabric and its runtime dependencies; the test, lint, fuzz and bench targets add the test
# tool chain (pyproject.toml's `test` extra: pytest, ruff, mypy, ansible-core, anta, ...) on first use.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
FABRIC := $(BIN)/fabric
INVENTORY ?= inventory
STAMP  := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test

.DEFAULT_GOAL := help
.PHONY: help venv render validate check plan test test-fast lint fuzz lab bench schema clean sonic-yang

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-9s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade pip >/dev/null
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check -e .
	@touch $(STAMP)

$(TEST_STAMP): $(STAMP)
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	@touch $(TEST_STAMP)

venv: $(TEST_STAMP) ## create .venv with railfabric (editable) and the test tool chain

render: $(STAMP) ## validate inventory/ and render generated/ (configs, Ansible, cabling, IP plan)
	$(FABRIC) render $(INVENTORY)

validate: $(STAMP) ## validate inventory/ (FORMAT=json|sarif|github|codequality to change the output)
	$(FABRIC) validate $(INVENTORY) $(if $(FORMAT),--format $(FORMAT))

check: $(TEST_STAMP) lint ## pre-merge: lint, validate, and fail (exit 3) if generated/ is stale
	$(FABRIC) validate -q $(INVENTORY)
	$(FABRIC) render --check $(INVENTORY)
	$(FABRIC) validate -q examples/infiniband/inventory
	$(FABRIC) render --check examples/infiniband/inventory --out examples/infiniband/generated

plan: $(STAMP) ## what `make render` would change in generated/ (for a pull-request comment)
	$(FABRIC) plan $(INVENTORY)

lint: $(TEST_STAMP) ## ruff, then mypy (pydantic plugin; [tool.mypy] in pyproject.toml)
	$(BIN)/ruff check railfabric tests bench
	$(BIN)/mypy

test: $(TEST_STAMP) lint ## install the test tools (root: Debian packages), lint, run the suite (four processes)
	@tests/tools/install.sh $(BIN)/python
	@tests/tools/suite.sh $(BIN)/python

test-fast: $(TEST_STAMP) ## the unit tests only, for the edit loop (no FRR, Ansible, pip or whole-fabric renders)
	$(BIN)/python -m pytest -q -p no:cacheprovider -m "not slow"

fuzz: $(TEST_STAMP) ## mutation fuzz of the example inventory (FUZZ_CASES=5000 FUZZ_SEED=0; FUZZ_ONLY=N replays one)
	FUZZ_CASES=$${FUZZ_CASES:-5000} $(BIN)/python -m pytest -q -p no:cacheprovider tests/test_fuzz.py

lab: $(STAMP) ## FRR lab, verified against the plan (root; POD=N, HOSTS=N|all, FAULT=asn|summary|mtu|host-policy, KEEP=1, DOWN="NAME ...": --down, each name quoted)
	$(FABRIC) lab $(INVENTORY) $(if $(POD),--pod $(POD)) $(if $(HOSTS),--hosts $(HOSTS)) $(if $(FAULT),--fault $(FAULT)) \
		$(if $(KEEP),--keep) $(if $(DOWN),--down $(foreach d,$(DOWN),'$(d)'))

bench: $(STAMP) ## timing and peak memory: validate (1K/8K/65K GPUs), the whole render pipeline (8K/65K), impact (65K)
	$(BIN)/python bench/bench_pipeline.py
	$(BIN)/python bench/bench_render.py
	$(BIN)/python bench/bench_impact.py

schema: $(STAMP) ## write schema/inventory.schema.json (the per-file JSON Schema editors use; a test checks it is fresh)
	$(FABRIC) schema --per-file > schema/.inventory.schema.json.tmp && \
	  mv schema/.inventory.schema.json.tmp schema/inventory.schema.json

clean: ## remove .venv and caches
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache .hypothesis *.egg-info

sonic-yang: $(STAMP) ## validate generated/ config_db.json files against SONiC's YANG models (SONIC_BUILDIMAGE=path)
	@test -n "$(SONIC_BUILDIMAGE)" || { echo "make sonic-yang: set SONIC_BUILDIMAGE=<sonic-buildimage checkout or git dir>"; exit 2; }
	@models=$$(mktemp -d) && trap 'rm -rf "$$models"' EXIT && \
	  $(BIN)/python -m railfabric.verify.sonic_yang.models "$(SONIC_BUILDIMAGE)" "$$models" && \
	  $(FABRIC) sonic-yang $(or $(GENERATED),generated) --models "$$models"
