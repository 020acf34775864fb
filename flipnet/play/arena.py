"""Matches between agents: who wins, and win-rate tables over every pair."""

import itertools

import numpy as np

from flipnet.base.checks import check_range, check_seed
from flipnet.base.errors import FlipnetError
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


def check_has_moves(game):
    """A game to play must have a first move."""
    if game.is_over(game.start):
        raise FlipnetError(f"{game.name} from {game.format(game.start)} has no move: no game can be played")


def agent_names(text):
    """The agents of `--agents a,b,...`: at least two, each once."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    if len(names) < 2 or len(set(names)) != len(names):
        raise FlipnetError(f"--agents needs at least two different agents, got {text!r}")
    return names


def check_matches(matches):
    return check_range("--matches", matches, 1, MAX_MATCHES)


def arena_record(game, agents, matches, seed):
    """The win-rate table of every pair with what made it: the game, its start, the seed."""
    table = tournament(game, agents, check_matches(matches), check_seed(seed))
    return {"game": game.name, "rule": game.rule, "start": game.format(game.start),
            "matches": matches, "seed": seed, "win_rate": table}


def format_table(table):
    names = list(table)
    width = max(8, *(len(n) for n in names)) + 1
    lines = ["row's win rate against column".rjust(0), " " * width + "".join(n.rjust(width) for n in names)]
    for a in names:
        cells = "".join(("-" if a == b else f"{table[a][b]:.2f}").rjust(width) for b in names)
        lines.append(a.ljust(width) + cells)
    return "\n".join(lines)
