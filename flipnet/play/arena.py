"""Matches between agents: who wins, and win-rate tables over every pair (or of every
agent against one), the starts alternating (flipnet's protocol) or the row's agent always
moving first (the student's matches)."""

import itertools

import numpy as np

from flipnet.base.checks import check_range, check_seed
from flipnet.base.errors import FlipnetError
from flipnet.games import stuck_player_wins

MAX_MATCHES = 1_000_000  # per pair
STARTS = ("alternate", "first")


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


def win_rate(game, agent, opponent, matches, rng, starts="alternate"):
    """Fraction of `matches` that `agent` wins, starting every other one ("alternate") or
    every one ("first")."""
    wins = 0
    for i in range(matches):
        if i % 2 == 0 or starts == "first":
            wins += play_match(game, agent, opponent, rng) == 0
        else:
            wins += play_match(game, opponent, agent, rng) == 1
    return wins / matches


def tournament(game, agents, matches, seed=0, against=None, starts="alternate"):
    """{A: {B: fraction of A's wins against B}}: for every pair of named agents, or with
    `against` (a name among them) for every other agent against that one. When the row's
    agent always moves first, A against B and B against A are two series of matches."""
    game.check_playable(game.start)
    rng = np.random.default_rng(seed)
    table = {a: {} for a in agents}
    if against is not None:
        for a in agents:
            if a != against:
                table[a][against] = win_rate(game, agents[a], agents[against], matches, rng, starts)
        return {a: rates for a, rates in table.items() if rates}
    if starts == "first":
        for a, b in itertools.permutations(agents, 2):
            table[a][b] = win_rate(game, agents[a], agents[b], matches, rng, starts)
        return table
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


def arena_record(game, agents, matches, seed, against=None, starts="alternate"):
    """The win-rate table with what made it: the game, its start, the seed, who starts."""
    if against is not None and against not in agents:
        raise FlipnetError(f"--against {against}: not one of the agents {', '.join(agents)}")
    table = tournament(game, agents, check_matches(matches), check_seed(seed), against, starts)
    return {"game": game.name, "rule": game.rule, "start": game.format(game.start), "matches": matches,
            "starts": starts, "seed": seed, "win_rate": table}


def format_table(table):
    names = list(table)
    columns = list(dict.fromkeys(b for rates in table.values() for b in rates))
    columns = [b for b in names if b in columns] + [b for b in columns if b not in names]
    width = max(8, *(len(n) for n in names + columns)) + 1
    lines = ["row's win rate against column", " " * width + "".join(n.rjust(width) for n in columns)]
    for a in names:
        cells = "".join((f"{table[a][b]:.2f}" if b in table[a] else "-").rjust(width) for b in columns)
        lines.append(a.ljust(width) + cells)
    return "\n".join(lines)
