"""Compile the kernels a first answer needs, where a user already waits.

`make data` runs it beside the tables it builds, and `make wheel` before it packs the
kernels into the wheel (`flipnet.base.kernels`): the first `flipnet value` of a board the
search answers in a second, and the first `flipnet predict`, then load compiled code
instead of compiling for half a minute. Run as `python -m flipnet.api.warm`, it also
builds the endgame database where the cache has none (a process of its own, beside the
compile: 226 MB, about 12 s), which a 5x8 board's first answer would otherwise go without.
"""

import subprocess
import sys
import time

PREDICTED = "11011/11111/01110/11011/10111"


def compile_first_answers():
    """Compile (or load from the cache) the Cram search, its database's builder and the
    best model's kernels."""
    from flipnet.api.models import load_model
    from flipnet.solve.engine import compile_database_builder, compile_search

    compile_search(with_endgame=False)
    compile_database_builder()
    load_model("best").predict(PREDICTED)


BUILD_DATABASE = "from flipnet.solve.engine import endgame_database; endgame_database(full_check=False)"

if __name__ == "__main__":
    start = time.perf_counter()
    database = subprocess.Popen([sys.executable, "-c", BUILD_DATABASE])
    compile_first_answers()
    database.wait()
    print(f"flipnet: the first answers' kernels compiled and the endgame database ready "
          f"({time.perf_counter() - start:.0f} s; `flipnet.base.kernels` says where the kernels are kept)")
    sys.exit(database.returncode)
