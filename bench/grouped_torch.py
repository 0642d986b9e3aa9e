# SPDX-License-Identifier: MIT
"""grouped_torch.py - wsgemm.grouped_mm beside torch._grouped_mm on the mixture-of-experts shapes, GPU time.

Each case: tokens x hidden activations (bf16, uniform [-1, 1]) routed to `per_token` experts uniformly (every
expert gets the same number of rows), each expert's weights in nn.Linear's layout [width, hidden] (K-major),
passed to both as the (experts, hidden, width) transposed view. Both calls get the same offs. A round queues a
spin (torch.cuda._sleep) and then both calls bracketed by events, the order alternating every round, so the
events time the kernels and not Python's launch work; the figure is the median of the rounds. Each case first
checks wsgemm's output against torch's (relative Frobenius error) and prints the path wsgemm ran.

    WSGEMM_LIBRARY=build/h200/libwsgemm.so PYTHONPATH=python python3 bench/grouped_torch.py [--rounds N]
"""
import argparse
import statistics

import torch

import wsgemm

CASES = [  # name, experts, hidden (K), width (N), experts per token, tokens
    ("deepseek_up", 256, 7168, 2048, 8, 4096),
    ("deepseek_down", 256, 2048, 7168, 8, 4096),
    ("mixtral_up", 8, 4096, 14336, 2, 4096),
    ("mixtral_down", 8, 14336, 4096, 2, 4096),
    ("mixtral_up", 8, 4096, 14336, 2, 16384),
    ("mixtral_down", 8, 14336, 4096, 2, 16384),
]


def run_case(name, experts, hidden, width, per_token, tokens, rounds):
    rows = tokens * per_token
    x = torch.empty(rows, hidden, device="cuda", dtype=torch.bfloat16).uniform_(-1, 1)
    w = torch.empty(experts, width, hidden, device="cuda", dtype=torch.bfloat16).uniform_(-1, 1)
    b = w.transpose(1, 2)  # (experts, hidden, width), K-major
    offs = torch.arange(1, experts + 1, device="cuda", dtype=torch.int32) * (rows // experts)
    out_t = torch._grouped_mm(x, b, offs=offs)
    out_w = torch.full_like(out_t, float("nan"))
    wsgemm.grouped_mm(x, b, offs=offs, out=out_w)
    torch.cuda.synchronize()
    err = ((out_w.float() - out_t.float()).norm() / out_t.float().norm()).item()
    path = wsgemm.last_path()
    calls = {"wsgemm": lambda: wsgemm.grouped_mm(x, b, offs=offs, out=out_w),
             "torch": lambda: torch._grouped_mm(x, b, offs=offs, out_dtype=torch.bfloat16)}
    for f in calls.values():  # warm-up
        f()
    times = {k: [] for k in calls}
    for r in range(rounds):
        order = list(calls) if r % 2 == 0 else list(reversed(list(calls)))
        torch.cuda._sleep(200_000_000)
        ev = {}
        for k in order:
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            calls[k]()
            stop.record()
            ev[k] = (start, stop)
        torch.cuda.synchronize()
        for k, (start, stop) in ev.items():
            times[k].append(start.elapsed_time(stop))
    ms = {k: statistics.median(v) for k, v in times.items()}
    tflops = 2.0 * rows * hidden * width / 1e9
    print(f"{name:<14} {tokens:>6} {experts:>7} {rows:>6} {hidden:>6} {width:>6} {ms['wsgemm']:>9.3f} "
          f"{tflops / ms['wsgemm']:>8.1f} {ms['torch']:>9.3f} {tflops / ms['torch']:>8.1f} "
          f"{ms['torch'] / ms['wsgemm']:>7.3f} {path:>6} {err:>9.2e}")
    if not err < 1e-2:
        raise SystemExit(f"{name}: wsgemm differs from torch._grouped_mm (relative error {err})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=10)
    args = ap.parse_args()
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}")
    print(f"{'case':<14} {'tokens':>6} {'experts':>7} {'rows':>6} {'K':>6} {'N':>6} {'ws_ms':>9} {'ws_TF':>8} "
          f"{'torch_ms':>9} {'torch_TF':>8} {'speed':>7} {'path':>6} {'rel_err':>9}")
    for c in CASES:
        run_case(*c, args.rounds)


if __name__ == "__main__":
    main()
