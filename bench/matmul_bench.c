// SPDX-License-Identifier: MIT
/*
 * matmul_bench.c - wsgemm-matmul-bench: wsgemm_matmul side by side with cublasLtMatmul (matmul_run.c says
 * what is timed and how).
 *
 *   wsgemm-matmul-bench [--reps 20] [--path auto|generic|sm90]        the cuBLASLt suite below
 *   wsgemm-matmul-bench --suite deepseek [--reps R] [--path P]          block-scaled FP8 on DeepSeek-V3's shapes
 *   wsgemm-matmul-bench --m M --n N --k K [--ta T] [--tb N] [--a e4m3] [--b e4m3] [--c bf16] [--d bf16]
 *                       [--epilogue none|relu|bias|relu_bias|gelu|gelu_bias|gelu_aux|gelu_aux_bias]
 *                       [--bias bf16] [--scales 0|1|2] [--reps R] [--path P]                 one problem
 *
 * The suite: FP8 E4M3 at 8192^3 and 4096 x 14336 x 4096 with bf16 D (A transposed, B not: cuBLASLt's FP8
 * layout), and at 8192^3 with an E4M3 D (d_scale, amax_d), beside cuBLASLt's default and fast accumulation; bias+GELU
 * at 8192^3 in bf16, beside cuBLASLt's fused GELU_BIAS and beside cuBLASLt's GEMM followed by a separate bias+GELU
 * kernel; bias+GELU at an MLP's
 * up projection (14336 x 4096 x 4096) and 4096^3, bias+ReLU with a short K, GELU with its aux output. Prints
 * one table (ms: median GPU time of one call; ratio: TFLOP/s over cuBLASLt's). --scales: 0 none, 1 per-tensor
 * (all 1), 2 DeepSeek-V3's block scales (A VEC128_32F, B BLK128x128_32F; matmul_run.h). The deepseek suite: E4M3
 * A and B, bf16 D, those block scales, m = 64, 128 and 4096 tokens on each of the projections n x k = 2112 x 7168,
 * 24576 x 1536, 32768 x 512, 7168 x 16384, 4096 x 7168, 7168 x 2048, beside cuBLASLt's block-scaled kernel and
 * wsgemm's per-tensor call on the same data. Without a GPU it says so on
 * stderr and exits 0.
 * Exit 1 when a check or a call failed, 2 on bad arguments (bench/cli.h).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "matmul_run.h"
#include "testing.h"

#define BF WSGEMM_R_16BF
#define E4 WSGEMM_R_8F_E4M3

static const matmul_problem kSuite[] = {
    {"fp8 e4m3 8192^3", WSGEMM_OP_T, WSGEMM_OP_N, 8192, 8192, 8192, E4, E4, BF, BF, WSGEMM_MATMUL_EPILOGUE_DEFAULT, BF,
     1},
    {"fp8 e4m3 4096x14336x4096", WSGEMM_OP_T, WSGEMM_OP_N, 4096, 14336, 4096, E4, E4, BF, BF,
     WSGEMM_MATMUL_EPILOGUE_DEFAULT, BF, 1},
    /* an FP8 result for the next FP8 layer: E4M3 D with its d_scale and amax_d */
    {"fp8 e4m3 8192^3 e4m3 D", WSGEMM_OP_T, WSGEMM_OP_N, 8192, 8192, 8192, E4, E4, BF, E4,
     WSGEMM_MATMUL_EPILOGUE_DEFAULT, BF, 1},
    {"bf16 bias+gelu 8192^3", WSGEMM_OP_T, WSGEMM_OP_N, 8192, 8192, 8192, BF, BF, BF, BF,
     WSGEMM_MATMUL_EPILOGUE_GELU_BIAS, BF, 0},
    /* an MLP's up projection (14336 features, 4096 tokens) and smaller or plainer neighbours */
    {"bf16 bias+gelu 14336x4096x4096", WSGEMM_OP_T, WSGEMM_OP_N, 14336, 4096, 4096, BF, BF, BF, BF,
     WSGEMM_MATMUL_EPILOGUE_GELU_BIAS, BF, 0},
    {"bf16 bias+gelu 4096^3", WSGEMM_OP_T, WSGEMM_OP_N, 4096, 4096, 4096, BF, BF, BF, BF,
     WSGEMM_MATMUL_EPILOGUE_GELU_BIAS, BF, 0},
    {"bf16 bias+relu 8192x8192x2048", WSGEMM_OP_T, WSGEMM_OP_N, 8192, 8192, 2048, BF, BF, BF, BF,
     WSGEMM_MATMUL_EPILOGUE_RELU_BIAS, BF, 0},
    {"bf16 gelu+aux+bias 8192^3", WSGEMM_OP_T, WSGEMM_OP_N, 8192, 8192, 8192, BF, BF, BF, BF,
     WSGEMM_MATMUL_EPILOGUE_GELU_AUX_BIAS, BF, 0},
};

/* DeepSeek-V3's projections (n x k) at three token counts (m), block-scaled. */
static const int kDeepSeekTokens[] = {64, 128, 4096};
static const int kDeepSeekNK[][2] = {{2112, 7168},  {24576, 1536}, {32768, 512},
                                     {7168, 16384}, {4096, 7168},  {7168, 2048}};
enum { DEEPSEEK_PROBLEMS = 18 };
_Static_assert(DEEPSEEK_PROBLEMS ==
                   sizeof kDeepSeekTokens / sizeof kDeepSeekTokens[0] * (sizeof kDeepSeekNK / sizeof kDeepSeekNK[0]),
               "one problem per token count and projection");

static size_t deepseek_suite(matmul_problem *out, char (*names)[40])
{
    size_t n = 0;
    for (size_t t = 0; t < sizeof kDeepSeekTokens / sizeof kDeepSeekTokens[0]; ++t)
        for (size_t j = 0; j < sizeof kDeepSeekNK / sizeof kDeepSeekNK[0]; ++j, ++n) {
            snprintf(names[n], sizeof names[n], "ds %dx%dx%d", kDeepSeekTokens[t], kDeepSeekNK[j][0],
                     kDeepSeekNK[j][1]);
            out[n] = (matmul_problem){names[n],
                                      WSGEMM_OP_T,
                                      WSGEMM_OP_N,
                                      kDeepSeekTokens[t],
                                      kDeepSeekNK[j][0],
                                      kDeepSeekNK[j][1],
                                      E4,
                                      E4,
                                      BF,
                                      BF,
                                      WSGEMM_MATMUL_EPILOGUE_DEFAULT,
                                      BF,
                                      MATMUL_SCALES_BLOCK};
        }
    return n;
}

static const char kProg[] = "wsgemm-matmul-bench";

static void usage(void)
{
    printf("usage: %s [--reps R] [--path P] [--suite default|deepseek] [--m M --n N --k K [--ta N|T] [--tb N|T] "
           "[--a T] [--b T] [--c T] [--d T] [--epilogue E] [--bias T] [--scales 0|1|2]]\n"
           "       %s --help\n"
           "wsgemm_matmul beside cublasLtMatmul: the built-in suite, or one problem. Exit 0: every check passed (or\n"
           "no CUDA device: nothing run); 1: a check or a call failed; 2: bad arguments.\n",
           kProg, kProg);
}

static wsgemm_dtype dtype_arg(const char *flag, const char *v)
{
    int t = matmul_dtype_parse(v);
    if (t < 0) cli_fail(kProg, "%s: unknown type '%s'", flag, v);
    return (wsgemm_dtype)t;
}

static wsgemm_op op_arg(const char *flag, const char *v)
{
    if (!strcmp(v, "N") || !strcmp(v, "n")) return WSGEMM_OP_N;
    if (!strcmp(v, "T") || !strcmp(v, "t")) return WSGEMM_OP_T;
    cli_fail(kProg, "%s: '%s' is not N or T", flag, v);
}

int main(int argc, char **argv)
{
    matmul_problem one = {
        "problem", WSGEMM_OP_T, WSGEMM_OP_N, 0, 0, 0, BF, BF, BF, BF, WSGEMM_MATMUL_EPILOGUE_DEFAULT, BF, 0};
    wsgemm_path path = WSGEMM_PATH_AUTO;
    int reps = 20, single = 0, deepseek = 0;
    if (cli_wants_help(argc, argv)) {
        usage();
        return 0;
    }
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *v = cli_value(kProg, argc, argv, &i);
        if (!strcmp(a, "--reps"))
            reps = cli_int(kProg, a, v, 1, INT_MAX);
        else if (!strcmp(a, "--path")) {
            int found = 0;
            for (int p = WSGEMM_PATH_AUTO; p <= WSGEMM_PATH_SM100_EMULATED; ++p)
                if (!strcmp(v, wsgemm_path_name((wsgemm_path)p))) path = (wsgemm_path)p, found = 1;
            if (!found) cli_fail(kProg, "--path: unknown path '%s'", v);
        } else if (!strcmp(a, "--m"))
            one.m = cli_int(kProg, a, v, 1, INT_MAX), single = 1;
        else if (!strcmp(a, "--n"))
            one.n = cli_int(kProg, a, v, 1, INT_MAX), single = 1;
        else if (!strcmp(a, "--k"))
            one.k = cli_int(kProg, a, v, 1, INT_MAX), single = 1;
        else if (!strcmp(a, "--ta"))
            one.ta = op_arg(a, v);
        else if (!strcmp(a, "--tb"))
            one.tb = op_arg(a, v);
        else if (!strcmp(a, "--a"))
            one.a = dtype_arg(a, v);
        else if (!strcmp(a, "--b"))
            one.b = dtype_arg(a, v);
        else if (!strcmp(a, "--c"))
            one.c = dtype_arg(a, v);
        else if (!strcmp(a, "--d"))
            one.d = dtype_arg(a, v);
        else if (!strcmp(a, "--bias"))
            one.bias_type = dtype_arg(a, v);
        else if (!strcmp(a, "--scales"))
            one.scales = cli_int(kProg, a, v, 0, 2);
        else if (!strcmp(a, "--suite")) {
            if (strcmp(v, "default") && strcmp(v, "deepseek")) cli_fail(kProg, "--suite: unknown suite '%s'", v);
            deepseek = !strcmp(v, "deepseek");
        } else if (!strcmp(a, "--epilogue")) {
            one.epilogue = matmul_epilogue_parse(v);
            if (!one.epilogue) cli_fail(kProg, "--epilogue: unknown epilogue '%s'", v);
        } else
            cli_fail(kProg, "unknown flag '%s'", a);
    }
    if (single && (!one.m || !one.n || !one.k)) cli_fail(kProg, "one problem needs all of --m, --n and --k");
    if (testing_gpu_count() == 0) return cli_no_gpu(kProg, "nothing to run");
    matmul_problem ds[DEEPSEEK_PROBLEMS];
    char ds_names[DEEPSEEK_PROBLEMS][40];
    const matmul_problem *problems = single ? &one : deepseek ? ds : kSuite;
    const size_t count = single ? 1 : deepseek ? deepseek_suite(ds, ds_names) : sizeof kSuite / sizeof kSuite[0];
    printf("%-22s %-16s %-8s %10s %9s %8s\n", "problem", "library", "path", "ms", "TFLOP/s", "ratio");
    int failed = 0;
    for (size_t i = 0; i < count; ++i) {
        matmul_result r;
        const int rc = matmul_run(&problems[i], path, reps, &r);
        matmul_print(&problems[i], &r);
        failed |= rc != 0 || !r.checked || !r.check_passed;
    }
    return failed;
}
