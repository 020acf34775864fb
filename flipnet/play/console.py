"""A game between the user and an agent, and the console that runs one.

`Match` holds the rules of taking turns and deciding the winner; the console (here) and
the Tk window (`gui.py`) only show it and pass the user's moves in. Each game draws
itself (`game.render`, `game.move_hint`); a game's registration (`console`) holds what
the original programs did differently (the C++ NIM program: the network plays, it moves first, it
asks for the start and prints the DP's move beside the network's).
"""

import numpy as np

from flipnet.games import registration, stuck_player_wins
from flipnet.games.registry import named
from flipnet.solve import halfnim_value, halfnim_winning_moves
from flipnet.base.errors import BadInput, FlipnetError

AI, USER = "AI", "you"


class Match:
    def __init__(self, game, agent, state=None, ai_first=True, seed=None):
        self.game, self.agent = game, agent
        self.state = game.start if state is None else state
        game.check_playable(self.state)
        self.to_move = AI if ai_first else USER
        self.rng = np.random.default_rng(seed)
        self.history = []  # (player, move)

    @property
    def over(self):
        return self.game.is_over(self.state)

    @property
    def winner(self):
        """Who won, once the game is over (None before)."""
        if not self.over:
            return None
        stuck = self.to_move
        other = USER if stuck == AI else AI
        return stuck if stuck_player_wins(self.game) else other

    def ai_move(self):
        assert self.to_move == AI and not self.over
        move = self.agent(self.game, self.state, self.rng)
        self._apply(AI, move)
        return move

    def user_move(self, text):
        """Play the user's move written as text; a ValueError says why it is not legal."""
        assert self.to_move == USER and not self.over
        move = self.game.parse_move(text, self.state)
        if move not in self.game.legal_moves(self.state):
            raise BadInput(f"{text.strip()!r} is not a legal move here")
        self._apply(USER, move)
        return move

    def _apply(self, player, move):
        self.state = self.game.play(self.state, move)
        self.history.append((player, move))
        self.to_move = USER if player == AI else AI


class EndOfInput(Exception):
    pass


def run_console(match, read, write, describe_ai=None):
    """Play `match` to the end, reading the user's lines with `read()` (None at end of
    input) and writing with `write(text)`. Returns the winner, or None if input ended."""
    game = match.game
    try:
        while not match.over:
            write(game.render(match.state))
            if match.to_move == AI:
                move = match.ai_move()
                note = describe_ai(match) if describe_ai else ""
                write(f"AI plays {game.format_move(move)}{note}")
                continue
            while True:
                line = read(f"Your move ({game.move_hint(match.state)}): ")
                if line is None:
                    raise EndOfInput
                try:
                    move = match.user_move(line)
                    break
                except FlipnetError as exc:
                    write(f"Invalid move: {exc}; try again")
            write(f"You play {game.format_move(move)}")
    except EndOfInput:
        write("input ended; game abandoned")
        return None
    write(game.render(match.state))
    write("You won!" if match.winner == USER else "AI won!")
    return match.winner


def ask_int(read, write, prompt, low, high):
    """Ask until the answer is an integer in [low, high]; None at end of input."""
    while True:
        line = read(prompt)
        if line is None:
            return None
        try:
            value = int(line.strip())
            if low <= value <= high:
                return value
        except ValueError:
            pass
        write(f"Please enter a whole number from {low} to {high}.")


def ask_yes_no(read, write, prompt):
    """Ask until the answer is y/yes/n/no; True for yes, None at end of input."""
    while True:
        line = read(prompt)
        if line is None:
            return None
        answer = line.strip().lower()
        if answer in ("y", "yes", "n", "no"):
            return answer.startswith("y")
        write("Please answer y or n.")


def halfnim_note(match):
    """What the C++ program printed beside the AI's move: the DP's own choice. Also the
    neural agent's note when it had to replace an illegal output."""
    _, k = match.history[-1]
    before = match.state + k
    if halfnim_value(before):
        note = f" (DP move: {halfnim_winning_moves(before)[0]})"
    else:
        note = " (DP: a lost position, every move loses)"
    extra = getattr(match.agent, "last_note", "")
    return note + (f"; {extra}" if extra else "")


def play_defaults(game):
    """How the console plays `game` when the user does not say (the AI, who starts, whether
    to ask for the start, what to print beside the AI's move): its registration's `console`."""
    given = dict(registration(game.name).console)
    if "describe_ai" in given:
        given["describe_ai"] = named(given["describe_ai"])
    return {"ai": "optimal", "first": None, "ask_start": False, "describe_ai": None, **given}
