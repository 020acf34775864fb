# Every target builds and uses its own virtual environment in .venv: a fresh machine
# needs only Python 3.10+ with venv and pip. `make help` prints the lines marked `##`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
READY  := $(VENV)/.ready
FLIPNET := $(BIN)/flipnet

# One BLAS thread per run: at these batch sizes it is as fast as two (measured), leaves
# the other core free, and keeps float results identical from run to run.
export OPENBLAS_NUM_THREADS ?= 1

.PHONY: help venv test test-quick data data-large endgame endgame-large bench bench-large clean train \
        train-1d train-1d-fast train-1d-fc train-1d-best train-2d train-2d-long train-2d-fast train-2d-logreg \
        train-2d-conv train-2d-xornet train-2d-xormem train-2d-lookup train-2d-featmem train-2d-convmem \
        train-2d-best beyond beyond-by-size train-nim train-es arena models compare figures readme \
        compare-seeds compare-seeds-arena compare-seeds-nim compare-seeds-best beyond-seeds api-docs wheel screenshots \
        bench-workers bench-paint bench-peer $(ALIASES)

help:  # the targets a user starts from: those with a comment of two hashes
	@grep -hE '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | expand -t 28

# --no-compile: Python writes a module's bytecode when it is first imported, instead of pip
# compiling every module of SciPy, Matplotlib and the rest at install (16 s against 30 s).
$(READY): setup.cfg pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-compile -e '.[test]'
	touch $@

venv: $(READY) ## create .venv and install flipnet with its test tools

# The suite on two processes, a test file each (pytest-xdist), the longest files first
# (tests/conftest.py): a file's shared fixtures (the bad-input corpus, the trained
# convmem2d) are made once. TEST_WORKERS=0: one process. Its processes write the bytecode
# of what they import, as Python does unless told otherwise: a shell that sets
# PYTHONDONTWRITEBYTECODE would have each of the suite's hundreds of commands compile
# NumPy, PyTensor and the rest from source again (about 1.3 s more a process; the
# suite 6 min 29 s instead of 5 min 43 s on a fresh clone).
TEST_WORKERS ?= 2
PYTEST = PYTHONDONTWRITEBYTECODE= FLIPNET_PROGRESS=0 $(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder

test: $(READY) ## the whole test suite (what CI runs), with its slowest tests
	$(PYTEST) --durations=15

test-quick: $(READY) ## the tests not marked slow: a quick loop while editing
	$(PYTEST) -m "not slow"

# Beside the tables, the kernels of a first answer are compiled (flipnet/api/warm.py): the
# first `flipnet value` of a 5x7 board then loads them instead of compiling for half a minute.
data: | $(READY) ## the study's datasets: tables and original splits; the first answers' kernels compiled
	@$(BIN)/python -m flipnet.api.warm & warm=$$!; \
	    $(MAKE) --no-print-directory data/flip1d.h5 data/flip2d.h5 && wait $$warm

data/flip1d.h5: | $(READY)
	$(FLIPNET) data --only flip1d --out-dir data

data/flip2d.h5: | $(READY)
	$(FLIPNET) data --only flip2d --out-dir data

data-large: data/flip6x6.h5 data/flip7x7.h5 ## random 6x6 and 7x7 positions valued by the Cram solver on two cores (DATA_WORKERS=1: one; SCHEDULER=ADDRESS: on a Dask cluster; the same files; stopped, it goes on)

DATA_WORKERS ?= 2
data/flip6x6.h5 data/flip7x7.h5: | $(READY)
	$(FLIPNET) data --only $(basename $(notdir $@)) --out-dir data --workers $(DATA_WORKERS) \
	    $(if $(SCHEDULER),--scheduler $(SCHEDULER))

endgame: $(READY) ## build the Cram solver's endgame database (once, in ~/.cache/flipnet)
	$(FLIPNET) endgame

endgame-large: $(READY) ## the 30-cell endgame database (1.7 GB, about a minute) for 6x7 and larger
	$(FLIPNET) endgame --cells 30

bench: $(READY) ## timings beside reference implementations, as ratios (Cram boards up to 3x14; IGSOLVE=PATH: beside igsolve; AGAINST=PYTHON: beside another flipnet); the explorer's latency
	$(FLIPNET) bench --out results/bench.json $(if $(IGSOLVE),--igsolve $(IGSOLVE)) $(if $(AGAINST),--against $(AGAINST))
	$(FLIPNET) explore --bench 200

# the explorer in Chromium: a click to its answer painted, 5x5 and 7x7 (docs/explore.md; needs chromium)
bench-paint: $(READY)
	$(BIN)/python -m flipnet.explore.paint

bench-workers: $(READY) ## one search on 1, 2, ... workers up to the usable cores: 5x8, 4x11, 6x7 (minutes; BOARDS=5x8 for one)
	$(FLIPNET) bench --only cram-workers $(if $(BOARDS),--boards $(BOARDS)) $(if $(LIMIT),--limit $(LIMIT)) \
	    --out results/bench-workers.json

bench-large: $(READY) ## the Cram solver on boards of 39 to 57 cells, 30-cell database (hours: docs/cram.md; BOARDS=5x8,4x11 for some; LIMIT=900 s a command)
	$(FLIPNET) bench --only cram-large $(if $(BOARDS),--boards $(BOARDS)) $(if $(IGSOLVE),--igsolve $(IGSOLVE)) \
	    $(if $(LIMIT),--limit $(LIMIT)) --out results/bench-large.json

# flipnet beside igsolve at its best, 30 to 54 cells (IGSOLVE=PATH needed; an hour: docs/cram.md)
bench-peer: $(READY)
	$(FLIPNET) bench --only cram-peer $(if $(IGSOLVE),--igsolve $(IGSOLVE)) $(if $(BOARDS),--boards $(BOARDS)) \
	    $(if $(LIMIT),--limit $(LIMIT)) --out results/bench-peer.json

# Training runs resume from their checkpoint (results/NAME.ckpt.npz) when one exists: an
# interrupted `make train-...` continues where it stopped. Delete results/NAME.* to start
# over. Any recipe of flipnet/nn/training/recipes.py (`flipnet train --list`) trains by
# `make train RECIPE=NAME` or `make results/NAME.json`; the targets below name the main ones.
TRAIN := $(FLIPNET) train --resume
RECIPE ?=
# after training a model that ships (data/models/): is the new file the shipped one, bit for bit?
RETRAINED := $(FLIPNET) models --retrained

train: data ## any recipe: make train RECIPE=convmem2d-gated12 (flipnet train --list names them)
	@test -n "$(RECIPE)" || { echo "make train: name a recipe, e.g. make train RECIPE=conv1d (flipnet train --list)"; exit 2; }
	$(TRAIN) $(RECIPE)

results/%.json: | data
	$(TRAIN) $*

train-1d: data/flip1d.h5 ## the paper's 1D conv net, its protocol (recipe conv1d)
	$(TRAIN) conv1d
	$(RETRAINED) conv1d

train-1d-fast: data/flip1d.h5 ## the same net and split, a faster recipe (conv1d-fast)
	$(TRAIN) conv1d-fast
	$(RETRAINED) conv1d-fast

train-1d-fc: data/flip1d.h5 ## the paper's 1D dense comparison net (fc1d)
	$(TRAIN) fc1d

train-1d-best: data/flip1d.h5 ## beyond the paper, 1D: XOR of learnt run values (xornet1d)
	$(TRAIN) xornet1d
	$(RETRAINED) xornet1d

train-2d: data/flip2d.h5 ## the paper's 2D MLP, its protocol, 200 epochs (mlp2d)
	$(TRAIN) mlp2d
	$(RETRAINED) mlp2d

# the same protocol for 400 epochs (mlp2d-long; not in make help: make train RECIPE=mlp2d-long is the same)
train-2d-long: data/flip2d.h5
	$(TRAIN) mlp2d-long

train-2d-fast: data/flip2d.h5 ## the same MLP and split, a faster recipe (mlp2d-fast)
	$(TRAIN) mlp2d-fast
	$(RETRAINED) mlp2d-fast

train-2d-logreg: data/flip2d.h5 ## logistic regression, the paper's 2D protocol (logreg2d)
	$(TRAIN) logreg2d

train-2d-conv: data/flip2d.h5 ## the paper's conv block + MLP, fast schedule (convmlp2d)
	$(TRAIN) convmlp2d

train-2d-xornet: data/flip2d.h5 ## beyond the paper: XOR of learnt component values (xornet2d)
	$(TRAIN) xornet2d

train-2d-xormem: data/flip2d.h5 ## xornet2d with a memory of training shapes (xormem2d)
	$(TRAIN) xormem2d
	$(RETRAINED) xormem2d

train-2d-lookup: data/flip2d.h5 ## the no-learning baseline: shape values read from training labels
	$(TRAIN) lookup2d
	$(RETRAINED) lookup2d

train-2d-featmem: data/flip2d.h5 ## beyond the paper, size-free: a network on shape descriptions + memory
	$(TRAIN) featmem2d

train-2d-convmem: data/flip2d.h5 ## size-free: the lookup table + a masked convolution for new shapes
	$(TRAIN) convmem2d

# The best 2D model's three stages, each step on two processes (about an hour on two cores)
train-2d-best: data/flip2d.h5 ## the best 2D model by validation: convmem2d-gated12-80-distil6m-r2 (docs/results.md)
	$(TRAIN) convmem2d-gated12-80
	$(TRAIN) convmem2d-gated12-80-distil6m
	$(TRAIN) convmem2d-gated12-80-distil6m-r2
	$(FLIPNET) evaluate results/convmem2d-gated12-80-distil6m-r2.npz --out results/eval-convmem2d-gated12-80-distil6m-r2-5x5.json
	$(RETRAINED) convmem2d-gated12-80-distil6m-r2

# The intermediate steps the findings cite, by their older names (each is also `make train RECIPE=...`)
ALIASES := train-2d-convmem-deep train-2d-convmem-deep48 train-2d-deep12 train-2d-gated12 \
           train-2d-gated12-distil6m train-2d-two-cores
train-2d-convmem-deep: data/flip2d.h5
	$(TRAIN) convmem2d-deep
train-2d-convmem-deep48: data/flip2d.h5
	$(TRAIN) convmem2d-deep48
train-2d-deep12: data/flip2d.h5
	$(TRAIN) convmem2d-deep12
train-2d-gated12: data/flip2d.h5
	$(TRAIN) convmem2d-gated12
train-2d-gated12-distil6m: train-2d-gated12
	$(TRAIN) convmem2d-gated12-distil6m
train-2d-two-cores: data/flip2d.h5
	$(TRAIN) convmem2d-gated12-80
	$(TRAIN) convmem2d-gated12-80-distil6m
	$(TRAIN) convmem2d-gated12-80-distil6m-r2

# $(call evaluate,MODELS,BOARDS[,alone]): each model on the 5x5 test set and on the sampled
# larger BOARDS (only models that read any board), alone and, unless `alone` is given, with
# one ply of lookahead on the shapes it never met (on two processes: the same figures)
# -> results/eval-MODEL-BOARD[-1ply].json
define evaluate
	for m in $(1); do \
	  $(FLIPNET) evaluate results/$$m.npz --out results/eval-$$m-5x5.json || exit 1; \
	  $(if $(3),,$(FLIPNET) evaluate results/$$m.npz --one-ply --workers 2 --out results/eval-$$m-5x5-1ply.json || exit 1;) done
	for m in $(2); do for b in 6x6 7x7; do \
	  $(FLIPNET) evaluate results/$$m.npz --data data/flip$$b.h5 --out results/eval-$$m-$$b.json || exit 1; \
	  $(if $(3),,$(FLIPNET) evaluate results/$$m.npz --data data/flip$$b.h5 --one-ply --workers 2 --out results/eval-$$m-$$b-1ply.json \
	    || exit 1;) done; done
endef

ENSEMBLE := results/xormem2d.npz --with results/featmem2d.npz
BEYOND_MODELS := lookup2d xormem2d featmem2d convmem2d convmem2d-deep convmem2d-deep48 convmem2d-deep12 \
        convmem2d-gated12 convmem2d-gated12-distil6m convmem2d-gated12-80-distil6m-r2
SIZE_FREE := $(filter-out xormem2d,$(BEYOND_MODELS))
beyond: data/flip2d.h5 data-large ## evaluate the component models (each trained first) -> results/eval-*.json
	$(call evaluate,$(BEYOND_MODELS),$(SIZE_FREE))
	$(FLIPNET) evaluate $(ENSEMBLE) --out results/eval-xormem2d+featmem2d-5x5.json
	$(FLIPNET) evaluate $(ENSEMBLE) --one-ply --out results/eval-xormem2d+featmem2d-5x5-1ply.json

# Where a network's error on the larger boards lies: its shapes larger than 5x5, valued exactly, by
# cells, beside guesses by size (docs/findings.md); each model needs its train target first.
BY_SIZE_MODELS ?= convmem2d-gated12-80-distil6m-r2
beyond-by-size: data-large ## shapes larger than 5x5 of the 6x6 and 7x7 samples, valued exactly, by cells, beside guesses by size
	for m in $(BY_SIZE_MODELS); do for b in 6x6 7x7; do \
	  $(FLIPNET) by-size results/$$m.npz --beyond data/flip$$b.h5 --out results/bysize-beyond-$$m-$$b.json || exit 1; \
	done; done

train-nim: $(READY) ## the C++ NIM perceptron -> data/nimWeights.txt
	$(FLIPNET) train-nim --weights data/nimWeights.txt --results results/nim.json
	$(RETRAINED) nim

train-es: results/es.json ## the misere Nim(5) evolution strategy -> results/es.json
	$(RETRAINED) es

results/es.json: | $(READY)
	$(FLIPNET) train-es --out results/es.json

# The misere Nim(5) players against the course template's random player (random-row): the
# template's own players, the true misere strategy, the student's ES in both readings of its
# report, and flipnet's; as the student played them (100 matches, the player moving first)
# and as flipnet does (1,000, who starts alternating). docs/sources.md says which is which.
ARENA_COMMAND := arena nim --misere --against random-row
ARENA := $(FLIPNET) $(ARENA_COMMAND)
STUDENT_AGENTS := random-row,nonzero-nimsum,optimal,student-es,student-es:every-row
ARENA_AGENTS := $(STUDENT_AGENTS),feature-es,normal-nimsum,lowest,random,difficulty:0.5
arena: $(READY) ## the Nim agents against the template's random player -> results/arena.json, arena-student.json
	$(ARENA) --matches 1000 --seed 0 --out results/arena.json --agents $(ARENA_AGENTS)
	$(ARENA) --matches 100 --starts first --seed 0 --out results/arena-student.json --agents $(STUDENT_AGENTS)

models: $(READY) ## the trained models that ship (data/models/), with their figures
	$(FLIPNET) models

compare: $(READY) ## the paper's claims beside results/*.json (else the shipped results), with plots
	$(FLIPNET) compare

figures: $(READY) ## the figures of docs/findings.md (after make beyond and beyond-by-size) -> data/figures
	$(FLIPNET) compare --figures data/figures

readme: $(READY) ## make compare, and rewrite the README's table and figures
	$(FLIPNET) compare --figures data/figures --readme README.md

screenshots: $(READY) ## the explorer's pictures in data/figures/, taken by its browser tests
	FLIPNET_WRITE_SCREENSHOTS=1 $(BIN)/python -m pytest -q tests/test_explore_browser.py

api-docs: $(READY) ## docs/api.md from the public names' docstrings
	$(BIN)/python -m flipnet.api.reference docs/api.md

# The kernels are compiled afresh first (flipnet/base/kernels.py), so that the wheel carries
# them and only them: its first answers load compiled code on any x86-64-v3 machine with the
# same Python and Numba, and compile once elsewhere.
wheel: $(READY) ## dist/flipnet-VERSION-py3-none-any.whl, carrying the shipped models and results and its compiled kernels
	find flipnet -name __numba_cache__ -prune -exec rm -rf {} +
	$(BIN)/python -m flipnet.api.warm
	$(BIN)/python -m pip wheel --quiet --disable-pip-version-check --no-deps -w dist .

# The runs of other seeds that each measured row of `make compare` rests on beside its
# seed-2016 run (data/paper.json's "seeds"): 5 runs in all for a recipe under 10 minutes on
# one core, 3 for one under an hour, 2 for the best model's pipeline, and the arena over 5
# seeds. The training runs are tasks of `flipnet sweep` (docs/scale.md): on worker processes
# here, one a core, or on a Dask cluster with SCHEDULER=tcp://HOST:8786. Each run is a pair of
# files: an interrupted `make compare-seeds` goes on with the runs not written. The seconds the shipped seed runs record (each beside
# another run) add up to about 3.2 hours on the two cores, then the best model's seed-1
# pipeline 4 h 57 min and its evaluation 23 min (make data-large included); beyond-seeds'
# four xormem2d runs 1.7 hours of run time, about an hour two at a time.
SEEDS_5 := 1 2 3 4
SEEDS_3 := 1 2
SEEDED_5 := conv1d fc1d conv1d-fast xornet1d mlp2d-fast logreg2d convmlp2d
SEEDED_3 := mlp2d
seed_runs = $(foreach s,$(2),results/$(1)-seed$(s).json)
BEST := convmem2d-gated12-80-distil6m-r2
.PHONY: $(addprefix compare-seeds-,$(SEEDED_5) $(SEEDED_3) xormem2d)

SWEEP = $(FLIPNET) sweep $(if $(SCHEDULER),--scheduler $(SCHEDULER))
seed_range = $(firstword $(1))-$(lastword $(1))

compare-seeds: data ## every row's runs of other seeds, on every core or a cluster (SCHEDULER=ADDRESS; then make compare)
	$(SWEEP) $(SEEDED_5) --seeds $(call seed_range,$(SEEDS_5)) $(ARENA_SWEEP) $(NIM_SWEEP)
	$(SWEEP) $(SEEDED_3) --seeds $(call seed_range,$(SEEDS_3))
	$(MAKE) compare-seeds-best

define seeded_target
compare-seeds-$(1): $(call seed_runs,$(1),$(2))
results/$(1)-seed%.json: | data
	$$(TRAIN) $(1) --seed $$* --out $(1)-seed$$*
endef
$(foreach r,$(SEEDED_5),$(eval $(call seeded_target,$(r),$(SEEDS_5))))
$(foreach r,$(SEEDED_3),$(eval $(call seeded_target,$(r),$(SEEDS_3))))

# the arena's and the NIM perceptron's runs of each seed, as flipnet sweep --run takes them
ARENA_SWEEP = --run "$(ARENA_COMMAND) --matches 1000 --seed {seed} --out results/arena-seed{seed}.json \
    --agents $(ARENA_AGENTS)" --run "$(ARENA_COMMAND) --matches 100 --starts first --seed {seed} \
    --out results/arena-student-seed{seed}.json --agents $(STUDENT_AGENTS)"
NIM_SWEEP = --run "train-nim --seed {seed} --weights results/nim-seed{seed}.txt --results results/nim-seed{seed}.json"

compare-seeds-nim: | $(READY)
	$(SWEEP) --seeds $(call seed_range,$(SEEDS_5)) $(NIM_SWEEP)
results/nim-seed%.json: | $(READY)
	$(FLIPNET) train-nim --seed $* --weights results/nim-seed$*.txt --results $@

compare-seeds-arena: | $(READY)
	$(SWEEP) --seeds $(call seed_range,$(SEEDS_5)) $(ARENA_SWEEP)
results/arena-seed%.json: | $(READY)
	$(ARENA) --matches 1000 --seed $* --out $@ --agents $(ARENA_AGENTS)
results/arena-student-seed%.json: | $(READY)
	$(ARENA) --matches 100 --starts first --seed $* --out $@ --agents $(STUDENT_AGENTS)

# the best model's three stages again from seed 1, each from the last, then its evaluation
compare-seeds-best: results/eval-$(BEST)-seed1-5x5.json
results/eval-$(BEST)-seed%-5x5.json: | data
	$(TRAIN) convmem2d-gated12-80 --seed $* --out convmem2d-gated12-80-seed$*
	$(TRAIN) convmem2d-gated12-80-distil6m --seed $* --init results/convmem2d-gated12-80-seed$*.npz \
	    --out convmem2d-gated12-80-distil6m-seed$*
	$(TRAIN) $(BEST) --seed $* --init results/convmem2d-gated12-80-distil6m-seed$*.npz --out $(BEST)-seed$*
	$(FLIPNET) evaluate results/$(BEST)-seed$*.npz --out $@

# the beyond table's trained models again from other seeds (report/beyond.py's SEEDS), each
# evaluated as `make beyond` does: xormem2d from seeds 1 to 4, the best model's seed-1 pipeline
XORMEM_SEEDS := $(foreach s,$(SEEDS_5),results/eval-xormem2d-seed$(s)-5x5-1ply.json)
beyond-seeds: data ## the beyond table's runs of other seeds, evaluated (SCHEDULER=ADDRESS: trained on a cluster)
	$(SWEEP) xormem2d --seeds $(call seed_range,$(SEEDS_5))
	$(MAKE) -j2 $(XORMEM_SEEDS)
	$(MAKE) results/eval-$(BEST)-seed1-7x7-1ply.json

$(eval $(call seeded_target,xormem2d,$(SEEDS_5)))
results/eval-xormem2d-seed%-5x5-1ply.json: results/xormem2d-seed%.json
	$(call evaluate,xormem2d-seed$*,)

results/eval-$(BEST)-seed%-7x7-1ply.json: results/eval-$(BEST)-seed%-5x5.json | data-large
	$(FLIPNET) evaluate results/$(BEST)-seed$*.npz --one-ply --workers 2 --out results/eval-$(BEST)-seed$*-5x5-1ply.json
	$(call evaluate,,$(BEST)-seed$*)

clean: ## remove the virtual environment, generated data and results
	rm -rf $(VENV) data/*.h5 results .pytest_cache .hypothesis *.egg-info .numba-tests
