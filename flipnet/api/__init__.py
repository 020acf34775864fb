"""The public names of `import flipnet` (see flipnet/__init__.py and docs/api.md)."""
