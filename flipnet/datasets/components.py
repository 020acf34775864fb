"""Positions split into their live components, and one key per shape, over arrays.

The value of a flip position is the XOR of the values of its connected groups of full
cells, and a full cell with no full neighbour is worth nothing. So a position can be
handed to a model as the list of its groups of two or more cells, each named by its
shape's key: the Cram solver's canonical form (`solve.shapes.canonical`: the image
under rotation and reflection, moved to the corner, that lies with h <= w and has the
smallest bits), packed into one integer (`solve.shapes.packed_key`: bits | h << 52 |
w << 58). The key is the same wherever, however and on whatever board a shape lies, so what a model learns of a shape
on 5x5 boards it knows on 7x7 ones. Shapes of up to 52 cells of box have a key (any
board up to 7x7).
"""

import numpy as np

from flipnet.base.kernels import njit
from flipnet.base.errors import BadInput
from flipnet.solve.parts import WORD_CELLS
from flipnet.solve.shapes import (KEY_BITS, MAX_KEY_BOX, canonical, key_frame, key_sides, neighbours, packed_key, shape_cols,
                                  shape_rows, split)

BITS = KEY_BITS  # bits of a packed key that hold the shape's cells
MAX_BOX = MAX_KEY_BOX


@njit(cache=True)
def _count_parts(states, h, w):
    parts = np.empty(64, np.uint64)
    most = 0
    for i in range(states.size):
        most = max(most, split(states[i], h, w, parts))
    return most


@njit(cache=True)
def _split_all(states, h, w, out):
    parts = np.empty(64, np.uint64)
    for i in range(states.size):
        n = split(states[i], h, w, parts)
        for k in range(n):
            out[i, k] = parts[k]


@njit(cache=True)
def _keys(masks, h, w, out):
    """Keys into `out`; the number of masks whose box is too large to key (left at 0)."""
    rows, trows = np.empty(64, np.uint64), np.empty(64, np.uint64)
    too_large = 0
    for i in range(masks.size):
        if masks[i]:
            bits, shape = canonical(masks[i], h, w, rows, trows)
            if shape_rows(shape) * shape_cols(shape) > MAX_KEY_BOX:
                too_large += 1
                continue
            out[i] = packed_key(bits, shape)
    return too_large


@njit(cache=True)
def _render(keys, stride, out):
    """Each key's cells, top-left in a frame whose rows are `stride` cells long."""
    for i in range(keys.size):
        key = keys[i]
        if key == 0:
            continue
        bits, h, w = key_frame(key)
        mask = np.uint64(0)
        for r in range(h):
            row = (bits >> np.uint64(r * w)) & ((np.uint64(1) << np.uint64(w)) - np.uint64(1))
            mask |= row << np.uint64(r * stride)
        out[i] = mask


def key_shape(keys):
    """(h, w, cells) of each key."""
    return key_sides(keys)


class Components:
    """Live components of rows x cols positions, and their shapes' keys."""

    def __init__(self, rows, cols):
        if rows * cols > WORD_CELLS:
            raise BadInput(f"positions are 64-bit masks: a {rows}x{cols} board has {rows * cols} cells")
        self.rows, self.cols = rows, cols
        # a frame that holds every shape of the board in canonical orientation (h <= w)
        self.frame = (min(rows, cols), max(rows, cols))

    def live(self, states):
        """States with every full cell that has no full neighbour cleared (value unchanged)."""
        states = np.asarray(states, dtype=np.uint64)
        return states & _neighbours_all(states, self.rows, self.cols)

    def split(self, states):
        """(n, k) uint64 masks on the board: the live components of each state, k the most
        any state has, empty slots 0; in each row the components in order of their
        lowest cell."""
        states = np.ascontiguousarray(states, dtype=np.uint64).ravel()
        out = np.zeros((states.size, _count_parts(states, self.rows, self.cols)), np.uint64)
        _split_all(states, self.rows, self.cols, out)
        return out

    def keys(self, masks):
        """The shape key of each mask (0 for 0), same shape as `masks`."""
        masks = np.ascontiguousarray(masks, dtype=np.uint64)
        out = np.zeros(masks.size, np.uint64)
        if _keys(masks.ravel(), self.rows, self.cols, out):
            raise BadInput(f"a component's box has more than {MAX_BOX} cells: shape keys stop there")
        return out.reshape(masks.shape)

    def shapes(self, states):
        """The keys of every live component of the states, in one flat array."""
        parts = self.split(states)
        return self.keys(parts[parts != 0])

    def position_values(self, states, shape_values):
        """Each state's value, the XOR of its components' values (Sprague-Grundy);
        `shape_values(keys)` is asked once, for the distinct shapes present (never key 0)."""
        keys = self.keys(self.split(states))
        if keys.shape[1] == 0:
            return np.zeros(len(keys), np.int64)
        shapes, inverse = np.unique(keys, return_inverse=True)
        values = np.zeros(len(shapes), np.int64)
        present = shapes != 0
        if present.any():
            values[present] = shape_values(shapes[present])
        return np.bitwise_xor.reduce(values[inverse.reshape(keys.shape)], axis=1)

    def encode(self, states, slots):
        """(n, slots) uint64: the shape keys of each state's live components, 0 for unused
        slots; an error if a state has more components than slots."""
        parts = self.split(states)
        if parts.shape[1] > slots:
            raise BadInput(f"a position has {parts.shape[1]} live components; "
                             f"the model has {slots} slots")
        out = np.zeros((parts.shape[0], slots), dtype=np.uint64)
        out[:, :parts.shape[1]] = self.keys(parts)
        return out

    def render(self, keys, frame=None):
        """Masks of the keys' cells, top-left in a (rows, cols) frame (default: the board's
        `frame`); a key that does not fit is an error."""
        keys = np.ascontiguousarray(keys, dtype=np.uint64)
        frame_rows, frame_cols = frame or self.frame
        h, w, _ = key_shape(keys)
        if ((keys != 0) & ((h > frame_rows) | (w > frame_cols))).any():
            raise BadInput(f"a shape does not fit the {frame_rows}x{frame_cols} frame")
        out = np.zeros(keys.size, np.uint64)
        _render(keys.ravel(), frame_cols, out)
        return out.reshape(keys.shape)


@njit(cache=True)
def _neighbours_all(states, h, w):
    out = np.empty_like(states)
    for i in range(states.size):
        out[i] = neighbours(states[i], h, w)
    return out


def new_shape_positions(rows, cols, known, states, drawn=()):
    """(new, undrawn): for each of `states`, whether it holds a live component whose
    shape is not in `known` (sorted shape keys), and whether one of those is in `drawn`
    neither (the shapes a model was taught by its own 1-ply labels, `nn/components/drawn.py`)."""
    components = Components(rows, cols)
    keys = components.keys(components.split(states))
    new = (keys != 0) & ~np.isin(keys, known)
    return new.any(axis=1), (new & ~np.isin(keys, drawn)).any(axis=1)


def outgrows(keys, board):
    """For each key: whether no board of the `board` (rows, cols) holds the shape, in any
    orientation (its box does not fit): a shape a model trained on that board cannot have
    met, however many positions it saw."""
    h, w, _ = key_shape(keys)  # keys lie with h <= w
    short, long = sorted(board)
    return (h > short) | (w > long)


def beyond_board_positions(rows, cols, board, states):
    """For each rows x cols state: whether it holds a live component that `outgrows` the
    `board` (rows, cols)."""
    components = Components(rows, cols)
    return outgrows(components.keys(components.split(states)), board).any(axis=1)


def beyond_board_errors(wrong, beyond):
    """The error on positions whose components all fit the training board, and on those
    holding one that does not (its share beside it)."""
    wrong = np.asarray(wrong)
    return {"share_beyond_training_board": float(beyond.mean()) if beyond.size else 0.0,
            "error_within_training_board": _error_where(wrong, ~beyond),
            "error_beyond_training_board": _error_where(wrong, beyond)}


def largest_component_cells(rows, cols, states):
    """The cells of each state's largest live component (0 for a state with none)."""
    components = Components(rows, cols)
    keys = components.keys(components.split(states))
    return np.where(keys == 0, 0, key_shape(keys)[2]).max(axis=1, initial=0)


def errors_by_largest_component(wrong, largest):
    """{"positions_by_largest_component": {cells: [positions, wrong]}}: where a model's
    errors lie by the size of each position's largest component. Sizes a training board
    holds few shapes of are where a size-free network has least to go on."""
    wrong = np.asarray(wrong)
    return {"positions_by_largest_component": {
        str(int(n)): [int((largest == n).sum()), int(wrong[largest == n].sum())] for n in np.unique(largest)}}


def _error_where(wrong, where):
    """The error rate over the positions picked by `where`; None where it picks none."""
    return float(wrong[where].mean()) if where.any() else None


def split_errors(wrong, new, undrawn=None, prefix=""):
    """The error on positions made only of known shapes and on those holding a new one
    (the new-shape share beside it); with `undrawn`, the new-shape positions split again
    into those whose new shapes were all drawn and those holding one that was not."""
    wrong = np.asarray(wrong)
    out = {f"{prefix}share_new_shapes": float(new.mean()) if new.size else 0.0,
           f"{prefix}error_known_shapes": _error_where(wrong, ~new),
           f"{prefix}error_new_shapes": _error_where(wrong, new)}
    if undrawn is not None:
        out.update({f"{prefix}share_new_shapes_not_drawn": float(undrawn.mean()) if new.size else 0.0,
                    f"{prefix}error_new_shapes_all_drawn": _error_where(wrong, new & ~undrawn),
                    f"{prefix}error_new_shapes_not_drawn": _error_where(wrong, undrawn)})
    return out


def shape_split_errors(rows, cols, train_states, test_states, wrong, drawn=()):
    """The test error on positions made only of shapes met in training and on those that
    hold a new one: what a memory of training shapes can and cannot help with. With
    `drawn` (a model's 1-ply-labelled shapes), the new ones split by whether all were drawn."""
    known = np.unique(Components(rows, cols).shapes(train_states))
    new, undrawn = new_shape_positions(rows, cols, known, test_states, drawn)
    out = split_errors(wrong, new, undrawn if len(drawn) else None, prefix="test_")
    return {k: 0.0 if v is None else v for k, v in out.items()}


@njit(cache=True)
def _options(keys, option_start, part_start, part_keys, fill):
    """Every option of every shape: the shape minus one domino, as the keys of its parts
    (components of two cells or more). First pass (fill False) counts, second fills."""
    rows, trows = np.empty(64, np.uint64), np.empty(64, np.uint64)
    parts = np.empty(64, np.uint64)
    n_options = n_parts = 0
    for i in range(keys.size):
        if fill:
            option_start[i] = n_options
        key = keys[i]
        bits, h, w = key_frame(key)
        for vertical in range(2):
            step = np.uint64(w) if vertical else np.uint64(1)
            if vertical:
                moves = bits & (bits >> step)
            else:
                last_col = np.uint64(0)
                for r in range(h):
                    last_col |= np.uint64(1) << np.uint64(r * w + w - 1)
                moves = bits & (bits >> step) & ~last_col
            while moves:
                low = moves & (~moves + np.uint64(1))
                moves &= moves - np.uint64(1)
                if fill:
                    part_start[n_options] = n_parts
                for k in range(split(bits & ~(low | (low << step)), h, w, parts)):
                    if fill:
                        pb, ps = canonical(parts[k], h, w, rows, trows)
                        part_keys[n_parts] = packed_key(pb, ps)
                    n_parts += 1
                n_options += 1
    if fill:
        option_start[keys.size] = n_options
        part_start[n_options] = n_parts
    return n_options, n_parts


def options(keys):
    """(option_start, part_start, part_keys): the options of shape i are option_start[i]
    to option_start[i + 1]; the parts of option j are part_keys[part_start[j]:part_start[j + 1]]
    (keys of the components left by a move; none when nothing of two cells is left)."""
    keys = np.ascontiguousarray(keys, dtype=np.uint64).ravel()
    empty = np.zeros(1, np.int64)
    n_options, n_parts = _options(keys, empty, empty, np.zeros(1, np.uint64), False)
    option_start = np.zeros(keys.size + 1, np.int64)
    part_start = np.zeros(n_options + 1, np.int64)
    part_keys = np.zeros(max(n_parts, 1), np.uint64)
    _options(keys, option_start, part_start, part_keys, True)
    return option_start, part_start, part_keys[:n_parts]
