"""The square's 8 symmetries (rotations and reflections, the group D4) as index tables that
tie a 3x3 convolution's weights so the convolution commutes with every one of them.

A shape's value does not change when it is turned or mirrored. A plain network learns
that from the 8 drawings of each shape it is shown (flipnet's symmetry augmentation), and
spends weights on doing so; a group convolution (Cohen and Welling, 2016) has it built in.
Each channel becomes a field of 8, one per symmetry g, and the weight that links input
(offset o, field f, symmetry h) to output (field f', symmetry g) is one shared number,
base[f', f, g^-1 h, g^-1 o]. Turning the input by s then turns every layer's output by s,
so pooling over the cells and then over the 8 makes the answer the same for all 8
drawings, exactly (up to rounding), with 8x fewer weights per channel.
"""

import numpy as np

OFFSETS = tuple((dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1))  # the 3x3 window, row-major
ORDER = 8  # the group's size: the channels of a field


def _elements():
    """The 8 signed permutation matrices: each maps an offset (dr, dc) to its image."""
    out = []
    for swap in (False, True):
        for row_sign in (1, -1):
            for col_sign in (1, -1):
                m = np.zeros((2, 2), np.int64)
                m[0, int(swap)], m[1, 1 - int(swap)] = row_sign, col_sign
                out.append(m)
    return np.array(out)


ELEMENTS = _elements()


def _index(matrix):
    return next(i for i, m in enumerate(ELEMENTS) if (m == matrix).all())


INVERSE = np.array([_index(m.T) for m in ELEMENTS])
PRODUCT = np.array([[_index(a @ b) for b in ELEMENTS] for a in ELEMENTS])  # PRODUCT[g, h] = gh
ACTION = np.array([[OFFSETS.index(tuple(int(x) for x in m @ np.array(o))) for o in OFFSETS]
                   for m in ELEMENTS])  # ACTION[g, o]: the window index of g applied to offset o


def lifting_index(fields):
    """(9, fields * 8) indices into a flattened (fields, 9) base: the first layer's weights
    from one input channel (the cells) to fields of 8, full[o, f'*8 + g] = base[f', g^-1 o]."""
    out = np.empty((len(OFFSETS), fields * ORDER), np.int64)
    for f in range(fields):
        for g in range(ORDER):
            out[:, f * ORDER + g] = f * len(OFFSETS) + ACTION[INVERSE[g]]
    return out


def group_index(fields_in, fields_out):
    """(9 * fields_in * 8, fields_out * 8) indices into a flattened (fields_out, fields_in,
    8, 9) base: row o * C + f * 8 + h (the window layout of `layouts.conv3x3`, C channels),
    column f' * 8 + g holds base[f', f, g^-1 h, g^-1 o]."""
    n_offsets, channels = len(OFFSETS), fields_in * ORDER
    o, f, h = np.meshgrid(np.arange(n_offsets), np.arange(fields_in), np.arange(ORDER), indexing="ij")
    rows = (o * channels + f * ORDER + h).ravel()
    out = np.empty((n_offsets * channels, fields_out * ORDER), np.int64)
    for f_out in range(fields_out):
        for g in range(ORDER):
            inv = INVERSE[g]
            flat = ((f_out * fields_in + f) * ORDER + PRODUCT[inv, h]) * n_offsets + ACTION[inv, o]
            out[rows, f_out * ORDER + g] = flat.ravel()
    return out
