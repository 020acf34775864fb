import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from flipnet.games import GridNim, HalfNim
from flipnet.nn.nim.mlp import NimMLP
from flipnet.play.agents import NeuralHalfNim, optimal_agent, random_agent
from flipnet.play.console import AI, USER, Match
from flipnet.play.gui import OVER, PLAYING, START, HalfNimController

REPO = Path(__file__).resolve().parent.parent


def play(*args, stdin=""):
    return subprocess.run([sys.executable, "-m", "flipnet", "play", "halfnim", *args],
                          input=stdin, capture_output=True, text=True, timeout=120)


def test_console_reprompts_and_announces_the_winner():
    # 20 is a won pile: the perfect AI moves to 15 and wins whatever the user does
    proc = play("--ai", "perfect", "--start", "20", "--seed", "1", stdin="9\nx\n" + "1\n" * 20)
    out = proc.stdout
    assert proc.returncode == 0
    assert out.startswith("AI moves first. Starting with n = 20")
    assert "AI plays 5 (DP move: 5)" in out
    assert "Invalid move: take between 1 and 7, not 9; try again" in out
    assert "Invalid move: not a number: 'x'; try again" in out
    assert out.rstrip().endswith("AI won!")


def test_console_asks_for_the_start_and_ends_cleanly_at_end_of_input():
    proc = play("--ai", "random", stdin="1\nabc\n6\n")
    assert proc.returncode == 0
    assert proc.stdout.count("Please enter a whole number from 2 to 127.") == 2
    assert "Starting with n = 6" in proc.stdout
    assert proc.stdout.rstrip().endswith("input ended; game abandoned")
    assert "Traceback" not in proc.stderr


def test_console_with_no_input_at_all():
    proc = play()
    assert proc.returncode == 0 and "no game played" in proc.stdout


def test_bad_start_and_bad_weights_are_one_line_errors(tmp_path):
    proc = play("--start", "500")
    assert proc.returncode == 2 and "a game starts from 2 to 127 blocks, not 500" in proc.stderr
    bad = tmp_path / "w.txt"
    bad.write_text("1 2 3")
    proc = play("--weights", str(bad), "--start", "9")
    assert proc.returncode == 2 and "too few numbers, 3 of 210" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_the_user_can_win():
    # from 7 (a lost pile) the AI's every move leaves the user a winning reply
    rng = np.random.default_rng(0)
    match = Match(HalfNim(), random_agent, state=7, ai_first=True, seed=3)
    while not match.over:
        if match.to_move == AI:
            match.ai_move()
        else:
            match.user_move(str(optimal_agent(match.game, match.state, rng)))
    assert match.winner == USER


def test_winner_under_misere_play():
    game = GridNim(1, 1)  # one stone: whoever must take it loses
    match = Match(game, random_agent, ai_first=True, seed=0)
    match.ai_move()
    assert match.over and match.winner == USER


def test_neural_agent_replaces_an_illegal_output():
    mlp = NimMLP(seed=0)
    mlp.wo[:] = 0
    mlp.wo[0, :] = 10.0  # every output bit on: the network always says 63
    agent = NeuralHalfNim(mlp)
    k = agent(HalfNim(), 9, np.random.default_rng(0))
    assert 1 <= k <= 4 and "the network said 63" in agent.last_note


def test_window_controller_flow():
    controller = HalfNimController(optimal_agent, seed=0)
    assert controller.phase == START
    controller.submit("1")
    assert controller.phase == START and "from 2 to 127" in controller.messages[0]
    controller.submit("20")
    assert controller.phase == PLAYING and controller.blocks == 15
    controller.submit("12")
    assert controller.blocks == 15 and controller.messages[0].startswith("Invalid move")
    while controller.phase == PLAYING:
        controller.submit("1")
    assert controller.phase == OVER and "AI has won!" in controller.messages[-1]
    controller.restart()
    assert controller.phase == START and controller.blocks == 0


def test_window_opens_under_xvfb(tmp_path):
    """The real Tk window on a virtual screen, driven a little, and a screenshot."""
    xvfb, grab = shutil.which("Xvfb"), shutil.which("import")
    if not xvfb or not grab:
        pytest.skip("no Xvfb or ImageMagick `import` here (Debian packages xvfb, imagemagick)")
    display = ":87"
    server = subprocess.Popen([xvfb, display, "-screen", "0", "800x700x24"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(1.0)
        shot = tmp_path / "halfnim.png"
        script = (
            "import tkinter, subprocess, sys\n"
            "from flipnet.play.agents import optimal_agent\n"
            "from flipnet.play.gui import HalfNimController, HalfNimWindow\n"
            "w = HalfNimWindow(HalfNimController(optimal_agent, seed=0))\n"
            "w.entry.insert(0, '37'); w.submit(); w.entry.insert(0, '2'); w.submit()\n"
            "w.root.update(); w.root.after(300, w.root.quit); w.root.mainloop(); w.root.update()\n"
            f"subprocess.run(['{grab}', '-window', 'root', '{shot}'], check=True)\n"
            "print(w.controller.blocks)\n")
        proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                              timeout=60, env={"DISPLAY": display, "PATH": "/usr/bin:/bin"}, cwd=REPO)
        assert proc.returncode == 0, proc.stderr
        assert int(proc.stdout.strip()) < 35  # the AI and the user both moved
        assert shot.stat().st_size > 2000
    finally:
        server.terminate()
        server.wait()
