#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""plot.py - wsgemm-bench's JSON (--benchmark_out) -> PNG plots and a table.

    python3 bench/plot.py bench.json --out DIR [--peak 989] [--quiet]

Writes into DIR:
    tflops_<suite>.png    TFLOP/s per implementation: a line over the size for
                          the square and decode sweeps, bars per shape for the
                          other suites
    ratio_to_cublas.png   every shape but the grid's: each implementation's
                          GPU-time ratio to cuBLAS (> 1: faster than cuBLAS)
    heatmap_grid.png      the grid suite: wsgemm_auto's ratio to cuBLAS over m
                          (rows) and n (columns), one panel per k
    table.md              the table for docs/performance.md (also printed),
                          with host microseconds per call as their own columns
    grid.md               the grid's ratios as one m x n table per k

Reads the "median" aggregate rows when the run had --benchmark_repetitions
(the counters of wsgemm-bench are already medians of the GPU times of the
rounds within each repetition), the plain rows otherwise. A shape timed
without its own cuBLAS row (the grid, or a filter that left cuBLAS out) gets
cuBLAS's TFLOP/s from the cublas_TFLOPS counter of the wsgemm rows, which
time cuBLAS in the same rounds. Rows with error_occurred (a wrong result, a
path that declined the shape) are listed under the table, never plotted.
Needs matplotlib only for the PNGs (Agg backend: no display); the tables are
written without it.
"""
import argparse
import json
import os
import statistics
import sys

BF16_DENSE_PEAK_TFLOPS = 989.0  # H100/H200 SXM datasheet, dense bf16/fp16 with fp32 accumulation
HBM_GBPS = 4800.0  # H200 datasheet HBM3e bandwidth (the decode GB/s plot's ceiling)
REFERENCE = "cublas"
# Column and legend order; unknown implementations follow in name order.
IMPL_ORDER = ["cublas", "cublaslt", "wsgemm_auto", "wsgemm_sm90", "wsgemm_sm100", "wsgemm_generic",
              "wsgemm_sm100_emulated"]
SUITE_ORDER = ["square", "llm", "decode", "beta1", "f32c", "unaligned", "batched", "ops", "types", "grid"]
SWEEPS = {"square": "m", "decode": "m"}  # suites drawn as a line over one dimension
HEATMAPS = {"grid"}  # suites drawn as ratio heat maps (m x n per k) and kept out of the main table


def impl_key(name):
    return (IMPL_ORDER.index(name), name) if name in IMPL_ORDER else (len(IMPL_ORDER), name)


def suite_key(name):
    return (SUITE_ORDER.index(name), name) if name in SUITE_ORDER else (len(SUITE_ORDER), name)


def parse_name(run_name):
    """'square/cublas/NN_bf16_bf16/m:4096/n:4096/k:4096/manual_time' -> fields."""
    parts = run_name.split("/")
    if len(parts) < 3:
        return None
    fields = {"suite": parts[0], "impl": parts[1], "variant": parts[2], "batch": 1, "beta": 0}
    for part in parts[3:]:
        key, sep, value = part.partition(":")
        if sep and key in ("m", "n", "k", "batch", "beta"):
            fields[key] = int(value)
    if not all(key in fields for key in ("m", "n", "k")):
        return None
    return fields


class Result:
    def __init__(self, fields):
        self.__dict__.update(fields)
        self.tflops = self.gbps = self.vs_cublas = self.cublas_tflops = None
        self.host_us = self.cublas_host_us = None
        self.label = ""
        self.error = None

    @property
    def shape(self):
        return (self.suite, self.variant, self.m, self.n, self.k, self.batch, self.beta)


def salvage(text, path):
    """A run that was killed leaves the JSON cut off: keep every complete row.

    Google Benchmark flushes the file after each benchmark and writes each
    row as an object indented by four spaces inside "benchmarks"."""
    end = text.rfind("\n    }")
    if end < 0:
        raise SystemExit(f"plot.py: {path} is not a Google Benchmark report (and holds no complete row)")
    report = json.loads(text[:end + len("\n    }")] + "\n  ]\n}\n")
    print(f"plot.py: {path} was cut off; using its {len(report.get('benchmarks', []))} complete rows",
          file=sys.stderr)
    return report


def load(path):
    """Returns (context, {shape: {impl: Result}})."""
    with open(path) as f:
        text = f.read()
    try:
        report = json.loads(text)
    except json.JSONDecodeError:
        report = salvage(text, path)
    rows = report.get("benchmarks", [])
    has_median = {row.get("run_name", row["name"]) for row in rows
                  if row.get("run_type") == "aggregate" and row.get("aggregate_name") == "median"}
    # Gather the usable rows per benchmark: the median aggregate, else every repetition.
    picked = {}
    for row in rows:
        run_name = row.get("run_name", row["name"])
        if row.get("run_type") == "aggregate":
            if row.get("aggregate_name") != "median":
                continue
        elif run_name in has_median and not row.get("error_occurred"):
            continue
        picked.setdefault(run_name, []).append(row)

    results = {}
    for run_name, group in picked.items():
        fields = parse_name(run_name)
        if fields is None:
            continue
        r = Result(fields)
        errors = [row for row in group if row.get("error_occurred")]
        good = [row for row in group if not row.get("error_occurred")]
        if errors and not good:
            r.error = errors[0].get("error_message", "error")
        else:
            def med(key):
                values = [row[key] for row in good if isinstance(row.get(key), (int, float))]
                return statistics.median(values) if values else None
            r.tflops, r.gbps, r.vs_cublas = med("TFLOPS"), med("GBps"), med("vs_cublas")
            r.cublas_tflops, r.host_us, r.cublas_host_us = med("cublas_TFLOPS"), med("host_us"), med("cublas_host_us")
            r.label = good[0].get("label", "")
            if errors:
                r.error = errors[0].get("error_message", "error")
        results.setdefault(r.shape, {})[r.impl] = r
    # cuBLAS as timed in the rounds of a wsgemm row, where the run has no cuBLAS row of its own
    for shape, per in results.items():
        if REFERENCE in per:
            continue
        timed = [r for r in per.values() if not r.error and r.cublas_tflops is not None]
        if timed:
            ref = Result({"suite": shape[0], "impl": REFERENCE, "variant": shape[1], "m": shape[2], "n": shape[3],
                          "k": shape[4], "batch": shape[5], "beta": shape[6]})
            ref.tflops = timed[0].cublas_tflops
            ref.host_us = timed[0].cublas_host_us
            ref.label = "timed in the rounds of " + timed[0].impl
            per[REFERENCE] = ref
    return report.get("context", {}), results


def shape_label(shape, with_suite=False):
    suite, variant, m, n, k, batch, beta = shape
    dims = f"{m}^3" if m == n == k else f"{m}x{n}x{k}"
    if batch > 1:
        dims = f"{batch}x {dims}"
    ops, _, types = variant.partition("_")
    extra = []
    if ops != "NN":
        extra.append(ops)
    if types != "bf16_bf16":
        extra.append(types.replace("_", "->"))
    if beta:
        extra.append(f"beta={beta}")
    text = dims + (" " + " ".join(extra) if extra else "")
    return f"{suite}: {text}" if with_suite else text


def ratio(r, shape_results):
    """Speed relative to cuBLAS on the same shape: the counter, else from TFLOP/s."""
    if r is None or r.error or r.tflops is None:
        return None
    if r.impl == REFERENCE:
        return 1.0
    if r.vs_cublas is not None:
        return r.vs_cublas
    ref = shape_results.get(REFERENCE)
    if ref and not ref.error and ref.tflops:
        return r.tflops / ref.tflops
    return None


# ---------------------------------------------------------------- table

def fmt(value, digits=None):
    if value is None:
        return "-"
    if digits is None:  # TFLOP/s: whole numbers, a decimal below 100 (decode shapes)
        digits = 0 if value >= 100 else 1
    return f"{value:.{digits}f}"


def shape_order(s):
    return (suite_key(s[0]), s[1], s[6], s[5], s[2], s[3], s[4])


def grid_summary(results):
    """One line on the heat-map suites: how many shapes, and the spread of wsgemm_auto's ratio."""
    lines = []
    for suite in sorted({s[0] for s in results if s[0] in HEATMAPS}, key=suite_key):
        ratios = [ratio(per.get("wsgemm_auto"), per) for s, per in results.items() if s[0] == suite]
        values = sorted(v for v in ratios if v is not None)
        if not values:
            continue
        wins = sum(1 for v in values if v >= 1.0)
        lines.append(f"- {suite}: {len(values)} shapes (of {len(ratios)}), wsgemm_auto/cuBLAS median "
                     f"{statistics.median(values):.3f}, min {values[0]:.3f}, max {values[-1]:.3f}, "
                     f">= 1.0 on {wins} ({100.0 * wins / len(values):.0f} %); per shape in grid.md and "
                     f"heatmap_{suite}.png")
    return lines


def table(context, results, peak):
    shown = {s: per for s, per in results.items() if s[0] not in HEATMAPS}
    impls = sorted({impl for per in shown.values() for impl in per}, key=impl_key)
    lines = []
    head = (["suite", "shape"] + [f"{i} TFLOP/s" for i in impls] +
            ["auto path", "auto/cuBLAS", "auto % peak", "auto host us", "cuBLAS host us"])
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "|".join(" --- " for _ in head) + "|")
    errors = []
    for shape in sorted(results, key=shape_order):
        per = results[shape]
        for impl, r in sorted(per.items()):
            if r.error:
                errors.append(f"{shape_label(shape, True)} {impl}: {r.error}")
        if shape not in shown:
            continue
        cells = [shape[0], shape_label(shape)]
        for impl in impls:
            r = per.get(impl)
            cells.append("-" if r is None else "ERROR" if r.error else fmt(r.tflops))
        auto = per.get("wsgemm_auto")
        ok = auto is not None and not auto.error and auto.tflops is not None
        ref = per.get(REFERENCE)
        cells.append(auto.label.replace("path=", "") if ok else "-")
        cells.append(fmt(ratio(auto, per), 3) if ok else "-")
        cells.append(fmt(100.0 * auto.tflops / peak, 1) if ok else "-")
        cells.append(fmt(auto.host_us, 1) if ok else "-")
        cells.append(fmt(ref.host_us, 1) if ref is not None and not ref.error else "-")
        lines.append("| " + " | ".join(cells) + " |")
    info = [f"GPU: {context.get('gpu', '?')} (cc {context.get('compute_capability', '?')}, "
            f"{context.get('sm_count', '?')} SMs); driver {context.get('driver', '?')}; "
            f"CUDA runtime {context.get('cuda_runtime', '?')}; cuBLAS {context.get('cublas_version', '?')}",
            f"date: {context.get('date', '?')}; command: {context.get('command', '?')}; "
            f"commit: {context.get('commit', '?')}",
            f"GPU time: TFLOP/s from the median of the rounds (the stream held while both libraries' calls are "
            f"queued, order alternating); % peak against {peak:g} TFLOP/s dense bf16; auto/cuBLAS > 1 means "
            f"faster than cuBLAS (same rounds); host us: wall-clock microseconds per call on the CPU."]
    text = "\n".join(info) + "\n\n" + "\n".join(lines) + "\n"
    summary = grid_summary(results)
    if summary:
        text += "\n" + "\n".join(summary) + "\n"
    if errors:
        text += "\nErrors (no time reported):\n" + "\n".join(f"- {e}" for e in errors) + "\n"
    return text


def grid_tables(results):
    """Per heat-map suite and k: wsgemm_auto's ratio to cuBLAS as an m x n table (markdown)."""
    out = []
    for suite in sorted({s[0] for s in results if s[0] in HEATMAPS}, key=suite_key):
        shapes = {s: per for s, per in results.items() if s[0] == suite}
        ms = sorted({s[2] for s in shapes})
        ns = sorted({s[3] for s in shapes})
        for k in sorted({s[4] for s in shapes}):
            at = {(s[2], s[3]): per for s, per in shapes.items() if s[4] == k}
            out.append(f"### {suite}: k = {k}, wsgemm_auto GPU time ratio to cuBLAS (rows m, columns n)\n")
            out.append("| m \\ n | " + " | ".join(str(n) for n in ns) + " |")
            out.append("|" + "|".join(" --- " for _ in range(len(ns) + 1)) + "|")
            for m in ms:
                cells = []
                for n in ns:
                    per = at.get((m, n))
                    auto = per.get("wsgemm_auto") if per else None
                    cells.append("ERROR" if auto is not None and auto.error else fmt(ratio(auto, per or {}), 2))
                out.append(f"| {m} | " + " | ".join(cells) + " |")
            out.append("")
    return "\n".join(out) + ("\n" if out else "")


# ---------------------------------------------------------------- plots

def plot_all(context, results, out_dir, peak):
    import matplotlib
    matplotlib.use("Agg")  # no display on the GPU machine
    import matplotlib.pyplot as plt

    written = []
    title_gpu = context.get("gpu", "")
    by_suite = {}
    for shape, per in results.items():
        by_suite.setdefault(shape[0], {})[shape] = per

    for suite in sorted(by_suite, key=suite_key):
        if suite in HEATMAPS:
            path = heatmap(plt, suite, by_suite[suite], out_dir, title_gpu)
            if path:
                written.append(path)
            continue
        shapes = by_suite[suite]
        impls = sorted({i for per in shapes.values() for i in per if not per[i].error and per[i].tflops is not None},
                       key=impl_key)
        if not impls:
            continue  # nothing but errors: nothing to draw
        if suite in SWEEPS:
            dim = SWEEPS[suite]
            index = {"m": 2, "n": 3, "k": 4}[dim]
            # one line per variant and per value of the other dimensions (decode: two (n, k) pairs)
            others = [i for i in (2, 3, 4) if i != index]
            variants = sorted({(s[1],) + tuple(s[i] for i in others) for s in shapes})
            panels = [("TFLOPS", "TFLOP/s")] + ([("gbps", "GB/s (minimum bytes)")] if suite == "decode" else [])
            fig, axes = plt.subplots(1, len(panels), figsize=(7.5 * len(panels), 5), squeeze=False)
            for ax, (key, ylabel) in zip(axes[0], panels):
                for variant in variants:
                    for impl in impls:
                        pts = sorted((s[index], getattr(per[impl], "tflops" if key == "TFLOPS" else "gbps"))
                                     for s, per in shapes.items()
                                     if (s[1],) + tuple(s[i] for i in others) == variant and impl in per
                                     and not per[impl].error and per[impl].tflops is not None
                                     and (key == "TFLOPS" or per[impl].gbps is not None))
                        if not pts:
                            continue
                        name = impl if len(variants) == 1 else (
                            f"{impl} " + " ".join(f"{'mnk'[i - 2]}={v}" for i, v in zip(others, variant[1:])))
                        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=name,
                                linewidth=2.2 if impl == "wsgemm_auto" else 1.3,
                                linestyle="--" if impl.startswith("cublas") else "-")
                if key == "TFLOPS" and suite == "square":
                    ax.axhline(peak, color="gray", linestyle=":", linewidth=1)
                    ax.text(ax.get_xlim()[0], peak, f" dense bf16 peak {peak:g}", va="bottom", fontsize=8,
                            color="gray")
                if key == "gbps":
                    ax.axhline(HBM_GBPS, color="gray", linestyle=":", linewidth=1)
                    ax.text(ax.get_xlim()[0], HBM_GBPS, f" HBM {HBM_GBPS:g} GB/s", va="bottom", fontsize=8,
                            color="gray")
                if suite == "decode":
                    ax.set_xscale("log", base=2)
                ax.set_xlabel(dim if suite == "decode" else "m = n = k")
                ax.set_ylabel(ylabel)
                ax.grid(True, alpha=0.3)
                ax.legend(fontsize=8)
            fig.suptitle(f"{suite}: TFLOP/s per implementation  {title_gpu}")
        else:
            ordered = sorted(shapes, key=shape_order)
            labels = [shape_label(s) for s in ordered]
            width = 0.8 / max(1, len(impls))
            fig, ax = plt.subplots(figsize=(max(7.5, 1.6 * len(ordered) + 3), 5))
            for j, impl in enumerate(impls):
                xs, ys = [], []
                for i, s in enumerate(ordered):
                    r = shapes[s].get(impl)
                    if r is not None and not r.error and r.tflops is not None:
                        xs.append(i + (j - (len(impls) - 1) / 2) * width)
                        ys.append(r.tflops)
                ax.bar(xs, ys, width, label=impl)
            ax.set_xticks(range(len(ordered)))
            ax.set_xticklabels(labels, rotation=20, ha="right", fontsize=8)
            ax.set_ylabel("TFLOP/s")
            ax.grid(True, axis="y", alpha=0.3)
            ax.legend(fontsize=8)
            ax.set_title(f"{suite}: TFLOP/s per implementation  {title_gpu}")
        fig.tight_layout()
        path = os.path.join(out_dir, f"tflops_{suite}.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)

    # Ratio to cuBLAS, every shape of every suite but the heat maps'.
    ordered = sorted((s for s in results if s[0] not in HEATMAPS), key=shape_order)
    impls = sorted({i for per in results.values() for i in per if i != REFERENCE}, key=impl_key)
    if ordered and impls:
        height = 0.8 / len(impls)
        fig, ax = plt.subplots(figsize=(9, max(4, 0.28 * len(ordered) * max(1, len(impls)) / 2 + 1.5)))
        for j, impl in enumerate(impls):
            ys, xs = [], []
            for i, s in enumerate(ordered):
                value = ratio(results[s].get(impl), results[s])
                if value is not None:
                    ys.append(i + (j - (len(impls) - 1) / 2) * height)
                    xs.append(value)
            ax.barh(ys, xs, height, label=impl)
        ax.axvline(1.0, color="black", linewidth=1)
        ax.set_yticks(range(len(ordered)))
        ax.set_yticklabels([shape_label(s, True) for s in ordered], fontsize=7)
        ax.invert_yaxis()
        ax.set_xlabel("speed relative to cuBLAS on the same shape (cuBLAS time / time; > 1 is faster)")
        ax.grid(True, axis="x", alpha=0.3)
        ax.legend(fontsize=8, loc="lower right")
        ax.set_title(f"ratio to cuBLAS  {title_gpu}")
        fig.tight_layout()
        path = os.path.join(out_dir, "ratio_to_cublas.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written


def heatmap(plt, suite, shapes, out_dir, title_gpu):
    """wsgemm_auto's GPU-time ratio to cuBLAS: one m x n panel per k, a diverging scale centred on 1."""
    import matplotlib.colors as mcolors
    ks = sorted({s[4] for s in shapes})
    ms = sorted({s[2] for s in shapes})
    ns = sorted({s[3] for s in shapes})
    cols = min(4, len(ks))
    rows = (len(ks) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols + 1.0, 3.9 * rows + 0.6), squeeze=False,
                             constrained_layout=True)
    norm = mcolors.TwoSlopeNorm(vmin=0.5, vcenter=1.0, vmax=1.5)
    image = None
    for ax, k in zip(axes.flat, ks):
        grid = [[float("nan")] * len(ns) for _ in ms]
        for s, per in shapes.items():
            if s[4] == k:
                value = ratio(per.get("wsgemm_auto"), per)
                if value is not None:
                    grid[ms.index(s[2])][ns.index(s[3])] = value
        image = ax.imshow(grid, cmap="RdBu", norm=norm, origin="lower", aspect="auto")
        for i in range(len(ms)):
            for j in range(len(ns)):
                if grid[i][j] == grid[i][j]:
                    ax.text(j, i, f"{grid[i][j]:.2f}", ha="center", va="center", fontsize=6)
        ax.set_xticks(range(len(ns)))
        ax.set_xticklabels(ns, rotation=45, fontsize=7)
        ax.set_yticks(range(len(ms)))
        ax.set_yticklabels(ms, fontsize=7)
        ax.set_xlabel("n", fontsize=8)
        ax.set_ylabel("m", fontsize=8)
        ax.set_title(f"k = {k}", fontsize=9)
    for ax in list(axes.flat)[len(ks):]:
        ax.axis("off")
    if image is None:
        plt.close(fig)
        return None
    fig.colorbar(image, ax=axes.ravel().tolist(), shrink=0.8, label="cuBLAS time / wsgemm time (> 1: faster)")
    fig.suptitle(f"{suite}: wsgemm_auto GPU-time ratio to cuBLAS  {title_gpu}")
    path = os.path.join(out_dir, f"heatmap_{suite}.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("json", help="wsgemm-bench --benchmark_out file")
    parser.add_argument("--out", default=".", help="folder for the PNGs and table.md")
    parser.add_argument("--peak", type=float, default=BF16_DENSE_PEAK_TFLOPS, help="TFLOP/s for '%% peak'")
    parser.add_argument("--quiet", action="store_true", help="do not print the table")
    args = parser.parse_args()

    context, results = load(args.json)
    if not results:
        print(f"plot.py: no wsgemm-bench results in {args.json}", file=sys.stderr)
        return 1
    os.makedirs(args.out, exist_ok=True)
    text = table(context, results, args.peak)
    with open(os.path.join(args.out, "table.md"), "w") as f:
        f.write(text)
    grids = grid_tables(results)
    if grids:
        with open(os.path.join(args.out, "grid.md"), "w") as f:
            f.write(grids)
    try:
        written = plot_all(context, results, args.out, args.peak)
    except ImportError as e:
        written = []
        print(f"plot.py: no PNGs ({e}); the table is in {os.path.join(args.out, 'table.md')}", file=sys.stderr)
    if not args.quiet:
        print(text)
    for path in written:
        print(f"plot.py: wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
