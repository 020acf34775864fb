"""The study's networks and the trainer on positions (which also trains the XOR
networks of `components/xornet.py`)."""
