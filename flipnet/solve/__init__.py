"""Exact values. `dp`: tables of every state of a board (vectorized bitmask DP);
`parts`, `small` and `cram`: flip positions of any size by their components (a plain
recursion for small ones, the Numba search for the rest); `kayles`: lines in closed form;
`nim`: mex, nim-sum, misere Nim, nimber arithmetic; `halfnim`: the C++ program's game in
closed form; `position`: the value and winning moves of one position of any game (one
dispatch by game name). Imports only `games` and `base`.
"""

from flipnet.solve.dp import MAX_TABLE_CELLS, check_table_size, induced_game, solve_states, table, win_table
from flipnet.solve.halfnim import halfnim_best_move, halfnim_value, halfnim_values, halfnim_winning_moves
from flipnet.solve.nim import Nimber, mex, nim_outcome, nim_sum, nim_winning_moves
from flipnet.solve.position import Result, analyse, value_and_winning_moves, winning_moves

__all__ = ["MAX_TABLE_CELLS", "Nimber", "Result", "analyse", "check_table_size", "halfnim_best_move",
           "halfnim_value", "halfnim_values", "halfnim_winning_moves", "induced_game", "mex",
           "nim_outcome", "nim_sum", "nim_winning_moves", "solve_states", "table",
           "value_and_winning_moves", "win_table", "winning_moves"]
