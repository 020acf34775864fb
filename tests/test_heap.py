"""Freed memory kept for reuse (base/heap.py): a convmem2d training step faults in no new
pages once it has run, unlike the same steps under glibc's own thresholds
(FLIPNET_HEAP=system). Both run in fresh processes: the setting is per process."""

import json
import os
import subprocess
import sys

import pytest

from flipnet.base.heap import _mallopt

pytestmark = pytest.mark.skipif(_mallopt() is None, reason="the C library has no mallopt")

# convmem2d's step as the command trains it on test_convmem.py's 4x4 boards (clipped Adam):
# one graph for both, so a cold cache compiles it once
STEPS = """
from flipnet.base.process import set_up_command
set_up_command()  # as the command starts
import json, resource
import numpy as np
from flipnet.nn.components.maskconv import MaskedConvNet
from flipnet.nn.components.shapetrain import step_function
from flipnet.nn.core import optim
net = MaskedConvNet(0, channels=32, layers=4)
step = step_function(net, optim.make("adam", net.params, clip_norm=2.0), 4)
rng = np.random.default_rng(0)
cells = (rng.random((512, 16)) < 0.6).astype("float32")
values = rng.integers(0, 8, 512)
for _ in range(3):
    step(cells, values, np.float32(1e-3))
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(5):
    step(cells, values, np.float32(1e-3))
print(json.dumps((resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 5))
"""


def faults_per_step(**env):
    out = subprocess.run([sys.executable, "-c", STEPS], capture_output=True, text=True, check=True,
                         env={**os.environ, **env})
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_a_training_step_reuses_the_memory_the_last_one_freed():
    kept, system = faults_per_step(), faults_per_step(FLIPNET_HEAP="system")
    assert system > 1000  # glibc maps and unmaps the larger arrays of every step
    assert kept < system / 20
