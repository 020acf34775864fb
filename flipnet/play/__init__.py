"""Playing: agents `(game, state, rng) -> move`, the evolution strategy, matches between
agents (`arena`), and the console and Tk front ends for a human against an agent."""
