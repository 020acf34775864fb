"""Neural networks as hand-built PyTensor graphs: layers -> models -> training.

Everything here sees arrays (state integers and labels), never games. Graphs are built
in float32 (`FLOAT`); PyTensor's default linker (Numba) compiles them.
"""

import pytensor

FLOAT = "float32"
pytensor.config.floatX = FLOAT  # Python float constants in graphs stay float32
