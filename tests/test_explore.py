"""`flipnet explore`'s endpoints without a browser: their answers against the API and an
independent recursion, the questions' cancel and time limit, and the rules that make the
server safe to leave running (its Host, paths, sizes, no file written); the real command
in a subprocess for its URL line and its Ctrl-C."""

import http.client
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import urllib.parse

import numpy as np
import pytest
from cli_cases import FLIPNET, environment
from conftest import recursive_values

import flipnet
from flipnet import games
from flipnet.games import FlipGame
from flipnet.solve.cram.limits import MIN_TABLE_LOG


@pytest.fixture(scope="module")
def server(tmp_path_factory, python_linker_module):
    """An explorer in this process, on a free port; the cache and data folders empty, to
    show that no request writes there."""
    from flipnet.explore.server import Explorer

    folders = {name: tmp_path_factory.mktemp(name) for name in ("cache", "data")}
    old = {k: os.environ.get(k) for k in ("FLIPNET_CACHE", "FLIPNET_DATA")}
    os.environ.update(FLIPNET_CACHE=str(folders["cache"]), FLIPNET_DATA=str(folders["data"]))
    explorer = Explorer("127.0.0.1", 0, limit=30.0, default_model="best")
    thread = threading.Thread(target=explorer.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield explorer, folders
    explorer.shutdown()
    explorer.server_close()
    for k, v in old.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


def request(server, path, method="GET", host=None, body=None, params=None):
    explorer = server[0]
    port = explorer.server_address[1]
    if params:
        path = f"{path}?{urllib.parse.urlencode(params)}"
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.request(method, path, body=body, headers={"Host": host or f"127.0.0.1:{port}"})
    response = connection.getresponse()
    data = response.read()
    connection.close()
    kind = response.getheader("Content-Type", "")
    return response.status, json.loads(data) if kind == "application/json" else data, response


def answered(server, path, params):
    """An exact question's answer, polled to the end."""
    status, data, _ = request(server, path, params=params)
    assert status == 200, data
    while data["status"] == "running":
        time.sleep(0.05)
        status, data, _ = request(server, "/api/question", params={"question": data["question"]})
    assert data["status"] == "done", data
    return data["answer"]


@pytest.mark.parametrize("rows, cols", [(2, 3), (3, 3), (1, 6)])
def test_a_position_is_every_move_and_component_against_a_recursion(server, rows, cols):
    game = FlipGame(rows, cols)
    truth = recursive_values(game)
    for state in np.random.default_rng(rows + cols).integers(1, 1 << game.n_cells, size=12).tolist():
        answer = answered(server, "/api/position", {"game": "flip", "position": game.format(state)})
        assert answer["value"] == truth[state] and answer["winner"] == ("first" if truth[state] else "second")
        expected = {}
        for mask in game.legal_moves(state):
            expected[tuple(map(tuple, game.cells(mask)))] = truth[state & ~mask]
        assert {tuple(map(tuple, m["cells"])): m["value"] for m in answer["moves"]} == expected
        assert [m["value"] for m in answer["moves"]] == sorted(expected.values())  # best first
        xor = 0
        for part in answer["components"]:
            mask = sum(1 << game.bit(r, c) for r, c in part["cells"])
            assert truth[mask] == part["value"]
            xor ^= part["value"]
        assert xor == answer["value"]


def test_the_network_and_agents_answer_as_the_api(server):
    text = "11011/11111/01110/11011/10111"
    mlp = flipnet.load_model("mlp2d")
    game = FlipGame(5, 5)
    state = game.parse(text)
    status, answer, _ = request(server, "/api/model", params={"name": "mlp2d", "position": text})
    assert status == 200 and answer["value"] == mlp.predict(text) and answer["kind"] == "mlp2d"
    children = [game.format(state & ~m) for m in game.legal_moves(state)]
    assert [m["value"] for m in answer["moves"]] == mlp.predict(children).tolist()
    assert abs(sum(answer["probabilities"]) - 1) < 1e-4 and "components" not in answer  # a network of positions
    status, best, _ = request(server, "/api/model", params={"position": "11000/00011/00000/11100/00000"})
    assert [(len(c["cells"]), c["known"]) for c in best["components"]] == [(2, True), (2, True), (3, True)]
    perfect = answered(server, "/api/move", {"game": "flip", "position": text, "agent": "perfect", "seed": 3, "ply": 0})
    assert flipnet.value(text).value == 0 or flipnet.value(perfect["position"]).value == 0  # a winning move if any
    again = answered(server, "/api/move", {"game": "flip", "position": "111/111/111", "agent": "random", "seed": 9,
                                           "ply": 4})
    assert again == answered(server, "/api/move", {"game": "flip", "position": "111/111/111", "agent": "random",
                                                   "seed": 9, "ply": 4})  # the same seed and ply, the same move


def test_the_solvers_strength_is_chosen_by_difficulty(server):
    """The page's weaker opponents are the CLI's difficulty:P: the perfect move with
    probability P, else a random one. From a board with one winning move of 13, P = 0.25
    finds it less often than P = 0.75, and the perfect player always."""
    text = "0110/1111/1111"
    game = FlipGame(3, 4)
    state = game.parse(text)
    winning = {game.format(state & ~m) for m in game.legal_moves(state) if flipnet.value(game.format(state & ~m)).value == 0}
    wins = {}
    for agent in ("difficulty:0.25", "difficulty:0.75", "perfect"):
        left = [answered(server, "/api/move", {"game": "flip", "position": text, "agent": agent, "seed": seed,
                                               "ply": 0})["position"] for seed in range(40)]
        wins[agent] = sum(position in winning for position in left)
    assert len(winning) == 1 and len(game.legal_moves(state)) == 13
    assert wins["difficulty:0.25"] < wins["difficulty:0.75"] < wins["perfect"] == 40, wins


def test_the_nim_games_and_their_players(server):
    nim = answered(server, "/api/position", {"game": "nim", "position": "1,3,5,7,9", "misere": 1})
    reference = flipnet.value("1,3,5,7,9", "nim", misere=True, moves="all")
    assert nim["rule"] == "misere" and nim["value"] == reference.value
    assert [(m["move"], m["value"]) for m in nim["moves"]] == [(m.move, m.value) for m in reference.moves]
    halfnim = answered(server, "/api/position", {"game": "halfnim", "position": "9"})
    assert [m["position"] for m in halfnim["moves"] if m["value"] == 0] == ["7"]
    grid = answered(server, "/api/position", {"game": "gridnim", "position": "1111/1111/1111/1111"})
    assert grid["rule"] == "misere" and grid["value"] == 0  # the source: the full board is lost
    es = answered(server, "/api/move", {"game": "nim", "position": "1,3,5,7,9", "misere": 1, "agent": "student-es"})
    neural = answered(server, "/api/move", {"game": "halfnim", "position": "9", "agent": "neural"})
    assert es["position"] in {m["position"] for m in nim["moves"]} and neural["position"] == "7"  # the perceptron's move
    status, data, _ = request(server, "/api/move", params={"game": "gridnim", "position": "1111/1111/1111/1111",
                                                           "agent": "student-es"})
    assert status == 400 and data == {"error": "the agents of gridnim here: optimal, random"}


def test_a_new_question_cancels_the_one_under_way(server):
    explorer, _ = server
    full = "/".join(["1" * 7] * 6)  # minutes of search (without the endgame database)
    status, first, _ = request(server, "/api/position", params={"game": "flip", "position": full})
    assert first["status"] == "running"
    started = time.perf_counter()
    answer = answered(server, "/api/position", {"game": "flip", "position": "1111/1111"})
    assert answer["value"] == 0 and time.perf_counter() - started < 3
    status, old, _ = request(server, "/api/question", params={"question": first["question"]})
    assert old["status"] == "cancelled" and old["positions"] > 0
    status, second, _ = request(server, "/api/position", params={"game": "flip", "position": full})
    status, cancelled, _ = request(server, "/api/cancel", method="POST", params={"question": second["question"]})
    assert status == 200, cancelled
    assert cancelled["status"] == "cancelled"
    assert answered(server, "/api/position", {"game": "flip", "position": "111/111"})["value"] == 1


def test_a_cancel_while_the_first_compile_goes_on_leaves_no_question_waiting_for_it(server):
    """A new install's first search compiles for half a minute, and a cancelled kernel
    that had not begun is left behind until it ends. The question cancelled while it waits
    for that kernel ends at once, and a position the recursion answers does not wait at
    all (each waited 31 s for the compile)."""
    from flipnet.solve.cram import CramSolver

    explorer, _ = server
    supervisor = explorer.questions.solver.supervisor
    searched = "01111/11111/11111/11111/11111"  # past the recursion's 20 cells
    release = threading.Event()
    compiling = threading.Thread(target=release.wait, args=(60,), daemon=True)  # a kernel left behind
    compiling.start()
    supervisor.left = [compiling]
    try:
        status, waiting, _ = request(server, "/api/position", params={"game": "flip", "position": searched})
        assert waiting["status"] == "running" and waiting["positions"] == 0
        assert waiting["compiling"].startswith("compiling the solver (once")  # the page shows it, not "0 positions"
        started = time.perf_counter()
        request(server, "/api/cancel", method="POST", params={"question": waiting["question"]})
        assert answered(server, "/api/position", {"game": "flip", "position": "111/111"})["value"] == 1
        assert time.perf_counter() - started < 3
        status, old, _ = request(server, "/api/question", params={"question": waiting["question"]})
        assert old["status"] == "cancelled" and old["seconds"] < 5
        assert compiling.is_alive() and supervisor.left == [compiling]  # the next search still waits for it
    finally:
        release.set()
        compiling.join()
    expected = CramSolver(progress=False, tt_log=MIN_TABLE_LOG, mirror=False).value(
        {(r, c) for r in range(5) for c in range(5)} - {(0, 0)})
    assert answered(server, "/api/position", {"game": "flip", "position": searched})["value"] == expected


def test_a_cancel_before_the_first_search_of_a_question_is_heard():
    """A question does work of its own before its first search (reading the position, the
    small-board recursion): a cancel asked then still stops it, rather than being forgotten
    when the search begins and leaving every later question waiting for its end."""
    from flipnet.base.errors import Cancelled
    from flipnet.explore.questions import Questions
    from flipnet.solve.cram.supervisor import Supervisor

    class Solver:  # the part of the Cram solver that questions use, with its real supervisor
        supervisor = Supervisor(progress=False)
        begin_question, cancel = supervisor.begin_question, supervisor.cancel

        def report(self):
            return {"positions": 0}

        def compiling(self):
            return False

        def release_memory(self):
            pass

    solver = Solver()
    searching = {"first": threading.Event(), "third": threading.Event()}

    def long_question(name):
        def work(share):
            time.sleep(0.3)  # before its first search
            with solver.supervisor.time_limit(None):
                searching[name].set()
                ends = time.perf_counter() + 10
                while not solver.supervisor.stopped_by():
                    if time.perf_counter() > ends:
                        return "never heard the cancel"
                    time.sleep(0.01)
                raise Cancelled("cancelled")
        return work

    questions = Questions(solver)
    first = questions.ask("first", long_question("first"))
    time.sleep(0.1)
    questions.cancel(first.number)
    started = time.perf_counter()
    second = questions.ask("small", lambda share: 1)
    second.wait(15)
    assert (second.status, second.answer) == ("done", 1)
    assert time.perf_counter() - started < 2, "the small question waited for the cancelled one"
    first.wait(5)
    assert first.status == "cancelled" and first.answer is None
    solver.cancel()  # a cancel that came too late for its question is forgotten by the next
    third = questions.ask("third", long_question("third"))
    assert searching["third"].wait(10) and third.status == "running"
    questions.cancel(third.number)
    third.wait(5)
    assert third.status == "cancelled"


def test_a_question_past_the_limit_ends_and_leaves_the_solver_free(server):
    explorer, _ = server
    explorer.limit = 0.5
    try:
        status, data, _ = request(server, "/api/position", params={"game": "flip", "position": "/".join(["1" * 7] * 6)})
        while data["status"] == "running":
            time.sleep(0.05)
            status, data, _ = request(server, "/api/question", params={"question": data["question"]})
        assert data["status"] == "error" and data["error"].startswith("no answer within --timeout 0.5 s")
    finally:
        explorer.limit = 30.0
    started = time.perf_counter()
    assert answered(server, "/api/position", {"game": "flip", "position": "11/11"})["value"] == 0
    assert time.perf_counter() - started < 1.5


def test_the_value_comes_first_and_each_move_as_its_search_ends(server):
    """The full 8x8 board: its value (0, the mirror rule) within 2 s of the request, every
    move listed without a value until its own search ends; then a line past 20 cells, which
    Kayles' closed form answers whole."""
    started = time.perf_counter()
    status, data, _ = request(server, "/api/position", params={"game": "flip", "position": "/".join(["1" * 8] * 8)})
    while data["status"] == "running" and "partial" not in data:
        status, data, _ = request(server, "/api/question", params={"question": data["question"]})
    assert time.perf_counter() - started < 2
    partial = data["partial"]
    assert (partial["value"], partial["winner"], partial["complete"]) == (0, "second", False)
    assert len(partial["moves"]) == 2 * 8 * 7 and all(set(m) >= {"move", "position", "cells"} for m in partial["moves"])
    assert any(m["value"] is None for m in partial["moves"])
    request(server, "/api/cancel", method="POST", params={"question": data["question"]})
    line = "1" * 40
    answer = answered(server, "/api/position", {"game": "flip", "position": line})
    assert answer["complete"] and answer["value"] == flipnet.value(line).value
    assert [m["value"] for m in answer["moves"]] == [m.value for m in flipnet.value(line, moves="all").moves]


@pytest.mark.parametrize("path, params, status, message", [
    ("/api/model", {"name": "../data/models/mlp2d.npz", "position": "11"}, 400, "models are asked for by name"),
    ("/api/model", {"name": "/etc/passwd", "position": "11"}, 400, "models are asked for by name"),
    ("/api/model", {"name": "nosuch", "position": "11"}, 400, "no model named 'nosuch'"),
    ("/api/position", {"game": "flip", "position": "/".join(["1" * 9] * 9)}, 400, "boards here go up to 8x8"),
    ("/api/position", {"game": "flip", "position": "1" * 65}, 400, "a line of 64 cells"),
    ("/api/position", {"game": "flip", "position": "11x/111"}, 400, "bad character 'x'"),
    ("/api/position", {"game": "chess", "position": "11"}, 400, "unknown game 'chess'"),
    ("/api/position", {"game": "nim", "position": "900,900"}, 400, "at most 20 heaps and 1000 objects"),
    ("/api/move", {"game": "flip", "position": "11", "agent": "alphazero"}, 400, "the agents of flip here"),
    ("/api/move", {"game": "flip", "position": "11", "agent": "random", "seed": "-1"}, 400, "seed is a whole number"),
    ("/api/question", {"question": "999999"}, 400, "no question 999999 here"),
    ("/api/position", {f"x{i}": "1" for i in range(17)}, 400, "a request here has at most 16 fields"),
    ("/etc/passwd", {}, 404, "nothing here"),
    ("/static/../server.py", {}, 404, "nothing here"),
])
def test_bad_requests_get_a_4xx_and_one_line(server, path, params, status, message):
    got, data, response = request(server, path, params=params)
    assert got == status and list(data) == ["error"] and message in data["error"] and "\n" not in data["error"]
    assert response.getheader("Content-Type") == "application/json"


def test_a_foreign_host_is_refused(server):
    """DNS rebinding: a page of evil.example whose name now points here is refused."""
    status, data, _ = request(server, "/api/models", host="evil.example:8765")
    assert status == 403 and "this server answers to" in data["error"] and "evil.example" in data["error"]
    status, _, _ = request(server, "/", host="localhost:1")  # the right name, another port
    assert status == 403


def test_sizes_are_capped(server):
    status, data, _ = request(server, "/api/position?position=" + "1" * 5000)
    assert status == 414 and "longer than 4096 bytes" in data["error"]
    status, data, _ = request(server, "/api/cancel?question=1", method="POST", body=b"x" * 5000)
    assert status == 413 and "at most 1024 bytes" in data["error"]


def test_the_page_is_served_from_the_package_with_its_rules(server):
    status, body, response = request(server, "/")
    assert status == 200 and b"flipnet explore" in body and b"/static/board.js" in body
    assert "default-src 'self'" in response.getheader("Content-Security-Policy")
    for name in ("explore.css", "common.js", "board.js", "nim.js"):
        assert request(server, f"/static/{name}")[0] == 200
    assert b"/static/nim.js" in request(server, "/nim")[1]
    assert b"http" not in request(server, "/static/board.js")[1].replace(b"http://www.w3.org/2000/svg", b"")  # no CDN


@pytest.mark.slow
def test_no_request_writes_a_file(server, tmp_path):
    """A component of 30 cells or more would load the endgame database, which the cache
    does not hold: the explorer goes on without it instead of building it there."""
    explorer, folders = server
    answered(server, "/api/position", {"game": "flip", "position": "111111/111111/111111/111111/111111/110000"})
    request(server, "/api/model", params={"position": "111111/111111/111111/111111/111111/110000"})
    assert list(folders["cache"].iterdir()) == [] and list(folders["data"].iterdir()) == []


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_server_compiles_the_search_while_the_person_reads_the_page(monkeypatch):
    """On a new install the first board over 20 cells waits for Numba: `serve` starts that
    compile (warm.compile_kernels, the database's threshold not reached) in a thread of its
    own before it listens, so the person's first question finds it done or under way."""
    from flipnet.explore.server import serve
    from flipnet.solve.cram import warm

    asked = []
    compiled = threading.Event()

    def compile_kernels(with_endgame):
        asked.append((with_endgame, threading.current_thread() is threading.main_thread()))
        compiled.set()

    def on_ready(server):
        assert compiled.wait(10), "no compile started"
        threading.Thread(target=server.shutdown).start()

    monkeypatch.setattr(warm, "compile_kernels", compile_kernels)
    before = signal.getsignal(signal.SIGINT)
    serve("127.0.0.1", 0, 5.0, "best", on_ready)
    assert asked == [(False, False)] and signal.getsignal(signal.SIGINT) is before


@pytest.mark.slow
def test_the_command_prints_its_url_and_stops_on_ctrl_c_in_one_line(tmp_path):
    port = _free_port()
    process = subprocess.Popen([*FLIPNET, "explore", "111/111", "--no-browser", "--port", str(port)], cwd=tmp_path,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment())
    line = process.stdout.readline()
    assert line == f"flipnet explore: http://127.0.0.1:{port}/?p=111/111  (Ctrl-C to stop)\n"
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", "/api/models")
    response = connection.getresponse()
    assert response.status == 200 and response.read()
    for _ in range(3):  # clients that leave before their answer (a closed tab): nothing said of them
        with socket.create_connection(("127.0.0.1", port)) as leaving:
            leaving.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # a reset on close
            leaving.sendall(f"GET /api/models HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    connection.request("GET", "/api/models")  # the server goes on
    assert connection.getresponse().status == 200
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 130 and err == "flipnet explore: interrupted\n" and out == ""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        taken = holder.getsockname()[1]
        refused = subprocess.run([*FLIPNET, "explore", "--no-browser", "--port", str(taken)], cwd=tmp_path,
                                 env=environment(), capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1
    assert f"cannot listen on 127.0.0.1:{taken}" in refused.stderr and "--port N" in refused.stderr


@pytest.mark.slow
def test_another_host_is_warned_of(tmp_path):
    process = subprocess.Popen([*FLIPNET, "explore", "--no-browser", "--port", "0", "--host", "0.0.0.0"], cwd=tmp_path,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment())
    warning = process.stderr.readline()
    assert warning.startswith("flipnet explore: warning: listening on 0.0.0.0")
    assert process.stdout.readline().startswith("flipnet explore: http://127.0.0.1:")
    process.send_signal(signal.SIGINT)
    process.communicate(timeout=30)
    assert process.returncode == 130
    bad = subprocess.run([*FLIPNET, "explore", "11x", "--no-browser"], cwd=tmp_path, env=environment(),
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stderr == "flipnet explore: error: bad character 'x' at position 3: expected '1' or '0'\n"


def test_models_are_listed_for_the_page(server):
    status, data, _ = request(server, "/api/models")
    names = {m["name"] for m in data["models"]}
    assert status == 200 and {"mlp2d", "xornet1d", "convmem2d-gated12-80-distil6m-r2"} <= names
    assert [m["name"] for m in data["models"] if m["best"]] == ["convmem2d-gated12-80-distil6m-r2"]
    assert sys.modules.get("flipnet.explore.server") is not None
    reads = {m["name"]: m["reads"] for m in data["models"]}
    assert reads["mlp2d"] == "5x5 boards only" and reads["xornet1d"] == "1x20 boards only"
    assert "box of at most 52 cells and 8 a side" in reads["convmem2d-gated12-80-distil6m-r2"]


@pytest.mark.parametrize("text", ["1111011111111110111111011111111",  # a line of 31: segments of 4, 10, 6, 8
                                  "/".join(["11111111"] * 7 + ["11111110"])])  # one component of 63 cells
def test_a_component_the_model_cannot_read_is_refused_on_that_component_alone(server, text):
    """A size-free model that cannot read the whole board (a line past its frame's side,
    a box past its shape keys) reads it component by component: each it reads has its
    value, as the model gives it for that component alone; the one it cannot read has
    its reason, and so have the position and the moves that leave it whole."""
    best = flipnet.load_model("best")
    with pytest.raises(flipnet.FlipnetError):
        best.predict(text)
    status, answer, _ = request(server, "/api/model", params={"name": "best", "position": text})
    assert status == 200 and answer["value"] is None and answer["refused"] and answer["by_component"]
    game = games.for_position("flip", text)
    state = game.parse(text)
    alone = {}
    for part in answer["components"]:
        cells = [tuple(c) for c in part["cells"]]
        box = _box(cells)
        try:
            truth = best.predict(box)
        except flipnet.FlipnetError as e:
            assert part["value"] is None and part["error"] == str(e)
            continue
        assert part["value"] == truth and "error" not in part
        alone[frozenset(cells)] = truth
    assert len(answer["moves"]) == len(game.legal_moves(state))
    for move in answer["moves"]:
        after = game.play(state, game.parse_move(move["move"], state))
        parts = [frozenset(c) for c in _groups(game.cells(after))]
        values = [alone.get(p, _value_alone(best, p)) for p in parts]
        assert move["value"] == (None if None in values else np.bitwise_xor.reduce(values + [0])), move


def _groups(cells):
    """Components by a flood of their own: cells joined by sides, two or more."""
    left, out = set(cells), []
    while left:
        todo, group = [left.pop()], set()
        while todo:
            cell = todo.pop()
            group.add(cell)
            near = {(cell[0] + dr, cell[1] + dc) for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))} & left
            left -= near
            todo.extend(near)
        if len(group) > 1:
            out.append(group)
    return out


def _box(cells):
    rows = range(min(r for r, _ in cells), max(r for r, _ in cells) + 1)
    cols = range(min(c for _, c in cells), max(c for _, c in cells) + 1)
    return "/".join("".join("1" if (r, c) in cells else "0" for c in cols) for r in rows)


def _value_alone(model, cells):
    try:
        return int(model.predict(_box(set(cells))))
    except flipnet.FlipnetError:
        return None


@pytest.mark.slow
def test_every_shipped_model_answers_through_every_door(server, capsys):
    """The API, the command and the page's endpoint give each shipped model's own values,
    with one ply where it has one; the page's list says which boards each reads."""
    from flipnet.cli import main

    status, listed, _ = request(server, "/api/models")
    listed = {m["name"]: m for m in listed["models"]}
    for entry in flipnet.models():
        if entry.source != "shipped":
            continue
        model = flipnet.load_model(entry.name)
        rows, cols = (int(n) for n in entry.board.split("x"))
        text = "/".join("".join("1" if (r * 7 + c * 3) % 5 else "0" for c in range(cols)) for r in range(rows))
        game = FlipGame(rows, cols)
        state = game.parse(text)
        children = [game.format(state & ~m) for m in game.legal_moves(state)]
        plies = [False, True] if model.network.values_shapes else [False]
        assert (listed[entry.name]["one_ply"], listed[entry.name]["size_free"]) == \
            (model.network.values_shapes, model.size_free), entry.name
        for one_ply in plies:
            own = model.predict([text, *children], one_ply=one_ply)
            probabilities = model.probabilities(text)
            assert abs(probabilities.sum() - 1) < 1e-4 and probabilities.shape == (model.network.n_classes,)
            if not one_ply:
                assert int(np.argmax(probabilities)) == own[0], entry.name  # the value is the most likely one
            status, page, _ = request(server, "/api/model", params={"name": entry.name, "position": text,
                                                                      "ply": int(one_ply)})
            assert status == 200 and page["value"] == own[0], (entry.name, page)
            assert [m["value"] for m in page["moves"]] == own[1:].tolist(), entry.name
            assert np.allclose(page["probabilities"], probabilities, atol=1e-6)
            code = main(["predict", entry.name, text, "--timeout", "5"] + (["--one-ply"] if one_ply else []))
            out = capsys.readouterr().out
            assert code == 0 and f"{text}: predicted nim-value {own[0]}" in out, (entry.name, out)
        if not model.network.values_shapes:
            status, page, _ = request(server, "/api/model", params={"name": entry.name, "position": text, "ply": 1})
            assert status == 400 and "one ply of lookahead needs a model that values components" in page["error"]


def test_a_component_the_model_never_saw_carries_its_measured_error_at_that_size(server):
    """The full 5x5 board is one 25-cell shape the best model never met: the page is told
    how often it is wrong on new 25-cell shapes, as the shipped by-size results say."""
    from flipnet.base.shipped import RESULTS_SHIPPED, canonical

    name = canonical("best")
    rows = []
    for path in RESULTS_SHIPPED.glob(f"bysize-beyond-{name}-*.json"):
        data = json.loads(path.read_text())
        rows += [(r["shapes"], r["network_error"], data["board"]) for r in data["sizes"] if r["cells"] == 25]
    shapes, error, board = max(rows)
    status, answer, _ = request(server, "/api/model", params={"position": "11111/11111/11111/11111/11111"})
    [part] = answer["components"]
    assert status == 200 and not part["known"]
    assert part["new_shapes_of_its_size"] == {"error": error, "shapes": shapes, "board": board}
