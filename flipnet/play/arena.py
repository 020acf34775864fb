"""Matches between agents: who wins, and win-rate tables over every pair."""

import itertools

import numpy as np

from flipnet.games import stuck_player_wins

MAX_MATCHES = 1_000_000  # per pair


def play_match(game, first, second, rng, state=None):
    """Play one game; return 0 if `first` (who moves first) wins, else 1."""
    state = game.start if state is None else state
    players = (first, second)
    turn = 0
    while not game.is_over(state):
        state = game.play(state, players[turn](game, state, rng))
        turn ^= 1
    stuck = turn  # the player to move has no move
    return stuck if stuck_player_wins(game) else stuck ^ 1


def win_rate(game, agent, opponent, matches, rng):
    """Fraction of `matches` that `agent` wins, starting every other one."""
    wins = 0
    for i in range(matches):
        if i % 2 == 0:
            wins += play_match(game, agent, opponent, rng) == 0
        else:
            wins += play_match(game, opponent, agent, rng) == 1
    return wins / matches


def tournament(game, agents, matches, seed=0):
    """{A: {B: fraction of A's wins against B}} for every ordered pair of named agents."""
    game.check_playable(game.start)
    rng = np.random.default_rng(seed)
    table = {a: {} for a in agents}
    for a, b in itertools.combinations(agents, 2):
        rate = win_rate(game, agents[a], agents[b], matches, rng)
        table[a][b], table[b][a] = rate, 1 - rate
    return table


def format_table(table):
    names = list(table)
    width = max(8, *(len(n) for n in names)) + 1
    lines = ["row's win rate against column".rjust(0), " " * width + "".join(n.rjust(width) for n in names)]
    for a in names:
        cells = "".join(("-" if a == b else f"{table[a][b]:.2f}").rjust(width) for b in names)
        lines.append(a.ljust(width) + cells)
    return "\n".join(lines)
