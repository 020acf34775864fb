"""A trained model file on a dataset: errors on positions, by shape size, and on boards
larger than the one it was trained on."""
