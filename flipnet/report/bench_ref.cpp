// The original study's 2D table generator, as docs/sources.md (section 1) describes it: walk all states
// in increasing order, collect the children's values in a hash set, take the mex.
// Single-threaded; built with g++ -O2 by `make bench` as the yardstick for flipnet's DP.
#include <cstdint>
#include <unordered_set>
#include <vector>

extern "C" int flip_table(int rows, int cols, uint8_t *out) {
    const int n = rows * cols;
    if (n > 30) return 1;
    std::vector<uint32_t> masks;
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
            const int b = r * cols + c;
            if (c + 1 < cols) masks.push_back((1u << b) | (1u << (b + 1)));
            if (r + 1 < rows) masks.push_back((1u << b) | (1u << (b + cols)));
        }
    const uint32_t states = 1u << n;
    for (uint32_t s = 0; s < states; ++s) {
        std::unordered_set<int> seen;
        for (uint32_t m : masks)
            if ((s & m) == m) seen.insert(out[s ^ m]);
        int v = 0;
        while (seen.count(v)) ++v;
        out[s] = (uint8_t)v;
    }
    return 0;
}
