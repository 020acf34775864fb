"""The files flipnet ships (models, manifest, results, claims, weights): the package
`flipnet.shipped` in an installed copy (setup.cfg maps it onto this folder), read with
importlib.resources (flipnet/base/places.py)."""
