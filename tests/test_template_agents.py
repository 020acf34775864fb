"""The course template's Nim players and the student's evolution strategy, each against a
literal reading of its source (docs/sources.md section 4): the template's functions
transcribed here as the test's own oracle (rows, the template's enumeration of moves, its
nim-sum over 32-bit strings), and the report's ES as a plain transcription of its
sentences. The agents must make the same moves with the same probabilities."""

import itertools
from collections import Counter
from copy import deepcopy
from dataclasses import dataclass

import numpy as np
import pytest

from flipnet.games import Nim
from flipnet.play.agents import make_agent, optimal_agent
from flipnet.play.arena import arena_record, play_match
from flipnet.play.student_es import StudentES, fitness
from flipnet.play.template import lowest_agent, nonzero_nimsum_agent, random_row_agent

GAME = Nim(misere=True)


def literal_nim_sum(rows):
    """The template's nim-sum: the XOR of the rows written as 32-bit strings, column by column."""
    bits = np.array([[int(x) for x in f"{c:032b}"] for c in rows])
    return int("".join(str(b) for b in bits.sum(axis=0) % 2), base=2)


def literal_moves(rows):
    return [(r, o) for r, c in enumerate(rows) for o in range(1, c + 1)]


def literal_random_distribution(rows):
    """pure_random: a non-empty row uniformly, then 1..its size uniformly."""
    live = [r for r, c in enumerate(rows) if c > 0]
    return {(r, o): 1 / len(live) / rows[r] for r in live for o in range(1, rows[r] + 1)}


def literal_optimal_distribution(rows):
    """optimal: uniformly among the moves after which the nim-sum is not 0, else among all."""
    after = {}
    for r, o in literal_moves(rows):
        tmp = list(deepcopy(rows))
        tmp[r] -= o
        after[(r, o)] = literal_nim_sum(tmp)
    spicy = [m for m, ns in after.items() if ns != 0] or list(after)
    return {m: 1 / len(spicy) for m in spicy}


def literal_misere_distribution(rows):
    """The student's "100% winning strategy": in the special state (one row of two or more)
    leave an odd number of 1-rows; otherwise uniformly among the moves to nim-sum 0, else
    among all moves."""
    big = [r for r, c in enumerate(rows) if c >= 2]
    if len(big) == 1:
        row, nonempty = big[0], sum(1 for c in rows if c)
        return {(row, rows[row] if nonempty % 2 == 0 else rows[row] - 1): 1.0}
    zero = [(r, o) for r, o in literal_moves(rows)
            if literal_nim_sum([c - o if i == r else c for i, c in enumerate(rows)]) == 0] or literal_moves(rows)
    return {m: 1 / len(zero) for m in zero}


def literal_fixed_rule(rows):
    """gabriele: the maximum of the moves by (-row, count): all of the lowest non-empty row."""
    return max(literal_moves(rows), key=lambda m: (-m[0], m[1]))


def positions(n, seed):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        rows = tuple(int(x) for x in rng.integers(0, 10, size=int(rng.integers(1, 6))))
        if sum(rows):
            out.append(rows)
    return out


def frequencies(agent, rows, n, seed):
    rng = np.random.default_rng(seed)
    counts = Counter(agent(GAME, rows, rng) for _ in range(n))
    return {m: c / n for m, c in counts.items()}


def total_variation(p, q):
    return 0.5 * sum(abs(p.get(m, 0.0) - q.get(m, 0.0)) for m in set(p) | set(q))


@pytest.mark.parametrize("agent, literal", [(random_row_agent, literal_random_distribution),
                                            (nonzero_nimsum_agent, literal_optimal_distribution),
                                            (optimal_agent, literal_misere_distribution)])
def test_the_template_players_move_with_its_probabilities(agent, literal):
    """Every move the agent makes is one the template can make, with the template's
    probability (20,000 draws a position: the distance stays within sampling noise).
    flipnet's `optimal`, from the exact theory, makes the moves of the student's misere
    strategy with its probabilities."""
    for k, rows in enumerate(positions(12, seed=1)):
        expected = literal(rows)
        got = frequencies(agent, rows, 20_000, seed=k)
        assert set(got) <= set(expected), rows
        assert total_variation(got, expected) < 0.03, (rows, total_variation(got, expected))


def test_the_nim_sum_reading_and_the_fixed_rule():
    for rows in positions(300, seed=2):
        assert literal_fixed_rule(rows) == lowest_agent(GAME, rows, None)
        assert literal_nim_sum(rows) == np.bitwise_xor.reduce(rows)


def test_a_test_that_reads_the_template_wrong_is_caught():
    """The check has teeth: uniform over all moves (flipnet's `random`) is not the
    template's random player, whose rows are chosen alike whatever their size."""
    rows = (1, 3, 5, 7, 9)
    uniform = {m: 1 / len(literal_moves(rows)) for m in literal_moves(rows)}
    assert total_variation(uniform, literal_random_distribution(rows)) > 0.1


# --- the student's ES, read literally from the report ---------------------------------

@dataclass
class Individual:  # "An Individual inside a population is composed by the following attributes"
    row: int
    num_obj: list
    weights: np.ndarray
    strategy: tuple = None
    fitness: int = 0


def literal_fitness(rows, row, count):
    """The report's list: 0 not interesting, 1 nim-sum 0, 2 special state and the right row,
    3 right row and number, -1 a row with 0 elements."""
    if rows[row] == 0:
        return -1
    others_big = any(c >= 2 for r, c in enumerate(rows) if r != row)
    if rows[row] >= 2 and not others_big:  # "only one row that has a number of elements >= 2"
        odd_ones_after = {o for o in range(1, rows[row] + 1)
                          if (sum(1 for r, c in enumerate(rows) if c and r != row) + (rows[row] - o == 1)) % 2 == 1
                          and rows[row] - o <= 1}
        return 3 if count in odd_ones_after else 2
    after = list(rows)
    after[row] -= count
    return 1 if literal_nim_sum(after) == 0 else 0


def literal_es(rows, rng, lam=5, budget=1000):
    """The (1 + lambda) search as the report describes it, transcribed plainly."""
    def choose(ind):
        p = ind.weights / ind.weights.sum()
        return ind.num_obj[int(rng.choice(len(p), p=p))]

    population = [Individual(r, list(range(1, c + 1)), rng.uniform(0, 1, c)) for r, c in enumerate(rows)]
    for ind in population:
        if ind.num_obj:
            ind.strategy = (ind.row, choose(ind))
            ind.fitness = literal_fitness(rows, *ind.strategy)
        else:
            ind.fitness = -1
    population.sort(key=lambda x: x.fitness, reverse=True)
    parent = population[0]
    for _ in range(budget // lam):
        children = []
        for _ in range(lam):
            weights = parent.weights.copy()
            for w in range(len(weights)):
                if rng.random() < 0.5:
                    weights[w] += rng.normal(0, 0.01)
                    if weights[w] <= 0:
                        weights[w] = 0.1
            child = Individual(parent.row, parent.num_obj, weights)
            child.strategy = (child.row, choose(child))
            child.fitness = literal_fitness(rows, *child.strategy)
            children.append(child)
        population = sorted(children + [parent], key=lambda x: x.fitness, reverse=True)
        parent = population[0]
    return parent.strategy


def test_the_fitness_is_the_reports_list():
    for rows in positions(200, seed=3):
        for row, size in enumerate(rows):
            for count in range(1, size + 1) if size else [None]:
                assert fitness(rows, row, count) == (literal_fitness(rows, row, count) if count else -1), \
                    (rows, row, count)


@pytest.mark.slow
def test_the_es_makes_the_moves_of_a_literal_reading():
    """Move distributions of flipnet's StudentES and the transcription above, 150 searches
    each on positions of the normal part of a game and of the special state, with 200
    children a search (40 generations: the distributions are wider than at the report's
    1000, so a difference shows more)."""
    for k, rows in enumerate([(1, 3, 5, 7, 9), (1, 0, 5, 2, 0), (1, 1, 0, 6, 0), (0, 3, 3, 1, 0)]):
        ours = frequencies(StudentES(budget=200), rows, 150, seed=k)
        rng = np.random.default_rng(100 + k)
        counts = Counter(literal_es(rows, rng, budget=200) for _ in range(150))
        theirs = {m: c / 150 for m, c in counts.items()}
        assert total_variation(ours, theirs) < 0.2, (rows, ours, theirs)


def test_the_es_finds_the_special_states_move():
    """With one row of two or more, the best fitness (3) is the misere strategy's move."""
    rng = np.random.default_rng(4)
    es = StudentES()
    for rows, right in [((1, 0, 5, 0, 0), (2, 5)), ((1, 1, 6, 0, 0), (2, 5)), ((0, 1, 0, 1, 9), (4, 8))]:
        assert all(es(GAME, rows, rng) == right for _ in range(20)), rows


def test_the_readings_differ_where_the_report_is_silent():
    """As written, every child keeps the row of the best first individual; in the other
    reading a child may take any row: from (1, 3, 5, 7, 9) the first reading plays rows of
    the lowest index more often."""
    as_written = frequencies(StudentES("as-written", budget=200), (1, 3, 5, 7, 9), 200, seed=5)
    every_row = frequencies(StudentES("every-row", budget=200), (1, 3, 5, 7, 9), 200, seed=5)
    assert total_variation(as_written, every_row) > 0.1
    with pytest.raises(Exception, match="as-written or every-row"):
        StudentES("both")
    with pytest.raises(Exception, match="misere Nim only"):
        make_agent("student-es", Nim())


def test_arena_against_one_agent_and_starting_first():
    agents = {"random-row": random_row_agent, "optimal": make_agent("optimal", GAME)}
    record = arena_record(GAME, agents, 50, 0, against="random-row", starts="first")
    assert record["win_rate"] == {"optimal": {"random-row": 1.0}} and record["starts"] == "first"
    rng = np.random.default_rng(0)  # moving first from Nim(5), a won position, perfect play always wins
    assert all(play_match(GAME, agents["optimal"], random_row_agent, rng) == 0 for _ in range(50))
    both = arena_record(GAME, agents, 20, 0, starts="first")
    assert set(itertools.chain.from_iterable(both["win_rate"].values())) == {"random-row", "optimal"}
