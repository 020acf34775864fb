"""A sample's positions valued in lanes, each from an empty table of its own and without
the endgame database, so that a position's value, and whether it went over its budget,
depend on the sample alone (`flipnet data`; a lane is also a task on a cluster,
`engine.value_lane`). `SampleLanes` is the part of `solver.CramSolver` that does it."""

import numpy as np

from flipnet.base.errors import FlipnetError
from flipnet.base.places import cache_dir
from flipnet.solve.cram import search
from flipnet.solve.cram.endgame import Endgame
from flipnet.solve.cram.limits import SAMPLE_LANES
from flipnet.solve.cram.memory import zeroed_table


class SampleLanes:
    """A sample valued in lanes, by the solver's workers."""

    def values_of_sample(self, states, rows, cols, budget=0, progress=None, lanes=SAMPLE_LANES):
        """Values of a sample's positions, as `values_of_states`, but dealt in turn to
        `lanes` lanes, each valued from an empty table of its own and without the endgame
        database: a position's value, and whether it went over the budget, depend on the
        sample alone, never on the solver's past questions, its cache or its workers.
        With two workers two lanes run at once: the same numbers, 1.6-1.7x as fast on the
        registered samples."""
        masks = _batch(states, rows, cols)
        dealt = [np.ascontiguousarray(masks[lane::lanes]) for lane in range(lanes)]  # every lanes-th, in turn
        outs = [np.zeros(part.size, np.int64) for part in dealt]
        threads = min(self.workers, lanes)
        controls = [self.lane_controls() for _ in range(threads)]
        stats = [np.zeros(8, np.int64) for _ in range(threads)]
        finished = []

        def job(worker):
            def run():
                control, buffers, paths = controls[worker], search.scratch(), search.paths()
                for lane in range(worker, lanes, threads):
                    if not self.value_lane(dealt[lane], rows, cols, budget, outs[lane], control, stats[worker],
                                           buffers, paths):
                        return
                    finished.append(lane)
            return run

        with self._busy:
            self._wait_for_left()
            self.supervisor.run([job(w) for w in range(threads)], controls, stats, progress)
        if len(finished) < lanes or any(c[search.STOP] in (search.INTERRUPTED, search.CANCELLED) for c in controls):  # asked to stop as it ended
            self._raise_stopped(max(int(c[search.STOP]) for c in controls),
                                sum(int(s[search.NODES]) for s in stats))
        out = np.zeros(masks.size, np.int64)
        for lane, values in enumerate(outs):
            out[lane::lanes] = values
        check_nimbers(out, np.bitwise_count(masks), allow_unknown=True)
        return out

    def lane_settings(self):
        """What a lane's values depend on besides its positions (`engine.value_lane`): the
        table's size, the mirror rule and the sets."""
        return {"tt_log": self.tt_log, "mirror": bool(self.control[search.MIRROR]), "sets": int(self.control[search.SETS])}

    def lane_controls(self):
        """The control words of a lane's search: this solver's mirror rule and sets."""
        control = search.controls(self.control[search.MIRROR])
        control[search.SETS] = self.control[search.SETS]
        return control

    def value_lane(self, masks, rows, cols, budget, out, control, stats, buffers=None, paths=None):
        """One lane of a sample (`values_of_sample`) valued into `out` from an empty table
        of 2^tt_log entries and no endgame database, in the calling thread: the values,
        and which positions pass the budget, depend on the lane alone (a task on another
        machine gives the same). False if stopped (control[STOP])."""
        table = zeroed_table(1 << self.tt_log, 1)
        buffers = search.scratch() if buffers is None else buffers
        ctx = self._context(Endgame.empty(), table, self.tt_log, control, stats, buffers,
                            search.paths() if paths is None else paths, 0)
        return search.values_of_positions(np.ascontiguousarray(masks, np.uint64), rows, cols, budget, out, ctx)


def _batch(states, rows, cols):
    """A batch's states as 64-bit masks, once its board is known to fit a word."""
    if rows * cols > search.NARROW:
        raise FlipnetError(f"a {rows}x{cols} board has {rows * cols} cells; batches take at most {search.NARROW}")
    return np.asarray(states, dtype=np.uint64)


def check_nimbers(values, cells, allow_unknown=False):
    """Refuse a nimber that no position of that many cells has: a game of n cells lasts at
    most n // 2 moves, so its nimber, and the XOR of its components', stays below
    2^bit_length(n // 2). Only a damaged database or a fault could give one."""
    cells = np.asarray(cells, np.int64)
    limit = np.left_shift(1, np.frexp(cells // 2 + 0.5)[1].astype(np.int64))  # 2^bit_length(n // 2)
    bad = (values >= limit) | (values < (-1 if allow_unknown else 0))
    if bad.any():
        k = int(np.argmax(bad))
        raise FlipnetError(f"the search gave nimber {int(values[k])} to a position of {int(cells[k])} cells, "
                           f"which allows values below {int(limit[k])}: the endgame database in "
                           f"{cache_dir()} may be damaged (delete it; `flipnet endgame` builds it again)")
