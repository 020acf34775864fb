"""`flipnet explore`: a local HTTP server for one page (the board) and one more (Nim),
and the JSON endpoints they ask (docs/explore.md). The Python standard library's
threading HTTP server: no dependency, no build step, files served from the package.

Safe to leave running: it listens on 127.0.0.1 unless told otherwise, answers only
requests whose Host header names it (a web page elsewhere cannot reach it through DNS
rebinding), serves a fixed set of files (no path of a request is ever opened), takes
models by name only, caps the size of a request, a board and a question's time, writes no
file, and answers anything it will not do with a 4xx and a one-line JSON error."""

import importlib.resources
import json
import os
import signal
import sys
import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from flipnet.base import signals
from flipnet.base.errors import BadInput, FlipnetError, bug_report
from flipnet.explore import answers
from flipnet.explore.questions import Questions

MAX_URL = 4096  # bytes of a request line's target
TABLE_LOG = 25  # the solver's table here: 2^25 entries, 512 MB; a larger board is searched more slowly, never
# with more memory (the server's peak stays under 1.5 GB whatever is asked)
MAX_BODY = 1024  # bytes of a POST body (cancel takes none)
MAX_FIELDS = 16  # fields of a request's query: the page's own requests send a few
WAIT = 0.2  # seconds a request waits for its question's answer before it reports progress
PAGES = {"/": "index.html", "/nim": "nim.html"}
STATIC = ("explore.css", "common.js", "board.js", "nim.js")
TYPES = {".html": "text/html; charset=utf-8", ".css": "text/css; charset=utf-8",
         ".js": "text/javascript; charset=utf-8"}
HEADERS = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
           "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'"}


def static_files():
    """{route: (bytes, type)} of the page's files, read once from the package, and the
    registered games as a script (`flipnet.games`, what /api/games answers), which the
    pages read before they draw: a game's menus and limits come from its registration."""
    root = importlib.resources.files("flipnet.explore") / "static"
    files = {route: name for route, name in PAGES.items()}
    files.update({f"/static/{name}": name for name in STATIC})
    out = {route: ((root / name).read_bytes(), TYPES[name[name.rindex("."):]]) for route, name in files.items()}
    listed = json.dumps(answers.game_list(), separators=(",", ":"))
    out["/static/games.js"] = (f'"use strict";\nflipnet.games = {listed};\n'.encode(), TYPES[".js"])
    return out


def _query(text):
    """A request's fields, the last of each name; more than MAX_FIELDS is the client's
    error (a 400 naming the limit), not the server's."""
    if 1 + text.count("&") > MAX_FIELDS:  # as parse_qs counts them
        raise BadInput(f"a request here has at most {MAX_FIELDS} fields")
    return {k: v[-1] for k, v in parse_qs(text, keep_blank_values=True).items()}

class Explorer(ThreadingHTTPServer):
    """The server and what its answers share: the solver's questions, loaded models, limits."""

    daemon_threads = True

    def __init__(self, host, port, limit, default_model):
        super().__init__((host, port), Handler)
        from flipnet.api.positions import Engine, EngineSettings

        self.files = static_files()
        self.limit, self.default_model = limit, default_model
        self.models = answers.Models()
        # the server's settings, read where it starts: a request never makes it write a file
        settings = EngineSettings.from_environment(os.environ)
        self.engine = Engine(settings.replace(endgame="off" if settings.endgame == "off" else "cached",
                                              max_table_log=min(settings.max_table_log, TABLE_LOG)))
        self.questions = Questions(self.engine.search())
        port = self.server_address[1]
        names = {"127.0.0.1", "localhost", "[::1]", host if ":" not in host else f"[{host}]"}
        self.hosts = {f"{name}:{port}" for name in names}
        self.origins = {f"http://{host}" for host in self.hosts}
        self.started = time.perf_counter()

    def handle_error(self, request, client_address):
        """A client that left before its answer (a closed tab, curl -m): nothing to say; any
        other error is socketserver's report."""
        if isinstance(sys.exc_info()[1], ConnectionError):  # BrokenPipeError, ConnectionResetError
            return
        super().handle_error(request, client_address)

    @property
    def url(self):
        host, port = self.server_address[:2]
        return f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else host}:{port}/"


class Handler(BaseHTTPRequestHandler):
    server_version = "flipnet-explore"
    protocol_version = "HTTP/1.1"
    # A reply is two writes, its head and its body: with Nagle's algorithm the body waits for
    # the client's delayed ACK of the head (40 ms on a kept connection, measured)
    disable_nagle_algorithm = True

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        """Quiet: the terminal shows the URL and Ctrl-C, not a line per request."""

    def do_GET(self):
        self._answer(self._get)

    def do_POST(self):
        self._answer(self._post)

    def _refuse_method(self):
        self.close_connection = True
        self._json({"error": f"this server answers GET and POST, not {self.command[:20]}"},
                   HTTPStatus.METHOD_NOT_ALLOWED, {"Allow": "GET, POST"})

    do_HEAD = do_PUT = do_DELETE = do_OPTIONS = do_PATCH = do_TRACE = do_CONNECT = _refuse_method

    def send_error(self, code, message=None, explain=None):
        """The base class's errors (a malformed request line or header, an unknown method)
        as the JSON line every other error is, not an HTML page."""
        self.close_connection = True
        status = HTTPStatus(code) if code in HTTPStatus._value2member_map_ else HTTPStatus.BAD_REQUEST
        if not hasattr(self, "command") or self.command is None:
            self.command = ""
        if status == HTTPStatus.NOT_IMPLEMENTED:  # a method the base class has no do_ for
            status, message = HTTPStatus.METHOD_NOT_ALLOWED, "this server answers GET and POST"
        self._json({"error": (message or status.phrase).splitlines()[0][:200]}, status)

    def _answer(self, route):
        if len(self.path) > MAX_URL:
            return self._json({"error": f"the request is longer than {MAX_URL} bytes"}, HTTPStatus.REQUEST_URI_TOO_LONG)
        host = self.headers.get("Host", "")
        if host not in self.server.hosts:
            return self._json({"error": f"this server answers to {sorted(self.server.hosts)[0]}, not Host {host[:80]!r}"},
                              HTTPStatus.FORBIDDEN)
        length = self._body_length()
        if length is None:
            return
        url = urlsplit(self.path)
        if url.path.startswith("/api/") and self._from_elsewhere():
            return self._json({"error": "a page of another site may not ask this server for work"},
                              HTTPStatus.FORBIDDEN)
        try:
            query = _query(url.query)
            route(url.path, query)
        except FlipnetError as exc:
            self._json({"error": str(exc).splitlines()[0] if str(exc) else type(exc).__name__},
                       HTTPStatus.BAD_REQUEST)
        except Exception as exc:  # noqa: BLE001 - a bug: one line to the page, the server goes on
            self._json({"error": bug_report(exc, debug=False)}, HTTPStatus.INTERNAL_SERVER_ERROR)

    def _body_length(self):
        """The body's length, its bytes read and dropped (no endpoint takes a body); None
        after refusing a malformed or oversized Content-Length, the connection then closed
        so no unread byte is taken for the next request."""
        text = self.headers.get("Content-Length")
        if text is None:
            return 0
        if not (text.isascii() and text.strip().isdigit()) or len(text) > 20:
            self.close_connection = True
            self._json({"error": f"Content-Length is a number of bytes, not {text[:20]!r}"}, HTTPStatus.BAD_REQUEST)
            return None
        length = int(text)
        if length > MAX_BODY:
            self.close_connection = True
            self._json({"error": f"a request body here is at most {MAX_BODY} bytes"},
                       HTTPStatus.REQUEST_ENTITY_TOO_LARGE)
            return None
        if length:
            self.rfile.read(length)
        return length

    def _from_elsewhere(self):
        """Whether the browser says a page of another site sent the request (its Origin,
        or Sec-Fetch-Site): such a page may not start, change or cancel work here."""
        origin = self.headers.get("Origin")
        if origin is not None and origin not in self.server.origins:
            return True
        return self.headers.get("Sec-Fetch-Site", "same-origin") not in ("same-origin", "none")

    def _get(self, path, query):
        if path in self.server.files:
            body, kind = self.server.files[path]
            return self._send(body, kind)
        endpoints = {"/api/position": self._position, "/api/model": self._model, "/api/models": self._models,
                     "/api/move": self._move, "/api/question": self._question, "/api/settings": self._settings,
                     "/api/games": self._games}
        if path not in endpoints:
            return self._json({"error": f"nothing here: {path[:80]}"}, HTTPStatus.NOT_FOUND)
        endpoints[path](query)

    def _post(self, path, query):
        if path != "/api/cancel":
            return self._json({"error": f"nothing to post to here: {path[:80]}"}, HTTPStatus.NOT_FOUND)
        question = self.server.questions.cancel(_number(query))
        self._json(question.to_json())

    # --- the endpoints ---------------------------------------------------------------

    def _position(self, query):
        game, text, misere = query.get("game", "flip"), query.get("position", ""), _misere(query)
        answers.check_position(game, text, misere)  # a bad request fails now, not in a question
        limit = self.server.limit
        question = self.server.questions.ask(("position", game, text, misere),
                                             lambda share: answers.position(self.server.engine, game, text, misere, limit, share))
        self._reply(question)

    def _move(self, query):
        game, text, agent, misere = query.get("game", "flip"), query.get("position", ""), query.get("agent", ""), \
            _misere(query)
        model = query.get("model") or self.server.default_model
        seed, ply = _integer(query, "seed", 0, 2 ** 32), _integer(query, "ply", 0, 10_000)
        answers.check_move(game, text, agent, misere)  # a bad request fails now, not in a question
        if agent == "network":
            answers.check_model_name(model)
        limit = self.server.limit
        question = self.server.questions.ask(
            ("move", game, text, agent, model, seed, ply, misere),
            lambda share: answers.move(self.server.engine, self.server.models, game, text, agent, model, seed, ply, misere,
                                 limit))
        self._reply(question)

    def _model(self, query):
        name = query.get("name") or self.server.default_model
        self._json(answers.network(self.server.models, name, query.get("position", ""), query.get("ply") == "1"))

    def _models(self, query):
        self._json({"models": answers.model_names(self.server.models), "default": self.server.default_model})

    def _settings(self, query):
        self._json({"default_model": self.server.default_model, "limit": self.server.limit,
                    "agents": answers.players()})

    def _games(self, query):
        self._json({"games": answers.game_list()})

    def _question(self, query):
        self._reply(self.server.questions.get(_number(query)))

    def _reply(self, question):
        question.wait(WAIT)
        self._json(question.to_json(), HTTPStatus.INTERNAL_SERVER_ERROR if question.bug else HTTPStatus.OK)

    # --- sending -------------------------------------------------------------------

    def _json(self, data, status=HTTPStatus.OK, extra=None):
        self._send(json.dumps(data, separators=(",", ":")).encode(), "application/json", status, extra)

    def _send(self, body, kind, status=HTTPStatus.OK, extra=None):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        for name, text in {**HEADERS, **(extra or {})}.items():
            self.send_header(name, text)
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)


def _misere(query):
    text = query.get("misere", "")
    if text not in ("", "0", "1"):
        raise FlipnetError(f"misere is 0 or 1, not {text[:20]!r}")
    return None if text == "" else text == "1"


def _integer(query, name, low, high):
    text = query.get(name, str(low))
    if not text.isdigit() or not low <= int(text) < high:
        raise FlipnetError(f"{name} is a whole number from {low} to {high - 1}, not {text[:20]!r}")
    return int(text)


def _number(query):
    return _integer(query, "question", 1, 2 ** 62)


def serve(host, port, limit, default_model, on_ready):
    """Serve until Ctrl-C; `on_ready(server)` once it listens."""
    try:
        server = Explorer(host, port, limit, default_model)
    except OSError as exc:
        raise FlipnetError(f"cannot listen on {host}:{port}: {exc.strerror or exc} "
                           f"(--port N chooses another; 0 takes any free port)") from None
    with server:
        threading.Thread(target=_compile_the_search, daemon=True, name="compile the search").start()
        on_ready(server)
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True)
        thread.start()
        # Ctrl-C (SIGTERM) stops the server, whatever a question is doing: flipnet's own
        # handler would only ask the running question to stop (signals.deferred)
        previous = {sig: signal.signal(sig, _stop_serving) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            while thread.is_alive():
                thread.join(0.5)
        finally:
            signals.request()  # the question under way stops at its next safe point
            server.questions.solver.cancel()
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            server.shutdown()


def _compile_the_search():
    """The Cram search's kernels compiled (or loaded from Numba's cache, under a second)
    while the person reads the page: on a new install the first board over 20 cells would
    otherwise wait half a minute. A question that comes first waits for the same compile
    (Numba's lock), never a second one. Quiet: what fails here fails again, and is
    reported, when a question asks."""
    try:
        from flipnet.solve.engine import compile_search

        compile_search(with_endgame=False)  # the boards below 30 cells, the database's threshold
    except Exception:
        pass


def _stop_serving(signum, frame):
    signals.received = signum
    raise signals.CtrlC
