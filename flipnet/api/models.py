"""Trained flip models: `models()` lists what ships and what was trained here,
`load_model(name_or_path)` gives a `Model` that predicts the values of positions."""

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from flipnet import games
from flipnet.api.positions import _grouped
from flipnet.base import shipped
from flipnet.base.files import RESULTS_DIR, read_json
from flipnet.base.places import shown

__all__ = ["Model", "ModelEntry", "load_model", "models"]

AGENTS = ("es", "nim")  # the manifest's trained agents: Nim players, not flip models


@dataclass(frozen=True)
class ModelEntry:
    """A model `load_model` can load: by `name`, from `file`."""

    name: str
    kind: str  # its model kind (conv1d, mlp2d, convmem2d, ...)
    board: str  # the board it was trained on, "5x5"
    source: str  # "shipped" or "trained here" (results/)
    file: str
    figures: dict = field(default_factory=dict)  # its headline figures, e.g. {"test error": 0.003}


class Model:
    """A trained flip model: the values it predicts for positions, beside nothing exact.

    `name`, `kind` (its model kind), `board` ("5x5", the training board), `size_free`
    (it reads boards of any size), `file`, and `info`: how it was trained and its figures
    (the manifest's for a shipped model, else its results file's).
    """

    def __init__(self, network, name, file, info, loaded=None):
        self.network, self.name, self.file, self.info = network, name, str(file), info
        self.loaded = loaded  # for a model asked for by name: which file that was, in words
        self._predictors = {}

    @property
    def kind(self) -> str:
        return self.network.name

    @property
    def board(self) -> str:
        return f"{self.network.rows}x{self.network.cols}"

    @property
    def size_free(self) -> bool:
        return self.network.size_free

    def __repr__(self):
        return f"<flipnet.Model {self.name} ({self.kind}, {self.board}{', size-free' if self.size_free else ''})>"

    def predict(self, positions, one_ply: bool | str = False):
        """The predicted nim-value of a position (text: an int) or of many (texts, bit boards
        of its board, or an (N, rows, cols) array: an int64 array). `one_ply`: a component
        model values the shapes it never met by the mex of its own values of their options
        (True or "soft": the most likely mex of their distributions; "hard": the mex of their
        most likely values). At most 4096 positions are computed op by op in numpy, with
        nothing to compile; more are compiled with Numba once (seconds, tens the first
        time on a new install), then run many times faster.

        >>> import flipnet
        >>> best = flipnet.load_model("best")
        >>> position = "11011/11111/01110/11011/10111"
        >>> best.predict(position), flipnet.value(position).value
        (0, 0)
        >>> best.predict(["1111/1111/1111", "111/111"]).tolist()   # size-free: any board
        [1, 1]
        """
        return self._each(positions, lambda m, states: self._predictor(m, one_ply)(states), np.int64)

    def probabilities(self, positions) -> np.ndarray:
        """Its distribution of each position's value: (values,) for one text, else (N, values).
        A component model's is the XOR convolution of its shapes' distributions (certain ones
        for the lookup table's).

        >>> import flipnet
        >>> p = flipnet.load_model("mlp2d").probabilities("11011/11111/01110/11011/10111")
        >>> p.shape, round(float(p.sum()), 6)
        ((10,), 1.0)
        """
        return self._each(positions, lambda m, states: m.position_probabilities(states), np.float64)

    def components(self, position: str):
        """[(component, predicted value, known)] of one position for a component model
        (None for a model of whole positions): each connected shape alone on the board, the
        model's value of it, and whether its training fixed that shape's value.

        >>> import flipnet
        >>> flipnet.load_model("best").components("11000/00011")
        [('11000/00000', 1, True), ('00000/00011', 1, True)]
        """
        (index, board, states), = _grouped([position], "flip", None, None)
        model = self._on(board)
        if not model.values_shapes:
            return None
        parts = model.components.split(np.asarray(states, np.uint64))[0]
        parts = parts[parts != 0]
        keys = model.components.keys(parts)
        known = model.known_shapes()  # sorted
        values = model.shape_values(keys) if len(keys) else []
        met = np.ones(len(keys), bool)
        if known is not None and len(known):
            met = known[np.minimum(np.searchsorted(known, keys), len(known) - 1)] == keys
        elif known is not None:
            met[:] = False
        return [(board.format(int(p)), int(v), bool(k)) for p, v, k in zip(parts, values, met)]

    def _each(self, positions, answer, dtype):
        single = isinstance(positions, str)
        shape = (self.network.rows, self.network.cols)
        fixed = None if self.size_free else games.make("flip", shape=shape)  # reads its own board only
        groups = _grouped([positions] if single else positions, "flip", None, shape, fixed)
        out = None
        for index, board, states in groups:
            got = answer(self._on(board), np.asarray(states, np.uint64))
            if out is None:
                out = np.zeros((sum(len(i) for i, _, _ in groups), *np.shape(got)[1:]), dtype)
            out[index] = got
        if out is None:  # no position asked
            return np.zeros((0,) if dtype == np.int64 else (0, self.network.n_classes), dtype)
        return out[0] if single and dtype == np.float64 else int(out[0]) if single else out

    def _on(self, board):
        from flipnet.nn.core.compile import QUICK_ROWS
        from flipnet.nn.evaluation.evaluate import on_board

        key = (board.rows, board.cols)
        if key not in self._predictors:
            model = on_board(self.network, *key, f"a {board.shape} position")
            model.quick_rows = QUICK_ROWS  # a few positions are answered without a compile
            self._predictors[key] = {"model": model}
        return self._predictors[key]["model"]

    def _predictor(self, model, one_ply):
        from flipnet.nn.evaluation.evaluate import predictor

        cached = self._predictors[(model.rows, model.cols)]
        rule = "soft" if one_ply is True else one_ply
        if rule not in cached:
            cached[rule] = predictor(model, rule)
        return cached[rule]


def load_model(name_or_path) -> Model:
    """A trained model by name (results/NAME.npz when trained here, else the shipped one;
    "best" is the best 2D model) or by the path of a model file.

    >>> import flipnet
    >>> flipnet.load_model("best")
    <flipnet.Model convmem2d-gated12-80-distil6m-r2 (convmem2d, 5x5, size-free)>
    >>> round(flipnet.load_model("mlp2d").info["figures"]["test error"], 4)
    0.1025
    """
    from flipnet.nn.core.kinds import read_model

    spec = str(name_or_path)
    path, how = shipped.resolve(spec)
    network, _ = read_model(path)
    name = shipped.canonical(spec) if how else Path(path).stem
    return Model(network, name, path, _info(name, path, how, network), loaded=how)


def models() -> list[ModelEntry]:
    """The flip models `load_model` takes by name: those that ship, then those trained here
    (results/*.npz), each with its kind, board and headline figures.

    >>> import flipnet
    >>> [m.name for m in flipnet.models() if m.source == "shipped"][:3]
    ['xornet1d', 'conv1d-fast', 'lookup2d']
    """
    from flipnet.nn.core.kinds import KINDS
    from flipnet.nn.core.store import read_meta
    from flipnet.nn.evaluation.shipping import figure_values

    out = []
    for name, entry in shipped.manifest()["models"].items():
        if name not in AGENTS:
            out.append(ModelEntry(name, _kind_of(entry), entry.get("board", ""), "shipped",
                                  shown(shipped.MODELS_DIR / entry["file"]["path"]), figure_values(entry)))
    for path in sorted(RESULTS_DIR.glob("*.npz")):
        meta = read_meta(path) if not path.name.endswith(".ckpt.npz") else None
        if meta and meta.get("model") in KINDS:
            out.append(ModelEntry(path.stem, meta["model"], f"{meta.get('rows')}x{meta.get('cols')}", "trained here",
                                  str(path), _results_figures(path.with_suffix(".json"))))
    return out


def _kind_of(entry):
    from flipnet.nn.core.store import read_meta

    return (read_meta(shipped.MODELS_DIR / entry["file"]["path"]) or {}).get("model", "")


def _results_figures(path):
    if not path.is_file():
        return {}
    results = read_json(path, "results file")
    return {figure: results[key] for figure, key in (("valid error", "valid_error"), ("test error", "test_error"))
            if isinstance(results.get(key), (int, float))}


def _info(name, path, how, network):
    """How the model was trained and its figures: the manifest's for a shipped model, else
    those of the results file beside its file (results/NAME.json)."""
    from flipnet.nn.evaluation.shipping import figure_values

    entry = shipped.manifest()["models"].get(name) if how and "shipped" in how else None
    config = network.meta.get("config", {}) if isinstance(network.meta.get("config"), dict) else {}
    if entry is not None:
        return {"source": "shipped", "recipe": entry.get("recipe"), "seed": entry.get("seed"),
                "board": entry.get("board"), "trained": entry.get("trained", {}), "retrain": entry.get("retrain"),
                "figures": figure_values(entry)}
    return {"source": "trained here" if how else "file", "recipe": config.get("recipe"), "seed": config.get("seed"),
            "board": f"{network.rows}x{network.cols}", "figures": _results_figures(Path(path).with_suffix(".json"))}

