"""How the search's tables keep a fact: the table of one-word keys in one word an entry,
the wide table (keys of two words) in four.

A fact is a component's canonical key and shape with its nimber, or with the values it
was shown not to have. The rest of the search sees it as a *meta word*: the shape word
(bits 0-15), the nimber + 1 (bits 16-23, 0: unknown) and the values below 32 shown not to
be the nimber (bits 32-63).

The one-word table keeps an entry in one word by quotienting (Cleary, "Compact hash
tables using bidirectional linear probing", 1984; the quotient filter's method): the key
is mixed by a function with an inverse, the mix's top bits choose a bucket of eight
entries (one 64-byte cache line) and the entry keeps only the mix's other bits, so the
bucket's number is part of the key and is never stored. With 2^log entries, a word is

    [the mix's last 67 - log bits][shape code, 9 bits][1: a nimber | 0: values excluded][log - 13 bits]

and its last field holds the nimber, or the values below log - 13 shown not to be it (an
exclusion beyond is forgotten: it costs time, never truth). The key comes back whole from
the word and its slot (`tt_fact`), so a checkpoint writes exactly the facts the table
holds. A word is written at once: two workers writing one slot leave the one write or the
other, never a mix of both. The mix's bits beyond the bucket, the shape code and a nimber
of up to 32 must fit in one word, hence at least 2^MIN_TABLE_LOG entries (2^19: 4 MB).

The wide table keeps four words an entry (its keys have up to 128 bits): the key's low
word XOR a mix of the meta word, the meta word, the key's high word XOR another mix and a
spare word; eight slots probed from the key's own. Its words are written one by one, so an
entry whose words come from different writes fails the check and reads as absent.
"""

import numpy as np

from flipnet.base.kernels import njit
from flipnet.solve.cram.bits import popcount
from flipnet.solve.cram.wide import by_width, high, like, low

ENTRY_BYTES = 8  # an entry of the one-word table
WIDE_ENTRY_WORDS = 4  # an entry of the wide table
BUCKET_LOG = 3  # eight entries a bucket: one cache line
CODE_BITS = 9  # a shape's code in a word
EXCLUDABLE = 32  # the values a meta word may show excluded
STORES, REPLACED = 3, 4  # the words of the search's stats[] that a table write counts in (search.py)

SHAPE_WORD = np.uint64(0xFFFF)  # a meta word's bits that hold its shape word
_M1 = np.uint64(0x9E3779B97F4A7C15)
_M2 = np.uint64(0xC2B2AE3D27D4EB4F)
_M3 = np.uint64(0x165667B19E3779F9)
_MIX1, _MIX2 = 0xBF58476D1CE4E5B9, 0x94D049BB133111EB  # splitmix64's finalizer, an invertible mix
_UNMIX1, _UNMIX2 = (np.uint64(pow(m, -1, 1 << 64)) for m in (_MIX1, _MIX2))
_MIX1, _MIX2 = np.uint64(_MIX1), np.uint64(_MIX2)


def _shape_codes():
    """Every shape word of a one-word box (h x w, at most 64 cells) numbered from 1, and back."""
    shapes = [h << 7 | w for h in range(1, 65) for w in range(1, 65) if h * w <= 64]
    code = np.zeros(1 << 14, np.uint64)
    code[shapes] = np.arange(1, len(shapes) + 1)
    assert len(shapes) < 1 << CODE_BITS
    return code, np.array([0] + shapes, np.int64)


SHAPE_CODE, CODE_SHAPE = _shape_codes()


@njit(cache=True, inline="always")
def tt_value(meta):
    """The nimber a meta word holds, or -1."""
    return np.int64((meta >> np.uint64(16)) & np.uint64(0xFF)) - 1


@njit(cache=True, inline="always")
def tt_excluded(meta):
    """The values a meta word's component was shown not to have, as bits."""
    return meta >> np.uint64(32)


# The one-word table

@njit(cache=True, inline="always")
def _mix(bits, shape):
    """A bijection of the key's bits (for each shape), spreading them over the word."""
    z = bits ^ (np.uint64(shape) * _M2)
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def _unmix(z, shape):
    """The key whose `_mix` is z."""
    z = z ^ (z >> np.uint64(31)) ^ (z >> np.uint64(62))
    z *= _UNMIX2
    z = z ^ (z >> np.uint64(27)) ^ (z >> np.uint64(54))
    z *= _UNMIX1
    z = z ^ (z >> np.uint64(30)) ^ (z >> np.uint64(60))
    return z ^ (np.uint64(shape) * _M2)


@njit(cache=True, inline="always")
def _place(bits, shape, log):
    """(the first slot of the key's bucket, the signature its word holds above the tag)."""
    z = _mix(bits, shape)
    rest = np.uint64(64 + BUCKET_LOG - log)  # the mix's bits the word keeps
    signature = ((z & ((np.uint64(1) << rest) - np.uint64(1))) << np.uint64(CODE_BITS)) | SHAPE_CODE[shape]
    return np.int64(z >> rest) << BUCKET_LOG, signature


@njit(cache=True, inline="always")
def _meta_of_word(word, log, shape):
    payload_bits = np.uint64(log - 13)
    payload = word & ((np.uint64(1) << payload_bits) - np.uint64(1))
    if (word >> payload_bits) & np.uint64(1):
        return np.uint64(shape) | ((payload + np.uint64(1)) << np.uint64(16))
    return np.uint64(shape) | (payload << np.uint64(32))


@njit(cache=True, inline="always")
def _word_of_meta(signature, log, meta):
    """The word that keeps a meta word's fact, or 0 where it holds nothing the word can keep."""
    payload_bits = np.uint64(log - 13)
    value = tt_value(meta)
    if value >= 0:
        return (signature << (payload_bits + np.uint64(1))) | (np.uint64(1) << payload_bits) | np.uint64(value)
    excluded = tt_excluded(meta) & ((np.uint64(1) << payload_bits) - np.uint64(1))
    return (signature << (payload_bits + np.uint64(1))) | excluded if excluded else np.uint64(0)


@njit(cache=True, inline="always")
def _shape_of_word(word, log):
    return CODE_SHAPE[(word >> np.uint64(log - 12)) & np.uint64((1 << CODE_BITS) - 1)]


@njit(cache=True, inline="always")
def _key_of_word(word, slot, log):
    rest = np.uint64(64 + BUCKET_LOG - log)
    z = (np.uint64(slot >> BUCKET_LOG) << rest) | (word >> (np.uint64(64) - rest))
    return _unmix(z, _shape_of_word(word, log))


def _word_probe(bits, tt, log, shape):
    first, signature = _place(bits, shape, log)
    above = np.uint64(log - 12)
    for i in range(first, first + (1 << BUCKET_LOG)):
        word = tt[i, 0]
        if word >> above == signature:
            return _meta_of_word(word, log, shape)
        if word == 0:  # a bucket fills from its first slot: nothing past an empty one
            break
    return np.uint64(0)


def _word_entry(bits, tt, log, shape, stats):
    first, signature = _place(bits, shape, log)
    above = np.uint64(log - 12)
    for i in range(first, first + (1 << BUCKET_LOG)):
        word = tt[i, 0]
        if word >> above == signature:
            return i, _meta_of_word(word, log, shape)
        if word == 0:
            stats[STORES] += 1
            return i, np.uint64(shape)
    slot, least = first, 129  # a full bucket: its smallest component goes, the cheapest to prove again
    for i in range(first, first + (1 << BUCKET_LOG)):
        c = popcount(_key_of_word(tt[i, 0], i, log))
        if c < least:
            slot, least = i, c
    stats[REPLACED] += 1
    stats[STORES] += 1
    return slot, np.uint64(shape)


def _word_write(bits, tt, log, i, meta):
    _, signature = _place(bits, np.int64(meta & SHAPE_WORD), log)
    word = _word_of_meta(signature, log, meta)
    if word:
        tt[i, 0] = word


def _word_line(bits, shape, log):
    return _place(bits, shape, log)[0]


def _word_fact(zero, tt, log, i):
    word = tt[i, 0]
    if word == 0:
        return zero, np.uint64(0)
    return _key_of_word(word, i, log), _meta_of_word(word, log, _shape_of_word(word, log))


# The wide table

@njit(cache=True, inline="always")
def _slot(bits, shape, log_capacity):
    h = (low(bits) * _M1) ^ (np.uint64(shape) * _M2)
    h ^= high(bits) * _M3
    h ^= h >> np.uint64(29)
    h *= _M1
    return np.int64(h >> np.uint64(64 - log_capacity))


KEY, META, KEY_HIGH = 0, 1, 2  # a wide entry's words


@njit(cache=True, inline="always")
def _check(meta):
    """What a wide entry's key words are XORed with: a bijective mix of its meta word."""
    h = meta * _M1
    return h ^ (h >> np.uint64(31))


@njit(cache=True, inline="always")
def _wide_key_at(tt, i, meta, bits):
    """The key a wide entry holds, checked against its meta word."""
    key = like(bits, tt[i, KEY] ^ _check(meta))
    return key | (like(bits, tt[i, KEY_HIGH] ^ _check(meta ^ _M3)) << np.uint64(64))


def _wide_probe(bits, tt, log, shape):
    i = _slot(bits, shape, log)
    for _ in range(8):
        meta = tt[i, META]
        s = meta & SHAPE_WORD
        if s == 0:
            return np.uint64(0)
        if s == shape and _wide_key_at(tt, i, meta, bits) == bits:
            return meta
        i = (i + 1) & (tt.shape[0] - 1)
    return np.uint64(0)


def _wide_entry(bits, tt, log, shape, stats):
    start = _slot(bits, shape, log)
    i = start
    for _ in range(8):
        meta = tt[i, META]
        s = meta & SHAPE_WORD
        if s == shape and _wide_key_at(tt, i, meta, bits) == bits:
            return i, meta
        if s == 0:
            break
        i = (i + 1) & (tt.shape[0] - 1)
    else:  # a full neighbourhood: its smallest component goes
        i, j, least = start, start, 129
        for _ in range(8):
            c = popcount(_wide_key_at(tt, j, tt[j, META], bits))
            if c < least:
                i, least = j, c
            j = (j + 1) & (tt.shape[0] - 1)
        stats[REPLACED] += 1
    stats[STORES] += 1
    return i, np.uint64(shape)


def _wide_write(bits, tt, log, i, meta):
    tt[i, KEY] = low(bits) ^ _check(meta)
    tt[i, KEY_HIGH] = high(bits) ^ _check(meta ^ _M3)
    tt[i, META] = meta


def _wide_line(bits, shape, log):
    return WIDE_ENTRY_WORDS * _slot(bits, shape, log)


def _wide_fact(zero, tt, log, i):
    meta = tt[i, META]
    if not meta & SHAPE_WORD:
        return zero, np.uint64(0)
    return _wide_key_at(tt, i, meta, zero), meta


_probe = by_width(_word_probe, _wide_probe)
_entry = by_width(_word_entry, _wide_entry)
_write = by_width(_word_write, _wide_write)
tt_line = by_width(_word_line, _wide_line)  # (bits, shape, log): the flat index of the key's first slot
_fact = by_width(_word_fact, _wide_fact)
# (bits, log): the excluded values an entry keeps, as bits
_keepable = by_width(lambda x, log: (np.uint64(1) << np.uint64(log - 13)) - np.uint64(1),
                     lambda x, log: np.uint64(0xFFFFFFFF))


# What the search and the checkpoints call, for either table (by the key's width)

@njit(cache=True)
def tt_probe(tt, log_capacity, bits, shape):
    """The meta word of this component's entry, or 0 (nothing known)."""
    return _probe(bits, tt, log_capacity, shape)


@njit(cache=True)
def tt_entry(tt, log_capacity, bits, shape, stats):
    """(slot, meta word) for this component: its entry and what it holds, or a slot to take
    and a fresh meta word (a full bucket loses its smallest component: every entry is a
    proven fact, so forgetting one costs time, never truth)."""
    return _entry(bits, tt, log_capacity, shape, stats)


@njit(cache=True, inline="always")
def tt_write(tt, log_capacity, i, bits, meta):
    """Keep the fact (bits, meta word) in slot i (as `tt_entry` gave it)."""
    _write(bits, tt, log_capacity, i, meta)


@njit(cache=True)
def tt_store(tt, log_capacity, bits, shape, value, stats):
    i, meta = tt_entry(tt, log_capacity, bits, shape, stats)
    tt_write(tt, log_capacity, i, bits, (meta & ~np.uint64(0xFF0000)) | (np.uint64(value + 1) << np.uint64(16)))


@njit(cache=True)
def tt_exclude_set(tt, log_capacity, bits, shape, values, stats):
    """Record that the component's nimber is none of `values` (bits; those the table can
    keep: below 32 in the wide table, below log - 13 in the other)."""
    values &= _keepable(bits, log_capacity)
    if values:
        i, meta = tt_entry(tt, log_capacity, bits, shape, stats)
        tt_write(tt, log_capacity, i, bits, meta | (values << np.uint64(32)))


@njit(cache=True, inline="always")
def tt_fact(tt, log_capacity, i, zero):
    """(key, meta word) of slot i's fact, the key of zero's width; meta 0 for an empty slot."""
    return _fact(zero, tt, log_capacity, i)


def table_log(tt):
    """log2 of a table's entries."""
    return int(tt.shape[0]).bit_length() - 1
