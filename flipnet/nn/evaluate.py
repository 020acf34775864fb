"""Error rates of a saved model on the parts of a dataset split (`flipnet evaluate`).

The same checks as training: the file's boards must be the model's, its labels within
the model's classes; errors are measured as the run measured them (whole minibatches
only when its recipe said so).
"""

from flipnet.base.errors import FlipnetError
from flipnet.datasets import read_split
from flipnet.nn.compile import Predictor
from flipnet.nn.metrics import error_rate, evaluated
from flipnet.nn.models import check_labels
from flipnet.nn.store import load_model


def evaluate_file(model_file, data=None, bucket=None):
    """(model, data path, bucket, {part: (error, states evaluated)})."""
    model, meta = load_model(model_file)
    trained = meta.get("config", {}) if isinstance(meta.get("config"), dict) else {}
    data = data or trained.get("data")
    bucket = trained.get("bucket", 0) if bucket is None else bucket
    if not data:
        raise FlipnetError(f"{model_file} does not say which dataset it was trained on: pass --data")
    split = read_split(data, bucket)
    rows, cols = int(split.attrs["rows"]), int(split.attrs["cols"])
    if (rows, cols) != (model.rows, model.cols):
        raise FlipnetError(f"{data} holds {rows}x{cols} boards; the model reads {model.rows}x{model.cols}")
    check_labels(model, split, data)
    predict = Predictor.as_trained(model, meta)
    eval_batch = int(trained.get("eval_batch", 0) or 0)
    errors = {}
    for part in ("train", "valid", "test"):
        states, labels = evaluated(getattr(split, part), eval_batch if part != "train" else 0)
        errors[part] = (error_rate(predict(states), labels), len(states))
    return model, data, bucket, errors
