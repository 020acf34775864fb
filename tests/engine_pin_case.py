"""One case of the engine's pin (`test_engine_pins.py`), in a process of its own so that
its positions searched start from an empty table: the command's JSON answer, then, where
the case asks, every move's value through `flipnet.value(..., moves="all")`.

    python engine_pin_case.py '{"argv": [...], "all_moves": [board, misere]}'
"""

import contextlib
import io
import json
import sys


def main(spec):
    from flipnet.cli import main as command

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = command(spec["argv"])
    answer = {"status": status or 0, "answer": json.loads(out.getvalue())}
    if spec.get("all_moves"):
        import flipnet

        board, misere = spec["all_moves"]
        result = flipnet.value(board, misere=misere, moves="all", workers=1)
        answer["moves"] = [[m.move, m.value] for m in result.moves]
    print(json.dumps(answer))


if __name__ == "__main__":
    main(json.loads(sys.argv[1]))
