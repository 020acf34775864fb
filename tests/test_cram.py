"""The Cram solver against the published nimbers of full boards and against the table DP
on random positions; its canonical forms, endgame database, mirror rule, winning moves,
limits and time-outs."""

import os
import threading
import time

import numpy as np
import pytest
from crowded_tables import crowd, keys_of_one_bucket, lines

from flipnet.base.errors import FlipnetError
from flipnet.base.kernels import njit
from flipnet.games import FlipGame
from flipnet.solve import table
from flipnet.solve.cram import MIN_TABLE_LOG, CramSolver, bits, components, entries, search
from flipnet.solve.cram.checkpoint import facts_of
from flipnet.solve.cram.endgame import Endgame
from flipnet.solve.cram.keys import shape_cols, shape_rows
from flipnet.solve.cram.memory import zeroed_table
from flipnet.solve.cram.wide import wide
from flipnet.solve.kayles import dawson_kayles

# Published nimbers of full rectangles (docs/sources.md): Dawson's Kayles for 1 x n,
# 0/1 for even/odd 2 x n, Lemoine-Viennot's and Beling's tables for the rest.
PUBLISHED = {(3, n): v for n, v in zip(range(3, 13), (0, 1, 1, 4, 1, 3, 1, 2, 0, 1))}
PUBLISHED.update({(4, n): v for n, v in zip(range(4, 9), (0, 2, 0, 3, 0))})
PUBLISHED.update({(5, 5): 0, (5, 6): 2})


def full(rows, cols):
    return {(r, c) for r in range(rows) for c in range(cols)}


@pytest.fixture(scope="module")
def solver():
    return CramSolver(progress=False, tt_log=20)


@pytest.mark.parametrize("rows, cols", sorted(PUBLISHED))
def test_full_boards_have_the_published_nimbers(solver, rows, cols):
    assert solver.value(full(rows, cols)) == PUBLISHED[rows, cols]
    assert solver.value(full(cols, rows)) == PUBLISHED[rows, cols]  # the same board turned


def test_rows_and_two_row_boards(solver):
    for n in range(1, 40):
        assert solver.value(full(1, n)) == dawson_kayles(n)  # answered by Kayles, no search
        assert solver.values_of_states([(1 << n) - 1], 1, n)[0] == dawson_kayles(n)  # the search
    assert solver.value(full(1, 1000)) == dawson_kayles(1000)  # longer than a frame
    for n in range(1, 12):
        assert solver.value(full(2, n)) == n % 2


@pytest.mark.parametrize("rows, cols, seed", [(4, 5, 1), (3, 8, 2), (4, 6, 3)])
def test_random_positions_match_the_table(solver, rows, cols, seed):
    game = FlipGame(rows, cols)
    values = table(game)
    for state in np.random.default_rng(seed).integers(0, 1 << game.n_cells, size=300).tolist():
        assert solver.value(game.cells(state)) == values[state], game.format(state)


def test_random_5x5_positions_match_the_table(table_5x5):
    game, fresh = FlipGame(5, 5), CramSolver(progress=False, tt_log=MIN_TABLE_LOG)
    crowd(fresh, free=2)  # two slots a bucket left: a crowded table
    for state in np.random.default_rng(4).integers(0, 1 << 25, size=400).tolist():
        assert fresh.value(game.cells(state)) == table_5x5[state]


@pytest.mark.slow
@pytest.mark.parametrize("workers", [2, 3, 4])
def test_any_number_of_workers_gives_the_values_and_moves_of_the_table_and_of_one_worker(table_5x5, workers):
    """N threads searching each component together, sharing a small table (so that
    entries are replaced while they use it), more threads than cores included: the
    values and the winning moves never depend on their race."""
    game = FlipGame(5, 5)
    many = CramSolver(progress=False, tt_log=MIN_TABLE_LOG, workers=workers, mirror=False)
    crowd(many)
    for state in np.random.default_rng(5).integers(0, 1 << 25, size=300).tolist():
        assert many.value(game.cells(state)) == table_5x5[state], game.format(state)
    one = CramSolver(progress=False, tt_log=MIN_TABLE_LOG, mirror=False)
    crowd(one)
    rng = np.random.default_rng(6)
    for rows, cols in ((6, 6), (7, 7), (6, 8)):
        for k in range(40):
            cells = [(r, c) for r in range(rows) for c in range(cols) if rng.random() < 0.5]
            if k % 8:
                assert many.value(cells) == one.value(cells), cells
            else:
                assert many.winning_moves(cells) == one.winning_moves(cells), cells
    for rows, cols in ((4, 7), (3, 10)):  # full boards, without the mirror rule's shortcut
        assert many.value(full(rows, cols)) == one.value(full(rows, cols)) == PUBLISHED[rows, cols]
    assert all(stats[search.NODES] > 0 for stats in many._worker_stats[:2])  # the work was shared
    assert sum(stats[search.REPLACED] for stats in many._worker_stats) > 0
    assert len(many._worker_stats) == workers


def test_the_endgame_database_answers_what_the_search_would():
    endgame = Endgame.build(boxes=((2, 6), (3, 4)))
    with_db = CramSolver(endgame=endgame, progress=False, tt_log=MIN_TABLE_LOG)
    without = CramSolver(progress=False, tt_log=MIN_TABLE_LOG)
    game = FlipGame(4, 6)
    for state in np.random.default_rng(7).integers(0, 1 << 24, size=200).tolist():
        assert with_db.value(game.cells(state)) == without.value(game.cells(state))
    assert with_db.report()["database_hits"] > 0 and without.report()["database_hits"] == 0
    # the lookup itself: every position of a 3x4 box, against the table of that box
    assert np.array_equal(endgame.box_table(1), table(FlipGame(3, 4)))


def test_a_crowded_table_forgets_small_components_and_stays_exact(table_5x5):
    """With one slot a bucket left the table replaces entries all the time (the smallest
    component of a full bucket goes); the values must not change."""
    game, tiny = FlipGame(5, 5), CramSolver(progress=False, tt_log=MIN_TABLE_LOG)
    crowd(tiny)
    rng = np.random.default_rng(5)
    for _ in range(150):  # positions of four cells in five: large components, many facts
        state = sum(1 << i for i in range(25) if rng.random() < 0.8)
        assert tiny.value(game.cells(state)) == table_5x5[state]
    assert tiny.stats[search.REPLACED] > 0


def test_a_full_bucket_loses_its_smallest_component():
    log, shape = 19, 8 << 7 | 8
    keys = keys_of_one_bucket(shape, log, 9)
    assert set(lines(keys, shape, log).tolist()) == {0}  # one bucket: the mix's inverse is right
    tt, stats = np.zeros((1 << log, 1), np.uint64), np.zeros(8, np.int64)
    for key in keys[:8]:
        entries.tt_store(tt, log, key, shape, 1, stats)
    assert stats[search.REPLACED] == 0 and sorted(facts_of(tt, most=tt.shape[0])[0].tolist()) == sorted(keys[:8].tolist())
    entries.tt_store(tt, log, keys[8], shape, 2, stats)
    smallest = min(keys[:8].tolist(), key=lambda k: bin(k).count("1"))
    assert stats[search.REPLACED] == 1
    assert sorted(facts_of(tt, most=tt.shape[0])[0].tolist()) == sorted(set(keys.tolist()) - {smallest})
    assert entries.tt_value(entries.tt_probe(tt, log, keys[8], shape)) == 2


@pytest.mark.parametrize("log", [MIN_TABLE_LOG, 24, 28])
def test_a_word_keeps_any_key_whole_with_its_nimber_or_the_values_excluded(log):
    """Random keys of every shape a word's box can have: each probe gives back what was
    stored (the values excluded below log - 13: those beyond are forgotten, never wrong),
    and the key comes back whole from its word and slot, as a checkpoint reads it."""
    rng = np.random.default_rng(log)
    tt, stats = zeroed_table(1 << log, 1), np.zeros(8, np.int64)  # 4 kB pages, each zeroed as it is written
    shapes = [h << 7 | w for h in range(1, 65) for w in range(1, 65) if h * w <= 64]
    kept, held = (1 << (log - 13)) - 1, {}
    for _ in range(3000):
        shape = int(rng.choice(shapes))
        key = int(rng.integers(1, 1 << (shape_rows(shape) * shape_cols(shape)), dtype=np.uint64))
        if rng.random() < 0.4:
            value = int(rng.integers(0, 33))
            entries.tt_store(tt, log, np.uint64(key), shape, value, stats)
            held[key, shape] = value
        else:
            excluded = int(rng.integers(1, 1 << 32))
            entries.tt_exclude_set(tt, log, np.uint64(key), shape, np.uint64(excluded), stats)
            if not isinstance(held.get((key, shape)), int) and excluded & kept:
                held[key, shape] = frozenset(v for v in range(32) if excluded >> v & 1 and v < log - 13) | \
                    held.get((key, shape), frozenset())
    for (key, shape), fact in held.items():
        meta = entries.tt_probe(tt, log, np.uint64(key), shape)
        excluded = {v for v in range(64) if int(entries.tt_excluded(np.uint64(meta))) >> v & 1}
        assert (entries.tt_value(np.uint64(meta)), excluded) == \
            ((fact, set()) if isinstance(fact, int) else (-1, set(fact)))
        slot, same = entries.tt_entry(tt, log, np.uint64(key), shape, stats)
        assert same == meta and entries.tt_fact(tt, log, slot, np.uint64(0)) == (key, meta)
    if log <= 24:  # and nothing else: every slot read
        keys, metas = facts_of(tt, most=tt.shape[0])
        assert sorted(zip(keys.tolist(), (int(m) & 0xFFFF for m in metas))) == sorted(held)


def test_every_fact_the_table_holds_agrees_with_the_table_dp(table_5x5):
    """Entry by entry, what the search stored (a nimber, the values shown not to be it)
    after values and winning moves (questions for a target value) of random 5x5 positions
    holds for the table DP: a wrong fact would stay silent until a later question read it."""
    game, solver = FlipGame(5, 5), CramSolver(progress=False, tt_log=MIN_TABLE_LOG, mirror=False)
    for state in np.random.default_rng(8).integers(0, 1 << 25, size=200).tolist():
        solver.winning_moves(game.cells(state))
    known = excluding = 0
    for key, meta in zip(*(a.tolist() for a in facts_of(solver.tt, most=solver.tt.shape[0]))):
        shape = int(meta) & 0xFFFF  # the entry's shape word
        h, w = shape_rows(shape), shape_cols(shape)
        assert h <= 5 and w <= 5
        state = sum(1 << (i // w * 5 + i % w) for i in range(h * w) if key >> i & 1)
        nimber, value, excluded = int(table_5x5[state]), search.tt_value(np.uint64(meta)), \
            int(search.tt_excluded(np.uint64(meta)))
        assert value in (-1, nimber) and not excluded >> nimber & 1, (game.format(state), value, bin(excluded))
        known, excluding = known + (value >= 0), excluding + (excluded != 0)
    assert known > 100 and excluding > 100


@pytest.mark.parametrize("sets_up_to", [-1, search.SETS_UP_TO, 63])  # never, as shipped, always
def test_a_question_for_some_values_gives_the_nimber_whenever_it_is_one_of_them(table_5x5, sets_up_to):
    """`query(component, wanted)`: the nimber when it is wanted; NOT_IN_SET only when it is
    not (a nimber not wanted may come back, and then it is the true one). Asked on the
    components of random 5x5 positions for random sets, in a small table that forgets,
    value by value, by sets for small values only (as shipped), and by sets everywhere."""
    game, solver = FlipGame(5, 5), CramSolver(progress=False, tt_log=MIN_TABLE_LOG, mirror=False)
    crowd(solver)
    solver.control[search.SETS] = sets_up_to
    rng = np.random.default_rng(10)
    answers = {"nimber": 0, "not in the set": 0}
    for state in rng.integers(0, 1 << 25, size=200).tolist():
        for part, h, w in components(game.cells(state)):
            nimber = int(table_5x5[sum(1 << (i // w * 5 + i % w) for i in range(h * w) if part >> i & 1)])
            wanted = int(rng.integers(1, 4)) if rng.random() < 0.3 else int(rng.integers(1, 64))
            got = search.query(np.uint64(part), np.int64(h << 7 | w), np.uint64(wanted), solver.ctx, search.ONE)
            if wanted >> nimber & 1:
                assert got == nimber, (game.format(state), bin(wanted))
            else:
                assert got in (nimber, search.NOT_IN_SET), (game.format(state), bin(wanted))
            answers["nimber" if got >= 0 else "not in the set"] += 1
    assert min(answers.values()) > 50, answers
    for state in rng.integers(0, 1 << 25, size=100).tolist():  # and whole positions, with winning moves
        value, moves = solver.winning_moves(game.cells(state))
        assert value == table_5x5[state]
        expected = sorted(tuple(game.cells(m)) for m in game.legal_moves(state) if table_5x5[state & ~m] == 0)
        assert [tuple(m) for m in moves] == expected


def test_a_set_of_values_xored_with_a_value_is_each_value_xored():
    rng = np.random.default_rng(11)
    for values in [0, 1, 2**64 - 1] + rng.integers(0, 2**63, size=100).tolist():
        for x in range(64):
            expected = sum(1 << (v ^ x) for v in range(64) if values >> v & 1)
            assert int(search.xor_set(np.uint64(values), np.int64(x))) == expected


@njit(cache=True)
def _wide_store(tt, lo, shape, value):
    entries.tt_store(tt, 3, wide(lo, np.uint64(1)), shape, value, np.zeros(8, np.int64))


@njit(cache=True)
def _wide_exclude(tt, lo, shape, values):
    entries.tt_exclude_set(tt, 3, wide(lo, np.uint64(1)), shape, values, np.zeros(8, np.int64))


@njit(cache=True)
def _wide_probe(tt, lo, shape):
    return entries.tt_probe(tt, 3, wide(lo, np.uint64(1)), shape)


def test_a_wide_entry_whose_words_come_from_different_writes_reads_as_absent():
    """Two searches sharing the wide table may write one slot at once: a key word and a
    meta word of different writes must not pass for an entry, least of all one of the same
    shape whose meta word says another value. (A one-word entry is written at once.)"""
    shape, words = 9 * 128 + 9, entries.WIDE_ENTRY_WORDS
    a, b = np.uint64(0b111101111), np.uint64(0b111111011)  # low words of two 81-cell keys of one 9x9 box
    tables = []
    for key, value in ((a, 1), (b, 2)):
        tt = np.zeros((8, words), np.uint64)
        _wide_store(tt, key, shape, value)
        tables.append(tt)
    i, j = (int(np.flatnonzero(tt[:, entries.META])[0]) for tt in tables)  # where a and b went
    assert search.tt_value(_wide_probe(tables[0], a, shape)) == 1
    for key_word, meta_word in ((tables[0][i, entries.KEY], tables[1][j, entries.META]),
                                (tables[1][j, entries.KEY], tables[0][i, entries.META])):
        torn = tables[0].copy()
        torn[i, entries.KEY], torn[i, entries.META] = key_word, meta_word  # in a's slot, one word of each write
        assert _wide_probe(torn, a, shape) == 0
    torn[i, entries.META] = tables[0][i, entries.META] | (np.uint64(1) << np.uint64(40))  # half updated
    torn[i, entries.KEY] = tables[0][i, entries.KEY]
    assert _wide_probe(torn, a, shape) == 0
    _wide_exclude(torn, a, shape, np.uint64(1))  # an update of a torn slot starts afresh
    meta = _wide_probe(torn, a, shape)
    assert search.tt_value(meta) == -1 and search.tt_excluded(meta) == 1
    _wide_exclude(torn, a, shape, np.uint64((1 << 3) | (1 << 31) | (1 << 40)))  # the wide table keeps 32 values
    assert search.tt_excluded(np.uint64(_wide_probe(torn, a, shape))) == 1 | (1 << 3) | (1 << 31)


def test_the_loader_keeps_the_database_it_finds_unless_told(tmp_path):
    small = ((2, 4), (3, 3))
    built = Endgame.load_or_build(tmp_path, boxes=small)
    again = Endgame.load_or_build(tmp_path)  # no boxes named: the one in the directory
    assert again.boxes.tolist() == built.boxes.tolist() and np.array_equal(again.data, built.data)
    other = Endgame.load_or_build(tmp_path, boxes=((2, 5),))  # other boxes named: rebuilt
    assert other.boxes[:, :2].tolist() == [[2, 5]]
    assert np.array_equal(other.box_table(0), table(FlipGame(2, 5)))


def test_the_mirror_rule_changes_no_value():
    with_rule = CramSolver(progress=False, tt_log=MIN_TABLE_LOG)
    without = CramSolver(progress=False, tt_log=MIN_TABLE_LOG, mirror=False)
    rng = np.random.default_rng(8)
    for rows, cols in ((4, 4), (4, 6), (3, 4), (5, 4), (3, 5)):
        for _ in range(40):  # half-turn symmetric positions: a random half and its image
            cells = {(r, c) for r in range(rows) for c in range(cols) if rng.random() < 0.8}
            cells &= {(rows - 1 - r, cols - 1 - c) for r, c in cells}
            assert with_rule.value(cells) == without.value(cells), sorted(cells)
    before = with_rule.report()["positions"]
    assert with_rule.value(full(6, 6)) == 0 and with_rule.report()["positions"] == before  # no search


def test_a_board_the_mirror_rule_answers_takes_no_table():
    """The full 8x8 board's value is the mirror rule's 0 at once: its table (8.6 GB, mapped
    for 19 s) is neither grown nor mapped. Its moves are searched: they grow it as before."""
    solver = CramSolver(progress=False, tt_log=MIN_TABLE_LOG, grow_table=True)
    assert solver.value(full(8, 8)) == 0 and solver.tt_log == MIN_TABLE_LOG
    assert solver.value(full(8, 8) - {(0, 0), (7, 7)}) == 0 and solver.tt_log == MIN_TABLE_LOG
    value, moves = solver.move_values(full(4, 4))
    assert value == 0 and solver.tt_log == 20  # the smallest table a search is given
    assert sorted(v for _, v in moves) == sorted(
        CramSolver(progress=False, tt_log=MIN_TABLE_LOG, mirror=False).value(full(4, 4) - set(domino)) for domino, _ in moves)


def test_winning_moves_are_the_moves_to_zero(solver):
    game = FlipGame(4, 5)
    values = table(game)
    for state in np.random.default_rng(9).integers(0, 1 << 20, size=150).tolist():
        value, moves = solver.winning_moves(game.cells(state))
        assert value == values[state]
        expected = sorted(tuple(game.cells(m)) for m in game.legal_moves(state) if values[state & ~m] == 0)
        assert [tuple(m) for m in moves] == expected


def test_a_2x2_block_of_twin_corners_splits_where_its_horizontal_links_are_cut():
    # the block (1,1)-(2,2): its corners (1,1) and (2,2) have no other neighbours, so the
    # position is worth the sum of the two L-shaped paths the block's vertical links hold
    cells = {(0, 2), (0, 3), (1, 1), (1, 2), (2, 1), (2, 2), (2, 0), (3, 0)}
    mask = np.uint64(sum(1 << (r * 4 + c) for r, c in cells))
    assert bits.twin_links(mask, 4, 4) == np.uint64(1 << 5 | 1 << 9)  # left cells (1,1) and (2,1)
    out, stack = np.zeros(64, np.uint64), np.zeros(64, np.uint64)
    pieces = {frozenset(divmod(b, 4) for b in range(16) if int(out[k]) >> b & 1)
              for k in range(bits.reduced_split(mask, 4, 4, out, stack))}
    assert pieces == {frozenset({(0, 3), (0, 2), (1, 2), (2, 2)}), frozenset({(1, 1), (2, 1), (2, 0), (3, 0)})}
    solver = CramSolver(progress=False, tt_log=MIN_TABLE_LOG)
    assert solver.value(cells) == solver.value(pieces.pop()) ^ solver.value(pieces.pop())


def test_reduced_pieces_are_worth_the_position(table_5x5):
    # every reduction (stars, bridges, twin blocks) against the table DP, on 5x5 positions
    out, stack = np.zeros(64, np.uint64), np.zeros(64, np.uint64)
    cut = 0
    for state in np.random.default_rng(5).integers(0, 1 << 25, size=20000).tolist():
        pieces = out[:bits.reduced_split(np.uint64(state), 5, 5, out, stack)].tolist()
        value = 0
        for piece in pieces:
            value ^= int(table_5x5[piece])
        assert value == table_5x5[state], state
        cut += bool(bits.twin_links(np.uint64(state), 5, 5))
    assert cut > 1000  # the twin blocks are common enough for this to test them


def test_bit_operations_match_python_integers():
    rng = np.random.default_rng(6)
    for word in [1, 2**63, 2**64 - 1] + rng.integers(1, 2**63, size=200).tolist():
        x = np.uint64(word)
        assert bits.popcount(x) == bin(word).count("1")
        assert bits.lowest_bit_index(x) == (word & -word).bit_length() - 1
        assert bits.highest_bit_index(x) == word.bit_length() - 1
        assert bits.reverse_bits(x, 64) == int(f"{word:064b}"[::-1], 2)
    rows, trows = np.zeros(64, np.uint64), np.zeros(64, np.uint64)
    for bh, bw in [(1, 1), (3, 2), (8, 8), (8, 5), (5, 8), (12, 5), (3, 21), (32, 2)]:  # the fast 8x8 way and the other
        cells = rng.random((bh, bw)) < 0.5
        rows[:bh] = [sum(1 << c for c in range(bw) if cells[r, c]) for r in range(bh)]
        bits.transpose_rows(rows, bh, bw, trows)
        assert trows[:bw].tolist() == [sum(1 << r for r in range(bh) if cells[r, c]) for c in range(bw)]


def test_the_centre_first_list_holds_every_domino_of_every_frame_once_nearest_first():
    for h in range(1, 129):  # every frame of one word or two (`cram.wide`)
        for w in range(1, 128 // h + 1):
            span = slice(bits.DOMINO_FIRST[h, w], bits.DOMINO_END[h, w])
            listed = bits.DOMINO_CODE[span].tolist()
            every = ({2 * (r * w + c) for r in range(h) for c in range(w - 1)}
                     | {2 * (r * w + c) + 1 for r in range(h - 1) for c in range(w)})
            assert len(listed) == len(every) and set(listed) == every, (h, w)
            centres = [(a // w + 0.5 * (code & 1), a % w + 0.5 * (1 - (code & 1))) for code in listed
                       for a in [code >> 1]]
            doubled = [2 * max(abs(r - (h - 1) / 2), abs(c - (w - 1) / 2)) for r, c in centres]
            assert bits.DOMINO_DISTANCE[span].tolist() == doubled == sorted(doubled), (h, w)


def test_canonical_form_ignores_place_and_symmetry():
    rows, trows = np.empty(64, np.uint64), np.empty(64, np.uint64)
    shape = {(0, 0), (0, 1), (1, 1), (2, 1), (2, 2), (2, 3)}
    images = [shape, {(c, r) for r, c in shape}, {(r, 3 - c) for r, c in shape},
              {(2 - r, c) for r, c in shape}, {(3 - c, 2 - r) for r, c in shape}]
    keys = set()
    for image in images:
        for dr, dc in ((0, 0), (1, 2), (3, 0)):
            moved = {(r + dr, c + dc) for r, c in image}
            mask = sum(1 << (r * 8 + c) for r, c in moved)
            keys.add(bits.canonical(np.uint64(mask), 8, 8, rows, trows))
    assert len(keys) == 1
    (key_bits, key_shape), = keys
    assert shape_rows(key_shape) <= shape_cols(key_shape)  # canonical boxes lie with h <= w


def test_a_growing_solver_takes_the_large_table_for_a_large_component(monkeypatch):
    import flipnet.solve.cram.tables as cram

    monkeypatch.setattr(cram, "table_log", lambda cells, side: 22 if cells >= 12 else MIN_TABLE_LOG)
    game, values = FlipGame(3, 4), table(FlipGame(3, 4))
    growing, fixed = CramSolver(progress=False, tt_log=MIN_TABLE_LOG, grow_table=True), CramSolver(progress=False, tt_log=MIN_TABLE_LOG)
    assert growing.value(game.cells(0b011101110111)) == values[0b011101110111]  # 9 cells: stays
    assert growing.tt.shape[0] == 1 << MIN_TABLE_LOG
    assert growing.value(full(3, 4)) == values[(1 << 12) - 1] == fixed.value(full(3, 4))  # 12 cells: grows
    assert growing.tt.shape[0] == 1 << 22 and growing.tt_log == 22 and fixed.tt.shape[0] == 1 << MIN_TABLE_LOG
    assert growing.value(full(2, 4)) == 0 and growing.tt_log == 22  # a smaller one later: the table stays


def test_a_table_takes_at_most_half_the_machine_s_memory(monkeypatch):
    import flipnet.solve.cram.tables as cram
    from flipnet.solve.cram import ENTRY_BYTES, MAX_TABLE_LOG, MIN_TABLE_LOG, affordable_table_log

    assert affordable_table_log(None) == MAX_TABLE_LOG
    assert affordable_table_log(2 * ENTRY_BYTES << 24) == 24 and affordable_table_log((2 * ENTRY_BYTES << 24) - 1) == 23
    assert affordable_table_log(1) == MIN_TABLE_LOG and affordable_table_log(1 << 50) == MAX_TABLE_LOG
    assert 0 < cram.usable_memory() <= os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")  # Linux says

    monkeypatch.setattr(cram, "table_log", lambda cells, side: 24)
    monkeypatch.setattr(cram, "usable_memory", lambda limit=None: 2 * ENTRY_BYTES << 21)
    solver = CramSolver(progress=False, tt_log=MIN_TABLE_LOG, grow_table=True)
    assert solver.value(full(3, 4)) == table(FlipGame(3, 4))[(1 << 12) - 1]
    assert solver.tt_log == 21 and solver.tt.nbytes == ENTRY_BYTES << 21


# In a process of its own: an address-space limit (`ulimit -v`) set once the kernels are
# compiled, `room` bytes above what the process already holds.
LIMITED = """
import resource, sys
from flipnet.solve.cram import memory
def vm_size():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize:"))
room = int(sys.argv[1])
{before}
resource.setrlimit(resource.RLIMIT_AS, (vm_size() + room, resource.getrlimit(resource.RLIMIT_AS)[1]))
{after}
"""


def run_limited(room, before, after):
    import subprocess
    import sys

    code = LIMITED.format(before=before, after=after)
    out = subprocess.run([sys.executable, "-c", code, str(room)], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def test_usable_memory_sees_a_limit_on_the_address_space():
    found = run_limited(1 << 30, "", "print(memory.usable_memory(), resource.getrlimit(resource.RLIMIT_AS)[0])")
    assert int(found[0]) == int(found[1])  # the limit set (VmSize and a GB), less than this machine's memory


def test_a_table_the_system_refuses_gives_way_to_a_smaller_one():
    """Where a limit the solver cannot see refuses a 2^29-entry table (8.6 GB), the solver
    takes the largest smaller one the system grants, and the value is the same."""
    before = ("import flipnet.solve.cram.tables as cram\n"
              "from flipnet.solve.cram import CramSolver\n"
              "solver = CramSolver(progress=False, tt_log=cram.MIN_TABLE_LOG, grow_table=True)\n"
              "solver.value({(r, c) for r in range(2) for c in range(3)})\n"  # compiled before the limit
              "cram.usable_memory = lambda limit=None: None\n"
              "cram.table_log = lambda cells, side: cram.MAX_TABLE_LOG")
    room = 3 << 29  # 1.5 GB: room for 2^26 entries (1.1 GB), not for 2^27
    value, log = run_limited(room, before, "print(solver.value({(r, c) for r in range(3) for c in range(4)}), "
                                           "solver.tt_log)")
    from flipnet.solve.cram import ENTRY_BYTES, MAX_TABLE_LOG, MIN_TABLE_LOG

    assert int(log) == max(k for k in range(MIN_TABLE_LOG, MAX_TABLE_LOG) if ENTRY_BYTES << k <= room)
    assert int(value) == table(FlipGame(3, 4))[(1 << 12) - 1]


def test_a_database_the_system_cannot_map_is_named_in_one_line(tmp_path):
    Endgame.load_or_build(tmp_path, boxes=((5, 5),))  # 17 MB
    before = "from flipnet.base.errors import FlipnetError\nfrom flipnet.solve.cram.endgame import Endgame"
    after = (f"try:\n    Endgame.load_or_build({str(tmp_path)!r})\n"
             f"except FlipnetError as exc:\n    print(exc)")
    said = " ".join(run_limited(8 << 20, before, after))
    assert said == f"cannot map the endgame database {tmp_path / 'cram-endgame.bin'} (17 MB) into memory: " \
                   f"Cannot allocate memory", said


def test_the_table_grows_with_the_search():
    from flipnet.solve.cram import MAX_TABLE_LOG, MIN_TABLE_LOG, table_log

    for side in (2, 3, 5, 6):
        logs = [table_log(cells, side) for cells in range(2, 65)]
        assert logs == sorted(logs) and MIN_TABLE_LOG <= logs[0] and logs[-1] <= MAX_TABLE_LOG
    assert table_log(2, 3) == MIN_TABLE_LOG and table_log(64, 5) == table_log(64, 6) == MAX_TABLE_LOG
    assert table_log(42, 3) < table_log(42, 5) < table_log(42, 6)  # a thick box visits more positions


def mapping_of(address):
    """The /proc/self/smaps fields of the mapping that holds `address` (NumPy advises a
    large array's memory from its second page on: ask for an address inside)."""
    fields, inside = {}, False
    with open("/proc/self/smaps") as smaps:
        for line in smaps:
            head = line.split()[0]
            if "-" in head and not head.endswith(":"):
                low, high = (int(x, 16) for x in head.split("-"))
                if inside:
                    break
                inside = low <= address < high
            elif inside:
                fields[head.rstrip(":")] = line.split()[1]
    return fields


def pages_present(array):
    """How many of the array's 4 kB pages are in memory (/proc/self/pagemap, bit 63 of each
    page's entry): exact for this array alone, whatever mapping the kernel merged it into."""
    page = os.sysconf("SC_PAGE_SIZE")
    first, end = array.ctypes.data // page, -(-(array.ctypes.data + array.nbytes) // page)
    with open("/proc/self/pagemap", "rb") as pagemap:
        pagemap.seek(first * 8)
        entries = np.frombuffer(pagemap.read((end - first) * 8), np.uint64)
    return int(np.count_nonzero(entries >> np.uint64(63)))


def test_the_table_is_zeroed_in_small_pages_as_it_is_touched():
    """A few entries of a large table touched: ordinary pages, not 2 MB ones zeroed whole
    (NumPy's own large arrays ask for those), and the solver's table is made so."""
    import os

    from flipnet.solve.cram.memory import zeroed_table

    setting = "/sys/kernel/mm/transparent_hugepage/enabled"
    if not os.path.exists(setting) or "[never]" in open(setting).read():
        pytest.skip("this system never gives 2 MB pages: nothing to ask for")
    size = 1 << 22  # entries: 64 MB
    tables = {"ours": zeroed_table(size, 2), "numpy": np.zeros((size, 2), np.uint64)}
    for t in tables.values():
        t[::1 << 15, 1] = 7  # one entry every 512 kB
    found = {name: mapping_of(t.ctypes.data + t.nbytes // 2) for name, t in tables.items()}
    if found["numpy"]["THPeligible"] != "1":  # what the table would be without the advice
        pytest.skip("NumPy's large arrays get no 2 MB pages here either")
    assert found["ours"]["THPeligible"] == "0" and found["ours"]["AnonHugePages"] == "0"
    assert tables["ours"].sum() == 7 * 128 and tables["ours"].flags.writeable
    solver = CramSolver(progress=False, tt_log=MIN_TABLE_LOG)
    assert mapping_of(solver.tt.ctypes.data + solver.tt.nbytes // 2)["THPeligible"] == "0"


def test_populate_maps_every_page_of_the_table_and_keeps_what_it_holds():
    """Two workers faulting the table's pages in at once wait for each other; a large
    search maps them all first, in 2 MB pages where the system gives them (a table read
    at random misses the TLB less), and what the table held stays."""
    from flipnet.solve.cram.memory import populate, zeroed_table

    table = zeroed_table(1 << 18, 2)  # 4 MB
    table[::4099, 1] = np.arange(table[::4099].shape[0], dtype=np.uint64) + 1
    before = table[::4099].copy()  # what it holds, read without touching the other pages
    assert pages_present(table) <= 64 + 2  # the rows written: a page each
    kernel = tuple(int(x) for x in os.uname().release.split(".")[:2])
    if kernel < (5, 14):  # MADV_POPULATE_WRITE came with Linux 5.14
        assert not populate(table)
        pytest.skip("this kernel cannot map a table's pages ahead")
    assert populate(table)
    assert pages_present(table) == table.nbytes // os.sysconf("SC_PAGE_SIZE")
    assert np.array_equal(table[::4099], before) and np.count_nonzero(table) == len(before)
    setting = "/sys/kernel/mm/transparent_hugepage/enabled"
    if os.path.exists(setting) and "[never]" not in open(setting).read():
        assert mapping_of(table.ctypes.data + table.nbytes // 2)["THPeligible"] == "1"
    small = zeroed_table(1 << 18, 2)  # a table the solver keeps in 4 kB pages
    assert pages_present(small) == 0
    assert populate(small, huge_pages=False)
    assert pages_present(small) == small.nbytes // os.sysconf("SC_PAGE_SIZE")
    assert mapping_of(small.ctypes.data + small.nbytes // 2)["THPeligible"] == "0" and not small.any()


def test_a_stop_is_heard_between_the_chunks_a_table_is_mapped_in(monkeypatch):
    """A large table is mapped a chunk at a time, each told to the progress bar, and a stop
    asked for (a Ctrl-C inside a deferred block) ends the mapping after the chunk under way:
    an 8 GB table mapped in one call, while the kernel reclaimed memory, kept a Ctrl-C
    waiting 9 s. The pages left come as they are touched."""
    from flipnet.base import signals
    from flipnet.solve.cram import memory

    kernel = tuple(int(x) for x in os.uname().release.split(".")[:2])
    if kernel < (5, 14):
        pytest.skip("this kernel cannot map a table's pages ahead")
    monkeypatch.setattr(memory, "POPULATE_CHUNK", 1 << 20)
    page = os.sysconf("SC_PAGE_SIZE")
    table = memory.zeroed_table(1 << 18, 2)  # 4 MB: four chunks
    told = []
    assert memory.populate(table, huge_pages=False, progress=told.append)
    assert told == [1 << 20] * 4 and pages_present(table) == table.nbytes // page

    table, told = memory.zeroed_table(1 << 18, 2), []

    def stop_after_the_second(length):
        told.append(length)
        if len(told) == 2:
            signals.request()

    with signals.deferred():
        assert not memory.populate(table, huge_pages=False, progress=stop_after_the_second)
    assert told == [1 << 20] * 2 and pages_present(table) == 2 * (1 << 20) // page
    assert not table.any()  # the rest still reads as zeros, mapped as it is touched


def test_callers_in_two_threads_share_one_solver_safely(table_5x5):
    import threading

    game, values = FlipGame(5, 5), table_5x5
    shared = CramSolver(progress=False, tt_log=MIN_TABLE_LOG)
    states = np.random.default_rng(12).integers(0, 1 << 25, size=(2, 600)).tolist()
    answers = [[], []]

    def ask(k):
        answers[k] = [shared.value(game.cells(s)) for s in states[k]]

    threads = [threading.Thread(target=ask, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert answers == [[int(values[s]) for s in states[k]] for k in range(2)]


def test_a_position_far_beyond_tables_is_the_xor_of_its_pieces():
    game = FlipGame(3, 4)
    values = table(game)
    pieces = np.random.default_rng(5).integers(0, 1 << 12, size=16).tolist()
    cells, expected = set(), 0
    for i, s in enumerate(pieces):  # a 4x4 grid of 3x4 pieces with empty lanes between
        r0, c0 = 4 * (i // 4), 5 * (i % 4)
        cells |= {(r0 + r, c0 + c) for r, c in game.cells(s)}
        expected ^= int(values[s])
    assert CramSolver(progress=False, tt_log=MIN_TABLE_LOG).value(cells) == expected


def test_limits_and_time_outs():
    with pytest.raises(FlipnetError, match="a component of 129 cells spans 3x43; the solver takes "
                                           "components whose box has at most 128 cells"):
        components(full(3, 43))
    hard = CramSolver(progress=False, tt_log=MIN_TABLE_LOG, timeout=0.2)
    # the kernel's first call loads it from Numba's cache: under load, past the stop's grace
    with pytest.raises(FlipnetError, match=r"no answer within --timeout 0.2 s "
                                           r"\(([\d,]+ positions? searched|the search had not begun)"):
        hard.value(full(5, 7))
    assert hard.value(full(3, 3)) == 0  # the solver is still usable afterwards


def _patient(seconds):
    """A kernel that works `seconds` unless it is stopped first (False: stopped)."""
    def kernel(ctx):
        control = ctx.control
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            if control[search.STOP]:
                return False
            time.sleep(0.01)
        return True
    return kernel


@pytest.mark.slow
def test_a_time_limit_holds_for_every_search_of_a_question_together():
    """`flipnet value --timeout`: the value's search and each component's moves share one
    limit, where `timeout` gives each search its own."""
    solver = CramSolver(progress=False, tt_log=MIN_TABLE_LOG, timeout=1.5)
    solver._run(_patient(1.0))
    solver._run(_patient(1.0))  # 2 s in all: each search is within its own 1.5 s
    start = time.perf_counter()
    with solver.time_limit(1.5):
        solver._run(_patient(1.0))
        with pytest.raises(FlipnetError, match=r"^no answer within --timeout 1.5 s \(0 positions searched\)$"):
            solver._run(_patient(1.0))
    assert time.perf_counter() - start < 1.5 + 0.5
    solver._run(_patient(1.0))  # the limit ends with the question


def test_a_time_limit_or_a_cancel_ends_the_mapping_of_a_large_table_too(monkeypatch):
    """The mapping of a large table is part of the question: past the limit, or cancelled,
    it stops between two chunks (an 8 GB table had `--timeout 1` answered after 27 s), the
    search then stops at once, and the message names the limit as it was given, not what
    was left of it when the solver was loaded."""
    from flipnet.solve.cram import memory

    if tuple(int(x) for x in os.uname().release.split(".")[:2]) < (5, 14):
        pytest.skip("this kernel cannot map a table's pages ahead")
    monkeypatch.setattr(memory, "POPULATE_CHUNK", 1 << 20)
    solver = CramSolver(progress=False, tt_log=MIN_TABLE_LOG)
    table = memory.zeroed_table(1 << 18, 2)  # 4 MB, four chunks
    with solver.time_limit(60):
        assert solver._map(table, huge_pages=False)
    late = memory.zeroed_table(1 << 18, 2)
    with solver.time_limit(0.01, asked=1.0):
        time.sleep(0.02)
        assert not solver._map(late, huge_pages=False)
        with pytest.raises(FlipnetError, match=r"^no answer within --timeout 1 s \(0 positions searched\)$"):
            solver._run(_patient(1.0))
    assert pages_present(late) == 0
    cancelled = memory.zeroed_table(1 << 18, 2)
    with solver.time_limit(60):  # the explorer's next question cancels the one under way
        solver.supervisor.cancel()
        assert not solver._map(cancelled, huge_pages=False)
    assert pages_present(cancelled) == 0


def test_a_search_waiting_for_a_kernel_left_behind_hears_a_cancel_and_its_time_limit():
    """A kernel left behind (compiling, deaf to its stop) holds the table until it ends:
    the next search waits for it, but a cancel or the question's time limit ends the wait
    with the usual line, and a call that changes nothing (the same workers) does not wait."""
    from flipnet.base.errors import Cancelled, TimedOut

    started = []
    solver = CramSolver(progress=False, tt_log=MIN_TABLE_LOG, compile_in_background=started.append)
    release = threading.Event()
    left = threading.Thread(target=release.wait, args=(60,), daemon=True)
    left.start()
    solver.supervisor.left = [left]
    board = full(4, 5) - {(0, 0)}  # searched: no mirror zero, not a straight run
    begin = time.perf_counter()
    solver.use_workers(solver.workers)
    assert time.perf_counter() - begin < 0.1
    threading.Timer(0.3, solver.cancel).start()
    with pytest.raises(Cancelled, match=r"^cancelled after 0 positions searched$"):
        solver.value(board)
    solver.begin_question()
    with solver.time_limit(0.3), pytest.raises(TimedOut, match=r"^no answer within --timeout 0.3 s \(the search "
                                                               r"had not begun: Numba compiles it"):
        solver.value(board)
    assert time.perf_counter() - begin < 2.5 and started == [False] and left.is_alive()
    release.set()
    left.join()
    assert solver.value(board) == CramSolver(progress=False, tt_log=MIN_TABLE_LOG, mirror=False).value(board)
    assert solver.supervisor.left == []


def test_inside_a_time_limit_a_missing_endgame_database_is_not_built(tmp_path, monkeypatch):
    """Building it takes about 20 s, longer than most limits: the search goes on without
    it, and the timeout says so; outside a limit it is built as before."""
    monkeypatch.setenv("FLIPNET_CACHE", str(tmp_path))
    solver = CramSolver(progress=False, tt_log=MIN_TABLE_LOG, auto_endgame=True)
    with solver.time_limit(0.3), pytest.raises(
            FlipnetError, match=r"^no answer within --timeout 0.3 s \(.*; without the endgame database, "
                                r"which is not built yet: `flipnet endgame` builds it once, in about 20 s\)$"):
        solver.value(full(5, 7))  # 35 cells: the database is wanted from 30
    assert list(tmp_path.iterdir()) == [] and not Endgame.is_built(tmp_path)
    assert solver.auto_endgame  # still wanted by the next question without a limit
    with solver.time_limit(60):
        assert solver.value(full(3, 3)) == 0  # a small question needs no database


def test_a_large_board_with_a_smaller_database_says_once_that_the_30_cell_one_is_faster(monkeypatch, capsys):
    import flipnet.solve.cram.tables as cram

    small = Endgame.build(boxes=((2, 3), (3, 3)))
    solver = CramSolver(progress=False, tt_log=MIN_TABLE_LOG, auto_endgame=True)
    monkeypatch.setattr(solver, "use_endgame", lambda largest=None: setattr(solver, "endgame", small))
    monkeypatch.setattr(cram, "LARGE_ENDGAME_FROM", 12)
    assert solver.value(full(2, 5)) == 1 and capsys.readouterr().err == ""  # 10 cells: no word
    solver.timeout = 0.3
    for _ in range(2):
        with pytest.raises(FlipnetError, match="^no answer within --timeout 0.3 s"):
            solver.value(full(6, 7))
    assert capsys.readouterr().err.splitlines() == [
        "flipnet: a component of 42 cells, and the endgame database holds boxes of at most 9 cells: the "
        "30-cell one answers such boards several times faster (`make endgame-large` or `flipnet endgame "
        "--cells 30`: once, about a minute, 1.7 GB)"]  # once, not at every question
    largest = CramSolver(progress=False, tt_log=MIN_TABLE_LOG, auto_endgame=True)
    largest.endgame = Endgame(np.zeros(1, np.uint8), [(5, 6, 0), (2, 15, 0)])  # its boxes only are read
    assert not largest._wants_larger_endgame()
    assert not CramSolver(progress=False, tt_log=MIN_TABLE_LOG, endgame=small)._wants_larger_endgame()  # not a command's


@pytest.mark.slow
def test_the_progress_line_says_when_the_kernel_is_still_compiling(monkeypatch, capsys):
    """A new install's first search waits half a minute for Numba: the line says so, then
    counts the search (a kernel has no overloads until it is compiled or loaded), whose
    seconds leave the compile out."""
    from flipnet.solve.cram import supervisor

    monkeypatch.setenv("FLIPNET_PROGRESS", "1")
    monkeypatch.setattr(supervisor, "PROGRESS_AFTER", 0.1)

    class Compiling:
        overloads = {}

        def compile(self, signature):  # a dispatcher's: for the types of the call's arguments
            assert len(signature) == 1  # the context alone
            time.sleep(0.8)
            self.overloads = {signature: "compiled"}

        def __call__(self, ctx):
            time.sleep(0.8)
            return True

    solver = CramSolver(progress=True, tt_log=MIN_TABLE_LOG)
    solver._run(Compiling())
    shown = capsys.readouterr().err
    assert supervisor.COMPILING in shown and "search:" in shown
    assert shown.index(supervisor.COMPILING) < shown.index("search:")
    assert 0.7 < solver.supervisor.seconds < 1.5  # the search's 0.8 s, not the compile's
    solver._run(Compiling())  # another kernel of the same solver: said once, the second so
    shown = capsys.readouterr().err
    assert supervisor.COMPILING not in shown and supervisor.COMPILING_MORE in shown
    CramSolver(progress=True, tt_log=MIN_TABLE_LOG)._run(lambda ctx: time.sleep(0.5) or True)  # a plain function: no line
    assert supervisor.COMPILING not in capsys.readouterr().err


@pytest.mark.slow
def test_a_kernel_that_cannot_hear_a_stop_is_left_behind_and_the_next_call_waits_for_it():
    """A kernel that has not begun (Numba compiling it: a minute, the first time) cannot
    see the stop flag; --timeout still ends the call about STOP_GRACE after it, and the
    next call starts only once that kernel has ended (they share the table). The compile
    goes on in a process of its own, so that it survives this one."""
    started = []
    solver = CramSolver(progress=False, tt_log=MIN_TABLE_LOG, timeout=0.3, compile_in_background=started.append)
    ended = threading.Event()

    def deaf(ctx):  # a kernel's signature: its arguments, then the solver's context
        time.sleep(6)
        ended.set()
        return True

    start = time.perf_counter()
    with pytest.raises(FlipnetError, match=r"no answer within --timeout 0.3 s \(the search had not begun"):
        solver._run(deaf)
    assert time.perf_counter() - start < 4 and not ended.is_set()
    assert started == [False]  # no database: the kernels without one
    solver.timeout = None
    saw = []
    solver._run(lambda ctx: saw.append(ended.is_set()) or True)
    assert saw == [True]
    assert solver.value(full(3, 3)) == 0  # and the solver answers as before


def test_components_are_connected_groups_of_two_or_more():
    parts = components({(0, 0), (1, 1), (1, 2), (3, 3), (3, 4), (4, 4)})
    assert [(h, w) for _, h, w in parts] == [(1, 2), (2, 2)]


def test_a_borrowed_array_writes_through_to_the_array_it_borrows():
    from numba import njit

    from flipnet.solve.cram.memory import borrowed

    @njit
    def write_through(a):
        b = borrowed(a)
        b[1:3] = 7
        return b.sum()

    a = np.zeros(4, np.int64)
    assert write_through(a) == 14 and a.tolist() == [0, 7, 7, 0]


def test_straight_lines_alone_never_call_for_the_endgame_database(tmp_path, monkeypatch):
    """Kayles' closed form values them: a board of long straight runs builds no database."""
    monkeypatch.setenv("FLIPNET_CACHE", str(tmp_path))
    solver = CramSolver(progress=False, tt_log=MIN_TABLE_LOG, auto_endgame=True)
    runs = [(r, c) for r in (0, 2, 4) for c in range(40)]  # three runs of 40 cells
    assert solver.value(runs) == dawson_kayles(40) ^ dawson_kayles(40) ^ dawson_kayles(40)
    assert list(tmp_path.iterdir()) == [] and solver.auto_endgame


def test_warm_compiles_the_kernels_a_question_needs():
    """What the background compile runs leaves the kernels of `flipnet value` (a value,
    its winning moves) and of the explorer (every move's value) compiled for a solver
    without a database (Numba then saves them in its cache): in a process of its own,
    where nothing else compiled them."""
    import subprocess
    import sys

    code = ("from numba import typeof\n"
            "from flipnet.solve.cram import MIN_TABLE_LOG, CramSolver, search, warm\n"
            "kernels = (search.nimbers_of, search.moves_to, search.values_of_positions)\n"
            "before = [len(k.signatures) for k in kernels]\n"
            "warm.compile_kernels(with_endgame=False)\n"
            "ctx = typeof(CramSolver(progress=False, tt_log=MIN_TABLE_LOG).ctx)\n"
            "print(before, [any(s[-1] == ctx for s in k.signatures) for k in kernels])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["[0,", "0,", "0]", "[True,", "True,", "True]"]


def test_the_shape_codec_reads_back_what_it_writes():
    """The search's shape word and the datasets' packed key (solve/cram/keys.py), both ways,
    against the datasets' vectorized reading of the same keys."""
    from flipnet.datasets.components import key_shape
    from flipnet.solve.cram.keys import KEY_BITS, key_frame, packed_key, shape_word

    rng = np.random.default_rng(3)
    for _ in range(200):
        h, w = int(rng.integers(1, 8)), int(rng.integers(1, 8))
        cells = (1 << (h * w)) - 1
        state = int(rng.integers(1, cells + 1))
        shape = shape_word(h, w)
        assert (shape_rows(shape), shape_cols(shape)) == (h, w)
        key = packed_key(np.uint64(state), shape)
        assert key_frame(key) == (state, h, w)
        assert [int(x[0]) for x in key_shape([key])] == [h, w, bin(state).count("1")]
        assert int(key) >> KEY_BITS != 0  # the sides sit above the cells


def test_the_other_method_of_step_5_gives_the_same_values_by_other_searches():
    """FLIPNET_SETS_UP_TO=-1: every question value by value, a second computation that
    shares nothing with the first but the code; the same nimbers, other positions."""
    from flipnet.solve.cram import check_sets_up_to

    by_sets = CramSolver(progress=False, tt_log=20, mirror=False)
    by_values = CramSolver(progress=False, tt_log=20, mirror=False, sets_up_to=-1)
    assert by_values.value(full(4, 9)) == by_sets.value(full(4, 9)) == 1
    assert by_values.report()["positions"] != by_sets.report()["positions"]
    for rows, cols in ((3, 4), (4, 5), (3, 7)):
        assert by_values.value(full(rows, cols)) == by_sets.value(full(rows, cols))
    for bad, message in (("x", "is not a whole number"), ("64", "from -1 .* to 63")):
        with pytest.raises(FlipnetError, match=f"FLIPNET_SETS_UP_TO.*{message}"):
            check_sets_up_to(bad)
    assert check_sets_up_to("-1") == -1
