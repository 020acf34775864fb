"""A game is registered once and every layer reads the registry: a toy game registered
here, and nowhere else, is offered by `flipnet value --help`, valued by `flipnet.value`
and the command, listed and answered by the explorer, and played by the conformance
test; once unregistered it is gone from all of them."""

import http.client
import json
import threading
import time
import urllib.parse

import pytest
import test_game_conformance as conformance

import flipnet
from flipnet import games
from flipnet.base.errors import BadInput
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
    from flipnet.play.agents import AGENTS

    for name in games.GAMES:
        for player in games.registration(name).players:
            assert player in AGENTS and (name in AGENTS[player] or None in AGENTS[player]), (name, player)
