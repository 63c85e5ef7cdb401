"""Reference trajectories of PyTorch's "gradient penalty" AMP example for ampbench's C++ replay.

The loop is the one on PyTorch's "Automatic Mixed Precision examples" page, on CPU with float16
autocast: torch.autograd.grad of the *scaled* loss with create_graph=True, the penalty gradients
unscaled by hand with 1 / scaler.get_scale(), the penalty computed inside autocast, then
scaler.scale(loss).backward(), step, update. The initial scale is large enough that float16
overflows in backward, so the scaler skips steps and backs off on its own, then grows again.

Per step it writes the scale the step ran with, the scale and growth tracker after update(),
whether the step was skipped, the loss, the penalty, the norm of the unscaled gradients that the
optimizer saw (torch.nn.utils.get_total_norm) and every parameter after the step.

Usage: gradient_penalty_reference.py --output PATH
"""

import torch

from grad_scaler_reference import (BATCH, DIMS, encode, make_model, make_optimizer, random_weights,
                                   write_reference)

SCALER = {"init_scale": 2.0 ** 20, "growth_factor": 2.0, "backoff_factor": 0.5, "growth_interval": 2}
SGD = {"type": "sgd", "lr": 0.05, "momentum": 0.9, "weight_decay": 1e-4, "nesterov": False}
FUSED_ADAM = {"type": "adam", "lr": 0.01, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8,
              "weight_decay": 0.0, "amsgrad": False, "fused": True}


def penalty_step(model, optimizer, scaler, inputs, targets):
    """One iteration of the documented example, verbatim but for the device."""
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(device_type="cpu", dtype=torch.float16):
        output = model(inputs)
        loss = torch.nn.functional.mse_loss(output, targets)
    scaled_grad_params = torch.autograd.grad(outputs=scaler.scale(loss),
                                             inputs=model.parameters(), create_graph=True)
    inv_scale = 1.0 / scaler.get_scale()
    grad_params = [p * inv_scale for p in scaled_grad_params]
    with torch.autocast(device_type="cpu", dtype=torch.float16):
        grad_norm = 0
        for grad in grad_params:
            grad_norm += grad.pow(2).sum()
        grad_norm = grad_norm.sqrt()
        total = loss + grad_norm
    scaler.scale(total).backward()
    # What ampbench's GradNormRecorder must record: the norm of the unscaled gradients, before
    # step() (which unscales them in place for a plain optimizer).
    unscaled_norm = torch.nn.utils.get_total_norm([p.grad * inv_scale for p in model.parameters()])
    scaler.step(optimizer)
    skipped = bool(sum(v.item() for v in scaler._found_inf_per_device(optimizer).values()))
    scaler.update()
    return {"scale_used": 1.0 / inv_scale, "loss": encode(loss)[0], "penalty": encode(grad_norm)[0],
            "total_loss": encode(total)[0], "grad_norm": encode(unscaled_norm)[0], "skipped": skipped,
            "scale": scaler.get_scale(), "growth_tracker": scaler._get_growth_tracker(),
            "params": [encode(p) for p in model.parameters()]}


def scenario(name, optimizer, seed, steps=12):
    generator = torch.Generator().manual_seed(seed)
    spec = {"name": name, "steps": steps, "scaler": dict(SCALER), "optimizer": optimizer,
            "weights": random_weights(generator)}
    spec["inputs"] = [encode(torch.randn((BATCH, DIMS[0]), generator=generator)) for _ in range(steps)]
    spec["targets"] = [encode(torch.randn((BATCH, DIMS[2]), generator=generator)) for _ in range(steps)]
    return spec


def run(spec):
    model = make_model(spec["weights"])
    optimizer = make_optimizer(spec["optimizer"], model.parameters())
    scaler = torch.amp.GradScaler("cpu", **spec["scaler"])
    return [penalty_step(model, optimizer, scaler,
                         torch.tensor(spec["inputs"][step]).reshape(BATCH, DIMS[0]),
                         torch.tensor(spec["targets"][step]).reshape(BATCH, DIMS[2]))
            for step in range(spec["steps"])]


def main():
    write_reference(__doc__.splitlines()[0],
                    lambda: [scenario("sgd", SGD, 21), scenario("adam_fused", FUSED_ADAM, 22)], run)


if __name__ == "__main__":
    main()
