"""`make bench` must end: sections of unbounded time run only when named."""

from flipnet.report import bench


def test_make_bench_leaves_out_the_unbounded_sections():
    assert "cram-large" in bench.SECTIONS
    assert "cram-large" not in bench.default_sections()
    assert {"solve", "train1d", "train2d", "cram"} <= set(bench.default_sections())

