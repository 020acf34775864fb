"""flipnet: learning Sprague-Grundy values with neural networks.

Exact solvers and datasets for the flip game and its Nim relatives, the 2016 Theano
study's networks rebuilt as PyTensor graphs, and playable agents.
"""

__version__ = "0.1.0"
