import pytest
from hypothesis import given
from hypothesis import strategies as st

from flipnet import games
from flipnet.games import FlipGame, GridNim, HalfNim, Nim, parse_shape

shapes = st.tuples(st.integers(1, 6), st.integers(1, 6))


@given(shapes, st.data())
def test_parse_and_format_are_inverses(shape, data):
    game = FlipGame(*shape)
    state = data.draw(st.integers(0, (1 << game.n_cells) - 1))
    text = game.format(state)
    assert game.parse(text) == state
    assert game.format(game.parse(text)) == text


def test_bit_order_is_row_major():
    game = FlipGame(2, 3)
    assert game.parse("100/000") == 1
    assert game.parse("001/000") == 1 << 2
    assert game.parse("000/010") == 1 << 4  # cell (1, 1) is bit 1*3 + 1
    assert game.format(1 << 3) == "000/100"


@pytest.mark.parametrize("shape, text, message", [
    ((1, 4), "10x1", "bad character 'x' at position 3"),
    ((2, 3), "101/1a1", "bad character 'a' at row 2, column 2"),
    ((1, 3), "1011", "position has 4 cells, expected 3"),
    ((2, 3), "101/10", "row 2 has 2 cells, expected 3"),
    ((2, 3), "101/101/101", "3 rows given, a 2x3 board has 2"),
])
def test_parse_errors_name_what_and_where(shape, text, message):
    game = FlipGame(*shape)
    with pytest.raises(ValueError, match=message):
        game.parse(text)


def test_shape_of_text():
    assert FlipGame.shape_of("1101") == (1, 4)
    assert FlipGame.shape_of("11/01/10") == (3, 2)
    with pytest.raises(ValueError, match="row 2 has 1 cells but row 1 has 2"):
        FlipGame.shape_of("11/0")


def test_parse_shape():
    assert parse_shape("5x5") == (5, 5)
    assert parse_shape("20") == (1, 20)
    for bad in ("5by5", "0x3", "x", "2x2x2"):
        with pytest.raises(ValueError, match="bad shape"):
            parse_shape(bad)


def adjacent_pairs(rows, cols):
    cells = [(r, c) for r in range(rows) for c in range(cols)]
    return {frozenset((a, b)) for a in cells for b in cells
            if abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1}


@given(shapes)
def test_flip_moves_are_the_dominoes(shape):
    game = FlipGame(*shape)
    assert {frozenset(game.cells(m)) for m in game.move_masks} == adjacent_pairs(*shape)
    assert len(game.move_masks) == len(set(game.move_masks))


def test_gridnim_moves_are_straight_gapless_segments():
    game = GridNim(4, 4)
    for m in game.move_masks:
        cells = game.cells(m)
        rows = {r for r, _ in cells}
        cols = {c for _, c in cells}
        assert 1 <= len(cells) <= 3
        assert len(rows) == 1 or len(cols) == 1
        line = sorted(c for _, c in cells) if len(rows) == 1 else sorted(r for r, _ in cells)
        assert line == list(range(line[0], line[0] + len(line)))
    # 16 singles, 2 orientations x 4 lines x (3 pairs + 2 triples)
    assert len(game.move_masks) == 16 + 2 * 4 * 5 == len(set(game.move_masks))


def test_legal_moves_and_play():
    game = FlipGame(1, 5)
    state = game.parse("11011")
    assert [game.format_move(m) for m in game.legal_moves(state)] == ["0+1", "3+4"]
    assert game.format(game.play(state, game.parse_move("3+4"))) == "11000"
    with pytest.raises(ValueError, match="illegal move 1\\+2"):
        game.play(state, 0b110)
    assert game.is_over(game.parse("10101"))


def test_parse_move_errors():
    game = FlipGame(2, 2)
    assert game.parse_move("0,0+0,1") == 0b11
    with pytest.raises(ValueError, match="not a move"):
        game.parse_move("0,0+1,1")
    with pytest.raises(ValueError, match="cannot read move"):
        game.parse_move("zero")
    with pytest.raises(ValueError, match="already empty"):
        game.parse_move("0,0+0,1", state=0b01)


def test_halfnim_rules():
    game = HalfNim()
    assert game.legal_moves(7) == [1, 2, 3]
    assert game.play(7, 3) == 4
    assert game.is_over(1) and not game.is_over(2)
    with pytest.raises(ValueError, match="take 1..3 from 7, not 4"):
        game.play(7, 4)
    with pytest.raises(ValueError, match="not 'ten'"):
        game.parse("ten")
    with pytest.raises(ValueError, match="take between 1 and 2, not 3"):
        game.parse_move("3", 5)


def test_nim_rules():
    game = Nim((1, 3, 5))
    state = game.parse("1,3,5")
    assert state == (1, 3, 5) and game.format(state) == "1,3,5"
    assert len(game.legal_moves(state)) == 9
    assert game.play(state, game.parse_move("2@3")) == (1, 3, 3)
    with pytest.raises(ValueError, match="heap 2 is 'x', not a number"):
        game.parse("1,x")
    with pytest.raises(ValueError, match="there is no heap 4"):
        game.parse_move("1@4", state)
    assert game.is_over((0, 0, 0))


@pytest.mark.parametrize("option, value", [("shape", (2, 3)), ("heaps", "1,2"), ("misere", None),
                                           ("max_take", 2)])
@pytest.mark.parametrize("name", ["flip", "gridnim", "halfnim", "nim"])
def test_a_game_takes_the_options_it_lists_and_refuses_the_others(name, option, value):
    """What `OPTIONS` lists reaches the game; any other option is refused by name (it used
    to reach the class's constructor as an unexpected keyword: a TypeError)."""
    cls = games.GAMES[name]
    if option == "misere":  # the rule the game does not play by default
        value = games.make(name).rule == "normal"
    if option in cls.OPTIONS:
        game = games.make(name, **{option: value})
        assert game != games.make(name), f"{option}={value!r} did not change {name}"
    else:
        with pytest.raises(ValueError, match=f"^{name} takes no {games.OPTION_NAMES[option]} option"):
            games.make(name, **{option: value})
        with pytest.raises(ValueError, match=f"^{name} takes no"):
            games.for_position(name, "10" if name == "halfnim" else "1,2" if name == "nim" else "11/11",
                               **{option: value})
