# `make demo` and `make test` set everything up themselves: a virtual environment in .venv, the Python
# packages, and the Debian packages that off-screen rendering (EGL) and the report-page test (Chromium) need.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.lofkit-installed
SYSTEM_PACKAGES := libegl1 libegl-mesa0 libgl1-mesa-dri chromium
export VTK_DEFAULT_OPENGL_WINDOW := vtkEGLRenderWindow
# Python keeps lofkit's and the tests' compiled bytecode in __pycache__ even where the environment says not to (as
# container images often do): else every lofkit process, and each test worker's assertion rewriting, compiles the
# sources again.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: demo test test-fast docs lint setup system-deps models real-models tables bench screenshots clean

demo: setup
	$(BIN)/lofkit validate examples/tables/table-a.yaml
	$(BIN)/lofkit check examples/tables/table-a.yaml blue-1 red-1
	$(BIN)/lofkit check examples/tables/table-a.yaml blue-4 red-6
	$(BIN)/lofkit check examples/rulebook_lof.yaml fusilier iguana
	$(BIN)/lofkit matrix examples/rulebook_lof.yaml
	$(BIN)/lofkit distance examples/quickstart.yaml sniper hacker
	$(BIN)/lofkit zoc examples/quickstart.yaml hacker
	$(BIN)/lofkit render examples/tables/table-b.yaml -o out/table-b.png --view iso --force
	$(BIN)/lofkit report examples/rulebook_lof.yaml fusilier iguana -o out/ruling --force
	$(BIN)/lofkit heatmap examples/tables/table-a.yaml --zone red --quick -o out/heatmap-red.png --force
	$(BIN)/lofkit army check examples/armies/blue.yaml
	$(BIN)/lofkit orders examples/armies/blue.yaml
	@echo "the workbench, in a browser: $(BIN)/lofkit serve examples/tables/table-b.yaml (then open http://127.0.0.1:8765/)"

# The suite on every core (pytest-xdist; TEST_WORKERS=0 runs it in one process), the 25 slowest tests listed at the end.
TEST_WORKERS ?= auto
test: setup
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --maxprocesses=8 --dist loadgroup --durations=25

# Everything but the tests marked slow (see pyproject.toml), for a quick check while working.
test-fast: setup
	$(BIN)/python -m pytest -m "not slow"

# The workbench pictures in the README and docs, taken by its Playwright test (tests/test_workbench_page.py).
screenshots: setup
	LOFKIT_SCREENSHOTS=docs/images $(BIN)/python -m pytest tests/test_workbench_page.py -k "tap_two"

# The documentation site (docs/ and the API reference from the docstrings) in site/, strict: a warning is an error.
docs: setup
	$(BIN)/mkdocs build --strict

lint: setup
	$(BIN)/ruff check lofkit tests benchmarks examples terrain_models

setup: system-deps $(STAMP)

$(STAMP): pyproject.toml Makefile
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[render,photo,cluster,serve,scan,dev]'
	$(BIN)/python -m lofkit.cli.warm_up
	@touch $(STAMP)

system-deps:
	@command -v dpkg >/dev/null || exit 0; \
	missing=$$(for p in $(SYSTEM_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	[ -z "$$missing" ] && exit 0; \
	if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	else echo "lofkit needs these Debian packages: sudo apt-get install $$missing" >&2; exit 1; fi

models: setup
	$(BIN)/python terrain_models/make_models.py

# Pieces made the way real kits are exported (one non-convex body each); needs manifold3d, in the dev extra.
real-models: setup
	$(BIN)/python terrain_models/make_real_models.py

tables: setup
	$(BIN)/python examples/tables/make_tables.py

bench: setup
	for b in benchmarks/bench_*.py; do $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
