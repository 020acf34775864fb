import json
import subprocess
import sys

import numpy as np
import pytest

from flipnet.play.agents import (difficulty_agent, lowest_agent, make_agent, normal_nimsum_agent, optimal_agent,
                            random_agent)
from flipnet.solve import nim_outcome
from flipnet.play.arena import play_match, tournament, win_rate
from flipnet.base.errors import FlipnetError
from flipnet.play.es import ESAgent, evolve
from flipnet.games import FlipGame, GridNim, HalfNim, Nim

MISERE5 = Nim((1, 3, 5, 7, 9), misere=True)


@pytest.mark.parametrize("game", [MISERE5, Nim((2, 5, 6)), FlipGame(3, 4), GridNim(3, 3), HalfNim()])
@pytest.mark.parametrize("agent", [random_agent, optimal_agent, difficulty_agent(0.5)])
def test_agents_play_legal_moves(game, agent):
    rng = np.random.default_rng(0)
    state = game.start if not isinstance(game, HalfNim) else 60
    while not game.is_over(state):
        move = agent(game, state, rng)
        assert move in game.legal_moves(state)
        state = game.play(state, move)


def test_optimal_keeps_a_won_position_won():
    rng = np.random.default_rng(1)
    for game in (MISERE5, Nim((3, 4, 5)), GridNim(3, 3), FlipGame(2, 4)):
        from flipnet.solve import value_and_winning_moves
        value, _ = value_and_winning_moves(game, game.start)
        if value:  # the first player wins: optimal moving first beats anyone
            assert all(play_match(game, optimal_agent, random_agent, rng) == 0 for _ in range(20))


def test_optimal_beats_random_and_normal_nimsum_fails_under_misere():
    rng = np.random.default_rng(2)
    assert win_rate(MISERE5, optimal_agent, random_agent, 100, rng) >= 0.99
    assert win_rate(MISERE5, normal_nimsum_agent, random_agent, 100, rng) < 0.5


def test_lowest_and_normal_nimsum_rules():
    rng = np.random.default_rng(0)
    assert lowest_agent(MISERE5, (0, 0, 4, 2), rng) == (2, 4)
    i, k = normal_nimsum_agent(Nim(), (1, 2, 4), rng)
    after = list((1, 2, 4))
    after[i] -= k
    assert nim_outcome(after) == 0
    with pytest.raises(FlipnetError, match="the lowest agent plays nim only, not flip"):
        make_agent("lowest", FlipGame(1, 4))
    with pytest.raises(FlipnetError, match="the neural agent plays halfnim, flip only, not nim"):
        make_agent("neural", Nim())


def test_difficulty_rises_with_p():
    rates = [win_rate(MISERE5, difficulty_agent(p), random_agent, 200, np.random.default_rng(3))
             for p in (0.0, 0.5, 1.0)]
    assert rates[0] < rates[1] < rates[2] and rates[2] >= 0.99
    with pytest.raises(FlipnetError, match="between 0 and 1"):
        difficulty_agent(1.5)


def test_play_match_winner_rules():
    rng = np.random.default_rng(0)
    # one heap of 1: the first player must take it; under misere play that loses
    assert play_match(Nim((1,), misere=True), random_agent, random_agent, rng) == 1
    assert play_match(Nim((1,)), random_agent, random_agent, rng) == 0


def test_tournament_is_consistent():
    table = tournament(MISERE5, {"a": random_agent, "b": optimal_agent}, 30, seed=0)
    assert table["a"]["b"] + table["b"]["a"] == pytest.approx(1)


def test_hand_set_es_weights_express_the_misere_strategy():
    # nim-sum 0 is good, unless only small heaps remain: then leave an odd number of ones
    agent = ESAgent(np.array([1.0, -1.0, 2.0, 0.0, 0.0]))
    assert win_rate(MISERE5, agent, random_agent, 100, np.random.default_rng(4)) >= 0.99


def test_es_training_is_seeded_and_round_trips(tmp_path):
    a = evolve(MISERE5, random_agent, seed=5, matches=6, generations=8)
    b = evolve(MISERE5, random_agent, seed=5, matches=6, generations=8)
    assert np.array_equal(a.weights, b.weights) and len(a.history) == 8
    assert a.history == sorted(a.history)  # (1 + lambda) never loses the parent's fitness
    path = tmp_path / "es.json"
    a.save(path, {"seed": 5})
    assert np.array_equal(ESAgent.load(path).weights, a.weights)
    path.write_text("{}")
    with pytest.raises(FlipnetError, match="es.json: field weights is missing"):
        ESAgent.load(path)


def test_make_agent_errors():
    with pytest.raises(FlipnetError, match="unknown agent 'smart'"):
        make_agent("smart", MISERE5)
    with pytest.raises(FlipnetError, match="difficulty:P"):
        make_agent("difficulty:x", MISERE5)
    with pytest.raises(FlipnetError, match="nosuch.json not found"):
        make_agent("feature-es:nosuch.json", MISERE5)
    with pytest.raises(FlipnetError, match="no model named 'nosuch' in results/ and none ships"):
        make_agent("network:nosuch", FlipGame(1, 20))


def cli(*args, stdin=""):
    return subprocess.run([sys.executable, "-m", "flipnet", *args], input=stdin,
                          capture_output=True, text=True, timeout=120)


def test_arena_json(tmp_path):
    out = tmp_path / "arena.json"
    proc = cli("arena", "nim", "--misere", "--agents", "random,optimal,normal-nimsum", "--matches", "20", "--json",
               "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["win_rate"]["optimal"]["random"] >= 0.95 and data["rule"] == "misere"
    assert set(data["win_rate"]) == {"random", "optimal", "normal-nimsum"}
    assert json.loads(out.read_text()) == data  # the file `make compare` reads


@pytest.mark.parametrize("args, message", [
    (["arena", "nim", "--agents", "random"], "at least two different agents"),
    (["arena", "nim", "--agents", "random,wizard"], "unknown agent 'wizard'"),
    (["arena", "flip", "--agents", "random,lowest"], "lowest agent plays nim only, not flip"),
    (["arena", "nim", "--heaps", "1,x", "--agents", "random,optimal"], "heap 2 is 'x'"),
])
def test_arena_errors(args, message):
    proc = cli(*args)
    assert proc.returncode == 2 and message in proc.stderr


def test_play_nim_asks_who_starts_reprompts_and_ends_at_end_of_input():
    proc = cli("play", "nim", "--misere", "--heaps", "1,3,5", "--ai", "optimal",
               stdin="maybe\ny\n9@1\n1@1\n")
    out = proc.stdout
    assert proc.returncode == 0
    assert "Please answer y or n." in out and "You move first" in out
    assert "Invalid move: heap 1 holds 1: take 1..1, not 9; try again" in out
    assert "You play 1@1" in out and out.rstrip().endswith("input ended; game abandoned")


@pytest.mark.parametrize("game, moves", [
    (["gridnim", "--shape", "2x2"], ["0,0+0,1", "1,0", "1,1", "0,0", "0,1"]),
    (["flip", "--shape", "2x3"], ["0,0+0,1", "1,0+1,1", "0,1+1,1", "0,2+1,2"]),
    (["flip", "--shape", "1x7"], ["0+1", "1+2", "2+3", "3+4", "4+5", "5+6"]),
])
def test_play_board_games_to_the_end(game, moves):
    # the user tries every listed move in turn; illegal ones are re-prompted, legal ones played
    proc = cli("play", *game, "--first", "you", "--ai", "random", "--seed", "0", stdin="\n".join(moves * 3) + "\n")
    assert proc.returncode == 0
    assert proc.stdout.rstrip().endswith(("You won!", "AI won!"))
