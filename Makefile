# Two commands on a fresh machine: `make run` and `make test` (each sets up what is missing).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: install run test test-fast lint openapi boards bench soak fuzz example-ts completeness

# two distributions: the protocol (./protocol: signing, engines, verifier) and the server
$(STAMP): pyproject.toml protocol/pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ./protocol -e '.[dev]'
	@touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/parley run

# The suite on TEST_PROCESSES processes, a file's tests together (they share its servers), then
# the OpenAPI fuzz alone: schemathesis names all its cases alike, and xdist would run two of them.
TEST_PROCESSES ?= 2

test: $(STAMP)
	@$(BIN)/python -c 'from tests.browser.conftest import chromium_path as c; c() or print("browser tests skipped: no Chromium (apt-get install chromium, or PARLEY_CHROMIUM=/path)")'
	$(BIN)/python -m pytest -q -n $(TEST_PROCESSES) --dist loadfile --ignore=tests/fuzz
	$(BIN)/python -m pytest -q tests/fuzz

test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -m 'not slow'

lint: $(STAMP)
	$(BIN)/ruff check .

openapi: $(STAMP)
	$(BIN)/parley openapi -o openapi/openapi.json

# The sample board pictures of docs/games.md (a test checks they are what the code draws).
boards: $(STAMP)
	$(BIN)/python -m service.ops.board_samples docs/boards

# Long runs, not part of `make test` (each has a short counterpart inside the suite).
bench: $(STAMP)
	$(BIN)/python -m bench

soak: $(STAMP)
	$(BIN)/python -m tests.soak --minutes $${SOAK_MINUTES:-10} $(if $(filter 1,$(SOAK_CLUSTER)),--cluster)

completeness: $(STAMP)
	PARLEY_COMPLETENESS_GAMES=$${COMPLETENESS_GAMES:-200} $(BIN)/python -m pytest -q -n $(TEST_PROCESSES) tests/engines/test_completeness_*.py -p no:cacheprovider

fuzz: $(STAMP)
	PARLEY_FUZZ_EXAMPLES=$${FUZZ_EXAMPLES:-500} $(BIN)/python -m pytest -q tests/fuzz -p no:cacheprovider

# The TypeScript example client (examples/typescript/README.md): needs Node.js 20+ and npm.
example-ts: $(STAMP)
	examples/typescript/run.sh
