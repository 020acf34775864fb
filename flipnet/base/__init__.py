"""What every stage uses: the user-facing error, atomic files and strict JSON, progress
bars, and Ctrl-C that waits for a safe point. Imports nothing else of flipnet."""
