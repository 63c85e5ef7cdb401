#!/usr/bin/env python3
"""A GradScaler state_dict as a Python user saves it, for the C++ load test.

Runs torch.amp.GradScaler("cpu") through a few updates (a skipped step that backs the scale off,
then steps that advance the growth tracker), saves its state_dict with torch.save to PATH.pt, and
writes the values it holds to PATH as JSON. `torch::pickle_load` reads the .pt file as a
Dict<Any, Any>, which GradScaler::load_state_dict must accept.

Usage: grad_scaler_state_dict_reference.py --output PATH
"""
import argparse
import json

import torch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--output", required=True)
    args = parser.parse_args()

    torch.manual_seed(0)
    model = torch.nn.Linear(4, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu", init_scale=1024.0, growth_factor=4.0, backoff_factor=0.25,
                                  growth_interval=5)
    for step in range(4):
        optimizer.zero_grad()
        loss = model(torch.randn(8, 4)).pow(2).mean()
        if step == 0:
            loss = loss * float("inf")  # a non-finite gradient: the step is skipped, the scale backs off
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()

    state = scaler.state_dict()
    torch.save(state, args.output + ".pt")
    with open(args.output, "w") as f:
        json.dump({"pt": args.output + ".pt", "state": state}, f)


if __name__ == "__main__":
    main()
