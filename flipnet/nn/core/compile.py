"""The compiled functions a run needs: a whole epoch as one call, and predictions.

At batch 20 a PyTensor call costs more in overhead than in arithmetic, so the epoch
runs as a `scan` over its minibatches inside one compiled function: the parameters and
optimizer state are loop-carried and written back to the shared variables at the end.
`step_function` is the plain one-call-per-minibatch form, kept for `make bench`.
"""

import threading

import numpy as np
import pytensor
import pytensor.tensor as pt
from pytensor.compile.builders import OpFromGraph
from pytensor.compile.mode import Mode
from pytensor.graph.rewriting.basic import in2out, node_rewriter
from pytensor.scalar import basic as scalar
from pytensor.tensor.elemwise import Elemwise
from pytensor.tensor.rewriting.ofg import inline_ofg_node
from pytensor.tensor.special import softmax

from flipnet.nn import FLOAT, in_float
from flipnet.nn.core.layers import mean_cross_entropy


def training_step(model, optimizer, states, labels, lr, params, state, memory=None):
    """(loss, new params, new optimizer state, [new memory table] or []) of one minibatch.
    The optimizer updates `params` (the model's dense parameters); a memory table gets a
    sparse step on the rows the batch used, at `model.memory_gain` times the rate."""
    if memory is None:
        loss = mean_cross_entropy(model.logits(states, params), labels)
        new_params, new_state = optimizer.step(params, pt.grad(loss, params), state, lr)
        return loss, new_params, new_state, []
    used = model.memory_rows(states)
    rows = memory[used]
    loss = mean_cross_entropy(model.logits(states, [*params, memory], rows), labels)
    *grads, row_grads = pt.grad(loss, [*params, rows])
    new_params, new_state = optimizer.step(params, grads, state, lr)
    rate = lr * np.float32(model.memory_gain) * pt.cast(labels.shape[0], FLOAT)
    return loss, new_params, new_state, [pt.inc_subtensor(memory[used], -rate * row_grads)]


def _carried(model, optimizer):
    """The shared variables one training step reads and replaces, in step order."""
    return model.dense_params + optimizer.state + ([model.memory] if model.memory is not None else [])


@in_float
def epoch_function(model, optimizer):
    """f(inputs[n_batches, batch, *input_shape] (model.input_dtype), labels[n_batches, batch] int64, lr)
    -> mean loss. The inputs are states, or whatever `model.prepare` made of them."""
    states = pt.tensor("states", dtype=model.input_dtype, shape=(None,) * (2 + len(model.input_shape)))
    labels = pt.matrix("labels", dtype="int64")
    lr = pt.scalar("lr", dtype=FLOAT)
    n_params, n_state = len(model.dense_params), len(optimizer.state)

    def one_step(batch_states, batch_labels, *carried):
        params, state = list(carried[:n_params]), list(carried[n_params:n_params + n_state])
        memory = carried[-1] if model.memory is not None else None
        loss, new_params, new_state, new_memory = training_step(
            model, optimizer, batch_states, batch_labels, lr, params, state, memory)
        return [*new_params, *new_state, *new_memory, loss]

    carried = _carried(model, optimizer)
    outputs = pytensor.scan(one_step, sequences=[states, labels],
                            outputs_info=[*carried, None], return_updates=False)
    updates = [(var, out[-1]) for var, out in zip(carried, outputs[:-1])]
    return pytensor.function([states, labels, lr], outputs[-1].mean(), updates=updates)


# At most this many minibatches per call of an epoch function: the 2D epoch (47k batches)
# then runs as a dozen calls, so Ctrl-C is answered within a second or two and the
# inputs decoded for one call stay small; the sequence of updates is the same.
EPOCH_CHUNK = 4096


def compile_now(epoch_fn, model, batch):
    """Call `epoch_fn` on no minibatch, so that Numba compiles it now (tens of seconds the
    first time) rather than in the epoch loop, where Ctrl-C and SIGTERM wait for the end
    of a call: a stop during the compile is answered at once. A scan of no step leaves
    the parameters and the optimizer's state as they are. (Another linker compiles when
    the function is made; the Python one cannot index a scan of no step. A function
    wrapped in another, a test's recorder, compiles at its first call.)"""
    from pytensor.link.numba.linker import NumbaLinker

    if not isinstance(getattr(getattr(epoch_fn, "maker", None), "linker", None), NumbaLinker):
        return
    inputs = np.zeros((0, batch, *model.input_shape), dtype=model.input_dtype)
    # In a thread of its own: a Ctrl-C raised inside Numba's compiler can be lost (in one
    # of its weakref callbacks); raised here, in a wait, it always stops the command
    failed = []

    def call():
        try:
            epoch_fn(inputs, np.zeros((0, batch), dtype=np.int64), np.asarray(0, dtype=FLOAT))
        except BaseException as exc:  # raised again below, in the caller's thread
            failed.append(exc)

    compiling = threading.Thread(target=call, daemon=True, name="compile")
    compiling.start()
    while compiling.is_alive():
        compiling.join(0.1)
    if failed:
        raise failed[0]


def run_epoch(epoch_fn, states, labels, lr, chunk=EPOCH_CHUNK, between_calls=None):
    """One pass of `epoch_fn` over states/labels (n_batches, batch), `chunk` batches per
    call; the mean minibatch loss. `between_calls()` runs after every call but the last
    (the trainer stops there on Ctrl-C)."""
    total = 0.0
    for start in range(0, len(states), chunk):
        if start and between_calls:
            between_calls()
        part = slice(start, start + chunk)
        total += float(epoch_fn(states[part], labels[part], lr)) * len(states[part])
    return total / len(states)


@in_float
def step_function(model, optimizer):
    """f(inputs[batch, *input_shape], labels[batch], lr) -> loss: one minibatch per call."""
    states = pt.tensor("states", dtype=model.input_dtype, shape=(None,) * (1 + len(model.input_shape)))
    labels = pt.vector("labels", dtype="int64")
    lr = pt.scalar("lr", dtype=FLOAT)
    loss, new_params, new_state, new_memory = training_step(
        model, optimizer, states, labels, lr, model.dense_params, optimizer.state, model.memory)
    updates = list(zip(_carried(model, optimizer), [*new_params, *new_state, *new_memory]))
    return pytensor.function([states, labels, lr], loss, updates=updates)


# A call of at most this many states (a position, its moves, a page of the explorer) is
# answered by the graph run op by op in numpy, compiled in milliseconds, instead of
# waiting seconds (tens, the first time) for Numba to compile it; larger calls (a test
# split, a training run's validation) are compiled with Numba, many times faster per state.
QUICK_ROWS = 4096


@node_rewriter([Elemwise])
def _pairwise(fgraph, node):
    """An Add or Mul of three or more inputs as a chain of pairs: numpy has a ufunc for a
    pair, and the Python linker runs any other arity one element at a time."""
    op = node.op.scalar_op
    if not isinstance(op, (scalar.Add, scalar.Mul)) or len(node.inputs) <= 2:
        return None
    out = node.inputs[0]
    for term in node.inputs[1:]:
        out = out + term if isinstance(op, scalar.Add) else out * term
    return [out.astype(node.outputs[0].dtype)]


@node_rewriter([OpFromGraph])
def _inlined(fgraph, node):
    """An inner graph (softmax is one, made by the rewrites) as its ops: the Python
    linker would compile it with the default linker, Numba."""
    return inline_ofg_node(node)


# The Python linker with every elementwise op a numpy ufunc (no fused loops, which it
# would run per element; no n-ary sums or products) and no inner graph.
NUMPY_MODE = Mode(linker="py", optimizer="fast_run").excluding("fusion").register(
    (in2out(_inlined), 99), (in2out(_pairwise), 100))


def softmax_rows(logits):
    """Softmax along the last axis in numpy (PyTensor's is an inner graph the Python
    linker would hand to Numba)."""
    shifted = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return shifted / shifted.sum(axis=-1, keepdims=True)


def log_softmax_rows(logits):
    """Log-softmax along the last axis in numpy."""
    shifted = logits - logits.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


class Predictor:
    """Predicted classes of any number of states, in large compiled batches, and their
    probabilities.

    With `symmetries`, the class is the argmax of the softmax averaged over every image
    of the state under the board's symmetries (which all share its nim-value). A call of
    at most `quick_rows` states runs in NUMPY_MODE; each function is compiled when first
    asked for.
    """

    def __init__(self, model, chunk=1 << 16, symmetries=None, quick_rows=0):
        self.model, self.chunk, self.symmetries, self.prepare = model, chunk, symmetries, model.prepare
        self.n_classes, self.quick_rows = model.n_classes, quick_rows
        self._functions = {}

    @in_float
    def _function(self, output):
        """'classes' or 'probabilities' compiled with Numba, or 'logits' in NUMPY_MODE."""
        if output not in self._functions:
            model = self.model
            states = pt.tensor("states", dtype=model.input_dtype, shape=(None,) * (1 + len(model.input_shape)))
            logits = model.logits(states)
            if output == "logits":
                self._functions[output] = pytensor.function([states], logits, mode=NUMPY_MODE)
            elif output == "classes":
                self._functions[output] = pytensor.function([states], pt.argmax(logits, axis=-1))
            else:
                self._functions[output] = pytensor.function([states], pt.special.softmax(logits, axis=-1))
        return self._functions[output]

    @classmethod
    def as_trained(cls, model, meta, quick_rows=0):
        """The predictor a saved model was evaluated with (symmetry averaging or not)."""
        from flipnet.datasets.symmetry import Symmetries

        tta = meta.get("config", {}).get("tta", False)
        return cls(model, symmetries=Symmetries(model.rows, model.cols) if tta else None, quick_rows=quick_rows)

    def __call__(self, states):
        states = np.asarray(states, dtype=np.uint64)
        if self.symmetries is None:
            return self.on_inputs(states, self.prepare)
        return np.argmax(self.probabilities(states), axis=-1)

    @in_float
    def probabilities(self, states):
        """(states, classes): the softmax, averaged over the symmetries' images where asked."""
        states = np.asarray(states, dtype=np.uint64)
        if states.size <= self.quick_rows:
            logits = self._function("logits")

            def softmax_of(inputs):
                return softmax_rows(logits(inputs))
        else:
            softmax_of = self._function("probabilities")
        out = None
        for i in range(0, states.size, self.chunk):
            part = states[i:i + self.chunk]
            images = [self.symmetries.image(part, g) for g in range(len(self.symmetries))] \
                if self.symmetries is not None else [part]
            probs = sum(softmax_of(self.prepare(image)) for image in images) / len(images)
            if out is None:
                out = np.empty((states.size, probs.shape[1]))
            out[i:i + self.chunk] = probs
        return out if out is not None else np.empty((0, self.n_classes))

    def on_inputs(self, inputs, prepare=None):
        """Classes of inputs already made by `model.prepare` (or made here by `prepare`):
        the trainer prepares the validation set once instead of every epoch."""
        if self.symmetries is not None:
            raise ValueError("a symmetry-averaging predictor needs the states themselves")
        if len(inputs) <= self.quick_rows:
            logits = self._function("logits")

            def classes_of(part):
                return np.argmax(logits(part), axis=-1)
        else:
            classes_of = self._function("classes")
        out = np.empty(len(inputs), dtype=np.int64)
        for i in range(0, len(inputs), self.chunk):
            part = inputs[i:i + self.chunk]
            out[i:i + self.chunk] = classes_of(prepare(part) if prepare else part)
        return out


class ComponentPredictor:
    """A component model's value of each shape key (argmax of its network's logits plus
    its memory row), or its probabilities, in large compiled batches: what one ply of
    lookahead reads. A call of at most `quick_rows` keys runs in NUMPY_MODE; each
    function is compiled when first asked for."""

    def __init__(self, model, chunk=1 << 16, quick_rows=0):
        self.model, self.chunk, self.quick_rows = model, chunk, quick_rows
        self._functions = {}

    @in_float
    def _function(self, output):
        """'values' or 'probabilities' compiled with Numba, or 'logits' in NUMPY_MODE."""
        if output not in self._functions:
            model = self.model
            inputs = pt.vector("inputs", dtype="uint64")
            rows = pt.vector("rows", dtype="int64")
            p = dict(zip(model.names, model.params))
            memory = p["memory"][rows] if model.memory is not None else None
            logits = model.component_logits(inputs, p, memory)  # (values, keys)
            out = {"logits": logits, "values": pt.argmax(logits, axis=0),
                   "probabilities": softmax(logits, axis=0).T}[output]
            self._functions[output] = pytensor.function(
                [inputs, rows], out, on_unused_input="ignore", mode=NUMPY_MODE if output == "logits" else None)
        return self._functions[output]

    def __call__(self, keys):
        if np.size(keys) <= self.quick_rows:
            logits = self._function("logits")
            return self._batched(lambda *ins: np.argmax(logits(*ins), axis=0), keys, np.int64)
        return self._batched(self._function("values"), keys, np.int64)

    def probabilities(self, keys):
        """(keys, values) softmax of each key's logits."""
        if np.size(keys) <= self.quick_rows:
            logits = self._function("logits")
            return self._batched(lambda *ins: softmax_rows(logits(*ins).T), keys, np.float64)
        return self._batched(self._function("probabilities"), keys, np.float64)

    def _batched(self, fn, keys, dtype):
        keys = np.asarray(keys, dtype=np.uint64)
        out = None
        for i in range(0, keys.size, self.chunk):
            part = keys[i:i + self.chunk]
            got = fn(self.model.network_inputs(part), self.model.memory_index(part))
            if out is None:
                out = np.empty((keys.size,) + got.shape[1:], dtype=dtype)
            out[i:i + self.chunk] = got
        return out if out is not None else np.empty(0, dtype=dtype)
