from flipnet.solve.kayles import dawson_kayles


def test_kayles_is_periodic_from_53_with_period_34():
    direct = [0] * 400
    for k in range(2, 400):
        opts = {direct[a] ^ direct[k - 2 - a] for a in range(k - 1)}
        direct[k] = min(set(range(len(opts) + 1)) - opts)
    assert [dawson_kayles(k) for k in range(400)] == direct
    assert direct[52 + 34] != direct[52]  # the pre-period really ends at 53
