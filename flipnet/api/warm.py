"""Compile the kernels a first answer needs, where a user already waits.

`make data` runs it beside the tables it builds, and `make wheel` before it packs the
kernels into the wheel (`flipnet.base.kernels`): the first `flipnet value` of a board the
search answers in a second, and the first `flipnet predict`, then load compiled code
instead of compiling for half a minute. `python -m flipnet.api.warm`.
"""

import time

PREDICTED = "11011/11111/01110/11011/10111"


def compile_first_answers():
    """Compile (or load from the cache) the Cram search and the best model's kernels."""
    from flipnet.api.models import load_model
    from flipnet.solve.engine import compile_search

    compile_search(with_endgame=False)
    load_model("best").predict(PREDICTED)


if __name__ == "__main__":
    start = time.perf_counter()
    compile_first_answers()
    print(f"flipnet: the first answers' kernels compiled ({time.perf_counter() - start:.0f} s; "
          f"`flipnet.base.kernels` says where they are kept)")
