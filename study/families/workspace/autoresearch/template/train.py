"""Tune a classifier on the digits data set (scikit-learn ships it: nothing downloads).

    python train.py

trains once, prints one machine-readable line, ``METRIC test_accuracy=0.951111``, and writes
``results/<commit>.json`` (the commit is the HEAD this run trained: commit the candidate first).
The split of the data and its seed are fixed; what a trial may change is the CONFIG block
below (PROTOCOL.md says which keys each stage tunes). This file is the only one a trial changes.
"""

import json
import subprocess
import sys
import time
from pathlib import Path

# ===== CONFIG: what the trials tune (PROTOCOL.md) =====
CONFIG = {
    # scheduler: the learning-rate schedule
    "learning_rate": "constant",  # constant | optimal | invscaling | adaptive
    "power_t": 0.5,  # invscaling's exponent
    # optimizer and learning rate
    "loss": "hinge",  # hinge | log_loss | modified_huber | squared_hinge | perceptron
    "eta0": 1e-05,  # the initial learning rate (constant, invscaling, adaptive)
    "average": False,  # averaged SGD
    # regularization
    "penalty": "l2",  # l2 | l1 | elasticnet | None
    "alpha": 0.0001,
    "l1_ratio": 0.15,  # elasticnet's mix
    # feature augmentation
    "features": "raw",  # raw | standard | minmax | poly2 | rbf
    "rbf_components": 200,  # rbf: the Nystroem kernel map's size
    "rbf_gamma": 0.15,  # rbf: the kernel's width (on features scaled to [0, 1])
    # throughput
    "epochs": 3,
    "batch_size": 0,  # 0: each epoch fits the whole training set; >0: partial_fit on batches
    "n_jobs": 1,
    # the model's seed (the split's seed is fixed below)
    "seed": 0,
}
# ===== END CONFIG =====

SPLIT_SEED = 0
TEST_SIZE = 0.25


def head_commit() -> tuple[str, bool]:
    """The commit this run trains and whether train.py differs from it."""
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
        dirty = bool(subprocess.run(["git", "status", "--porcelain", "--", "train.py"], capture_output=True, text=True, check=True).stdout.strip())
    except (OSError, subprocess.CalledProcessError):
        return "unknown", True
    return commit, dirty


def features(config, x_train, x_test):
    kind = config["features"]
    if kind == "raw":
        return x_train, x_test
    from sklearn.kernel_approximation import Nystroem
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import MinMaxScaler, PolynomialFeatures, StandardScaler

    if kind == "standard":
        step = StandardScaler()
    elif kind == "minmax":
        step = MinMaxScaler()
    elif kind == "poly2":
        step = make_pipeline(MinMaxScaler(), PolynomialFeatures(degree=2, interaction_only=True), StandardScaler())
    elif kind == "rbf":
        kernel = Nystroem(gamma=config["rbf_gamma"], n_components=config["rbf_components"], random_state=0)
        step = make_pipeline(MinMaxScaler(), kernel, StandardScaler())
    else:
        raise ValueError(f"unknown features {kind!r}: use raw, standard, minmax, poly2 or rbf")
    return step.fit_transform(x_train), step.transform(x_test)


def train(config):
    import numpy as np
    from sklearn.datasets import load_digits
    from sklearn.linear_model import SGDClassifier
    from sklearn.model_selection import train_test_split

    x, y = load_digits(return_X_y=True)
    x_train, x_test, y_train, y_test = train_test_split(x, y, test_size=TEST_SIZE, random_state=SPLIT_SEED, stratify=y)
    started = time.perf_counter()  # the training: features, fit and score (not the imports)
    x_train, x_test = features(config, x_train, x_test)
    model = SGDClassifier(
        loss=config["loss"], penalty=config["penalty"], alpha=config["alpha"], l1_ratio=config["l1_ratio"],
        learning_rate=config["learning_rate"], eta0=config["eta0"], power_t=config["power_t"],
        average=config["average"], max_iter=config["epochs"], tol=None, n_jobs=config["n_jobs"],
        random_state=config["seed"],
    )
    if config["batch_size"] <= 0:
        import warnings

        from sklearn.exceptions import ConvergenceWarning

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(x_train, y_train)
    else:
        order = np.random.default_rng(config["seed"])
        classes = np.unique(y_train)
        for _ in range(config["epochs"]):
            index = order.permutation(len(y_train))
            for start in range(0, len(index), config["batch_size"]):
                batch = index[start:start + config["batch_size"]]
                model.partial_fit(x_train[batch], y_train[batch], classes=classes)
    accuracy = float(model.score(x_test, y_test))
    return accuracy, time.perf_counter() - started


def main() -> int:
    commit, dirty = head_commit()
    accuracy, seconds = train(CONFIG)
    record = {"commit": commit, "uncommitted_changes": dirty, "config": CONFIG, "test_accuracy": round(accuracy, 6),
              "train_seconds": round(seconds, 4)}
    out = Path("results") / f"{commit[:12]}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    print(f"results: {out}  train_seconds={seconds:.3f}  commit={commit[:12]}{' (uncommitted changes!)' if dirty else ''}")
    print(f"METRIC test_accuracy={accuracy:.6f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
