import h5py
import numpy as np
import pytest

from flipnet import __version__
from flipnet.base.files import atomic_path
from flipnet.datasets.hdf5 import read_split, read_table, write_table
from flipnet.base.errors import FlipnetError
from flipnet.games import FlipGame, GridNim
from flipnet.solve import table
from flipnet.datasets.splits import TEST, TRAIN, VALID, original_split, stratified, uniform


@pytest.fixture(scope="module")
def flip1d():
    game = FlipGame(1, 20)
    return game, table(game)


def test_stratified_split_matches_the_original_protocol(flip1d):
    _, values = flip1d
    bucket, part = stratified(values, seed=7)
    for v in range(7):
        per_bucket = np.bincount(bucket[values == v], minlength=10)
        assert per_bucket.max() - per_bucket.min() <= 1  # each class spread evenly
    in0 = bucket == 0
    for v in range(7):
        cls = in0 & (values == v)
        n = int(cls.sum())
        n_test = n // 6
        assert int((cls & (part == TEST)).sum()) == n_test
        assert int((cls & (part == VALID)).sum()) == (n - n_test) // 11
    sizes = [int((in0 & (part == p)).sum()) for p in (TRAIN, VALID, TEST)]
    assert sizes == [79447, 7941, 17473]  # "about 79.4k train, 7.9k validation, 17.5k test"


def test_splits_are_deterministic_per_seed(flip1d):
    _, values = flip1d
    a, b = stratified(values, seed=1), stratified(values, seed=1)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not np.array_equal(a[0], stratified(values, seed=2)[0])
    assert np.array_equal(uniform(1000, seed=3)[1], uniform(1000, seed=3)[1])


def test_uniform_split_proportions():
    bucket, part = uniform(1 << 20, seed=0)
    assert abs(np.mean(bucket == 1) - 0.1) < 0.002
    fractions = np.bincount(part[bucket == 1], minlength=3) / np.sum(bucket == 1)
    assert np.allclose(fractions, [0.7, 0.1, 0.2], atol=0.005)


def test_round_trip(tmp_path, flip1d):
    game, values = flip1d
    path = tmp_path / "t.h5"
    write_table(path, game, values, original_split(game, values, seed=5))
    back = read_table(path)
    assert np.array_equal(back.values, values)
    assert back.attrs["game"] == "flip" and back.attrs["rows"] == 1 and back.attrs["cols"] == 20
    assert back.attrs["rule"] == "normal" and back.attrs["flipnet_version"] == __version__
    split = read_split(path, 0)
    assert split.attrs["seed"] == 5 and split.attrs["protocol"] == "stratified"
    bucket, part = stratified(values, seed=5)
    for p, (states, labels) in enumerate((split.train, split.valid, split.test)):
        assert np.array_equal(states, np.flatnonzero((bucket == 0) & (part == p)))
        assert np.array_equal(labels, values[states])
    assert split.sizes() == {"train": 79447, "valid": 7941, "test": 17473}


def test_misere_tables_store_win(tmp_path):
    game = GridNim(3, 3)
    path = tmp_path / "g.h5"
    write_table(path, game, table(game))
    with h5py.File(path) as f:
        assert "win" in f and "nim_value" not in f
    assert read_table(path).attrs["rule"] == "misere"


def test_a_missing_file_names_what_makes_it(tmp_path):
    with pytest.raises(FlipnetError, match="nope.h5 not found: give the path of a flipnet dataset"):
        read_split(tmp_path / "nope.h5", 0)
    with pytest.raises(FlipnetError, match="flip2d.h5 not found: `make data`"):
        read_split(tmp_path / "flip2d.h5", 0)
    with pytest.raises(FlipnetError, match="flip7x7.h5 not found: `make data-large`"):
        read_split(tmp_path / "flip7x7.h5", 0)


def test_truncated_file(tmp_path, flip1d):
    game, values = flip1d
    path = tmp_path / "t.h5"
    write_table(path, game, values, original_split(game, values))
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(FlipnetError, match="truncated"):
        read_split(path, 0)


def test_foreign_files(tmp_path):
    path = tmp_path / "other.h5"
    with h5py.File(path, "w") as f:
        f["something"] = np.arange(3)
    with pytest.raises(FlipnetError, match="not a flipnet table"):
        read_table(path)
    text = tmp_path / "text.h5"
    text.write_text("hello")
    with pytest.raises(FlipnetError, match="not a readable HDF5 file"):
        read_table(text)


def test_bad_bucket_and_missing_split(tmp_path):
    game = FlipGame(1, 6)
    values = table(game)
    path = tmp_path / "t.h5"
    write_table(path, game, values)
    with pytest.raises(FlipnetError, match="has no split 'original'"):
        read_split(path, 0)
    write_table(path, FlipGame(1, 20), table(FlipGame(1, 20)),
                original_split(FlipGame(1, 20), table(FlipGame(1, 20))))
    with pytest.raises(FlipnetError, match="bucket 12 does not exist.*0..9"):
        read_split(path, 12)


def test_failed_write_leaves_nothing(tmp_path):
    path = tmp_path / "out.h5"
    with pytest.raises(RuntimeError):
        with atomic_path(path) as tmp:
            tmp.write_text("half")
            raise RuntimeError("interrupted")
    assert list(tmp_path.iterdir()) == []
