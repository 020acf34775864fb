"""Beyond the paper: models that value a position as the XOR of its components' values.
The lookup baseline, the XOR networks, the masked convolution with its shape memory,
one ply of lookahead, and the trainer on shapes."""
