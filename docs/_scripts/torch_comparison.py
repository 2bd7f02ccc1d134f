"""Indicative held-out QWK quoted in docs/torch.md (run: python docs/_scripts/torch_comparison.py).

Linear models trained one item at a time (batch size 1, Adam, 5 epochs) with mean squared
error, SoftKappaLoss(), WeightedKappaLoss(K) and, for contrast, the batch-only ratio
soft_kappa_loss, which cannot learn at batch size 1. One seed, two small problems: the
numbers are indicative, not a benchmark. No timings are printed.
"""

from __future__ import annotations

import numpy as np
import torch

import qwkit
from qwkit.torch import SoftKappaLoss, WeightedKappaLoss, soft_kappa_loss


def synthetic():
    rng = np.random.default_rng(20261121)
    X = rng.normal(size=(500, 5))
    z = X @ np.array([1.0, -0.5, 0.25, 0.0, 0.8]) + rng.normal(size=500)
    y = np.digitize(z, np.quantile(z, [0.15, 0.4, 0.7, 0.9]))
    return X[:300], y[:300], X[300:], y[300:], 5


def wine():
    data = qwkit.load_wine_quality()
    perm = np.random.default_rng(20261121).permutation(len(data.y))
    train, test = perm[:400], perm[400:800]
    return data.X[train], data.y[train] - 3, data.X[test], data.y[test] - 3, 6


def held_out_qwk(kind, X, y, X_test, y_test, k, *, lr=0.01, epochs=5):
    mu, sd = X.mean(0), X.std(0)
    Xt = torch.tensor((X - mu) / sd, dtype=torch.float32)
    Xv = torch.tensor((X_test - mu) / sd, dtype=torch.float32)
    yt = torch.tensor(y)
    torch.manual_seed(0)
    model = torch.nn.Linear(X.shape[1], k if kind == "wk" else 1)
    loss_fn = {"soft": SoftKappaLoss(), "wk": WeightedKappaLoss(k)}.get(kind)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    order = torch.Generator().manual_seed(1)
    for _ in range(epochs):
        for i in torch.randperm(len(yt), generator=order):
            out, target = model(Xt[i : i + 1]), yt[i : i + 1]
            if kind == "mse":
                loss = ((out[:, 0] - target) ** 2).mean()
            elif kind == "ratio":
                loss = soft_kappa_loss(out, target)
            else:
                loss = loss_fn(out, target)
            opt.zero_grad()
            loss.backward()
            opt.step()
    with torch.no_grad():
        out = model(Xv)
    if kind == "wk":
        classes = out.argmax(1).numpy()
    else:
        classes = np.clip(np.rint(out[:, 0].numpy()), 0, k - 1).astype(int)
    return qwkit.kappa_score(y_test, classes, labels=np.arange(k))


def main():
    torch.set_num_threads(1)
    print("| training loss (batch size 1) | synthetic (300 / 200) | wine, red (400 / 400) |")
    print("|---|---|---|")
    problems = (synthetic(), wine())
    rows = [
        ("mean squared error", "mse"),
        ("`SoftKappaLoss()`", "soft"),
        ("`WeightedKappaLoss(K)` (argmax)", "wk"),
        ("`soft_kappa_loss` (batch ratio)", "ratio"),
    ]
    for label, kind in rows:
        cells = [f"{held_out_qwk(kind, *p):.3f}" for p in problems]
        print(f"| {label} | {cells[0]} | {cells[1]} |")
    cells = []
    for X, y, X_test, y_test, k in problems:
        model = qwkit.kappa_regression(X, y)
        classes = np.clip(np.rint(model.predict(X_test)), 0, k - 1).astype(int)
        cells.append(f"{qwkit.kappa_score(y_test, classes, labels=np.arange(k)):.3f}")
    print(f"| closed form `qwkit.kappa_regression` (reference) | {cells[0]} | {cells[1]} |")


if __name__ == "__main__":
    main()
