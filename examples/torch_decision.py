"""Decision optimization with a trained regressor (docs/PYTHON.md): a small PyTorch network learns a shop's
profit from its price and two advertising budgets, and reluopt finds the decision with the highest predicted
profit, subject to a budget constraint. Runs in seconds on a CPU.

    python examples/torch_decision.py
"""
import numpy as np
import torch

import reluopt


def true_profit(x: np.ndarray) -> np.ndarray:
    """The unknown ground truth the network learns: price x0 in [1, 5], budgets x1, x2 in [0, 2]."""
    price, tv, web = x[:, 0], x[:, 1], x[:, 2]
    demand = 10 - 1.8 * price + 2.5 * np.sqrt(tv) + 1.5 * np.log1p(web)
    return (price - 1.0) * demand - 1.2 * tv - 0.8 * web


def train(seed: int = 0, epochs: int = 200) -> torch.nn.Sequential:
    torch.manual_seed(seed)
    torch.set_num_threads(1)  # a network this small trains fastest on one thread
    rng = np.random.default_rng(seed)
    x = rng.uniform([1, 0, 0], [5, 2, 2], size=(1000, 3))
    y = true_profit(x) + rng.normal(0, 0.2, size=len(x))
    xt, yt = torch.tensor(x, dtype=torch.float32), torch.tensor(y, dtype=torch.float32).reshape(-1, 1)
    model = torch.nn.Sequential(torch.nn.Linear(3, 16), torch.nn.ReLU(), torch.nn.Linear(16, 16), torch.nn.ReLU(),
                                torch.nn.Linear(16, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(epochs):
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(xt), yt)
        loss.backward()
        optimizer.step()
    return model


def main() -> tuple[torch.nn.Sequential, reluopt.Result]:
    model = train()
    # Decide price and budgets with tv + web <= 2.5 (A x <= b).
    result = reluopt.solve(model, lower=[1, 0, 0], upper=[5, 2, 2], A=[[0, 1, 1]], b=[2.5], objective=0,
                           sense="max", method="mip", threads=1, seed=0)
    print(result)
    price, tv, web = result.x
    print(f"price {price:.3f}, tv {tv:.3f}, web {web:.3f}: predicted profit {result.objective:.3f} "
          f"(proven optimal for the network: {result.status == 'optimal'}), "
          f"true profit {true_profit(result.x.reshape(1, -1))[0]:.3f}")
    return model, result


if __name__ == "__main__":
    main()
