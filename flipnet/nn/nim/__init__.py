"""The C++ NIM perceptron: a sigmoid MLP with a hand-written backward pass, its weights
file and its training runs."""
