"""The PyTorch Lightning pruning callback stops real training runs under successive halving (CPU)."""

from __future__ import annotations

from typing import Any

import pytest

import treefarm as tf

torch = pytest.importorskip("torch")
pl = pytest.importorskip("lightning.pytorch")

EPOCHS = 9


class Regression(pl.LightningModule):
    """A one-layer regression of y = 3x on 64 points: a few milliseconds per epoch."""

    def __init__(self, lr: float) -> None:
        super().__init__()
        self.layer = torch.nn.Linear(1, 1)
        self.lr = lr

    def training_step(self, batch: Any, _: int) -> Any:
        x, y = batch
        return torch.nn.functional.mse_loss(self.layer(x), y)

    def validation_step(self, batch: Any, _: int) -> None:
        x, y = batch
        self.log("val_loss", torch.nn.functional.mse_loss(self.layer(x), y))

    def configure_optimizers(self) -> Any:
        return torch.optim.SGD(self.parameters(), lr=self.lr)


def _loader() -> Any:
    generator = torch.Generator().manual_seed(0)
    x = torch.rand(64, 1, generator=generator)
    return torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, 3 * x), batch_size=16)


def _trainer(callback: Any) -> Any:
    return pl.Trainer(
        max_epochs=EPOCHS,
        accelerator="cpu",
        devices=1,
        callbacks=[callback],
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
    )


def test_lightning_training_is_reported_and_pruned() -> None:
    from treefarm.integration.lightning import LightningPruningCallback

    torch.manual_seed(0)
    torch.set_num_threads(1)

    def objective(params: dict[str, float], trial: tf.Trial) -> float:
        trainer = _trainer(LightningPruningCallback(trial, monitor="val_loss"))
        trainer.fit(Regression(params["lr"]), _loader(), _loader())
        return float(trainer.callback_metrics["val_loss"])

    study = tf.Study.create(
        space={"lr": tf.Real(1e-4, 1.0, log=True)},
        algo="random",
        seed=0,
        pruner=tf.SuccessiveHalvingPruner(min_resource=1, reduction_factor=3),
    )
    study.optimize(objective, 8, progress=False)
    states = [t.state for t in study.trials]
    assert tf.TrialState.PRUNED in states and tf.TrialState.COMPLETE in states, states
    complete = next(t for t in study.trials if t.state is tf.TrialState.COMPLETE)
    assert sorted(complete.intermediate) == list(range(EPOCHS))
    pruned = next(t for t in study.trials if t.state is tf.TrialState.PRUNED)
    assert max(pruned.intermediate) < EPOCHS - 1


def test_a_metric_the_model_does_not_log_is_named() -> None:
    from treefarm.integration.lightning import LightningPruningCallback

    trial = tf.Study.create(space={"lr": tf.Real(1e-4, 1.0, log=True)}, seed=0).ask()
    with pytest.raises(tf.StudyError, match=r"monitor must be a metric the model logs .* monitor='val_acc'"):
        _trainer(LightningPruningCallback(trial, monitor="val_acc")).fit(
            Regression(0.1), _loader(), _loader()
        )
