"""How fast the explorer answers an edit, as the page asks (`flipnet explore --bench`,
part of `make bench`): a warm server in this process, and for each edit of a board the
two requests the page sends at once, the exact question (value, every move's value,
components) and the network's (its value of the position and of every move's result),
timed from sending them until both are answered. Boards: a 5x5 board edited one cell
at a time from a random start, and random 7x7 positions at density 0.5. Also the
server's memory (resident, and its peak)."""

import http.client
import json
import resource
import threading
import time
import urllib.parse

import numpy as np

from flipnet.games import FlipGame


def _get(port, path, params):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    connection.request("GET", f"{path}?{urllib.parse.urlencode(params)}")
    data = json.loads(connection.getresponse().read())
    connection.close()
    return data


def _cancel(port, question):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.request("POST", "/api/cancel", body=urllib.parse.urlencode({"question": question}),
                       headers={"Content-Type": "application/x-www-form-urlencoded"})
    data = json.loads(connection.getresponse().read())
    connection.close()
    return data


def first_large_board(port, model, rng, search_seconds=10.0):
    """On a fresh server: seconds to the answer of the full 8x8 board (a "running" one),
    to the network's answer on a random 8x8 board (density 0.5), the memory after
    `search_seconds` of the search, and after it is cancelled."""
    full = "/".join(["1" * 8] * 8)
    start = time.perf_counter()
    question = _get(port, "/api/position", {"game": "flip", "position": full})
    running = time.perf_counter() - start
    board = FlipGame(8, 8).format(int(sum(1 << int(k) for k in np.flatnonzero(rng.random(64) < 0.5))))
    start = time.perf_counter()
    _get(port, "/api/model", {"name": model, "position": board})
    network = time.perf_counter() - start
    time.sleep(search_seconds)
    searching = _resident_mb()
    _cancel(port, question["question"])
    time.sleep(1.0)
    return {"running": running, "status": question["status"], "network": network, "searching_mb": searching,
            "cancelled_mb": _resident_mb()}


def _exact(port, text):
    data = _get(port, "/api/position", {"game": "flip", "position": text})
    while data.get("status") == "running":
        time.sleep(0.01)
        data = _get(port, "/api/question", {"question": data["question"]})
    if data.get("status") != "done":
        raise RuntimeError(f"{text}: {data}")
    return data["answer"]


def edit_seconds(port, text, model):
    """Seconds until both answers of one edit are in (the two requests sent together)."""
    answers = {}
    network = threading.Thread(target=lambda: answers.update(net=_get(port, "/api/model",
                                                                      {"name": model, "position": text})))
    start = time.perf_counter()
    network.start()
    answers["exact"] = _exact(port, text)
    network.join()
    seconds = time.perf_counter() - start
    if "error" in answers["net"]:
        raise RuntimeError(answers["net"]["error"])
    return seconds


def kept_connection_seconds(port, text, requests=20):
    """Seconds of each exact request (answered at once: a small board) on one kept
    connection, as a browser sends them, and on a new connection each."""
    kept, new = [], []
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    path = f"/api/position?{urllib.parse.urlencode({'game': 'flip', 'position': text})}"
    for _ in range(requests):
        start = time.perf_counter()
        connection.request("GET", path)
        connection.getresponse().read()
        kept.append(time.perf_counter() - start)
        start = time.perf_counter()
        _get(port, "/api/position", {"game": "flip", "position": text})
        new.append(time.perf_counter() - start)
    connection.close()
    return kept, new


def _resident_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def run(edits=200, seed=0, model="best", log=print):
    """The latencies and the memory, printed; returns them."""
    from flipnet.explore.server import Explorer

    server = Explorer("127.0.0.1", 0, limit=300.0, default_model=model)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    port = server.server_address[1]
    rng = np.random.default_rng(seed)
    out = {}
    try:
        first = first_large_board(port, model, rng)
        small, large = FlipGame(5, 5), FlipGame(7, 7)
        state = int(rng.integers(0, 1 << 25))
        for _ in range(5):  # warm: compiled kernels and graphs, models loaded
            edit_seconds(port, small.format(state), model)
            edit_seconds(port, large.format(int((rng.random(49) < 0.5) @ (1 << np.arange(49, dtype=np.uint64)))), model)
        times = []
        for _ in range(edits):
            state ^= 1 << int(rng.integers(25))
            times.append(edit_seconds(port, small.format(state), model))
        out["5x5 edit"] = times
        times = []
        for _ in range(edits):
            cells = rng.random(49) < 0.5
            state7 = int(sum(1 << k for k in np.flatnonzero(cells)))
            times.append(edit_seconds(port, large.format(state7), model))
        out["7x7, density 0.5"] = times
        out["kept connection"], out["new connection"] = kept_connection_seconds(port, small.format(state))
    finally:
        server.shutdown()
        server.server_close()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    log(f"flipnet explore, a warm server in this process; model {model}; seed {seed}, {edits} positions a board")
    log(f"{'board':<18} {'median':>9} {'90th pct':>9} {'max':>9}   (the exact and the network's answers of one edit; "
        f"then one exact answer, 20 times)")
    for board, times in out.items():
        ms = np.array(times) * 1000
        log(f"{board:<18} {np.median(ms):>7.1f}ms {np.percentile(ms, 90):>7.1f}ms {ms.max():>7.1f}ms")
    log(f"memory: {_resident_mb():.0f} MB resident now, {peak:.0f} MB at the peak")
    log(f"on the fresh server: the full 8x8 board answered ({first['status']}) in {first['running'] * 1000:.0f} ms; "
        f"the network on a random 8x8 board in {first['network'] * 1000:.0f} ms; {first['searching_mb']:.0f} MB "
        f"resident after 10 s of the 8x8 search, {first['cancelled_mb']:.0f} MB after its cancel")
    return {board: float(np.median(times)) for board, times in out.items()}
