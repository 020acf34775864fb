"""Update rules written as symbolic steps, so a whole epoch of them compiles into one scan.

Each optimizer holds its state in shared variables; `step(params, grads, state, lr)`
returns the new parameters and the new state as symbolic expressions.
"""

import numpy as np
import pytensor
import pytensor.tensor as pt

from flipnet.nn import FLOAT
from flipnet.base.errors import BadInput

_real = np.dtype(FLOAT).type  # hyper-parameters as FLOAT scalars, so graphs keep their type


def clipped(grads, max_norm):
    """The gradients scaled down together so that their global L2 norm is at most
    `max_norm` (0: left as they are): one bad minibatch cannot throw the weights far."""
    if not max_norm:
        return list(grads)
    norm = pt.sqrt(sum(pt.sum(g * g) for g in grads))
    scale = pt.minimum(_real(1), _real(max_norm) / (norm + _real(1e-12)))
    return [g * scale for g in grads]


def _decayed(grads, params, decay):
    """The gradients of the loss plus decay/2 * (sum of squared weight matrices): an L2
    penalty on weights (as in the Theano tutorial's MLP), not on biases or gains."""
    if not decay:
        return list(grads)
    return [g + decay * p if p.ndim > 1 else g for g, p in zip(grads, params)]


class SGD:
    """p <- p - lr g; with `weight_decay`, g includes the L2 penalty's gradient decay * W.
    Every rule first clips the gradients to the norm `clip_norm` (`make`; 0: never)."""
    name = "sgd"
    clip_norm = 0.0

    def __init__(self, params, weight_decay=0.0):
        self.decay = _real(weight_decay)
        self.state = []

    def step(self, params, grads, state, lr):
        grads = _decayed(clipped(grads, self.clip_norm), params, self.decay)
        return [p - lr * g for p, g in zip(params, grads)], []


class Momentum:
    """Classical momentum: v <- mu v - lr g; p <- p + v (g as for SGD)."""
    name = "momentum"
    clip_norm = 0.0

    def __init__(self, params, mu=0.9, weight_decay=0.0):
        self.mu = _real(mu)
        self.decay = _real(weight_decay)
        self.state = [pytensor.shared(np.zeros_like(p.get_value()), name=f"v_{p.name}") for p in params]

    def step(self, params, grads, state, lr):
        grads = _decayed(clipped(grads, self.clip_norm), params, self.decay)
        velocity = [self.mu * v - lr * g for v, g in zip(state, grads)]
        return [p + v for p, v in zip(params, velocity)], velocity


class Adam:
    """Adam (Kingma and Ba) with bias correction; state: step count, first and second moments.
    With `weight_decay` it is AdamW: every weight matrix also shrinks by lr * decay per step
    (decoupled from the gradient; vectors such as biases and gains are left alone)."""
    name = "adam"
    clip_norm = 0.0

    def __init__(self, params, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.0):
        self.b1, self.b2, self.eps = _real(beta1), _real(beta2), _real(eps)
        self.decay = _real(weight_decay)
        self.state = [pytensor.shared(np.zeros((), dtype=FLOAT), name="t")]
        for p in params:
            self.state.append(pytensor.shared(np.zeros_like(p.get_value()), name=f"m_{p.name}"))
            self.state.append(pytensor.shared(np.zeros_like(p.get_value()), name=f"s_{p.name}"))

    def step(self, params, grads, state, lr):
        grads = clipped(grads, self.clip_norm)
        t = state[0] + 1
        rate = lr * pt.sqrt(1 - self.b2 ** t) / (1 - self.b1 ** t)
        new_params, new_state = [], [t]
        for p, g, m, s in zip(params, grads, state[1::2], state[2::2]):
            m = self.b1 * m + (1 - self.b1) * g
            s = self.b2 * s + (1 - self.b2) * g * g
            step = rate * m / (pt.sqrt(s) + self.eps)
            if self.decay and p.ndim > 1:
                step = step + lr * self.decay * p
            new_params.append(p - step)
            new_state += [m, s]
        return new_params, new_state


OPTIMIZERS = {"sgd": SGD, "momentum": Momentum, "adam": Adam}


def make(name, params, momentum=0.9, weight_decay=0.0, clip_norm=0.0):
    if name not in OPTIMIZERS:
        raise BadInput(f"unknown optimizer {name!r}: choose from {', '.join(OPTIMIZERS)}")
    if name == "momentum":
        rule = Momentum(params, momentum, weight_decay)
    else:
        rule = OPTIMIZERS[name](params, weight_decay=weight_decay)
    rule.clip_norm = clip_norm
    return rule
