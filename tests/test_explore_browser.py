"""`flipnet explore` in a real browser, at a desktop's size and a phone's: Playwright drives
Debian's Chromium against the real command (its graphs on PyTensor's Python linker, as
other command tests run them). What the page shows is checked against the API: values,
moves, the network's disagreements, a whole game, the Nim page, history, the keyboard,
axe-core's rules. FLIPNET_WRITE_SCREENSHOTS=1 keeps the page's pictures in data/figures/
(the README shows one: `make screenshots`)."""

import json
import os
import re
import shutil
import subprocess
import time
import urllib.parse
import urllib.request
from pathlib import Path

import numpy as np
import pytest
from cli_cases import PYTHON_LINKER, environment

import flipnet
from flipnet.games import FlipGame

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
try:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - told, not silent
    sync_playwright = None
pytestmark = [
    pytest.mark.slow,
    pytest.mark.usefixtures("python_linker_module"),  # the models' own predictions here too
    pytest.mark.skipif(sync_playwright is None, reason="Playwright for Python is not installed (pip install playwright)"),
    pytest.mark.skipif(not os.path.exists(CHROMIUM),
                       reason="no Chromium here (Debian's package chromium: .ci/run installs it)"),
]
FIGURES = Path(__file__).resolve().parent.parent / "data" / "figures"
# Debian's Chromium as root, headless, with nothing that reaches for the network
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def url(tmp_path_factory):
    process = subprocess.Popen([*PYTHON_LINKER, "explore", "--no-browser", "--port", "0"],
                               cwd=tmp_path_factory.mktemp("explore"), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=environment())
    line = process.stdout.readline()
    found = re.match(r"flipnet explore: (http://127\.0\.0\.1:\d+/)", line)
    assert found, (line, process.stderr.read() if process.poll() is not None else "")
    warm_up(found.group(1))
    yield found.group(1)
    process.terminate()
    process.communicate(timeout=30)


def warm_up(url, seconds=600):
    """The server's first search compiles its kernels (half a minute with Numba's cache
    cold, longer beside other tests): asked here once, so that no page's wait below
    measures the compiler. The page shows that wait as progress; its own test is the
    cancelled search's."""
    question = _get(url, "api/position", game="flip", position="11111/11111/11111/11111/11111")
    ends = time.monotonic() + seconds
    while question["status"] == "running" and time.monotonic() < ends:
        time.sleep(0.25)
        question = _get(url, "api/question", question=question["question"])
    assert question["status"] == "done", question


def _get(url, path, **params):
    with urllib.request.urlopen(f"{url}{path}?{urllib.parse.urlencode(params)}", timeout=60) as response:
        return json.load(response)


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(params=[(1280, 960), (390, 844)], ids=["desktop", "phone"])
def page(browser, request):
    """A tab at a desktop's size and at a phone's: every test runs at both."""
    width, height = request.param
    context = browser.new_context(viewport={"width": width, "height": height})
    tab = context.new_page()
    errors = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    yield tab
    context.close()
    assert not errors, errors


def shot(page, name):
    if os.environ.get("FLIPNET_WRITE_SCREENSHOTS") and page.viewport_size["width"] >= 1000:  # the desktop's
        page.screenshot(path=str(FIGURES / f"explore-{name}.png"), full_page=True)


def shown_value(page, whole=True):
    """The value the page shows; `whole`: once every move's value is in too (the value
    comes first, the moves' values as their searches end)."""
    try:
        page.wait_for_selector("#value")
        if whole:
            page.wait_for_function("() => document.getElementById('progress').hidden && "
                                   "!document.getElementById('moves-count').textContent.includes('so far')")
    except PlaywrightTimeout:  # what the page says instead
        said = {name: page.text_content(name) for name in ("#summary", "#progress", "#text-error")}
        raise AssertionError(f"no value shown for {page.url}: {said}") from None
    return int(page.text_content("#value").split()[-1])


def test_clicking_cells_shows_the_solvers_value(page, url):
    page.goto(f"{url}?p=11111/11111/11111/11111/11111")
    assert shown_value(page) == 0
    game = FlipGame(5, 5)
    state = game.start
    for r, c in [(0, 0), (2, 2), (4, 1), (1, 3)]:
        page.click(f"#board rect[data-r='{r}'][data-c='{c}']")
        state ^= 1 << game.bit(r, c)
        text = game.format(state)
        page.wait_for_function("t => document.getElementById('text').value === t", arg=text)
        page.wait_for_function("t => new URLSearchParams(location.search).get('p') === t", arg=text)
        assert shown_value(page) == flipnet.value(text).value
    exact = flipnet.value(game.format(state), moves="all")
    assert page.locator("#board line.domino").count() == len(exact.moves)
    assert page.locator("#board circle.win-mark").count() == len(exact.winning_moves)
    assert page.locator("#moves tbody tr").first.get_attribute("data-move") == exact.moves[0].move  # best first
    page.reload()  # the position is in the URL
    assert page.input_value("#text") == game.format(state) and shown_value(page) == exact.value
    shot(page, "board")


def test_a_winning_move_from_the_list_is_played(page, url):
    text = "11011/11111/00111"
    page.goto(f"{url}?p={text}")
    assert shown_value(page) == flipnet.value(text).value != 0
    row = page.locator("#moves tbody tr.wins").first
    move = row.get_attribute("data-move")
    row.hover()
    assert page.locator("#board line.domino.hover").get_attribute("data-move") == move
    row.click()
    after = next(m.position for m in flipnet.value(text).winning_moves if m.move == move)
    page.wait_for_function("t => document.getElementById('text').value === t", arg=after)
    assert shown_value(page) == 0


def disagreements(page, url, name, text):
    """The page's network view of `text` against the model's own predictions (in this
    process) and the exact values: the marked moves are those where the two differ."""
    model = flipnet.load_model(name)
    exact = flipnet.value(text, moves="all")
    predicted = model.predict([m.position for m in exact.moves])
    wrong = {m.move for m, v in zip(exact.moves, predicted) if v != m.value}
    assert wrong  # the page has something to mark
    page.goto(f"{url}?p={text}&view=network&model={model.name}")
    page.wait_for_selector("#disagreements")
    assert int(page.get_attribute("#disagreements", "data-count")) == len(wrong)
    marked = {page.locator("#board g.disagree").nth(i).get_attribute("data-move")
              for i in range(page.locator("#board g.disagree").count())}
    assert marked == wrong
    assert page.text_content("#network-value").startswith(f"{model.name} says {model.predict(text)}")
    # on each wrong move both numbers are on the board, clear of the mark
    values = {m.move: (int(v), m.value) for m, v in zip(exact.moves, predicted)}
    for move in wrong:
        texts = page.locator(f"#board text[data-move='{move}']")
        shown = [int(texts.nth(i).text_content()) for i in range(texts.count())]
        assert shown == list(values[move]), (move, shown)
        cross = page.locator(f"#board g.disagree[data-move='{move}']").bounding_box()
        for i in range(texts.count()):
            box = texts.nth(i).bounding_box()
            apart = box["x"] + box["width"] <= cross["x"] + 1 or cross["x"] + cross["width"] <= box["x"] + 1 or \
                box["y"] + box["height"] <= cross["y"] + 1 or cross["y"] + cross["height"] <= box["y"] + 1
            assert apart, (move, box, cross)


def test_the_network_view_marks_where_it_disagrees(page, url):
    disagreements(page, url, "mlp2d", "10110/10011/00010/10110/01111")  # the paper's MLP, wrong about one move
    page.click("input[name=view][value=exact]")
    page.wait_for_function("() => !document.querySelector('#board g.disagree')")
    page.goto(f"{url}?p=0010111/1011111/0101011/0010110/0010110/1000100/0100010&view=network")
    page.wait_for_selector("#disagreements")
    assert page.locator("#components li", has_text="a shape it never saw").count() >= 1  # told apart
    assert page.locator("#board path.outline.unseen").count() >= 1
    # the best model on a 7x7 board, wrong about the position and six of its moves
    disagreements(page, url, "best", "1100010/1001000/1011111/0110111/1101000/1111010/0110010")
    shot(page, "network")


def test_a_component_the_model_cannot_read_is_said_there_and_the_exact_values_stay(page, url):
    """The best model on a line of 16 (its frames hold 8 a side): the component it reads
    has its value, the one of 10 cells says why not, and every domino keeps a number (the
    exact one where the network has none). The picker says what each model reads."""
    text = "1111011111111110"  # segments of 4 and 10 cells
    page.goto(f"{url}?p={text}&view=network")
    page.wait_for_selector("#network-value")
    page.wait_for_function("() => document.getElementById('network-value').textContent.includes('cannot value')")
    shown_value(page)
    items = page.locator("#components li")
    said = [items.nth(i).text_content() for i in range(items.count())]
    assert sum("cannot read it" in line for line in said) == 1 and any("10 cells" in line and "cannot read it" in line
                                                                       for line in said), said
    exact = {m.move: m.value for m in flipnet.value(text, moves="all").moves}
    numbers = page.locator("#board text.move-value")
    numbered = {numbers.nth(i).get_attribute("data-move") for i in range(numbers.count())}
    assert numbered == set(exact) and page.locator("#board line.domino").count() == len(exact)
    assert page.locator("#board line.domino[stroke='#999']").count() == 0  # none left grey
    reach = page.text_content("#model-reach")
    assert "box of at most 52 cells and 8 a side" in reach and "Not offered on this board: " in reach


def test_a_whole_game_against_the_solver(page, url):
    """The user plays the first move of the list (a winning one when there is one) against
    the perfect player: the side that starts in a won position wins."""
    start = "11111/11111/11101/11111"
    page.goto(f"{url}?p={start}")
    shown_value(page)
    page.select_option("#opponent", "perfect")
    page.select_option("#first", "you")
    page.click("#start")
    for _ in range(80):
        page.wait_for_timeout(150)
        status = page.text_content("#status")
        if "won" in status:
            break
        whole = "so far" not in page.text_content("#moves-count")  # best first once every value is in
        if status.startswith("Your move") and page.locator("#moves tbody tr").count() and whole:
            page.locator("#moves tbody tr").first.click()
    status = page.text_content("#status")
    assert ("you won" in status) == (flipnet.value(start).value != 0), status
    plies = page.locator("#record tbody tr").count()
    assert plies >= 2 and not flipnet.value(page.input_value("#text"), moves="all").moves
    values = [page.locator("#record tbody tr").nth(i).locator("td").nth(3).text_content() for i in range(plies)]
    assert all(v in ("0", "1", "2", "3", "4") for v in values)
    assert page.locator("#record tr.mistake").count() == 0  # best-first moves against a perfect player
    shot(page, "game")
    page.click("#undo")
    page.wait_for_function("n => document.querySelectorAll('#record tbody tr').length < n", arg=plies)


def test_the_nim_page_values_and_plays(page, url):
    page.goto(f"{url}nim")
    page.wait_for_selector("#value")
    reference = flipnet.value("1,3,5,7,9", "nim", misere=True, moves="all")
    assert page.text_content("#value") == ("a win" if reference.value else "a loss")
    winning = {page.locator("#moves tbody tr.wins").nth(i).get_attribute("data-move")
               for i in range(page.locator("#moves tbody tr.wins").count())}
    assert winning == {m.move for m in reference.winning_moves}
    page.select_option("#opponent", "student-es")
    page.click("#start")
    page.locator("#moves tbody tr").first.click()
    page.wait_for_function("() => document.querySelectorAll('#record tbody tr').length >= 2")
    assert page.locator("#record tbody tr").nth(1).locator("td").nth(1).text_content() == "the student's evolution strategy"
    shot(page, "nim")
    page.select_option("#game", "halfnim")
    page.wait_for_function("() => document.getElementById('position').value === '9'")
    page.select_option("#opponent", "neural")
    page.select_option("#first", "ai")
    page.click("#start")
    page.wait_for_function("() => document.querySelectorAll('#record tbody tr').length >= 1")
    assert page.locator("#record tbody tr").first.locator("td").nth(3).text_content() == "7"  # the perceptron's move
    assert np.isfinite(float(page.locator("#record tbody tr").count()))


def test_back_forward_and_an_address_that_cannot_be_read(page, url):
    """Every edit is a step of the browser's history, walked by Back and Forward, the page's
    arrows and the arrow keys; each step shows its own value."""
    page.goto(f"{url}?p=1111/1111/1111")
    steps = [page.input_value("#text")]
    shown_value(page)
    for r, c in [(0, 0), (1, 1), (2, 3)]:
        page.click(f"#board rect[data-r='{r}'][data-c='{c}']")
        page.wait_for_function("t => document.getElementById('text').value !== t", arg=steps[-1])
        steps.append(page.input_value("#text"))

    def at(k):
        page.wait_for_function("t => document.getElementById('text').value === t", arg=steps[k])
        page.wait_for_function("t => new URLSearchParams(location.search).get('p') === t", arg=steps[k])
        assert shown_value(page) == flipnet.value(steps[k]).value

    page.go_back()
    at(2)
    page.click("#back")
    at(1)
    page.keyboard.press("ArrowLeft")
    at(0)
    page.go_forward()
    at(1)
    page.keyboard.press("ArrowRight")
    at(2)
    page.click("#board rect[data-r='0'][data-c='3']")  # a new edit: the steps after it are gone
    page.wait_for_function("t => document.getElementById('text').value !== t", arg=steps[2])
    page.go_back()
    at(2)
    page.goto(f"{url}?p=11x/111")
    page.wait_for_function("() => document.getElementById('text-error').textContent.includes('cannot be shown')")
    assert page.input_value("#text") == "11111/11111/11111/11111/11111"  # the page's own position kept
    assert shown_value(page) == 0
    assert "p=11x/111" in page.url  # the address stays as given, to be read
    page.click("#board rect[data-r='0'][data-c='0']")  # an edit: the error goes, the address follows
    page.wait_for_function("() => document.getElementById('text-error').textContent === ''")
    page.wait_for_function("() => new URLSearchParams(location.search).get('p') === '01111/11111/11111/11111/11111'")
    page.goto(f"{url}?p={'/'.join(['1' * 8] * 8)}")
    page.click("#rows-plus")  # past 8x8: said, not silently nothing
    page.wait_for_function("() => document.getElementById('text-error').textContent.includes('up to 8x8')")
    assert page.locator("#record").is_hidden()  # no record's header before a game


def test_the_value_first_then_a_cancelled_search_says_so(page, url):
    """The full 8x8 board: 0 (the mirror rule) on the page at once (about 0.2 s; the bound
    here leaves room for a loaded machine: it was never shown before), its 112 moves drawn
    and valued one by one; a cancel keeps the value and says what it stopped."""
    started = time.perf_counter()
    page.goto(f"{url}?p={'/'.join(['1' * 8] * 8)}")
    assert shown_value(page, whole=False) == 0
    assert time.perf_counter() - started < 10
    page.wait_for_selector("#progress:not([hidden])")
    assert page.locator("#board line.domino").count() == 112
    assert "of 112 moves valued so far" in page.text_content("#moves-count")
    page.click("#cancel")
    page.wait_for_function("() => document.getElementById('summary').textContent.includes('cancelled')")
    assert page.locator("#progress").is_hidden() and shown_value(page, whole=False) == 0
    assert "were not valued" in page.text_content("#summary")
    page.goto(f"{url}?p={'1' * 30}")  # a line past 20 cells: Kayles' closed form, whole
    assert shown_value(page) == flipnet.value("1" * 30).value


def test_with_hints_off_the_moves_are_in_board_order(page, url):
    page.goto(f"{url}?p=11011/11111/00111")
    shown_value(page)
    page.wait_for_load_state("networkidle")  # the network's column in place: no reflow moves the box under the click
    page.select_option("#opponent", "random")
    page.select_option("#first", "you")
    page.uncheck("#hints")
    page.click("#start")
    page.wait_for_function("() => document.getElementById('status').textContent.startsWith('Your move')")
    rows = page.locator("#moves tbody tr")
    moves = [rows.nth(i).get_attribute("data-move") for i in range(rows.count())]
    cells = [[int(n) for n in re.split(r"[,+]", m)] for m in moves]
    assert moves and cells == sorted(cells) and page.locator("#moves tbody tr.wins").count() == 0
    assert "in board order" in page.text_content("#moves-count")
    assert page.locator("#board circle.win-mark").count() == 0


def test_two_quick_edits_reach_the_server_in_the_order_they_were_made(page, url):
    """The server's new question cancels the one under way: were the older edit's request
    to arrive last, it would cancel the newer one and the page would say "cancelled".
    The older one's request is held back 0.8 s in the page; the newer is sent after it."""
    page.add_init_script("""
        const real = window.fetch;
        window.sent = [];
        window.fetch = async (url, options) => {
          if (String(url).includes("position=011%2F111")) await new Promise((r) => setTimeout(r, 800));
          window.sent.push(String(url));
          return real(url, options);
        };""")
    page.goto(f"{url}?p=111/111")
    shown_value(page)
    page.click("#board rect[data-r='0'][data-c='0']")
    page.click("#board rect[data-r='1'][data-c='1']")
    page.wait_for_function("() => document.getElementById('text').value === '011/101'")
    assert shown_value(page) == flipnet.value("011/101").value
    asked = [u.split("position=")[1].split("&")[0] for u in page.evaluate("window.sent") if "/api/position" in u]
    assert asked == ["111%2F111", "011%2F111", "011%2F101"]


def test_the_board_and_the_moves_from_the_keyboard(page, url):
    page.goto(f"{url}?p=111/111")
    shown_value(page)
    page.focus("#board rect[data-r='0'][data-c='0']")
    page.keyboard.press("Enter")  # empties (0, 0)
    page.wait_for_function("() => document.getElementById('text').value === '011/111'")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowDown")
    page.keyboard.press(" ")  # empties (1, 1), where the focus went
    page.wait_for_function("() => document.getElementById('text').value === '011/101'")
    assert page.evaluate("document.activeElement.dataset.r + document.activeElement.dataset.c") == "11"
    shown_value(page)
    rows = page.locator("#moves tbody tr")
    assert rows.count() >= 2 and page.locator("#moves tbody tr[tabindex='0']").count() == 1  # one tab stop
    rows.first.focus()
    page.keyboard.press("ArrowDown")  # the arrow keys walk the list
    move = page.evaluate("document.activeElement.dataset.move")
    assert move == rows.nth(1).get_attribute("data-move")
    page.keyboard.press("Enter")
    after = next(m.position for m in flipnet.value("011/101", moves="all").moves if m.move == move)
    page.wait_for_function("t => document.getElementById('text').value === t", arg=after)
    shown_value(page)
    assert page.evaluate("document.activeElement.closest('#board') !== null")  # the focus kept, on the board
    assert page.locator("#board line.domino[tabindex='-1']").count() == len(flipnet.value(after, moves="all").moves)
    assert page.locator("#board text.move-value").count() == page.locator("#board line.domino").count()
    page.goto(f"{url}?p=1111/1111/1111")  # few stops before a game can begin, a skip link first
    shown_value(page)
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "skip to the board"
    for presses in range(1, 40):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "start":
            break
    assert presses < 30, presses
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.getElementById('stop').disabled === false")
    assert page.evaluate("document.activeElement !== document.body")


def test_a_tap_shows_the_value_and_the_best_moves_without_a_scroll(page, url):
    """On a phone as on a desktop: after a tap on the board, the value and the first rows
    of the moves lie inside the window, nothing scrolls sideways, and a cell is at least
    40 px wide."""
    page.goto(f"{url}?p=11111/11111/11111/11111/11111")
    shown_value(page)
    page.click("#board rect[data-r='2'][data-c='2']")
    page.wait_for_function("() => document.getElementById('text').value === '11111/11111/11011/11111/11111'")
    shown_value(page)
    height = page.viewport_size["height"]
    assert page.evaluate("window.scrollY") == 0
    assert page.locator("#value").bounding_box()["y"] + page.locator("#value").bounding_box()["height"] <= height
    first = page.locator("#moves tbody tr").first.bounding_box()
    assert first["y"] + first["height"] <= height, first
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
    assert page.locator("#board rect[data-r='0'][data-c='0']").bounding_box()["width"] >= 40
    shot(page, "tap")


@pytest.mark.parametrize("width, height", [(390, 844), (1280, 800)])
def test_the_pages_fit_and_pass_axe(browser, url, width, height):
    """At a phone's width nothing scrolls sideways and an 8x8 board fits; axe-core finds no
    violation, of any impact, on either page."""
    from axe_playwright_python.sync_playwright import Axe

    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    try:
        for path in (f"?p={'/'.join(['10110111'] * 8)}", "nim?game=nim&p=1,3,5"):
            page.goto(f"{url}{path}")
            page.wait_for_selector("#value" if "nim" not in path else "#summary:not(:empty)")
            assert page.evaluate("document.documentElement.scrollWidth") <= width, path
            if "nim" not in path:
                box = page.locator("#board").bounding_box()
                assert box["x"] >= 0 and box["x"] + box["width"] <= width
            found = Axe().run(page).response["violations"]
            bad = [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:6]) for v in found]
            assert not bad, (path, width, bad)
            if os.environ.get("FLIPNET_WRITE_SCREENSHOTS") and "nim" not in path:
                page.screenshot(path=str(FIGURES / f"explore-{width}px.png"), full_page=True)
            # in play: a game begun, its record and the link to share it on the page
            page.click("#start")
            page.wait_for_selector("#stop:not([disabled])")
            if "nim" not in path:
                page.click("#share")
            found = Axe().run(page).response["violations"]
            bad = [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:6]) for v in found]
            assert not bad, (path, "in play", width, bad)
    finally:
        context.close()


def test_the_nim_page_refuses_a_bad_edit_and_walks_its_history(page, url):
    page.goto(f"{url}nim?game=nim&p=1,3,5&misere=0")
    page.wait_for_selector("#value")
    page.fill("#position", "2,x")
    page.click("#position-form button")
    assert "is not a nim position" in page.text_content("#position-error")
    assert "NaN" not in page.text_content("#picture") and page.input_value("#position") == "2,x"
    page.fill("#position", "2,4")
    page.click("#position-form button")
    page.wait_for_function("() => (document.getElementById('value') || {}).textContent === 'nim-value 6'")
    page.go_back()
    page.wait_for_function("() => (document.getElementById('value') || {}).textContent === 'nim-value 7'")
    assert page.input_value("#position") == "1,3,5"
    row = page.locator("#moves tbody tr").first
    move = row.get_attribute("data-move")
    row.focus()
    page.keyboard.press("Enter")  # a move from the keyboard
    after = next(m.position for m in flipnet.value("1,3,5", "nim", misere=False, moves="all").moves if m.move == move)
    page.wait_for_function("t => document.getElementById('position').value === t", arg=after)
    page.goto(f"{url}nim?game=nim&p=abc")
    page.wait_for_selector("#value")
    assert "is not a nim position" in page.text_content("#position-error")
    for text, said in (("999999", "at most 1,000 objects in all, not 999,999"), ("1001", "not 1,001"),
                       (",".join(["1"] * 21), "at most 20 heaps, not 21")):  # a position past the page's limits
        page.fill("#position", text)
        page.click("#position-form button")
        assert said in page.text_content("#position-error"), text
        assert "is not a nim position" not in page.text_content("#position-error")
        assert "p=abc" not in page.url and text not in page.url  # the address keeps the last good position
    assert "counted from 1" in page.text_content("#rules")
    assert page.locator("#picture .heap small").all_text_contents()[:2] == ["#1", "#2"]


def test_the_page_asks_the_model_the_server_was_started_with(browser, tmp_path):
    """`flipnet explore --model mlp2d`: the page's network view is that model's, its menu
    shows it, and an edit writes no `&model=` the person never chose."""
    process = subprocess.Popen([*PYTHON_LINKER, "explore", "--no-browser", "--port", "0", "--model", "mlp2d"],
                               cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=environment())
    try:
        served = re.match(r"flipnet explore: (http://127\.0\.0\.1:\d+/)", process.stdout.readline()).group(1)
        context = browser.new_context()
        page = context.new_page()
        page.goto(f"{served}?p=11011/11111/01110/11011/10111&view=network")
        page.wait_for_selector("#network-value")
        predicted = flipnet.load_model("mlp2d").predict("11011/11111/01110/11011/10111")
        assert page.text_content("#network-value").startswith(f"mlp2d says {predicted}")
        assert page.input_value("#model") == "mlp2d"
        page.click("#board rect[data-r='0'][data-c='0']")
        page.wait_for_function("() => new URLSearchParams(location.search).get('p') === '01011/11111/01110/11011/10111'")
        assert "model=" not in page.url
        context.close()
    finally:
        process.terminate()
        process.communicate(timeout=30)


def _a_game_with_one_mistake(start):
    """(moves in the address's form, positions after each ply, the mistake's ply) of a game
    from `start` (a won position): its first move throws the win away, then each side
    plays a winning move where there is one."""
    game = FlipGame(*(len(start.split("/")), len(start.split("/")[0])))
    state, codes, positions, first = game.parse(start), [], [], True
    while game.legal_moves(state):
        moves = sorted(game.legal_moves(state))
        good = [m for m in moves if flipnet.value(game.format(state & ~m)).value == 0]
        chosen = next(m for m in moves if m not in good) if first else (good or moves)[0]
        first = False
        (r1, c1), (r2, c2) = sorted(game.cells(chosen))
        codes.append(f"{r1 * game.cols + c1}{'h' if r1 == r2 else 'v'}")
        state &= ~chosen
        positions.append(game.format(state))
    return ".".join(codes), positions, 1


def test_a_game_is_reviewed_shared_and_opened_at_the_same_move(page, url):
    """A game opened from its link shows the ply the link names; its record's values come
    in and its one mistake is marked with what it threw away; the arrow keys, the record's
    ply numbers and Back walk its plies; a move is refused away from its last ply; and the
    page's link opens the same game at the same move. The weaker opponents are offered."""
    start = "1111/1111/1111"
    assert flipnet.value(start).value != 0
    moves, positions, mistake = _a_game_with_one_mistake(start)
    page.goto(f"{url}?p={start}&start={start}&moves={moves}&at=2&vs=perfect&first=you&seed=5")

    def at(k):
        page.wait_for_function("t => document.getElementById('text').value === t", arg=positions[k - 1])
        page.wait_for_function("k => new URLSearchParams(location.search).get('at') === String(k)", arg=k)
        assert page.locator("#record tbody tr.here").count() == 1
        assert page.locator("#record tbody tr.here button.ply").text_content() == str(k)
        assert shown_value(page) == flipnet.value(positions[k - 1]).value

    at(2)
    rows = page.locator("#record tbody tr")
    assert rows.count() == len(positions)
    page.wait_for_function("() => ![...document.querySelectorAll('#record tbody tr')]"
                           ".some((row) => row.children[3].textContent === '…')", timeout=60000)
    exact = [int(rows.nth(i).locator("td").nth(3).text_content()) for i in range(len(positions))]
    assert exact == [flipnet.value(p).value for p in positions]
    page.wait_for_function("() => ![...document.querySelectorAll('#record tbody tr')]"
                           ".some((row) => row.children[4].textContent === '…')", timeout=60000)
    network = [int(rows.nth(i).locator("td").nth(4).text_content()) for i in range(len(positions))]
    assert network == flipnet.load_model("best").predict(positions).tolist()  # the network's, beside the truth
    assert [i + 1 for i in range(len(positions)) if "mistake" in (rows.nth(i).get_attribute("class") or "")] == [mistake]
    assert "the win thrown away" in rows.nth(mistake - 1).text_content()
    page.locator("body").click(position={"x": 2, "y": 2})
    page.keyboard.press("ArrowRight")
    at(3)
    page.go_back()
    at(2)
    page.locator("#record tbody tr").nth(3).locator("button.ply").click()
    at(4)
    page.locator("#moves tbody tr").first.click()  # not the game's last ply: refused, said
    page.wait_for_function("() => document.getElementById('status').textContent.includes('earlier move')")
    assert page.input_value("#text") == positions[3]
    page.click("#share")
    link = page.input_value("#share-link")
    assert link == page.url and f"moves={moves}" in link and "at=4" in link
    other = page.context.new_page()
    other.goto(link)
    other.wait_for_function("t => document.getElementById('text').value === t", arg=positions[3])
    assert other.locator("#record tbody tr.here button.ply").text_content() == "4"
    other.close()
    options = page.eval_on_selector_all("#opponent option", "os => os.map((o) => o.value)")
    assert {"perfect", "difficulty:0.75", "difficulty:0.5", "difficulty:0.25"} <= set(options)
    page.goto(f"{url}?p={start}&start={start}&moves=0h.0h&at=1")  # a move not legal there: said, the page kept
    page.wait_for_function("() => document.getElementById('text-error').textContent.includes('move 2')")
    assert shown_value(page) == flipnet.value(start).value
