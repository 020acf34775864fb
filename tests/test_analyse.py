from functools import lru_cache

import pytest
from conftest import mex

from flipnet.solve import analyse, nim_outcome
from flipnet.base.errors import FlipnetError
from flipnet.games import FlipGame, GridNim, HalfNim, Nim
from flipnet.solve import table


def brute_nim(heaps, misere):
    @lru_cache(maxsize=None)
    def wins(state):
        if not any(state):
            return misere  # the opponent took the last object
        children = [tuple(sorted(state[:i] + (state[i] - k,) + state[i + 1:]))
                    for i in range(len(state)) for k in range(1, state[i] + 1)]
        return any(not wins(c) for c in children)
    return wins(tuple(sorted(heaps)))


def test_nim_outcome_matches_brute_force():
    for heaps in [(a, b, c) for a in range(5) for b in range(5) for c in range(6)]:
        assert (nim_outcome(heaps) != 0) == brute_nim(heaps, False)
        assert bool(nim_outcome(heaps, misere=True)) == brute_nim(heaps, True), heaps


def test_openspiel_reference_positions():
    assert nim_outcome((1, 1, 1), misere=True) == 0
    assert nim_outcome((1, 1, 1)) != 0
    assert nim_outcome((5, 8, 13)) == 0
    assert nim_outcome((2, 3, 8, 10)) != 0


def test_nim_winning_moves_leave_losing_positions():
    game = Nim((1, 3, 5, 7, 9), misere=True)
    result = analyse(game, game.start)
    for move, after in result.winning_moves:
        assert not brute_nim(game.parse(after), True)


def test_halfnim_analysis():
    game = HalfNim()
    for n in range(2, 200):
        result = analyse(game, n)
        losing = {2 ** j - 1 for j in range(1, 9)}
        assert result.first_player_wins == (n not in losing)
        assert sorted(int(m) for m, _ in result.winning_moves) == \
            [k for k in range(1, n // 2 + 1) if n - k in losing]


def test_gridnim_analysis_matches_the_table():
    game = GridNim(3, 4)
    win = table(game)
    for state in range(0, 1 << 12, 37):
        result = analyse(game, state)
        assert result.value == win[state]
        expected = {game.format(state & ~m) for m in game.legal_moves(state) if win[state & ~m] == 0}
        assert {p for _, p in result.winning_moves} == expected


def test_flip_analysis_json():
    game = FlipGame(2, 3)
    t = table(game)
    state = game.parse("111/110")
    data = analyse(game, state).to_json()
    assert data["nim_value"] == t[state]
    assert data["first_player_wins"] == (t[state] != 0)
    for move in data["winning_moves"]:
        assert t[game.parse(move["position"])] == 0
    assert len(data["winning_moves"]) == sum(t[state & ~m] == 0 for m in game.legal_moves(state))


@pytest.mark.parametrize("rows, cols", [(1, 11), (11, 1)])
def test_flip_lines_match_the_table(rows, cols):
    """A line is valued by Kayles' closed form, not by the search: every state of a row
    and of a column, value and winning moves, against the table DP."""
    game = FlipGame(rows, cols)
    t = table(game)
    for state in range(1 << game.n_cells):
        result = analyse(game, state)
        assert result.value == t[state]
        expected = {game.format(state & ~m) for m in game.legal_moves(state) if t[state & ~m] == 0}
        assert {p for _, p in result.winning_moves} == expected


def test_gridnim_beyond_tables_is_refused():
    game = GridNim(6, 6)
    with pytest.raises(FlipnetError, match="36 full cells is above the limit of 30"):
        analyse(game, game.start)


def test_mex_helper():
    assert mex([0, 1, 3]) == 2
