"""A board's text under the eight symmetries of a rectangle, and one text for them all:
children that are one position up to symmetry are one piece of a solve (`pieces`) and one
line of a checkpoint's standing (`standing`)."""


def images(text):
    """The board's text under the eight symmetries of a rectangle."""
    rows = text.split("/")
    cols = ["".join(row[c] for row in rows) for c in range(len(rows[0]))]
    found = []
    for grid in (rows, cols):  # the board and its transpose
        for flip_rows in (False, True):
            for flip_cols in (False, True):
                lines = grid[::-1] if flip_rows else grid
                found.append("/".join(line[::-1] if flip_cols else line for line in lines))
    return found


def canonical(text):
    """One text for a position and all its images: the least of them."""
    return min(images(text))
