"""How long a click takes to show its answer in a real browser (`make bench-paint`): a
server in a process of its own, Debian's Chromium driven by Playwright (the test extra),
and for each board a click on a random cell dispatched in the page, timed until the new
position's value and every move's value are painted (the next animation frame after
they are in the page). Boards: a random 5x5 board of density 0.75 and a random 7x7 one
of density 0.5, each clicked 25 times, the first 5 left out (the first questions load
what they need). `python -m flipnet.explore.paint [CLICKS] [SEED]`."""

import os
import random
import shutil
import socket
import statistics
import subprocess
import sys

CLICK = """([r, c]) => new Promise((done) => {
  const before = document.getElementById('text').value;
  const start = performance.now();
  document.querySelector(`#board rect[data-r='${r}'][data-c='${c}']`)
    .dispatchEvent(new MouseEvent('click', {bubbles: true}));
  const look = () => {
    const whole = document.getElementById('value') && document.getElementById('progress').hidden
      && !document.getElementById('moves-count').textContent.includes('so far')
      && document.getElementById('text').value !== before;
    if (whole) requestAnimationFrame(() => done(performance.now() - start));
    else requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
})"""
BOARDS = ((5, 0.75), (7, 0.5))
WARM = 5  # clicks left out of the median


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(clicks=25, seed=0, log=print):
    """{board: median milliseconds} of clicks on each board, printed."""
    from playwright.sync_api import sync_playwright

    port = _free_port()
    server = subprocess.Popen([sys.executable, "-m", "flipnet", "explore", "--no-browser", "--port", str(port)],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                              env={**os.environ, "FLIPNET_PROGRESS": "0"})
    server.stdout.readline()
    out = {}
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=shutil.which("chromium") or "/usr/bin/chromium",
                                                 args=["--no-sandbox", "--disable-gpu"])
            page = browser.new_page(viewport={"width": 1280, "height": 960})
            for side, density in BOARDS:
                rng = random.Random(seed * 100 + side)
                start = "/".join("".join("1" if rng.random() < density else "0" for _ in range(side))
                                 for _ in range(side))
                page.goto(f"http://127.0.0.1:{port}/?p={start}")
                page.wait_for_function("() => document.getElementById('value') && "
                                       "document.getElementById('progress').hidden")
                times = []
                for _ in range(clicks):
                    times.append(page.evaluate(CLICK, [rng.randrange(side), rng.randrange(side)]))
                    page.wait_for_timeout(100)
                out[f"{side}x{side}, density {density}"] = statistics.median(times[WARM:])
            browser.close()
    finally:
        server.terminate()
        server.wait()
    log(f"flipnet explore in Chromium: a click to its answer painted, median of {clicks - WARM} clicks "
        f"(seed {seed}; the first {WARM} left out)")
    for board, ms in out.items():
        log(f"  {board}: {ms:.1f} ms")
    return out


if __name__ == "__main__":
    run(*(int(a) for a in sys.argv[1:3]))
