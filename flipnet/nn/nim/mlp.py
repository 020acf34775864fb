"""The C++ NIM perceptron (`class MLP` of the source), mirrored with PyTensor.

8 inputs (a bias 1, then the 7 bits of n, least significant first), 15 hidden nodes of
which node 0 is a bias fixed at 1, 6 outputs (the bits of k). Sigmoid everywhere,
squared error E = 1/2 sum (yd - y)^2, one update per sample with learning rate eta.

The backward pass is written out as in the C++ `backward`: output deltas, hidden deltas
(from the weights before this sample's update), then the weight updates. It is built once
as a PyTensor graph and a whole training run (epochs x samples updates, in database
order) is compiled as one `scan`; `pytensor.grad` is only used by the tests, to show the
hand-written update equals -eta * dE/dw.

Weights file (`nimWeights.txt`): `w` as 8 lines of 15 numbers, then `wo` as 15 lines of 6,
the order of the C++ arrays, printed with 17 significant digits so a round trip is exact.
"""

import functools
import math
from dataclasses import dataclass

import numpy as np
import pytensor
import pytensor.tensor as pt

from flipnet.base.errors import FlipnetError
from flipnet.base.files import RESULTS_DIR, read_text_file, write_text
from flipnet.base.places import shipped_dir
from flipnet.nn import in_float
from flipnet.solve.halfnim import halfnim_best_move, halfnim_value

N_IN, N_HIDDEN, N_OUT = 8, 15, 6  # n1, m1, K of the C++ header (biases counted)
NMAX = 127
ETA = 0.12
SEED = 52  # initial weights of `make train-nim`: the first seed (from 0) whose network misses
           # no winning pile; about 1 in 100 does (`flipnet survey-nim`)
DECODE_THRESHOLD = 0.2
FLOAT = "float64"  # the C++ class computes in double


WEIGHTS = "nimWeights.txt"


def default_weights_path():
    """results/nimWeights.txt when trained here (`flipnet train-nim`), else the shipped file,
    as for any model asked for by name."""
    trained = RESULTS_DIR / WEIGHTS
    return trained if trained.exists() else shipped_dir() / WEIGHTS


def inputs_of(n):
    """[1, bits of n (7, least significant first)] as the C++ int2binArray builds them."""
    return np.array([1.0] + [(n >> i) & 1 for i in range(N_IN - 1)], dtype=np.float64)


def bits_of(k):
    return np.array([(k >> i) & 1 for i in range(N_OUT)], dtype=np.float64)


def decode(outputs, threshold=DECODE_THRESHOLD):
    """The C++ out2move: bit i is set when output i exceeds the threshold; 0 becomes 1."""
    move = sum(1 << i for i, y in enumerate(outputs) if y > threshold)
    return move or 1


@dataclass
class Database:
    """Training pairs for n = 2..nmax: inputs (n-1, 8) and labels (n-1, 6) of the DP move."""
    piles: np.ndarray
    moves: np.ndarray
    inputs: np.ndarray
    labels: np.ndarray


def build_database(seed=0, nmax=NMAX):
    """The DP's best move for every pile; losing piles get a random legal move (seeded)."""
    rng = np.random.default_rng(seed)
    piles = np.arange(2, nmax + 1)
    moves = np.array([halfnim_best_move(int(n), rng) for n in piles])
    return Database(piles, moves, np.stack([inputs_of(n) for n in piles]),
                    np.stack([bits_of(k) for k in moves]))


def _sigmoid(x):
    return 1 / (1 + pt.exp(-x))


def forward_graph(x, w, wo):
    """(a, h, z, y) for one input vector (or a matrix of them, one per row), with hidden
    node 0 the bias node fixed at 1. The weights may carry a leading axis of networks
    (w (nets, 8, 15), wo (nets, 15, 6)): one input then goes through every network."""
    a = pt.sum(x[..., :, None] * w, axis=-2) if w.ndim == 3 else pt.dot(x, w)
    h = pt.set_subtensor(_sigmoid(a)[..., 0], 1.0)
    z = pt.sum(h[..., :, None] * wo, axis=-2) if wo.ndim == 3 else pt.dot(h, wo)
    return a, h, z, _sigmoid(z)


def backward_graph(x, yd, w, wo, eta):
    """The new (w, wo) after one per-sample update, written out by hand (for one network,
    or for each of a stack of networks at once)."""
    _, h, _, y = forward_graph(x, w, wo)
    delta_out = (yd - y) * y * (1 - y)  # -(dE/dz): gd(z) = y (1 - y)
    # -(dE/da), from the weights before this sample's update; the bias node has no inputs
    delta_hidden = h * (1 - h) * pt.sum(wo * delta_out[..., None, :], axis=-1)
    delta_hidden = pt.set_subtensor(delta_hidden[..., 0], 0.0)
    new_wo = wo + eta * h[..., :, None] * delta_out[..., None, :]
    new_w = w + eta * x[:, None] * delta_hidden[..., None, :]
    return new_w, new_wo


def squared_error_graph(x, yd, w, wo):
    return 0.5 * pt.sum((yd - forward_graph(x, w, wo)[3]) ** 2)


def initial_weights(seed):
    """(w, wo) drawn from `seed`. The C++ constructor's initial weights are not in the
    source; small uniform ones here."""
    rng = np.random.default_rng(seed)
    return rng.uniform(-0.5, 0.5, size=(N_IN, N_HIDDEN)), rng.uniform(-0.5, 0.5, size=(N_HIDDEN, N_OUT))


def _weights(stacked):
    """Symbolic (w, wo): matrices, or stacks of them with a leading axis of networks."""
    return (pt.tensor(dtype=FLOAT, shape=(None,) * (2 + stacked)),
            pt.tensor(dtype=FLOAT, shape=(None,) * (2 + stacked)))


@functools.cache
@in_float
def _compile_forward():
    x = pt.matrix(dtype=FLOAT)
    w, wo = _weights(False)
    _, _, _, y = forward_graph(x, w, wo)  # rows of x at once: dot broadcasts over them
    return pytensor.function([x, w, wo], y)


@functools.cache
@in_float
def _compile_backward():
    x, yd = pt.vector(dtype=FLOAT), pt.vector(dtype=FLOAT)
    w, wo = _weights(False)
    eta = pt.scalar(dtype=FLOAT)
    return pytensor.function([x, yd, w, wo, eta], backward_graph(x, yd, w, wo, eta))


@functools.cache
@in_float
def _compile_training(stacked):
    """f(inputs[n, 8], labels[n, 6], w, wo, eta) -> (w, wo) after n per-sample updates,
    for one network or (stacked) for each of a stack of them. Each compiled function is
    built on first use and shared by every network of the process."""
    xs, yds = pt.matrix(dtype=FLOAT), pt.matrix(dtype=FLOAT)
    w0, wo0 = _weights(stacked)
    eta = pt.scalar(dtype=FLOAT)
    (ws, wos) = pytensor.scan(lambda x, yd, w, wo: backward_graph(x, yd, w, wo, eta),
                              sequences=[xs, yds], outputs_info=[w0, wo0],
                              return_updates=False)
    return pytensor.function([xs, yds, w0, wo0, eta], [ws[-1], wos[-1]])


EPOCHS_PER_CALL = 250  # a slice of the training sequence per compiled call (bounded memory)


def train_weights(w, wo, database, epochs, eta=ETA):
    """(w, wo) after `epochs` passes over the database in its order, one update per sample;
    w and wo may be stacks of networks (a leading axis). Runs in slices of epochs, one
    compiled call each: the same updates in the same order as one long call."""
    stacked = w.ndim == 3
    inputs = np.tile(database.inputs, (min(epochs, EPOCHS_PER_CALL), 1))
    labels = np.tile(database.labels, (min(epochs, EPOCHS_PER_CALL), 1))
    done = 0
    while done < epochs:
        n = min(EPOCHS_PER_CALL, epochs - done) * len(database.inputs)
        w, wo = _compile_training(stacked)(inputs[:n], labels[:n], w, wo, np.float64(eta))
        done += n // len(database.inputs)
    return w, wo


class NimMLP:
    """Mirror of the C++ MLP: arrays `w` (8x15) and `wo` (15x6); forward, backward, train,
    save_weights, read_weights."""

    def __init__(self, learning_rate=ETA, seed=SEED):
        self.eta = learning_rate
        self.w, self.wo = initial_weights(seed)

    # --- the C++ interface -------------------------------------------------------

    def forward(self, x):
        """Outputs y (6 values in 0..1) for one input vector x (8 values) or a batch of them."""
        x = np.asarray(x, dtype=np.float64)
        y = _compile_forward()(np.atleast_2d(x), self.w, self.wo)
        return y[0] if x.ndim == 1 else y

    def backward(self, yd, x):
        """One per-sample update towards the desired outputs yd (the C++ argument order)."""
        self.w, self.wo = _compile_backward()(np.asarray(x, dtype=np.float64),
                                                np.asarray(yd, dtype=np.float64),
                                                self.w, self.wo, np.float64(self.eta))

    def train(self, database, epochs):
        """`epochs` passes over the database in its order, one update per sample."""
        self.w, self.wo = train_weights(self.w, self.wo, database, epochs, self.eta)

    def move(self, n, threshold=DECODE_THRESHOLD):
        """The decoded move for a pile of n (as the C++ program plays it)."""
        return decode(self.forward(inputs_of(n)), threshold)

    def save_weights(self, path):
        lines = [" ".join(f"{v:.17g}" for v in row) for row in (*self.w, *self.wo)]
        write_text(path, "\n".join(lines) + "\n")

    def read_weights(self, path):
        self.w, self.wo = read_weights_file(path)


def read_weights_file(path):
    """(w, wo) from a weights file: any whitespace layout, exactly 8*15 + 15*6 finite numbers."""
    expected = N_IN * N_HIDDEN + N_HIDDEN * N_OUT
    text = read_text_file(path, "weights file")
    numbers = []
    for line_no, line in enumerate(text.splitlines(), start=1):
        for token in line.split():
            try:
                value = float(token)
            except ValueError:
                raise FlipnetError(f"{path} line {line_no}: {token!r} is not a number") from None
            if not math.isfinite(value):
                raise FlipnetError(f"{path} line {line_no}: {token!r} is not a finite number")
            if len(numbers) == expected:
                raise FlipnetError(f"{path} line {line_no}: too many numbers, expected {expected} "
                                   f"(w {N_IN}x{N_HIDDEN}, then wo {N_HIDDEN}x{N_OUT})")
            numbers.append(value)
    if len(numbers) < expected:
        raise FlipnetError(f"{path}: too few numbers, {len(numbers)} of {expected} "
                           f"(w {N_IN}x{N_HIDDEN}, then wo {N_HIDDEN}x{N_OUT})")
    values = np.array(numbers)
    return (values[:N_IN * N_HIDDEN].reshape(N_IN, N_HIDDEN),
            values[N_IN * N_HIDDEN:].reshape(N_HIDDEN, N_OUT))


def compare(mlp, database, threshold=DECODE_THRESHOLD):
    """Per pile: (n, DP move, network move); and the piles where they differ, split into
    winning piles (one right answer) and losing piles (any legal move is as good)."""
    outputs = mlp.forward(database.inputs)
    rows = [(int(n), int(k), decode(y, threshold))
            for n, k, y in zip(database.piles, database.moves, outputs)]
    diff_winning = [n for n, k, net in rows if net != k and halfnim_value(n)]
    diff_losing = [n for n, k, net in rows if net != k and not halfnim_value(n)]
    return rows, diff_winning, diff_losing
