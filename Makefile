# Every target builds and uses its own virtual environment in .venv: a fresh machine
# needs only Python 3.10+ and pip.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
READY  := $(VENV)/.ready

.PHONY: help venv test data bench clean

help:
	@echo "make test    run the test suite (what CI runs)"
	@echo "make data    write data/flip1d.h5 and data/flip2d.h5 (tables + original splits)"
	@echo "make bench   timings beside reference implementations, as ratios"
	@echo "make clean   remove the virtual environment, generated data and results"

$(READY): setup.cfg pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $@

venv: $(READY)

test: $(READY)
	FLIPNET_PROGRESS=0 $(BIN)/python -m pytest -q

data: data/flip1d.h5 data/flip2d.h5

data/flip1d.h5: flipnet/solve.py flipnet/splits.py flipnet/data.py | $(READY)
	$(BIN)/flipnet data --only 1d --out-dir data

data/flip2d.h5: flipnet/solve.py flipnet/splits.py flipnet/data.py | $(READY)
	$(BIN)/flipnet data --only 2d --out-dir data

bench: $(READY)
	$(BIN)/python -m flipnet.bench

clean:
	rm -rf $(VENV) data/*.h5 results .pytest_cache .hypothesis *.egg-info
