"""flipnet: learning Sprague-Grundy values with neural networks.

Exact solvers and datasets for the flip game and its Nim relatives, the 2016 Theano
study's networks rebuilt as PyTensor graphs, and playable agents. The public names
below are imported when first used, so `import flipnet` loads nothing else and changes
nothing in the host process (docs/api.md lists them):

>>> import flipnet
>>> flipnet.value("1111/1111/1111").value    # the full 3x4 board's nim-value
1
"""

__version__ = "0.1.0"

# public name -> the module that defines it (flipnet/api/)
_PUBLIC = {
    "value": "flipnet.api.positions", "values": "flipnet.api.positions",
    "Result": "flipnet.api.positions", "Move": "flipnet.api.positions", "MoveValue": "flipnet.api.positions",
    "Component": "flipnet.api.positions", "Engine": "flipnet.api.positions",
    "EngineSettings": "flipnet.api.positions", "default_engine": "flipnet.api.positions",
    "long_solve": "flipnet.api.solves", "standing": "flipnet.api.solves", "LongSolve": "flipnet.api.solves",
    "load_dataset": "flipnet.api.data", "Dataset": "flipnet.api.data", "unpack": "flipnet.api.data",
    "load_model": "flipnet.api.models", "models": "flipnet.api.models", "Model": "flipnet.api.models",
    "ModelEntry": "flipnet.api.models",
    "FlipnetError": "flipnet.base.errors",
}
__all__ = ["__version__", "games", *_PUBLIC]


def __getattr__(name):
    if name in _PUBLIC:
        import importlib

        value = getattr(importlib.import_module(_PUBLIC[name]), name)
        globals()[name] = value  # once: later uses are plain attribute reads
        return value
    if name == "games":
        import flipnet.games

        return flipnet.games
    raise AttributeError(f"module 'flipnet' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
