// SPDX-License-Identifier: MIT
/*
 * testing.c - shared test support: see testing.h. Host C11 + OpenMP.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "testing.h"

#include <math.h>
#include <string.h>
#include <time.h>

#include <cublas_v2.h>

/* ---------------------------------------------------------------- devices */

int testing_run_handle_case(int argc, char **argv, const testing_handle_case *cases, size_t ncases, const int *failures)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s <case>\n", argv[0]);
        return 2;
    }
    for (size_t i = 0; i < ncases; ++i) {
        if (strcmp(argv[1], cases[i].name) != 0) continue;
        wsgemm_handle h = NULL;
        WSGEMM_CHECK(wsgemm_create(&h));
        printf("case %s\n", cases[i].name);
        cases[i].run(h);
        wsgemm_destroy(h);
        printf("%s: %s\n", cases[i].name, *failures ? "FAILED" : "passed");
        return *failures ? 1 : 0;
    }
    fprintf(stderr, "unknown case %s\n", argv[1]);
    return 2;
}

int testing_gpu_count(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return count;
}

void testing_require_gpu(const char *test_name)
{
    if (testing_gpu_count() == 0) {
        printf("SKIPPED: no CUDA device (%s needs a GPU)\n", test_name);
        exit(WSGEMM_TEST_SKIP);
    }
}

int testing_device_cc(void)
{
    int dev = 0, major = 0, minor = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) return 0;
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
    return major * 10 + minor;
}

/* ---------------------------------------------------------------- random numbers (splitmix64) */

testing_rng testing_rng_seeded(uint64_t seed)
{
    testing_rng r = {seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull};
    return r;
}

uint64_t testing_rng_next(testing_rng *r)
{
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

float testing_rng_uniform(testing_rng *r)
{
    /* 24 random bits -> [0, 1] -> [-1, 1] */
    double u = (double)(testing_rng_next(r) >> 40) / (double)((1u << 24) - 1);
    return (float)(2.0 * u - 1.0);
}

/* ---------------------------------------------------------------- 16-bit floats */

static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float bits_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

uint16_t testing_float_to_bf16(float f)
{
    uint32_t u = float_bits(f);
    if ((u & 0x7F800000u) == 0x7F800000u && (u & 0x007FFFFFu)) return (uint16_t)((u >> 16) | 0x0040u); /* quiet NaN */
    uint32_t rounding = 0x7FFFu + ((u >> 16) & 1u); /* round to nearest, ties to even */
    return (uint16_t)((u + rounding) >> 16);
}

float testing_bf16_to_float(uint16_t h)
{
    return bits_float((uint32_t)h << 16);
}

uint16_t testing_float_to_half(float f)
{
    uint32_t u = float_bits(f);
    uint32_t sign = (u >> 16) & 0x8000u;
    uint32_t exp = (u >> 23) & 0xFFu;
    uint32_t mant = u & 0x007FFFFFu;
    if (exp == 0xFFu) return (uint16_t)(sign | 0x7C00u | (mant ? 0x0200u : 0u)); /* inf or quiet NaN */
    int e = (int)exp - 127 + 15;
    if (e >= 31) return (uint16_t)(sign | 0x7C00u); /* overflow to inf */
    if (e <= 0) {                                   /* subnormal half (or zero) */
        if (e < -10) return (uint16_t)sign;
        mant |= 0x00800000u;
        uint32_t shift = (uint32_t)(14 - e);
        uint32_t half_mant = mant >> shift;
        uint32_t rest = mant & ((1u << shift) - 1u);
        uint32_t halfway = 1u << (shift - 1);
        if (rest > halfway || (rest == halfway && (half_mant & 1u))) half_mant++;
        return (uint16_t)(sign | half_mant);
    }
    uint32_t half = sign | ((uint32_t)e << 10) | (mant >> 13);
    uint32_t rest = mant & 0x1FFFu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) half++; /* may carry into the exponent: correct */
    return (uint16_t)half;
}

float testing_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1Fu;
    uint32_t mant = h & 0x3FFu;
    if (exp == 0x1Fu) return bits_float(sign | 0x7F800000u | (mant << 13));
    if (exp == 0) {
        if (mant == 0) return bits_float(sign);
        float f = (float)mant * (1.0f / 16777216.0f); /* 2^-24 */
        return sign ? -f : f;
    }
    return bits_float(sign | ((exp - 15 + 127) << 23) | (mant << 13));
}

float testing_fp8_to_float(uint8_t v, wsgemm_dtype format)
{
    if (format == WSGEMM_R_8F_E5M2) return testing_half_to_float((uint16_t)(v << 8)); /* the top byte of a half */
    const float sign = (v & 0x80u) ? -1.0f : 1.0f;
    const int exp = (v >> 3) & 0xF, mant = v & 0x7;
    if (exp == 0xF && mant == 0x7) return NAN;                 /* E4M3's only NaN; it has no infinities */
    if (exp == 0) return sign * (float)mant * (1.0f / 512.0f); /* subnormal: mant * 2^-9 */
    return sign * ldexpf(1.0f + (float)mant / 8.0f, exp - 7);
}

uint8_t testing_float_to_fp8(float f, wsgemm_dtype format)
{
    if (isnan(f)) return 0x7Fu; /* a NaN in both formats */
    /* the positive codes' values, increasing with the code up to the largest finite one */
    static _Thread_local float values[2][128];
    static _Thread_local int ready[2];
    const int e5 = format == WSGEMM_R_8F_E5M2;
    const int max_code = e5 ? 0x7B : 0x7E;
    if (!ready[e5]) {
        for (int code = 0; code <= max_code; ++code) values[e5][code] = testing_fp8_to_float((uint8_t)code, format);
        ready[e5] = 1;
    }
    const uint8_t sign = signbit(f) ? 0x80u : 0x00u;
    const float a = fabsf(f);
    /* the nearest code, ties to the even one; beyond the largest finite value saturated to it (as
     * __NV_SATFINITE does) */
    int lo = 0, hi = max_code;
    while (hi - lo > 1) { /* values[lo] <= a < values[hi], or a at or beyond the ends */
        const int mid = (lo + hi) / 2;
        if (values[e5][mid] <= a)
            lo = mid;
        else
            hi = mid;
    }
    if (a >= values[e5][hi]) return (uint8_t)(sign | hi);
    const float dl = a - values[e5][lo], dh = values[e5][hi] - a;
    const int best = dl < dh ? lo : dh < dl ? hi : ((lo & 1) == 0 ? lo : hi);
    return (uint8_t)(sign | best);
}

float testing_load(wsgemm_dtype dtype, const void *base, size_t i)
{
    switch (dtype) {
    case WSGEMM_R_16BF: return testing_bf16_to_float(((const uint16_t *)base)[i]);
    case WSGEMM_R_16F: return testing_half_to_float(((const uint16_t *)base)[i]);
    case WSGEMM_R_8F_E4M3:
    case WSGEMM_R_8F_E5M2: return testing_fp8_to_float(((const uint8_t *)base)[i], dtype);
    default: return ((const float *)base)[i];
    }
}

void testing_store(wsgemm_dtype dtype, void *base, size_t i, float f)
{
    switch (dtype) {
    case WSGEMM_R_16BF: ((uint16_t *)base)[i] = testing_float_to_bf16(f); break;
    case WSGEMM_R_16F: ((uint16_t *)base)[i] = testing_float_to_half(f); break;
    case WSGEMM_R_8F_E4M3:
    case WSGEMM_R_8F_E5M2: ((uint8_t *)base)[i] = testing_float_to_fp8(f, dtype); break;
    default: ((float *)base)[i] = f; break;
    }
}

int testing_file_has(const char *path, const char *needle)
{
    char buf[4096] = "";
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    const size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return strstr(buf, needle) != NULL;
}

const char *testing_dtype_name(wsgemm_dtype t)
{
    switch (t) {
    case WSGEMM_R_16BF: return "bf16";
    case WSGEMM_R_16F: return "f16";
    case WSGEMM_R_32F: return "f32";
    case WSGEMM_R_8F_E4M3: return "e4m3";
    case WSGEMM_R_8F_E5M2: return "e5m2";
    }
    return "?";
}

int testing_dtype_bytes(wsgemm_dtype t)
{
    return t == WSGEMM_R_32F ? 4 : t == WSGEMM_R_8F_E4M3 || t == WSGEMM_R_8F_E5M2 ? 1 : 2;
}

/* ---------------------------------------------------------------- problem geometry */

static int rows_a(const testing_gemm *g)
{
    return g->transa == WSGEMM_OP_N ? g->m : g->k;
}
static int cols_a(const testing_gemm *g)
{
    return g->transa == WSGEMM_OP_N ? g->k : g->m;
}
static int rows_b(const testing_gemm *g)
{
    return g->transb == WSGEMM_OP_N ? g->k : g->n;
}
static int cols_b(const testing_gemm *g)
{
    return g->transb == WSGEMM_OP_N ? g->n : g->k;
}
static int at_least_1(int x)
{
    return x > 1 ? x : 1;
}

testing_gemm testing_gemm_make(wsgemm_op ta, wsgemm_op tb, int m, int n, int k)
{
    testing_gemm g;
    memset(&g, 0, sizeof g); /* leading dimensions 0 (tight), offset 0 */
    g.transa = ta;
    g.transb = tb;
    g.m = m;
    g.n = n;
    g.k = k;
    g.strideA = g.strideB = g.strideC = -1; /* tight */
    g.batch = 1;
    g.alpha = 1.0f;
    g.beta = 0.0f;
    g.ab_type = WSGEMM_R_16BF;
    g.c_type = WSGEMM_R_16BF;
    return g;
}

void testing_gemm_resolve(testing_gemm *g)
{
    if (g->batch <= 0) g->batch = 1;
    if (g->lda <= 0) g->lda = at_least_1(rows_a(g));
    if (g->ldb <= 0) g->ldb = at_least_1(rows_b(g));
    if (g->ldc <= 0) g->ldc = at_least_1(g->m);
    if (g->strideA < 0) g->strideA = (long long)g->lda * cols_a(g);
    if (g->strideB < 0) g->strideB = (long long)g->ldb * cols_b(g);
    if (g->strideC < 0) g->strideC = (long long)g->ldc * g->n;
}

static size_t operand_elems(long long stride, int batch, int ld, int cols)
{
    return (size_t)stride * (size_t)(batch - 1) + (size_t)ld * (size_t)cols + 8; /* +8: room for a misaligned base */
}

size_t testing_gemm_elems_a(const testing_gemm *g)
{
    return operand_elems(g->strideA, g->batch, g->lda, cols_a(g));
}
size_t testing_gemm_elems_b(const testing_gemm *g)
{
    return operand_elems(g->strideB, g->batch, g->ldb, cols_b(g));
}
size_t testing_gemm_elems_c(const testing_gemm *g)
{
    return operand_elems(g->strideC, g->batch, g->ldc, g->n);
}

void testing_gemm_describe(const testing_gemm *g, char *buf, size_t size)
{
    snprintf(buf, size,
             "%c%c m=%d n=%d k=%d lda=%d ldb=%d ldc=%d batch=%d strideA=%lld strideB=%lld strideC=%lld "
             "alpha=%g beta=%g %s->%s offset=%d",
             g->transa == WSGEMM_OP_N ? 'N' : 'T', g->transb == WSGEMM_OP_N ? 'N' : 'T', g->m, g->n, g->k, g->lda,
             g->ldb, g->ldc, g->batch, g->strideA, g->strideB, g->strideC, (double)g->alpha, (double)g->beta,
             testing_dtype_name(g->ab_type), testing_dtype_name(g->c_type), g->offset);
}

/* ---------------------------------------------------------------- host reference */

/* op(A)(i, kk) of batch b, as stored column-major. */
static size_t index_a(const testing_gemm *g, int b, int i, int kk)
{
    size_t base = (size_t)g->offset + (size_t)b * (size_t)g->strideA;
    return g->transa == WSGEMM_OP_N ? base + (size_t)i + (size_t)kk * g->lda : base + (size_t)kk + (size_t)i * g->lda;
}

static size_t index_b(const testing_gemm *g, int b, int kk, int j)
{
    size_t base = (size_t)g->offset + (size_t)b * (size_t)g->strideB;
    return g->transb == WSGEMM_OP_N ? base + (size_t)kk + (size_t)j * g->ldb : base + (size_t)j + (size_t)kk * g->ldb;
}

static size_t index_c(const testing_gemm *g, int b, int i, int j)
{
    return (size_t)g->offset + (size_t)b * (size_t)g->strideC + (size_t)i + (size_t)j * g->ldc;
}

void testing_reference_host(const testing_gemm *g, const void *A, const void *B, const void *C0, double *ref)
{
    const int m = g->m, n = g->n, k = g->k;
    long long columns = (long long)g->batch * n;
#pragma omp parallel
    {
        double *arow = malloc(sizeof(double) * (size_t)(k > 0 ? k : 1) * (size_t)(m > 0 ? m : 1));
        double *bcol = malloc(sizeof(double) * (size_t)(k > 0 ? k : 1));
        int cached_batch = -1;
#pragma omp for schedule(static)
        for (long long col = 0; col < columns; ++col) {
            int b = (int)(col / n), j = (int)(col % n);
            if (b != cached_batch) { /* op(A) of this batch, row-major so the k loop is contiguous */
                for (int i = 0; i < m; ++i)
                    for (int kk = 0; kk < k; ++kk)
                        arow[(size_t)i * k + kk] = testing_load(g->ab_type, A, index_a(g, b, i, kk));
                cached_batch = b;
            }
            for (int kk = 0; kk < k; ++kk) bcol[kk] = testing_load(g->ab_type, B, index_b(g, b, kk, j));
            for (int i = 0; i < m; ++i) {
                double acc = 0.0;
                const double *a = arow + (size_t)i * k;
                for (int kk = 0; kk < k; ++kk) acc += a[kk] * bcol[kk];
                double out = (double)g->alpha * acc;
                if (g->beta != 0.0f) out += (double)g->beta * testing_load(g->c_type, C0, index_c(g, b, i, j));
                ref[(size_t)b * m * n + (size_t)i + (size_t)j * m] = out;
            }
        }
        free(arow);
        free(bcol);
    }
}

/* ---------------------------------------------------------------- checker */

testing_tolerance testing_tolerance_for(wsgemm_dtype c_type)
{
    /* Output rounding is at most half a unit in the last place; the reference
     * is fp32 or fp64, so one ulp of the output type (2^-7 bf16, 2^-10 f16)
     * bounds the relative error with margin. atol, relative to the RMS of the
     * reference, absorbs accumulation-order noise near zero. */
    testing_tolerance t;
    switch (c_type) {
    case WSGEMM_R_16BF:
        t.rtol = 1.0 / 128;
        t.atol_rel_rms = 1.0 / 512;
        t.max_rel_fro = 6e-3;
        break;
    case WSGEMM_R_16F:
        t.rtol = 1.0 / 1024;
        t.atol_rel_rms = 1.0 / 4096;
        t.max_rel_fro = 1e-3;
        break;
    default:
        t.rtol = 1.0 / 65536;
        t.atol_rel_rms = 1.0 / 65536;
        t.max_rel_fro = 1e-4;
        break;
    }
    return t;
}

testing_report testing_check(const testing_gemm *g, const void *got, const void *before, const double *ref,
                             testing_tolerance tol, const char *label)
{
    testing_report r = {0};
    const int m = g->m, n = g->n;
    size_t total = (size_t)g->batch * m * n;
    double ref_sq = 0.0;
    for (size_t i = 0; i < total; ++i) ref_sq += ref[i] * ref[i];
    double rms = total ? sqrt(ref_sq / (double)total) : 0.0;
    double atol = tol.atol_rel_rms * (rms > 0 ? rms : 1.0);

    size_t elems_c = testing_gemm_elems_c(g);
    unsigned char *in_matrix = calloc(elems_c, 1);
    double err_sq = 0.0;
    int printed = 0;
    char shape[256];
    testing_gemm_describe(g, shape, sizeof shape);
    for (int b = 0; b < g->batch; ++b) {
        for (int j = 0; j < n; ++j) {
            for (int i = 0; i < m; ++i) {
                size_t ci = index_c(g, b, i, j);
                in_matrix[ci] = 1;
                double out = testing_load(g->c_type, got, ci);
                double want = ref[(size_t)b * m * n + (size_t)i + (size_t)j * m];
                double err = fabs(out - want);
                int bad = !(err <= atol + tol.rtol * fabs(want)); /* NaN compares false: never passes */
                if (isnan(out)) r.nan_count++;
                if (!isnan(err)) {
                    err_sq += err * err;
                    if (err > r.max_abs_err) r.max_abs_err = err;
                }
                if (bad) {
                    r.mismatches++;
                    if (printed < 8) {
                        fprintf(stderr,
                                "  mismatch [%s] %s: batch %d C(%d,%d) = %.7g, reference %.7g, |err| %.3g > %.3g\n",
                                label, shape, b, i, j, out, want, err, atol + tol.rtol * fabs(want));
                        printed++;
                    }
                }
                r.checked++;
            }
        }
    }
    /* Every element outside the matrices must be bit-identical to before. */
    size_t bytes = (size_t)testing_dtype_bytes(g->c_type);
    for (size_t i = 0; i < elems_c; ++i)
        if (!in_matrix[i] && memcmp((const char *)got + i * bytes, (const char *)before + i * bytes, bytes) != 0)
            r.padding_touched++;
    free(in_matrix);
    r.rel_fro = ref_sq > 0 ? sqrt(err_sq / ref_sq) : sqrt(err_sq);
    if (r.nan_count) r.rel_fro = NAN;
    r.passed = r.mismatches == 0 && r.nan_count == 0 && r.padding_touched == 0 && r.rel_fro <= tol.max_rel_fro;
    if (r.padding_touched)
        fprintf(stderr, "  [%s] %s: %zu elements outside the C matrices were written\n", label, shape,
                r.padding_touched);
    if (!r.passed && r.mismatches == 0 && r.padding_touched == 0)
        fprintf(stderr, "  [%s] %s: relative Frobenius error %.3g above %.3g\n", label, shape, r.rel_fro,
                tol.max_rel_fro);
    return r;
}

/* ---------------------------------------------------------------- device buffers */

static void fill_uniform(wsgemm_dtype t, void *host, size_t count, uint64_t seed)
{
    testing_rng rng = testing_rng_seeded(seed);
    for (size_t i = 0; i < count; ++i) testing_store(t, host, i, testing_rng_uniform(&rng));
}

static void fill_nan(wsgemm_dtype t, void *host, size_t count)
{
    if (t == WSGEMM_R_32F)
        for (size_t i = 0; i < count; ++i) ((uint32_t *)host)[i] = 0x7FC00000u;
    else
        for (size_t i = 0; i < count; ++i) ((uint16_t *)host)[i] = 0x7FFFu; /* NaN in bf16 and in f16 */
}

void testing_buffers_create(const testing_gemm *g, uint64_t seed, testing_buffers *b)
{
    memset(b, 0, sizeof *b);
    b->elems_a = testing_gemm_elems_a(g);
    b->elems_b = testing_gemm_elems_b(g);
    b->elems_c = testing_gemm_elems_c(g);
    size_t ab = (size_t)testing_dtype_bytes(g->ab_type), cb = (size_t)testing_dtype_bytes(g->c_type);
    b->hA = malloc(b->elems_a * ab);
    b->hB = malloc(b->elems_b * ab);
    b->hC0 = malloc(b->elems_c * cb);
    if (!b->hA || !b->hB || !b->hC0) {
        fprintf(stderr, "testing_buffers_create: out of host memory\n");
        exit(1);
    }
    fill_uniform(g->ab_type, b->hA, b->elems_a, seed * 3 + 1);
    fill_uniform(g->ab_type, b->hB, b->elems_b, seed * 3 + 2);
    if (g->beta != 0.0f)
        fill_uniform(g->c_type, b->hC0, b->elems_c, seed * 3 + 3);
    else
        fill_nan(g->c_type, b->hC0, b->elems_c); /* beta == 0 must not read C: NaN would leak */
    CUDA_CHECK(cudaMalloc(&b->A, b->elems_a * ab));
    CUDA_CHECK(cudaMalloc(&b->B, b->elems_b * ab));
    CUDA_CHECK(cudaMalloc(&b->C, b->elems_c * cb));
    CUDA_CHECK(cudaMemcpy(b->A, b->hA, b->elems_a * ab, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(b->B, b->hB, b->elems_b * ab, cudaMemcpyHostToDevice));
    testing_buffers_repoison(g, b);
}

void testing_buffers_repoison(const testing_gemm *g, testing_buffers *b)
{
    CUDA_CHECK(cudaMemcpy(b->C, b->hC0, b->elems_c * (size_t)testing_dtype_bytes(g->c_type), cudaMemcpyHostToDevice));
}

void testing_buffers_destroy(testing_buffers *b)
{
    cudaFree(b->A);
    cudaFree(b->B);
    cudaFree(b->C);
    free(b->hA);
    free(b->hB);
    free(b->hC0);
    memset(b, 0, sizeof *b);
}

/* ---------------------------------------------------------------- cuBLAS harness */

static cublasHandle_t cublas_handle(void)
{
    static cublasHandle_t handle;
    if (!handle) CUBLAS_CHECK(cublasCreate(&handle));
    return handle;
}

static cudaDataType_t cuda_type(wsgemm_dtype t)
{
    return (cudaDataType_t)t; /* the enum values are CUDA's */
}

/* The operand pointers a call hands over: the buffers plus the case's offset. */
static const void *shifted(const void *base, int offset, wsgemm_dtype t)
{
    return (const char *)base + (size_t)offset * (size_t)testing_dtype_bytes(t);
}

void testing_reference_cublas(const testing_gemm *g, const testing_buffers *b, double *ref)
{
    const int m = g->m, n = g->n;
    size_t total = (size_t)g->batch * m * n;
    float *hc = malloc(total * sizeof(float));
    for (int bt = 0; bt < g->batch; ++bt)
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < m; ++i)
                hc[(size_t)bt * m * n + i + (size_t)j * m] =
                    g->beta != 0.0f ? testing_load(g->c_type, b->hC0, index_c(g, bt, i, j)) : 0.0f;
    float *dc = NULL;
    CUDA_CHECK(cudaMalloc((void **)&dc, total * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(dc, hc, total * sizeof(float), cudaMemcpyHostToDevice));
    CUBLAS_CHECK(cublasGemmStridedBatchedEx(
        cublas_handle(), (cublasOperation_t)g->transa, (cublasOperation_t)g->transb, m, n, g->k, &g->alpha,
        shifted(b->A, g->offset, g->ab_type), cuda_type(g->ab_type), g->lda, g->strideA,
        shifted(b->B, g->offset, g->ab_type), cuda_type(g->ab_type), g->ldb, g->strideB, &g->beta, dc, CUDA_R_32F, m,
        (long long)m * n, g->batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(hc, dc, total * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < total; ++i) ref[i] = hc[i];
    cudaFree(dc);
    free(hc);
}

wsgemm_status testing_run_wsgemm(wsgemm_handle h, const testing_gemm *g, const testing_buffers *b)
{
    const void *A = shifted(b->A, g->offset, g->ab_type), *B = shifted(b->B, g->offset, g->ab_type);
    void *C = (void *)shifted(b->C, g->offset, g->c_type);
    if (g->batch == 1)
        return wsgemm_gemm_ex(h, g->transa, g->transb, g->m, g->n, g->k, &g->alpha, A, g->ab_type, g->lda, B,
                              g->ab_type, g->ldb, &g->beta, C, g->c_type, g->ldc);
    return wsgemm_gemm_strided_batched_ex(h, g->transa, g->transb, g->m, g->n, g->k, &g->alpha, A, g->ab_type, g->lda,
                                          g->strideA, B, g->ab_type, g->ldb, g->strideB, &g->beta, C, g->c_type, g->ldc,
                                          g->strideC, g->batch);
}

int testing_case_against_cublas(wsgemm_handle h, const testing_gemm *g_in, wsgemm_path expected_path, uint64_t seed,
                                int verbose)
{
    testing_gemm g = *g_in;
    testing_gemm_resolve(&g);
    char shape[256];
    testing_gemm_describe(&g, shape, sizeof shape);

    testing_buffers b;
    testing_buffers_create(&g, seed, &b);
    size_t total = (size_t)g.batch * g.m * g.n;
    double *ref = malloc((total ? total : 1) * sizeof(double));
    testing_reference_cublas(&g, &b, ref);

    size_t c_bytes = b.elems_c * (size_t)testing_dtype_bytes(g.c_type);
    void *got = malloc(c_bytes), *again = malloc(c_bytes);
    int ok = 1;
    wsgemm_status s = testing_run_wsgemm(h, &g, &b);
    cudaError_t err = cudaDeviceSynchronize();
    wsgemm_path ran = WSGEMM_PATH_NONE;
    wsgemm_get_last_path(h, &ran);
    if (s != WSGEMM_STATUS_SUCCESS || err != cudaSuccess) {
        fprintf(stderr, "FAIL %s: status %s (%s), cuda %s\n", shape, wsgemm_status_string(s),
                wsgemm_get_last_error_message(h), cudaGetErrorString(err));
        ok = 0;
    } else if (expected_path != WSGEMM_PATH_AUTO && ran != expected_path) {
        fprintf(stderr, "FAIL %s: path %s ran, expected %s\n", shape, wsgemm_path_name(ran),
                wsgemm_path_name(expected_path));
        ok = 0;
    }
    testing_report r = {0};
    if (ok) {
        CUDA_CHECK(cudaMemcpy(got, b.C, c_bytes, cudaMemcpyDeviceToHost));
        r = testing_check(&g, got, b.hC0, ref, testing_tolerance_for(g.c_type), wsgemm_path_name(ran));
        ok = r.passed;
        /* Same inputs, same bits: a second run must reproduce the first exactly. */
        testing_buffers_repoison(&g, &b);
        s = testing_run_wsgemm(h, &g, &b);
        CUDA_CHECK(cudaDeviceSynchronize());
        CUDA_CHECK(cudaMemcpy(again, b.C, c_bytes, cudaMemcpyDeviceToHost));
        if (s != WSGEMM_STATUS_SUCCESS || memcmp(got, again, c_bytes) != 0) {
            fprintf(stderr, "FAIL %s: a second run did not reproduce the first bit for bit\n", shape);
            ok = 0;
        }
    }
    if (verbose || !ok)
        printf("%s path=%-14s %s rel_fro=%.2e max_abs=%.2e checked=%zu\n", ok ? "PASS" : "FAIL", wsgemm_path_name(ran),
               shape, r.rel_fro, r.max_abs_err, r.checked);
    free(got);
    free(again);
    free(ref);
    testing_buffers_destroy(&b);
    return ok;
}

/* ---------------------------------------------------------------- timing */

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double testing_quantile(double *v, int n, double q)
{
    if (n <= 0) return 0.0;
    qsort(v, (size_t)n, sizeof *v, compare_doubles);
    if (q == 0.5 && n % 2 == 0) return 0.5 * (v[n / 2 - 1] + v[n / 2]);
    int at = (int)(q * (n - 1) + 0.5);
    return v[at < 0 ? 0 : at >= n ? n - 1 : at];
}

double testing_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

/* cudaEventQuery's "not ready" is an answer, not an error: keep it out of cudaGetLastError. */
static int event_still_pending(cudaEvent_t e)
{
    cudaError_t q = cudaEventQuery(e);
    if (q == cudaErrorNotReady) {
        if (cudaPeekAtLastError() == cudaErrorNotReady) cudaGetLastError();
        return 1;
    }
    CUDA_CHECK(q);
    return 0;
}

int testing_time_interleaved(const testing_timed_lib *libs, int nlibs, cudaStream_t stream,
                             const testing_timing_options *opt, testing_timing *out)
{
    memset(out, 0, sizeof *out);
    if (nlibs < 1 || nlibs > TESTING_MAX_TIMED_LIBS || opt->rounds < 1) return -1;
    const int rounds = opt->rounds;
    double spin_us = opt->spin_us > 0 ? opt->spin_us : 200.0;
    int i = 0; /* every call of every library */
    for (int w = 0; w < opt->warmup; ++w)
        for (int j = 0; j < nlibs; ++j)
            if (libs[j].call(libs[j].ctx, i++) != 0) return -1;
    CUDA_CHECK(cudaStreamSynchronize(stream));

    cudaEvent_t start[TESTING_MAX_TIMED_LIBS], stop[TESTING_MAX_TIMED_LIBS], spin_end;
    for (int j = 0; j < nlibs; ++j) {
        CUDA_CHECK(cudaEventCreate(&start[j]));
        CUDA_CHECK(cudaEventCreate(&stop[j]));
    }
    CUDA_CHECK(cudaEventCreate(&spin_end));
    double *gpu = malloc(sizeof(double) * (size_t)rounds * (size_t)nlibs);
    double *host = malloc(sizeof(double) * (size_t)(opt->host_reps > 0 ? opt->host_reps : 1));
    int failed = 0;
    for (int r = 0; r < rounds && !failed; ++r) {
        CUDA_CHECK(testing_spin(stream, spin_us));
        CUDA_CHECK(cudaEventRecord(spin_end, stream));
        for (int q = 0; q < nlibs && !failed; ++q) {
            const int j = (q + r) % nlibs; /* A B, B A, ...: neither library always goes first */
            CUDA_CHECK(cudaEventRecord(start[j], stream));
            if (libs[j].call(libs[j].ctx, i++) != 0) failed = 1;
            CUDA_CHECK(cudaEventRecord(stop[j], stream));
        }
        const int held = event_still_pending(spin_end);
        CUDA_CHECK(cudaStreamSynchronize(stream));
        for (int j = 0; j < nlibs && !failed; ++j) {
            float ms = 0.0f;
            CUDA_CHECK(cudaEventElapsedTime(&ms, start[j], stop[j]));
            gpu[(size_t)j * rounds + r] = ms;
        }
        out->rounds = r + 1;
        out->spin_us = spin_us;
        if (held)
            out->held_rounds++;
        else if (spin_us < 20000.0)
            spin_us *= 2.0; /* the host took longer than the hold: hold longer */
    }
    if (opt->round_ms && !failed) memcpy(opt->round_ms, gpu, sizeof(double) * (size_t)rounds * (size_t)nlibs);
    for (int j = 0; j < nlibs && !failed; ++j) {
        double *v = gpu + (size_t)j * rounds;
        out->lib[j].gpu_ms_p10 = testing_quantile(v, rounds, 0.1);
        out->lib[j].gpu_ms_p90 = testing_quantile(v, rounds, 0.9);
        out->lib[j].gpu_ms = testing_quantile(v, rounds, 0.5);
        /* host time: the GPU is held busy (long enough for every call to be queued), so no call waits */
        if (opt->host_reps <= 0) continue;
        CUDA_CHECK(testing_spin(stream, 50.0 * opt->host_reps + 200.0));
        for (int h = 0; h < opt->host_reps && !failed; ++h) {
            const double t0 = testing_now_us();
            if (libs[j].call(libs[j].ctx, i++) != 0) failed = 1;
            host[h] = testing_now_us() - t0;
        }
        CUDA_CHECK(cudaStreamSynchronize(stream));
        if (!failed) out->lib[j].host_us = testing_quantile(host, opt->host_reps, 0.5);
    }
    CUDA_CHECK(cudaGetLastError());
    for (int j = 0; j < nlibs; ++j) {
        CUDA_CHECK(cudaEventDestroy(start[j]));
        CUDA_CHECK(cudaEventDestroy(stop[j]));
    }
    CUDA_CHECK(cudaEventDestroy(spin_end));
    free(gpu);
    free(host);
    return failed ? -1 : 0;
}
