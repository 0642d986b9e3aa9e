// SPDX-License-Identifier: MIT
/*
 * self_check_helper.c - wsgemm-sm100-selfcheck, the program the library starts before AUTO first uses the
 * sm100 path on a GPU (gemm/sm100/self_check.h). It runs in its own process and CUDA context, so a trap or a
 * hang of the kernel under test cannot touch the caller's.
 *
 *   wsgemm-sm100-selfcheck --device N [--path sm100|sm100-emulated] [--uuid GPU-...]
 *
 * It forces the path on device N (the uuid, when given, must be that device's), runs the cases below
 * through the public API and compares every element of C, padding rows included, with a reference it
 * computes on the CPU. The cases (gemm/sm100/self_check_cases.h) reach every kind of plan the sm100 planner
 * can choose, which the CPU test self_check_coverage_test checks. The kernel it runs is the one the library
 * ships: this program links the library's own objects (CMakeLists.txt; the test self_check_same_kernels
 * compares their code), so the verdict is about the code AUTO then runs. A hang is caught by the caller's
 * timeout, which kills this program's process group.
 *
 * Exact by construction: inputs (A, B, the C that beta reads, a bias) are multiples of 1/4 in [-1, 1] drawn
 * at random (exact in bf16, f16, E4M3 and E5M2), alpha and beta are multiples of 1/4, operand scales 1/2 and
 * 2, so every product, partial sum (|sum| <= k <= 900, steps of 1/16: 14 bits) and alpha * acc + beta * c
 * + bias is exact in fp32 in any order; the only rounding is the final conversion to C's type,
 * round-to-nearest-even on both sides (an E4M3 D saturated to +-448, which these sums never reach). C is
 * compared bit for bit, and C poisoned with NaN (beta == 0: the kernel must not read it) never passes. The
 * GEMM cases go through wsgemm_gemm_ex (a batch through wsgemm_gemm_strided_batched_ex); the matmul cases
 * through wsgemm_matmul, with FP8 operands (tcgen05.mma kind::f8f6f4) or 16-bit ones, with or without scales
 * and bias + ReLU (the kernel's fused output op): the calls AUTO gives the sm100 path once this check passed.
 *
 * It ignores every WSGEMM_* variable of its environment (the tuning knobs: a verdict is about the GPU, not
 * one configuration), but for the emulation's verification switches with --path sm100-emulated; it sets the
 * cta_group, grid and split knobs of each case itself.
 *
 * Output: one line per case, then exactly one result line, "wsgemm-self-check: pass ..." (exit 0),
 * "wsgemm-self-check: fail ..." (exit 1: wrong C, a CUDA error such as a trap, the path declining a problem
 * it must run) or "wsgemm-self-check: error ..." (exit 2: it could not check: arguments, no such device,
 * another GPU, the path absent from this build or not for this GPU, out of memory).
 */
#define _GNU_SOURCE /* prctl */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __linux__
#include <signal.h>
#include <sys/prctl.h>
#endif

#include <cuda_runtime_api.h>

#include "common/device.h"
#include "common/knobs.h"
#include "internal.h"
#include "sm100/self_check.h"
#include "sm100/self_check_cases.h"
#include "sm100/sm100_probe.h"
#include "wsgemm.h"

/* The cases (each run once with each cta_group): gemm/sm100/self_check_cases.h, which the coverage test
 * tests/selfcheck/self_check_coverage_test.c holds to every kind of plan the sm100 planner can choose. */
static void result_line(const char *verdict, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void result_line(const char *verdict, const char *fmt, ...)
{
    char text[WSGEMM_SELF_CHECK_TEXT_BYTES];
    va_list args;
    va_start(args, fmt);
    vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    printf("%s%s %s\n", WSGEMM_SELF_CHECK_RESULT_PREFIX, verdict, text);
    fflush(stdout);
}

/* ---------------------------------------------------------------- exact values and conversions */

static uint64_t next_random(uint64_t *state) /* splitmix64 */
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static float quarter_in_unit(uint64_t *state) /* one of -1, -3/4, ..., 1 */
{
    return (float)((int)(next_random(state) % 9u) - 4) * 0.25f;
}

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float f32_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Round to nearest even, as __float2bfloat16_rn does (no NaN reaches it here). */
static uint16_t bf16_from_f32(float f)
{
    const uint32_t u = f32_bits(f);
    return (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

/* Round to nearest even, as __float2half_rn does, subnormals and overflow included (no NaN reaches it). */
static uint16_t f16_from_f32(float f)
{
    const uint32_t u = f32_bits(f), sign = (u >> 16) & 0x8000u, mant = u & 0x7FFFFFu;
    const int exp = (int)((u >> 23) & 0xFFu) - 127 + 15;
    if ((u & 0x7FFFFFFFu) == 0) return (uint16_t)sign;
    if (exp >= 31) return (uint16_t)(sign | 0x7C00u);
    uint32_t h, rem, half;
    if (exp <= 0) { /* subnormal: value = (mant | 2^23) * 2^(exp - 14) units of 2^-24 */
        if (exp < -10) return (uint16_t)sign;
        const int shift = 14 - exp;
        const uint32_t m = mant | 0x800000u;
        h = m >> shift;
        rem = m & ((1u << shift) - 1u);
        half = 1u << (shift - 1);
    } else {
        h = ((uint32_t)exp << 10) | (mant >> 13);
        rem = mant & 0x1FFFu;
        half = 0x1000u;
    }
    if (rem > half || (rem == half && (h & 1u))) ++h; /* a carry into the exponent is right */
    return (uint16_t)(sign | h);
}

static float f32_from_f16(uint16_t h)
{
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1Fu, mant = h & 0x3FFu;
    if (exp == 0) return (sign ? -1.0f : 1.0f) * ldexpf((float)mant, -24);
    if (exp == 31) return f32_from_bits(sign | 0x7F800000u | (mant << 13));
    return f32_from_bits(sign | ((exp - 15 + 127) << 23) | (mant << 13));
}

/* An FP8 value (E4M3: 3 mantissa bits, exponent bias 7; E5M2: 2 and 15) of a multiple of 1/4 in [-1, 1], all
 * of which are normal numbers or 0 in both formats, and back. */
static uint8_t fp8_from_quarter(float v, int mant_bits, int bias)
{
    if (v == 0.0f) return 0;
    int e;
    const float m = frexpf(fabsf(v), &e); /* |v| = m 2^e, m in [1/2, 1) */
    const uint32_t frac = (uint32_t)((2.0f * m - 1.0f) * (float)(1 << mant_bits));
    return (uint8_t)((v < 0.0f ? 0x80u : 0u) | ((uint32_t)(e - 1 + bias) << mant_bits) | frac);
}

static float fp8_value(uint8_t b, int mant_bits, int bias)
{
    const int exp = (b & 0x7F) >> mant_bits;
    const float v =
        exp == 0 ? 0.0f : ldexpf(1.0f + (float)(b & ((1 << mant_bits) - 1)) / (float)(1 << mant_bits), exp - bias);
    return b & 0x80 ? -v : v;
}

/* Any float to E4M3 as __nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E4M3) does (no NaN reaches it): the
 * nearest of the finite codes, ties to the even code, beyond +-448 saturated. */
static float e4m3_code_value(int code) /* code 0..126, subnormals included */
{
    const int exp = code >> 3, mant = code & 7;
    return exp == 0 ? ldexpf((float)mant / 8.0f, -6) : ldexpf(1.0f + (float)mant / 8.0f, exp - 7);
}

static uint8_t e4m3_from_f32(float v)
{
    const float a = fabsf(v);
    int best = 0;
    for (int code = 1; code <= 126; ++code) {
        const float d = fabsf(e4m3_code_value(code) - a), db = fabsf(e4m3_code_value(best) - a);
        if (d < db || (d == db && (code & 1) == 0)) best = code;
    }
    return (uint8_t)((v < 0.0f ? 0x80 : 0) | best);
}

static const char *dtype_name(wsgemm_dtype t)
{
    return t == WSGEMM_R_32F       ? "f32"
           : t == WSGEMM_R_16F     ? "f16"
           : t == WSGEMM_R_8F_E4M3 ? "e4m3"
           : t == WSGEMM_R_8F_E5M2 ? "e5m2"
                                   : "bf16";
}

/* Element i of a host buffer of type t, as bits (8, 16 or 32) and as a float. */
static uint32_t element_bits(const void *buf, wsgemm_dtype t, size_t i)
{
    if (t == WSGEMM_R_32F) return ((const uint32_t *)buf)[i];
    if (wsgemm_dtype_size(t) == 1) return ((const uint8_t *)buf)[i];
    return ((const uint16_t *)buf)[i];
}

static float element_value(const void *buf, wsgemm_dtype t, size_t i)
{
    const uint32_t b = element_bits(buf, t, i);
    if (t == WSGEMM_R_32F) return f32_from_bits(b);
    if (t == WSGEMM_R_8F_E4M3)
        return (b & 0x7F) == 0x7F ? NAN : (b & 0x80 ? -1.0f : 1.0f) * e4m3_code_value((int)(b & 0x7F));
    if (t == WSGEMM_R_8F_E5M2) return fp8_value((uint8_t)b, 2, 15);
    return t == WSGEMM_R_16BF ? f32_from_bits(b << 16) : f32_from_f16((uint16_t)b);
}

/* v in type t (FP8: v a multiple of 1/4 in [-1, 1]). */
static uint32_t bits_of(float v, wsgemm_dtype t)
{
    if (t == WSGEMM_R_32F) return f32_bits(v);
    if (t == WSGEMM_R_8F_E4M3) return e4m3_from_f32(v);
    if (t == WSGEMM_R_8F_E5M2) return fp8_from_quarter(v, 2, 15);
    return t == WSGEMM_R_16BF ? bf16_from_f32(v) : f16_from_f32(v);
}

static void store_bits(void *buf, wsgemm_dtype t, size_t i, uint32_t b)
{
    if (t == WSGEMM_R_32F)
        ((uint32_t *)buf)[i] = b;
    else if (wsgemm_dtype_size(t) == 1)
        ((uint8_t *)buf)[i] = (uint8_t)b;
    else
        ((uint16_t *)buf)[i] = (uint16_t)b;
}

/* ---------------------------------------------------------------- one case */

typedef enum { CASE_OK = 0, CASE_WRONG, CASE_CUDA, CASE_CANNOT } case_result;

static void describe(const self_check_case *c, int cg, char *dst, size_t size)
{
    snprintf(dst, size, "cta_group %d %s %c%c %dx%dx%d %s.%s->%s alpha %g beta %g ctas %s batch %d split-K %d%s%s", cg,
             c->call == SELF_CHECK_FUSED    ? "matmul (scales, bias+relu)"
             : c->call == SELF_CHECK_MATMUL ? "matmul"
                                            : "gemm",
             c->ta == WSGEMM_OP_N ? 'N' : 'T', c->tb == WSGEMM_OP_N ? 'N' : 'T', c->m, c->n, c->k, dtype_name(c->a),
             dtype_name(c->b), dtype_name(c->c), (double)c->alpha, (double)c->beta, c->ctas ? "2" : "default", c->batch,
             c->splits, c->splits ? "" : " (planned)", c->lda_odd ? " odd lda (staged A)" : "");
}

/* The launcher's knobs this case sets (the coverage test plans it with the same): cta_group, grid, split-K.
 * The knobs are read again. */
static void set_env_int(const char *name, int v)
{
    char text[16];
    snprintf(text, sizeof text, "%d", v);
    if (v > 0)
        setenv(name, text, 1);
    else
        unsetenv(name);
}

static void set_launch_knobs(const self_check_case *c, int cg)
{
    set_env_int("WSGEMM_SM100_CTA_GROUP", cg);
    set_env_int("WSGEMM_SM100_CTAS", c->ctas);
    set_env_int("WSGEMM_SM100_SPLITK", c->splits);
    wsgemm_knobs_reload();
}

static case_result run_case(wsgemm_handle h, wsgemm_path path, const self_check_case *c, int cg, uint64_t first_state,
                            char *why, size_t why_size)
{
    const int ea = wsgemm_dtype_size(c->a), eb = wsgemm_dtype_size(c->b), ec = wsgemm_dtype_size(c->c);
    const self_check_layout l = self_check_case_layout(c, ea, eb);
    const int lda = l.lda, ldb = l.ldb, ldc = l.ldc, batch = c->batch > 1 ? c->batch : 1;
    const size_t na = l.na, nb = l.nb, nc = l.nc;
    const int matmul = c->call != SELF_CHECK_GEMM, fused = c->call == SELF_CHECK_FUSED;
    const int c_in_place = c->c != WSGEMM_R_8F_E4M3; /* an E4M3 D: beta is 0 and C (bf16) is not read */
    void *hA = calloc(na, (size_t)ea), *hB = calloc(nb, (size_t)eb), *hC0 = malloc(nc * (size_t)ec),
         *hC = malloc(nc * (size_t)ec);
    float *hBias = malloc((size_t)c->m * sizeof *hBias);
    void *dA = NULL, *dB = NULL, *dC = NULL;
    float *dBias = NULL, *dScales = NULL;
    case_result res = CASE_OK;
    if (!hA || !hB || !hC0 || !hC || !hBias || cudaMalloc(&dA, na * (size_t)ea) != cudaSuccess ||
        cudaMalloc(&dB, nb * (size_t)eb) != cudaSuccess || cudaMalloc(&dC, nc * (size_t)ec) != cudaSuccess ||
        cudaMalloc((void **)&dBias, (size_t)c->m * sizeof *dBias) != cudaSuccess ||
        cudaMalloc((void **)&dScales, 2 * sizeof *dScales) != cudaSuccess) {
        snprintf(why, why_size, "out of memory");
        res = CASE_CANNOT;
        goto done;
    }
    uint64_t state = first_state; /* the case's own random stream */
    for (size_t i = 0; i < na; ++i) store_bits(hA, c->a, i, bits_of(quarter_in_unit(&state), c->a));
    for (size_t i = 0; i < nb; ++i) store_bits(hB, c->b, i, bits_of(quarter_in_unit(&state), c->b));
    for (int i = 0; i < c->m; ++i) hBias[i] = quarter_in_unit(&state);
    if (c->beta != 0.0f)
        for (size_t i = 0; i < nc; ++i) store_bits(hC0, c->c, i, bits_of(quarter_in_unit(&state), c->c));
    else
        memset(hC0, 0xFF, nc * (size_t)ec); /* NaN in every type: C must not be read */
    const float scales[2] = {0.5f, 2.0f};   /* a_scale, b_scale of the fused cases */
    if (cudaMemcpy(dA, hA, na * (size_t)ea, cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMemcpy(dB, hB, nb * (size_t)eb, cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMemcpy(dC, hC0, nc * (size_t)ec, cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMemcpy(dBias, hBias, (size_t)c->m * sizeof *dBias, cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMemcpy(dScales, scales, sizeof scales, cudaMemcpyHostToDevice) != cudaSuccess) {
        snprintf(why, why_size, "copy to the device: %s", cudaGetErrorString(cudaGetLastError()));
        res = CASE_CUDA;
        goto done;
    }

    set_launch_knobs(c, cg);
    wsgemm_status s = wsgemm_set_path(h, path);
    if (s == WSGEMM_STATUS_SUCCESS && matmul) {
        wsgemm_matmul_desc d;
        wsgemm_matmul_desc_init(&d, c->ta, c->tb, c->a, c->c);
        d.Btype = c->b;
        d.Ctype = self_check_case_c_in_type(c);
        if (fused) {
            d.epilogue = WSGEMM_MATMUL_EPILOGUE_RELU_BIAS;
            d.bias = dBias;
            d.bias_type = WSGEMM_R_32F;
            d.a_scale = dScales;
            d.b_scale = dScales + 1;
        }
        s = wsgemm_matmul(h, &d, c->m, c->n, c->k, &c->alpha, dA, lda, dB, ldb, &c->beta, c_in_place ? dC : NULL, ldc,
                          dC, ldc);
    } else if (s == WSGEMM_STATUS_SUCCESS && batch > 1) {
        s = wsgemm_gemm_strided_batched_ex(h, c->ta, c->tb, c->m, c->n, c->k, &c->alpha, dA, c->a, lda, l.stride_a, dB,
                                           c->b, ldb, l.stride_b, &c->beta, dC, c->c, ldc, l.stride_c, batch);
    } else if (s == WSGEMM_STATUS_SUCCESS) {
        s = wsgemm_gemm_ex(h, c->ta, c->tb, c->m, c->n, c->k, &c->alpha, dA, c->a, lda, dB, c->b, ldb, &c->beta, dC,
                           c->c, ldc);
    }
    if (s != WSGEMM_STATUS_SUCCESS) {
        snprintf(why, why_size, "%s: %s", wsgemm_status_string(s), wsgemm_get_last_error_message(h));
        res = s == WSGEMM_STATUS_ARCH_MISMATCH || s == WSGEMM_STATUS_ALLOC_FAILED ? CASE_CANNOT
              : s == WSGEMM_STATUS_CUDA_ERROR                                     ? CASE_CUDA
                                                                                  : CASE_WRONG;
        goto done;
    }
    cudaError_t err = cudaDeviceSynchronize();
    if (err == cudaSuccess) err = cudaMemcpy(hC, dC, nc * (size_t)ec, cudaMemcpyDeviceToHost);
    if (err != cudaSuccess) {
        char checker[256] = "";
        if (path == WSGEMM_PATH_SM100_EMULATED && wsgemm_sm100_emulated_checker_error(checker, sizeof checker) <= 0)
            checker[0] = '\0';
        snprintf(why, why_size, "CUDA error after the kernel: %s (%s)%s%s", cudaGetErrorName(err),
                 cudaGetErrorString(err), checker[0] ? "; TMEM emulation checker: " : "", checker);
        res = CASE_CUDA;
        goto done;
    }

    /* A and B as floats once: the reference's inner loop is plain fp32 */
    float *fa = malloc(na * sizeof *fa), *fb = malloc(nb * sizeof *fb);
    if (!fa || !fb) {
        free(fa);
        free(fb);
        snprintf(why, why_size, "out of host memory");
        res = CASE_CANNOT;
        goto done;
    }
    for (size_t i = 0; i < na; ++i) fa[i] = element_value(hA, c->a, i);
    for (size_t i = 0; i < nb; ++i) fb[i] = element_value(hB, c->b, i);
    long long wrong = 0;
    for (int bi = 0; bi < batch; ++bi) {
        const float *ma = fa + (size_t)bi * (size_t)l.stride_a, *mb = fb + (size_t)bi * (size_t)l.stride_b;
        for (int j = 0; j < c->n; ++j) {
            for (int i = 0; i < ldc; ++i) {
                const size_t idx = (size_t)bi * (size_t)l.stride_c + (size_t)j * ldc + i;
                uint32_t want = element_bits(hC0, c->c, idx); /* padding rows: untouched */
                if (i < c->m) {
                    float acc = 0.0f; /* exact: see the header */
                    for (int kk = 0; kk < c->k; ++kk) {
                        const size_t ai = c->ta == WSGEMM_OP_N ? (size_t)kk * lda + i : (size_t)i * lda + kk;
                        const size_t bj = c->tb == WSGEMM_OP_N ? (size_t)j * ldb + kk : (size_t)kk * ldb + j;
                        acc += ma[ai] * mb[bj];
                    }
                    const float c0 = c->beta != 0.0f ? element_value(hC0, c->c, idx) : 0.0f;
                    float x = c->alpha * (fused ? scales[0] * scales[1] : 1.0f) * acc + c->beta * c0;
                    if (fused) x = fmaxf(x + hBias[i], 0.0f); /* bias, then ReLU */
                    want = bits_of(x, c->c);
                }
                const uint32_t got = element_bits(hC, c->c, idx);
                if (got != want && wrong++ == 0)
                    snprintf(why, why_size, "C(%d,%d) of matrix %d = %g (bits 0x%x), expected %g (bits 0x%x)%s", i, j,
                             bi, (double)element_value(hC, c->c, idx), got, (double)element_value(&want, c->c, 0), want,
                             i >= c->m ? " (a padding row past m)" : "");
            }
        }
    }
    free(fa);
    free(fb);
    if (wrong) {
        const size_t used = strlen(why);
        snprintf(why + used, why_size - used, "; %lld of %lld elements wrong", wrong, (long long)nc);
        res = CASE_WRONG;
    }
done:
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
    cudaFree(dBias);
    cudaFree(dScales);
    free(hBias);
    free(hA);
    free(hB);
    free(hC0);
    free(hC);
    return res;
}

/* ---------------------------------------------------------------- main */

extern char **environ;

/* A verdict is about the GPU, never about one configuration: every WSGEMM_* variable is dropped (the library
 * starts this program without them; self_check.h), but for the emulation's verification switches on the
 * emulated path. Each one dropped is named in the output. */
static void drop_knobs(const char *path_name)
{
    for (int dropped = 0; dropped < 4096; ++dropped) { /* bounded: a name unsetenv cannot remove stops it */
        char name[256] = "";
        for (char **e = environ; *e; ++e) {
            if (wsgemm_self_check_keeps_variable(*e, path_name)) continue;
            const size_t n = strcspn(*e, "=");
            snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), *e);
            printf("%s: ignoring %s (a verdict is about the GPU, not one configuration)\n",
                   WSGEMM_SELF_CHECK_HELPER_NAME, *e);
            break;
        }
        if (name[0] == '\0' || unsetenv(name) != 0) break;
    }
    wsgemm_knobs_reload();
}

static int usage(void)
{
    result_line("error",
                "usage: " WSGEMM_SELF_CHECK_HELPER_NAME " --device N [--path sm100|sm100-emulated] [--uuid GPU-...]");
    return WSGEMM_SELF_CHECK_EXIT_CANNOT;
}

int main(int argc, char **argv)
{
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* the library that started it is gone: nobody waits for the verdict */
#endif
    int device = -1;
    const char *path_name = "sm100", *uuid = NULL;
    for (int i = 1; i < argc; ++i) {
        if (i + 1 >= argc) return usage();
        if (strcmp(argv[i], "--device") == 0)
            device = atoi(argv[++i]);
        else if (strcmp(argv[i], "--path") == 0)
            path_name = argv[++i];
        else if (strcmp(argv[i], "--uuid") == 0)
            uuid = argv[++i];
        else
            return usage();
    }
    wsgemm_path path;
    if (strcmp(path_name, wsgemm_path_name(WSGEMM_PATH_SM100)) == 0)
        path = WSGEMM_PATH_SM100;
    else if (strcmp(path_name, wsgemm_path_name(WSGEMM_PATH_SM100_EMULATED)) == 0)
        path = WSGEMM_PATH_SM100_EMULATED;
    else
        return usage();
    if (device < 0) return usage();
    drop_knobs(path_name);

    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || device >= count) {
        result_line("error", "no device %d (%s)", device, err != cudaSuccess ? cudaGetErrorString(err) : "not there");
        return WSGEMM_SELF_CHECK_EXIT_CANNOT;
    }
    struct cudaDeviceProp prop;
    if ((err = cudaSetDevice(device)) != cudaSuccess || (err = cudaGetDeviceProperties(&prop, device)) != cudaSuccess ||
        (err = cudaFree(NULL)) != cudaSuccess) { /* cudaFree(NULL): the context, now (exclusive-process GPUs say no) */
        result_line("error", "device %d: %s", device, cudaGetErrorString(err));
        return WSGEMM_SELF_CHECK_EXIT_CANNOT;
    }
    char own[48];
    wsgemm_gpu_uuid_text(prop.uuid.bytes, own, sizeof own);
    if (uuid && strcmp(uuid, own) != 0) {
        result_line("error", "device %d is %s, not %s", device, own, uuid);
        return WSGEMM_SELF_CHECK_EXIT_CANNOT;
    }
    printf("%s: path %s on device %d (%s, cc %d.%d, %s)\n", WSGEMM_SELF_CHECK_HELPER_NAME, path_name, device, prop.name,
           prop.major, prop.minor, own);

    wsgemm_handle h;
    if (wsgemm_create(&h) != WSGEMM_STATUS_SUCCESS) {
        result_line("error", "wsgemm_create failed");
        return WSGEMM_SELF_CHECK_EXIT_CANNOT;
    }
    int done = 0;
    for (int i = 0; i < kSelfCheckCaseCount; ++i) {
        for (int cg = 1; cg <= 2; ++cg) {
            char what[256], why[WSGEMM_SELF_CHECK_TEXT_BYTES] = "";
            describe(&kSelfCheckCases[i], cg, what, sizeof what);
            struct timespec t0, t1;
            clock_gettime(CLOCK_MONOTONIC, &t0);
            const case_result r =
                run_case(h, path, &kSelfCheckCases[i], cg, 1000u + 10u * (unsigned)i + (unsigned)cg, why, sizeof why);
            clock_gettime(CLOCK_MONOTONIC, &t1);
            const double ms = 1e3 * (double)(t1.tv_sec - t0.tv_sec) + 1e-6 * (double)(t1.tv_nsec - t0.tv_nsec);
            printf("case %d/%d: %s: %s (%.0f ms)\n", ++done, 2 * kSelfCheckCaseCount, what, r == CASE_OK ? "ok" : why,
                   ms);
            fflush(stdout);
            if (r == CASE_CANNOT) {
                result_line("error", "%s: %s", what, why);
                return WSGEMM_SELF_CHECK_EXIT_CANNOT; /* no wsgemm_destroy: the process ends */
            }
            if (r != CASE_OK) {
                result_line("fail", "%s on device %d (%s): %s: %s", path_name, device, own, what, why);
                return WSGEMM_SELF_CHECK_EXIT_FAIL;
            }
        }
    }
    wsgemm_destroy(h);
    result_line("pass",
                "%s on device %d (%s, %s): %d cases: cta_group 1 and 2 x every kind of plan (16-bit and FP8, "
                "every C and D type, per-element, TMA and staged epilogues, the fused op, split-K, batch, both "
                "majors, staged operands), m/n/k off the tile grid, several tiles per CTA, bit-exact",
                path_name, device, prop.name, own, done);
    return WSGEMM_SELF_CHECK_EXIT_PASS;
}
