"""The shared core of both families: layers, optimisers, compiled steps and predictors,
model files, error metrics, and the model base class with its registry."""
