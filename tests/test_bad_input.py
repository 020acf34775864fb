"""A corpus of bad inputs, each through the `flipnet` command in a process of its own (its
own working directory, a memory limit, a time limit; some with a file size limit standing
in for a full disk), forked from a server that has flipnet loaded, and some also through
a fresh `python -m flipnet` to hold the forked runs to it. Every one must end with exit
status 2, at most two lines on stderr (the one-line message, and a progress bar's line
where one was drawn), no traceback, the expected message, and no file left behind: no
partial output, no temporary file.
"""

import json
import queue
import sys
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import h5py
import numpy as np
import pytest
from cli_cases import CommandServer, environment, files_in, run, stderr_lines
from conftest import write_tiny_dataset

F = "{files}"  # the fixture directory, filled in when a case runs
# A training case that reaches its graphs: compiled with the Python linker, not a Numba
# compile of a graph no other test needs (and under a file size limit, Numba's linker
# cannot write the source it generates, long before the command writes its own files).
PYTHON_LINKER = {"python_linker": True}
FULL_7X9 = "/".join(["1" * 9] * 7)

# (id, command line, text the message must contain, options)
CASES = [
    # the command line itself
    ("no-command", [], "the following arguments are required: command"),
    ("unknown-command", ["frobnicate"], "invalid choice: 'frobnicate'"),
    ("unknown-flag", ["value", "flip", "11", "--colour"], "unrecognized arguments: --colour"),
    # solve
    ("solve-unknown-game", ["solve", "chess", "--shape", "2x2"], "invalid choice: 'chess'"),
    ("solve-bad-shape", ["solve", "flip", "--shape", "5by5"], "bad shape '5by5'"),
    ("solve-zero-shape", ["solve", "flip", "--shape", "0x5"], "bad shape '0x5'"),
    ("solve-negative-shape", ["solve", "flip", "--shape=-3x3"], "bad shape '-3x3'"),
    ("solve-too-big", ["solve", "flip", "--shape", "6x6"], "tables stop at 30 cells"),
    ("solve-huge", ["solve", "flip", "--shape", "3000x3000"], "a 3000x3000 board has 9000000 cells; tables stop at 30"),
    ("solve-huger", ["solve", "flip", "--shape", "99999999999999999999x2"], "tables stop at 30 cells"),
    ("solve-threads-0", ["solve", "flip", "--shape", "3x3", "--threads", "0"], "--threads must be at least 1, got 0"),
    ("solve-threads-negative", ["solve", "flip", "--shape", "3x3", "--threads", "-2"], "--threads must be at least 1"),
    ("solve-threads-text", ["solve", "flip", "--shape", "3x3", "--threads", "many"], "invalid int value: 'many'"),
    ("solve-missing-parent", ["solve", "flip", "--shape", "2x2", "-o", "/nonexistent/dir/x.h5"],
     "directory /nonexistent/dir does not exist"),
    ("solve-parent-is-file", ["solve", "flip", "--shape", "2x2", "-o", "/dev/null/x.h5"], "/dev/null is not a directory"),
    ("solve-output-is-dir", ["solve", "flip", "--shape", "2x2", "-o", "."], "it is a directory"),
    ("solve-max-take-0", ["solve", "gridnim", "--shape", "3x3", "--max-take", "0"], "--max-take must be from 1 to 3"),
    ("solve-disk-full", ["solve", "flip", "--shape", "4x5", "-o", "t.h5"], "cannot write t.h5: File too large",
     {"file_size": 1 << 20}),
    # value
    ("value-bad-char", ["value", "flip", "11x1"], "bad character 'x' at position 3"),
    ("value-ragged", ["value", "flip", "111/11"], "row 2 has 2 cells but row 1 has 3"),
    ("value-empty", ["value", "flip", ""], "empty position"),
    ("value-slash", ["value", "flip", "/"], "empty position"),
    ("value-huge-board", ["value", "flip", "1" * 5000], "boards stop at 4096 cells"),
    ("value-wide-component", ["value", "flip", "/".join(["1" * 43] * 3)], "spans 3x43"),
    ("value-wide-from", ["value", "flip", FULL_7X9, "--no-moves"], "FLIPNET_WIDE_FROM='x' is not a whole number",
     {"env": {"FLIPNET_WIDE_FROM": "x"}}),
    ("value-timeout", ["value", "flip", FULL_7X9, "--no-moves", "--timeout", "1"], "no answer within --timeout 1 s"),
    ("value-scheduler-alone", ["value", "flip", FULL_7X9, "--scheduler", "tcp://127.0.0.1:9"],
     "--scheduler is for the pieces of a solve: give --pieces too"),
    ("value-piece-checkpoints-alone", ["value", "flip", FULL_7X9, "--piece-checkpoints", "p"],
     "--piece-checkpoints is for the pieces of a solve: give --pieces too"),
    ("value-piece-checkpoints-missing-parent", ["value", "flip", FULL_7X9, "--pieces", "--scheduler",
                                                "tcp://127.0.0.1:9", "--piece-checkpoints", "/nonexistent/dir/p"],
     "directory /nonexistent/dir does not exist"),
    ("value-piece-checkpoints-here", ["value", "flip", FULL_7X9, "--pieces", "--piece-checkpoints", "p"],
     "--piece-checkpoints is for the pieces on a cluster (--scheduler): here the pieces keep their facts in "
     "--checkpoint FILE"),
    ("value-status-alone", ["value", "flip", "--status"], "--status reads a checkpoint: give --checkpoint FILE"),
    ("value-status-missing", ["value", "flip", "--status", "--checkpoint", "none.ckpt"],
     "checkpoint none.ckpt: no such file"),
    ("value-status-directory", ["value", "flip", "--status", "--checkpoint", "."], ". is a directory"),
    ("value-status-garbage", ["value", "flip", "--status", "--checkpoint", F + "/runs/garbage.ckpt.npz"],
     "garbage.ckpt.npz is damaged (BadZipFile)"),
    ("value-status-bad-board", ["value", "flip", "1x1", "--status", "--checkpoint", "c"], "bad character 'x'"),
    ("value-status-pieces", ["value", "flip", FULL_7X9, "--status", "--pieces", "--checkpoint", "c"],
     "--status reads one checkpoint and searches nothing"),
    ("value-pieces-list", ["value", "flip", "--file", "none.txt", "--pieces"], "--pieces splits the search of one position; give one, not a list"),
    ("value-pieces-timeout", ["value", "flip", FULL_7X9, "--pieces", "--timeout", "5"],
     "--timeout limits one search; --pieces runs many"),
    ("value-pieces-nim", ["value", "nim", "1,2", "--pieces"], "--pieces splits a flip position in normal play"),
    ("value-pieces-bad-address", ["value", "flip", FULL_7X9, "--pieces", "--scheduler", "tcp://host:port"],
     "--scheduler tcp://host:port: not an address of a Dask scheduler"),
    ("value-sets-up-to", ["value", "flip", FULL_7X9, "--no-moves"], "FLIPNET_SETS_UP_TO='x' is not a whole number",
     {"env": {"FLIPNET_SETS_UP_TO": "x"}}),
    ("value-memory-limit", ["value", "flip", FULL_7X9, "--no-moves"], "FLIPNET_MEMORY_LIMIT='8Q': give bytes",
     {"env": {"FLIPNET_MEMORY_LIMIT": "8Q"}}),
    ("value-timeout-no-endgame", ["value", "flip", FULL_7X9, "--timeout", "1"],
     "without the endgame database, which is not built yet: `flipnet endgame` builds it once",
     {"env": {"FLIPNET_CACHE": "/nonexistent/flipnet-cache", "FLIPNET_ENDGAME": "on"}}),
    ("value-mcgs-bad-grid", ["value", "flip", "--file", F + "/bad.test"],
     "bad.test line 3: '..|.X' has 'X': a grid of impartial domineering holds"),
    ("value-mcgs-nothing", ["value", "flip", "--file", F + "/empty.test"], "no {N} command of an [impartial domineering]"),
    ("value-mcgs-json", ["value", "flip", "11/11", "--format", "mcgs", "--json"], "--format mcgs writes a .test file"),
    ("value-mcgs-nim", ["value", "nim", "1,2", "--format", "mcgs"], "--format mcgs reads and writes Cram"),
    ("value-timeout-zero", ["value", "flip", "11", "--timeout", "0"], "timeout must be a positive number"),
    ("value-timeout-nan", ["value", "flip", "11", "--timeout", "nan"], "timeout must be a positive number"),
    ("value-nim-negative", ["value", "nim", "1,-2"], "heap 2 is negative"),
    ("value-nim-empty-heap", ["value", "nim", "1,,3"], "heap 2 is '', not a number"),
    ("value-nim-float", ["value", "nim", "1e9"], "heap 1 is '1e9', not a number"),
    ("value-nim-unicode", ["value", "nim", "1,²"], "heap 2 is '²', not a number"),
    ("value-nim-digits", ["value", "nim", "9" * 5000], "heaps stop at 4000"),
    ("value-nim-heaps", ["value", "nim", ",".join(["1"] * 10001)], "positions stop at 10000 heaps"),
    ("value-halfnim-word", ["value", "halfnim", "zero"], "not 'zero'"),
    ("value-halfnim-zero", ["value", "halfnim", "0"], "a pile holds at least 1 block"),
    ("value-gridnim-big", ["value", "gridnim", "/".join(["1111"] * 8)], "32 full cells is above the limit of 30"),
    ("value-misere-big", ["value", "flip", "/".join(["111111"] * 6), "--misere"],
     "36 full cells is above the limit of 30"),
    # data
    ("data-parent-is-file", ["data", "--out-dir", "/dev/null/d"], "/dev/null is not a directory"),
    ("data-missing-parent", ["data", "--out-dir", "/nonexistent/a/b"], "directory /nonexistent/a does not exist"),
    ("data-huge-seed", ["data", "--seed", "9" * 30], "--seed must be from 0 to 2^63 - 1"),
    ("data-negative-seed", ["data", "--seed", "-1"], "--seed must be from 0 to 2^63 - 1"),
    ("data-unknown", ["data", "--only", "flip9d"], "unknown dataset 'flip9d'"),
    ("data-disk-full", ["data", "--only", "flip1d", "--out-dir", "."], "cannot write flip1d.h5: File too large",
     {"file_size": 1 << 20}),
    # train: settings
    ("train-no-recipe", ["train"], "name a recipe"),
    ("train-unknown", ["train", "nope"], "unknown recipe 'nope'"),
    ("train-lr-negative", ["train", "conv1d", "--lr", "-1"], "--lr must be a positive finite number, got -1.0"),
    ("train-lr-inf", ["train", "conv1d", "--lr", "inf"], "--lr must be a positive finite number, got inf"),
    ("train-lr-nan", ["train", "conv1d", "--lr", "nan"], "--lr must be a positive finite number, got nan"),
    ("train-momentum", ["train", "conv1d", "--momentum", "2"], "--momentum must be in [0, 1), got 2.0"),
    ("train-epochs-0", ["train", "conv1d", "--epochs", "0"], "--epochs must be at least 1, got 0"),
    ("train-epochs-huge", ["train", "conv1d", "--epochs", "99999999999"], "--epochs must be at most 1000000"),
    ("train-epochs-text", ["train", "conv1d", "--epochs", "ten"], "invalid int value: 'ten'"),
    ("train-batch-0", ["train", "conv1d", "--batch", "0"], "--batch must be at least 1, got 0"),
    ("train-seed-negative", ["train", "conv1d", "--seed", "-1"], "--seed must be at least 0, got -1"),
    ("train-seed-huge", ["train", "conv1d", "--seed", "9" * 25], "--seed must be at most"),
    ("train-out-path", ["train", "conv1d", "--out", "../../etc/evil"], "--out must be a plain run name"),
    ("train-out-empty", ["train", "conv1d", "--out", ""], "--out must be a plain run name"),
    ("train-threshold", ["train", "mlp2d", "--improvement-threshold", "2"], "--improvement-threshold must be in (0, 1]"),
    ("train-eval-batch", ["train", "mlp2d", "--eval-batch", "-1"], "--eval-batch must be at least 0"),
    ("train-validate-every", ["train", "mlp2d", "--validate-every", "-3"], "--validate-every must be at least 0"),
    ("train-decay-inf", ["train", "mlp2d", "--weight-decay", "inf"], "--weight-decay must be a finite number"),
    ("train-channels-fixed", ["train", "mlp2d", "--channels", "8", "--hidden", "3"],
     "--channels, --hidden: only convmem2d takes its size from settings; mlp2d's is fixed"),
    ("train-layers-huge", ["train", "convmem2d", "--layers", "99"], "--layers must be in 0..32, got 99"),
    ("train-draw-no-init", ["train", "convmem2d", "--draw", "100"],
     "--draw needs --init: the drawn shapes are valued by that model's 1-ply mex"),
    ("train-draw-huge", ["train", "convmem2d-gated12-distil6m", "--draw", "99999999"], "--draw must be in 0..16777216, got 99999999"),
    # sweep: what it is given, checked before any task
    ("sweep-seed", ["sweep", "conv1d", "--seeds", "1", "--seed", "3"], "a sweep takes its seeds from --seeds, not --seed"),
    ("sweep-results-dir-missing", ["sweep", "conv1d", "--seeds", "1", "--results-dir", "/nonexistent/x"],
     "directory /nonexistent does not exist"),
    ("sweep-run-outside", ["sweep", "--seeds", "1", "--run", "arena nim --seed {seed} --out /tmp/a{seed}.json"],
     "--run's output /tmp/a{seed}.json: a sweep's --run writes under the directory it runs in"),
    ("sweep-seeds-backwards", ["sweep", "conv1d", "--seeds", "2-1"], "--seeds: 2-1 runs backwards"),
    ("sweep-seeds-text", ["sweep", "conv1d", "--seeds", "1-x"], "--seeds: cannot read '1-x'"),
    ("sweep-address", ["sweep", "conv1d", "--seeds", "1", "--scheduler", "foo"], "--scheduler foo: not an address"),
    ("sweep-jobs-0", ["sweep", "conv1d", "--seeds", "1", "--jobs", "0"], "--jobs must be in 1..1024, got 0"),
    ("sweep-out-of-two", ["sweep", "conv1d", "fc1d", "--seeds", "1", "--out", "x"], "--out names the runs of one recipe"),
    ("sweep-unknown", ["sweep", "nope", "--seeds", "1"], "unknown recipe 'nope'"),
    ("sweep-nothing", ["sweep", "--seeds", "1"], "name recipes (flipnet sweep conv1d fc1d --seeds 1-5) or give --run"),
    ("sweep-run-no-seed", ["sweep", "--seeds", "1", "--run", "arena nim --out results/a.json"], "put {seed} where"),
    ("sweep-run-no-out", ["sweep", "--seeds", "1", "--run", "arena nim --seed {seed}"], "name what each run writes"),
    ("sweep-run-one-file", ["sweep", "--seeds", "1", "--run", "arena nim --seed {seed} --out a.json"],
     "output a.json has no {seed}"),
    ("sweep-run-flags", ["sweep", "--seeds", "1", "--run", "arena nim --seed {seed} -o a{seed}", "--epochs", "3"],
     "training flags go with recipes"),
    ("sweep-run-unknown", ["sweep", "--seeds", "1", "--run", "x {seed} -o a{seed}"],
     "--run 'x {seed} -o a{seed}': flipnet: error: argument command: invalid choice: 'x'"),
    ("train-workers-0", ["train", "convmem2d", "--workers", "0"], "--workers must be in 1..8, got 0"),
    ("train-workers-huge", ["train", "convmem2d", "--workers", "9"], "--workers must be in 1..8, got 9"),
    ("train-workers-model", ["train", "mlp2d", "--workers", "2"],
     "--workers is a setting of convmem2d, not of mlp2d"),
    ("train-init-fixed", ["train", "mlp2d", "--init", "x.npz"],
     "--init and --draw are settings of convmem2d, not of mlp2d"),
    ("train-init-missing", ["train", "convmem2d", "--init", "nowhere.npz"], "model file nowhere.npz not found"),
    ("train-residual-gates-fixed", ["train", "mlp2d", "--residual-gates"],
     "--residual-gates is a setting of convmem2d, not of mlp2d"),
    ("train-removed-setting", ["train", "convmem2d", "--loop-steps", "2"], "unrecognized arguments: --loop-steps 2"),
    ("train-optimizer", ["train", "conv1d", "--optimizer", "rmsprop"], "invalid choice: 'rmsprop'"),
    ("train-float16", ["train", "conv1d"], "FLIPNET_FLOAT must be float32 or float64, got 'float16'",
     {"env": {"FLIPNET_FLOAT": "float16"}}),
    # train: data
    ("train-missing-data", ["train", "conv1d", "--data", "/nonexistent.h5"], "/nonexistent.h5 not found"),
    ("train-text-data", ["train", "conv1d", "--data", F + "/text.h5"], "is not a readable HDF5 file"),
    ("train-truncated-data", ["train", "conv1d", "--data", F + "/truncated.h5"], "is not a readable HDF5 file"),
    ("train-2d-on-strings", ["train", "mlp2d", "--data", F + "/tiny1d.h5", "--bucket", "0"],
     "mlp2d reads 2D boards, not one row of 8 cells"),
    ("train-1d-on-boards", ["train", "conv1d", "--data", F + "/tiny2d.h5", "--bucket", "0"],
     "conv1d reads one row of cells, not 3 rows"),
    ("train-bucket-255", ["train", "conv1d", "--data", F + "/bucket255.h5", "--bucket", "0"],
     "splits/original/bucket holds 255; bucket numbers are 0..0"),
    ("train-negative-labels", ["train", "conv1d", "--data", F + "/negative.h5", "--bucket", "0"],
     "/nim_value holds -1; values are 0 or more"),
    ("train-part-7", ["train", "conv1d", "--data", F + "/part7.h5", "--bucket", "0"], "holds 7; parts (0 train"),
    ("train-labels", ["train", "conv1d", "--data", F + "/labels200.h5", "--bucket", "0"],
     "has nim-value 200; model conv1d has 7 classes"),
    ("train-bucket", ["train", "conv1d", "--data", F + "/tiny1d.h5", "--bucket", "12"], "bucket 12 does not exist"),
    ("train-no-split", ["train", "conv1d", "--data", F + "/nosplit.h5", "--bucket", "0"], "has no split 'original'"),
    ("train-results-dir-file", ["train", "conv1d", "--data", F + "/tiny1d.h5", "--bucket", "0",
                                "--results-dir", "/dev/null/r"], "/dev/null is not a directory"),
    ("train-results-dir-missing", ["train", "conv1d", "--data", F + "/tiny1d.h5", "--bucket", "0",
                                   "--results-dir", "/nonexistent/a/r"], "directory /nonexistent/a does not exist"),
    ("train-exists", ["train", "conv1d", "--data", F + "/tiny1d.h5", "--bucket", "0", "--results-dir", F + "/runs",
                      "--out", "done"], "done.json exists: pass --resume to continue that run or --overwrite"),
    ("train-resume-garbage", ["train", "conv1d", "--data", F + "/tiny1d.h5", "--bucket", "0",
                              "--results-dir", F + "/runs", "--out", "garbage", "--resume"],
     "garbage.ckpt.npz is not a flipnet checkpoint (truncated or corrupt?)"),
    ("train-diverges", ["train", "conv1d", "--data", F + "/tiny1d.h5", "--bucket", "0", "--lr", "1e30",
                        "--epochs", "50", "--batch", "10", "--eval-batch", "0", "--results-dir", "r"], "training diverged in epoch",
     PYTHON_LINKER),
    # evaluate and predict
    ("evaluate-missing", ["evaluate", "/nonexistent.npz"], "model file /nonexistent.npz not found"),
    ("evaluate-dir", ["evaluate", "."], "model file . is not a file"),
    ("evaluate-workers-0", ["evaluate", "x.npz", "--one-ply", "--workers", "0"], "--workers must be in 1..8, got 0"),
    ("evaluate-workers-huge", ["evaluate", "x.npz", "--workers", "9"], "--workers must be in 1..8, got 9"),
    ("evaluate-garbage", ["evaluate", F + "/garbage.npz"], "is not a flipnet model file (not an .npz archive)"),
    ("evaluate-truncated", ["evaluate", F + "/truncated.npz"], "is not a flipnet model file (truncated or corrupt?)"),
    ("evaluate-pickle", ["evaluate", F + "/pickle.npz"], "is not a flipnet model file (it holds Python objects)"),
    ("evaluate-nan", ["evaluate", F + "/nan.npz"], "holds values that are not finite"),
    ("evaluate-no-meta", ["evaluate", F + "/nometa.npz"], "is not a flipnet model file (no __meta__ entry)"),
    ("evaluate-unknown-model", ["evaluate", F + "/unknown.npz"], "cannot rebuild its model: unknown model 'nope'"),
    ("evaluate-no-data", ["evaluate", F + "/nodata.npz"], "does not say which dataset it was trained on"),
    ("evaluate-bucket-255", ["evaluate", F + "/model.npz", "--data", F + "/bucket255.h5"],
     "splits/original/bucket holds 255"),
    ("evaluate-labels", ["evaluate", F + "/model.npz", "--data", F + "/labels200.h5"],
     "has nim-value 200; model conv1d has 7 classes"),
    ("evaluate-other-board", ["evaluate", F + "/model.npz", "--data", F + "/tiny2d.h5"],
     "holds 3x4 boards; the model reads 1x8"),
    ("evaluate-bucket", ["evaluate", F + "/model.npz", "--bucket", "99"], "bucket 99 does not exist"),
    ("evaluate-with-missing", ["evaluate", F + "/model.npz", "--with", "/nonexistent.npz"],
     "model file /nonexistent.npz not found"),
    ("evaluate-with-not-components", ["evaluate", F + "/model.npz", "--with", F + "/model.npz"],
     "does not value components with a network"),
    ("by-size-missing", ["by-size", "/nonexistent.npz"], "model file /nonexistent.npz not found"),
    ("by-size-not-convmem", ["by-size", F + "/model.npz"],
     "errors by size read a convmem2d model (a table and a network); conv1d is not one"),
    ("by-size-sample", ["by-size", F + "/model.npz", "--sample", "0"], "--sample must be at least 1, got 0"),
    ("by-size-out", ["by-size", F + "/model.npz", "--out", "/dev/null/x.json"], "/dev/null is not a directory"),
    ("predict-length", ["predict", F + "/model.npz", "1111"], "position has 4 cells, expected 8"),
    ("predict-char", ["predict", F + "/model.npz", "11x11111"], "bad character 'x' at position 3"),
    ("predict-missing", ["predict", "/nonexistent.npz", "1111"], "model file /nonexistent.npz not found"),
    ("predict-nan", ["predict", F + "/nan.npz", "11111111"], "holds values that are not finite"),
    ("predict-unknown-name", ["predict", "nosuchmodel", "1111"],
     "no model named 'nosuchmodel' in results/ and none ships by that name"),
    ("by-size-unknown-name", ["by-size", "bestest"], "no model named 'bestest'"),
    ("evaluate-with-unknown-name", ["evaluate", F + "/model.npz", "--with", "nosuch"], "no model named 'nosuch'"),
    ("play-network-unknown", ["play", "flip", "--ai", "network:nosuch"], "no model named 'nosuch'"),
    ("play-network-halfnim", ["play", "halfnim", "--ai", "network", "--start", "9"],
     "the network agent plays flip only, not halfnim"),
    ("play-network-other-board", ["play", "flip", "--shape", "1x8", "--ai", "network:" + F + "/model7.npz"],
     "the network reads 1x7 boards, not 1x8"),
    ("models-retrained-unknown", ["models", "--retrained", "nosuch"], "nosuch does not ship"),
    ("models-retrained-untrained", ["models", "--retrained", "xornet1d"], "results/xornet1d.npz not found"),
    ("models-ship-unknown", ["models", "--ship", "nosuch"], "nosuch is not a model of record that ships"),
    # the NIM perceptron
    ("train-nim-epochs", ["train-nim", "--epochs", "0"], "--epochs must be from 1 to 1000000"),
    ("train-nim-weights-dir", ["train-nim", "--weights", "/nonexistent/d/w.txt"], "directory /nonexistent/d does not exist"),
    ("train-nim-results", ["train-nim", "--weights", "w.txt", "--results", "/dev/null/x.json"], "/dev/null is not a directory"),
    ("train-nim-seed", ["train-nim", "--seed", "-4"], "--seed must be from 0 to 2^63 - 1"),
    ("train-nim-resume-garbage", ["train-nim", "--weights", "w.txt", "--results", F + "/nimruns/r.json", "--resume"],
     "r.ckpt.npz is not a flipnet checkpoint"),
    ("train-nim-disk-full", ["train-nim", "--epochs", "10", "--weights", "w.txt", "--results", "r.json"],
     "File too large (writing PyTensor's generated code in", {"file_size": 64}),
    ("survey-one-number", ["survey-nim", "--seeds", "7"], "--seeds must be FROM:TO (two integers)"),
    ("survey-backwards", ["survey-nim", "--seeds", "5:2"], "0 <= FROM < TO"),
    ("survey-negative", ["survey-nim", "--seeds=-5:3"], "0 <= FROM < TO"),
    ("survey-huge", ["survey-nim", "--seeds", "0:100000000"], "a survey takes at most 100000"),
    ("survey-epochs", ["survey-nim", "--epochs", "0"], "--epochs must be from 1 to 1000000"),
    ("survey-out-dir", ["survey-nim", "--seeds", "0:2", "--out", "/nonexistent/d/x.json"],
     "directory /nonexistent/d does not exist"),
    ("survey-resume-garbage", ["survey-nim", "--seeds", "0:2", "--out", F + "/garbage.json", "--resume"],
     "not valid JSON"),
    # play and gui
    ("play-start-big", ["play", "halfnim", "--start", "500"], "a game starts from 2 to 127 blocks, not 500"),
    ("play-start-word", ["play", "halfnim", "--start", "abc"], "not 'abc'"),
    ("play-weights-short", ["play", "halfnim", "--weights", F + "/short.txt", "--start", "9"], "too few numbers, 3 of 210"),
    ("play-weights-nan", ["play", "halfnim", "--weights", F + "/nanweights.txt", "--start", "9"],
     "line 1: 'nan' is not a finite number"),
    ("play-weights-word", ["play", "halfnim", "--weights", F + "/wordweights.txt", "--start", "9"],
     "line 2: 'x' is not a number"),
    ("play-weights-binary", ["play", "halfnim", "--weights", F + "/binary.txt", "--start", "9"],
     "binary.txt is not text: byte 0xff at line 2 (byte 9) is not UTF-8"),
    ("play-weights-missing", ["play", "halfnim", "--weights", "/nonexistent.txt", "--start", "9"],
     "weights file /nonexistent.txt not found"),
    ("play-board-huge", ["play", "flip", "--shape", "3000x3000"], "boards stop at 4096 cells"),
    ("play-board-8x8", ["play", "flip", "--shape", "8x8"], "a 8x8 board has 64 cells; a player that needs exact"),
    ("play-unknown-ai", ["play", "flip", "--ai", "wizard"], "unknown agent 'wizard'"),
    ("play-nim-heap-word", ["play", "nim", "--heaps", "1,x"], "heap 2 is 'x'"),
    ("play-nim-too-big", ["play", "nim", "--heaps", "99999999,9999999", "--ai", "random"],
     "games are played with at most 1000"),
    ("gui-start", ["gui", "halfnim", "--start", "500"], "a game starts from 2 to 127 blocks"),
    ("gui-no-display", ["gui", "halfnim"], "cannot open a window", {"env": {"DISPLAY": ""}}),
    # arena and the evolution strategy
    ("arena-one-agent", ["arena", "nim", "--agents", "random"], "at least two different agents"),
    ("arena-unknown-agent", ["arena", "nim", "--agents", "random,wizard"], "unknown agent 'wizard'"),
    ("arena-wrong-game", ["arena", "flip", "--agents", "random,lowest"], "the lowest agent plays nim only, not flip"),
    ("arena-matches-0", ["arena", "nim", "--agents", "random,optimal", "--matches", "0"], "--matches must be from 1"),
    ("arena-matches-negative", ["arena", "nim", "--agents", "random,optimal", "--matches", "-5"], "--matches must be from 1"),
    ("arena-matches-huge", ["arena", "nim", "--agents", "random,optimal", "--matches", "10000000000"],
     "--matches must be from 1 to 1000000"),
    ("arena-board-8x8", ["arena", "flip", "--shape", "8x8", "--agents", "random,optimal"], "a 8x8 board has 64 cells"),
    ("arena-es-missing", ["arena", "nim", "--agents", "random,feature-es", "--es", "/nonexistent.json"],
     "ES agent /nonexistent.json not found"),
    ("arena-es-garbage", ["arena", "nim", "--agents", "random,feature-es", "--es", F + "/garbage.json"], "not valid JSON"),
    ("arena-es-shape", ["arena", "nim", "--agents", "random,feature-es", "--es", F + "/es-short.json"], "field weights is not a list of 5 finite numbers"),
    ("arena-out", ["arena", "nim", "--agents", "random,optimal", "--out", "/nonexistent/x/y.json"],
     "directory /nonexistent/x does not exist"),
    ("arena-seed", ["arena", "nim", "--agents", "random,optimal", "--seed", "-1"], "--seed must be from 0"),
    ("arena-heaps", ["arena", "nim", "--agents", "random,optimal", "--heaps", "1,x"], "heap 2 is 'x'"),
    ("train-es-generations", ["train-es", "--generations", "0"], "--generations must be from 1 to 100000"),
    ("train-es-matches-0", ["train-es", "--matches", "0"], "--matches must be from 1"),
    ("train-es-matches-negative", ["train-es", "--matches", "-5"], "--matches must be from 1"),
    ("train-es-heaps", ["train-es", "--heaps", "1,-1"], "heap 2 is negative"),
    ("train-es-out", ["train-es", "--out", "/nonexistent/d/es.json"], "directory /nonexistent/d does not exist"),
    ("train-es-seed", ["train-es", "--seed", "-3"], "--seed must be from 0"),
    # compare and bench
    ("compare-claims-missing", ["compare", "--claims", "/nonexistent.json"], "claims file /nonexistent.json not found"),
    ("compare-claims-garbage", ["compare", "--claims", F + "/garbage.json"], "not valid JSON"),
    ("compare-claims-list", ["compare", "--claims", F + "/list.json"], "not a claims file (no list 'claims')"),
    ("compare-claims-no-rule", ["compare", "--claims", F + "/norule.json"], "claim 1 has no 'rule'"),
    ("compare-claims-bad-rule", ["compare", "--claims", F + "/badrule.json"], "unknown rule 'nearly'"),
    ("compare-results-type", ["compare", "--claims", F + "/claims.json", "--results-dir", F + "/badtype"],
     "'test_error' is 'x', not a number"),
    ("compare-results-curve", ["compare", "--claims", F + "/claims.json", "--results-dir", F + "/badcurve"],
     "not a training result (curve is not a list of {epoch, valid_error} numbers)"),
    ("compare-results-json", ["compare", "--claims", F + "/claims.json", "--results-dir", F + "/badjson"],
     "not valid JSON"),
    ("compare-readme-missing", ["compare", "--claims", F + "/claims.json", "--readme", "/nonexistent/README.md"],
     "directory /nonexistent does not exist"),
    ("compare-readme-binary", ["compare", "--claims", F + "/claims.json", "--readme", F + "/binary.txt"],
     "binary.txt is not text: byte 0xff"),
    ("compare-results-file", ["compare", "--claims", F + "/claims.json", "--results-dir", F + "/binary.txt"],
     "binary.txt is a file, not a folder of results"),
    ("compare-results-missing", ["compare", "--claims", F + "/claims.json", "--results-dir", "nowhere"],
     "--results-dir nowhere: no such folder"),
    ("compare-readme-no-block", ["compare", "--claims", F + "/claims.json", "--readme", F + "/README-plain.md"],
     "no <!-- compare:start -->"),
    ("compare-out", ["compare", "--claims", F + "/claims.json", "--out", "/nonexistent/d/x.md"],
     "directory /nonexistent does not exist"),
    ("compare-disk-full", ["compare", "--claims", F + "/claims.json", "--out", "c.md", "--figures", "f",
                           "--no-shipped", "--data-dir", "."], "cannot write c.md: File too large", {"file_size": 16}),
    ("compare-shipped-disk-full", ["compare", "--claims", F + "/claims.json", "--out", "c.md", "--figures", "f",
                                   "--data-dir", "."], "cannot write f/error-by-size.png: File too large",
     {"file_size": 16}),
    ("bench-section", ["bench", "--only", "nosuch"], "unknown bench sections ['nosuch']"),
    ("bench-only-nothing", ["bench", "--only"], "argument --only: expected at least one argument"),
    ("bench-board", ["bench", "--only", "cram-large", "--boards", "5x8,9x9"], "unknown bench board 9x9"),
    ("bench-board-none", ["bench", "--only", "cram-large", "--boards", ","], "unknown bench board ','"),
    ("bench-against", ["bench", "--only", "cram", "--against", "/nonexistent/python"],
     "--against /nonexistent/python: no Python there (give a worktree's .venv/bin/python)"),
    ("bench-igsolve", ["bench", "--only", "cram", "--igsolve", "/nonexistent/igsolve"],
     "--igsolve /nonexistent/igsolve: no program there"),
    ("bench-peer-alone", ["bench", "--only", "cram-peer"], "bench --only cram-peer times igsolve beside flipnet: "
     "give its binary with --igsolve PATH"),
    ("bench-limit", ["bench", "--only", "cram", "--limit", "0"], "--limit must be a positive number of seconds"),
    # numbers at the edges: huge, tiny, negative; flags that would be ignored
    ("solve-max-take-huge", ["solve", "gridnim", "--shape", "3x3", "--max-take", "9" * 20],
     "--max-take must be from 1 to 3 on a 3x3 board"),
    ("value-max-take-huge", ["value", "gridnim", "111/111/111", "--max-take", "9" * 20], "--max-take must be from 1 to 3"),
    ("arena-max-take-huge", ["arena", "gridnim", "--shape", "3x3", "--max-take", "9" * 20, "--agents", "random,optimal"],
     "--max-take must be from 1 to 3"),
    ("train-es-heaps-huge", ["train-es", "--heaps", "99999999999", "--generations", "1"],
     "the heaps hold 99999999999 objects; games are played with at most 1000"),
    ("train-es-heaps-empty", ["train-es", "--heaps", "0,0,0", "--generations", "1"],
     "nim from 0,0,0 has no move: no game can be played"),
    ("arena-heaps-empty", ["arena", "nim", "--heaps", "0,0", "--agents", "random,optimal"], "has no move"),
    ("train-lr-huge", ["train", "conv1d-fast", "--lr", "1e300"], "--lr 1e+300 is outside what float32 holds"),
    ("train-lr-denormal", ["train", "conv1d-fast", "--lr", "1e-320"], "is outside what float32 holds"),
    ("train-decay-huge", ["train", "mlp2d", "--weight-decay", "1e39"], "--weight-decay 1e+39 is outside what float32"),
    ("train-eval-batch-huge", ["train", "conv1d-fast", "--epochs", "1", "--eval-batch", "99999999999"],
     "--eval-batch must be at most 16777216"),
    ("train-eval-batch-over-set", ["train", "conv1d", "--data", F + "/tiny1d.h5", "--bucket", "0", "--epochs", "1",
                                   "--eval-batch", "9999999", "--results-dir", "r"],
     "--eval-batch 9999999 is more than the"),
    ("train-disk-full", ["train", "conv1d", "--data", F + "/tiny1d.h5", "--bucket", "0", "--epochs", "1",
                         "--eval-batch", "0", "--results-dir", "r"], "cannot write r/conv1d", {"file_size": 64, **PYTHON_LINKER}),
    ("train-nim-database-seed", ["train-nim", "--database-seed", "-1"], "--database-seed must be from 0 to 2^63 - 1"),
    ("survey-database-seed", ["survey-nim", "--database-seed", "-1"], "--database-seed must be from 0 to 2^63 - 1"),
    ("by-size-seed", ["by-size", F + "/model.npz", "--seed", "-1"], "--seed must be from 0 to 2^63 - 1"),
    ("by-size-density-alone", ["by-size", F + "/model.npz", "--density", "0.9"],
     "--density chooses the positions of a --beyond sample: give --beyond SAMPLE too"),
    ("play-seed", ["play", "nim", "--seed", "-1", "--ai", "random"], "--seed must be from 0 to 2^63 - 1"),
    ("gui-seed", ["gui", "halfnim", "--seed", "-1"], "--seed must be from 0 to 2^63 - 1"),
    ("predict-timeout-zero", ["predict", F + "/model.npz", "11111111", "--timeout", "0"],
     "timeout must be a positive number"),
    ("endgame-dir-is-file", ["endgame", "--dir", "/dev/null"], "/dev/null is not a directory"),
    ("endgame-disk-full", ["endgame", "--dir", "."], "cannot write cram-endgame.bin: File too large",
     {"file_size": 1 << 20}),
    ("bench-out", ["bench", "--only", "nosuch", "--out", "/nonexistent/x.json"], "unknown bench sections"),
    # empty texts and numbers written another way: refused, never read as something else
    ("data-only-empty", ["data", "--only", ""], "argument --only: an empty value"),
    ("solve-output-empty", ["solve", "flip", "--shape", "2x2", "-o", ""], "argument -o/--output: an empty value"),
    ("value-halfnim-underscore", ["value", "halfnim", "1_0"], "a HalfNim position is a pile size in digits, not '1_0'"),
    ("data-seed-underscore", ["data", "--seed", "1_0"], "argument --seed: invalid int value: '1_0'"),
    ("value-timeout-underscore", ["value", "flip", "11", "--timeout", "1_0"], "invalid float value: '1_0'"),
]


def test_a_process_under_a_file_size_limit_leaves_no_cut_bytecode(tmp_path):
    """The corpus's commands under a file size limit import modules no other command has
    imported: had one written their bytecode, cut at the limit, every later import of them
    would fail, in the suite and in the user's environment after it."""
    (tmp_path / "sizeable.py").write_text("".join(f"def f{i}(a):\n    return a + {i}\n" for i in range(200)))
    env = environment(PYTHONDONTWRITEBYTECODE="", PYTHONPATH=str(tmp_path))
    python = [sys.executable, "-c"]
    limited = run(["import sizeable; print(sizeable.f7(1))"], tmp_path, file_size=360, env=env, program=python)
    assert (limited.returncode, limited.stdout) == (0, "8\n"), limited.stderr
    assert not list(tmp_path.rglob("*.pyc"))
    again = run(["import sizeable; print(sizeable.f9(1))"], tmp_path, env=env, program=python)
    assert (again.returncode, again.stdout) == (0, "10\n"), again.stderr
    assert list(tmp_path.rglob("*.pyc")), "without a limit, the bytecode is written as usual"


def test_the_corpus_is_large_and_named_once():
    ids = [case[0] for case in CASES]
    assert len(ids) >= 100 and len(set(ids)) == len(ids)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """The bad (and a few good) files the corpus points at."""
    d = tmp_path_factory.mktemp("files")
    write_tiny_dataset(d / "tiny1d.h5")
    write_tiny_dataset(d / "tiny2d.h5", rows=3, cols=4)
    (d / "text.h5").write_text("this is not HDF5\n")
    (d / "truncated.h5").write_bytes((d / "tiny1d.h5").read_bytes()[:1500])
    def negative_labels(f):
        attrs, values = dict(f["nim_value"].attrs), f["nim_value"][()].astype(np.int8)
        values[:3] = -1
        del f["nim_value"]
        f["nim_value"] = values
        f["nim_value"].attrs.update(attrs)

    (d / "bad.test").write_text("{version 1.7}\n[impartial domineering]\n..|.X {N 1}\n")
    (d / "empty.test").write_text("{version 1.7}\n/* nothing */\n")
    (d / "binary.txt").write_bytes(b"0.5 0.25\n\xff\xfe\x00 not text")
    for name, edit in (("bucket255", lambda f: f["splits/original/bucket"].__setitem__(slice(0, 3), 255)),
                       ("negative", negative_labels),
                       ("part7", lambda f: f["splits/original/part"].__setitem__(slice(0, 3), 7)),
                       ("labels200", lambda f: f["nim_value"].__setitem__(slice(0, 256), 200)),
                       ("nosplit", lambda f: f.__delitem__("splits"))):
        (d / f"{name}.h5").write_bytes((d / "tiny1d.h5").read_bytes())
        with h5py.File(d / f"{name}.h5", "r+") as f:
            edit(f)
    _model_files(d)
    (d / "short.txt").write_text("1 2 3\n")
    (d / "nanweights.txt").write_text("nan " + "1 " * 209 + "\n")
    (d / "wordweights.txt").write_text("1\nx\n")
    (d / "garbage.json").write_text("{not json")
    (d / "list.json").write_text("[1, 2]")
    (d / "es-short.json").write_text(json.dumps({"weights": [1, 2]}))
    (d / "claims.json").write_text(json.dumps({"claims": [{
        "id": "mlp2d", "claim": "2D MLP", "rule": "at_most", "paper": 0.1, "command": "make train-2d",
        "measure": {"file": "mlp2d.json", "field": "test_error"}}]}))
    (d / "norule.json").write_text(json.dumps({"claims": [{"id": "x", "claim": "y"}]}))
    (d / "badrule.json").write_text(json.dumps({"claims": [{"id": "x", "claim": "y", "rule": "nearly",
                                                            "measure": {"file": "a", "field": "b"},
                                                            "command": "c"}]}))
    for name, content in (("badtype", {"test_error": "x"}), ("badcurve", {"test_error": 0.1, "curve": 3,
                                                                           "confusion": [[1]]})):
        (d / name).mkdir()
        (d / name / "mlp2d.json").write_text(json.dumps(content))
    (d / "badjson").mkdir()
    (d / "badjson" / "x.json").write_text("{")
    (d / "README-plain.md").write_text("no markers here\n")
    runs = d / "runs"
    runs.mkdir()
    (runs / "done.json").write_text("{}")
    (runs / "garbage.ckpt.npz").write_bytes(b"PK\x03\x04 not really a zip")
    (d / "nimruns").mkdir()
    (d / "nimruns" / "r.ckpt.npz").write_text("garbage")
    return d


def _model_files(d):
    """A conv1d model of 1x8 boards, and broken copies of it."""
    from flipnet.nn.core.kinds import build
    from flipnet.nn.core.store import save_model, save_npz

    model = build("conv1d", 0, 1, 8)
    meta = {"config": {"data": str(d / "tiny1d.h5"), "bucket": 0}}
    save_model(d / "model.npz", model, meta)
    values = model.get_values()
    save_npz(d / "nan.npz", {**values, "out_W": np.full_like(values["out_W"], np.nan)},
             {"model": "conv1d", "rows": 1, "cols": 8, **meta})
    save_npz(d / "unknown.npz", values, {"model": "nope", "rows": 1, "cols": 8})
    save_model(d / "model7.npz", build("conv1d", 0, 1, 7), meta)
    save_npz(d / "nodata.npz", values, {"model": "conv1d", "rows": 1, "cols": 8})
    np.savez(d / "nometa.npz", **values)
    np.savez(d / "pickle.npz", x=np.array([{"a": 1}], dtype=object))
    (d / "garbage.npz").write_text("not a zip file")
    (d / "truncated.npz").write_bytes((d / "model.npz").read_bytes()[:2000])
    with zipfile.ZipFile(d / "model.npz") as z:  # the good one really is a zip
        assert "__meta__.npy" in z.namelist()


# Cases also run through a fresh `python -m flipnet`, to hold the forked runs to it: a usage
# error, a bad model file, a training setting, a bad position, writes to a full disk.
FRESH = ("no-command", "evaluate-truncated", "train-lr-nan", "value-ragged", "train-nim-disk-full", "data-disk-full",
         "compare-disk-full")


@pytest.fixture(scope="module")
def outcomes(files, tmp_path_factory):
    """Every case run once, two at a time; {id: (process, files it left in its directory)}.
    A case that sets an environment variable runs as a fresh process; the others in
    processes forked from a server that has flipnet loaded (cli_cases.CommandServer)."""
    servers = [CommandServer(), CommandServer()]
    free = queue.SimpleQueue()
    for server in servers:
        free.put(server)

    def one(case, fresh=False):
        name, argv, _, *rest = case
        options = rest[0] if rest else {}
        cwd = tmp_path_factory.mktemp(name)
        env = environment(**options["env"]) if "env" in options else None
        argv = [a.replace(F, str(files)) for a in argv]
        if fresh or env is not None:
            proc = run(argv, cwd, file_size=options.get("file_size"), env=env)
        else:
            server = free.get()
            try:
                proc = server.run(argv, cwd, file_size=options.get("file_size"),
                                  python_linker=options.get("python_linker", False))
            finally:
                free.put(server)
        return name, (proc, files_in(cwd))

    try:
        with ThreadPoolExecutor(2) as pool:
            results = dict(pool.map(one, CASES))
            fresh = dict(pool.map(lambda case: one(case, fresh=True), [c for c in CASES if c[0] in FRESH]))
    finally:
        for server in servers:
            server.close()
    leftovers = [p for p in files_in(files) if p.endswith(".tmp") or p.endswith(".lock")]
    assert not leftovers, f"temporary files left in the shared files: {leftovers}"
    results["fresh"] = fresh
    return results


@pytest.mark.slow
def test_a_forked_command_answers_as_a_fresh_one(outcomes):
    """The server's forked runs give the status, the error line and the files of the real
    command in a new interpreter."""
    assert set(outcomes["fresh"]) == set(FRESH)
    for name, (proc, left) in outcomes["fresh"].items():
        forked, forked_left = outcomes[name]
        assert (forked.returncode, stderr_lines(forked.stderr), forked.stdout, forked_left) == \
            (proc.returncode, stderr_lines(proc.stderr), proc.stdout, left), name


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_bad_input_ends_in_one_clear_line(outcomes, case):
    name, _, expected, *_ = case
    proc, left = outcomes[name]
    lines = stderr_lines(proc.stderr)
    assert proc.returncode == 2, (proc.returncode, proc.stderr)  # the README's promise for bad input
    assert "Traceback" not in proc.stderr, proc.stderr
    assert 1 <= len(lines) <= 2, proc.stderr
    assert expected in lines[-1], lines[-1]
    partial = [p for p in left if p.endswith(".tmp") or p.endswith(".lock") or
               Path(p).suffix in (".h5", ".md", ".txt", ".json", ".npz", ".bin", ".png")]
    assert not partial, f"files left behind: {partial}"
