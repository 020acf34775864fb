"""A training step shared by several processes: each computes the gradient of its part of
the minibatch, the parts are summed in a fixed order, and one optimizer step follows.

Why processes: flipnet runs BLAS in the calling thread (`base/denormals.py`: an OpenBLAS
worker thread does not flush subnormals, and two threads made a step only 1.26x faster),
so one training run used one core of the machine. A helper process forked at the start
holds a copy of the compiled gradient; each step it reads the current weights and its
part of the batch from shared memory and writes its gradient back. The sum is the same
batch-mean gradient as one process computes, to rounding: the same seed and number of
workers give the same weights, bit for bit, and another number of workers rounds
differently (so `workers` is a setting of the run, checked on `--resume`).

Helpers ignore Ctrl-C (the terminal sends it to every process of the group): the main
process stops at its next safe point and closes them. A helper that fails sends its error
back; one that dies is noticed at the next step. A helper whose parent dies reads the
end of its pipe and exits.
"""

import multiprocessing
import traceback

import numpy as np
import pytensor
import pytensor.tensor as pt

from flipnet.base.denormals import flushed
from flipnet.base.errors import BadInput, FlipnetError
from flipnet.base.forked import ctrl_c_held, ignore_ctrl_c, part_bounds
from flipnet.nn import FLOAT, in_float
from flipnet.nn.components.layouts import LiveCells, warm_up_cells
from flipnet.nn.core.layers import mean_cross_entropy
from flipnet.nn.training.config import MAX_WORKERS


@in_float
def gradient_function(network, side, layout=LiveCells):
    """f(cells (part, side^2), values (part,), weight) -> [loss, *grads]: the part's mean
    cross-entropy times `weight` (its share of the batch) and its gradients, so that the
    parts' sums are the batch's mean and its gradient."""
    shapes = layout(side)
    values = pt.vector("values", dtype="int64")
    weight = pt.scalar("weight", dtype=FLOAT)
    loss = weight * mean_cross_entropy(network.logits_in(shapes), values)
    fn = pytensor.function([*shapes.inputs, values, weight], [loss, *pt.grad(loss, network.params)])
    fn(*shapes.feed(warm_up_cells(side)), np.zeros(1, np.int64), np.asarray(1, FLOAT))  # compiled before the fork
    return lambda cells, part_values, part_weight: fn(*shapes.feed(cells), part_values, part_weight)


@in_float
def apply_function(network, optimizer):
    """f(*grads, lr): one optimizer step with the given gradients (clipping included)."""
    grads = [p.type() for p in network.params]
    lr = pt.scalar("lr", dtype=FLOAT)
    new_params, new_state = optimizer.step(network.params, grads, optimizer.state, lr)
    return pytensor.function([*grads, lr], [], updates=list(zip(network.params + optimizer.state,
                                                                new_params + new_state)))


class _Flat:
    """One FLOAT array in shared memory, cut into views of the given shapes."""

    def __init__(self, shapes, context):
        sizes = [int(np.prod(s)) for s in shapes]
        self.raw = context.RawArray("f" if FLOAT == "float32" else "d", max(1, sum(sizes)))
        flat = np.frombuffer(self.raw, dtype=FLOAT)
        bounds = np.cumsum([0, *sizes])
        self.views = [flat[a:b].reshape(s) for a, b, s in zip(bounds[:-1], bounds[1:], shapes)]


class SplitStep:
    """callable(cells (batch, side^2), values (batch,), lr) -> the batch's mean loss, as
    `shapetrain.step_function`'s step, with the batch's gradient computed in `workers`
    parts by this process and workers - 1 forked helpers. A context manager: leaving it
    stops the helpers. `max_batch`: the largest batch a step will be given."""

    def __init__(self, network, optimizer, side, workers, max_batch, flush_denormals=False):
        if not 2 <= workers <= MAX_WORKERS:
            raise BadInput(f"a split step takes 2..{MAX_WORKERS} workers, got {workers}")
        self.network, self.workers, self.max_batch = network, workers, max_batch
        self.gradient = gradient_function(network, side)
        self.apply = apply_function(network, optimizer)
        context = multiprocessing.get_context("fork")
        shapes = [p.get_value(borrow=True).shape for p in network.params]
        self.weights = _Flat(shapes, context)
        self.helpers, self.pipes = [], []
        part = -(-max_batch // workers)
        for _ in range(workers - 1):  # each helper: its gradient, its part's cells and values
            grads = _Flat(shapes, context)
            cells = _Flat([(part, side * side)], context)
            values = context.RawArray("q", part)
            ours, theirs = context.Pipe()
            helper = context.Process(target=_serve, daemon=True,
                                     args=(self.gradient, network, self.weights, grads, cells, values,
                                           theirs, ours, flush_denormals))
            with ctrl_c_held():  # the helper starts ignoring it (and sets that itself)
                helper.start()
            theirs.close()
            self.helpers.append((helper, grads, cells, np.frombuffer(values, dtype=np.int64)))
            self.pipes.append(ours)

    def __call__(self, cells, values, lr):
        n = len(values)
        if n > self.max_batch:
            raise BadInput(f"a batch of {n} shapes is larger than the {self.max_batch} this step holds")
        bounds = part_bounds(n, self.workers)
        for view, p in zip(self.weights.views, self.network.params):
            view[...] = p.get_value(borrow=True)
        asked = []
        for (helper, _, part_cells, part_values), pipe, (a, b) in zip(self.helpers, self.pipes, bounds[1:]):
            part_cells.views[0][:b - a] = cells[a:b]
            part_values[:b - a] = values[a:b]
            asked.append(_send(pipe, (b - a, (b - a) / n)))
        a, b = bounds[0]
        try:
            loss, *grads = self.gradient(cells[a:b], values[a:b], np.asarray((b - a) / n, FLOAT))
        finally:  # every answer is read, even when a part failed: the next step starts even
            answers = [_receive(pipe) if sent else ("stopped", None) for pipe, sent in zip(self.pipes, asked)]
        for (helper, helper_grads, _, _), (status, payload) in zip(self.helpers, answers):
            if status == "stopped":
                helper.join(timeout=5)  # its exit code, once it is reaped
                raise FlipnetError(f"a training helper process stopped (exit code {helper.exitcode}); "
                                   "the checkpoint keeps the last finished epoch")
            if status != "ok":
                raise FlipnetError(f"a training helper process failed: {payload}")
            loss += payload
            grads = [g + h for g, h in zip(grads, helper_grads.views)]  # the parts in order
        self.apply(*grads, lr)
        return float(loss)

    def close(self):
        for pipe in self.pipes:
            _send(pipe, None)
            pipe.close()
        for helper, *_ in self.helpers:
            helper.join(timeout=5)
            if helper.is_alive():
                helper.kill()
                helper.join()
        self.helpers, self.pipes = [], []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _send(pipe, request):
    """Whether the request reached the helper (False: it is gone)."""
    try:
        pipe.send(request)
        return True
    except OSError:
        return False


def _receive(pipe):
    """(status, payload) of the helper's answer; ("stopped", None) if it is gone."""
    try:
        return pipe.recv()
    except (EOFError, OSError):
        return "stopped", None


def _serve(gradient, network, weights, grads, cells, values, pipe, parents_end, flush_denormals):
    """A helper's loop: for each (rows, weight) request, the part's gradient at the current
    weights; None or the parent's end of the pipe closing ends it."""
    ignore_ctrl_c()
    parents_end.close()  # so that recv sees the end of the pipe when the parent is gone
    values = np.frombuffer(values, dtype=np.int64)
    with flushed(flush_denormals):
        while True:
            try:
                request = pipe.recv()
            except (EOFError, OSError):
                return
            if request is None:
                return
            rows, weight = request
            try:
                for view, p in zip(weights.views, network.params):
                    p.set_value(view)
                loss, *part_grads = gradient(cells.views[0][:rows], values[:rows], np.asarray(weight, FLOAT))
                for view, g in zip(grads.views, part_grads):
                    view[...] = g
                pipe.send(("ok", float(loss)))
            except Exception as exc:  # noqa: BLE001 - the parent reports it in one line
                last = traceback.extract_tb(exc.__traceback__)[-1]
                pipe.send(("error", f"{type(exc).__name__}: {exc} ({last.filename}:{last.lineno})"))
