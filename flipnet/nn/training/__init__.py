"""Recipes and their settings, the epoch loop both trainers run (validation, checkpoints,
exact resume, Ctrl-C), and the registry that names each model's trainer."""
