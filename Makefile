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

.PHONY: help venv test test-quick data data-large endgame endgame-large bench bench-large clean train-1d train-1d-fast \
        train-1d-fc train-1d-best train-2d train-2d-long train-2d-fast train-2d-logreg train-2d-conv \
        train-2d-xornet train-2d-xormem train-2d-lookup train-2d-featmem train-2d-convmem train-2d-convmem-wide \
        train-2d-convmem-deep train-2d-convmem-deep16 train-2d-convmem-deep48 train-2d-options train-2d-global \
        train-2d-canonical train-2d-batch256 train-2d-deep88 train-2d-deep12 train-2d-deep16-42 \
        train-2d-gated12 train-2d-gated12-distil train-2d-gated12-distil6m train-2d-gated12-distil6m-r2 \
        train-2d-distil-larger train-2d-two-cores \
        train-2d-gated16-42 train-2d-loop train-2d-loop-extra train-2d-loop-extra-wide train-2d-gated12-24 study-rounds \
        train-2d-sized50 train-2d-sized75 study-sized train-2d-blind train-2d-d4 train-2d-d4-wide train-2d-distil train-2d-best \
        beyond beyond-variants beyond-by-size train-nim train-es arena compare readme \
        compare-seeds compare-seeds-1d compare-seeds-2d compare-seeds-faithful-1d

help: ## this list
	@grep -hE '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | expand -t 28

$(READY): setup.cfg pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $@

venv: $(READY) ## create .venv and install flipnet with its test tools

# The suite on two processes, a test file each (pytest-xdist): a file's shared fixtures (the
# bad-input corpus, the trained convmem2d) are made once. TEST_WORKERS=0: one process.
TEST_WORKERS ?= 2
PYTEST = FLIPNET_PROGRESS=0 $(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile

test: $(READY) ## the whole test suite (what CI runs)
	$(PYTEST)

test-quick: $(READY) ## the tests not marked slow: a quick loop while editing
	$(PYTEST) -m "not slow"

data: data/flip1d.h5 data/flip2d.h5 ## the study's datasets: tables and original splits

data/flip1d.h5: | $(READY)
	$(FLIPNET) data --only flip1d --out-dir data

data/flip2d.h5: | $(READY)
	$(FLIPNET) data --only flip2d --out-dir data

data-large: data/flip6x6.h5 data/flip7x7.h5 ## random 6x6 and 7x7 positions valued by the Cram solver (stopped, it goes on from the last density valued)

data/flip6x6.h5 data/flip7x7.h5: | $(READY)
	$(FLIPNET) data --only $(basename $(notdir $@)) --out-dir data

endgame: $(READY) ## build the Cram solver's endgame database (once, in ~/.cache/flipnet)
	$(FLIPNET) endgame

endgame-large: $(READY) ## the 30-cell endgame database (3.5 GB, ~2 min) for 6x7 and larger
	$(FLIPNET) endgame --cells 30

bench: $(READY) ## timings beside reference implementations, as ratios (Cram boards up to 3x14)
	$(FLIPNET) bench --out results/bench.json

bench-large: $(READY) ## the Cram solver on 6x7 and 7x7, 30-cell database (hours: docs/cram.md)
	$(FLIPNET) bench --only cram-large --out results/bench-large.json

# Training runs resume from their checkpoint (results/NAME.ckpt.npz) when one exists: an
# interrupted `make train-...` continues where it stopped. Delete results/NAME.* to start
# over. Each target names a recipe of flipnet/nn/recipes.py (`flipnet train --list`).
TRAIN := $(FLIPNET) train --resume

train-1d: data/flip1d.h5 ## the paper's 1D conv net, its protocol (recipe conv1d)
	$(TRAIN) conv1d

train-1d-fast: data/flip1d.h5 ## the same net and split, a faster recipe (conv1d-fast)
	$(TRAIN) conv1d-fast

train-1d-fc: data/flip1d.h5 ## the paper's 1D dense comparison net (fc1d)
	$(TRAIN) fc1d

train-1d-best: data/flip1d.h5 ## beyond the paper, 1D: XOR of learnt run values (xornet1d)
	$(TRAIN) xornet1d

train-2d: data/flip2d.h5 ## the paper's 2D MLP, its protocol, 200 epochs (mlp2d)
	$(TRAIN) mlp2d

train-2d-long: data/flip2d.h5 ## the same protocol for 400 epochs (mlp2d-long)
	$(TRAIN) mlp2d-long

train-2d-fast: data/flip2d.h5 ## the same MLP and split, a faster recipe (mlp2d-fast)
	$(TRAIN) mlp2d-fast

train-2d-logreg: data/flip2d.h5 ## logistic regression, the paper's 2D protocol (logreg2d)
	$(TRAIN) logreg2d

train-2d-conv: data/flip2d.h5 ## the paper's conv block + MLP, fast schedule (convmlp2d)
	$(TRAIN) convmlp2d

train-2d-xornet: data/flip2d.h5 ## beyond the paper: XOR of learnt component values (xornet2d)
	$(TRAIN) xornet2d

train-2d-xormem: data/flip2d.h5 ## xornet2d with a memory of training shapes (xormem2d)
	$(TRAIN) xormem2d

train-2d-lookup: data/flip2d.h5 ## the no-learning baseline: shape values read from training labels
	$(TRAIN) lookup2d

train-2d-featmem: data/flip2d.h5 ## beyond the paper, size-free: a network on shape descriptions + memory
	$(TRAIN) featmem2d

train-2d-convmem: data/flip2d.h5 ## size-free: the lookup table + a masked convolution for new shapes
	$(TRAIN) convmem2d

train-2d-convmem-wide: data/flip2d.h5 ## convmem2d, 48 channels and 256 hidden units (tried, not kept)
	$(TRAIN) convmem2d-wide

train-2d-convmem-deep: data/flip2d.h5 ## convmem2d with 8 residual layers (convmem2d-deep)
	$(TRAIN) convmem2d-deep

train-2d-convmem-deep16: data/flip2d.h5 ## convmem2d with 16 residual layers (tried, not kept)
	$(TRAIN) convmem2d-deep16

train-2d-convmem-deep48: data/flip2d.h5 ## convmem2d-deep over 48 epochs instead of 24
	$(TRAIN) convmem2d-deep48

train-2d-distil: train-2d-convmem-deep ## convmem2d-deep taught its own 1-ply values of drawn shapes (not kept)
	$(TRAIN) convmem2d-distil

train-2d-options: data/flip2d.h5 ## convmem2d-deep48 also taught each cell's option values (tried, not kept)
	$(TRAIN) convmem2d-options

train-2d-global: data/flip2d.h5 ## convmem2d-deep48 whose layers also read the shape's mean and maximum (tried, not kept)
	$(TRAIN) convmem2d-global

train-2d-canonical: data/flip2d.h5 ## convmem2d-deep48 taught and read in each shape's canonical drawing only (tried, not kept)
	$(TRAIN) convmem2d-canonical

train-2d-batch256: data/flip2d.h5 ## convmem2d-deep48 with minibatches of 256 over 44 epochs (tried, not kept)
	$(TRAIN) convmem2d-batch256

train-2d-deep88: data/flip2d.h5 ## convmem2d-deep48 over 88 epochs, the faster step spent on epochs (tried, not kept)
	$(TRAIN) convmem2d-deep88

train-2d-deep12: data/flip2d.h5 ## convmem2d-deep48 with 12 residual layers over 56 epochs (kept before the gates)
	$(TRAIN) convmem2d-deep12

train-2d-deep16-42: data/flip2d.h5 ## convmem2d-deep12's layer-epochs as 16 residual layers over 42 epochs (tried, not kept)
	$(TRAIN) convmem2d-deep16-42

train-2d-gated12-distil: train-2d-gated12 ## convmem2d-gated12 taught its own 1-ply values of the new shapes of 2M random boards (tried, not kept)
	$(TRAIN) convmem2d-gated12-distil

train-2d-gated12-distil6m: train-2d-gated12 ## convmem2d-gated12-distil with the new shapes of 6M random boards (the best on one core)
	$(TRAIN) convmem2d-gated12-distil6m

train-2d-gated12-distil6m-r2: train-2d-gated12-distil6m ## convmem2d-gated12-distil6m's distillation again, from distil6m (over the hour; not kept)
	$(TRAIN) convmem2d-gated12-distil6m-r2

train-2d-distil-larger: train-2d-gated12-distil6m ## distil6m-r2 also taught 6x6 and 7x7 shapes by its own 1-ply mex (reads larger boards; not kept)
	$(TRAIN) convmem2d-gated12-distil-larger

train-2d-two-cores: data/flip2d.h5 ## convmem2d-gated12 over 80 epochs, then distil6m and a second round, each step on two processes (make train-2d-best)
	$(TRAIN) convmem2d-gated12-80
	$(TRAIN) convmem2d-gated12-80-distil6m
	$(TRAIN) convmem2d-gated12-80-distil6m-r2

train-2d-gated12: data/flip2d.h5 ## convmem2d-deep12 with residual gates that start at zero (kept before the distillation)
	$(TRAIN) convmem2d-gated12

train-2d-loop: data/flip2d.h5 ## convmem2d with a shared residual step taken more often for larger shapes (with its control: make -j2 train-2d-loop train-2d-gated12-24)
	$(TRAIN) convmem2d-loop

train-2d-loop-extra: data/flip2d.h5 ## convmem2d-loop taught to hold its answer over 0..4 extra steps, on both cores
	$(TRAIN) convmem2d-loop-extra

train-2d-loop-extra-wide: data/flip2d.h5 ## convmem2d-loop-extra with 48 channels, on both cores
	$(TRAIN) convmem2d-loop-extra-wide

train-2d-gated12-24: data/flip2d.h5 ## convmem2d-gated12 over 24 epochs: convmem2d-loop's control
	$(TRAIN) convmem2d-gated12-24

ROUNDS_STUDY := convmem2d-gated12-24 $(addprefix convmem2d-gated12-24-,more1 more2 round1 round2 round3 round4)
study-rounds: train-2d-gated12-24 data-large ## from convmem2d-gated12-24, four rounds of its own 1-ply values beside 8 and 16 epochs more, each network evaluated alone (docs/experiments.md; about 80 min on both cores after gated12-24)
	$(TRAIN) convmem2d-gated12-24-more1
	$(TRAIN) convmem2d-gated12-24-round1
	$(TRAIN) convmem2d-gated12-24-more2
	$(TRAIN) convmem2d-gated12-24-round2
	$(TRAIN) convmem2d-gated12-24-round3
	$(TRAIN) convmem2d-gated12-24-round4
	$(call evaluate,$(ROUNDS_STUDY),$(ROUNDS_STUDY),alone)

SIZED_STUDY := convmem2d-gated12-24-sized50 convmem2d-gated12-24-sized75
train-2d-sized50: data/flip2d.h5 ## convmem2d-gated12-24 with each epoch's shapes drawn by cell count, --size-balance 0.5
	$(TRAIN) convmem2d-gated12-24-sized50

train-2d-sized75: data/flip2d.h5 ## the same at --size-balance 0.75
	$(TRAIN) convmem2d-gated12-24-sized75

study-sized: train-2d-sized50 train-2d-sized75 data-large ## both, each evaluated alone on 5x5, 6x6 and 7x7, beside convmem2d-gated12-24 (docs/experiments.md; make -j2 trains them side by side, about 40 min)
	$(call evaluate,$(SIZED_STUDY),$(SIZED_STUDY),alone)

train-2d-blind: data/flip2d.h5 ## convmem2d-gated12-24 whose readout sees the mean and maximum over a shape's cells only, no size, on both cores
	$(TRAIN) convmem2d-gated12-24-blind

train-2d-gated16-42: data/flip2d.h5 ## convmem2d-deep16-42 with residual gates that start at zero (tried, not kept)
	$(TRAIN) convmem2d-gated16-42

train-2d-d4: data/flip2d.h5 ## convmem2d-deep48 with D4 group convolutions, 4 fields of 8 channels (tried, not kept)
	$(TRAIN) convmem2d-d4

train-2d-d4-wide: data/flip2d.h5 ## convmem2d-d4 with 6 fields of 8 channels over 26 epochs (tried, not kept)
	$(TRAIN) convmem2d-d4-wide

ENSEMBLE := results/xormem2d.npz --with results/featmem2d.npz
train-2d-best: train-2d-two-cores ## the best 2D model by validation: convmem2d-gated12-80-distil6m-r2 (docs/results.md)
	$(FLIPNET) evaluate results/convmem2d-gated12-80-distil6m-r2.npz --out results/eval-convmem2d-gated12-80-distil6m-r2-5x5.json

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

BEYOND_MODELS := lookup2d xormem2d featmem2d convmem2d convmem2d-deep convmem2d-deep48 convmem2d-deep12 \
        convmem2d-gated12 convmem2d-gated12-distil6m convmem2d-gated12-80-distil6m-r2
SIZE_FREE := lookup2d featmem2d convmem2d convmem2d-deep convmem2d-deep48 convmem2d-deep12 convmem2d-gated12 \
        convmem2d-gated12-distil6m convmem2d-gated12-80-distil6m-r2
beyond: data/flip2d.h5 data-large ## evaluate the component models -> results/eval-*.json
	$(call evaluate,$(BEYOND_MODELS),$(SIZE_FREE))
	$(FLIPNET) evaluate $(ENSEMBLE) --out results/eval-xormem2d+featmem2d-5x5.json
	$(FLIPNET) evaluate $(ENSEMBLE) --one-ply --out results/eval-xormem2d+featmem2d-5x5-1ply.json

# Where a network's error on the larger boards lies: its shapes larger than 5x5, valued exactly, by
# cells, beside guesses that know only the size (docs/experiments.md); each model needs its train target first.
BY_SIZE_MODELS ?= convmem2d-gated12-80-distil6m-r2
beyond-by-size: data-large ## the shapes larger than 5x5 of the 6x6 and 7x7 samples (d = 0.5) valued exactly, by cells: the network beside guesses by size (BY_SIZE_MODELS, default the best) -> results/bysize-beyond-*.json
	for m in $(BY_SIZE_MODELS); do for b in 6x6 7x7; do \
	  $(FLIPNET) by-size results/$$m.npz --beyond data/flip$$b.h5 --out results/bysize-beyond-$$m-$$b.json || exit 1; \
	done; done

# Variants of convmem2d tried and not kept (docs/experiments.md); each needs its train target first.
VARIANTS := convmem2d-wide convmem2d-deep16 convmem2d-distil convmem2d-options convmem2d-global \
            convmem2d-canonical convmem2d-batch256 convmem2d-d4 convmem2d-d4-wide convmem2d-deep88 \
            convmem2d-deep16-42 convmem2d-gated16-42 convmem2d-gated12-distil convmem2d-gated12-distil6m-r2 \
            convmem2d-gated12-distil-larger convmem2d-gated12-24 convmem2d-loop convmem2d-loop-extra \
            convmem2d-loop-extra-wide
beyond-variants: data/flip2d.h5 data-large ## evaluate the convmem2d variants not kept (-wide, -deep16, -distil, -options, -global, -canonical, -batch256, -d4, -d4-wide, -deep88, -deep16-42, -gated16-42, -gated12-distil, -gated12-distil6m-r2, -gated12-distil-larger, -gated12-24, -loop, -loop-extra, -loop-extra-wide), like `beyond`
	$(call evaluate,$(VARIANTS),$(VARIANTS))

train-nim: $(READY) ## the C++ NIM perceptron -> data/nimWeights.txt
	$(FLIPNET) train-nim --weights data/nimWeights.txt --results results/nim.json

train-es: results/es.json ## the misere Nim(5) evolution strategy -> results/es.json

results/es.json: | $(READY)
	$(FLIPNET) train-es --out results/es.json

arena: results/es.json ## the Nim agents, 100 matches per pair -> results/arena.json
	$(FLIPNET) arena nim --misere --matches 100 --seed 0 --out results/arena.json \
	    --agents random,lowest,nimsum,optimal,es,difficulty:0.5

compare: $(READY) ## the paper's claims beside results/*.json, with plots
	$(FLIPNET) compare

readme: $(READY) ## make compare, and rewrite the README's table and figures
	$(FLIPNET) compare --figures data/figures --readme README.md

# Recipes again over seeds 1..SEEDS, for the spread columns of `make compare`.
SEEDS ?= 3
compare-seeds: compare-seeds-1d compare-seeds-2d compare-seeds-faithful-1d ## all three below

compare-seeds-1d: data/flip1d.h5 ## conv1d-fast over seeds 1..SEEDS (3)
	for s in $$(seq 1 $(SEEDS)); do $(TRAIN) conv1d-fast --seed $$s --out conv1d-fast-seed$$s || exit 1; done

compare-seeds-2d: data/flip2d.h5 ## mlp2d-fast over seeds 1..SEEDS (3)
	for s in $$(seq 1 $(SEEDS)); do $(TRAIN) mlp2d-fast --seed $$s --out mlp2d-fast-seed$$s || exit 1; done

compare-seeds-faithful-1d: data/flip1d.h5 ## the paper's 1D protocol (conv1d) over seeds 1..5
	for s in 1 2 3 4 5; do $(TRAIN) conv1d --seed $$s --out conv1d-seed$$s || exit 1; done

clean: ## remove the virtual environment, generated data and results
	rm -rf $(VENV) data/*.h5 results .pytest_cache .hypothesis *.egg-info
