"""Small flip components valued by a plain recursion, with no Numba to load or compile.

The README's first position (13 cells) takes the recursion about a hundred positions and
a millisecond; the compiled search (`cram`) would first load Numba and, on a fresh
install, compile for forty seconds. A position is answered here when each of its
components has at most SMALL_CELLS cells, or fits a box of the endgame database the
cache holds (read in Python: a full 5x6 board and its moves without the search's 0.4 s of
loading and 130 MB), and the question visits at most NODE_BUDGET new positions (a full
4x5 box: about 11,000); otherwise `TooLarge` hands it to the search. The recursion splits
every position it meets into components, as the search does, reads those a box holds,
and remembers every value it finds for the rest of its `Plain` object's life (an
engine's).
"""

import time

from flipnet.base.errors import FlipnetError
from flipnet.solve.kayles import dawson_kayles
from flipnet.solve.parts import box_dominoes, cells_of, components, own_frame

SMALL_CELLS = 20  # cells of the largest component tried here
NODE_BUDGET = 20_000  # new positions one question may value here (about 0.6 s)
MEMO_CAP = 2_000_000  # values remembered before the memo starts again


def _edges(h, w):
    """(first column, last column) of an h x w box as masks: a cell there has no left
    (right) neighbour."""
    first = sum(1 << (r * w) for r in range(h))
    return first, first << (w - 1)


class TooLarge(Exception):
    """Left to the compiled search."""


class _Question:
    """One question's walk, with the new positions it may still value (`left`), the values
    its recursion remembers (`memo`), the endgame database it reads (`endgame`, or None)
    and what it counts (`done`)."""

    def __init__(self, budget, memo, done, endgame=None):
        self.left, self.memo, self.done, self.endgame = budget, memo, done, endgame

    def value(self, bits, h, w):
        """The nimber of a component (its cells as bits on an h x w box)."""
        if min(h, w) == 1:  # a straight run, all of its box
            return dawson_kayles(max(h, w))
        read = self._read(bits, h, w)
        if read is not None:
            return read
        if bin(bits).count("1") > SMALL_CELLS:
            raise TooLarge
        return self._value(bits, w, *_edges(h, w))

    def _read(self, bits, h, w):
        """The component's value from the database, or None (no database, or no box holds it)."""
        if self.endgame is None:
            return None
        read = self.endgame.value_of(bits, h, w)
        if read is not None:
            self.done["database_hits"] += 1
        return read

    def _value(self, bits, w, first, last):
        low = (bits & -bits).bit_length() - 1
        key = (bits >> (low - low % w), w)  # moved up to the box's top row
        known = self.memo.get(key)
        if known is not None:
            return known
        if self.endgame is not None:
            read = self._read(*own_frame(bits, w))
            if read is not None:
                return read
        self.left -= 1
        if self.left < 0:
            raise TooLarge
        self.done["positions"] += 1
        seen = set()
        for pairs, step in ((bits & (bits >> 1) & ~last, 1), (bits & (bits >> w), w)):
            while pairs:
                a = pairs & -pairs
                pairs ^= a
                seen.add(self._sum(bits & ~(a | a << step), w, first, last))
        value = 0
        while value in seen:
            value += 1
        if len(self.memo) >= MEMO_CAP:
            self.memo.clear()
        self.memo[key] = value
        return value

    def _sum(self, bits, w, first, last):
        """The XOR of the values of the components of `bits` (on the same box)."""
        total = 0
        while bits:
            part = bits & -bits
            while True:
                grown = (part | (part << 1) & ~first | (part >> 1) & ~last | part << w | part >> w) & bits
                if grown == part:
                    break
                part = grown
            bits &= ~part
            if part & (part - 1):  # two cells or more
                total ^= self._value(part, w, first, last)
        return total


class Plain:
    """The Cram solver's questions (cells in, cells out, the same order), for positions
    whose components are all small or held by a box of the endgame database; `TooLarge`
    otherwise. It remembers the values it finds for its later questions. `endgame`: a
    function giving the database to read (an `Endgame`, or None while the cache holds
    none: asked again at the next question that needs one), or None for no database."""

    def __init__(self, budget=NODE_BUDGET, endgame=None):
        self.budget = budget
        self.memo = {}
        self.done = {"positions": 0, "database_hits": 0, "seconds": 0.0}
        self._load_endgame, self._endgame = endgame, None

    def report(self):
        """What the recursion has done so far (the search's `report`, for small positions),
        or None if it never ran."""
        if not self.done["positions"] and not self.done["database_hits"] and not self.memo:
            return None
        hits = {"database_hits": self.done["database_hits"]} if self.done["database_hits"] else {}
        return {"positions": self.done["positions"], **hits, "seconds": round(self.done["seconds"], 3),
                "by": "plain recursion"}

    def _database(self):
        """The database to read, loaded at the first question with a component past
        SMALL_CELLS; None where there is none."""
        if self._endgame is None and self._load_endgame is not None:
            self._endgame = self._load_endgame()
        return self._endgame

    def _valued(self, cells):
        try:
            parts = components(cells, with_origin=True)
        except FlipnetError:  # a component past the search's frames: the search answers it or says so
            raise TooLarge from None
        large = [(h, w) for bits, h, w, _, _ in parts if min(h, w) > 1 and bin(bits).count("1") > SMALL_CELLS]
        endgame = self._database() if large else self._endgame
        if large and (endgame is None or not all(endgame.holds(h, w) for h, w in large)):
            raise TooLarge
        question, start = _Question(self.budget, self.memo, self.done, endgame), time.perf_counter()
        try:
            return question, [(part, question.value(*part[:3])) for part in parts]
        finally:
            self.done["seconds"] += time.perf_counter() - start

    def value(self, cells):
        total = 0
        for _, v in self._valued(cells)[1]:
            total ^= v
        return total

    def valued_components(self, cells):
        return [(cells_of(*part), v) for part, v in self._valued(cells)[1]]

    def winning_moves(self, cells):
        """(value, dominoes after which the position's value is 0)."""
        total, moves = self.move_values(cells)
        return total, [move for move, v in moves if v == 0]

    def move_values(self, cells):
        """(value, [(domino as two cells, the value of the position it leaves)]), sorted."""
        question, valued = self._valued(cells)
        total = 0
        for _, v in valued:
            total ^= v
        moves, start = [], time.perf_counter()
        try:
            for (bits, h, w, r0, c0), v in valued:
                rest = total ^ v
                if min(h, w) == 1:
                    run = cells_of(bits, h, w, r0, c0)
                    moves += [((run[i], run[i + 1]), rest ^ dawson_kayles(i) ^ dawson_kayles(len(run) - 2 - i))
                              for i in range(len(run) - 1)]
                    continue
                edges = _edges(h, w)
                for a, b in box_dominoes(bits, h, w):
                    after = question._sum(bits & ~(1 << a | 1 << b), w, *edges)
                    moves.append((((r0 + a // w, c0 + a % w), (r0 + b // w, c0 + b % w)), rest ^ after))
        finally:  # the moves' walk is the recursion's work too
            self.done["seconds"] += time.perf_counter() - start
        return total, sorted(moves)


__all__ = ["NODE_BUDGET", "Plain", "SMALL_CELLS", "TooLarge"]
