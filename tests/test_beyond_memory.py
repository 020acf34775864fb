"""What the component models need to go beyond memorisation: the lookup baseline, a
shape's options from the game's rules, one ply of lookahead, size-free descriptions,
and models that read boards of other sizes."""

import numpy as np
import pytest

from flipnet.datasets.components import Components, key_shape, options
from flipnet.datasets.shapes import FEATURES, ShapeTable, describe
from flipnet.games import FlipGame
from flipnet.nn.components.lookup import ShapeLookup
from flipnet.nn.components.oneply import mex_distribution, one_hot, one_ply, option_distributions
from flipnet.solve import table
from flipnet.solve.cram import CramSolver
from flipnet.solve.cram.limits import MIN_TABLE_LOG
from test_components import reference_components

# Values, not the Numba path (test_train.py and test_parallel.py compile networks with it):
# the networks' graphs on the Python linker, where a cold compile of the predictors took 16 s.
pytestmark = pytest.mark.usefixtures("python_linker_module")


def exact_component_values(keys):
    """Independent values of shapes: the Cram solver on each key's cells."""
    solver = CramSolver(progress=False, tt_log=MIN_TABLE_LOG)
    out = []
    for key in np.asarray(keys, np.uint64).tolist():
        h, w = (key >> 52) & 63, key >> 58
        bits = key & ((1 << 52) - 1)
        out.append(solver.value({(r, c) for r in range(h) for c in range(w) if bits >> (r * w + c) & 1}))
    return np.array(out)


@pytest.fixture(scope="module")
def board_3x4():
    game = FlipGame(3, 4)
    return game, table(game)


def test_options_are_the_shape_minus_each_domino(board_3x4):
    game, _ = board_3x4
    comps = Components(3, 4)
    states = np.random.default_rng(0).integers(0, 1 << 12, size=200, dtype=np.uint64)
    keys = np.unique(comps.shapes(states))
    option_start, part_start, part_keys = options(keys)
    for i, key in enumerate(keys.tolist()):
        h, w = (key >> 52) & 63, key >> 58
        bits = key & ((1 << 52) - 1)
        small = FlipGame(h, w)
        expected = sorted(sorted(Components(h, w).shapes(np.array([bits & ~m], np.uint64)).tolist())
                          for m in small.legal_moves(bits))
        got = sorted(sorted(part_keys[part_start[j]:part_start[j + 1]].tolist())
                     for j in range(option_start[i], option_start[i + 1]))
        assert got == expected


@pytest.mark.slow
def test_one_ply_over_exact_values_is_exact():
    """With the true values of the children, the mex rule gives the true value."""
    comps = Components(4, 4)
    keys = np.unique(comps.shapes(np.random.default_rng(1).integers(0, 1 << 16, size=300, dtype=np.uint64)))
    assert np.array_equal(one_ply(one_hot(exact_component_values), keys), exact_component_values(keys))


def test_option_distributions_are_the_xor_of_independent_parts():
    """Against enumeration: the distribution of a XOR b XOR c for independent parts."""
    rng = np.random.default_rng(3)
    parts = rng.dirichlet(np.ones(8), size=4)  # option 0: parts 0, 1, 2; option 1: part 3; option 2: none
    got = option_distributions(parts, np.array([0, 3, 4, 4]))
    expected = np.zeros((3, 8))
    for a in range(8):
        for b in range(8):
            for c in range(8):
                expected[0, a ^ b ^ c] += parts[0, a] * parts[1, b] * parts[2, c]
    expected[1] = parts[3]
    expected[2, 0] = 1.0
    assert np.allclose(got, expected)


def test_the_mex_distribution_is_the_mex_when_values_are_certain_and_weighs_doubt():
    certain = np.eye(8)[[0, 1, 3, 1]]
    assert mex_distribution(certain).argmax() == 2 and np.isclose(mex_distribution(certain).max(), 1.0)
    # one option is 0 for sure, the other is 1 with probability p: the mex is 2 with p, else 1
    for p in (0.2, 0.7):
        doubtful = np.array([[1.0, 0, 0, 0], [1 - p, p, 0, 0]])
        assert np.allclose(mex_distribution(doubtful), [0.0, 1 - p, p, 0.0])


def test_the_lookup_reads_what_the_labels_spell_out(board_3x4):
    game, values = board_3x4
    rng = np.random.default_rng(2)
    train = rng.choice(1 << 12, size=1500, replace=False).astype(np.uint64)
    lookup = ShapeLookup.fit(train, values[train], 3, 4)
    assert np.array_equal(lookup(train), values[train])  # every training label reproduced
    assert np.array_equal(lookup.component_values(lookup.keys), exact_component_values(lookup.keys))
    unseen = np.setdiff1d(np.arange(1 << 12, dtype=np.uint64), train)
    predicted = lookup(unseen)
    assert (predicted == values[unseen]).mean() > 0.9  # most positions are made of known shapes
    # `--one-ply` on the table's values (new shapes only) is exact on every position whose
    # shapes are known or have only known shapes among their children's components (found
    # here by a flood fill and the game's moves), and changes nothing on positions of known shapes
    from flipnet.nn.evaluation.evaluate import predictor

    with_ply = predictor(lookup, "soft")(unseen)
    comps, known = Components(3, 4), set(lookup.keys.tolist())

    def key(mask):
        return int(comps.keys(np.array([mask], np.uint64))[0])

    def status(state):  # "known", "covered" (one ply reads only known values) or "open"
        parts = reference_components(int(state), 3, 4)
        new = [m for m in parts if key(m) not in known]
        children = [m & ~move for m in new for move in game.move_masks if m & move == move]
        if not new:
            return "known"
        return "covered" if all(key(c) in known for child in children
                                for c in reference_components(child, 3, 4)) else "open"

    statuses = np.array([status(s) for s in unseen])
    for kind in ("known", "covered"):
        at = statuses == kind
        assert at.sum() >= 20, kind
        assert np.array_equal(with_ply[at], values[unseen][at]), kind
    assert np.array_equal(with_ply[statuses == "known"], predicted[statuses == "known"])


def test_descriptions_are_size_free_and_the_table_grows():
    comps5, comps7 = Components(5, 5), Components(7, 7)
    s_tetromino = {(0, 0), (0, 1), (1, 1), (1, 2)}
    on5 = sum(1 << (r * 5 + c) for r, c in s_tetromino)
    on7 = sum(1 << ((r + 3) * 7 + c + 2) for r, c in s_tetromino)  # elsewhere on a 7x7 board
    key5 = comps5.keys(np.array([on5], np.uint64))
    key7 = comps7.keys(np.array([on7], np.uint64))
    assert key5[0] == key7[0]
    assert np.array_equal(describe(key5), describe(key7)) and describe(key5).shape == (1, FEATURES)
    table_ = ShapeTable()
    first = table_.rows(np.array([key5[0], 0, key5[0]], np.uint64))
    assert first.tolist() == [1, 0, 1] and table_.array.shape == (2, FEATURES)
    other = comps5.keys(np.array([0b111], np.uint64))
    assert table_.rows(np.concatenate([other, key5])).tolist() == [2, 1]


@pytest.mark.slow
def test_a_size_free_model_reads_a_larger_board(tmp_path):
    """featmem2d trained on 3x3 boards reads 3x4 positions; xormem2d (cells) refuses."""
    from flipnet.nn.core.kinds import build
    from flipnet.nn.evaluation.evaluate import on_board

    model = build("featmem2d", 0, 3, 3)
    model.fit(np.arange(1 << 9, dtype=np.uint64))
    wide = on_board(model, 3, 4, "3x4 data")
    inputs = wide.prepare(np.arange(1 << 12, dtype=np.uint64))
    assert inputs.shape[1] == wide.slots >= model.slots
    cells = build("xormem2d", 0, 3, 3)
    with pytest.raises(Exception, match="not size-free"):
        on_board(cells, 3, 4, "3x4 data")


@pytest.mark.slow
def test_a_component_model_gives_probabilities_for_the_soft_mex():
    """What one ply reads from a network: a distribution per shape whose most likely value
    is the model's value."""
    from flipnet.nn.core.compile import ComponentPredictor
    from flipnet.nn.core.kinds import build

    model = build("xormem2d", 0, 3, 3)
    model.fit(np.arange(1 << 8, dtype=np.uint64))
    keys = np.unique(model.components.shapes(np.arange(1 << 9, dtype=np.uint64)))
    keys = keys[keys != 0]
    predictor = ComponentPredictor(model)
    probs = predictor.probabilities(keys)
    assert probs.shape == (keys.size, model.n_classes) and np.allclose(probs.sum(axis=1), 1.0, atol=1e-5)
    assert np.array_equal(probs.argmax(axis=1), predictor(keys))
    # on the network's most likely values, one ply is the mex over the shape's moves of the
    # XOR of its children's parts, each found here by the game's moves and a flood fill
    comps, game = Components(3, 3), FlipGame(3, 3)
    shapes = comps.render(keys, (3, 3)).astype(np.int64).tolist()

    def value(mask):
        parts = reference_components(mask, 3, 3)
        found = predictor(comps.keys(np.array(sorted(parts), np.uint64))) if parts else []
        return int(np.bitwise_xor.reduce(np.asarray(found, np.int64), initial=0))

    def mex(values):
        return min(set(range(len(values) + 1)) - set(values))

    by_hand = [mex([value(s & ~m) for m in game.move_masks if s & m == m]) for s in shapes]
    assert one_ply(one_hot(predictor, model.n_classes), keys).tolist() == by_hand


def test_key_shapes_count_cells():
    keys = Components(5, 5).keys(np.array([0b11, 0b111 | 0b1 << 5], np.uint64))
    h, w, cells = key_shape(keys)
    assert h.tolist() == [1, 2] and w.tolist() == [2, 3] and cells.tolist() == [2, 4]


@pytest.mark.slow
def test_an_ensemble_multiplies_its_members_distributions(tmp_path):
    """Two component networks read as one: the normalised geometric mean of their shape
    distributions, and positions valued as the XOR of the shapes' most likely values."""
    from flipnet.base.errors import FlipnetError
    from flipnet.nn.components.ensemble import ComponentEnsemble
    from flipnet.nn.core.compile import ComponentPredictor
    from flipnet.nn.core.kinds import build

    members = []
    for name, seed in (("xormem2d", 0), ("featmem2d", 1)):
        model = build(name, seed, 3, 3)
        model.fit(np.arange(1 << 8, dtype=np.uint64))
        model.meta = {"config": {"data": "tiny.h5", "bucket": 0}}  # as its file would say
        members.append(model)
    ensemble = ComponentEnsemble(members)
    states = np.arange(1 << 9, dtype=np.uint64)
    keys = np.unique(ensemble.components.shapes(states))
    keys = keys[keys != 0]
    a, b = (ComponentPredictor(m).probabilities(keys) for m in members)
    expected = np.sqrt(a * b) / np.sqrt(a * b).sum(axis=1, keepdims=True)
    assert np.allclose(ensemble.probabilities(keys), expected, atol=1e-6)
    values = dict(zip(keys.tolist(), expected.argmax(axis=1).tolist()))
    comps = ensemble.components
    by_hand = []
    for row in comps.keys(comps.split(states)).tolist():
        x = 0
        for k in row:
            x ^= values[k] if k else 0
        by_hand.append(x)
    assert ensemble(states).tolist() == by_hand
    other = build("featmem2d", 1, 3, 3)
    other.meta = {"config": {"data": "other.h5", "bucket": 0}}
    with pytest.raises(FlipnetError, match="was trained on other.h5 bucket 0"):
        ComponentEnsemble([members[0], other])
    with pytest.raises(FlipnetError, match="needs two models or more"):
        ComponentEnsemble(members[:1])
