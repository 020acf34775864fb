"""A game is registered once and every layer reads the registry: a toy game registered
here, and nowhere else, is offered by `flipnet value --help`, valued by `flipnet.value`
and the command, listed and answered by the explorer, and played by the conformance
test; once unregistered it is gone from all of them."""

import http.client
import json
import threading
import time
import urllib.parse
from functools import lru_cache

import numpy as np
import pytest
import test_game_conformance as conformance

import flipnet
from flipnet import games
from flipnet.base.errors import BadInput
from flipnet.games.board import BoardGame
from flipnet.cli import main
from flipnet.games.registry import Registration, register, registered
from flipnet.solve.position import ClosedForm


class TakeOneOrTwo:
    """One pile; a move takes 1 or 2; whoever cannot move loses. Its value is n mod 3."""

    name = "take12"
    rule = "normal"
    OPTIONS = ()
    start = 7

    def __eq__(self, other):
        return type(self) is type(other)

    def __hash__(self):
        return hash(self.name)

    @classmethod
    def configure(cls):
        return cls()

    @classmethod
    def for_position(cls, text):
        return cls()

    def legal_moves(self, n):
        return [k for k in (1, 2) if k <= n]

    def play(self, n, k):
        if k not in self.legal_moves(n):
            raise BadInput(f"take 1 or 2 from {n}, not {k}")
        return n - k

    def is_over(self, n):
        return n == 0

    def format(self, n):
        return str(n)

    def parse(self, text):
        text = str(text).strip()
        if not (text.isascii() and text.isdigit() and len(text) < 6):
            raise BadInput(f"a pile is a number, not {text[:20]!r}")
        return int(text)

    def format_move(self, k):
        return str(k)

    def parse_move(self, text, n=None):
        return int(text)

    def check_playable(self, n):
        pass


def _mod3(game, n):
    return n % 3, [k for k in game.legal_moves(n) if (n - k) % 3 == 0]


TOY = Registration(rules=TakeOneOrTwo, theory=ClosedForm(_mod3), title="take 1 or 2",
                   about="Take 1 or 2 from the pile.", start="7", form=(r"[0-9]{1,5}", "a pile like 7"),
                   players={"optimal": "the optimal player", "random": "a random player"},
                   examples=(dict(),), held_as="pile")


def _help(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["value", "--help"])
    assert stop.value.code == 0
    return capsys.readouterr().out


def _fetch(port, path, **params):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", f"{path}?{urllib.parse.urlencode(params)}", headers={"Host": f"127.0.0.1:{port}"})
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return body


def _get(port, path, **params):
    data = json.loads(_fetch(port, path, **params))
    while data.get("status") == "running":
        time.sleep(0.05)
        data = _get(port, "/api/question", question=data["question"])
    return data


def test_a_game_registered_once_is_offered_everywhere(capsys):
    from flipnet.explore.server import Explorer

    assert "take12" not in _help(capsys)
    with registered(TOY):
        shown = _help(capsys)
        assert "take12" in shown and "take12: a pile like 7" in " ".join(shown.split())  # choices, and its form
        assert main(["value", "take12", "8", "--json"]) in (None, 0)
        answer = json.loads(capsys.readouterr().out)
        assert (answer["nim_value"], [m["move"] for m in answer["winning_moves"]]) == (2, ["2"])
        result = flipnet.value(10, "take12", moves="all")  # a pile held as a number, as registered
        assert (result.value, [(m.move, m.value) for m in result.moves]) == (1, [("1", 0), ("2", 2)])

        explorer = Explorer("127.0.0.1", 0, limit=30.0, default_model="best")
        thread = threading.Thread(target=explorer.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        thread.start()
        try:
            port = explorer.server_address[1]
            listed = {g["name"]: g for g in _get(port, "/api/games")["games"]}
            assert listed["take12"]["players"] == TOY.players and listed["take12"]["page"] == "games"
            script = _fetch(port, "/static/games.js").decode()  # what the pages build their menus from
            assert json.loads(script[script.index("=") + 1:].strip().rstrip(";")) == list(listed.values())
            position = _get(port, "/api/position", game="take12", position="7")["answer"]
            assert (position["value"], [m["move"] for m in position["moves"]]) == (1, ["1", "2"])
            move = _get(port, "/api/move", game="take12", position="7", agent="optimal")["answer"]
            assert move == {"move": "1", "position": "6"}
            refused = _get(port, "/api/move", game="take12", position="7", agent="feature-es")
            assert refused["error"] == "the agents of take12 here: optimal, random"
        finally:
            explorer.shutdown()
            explorer.server_close()

        assert ("take12", {}) in conformance.cases()
        conformance.check_playouts("take12", {})
        conformance.check_refusals("take12")
    assert "take12" not in _help(capsys) and "take12" not in games.GAMES
    assert ("take12", {}) not in conformance.cases()
    with pytest.raises(ValueError, match="unknown game 'take12'"):
        flipnet.value(7, "take12")


def test_a_name_is_registered_once():
    with pytest.raises(BadInput, match="a game named 'flip' is registered already"):
        register(games.registration("flip"))
    with registered(TOY), pytest.raises(BadInput, match="is registered already"):
        register(TOY)


def test_every_player_a_registration_offers_plays_its_game():
    """The explorer's menus come from the registrations; each name there is an agent
    `play.agents` makes for that game (the agents' own registry)."""
    from flipnet.play.agents import AGENTS, make_agent

    for name in games.GAMES:
        for player in games.registration(name).players:
            agent = player.split(":")[0]  # difficulty:P names the agent and its setting
            assert agent in AGENTS and (name in AGENTS[agent] or None in AGENTS[agent]), (name, player)
            if agent != player:  # its setting read as the agent reads it
                assert callable(make_agent(player, games.make(name)))


class NodeKayles(BoardGame):
    """Node Kayles on a grid: a move takes one full cell and its full neighbours (above,
    below, left, right); whoever cannot move loses. Its moves are not fixed sets of cells:
    what a move clears depends on the position."""

    name = "nodekayles"
    default_shape = (3, 3)

    def _masks(self):  # a move is named by the cell it takes
        return (1 << b for b in range(self.n_cells))

    def legal_moves(self, state):
        return [m for m in self.move_masks if state & m]

    def play(self, state, move):
        if move not in self.legal_moves(state):
            raise BadInput(f"illegal move {self.format_move(move)} in {self.format(state)}")
        r, c = divmod(move.bit_length() - 1, self.cols)
        around = [(r + dr, c + dc) for dr, dc in ((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1))]
        return state & ~sum(1 << self.bit(rr, cc) for rr, cc in around if 0 <= rr < self.rows and 0 <= cc < self.cols)


NODE_KAYLES = Registration(rules=NodeKayles, theory="flipnet.solve.position:RECURSION", title="Node Kayles",
                           about="Take a stone and the stones beside it.", start="111/111/111",
                           form=(r"[01]{1,4}(/[01]{1,4}){0,3}", "rows of 0 and 1 joined by /"),
                           players={"optimal": "the optimal player", "random": "a random player"},
                           examples=(dict(shape=(3, 3)), dict(shape=(2, 4))), held_as="cells")


def node_kayles_by_hand(text):
    """An independent reading of the rules: the Grundy value of a grid given as text, the
    cells as (row, col), by the mex of every cell taken with its neighbours."""
    rows = text.split("/")
    full = frozenset((r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "1")

    @lru_cache(maxsize=None)
    def value(cells):
        seen = {value(cells - {(r, c), (r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)}) for r, c in cells}
        return next(v for v in range(len(seen) + 1) if v not in seen)

    return value(full)


def test_a_game_whose_moves_are_not_fixed_masks_takes_its_rules_its_theory_and_its_test(capsys):
    """Node Kayles, registered here with the generic recursion as its theory: offered by the
    command, valued by the API against a reading of the rules by hand, listed and answered
    by the explorer, played by the conformance test by its declarations, and refused by
    the table solver, which needs fixed masks."""
    from flipnet.explore.server import Explorer

    with registered(NODE_KAYLES):
        assert "nodekayles" in _help(capsys)
        rng = np.random.default_rng(4)
        for _ in range(25):
            rows, cols = int(rng.integers(1, 4)), int(rng.integers(2, 5))
            text = "/".join("".join("1" if rng.random() < 0.7 else "0" for _ in range(cols)) for _ in range(rows))
            result = flipnet.value(text, "nodekayles", moves="all")
            assert result.value == node_kayles_by_hand(text), text
            assert all(m.value == node_kayles_by_hand(m.position) for m in result.moves), text
        assert main(["value", "nodekayles", "111/111", "--json"]) in (None, 0)
        answer = json.loads(capsys.readouterr().out)
        assert answer["nim_value"] == node_kayles_by_hand("111/111")
        assert {m["move"] for m in answer["winning_moves"]} == \
            {m.move for m in flipnet.value("111/111", "nodekayles", moves="all").moves if m.value == 0}
        with pytest.raises(BadInput, match="nodekayles's moves are not fixed sets of cells .*moves='rules'"):
            from flipnet.solve import table

            table(games.make("nodekayles", shape=(2, 2)))
        with pytest.raises(SystemExit) as stop:
            main(["solve", "nodekayles", "--shape", "2x2"])  # not among the table's choices
        assert stop.value.code == 2 and "invalid choice: 'nodekayles'" in capsys.readouterr().err
        explorer = Explorer("127.0.0.1", 0, limit=30.0, default_model="best")
        thread = threading.Thread(target=explorer.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        thread.start()
        try:
            port = explorer.server_address[1]
            assert "nodekayles" in {g["name"] for g in _get(port, "/api/games")["games"]}
            position = _get(port, "/api/position", game="nodekayles", position="111/111")["answer"]
            assert position["value"] == node_kayles_by_hand("111/111")
        finally:
            explorer.shutdown()
            explorer.server_close()
        for options in NODE_KAYLES.examples:
            conformance.check_playouts("nodekayles", options)
        conformance.check_refusals("nodekayles")
    assert "nodekayles" not in games.GAMES


def test_a_registration_declares_how_its_moves_are_made():
    assert [name for name in games.GAMES if games.registration(name).moves == "masks"] == ["flip", "gridnim"]
    with pytest.raises(BadInput, match="moves='masks' is for a board game"):
        Registration(rules=TakeOneOrTwo, theory=ClosedForm(_mod3), title="t", about="t", start="7",
                     form=(r"[0-9]+", "a pile"), players={}, examples=(), moves="masks")
    with pytest.raises(BadInput, match="a registration's moves are one of masks, rules, not 'cells'"):
        Registration(rules=NodeKayles, theory=None, title="t", about="t", start="1", form=("1", "1"), players={},
                     examples=(), moves="cells")
