"""Reference trajectories of torch.amp.GradScaler("cpu") for ampbench's C++ GradScaler.

Defines deterministic scenarios (explicit initial weights, fixed batches, inf/NaN gradients
injected at chosen steps, SGD / Adam / AdamW, a small growth_interval so the scale grows),
runs them with PyTorch's own GradScaler and writes, per scenario, both the inputs (so the C++
test replays exactly the same thing) and the expected results: per step the scale, growth
tracker, skipped flags, losses, unscaled gradients, parameters and optimizer state; at the end
the parameters, the optimizer state and the scaler's state_dict.

Non-finite floats are written as the strings "inf", "-inf", "nan" to keep the JSON strict.

Usage: grad_scaler_reference.py --output PATH
"""

import argparse
import json
import math
import os

import torch

DIMS = (4, 6, 2)  # MLP: Linear(4, 6) -> Tanh -> Linear(6, 2)
BATCH = 8


def encode(tensor):
    values = tensor.detach().reshape(-1).tolist()
    return [v if math.isfinite(v) else str(v) for v in values]


def make_model(weights):
    model = torch.nn.Sequential(
        torch.nn.Linear(DIMS[0], DIMS[1]), torch.nn.Tanh(), torch.nn.Linear(DIMS[1], DIMS[2])
    )
    with torch.no_grad():
        for param, values in zip(model.parameters(), weights):
            param.copy_(torch.tensor(values, dtype=torch.float32).reshape(param.shape))
    return model


def random_weights(generator):
    shapes = [(DIMS[1], DIMS[0]), (DIMS[1],), (DIMS[2], DIMS[1]), (DIMS[2],)]
    return [encode(0.5 * torch.randn(shape, generator=generator)) for shape in shapes]


def make_optimizer(spec, params):
    kind = spec["type"]
    # fused=True: the multi-tensor kernels that take the scaler's scale and inf flag themselves
    # (GradScaler's _step_supports_amp_scaling path); foreach must then be left unset.
    implementation = {"fused": True} if spec.get("fused") else {"foreach": False}
    if kind == "sgd":
        return torch.optim.SGD(params, lr=spec["lr"], momentum=spec["momentum"],
                               weight_decay=spec["weight_decay"], nesterov=spec["nesterov"],
                               **implementation)
    cls = {"adam": torch.optim.Adam, "adamw": torch.optim.AdamW}[kind]
    return cls(params, lr=spec["lr"], betas=(spec["beta1"], spec["beta2"]), eps=spec["eps"],
               weight_decay=spec["weight_decay"], amsgrad=spec["amsgrad"], **implementation)


def optimizer_state(optimizer):
    """Per parameter, the state tensors by name (step as a float), in parameter order."""
    out = []
    for group in optimizer.param_groups:
        for param in group["params"]:
            state = optimizer.state.get(param, {})
            entry = {}
            for key, value in state.items():
                if isinstance(value, torch.Tensor):
                    entry[key] = encode(value.float())
            out.append(entry)
    return out


def inject(models, spec, step, micro):
    for item in spec.get("inject", []):
        if item["step"] == step and item["micro"] == micro:
            param = list(models[item["model"]].parameters())[item["param"]]
            param.grad.view(-1)[item["index"]] = float(item["value"])


def losses_of(models, inputs, targets):
    outputs = [model(inputs) for model in models]
    if len(outputs) == 1:
        return [torch.nn.functional.mse_loss(outputs[0], targets)]
    # Two models, two losses that both reach both models (as PyTorch's own scaler test does).
    return [torch.nn.functional.mse_loss(outputs[0] + outputs[1], targets),
            torch.nn.functional.mse_loss(outputs[0] - outputs[1], targets)]


def run(spec):
    models = [make_model(weights) for weights in spec["weights"]]
    optimizers = [make_optimizer(o, m.parameters()) for o, m in zip(spec["optimizers"], models)]
    scaler = torch.amp.GradScaler("cpu", **spec["scaler"])
    micro_batches = spec["micro_batches"]
    per_step = []
    for step in range(spec["steps"]):
        for optimizer in optimizers:
            optimizer.zero_grad(set_to_none=True)
        step_losses = []
        for micro in range(micro_batches):
            inputs = torch.tensor(spec["inputs"][step][micro]).reshape(BATCH, DIMS[0])
            targets = torch.tensor(spec["targets"][step][micro]).reshape(BATCH, DIMS[2])
            losses = [loss / micro_batches for loss in losses_of(models, inputs, targets)]
            for i, loss in enumerate(losses):
                scaler.scale(loss).backward(retain_graph=i + 1 < len(losses))
            step_losses += [loss.item() for loss in losses]
            inject(models, spec, step, micro)
        if spec["explicit_unscale"]:
            scaler.unscale_(optimizers[0])
        if spec["clip_max_norm"] is not None:
            torch.nn.utils.clip_grad_norm_(models[0].parameters(), spec["clip_max_norm"])
        skipped = []
        for optimizer in optimizers:
            scaler.step(optimizer)
            found = scaler._found_inf_per_device(optimizer)
            skipped.append(bool(sum(v.item() for v in found.values())))
        grads = [[encode(p.grad) for p in m.parameters()] for m in models]
        new_scale = spec["set_scale"].get(str(step))
        scaler.update(new_scale)
        # Parameters and optimizer state after every step: the C++ replay starts the next step of
        # a non-fused Adam/AdamW from these (see grad_scaler_conformance_test.cpp).
        per_step.append({"scale": scaler.get_scale(), "growth_tracker": scaler._get_growth_tracker(),
                         "skipped": skipped, "losses": step_losses, "grads": grads,
                         "params": [[encode(p) for p in m.parameters()] for m in models],
                         "optimizer_state": [optimizer_state(o) for o in optimizers]})
    return {
        "per_step": per_step,
        "params": [[encode(p) for p in m.parameters()] for m in models],
        "optimizer_state": [optimizer_state(o) for o in optimizers],
        "state_dict": scaler.state_dict(),
    }


SGD = {"type": "sgd", "lr": 0.05, "momentum": 0.9, "weight_decay": 1e-4, "nesterov": False}
ADAM = {"type": "adam", "lr": 0.01, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8,
        "weight_decay": 0.0, "amsgrad": False}
ADAMW = {"type": "adamw", "lr": 0.01, "beta1": 0.9, "beta2": 0.99, "eps": 1e-8,
         "weight_decay": 0.01, "amsgrad": True}
# growth_interval 2 so the scale grows several times within a dozen steps.
FUSED_SGD = dict(SGD, fused=True)
FUSED_ADAM = dict(ADAM, fused=True)
FUSED_ADAMW = dict(ADAMW, fused=True)
SCALER = {"init_scale": 1024.0, "growth_factor": 2.0, "backoff_factor": 0.5, "growth_interval": 2}
INF_AND_NAN = [
    {"step": 3, "micro": 0, "model": 0, "param": 0, "index": 5, "value": "inf"},
    {"step": 7, "micro": 0, "model": 0, "param": 3, "index": 1, "value": "nan"},
    {"step": 8, "micro": 0, "model": 0, "param": 2, "index": 0, "value": "-inf"},
]


def scenario(name, optimizers, seed, **overrides):
    spec = {"name": name, "steps": 12, "micro_batches": 1, "explicit_unscale": False,
            "clip_max_norm": None, "scaler": dict(SCALER), "optimizers": optimizers,
            "inject": INF_AND_NAN, "set_scale": {}}
    spec.update(overrides)
    generator = torch.Generator().manual_seed(seed)
    spec["weights"] = [random_weights(generator) for _ in optimizers]
    shape_in, shape_out = (BATCH, DIMS[0]), (BATCH, DIMS[2])
    spec["inputs"] = [[encode(torch.randn(shape_in, generator=generator))
                       for _ in range(spec["micro_batches"])] for _ in range(spec["steps"])]
    spec["targets"] = [[encode(torch.randn(shape_out, generator=generator))
                        for _ in range(spec["micro_batches"])] for _ in range(spec["steps"])]
    return spec


def scenarios():
    return [
        scenario("sgd", [SGD], 1),
        scenario("adam", [ADAM], 2),
        scenario("adamw", [ADAMW], 3),
        scenario("sgd_clip_after_unscale", [SGD], 4, explicit_unscale=True, clip_max_norm=0.5),
        scenario("adam_accumulate_3", [ADAM], 5, micro_batches=3,
                 inject=[{"step": 4, "micro": 1, "model": 0, "param": 1, "index": 2,
                          "value": "inf"}]),
        # Inf only in the second model: its optimizer skips, the first steps, the scale backs off.
        scenario("two_models_two_losses", [SGD, ADAMW], 6, explicit_unscale=True,
                 inject=[{"step": 4, "micro": 0, "model": 1, "param": 0, "index": 3,
                          "value": "nan"}]),
        scenario("set_scale", [SGD], 7, set_scale={"5": 256.0, "9": 3.0}),
        scenario("backoff_to_tiny_scale", [SGD], 8, scaler=dict(SCALER, init_scale=4.0),
                 inject=[{"step": s, "micro": 0, "model": 0, "param": 0, "index": 0,
                          "value": "inf"} for s in range(0, 10, 2)]),
        # Fused optimizers: the scale and the inf flag go to the kernel, no host decision.
        scenario("sgd_fused", [FUSED_SGD], 9),
        scenario("adam_fused", [FUSED_ADAM], 10),
        scenario("adamw_fused", [FUSED_ADAMW], 11),
        scenario("adam_fused_clip_after_unscale", [FUSED_ADAM], 12, explicit_unscale=True,
                 clip_max_norm=0.5),
    ]


def write_reference(description, scenario_specs, run_scenario):
    """The command line of every reference script: runs each scenario and writes the JSON."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--output", required=True)
    args = parser.parse_args()
    torch.set_num_threads(1)  # the C++ replay also runs on one thread: same reduction order
    results = []
    for spec in scenario_specs():
        spec["expected"] = run_scenario(spec)
        results.append(spec)
    document = {"torch_version": torch.__version__, "dims": list(DIMS), "batch": BATCH,
                "scenarios": results}
    temporary = args.output + ".tmp"
    with open(temporary, "w") as handle:
        json.dump(document, handle, allow_nan=False)
    os.replace(temporary, args.output)


def main():
    write_reference(__doc__.splitlines()[0], scenarios, run)


if __name__ == "__main__":
    main()
