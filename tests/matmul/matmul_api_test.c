// SPDX-License-Identifier: MIT
/*
 * matmul_api_test.c - the argument checks of wsgemm_matmul, one ctest entry per case (argv[1] names it).
 *
 * CPU cases: every invalid call must return its status, name the offending argument in the message and
 * leave D, aux and amax_d untouched (host buffers full of a sentinel pattern: the checks come before any
 * CUDA call, so they are never dereferenced). Valid calls reach the device lookup; the case "no_device"
 * hides the GPUs (CUDA_VISIBLE_DEVICES="") and expects NO_DEVICE from calls that pass every check.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testing.h"

enum { ELEMS = 64 * 64 };

typedef struct call {
    wsgemm_handle h;
    wsgemm_matmul_desc d;
    int null_desc; /* pass desc = NULL */
    int m, n, k;
    const float *alpha, *beta;
    const void *A, *B, *C;
    void *D;
    int lda, ldb, ldc, ldd;
} call;

static float one = 1.0f, zero = 0.0f;
static float host_a[ELEMS], host_b[ELEMS], host_c[ELEMS], host_bias[64], host_scale[4];
static float host_scale_a[ELEMS], host_scale_b[ELEMS]; /* scale tensors (any mode's fits a 64 x 64 x 64 call) */
static uint32_t host_d[ELEMS], host_aux[ELEMS], host_amax;

static uint32_t sentinel(int i)
{
    return 0xA5A5A5A5u ^ (uint32_t)i;
}

static void fill_sentinel(void)
{
    for (int i = 0; i < ELEMS; ++i) host_d[i] = host_aux[i] = sentinel(i);
    host_amax = sentinel(-1);
}

static int outputs_untouched(void)
{
    for (int i = 0; i < ELEMS; ++i)
        if (host_d[i] != sentinel(i) || host_aux[i] != sentinel(i)) return 0;
    return host_amax == sentinel(-1);
}

/* A valid 64 x 64 x 64 bf16 matmul with bias+GELU, an aux output, all four scales and amax (host memory:
 * CPU cases never get past the checks with it). */
static call valid_call(wsgemm_handle h)
{
    call c = {.h = h,
              .m = 64,
              .n = 64,
              .k = 64,
              .alpha = &one,
              .beta = &one,
              .A = host_a,
              .B = host_b,
              .C = host_c,
              .D = host_d,
              .lda = 64,
              .ldb = 64,
              .ldc = 64,
              .ldd = 64};
    wsgemm_matmul_desc_init(&c.d, WSGEMM_OP_N, WSGEMM_OP_N, WSGEMM_R_16BF, WSGEMM_R_16BF);
    c.d.epilogue = WSGEMM_MATMUL_EPILOGUE_GELU_AUX_BIAS;
    c.d.bias = host_bias;
    c.d.bias_type = WSGEMM_R_32F;
    c.d.aux = host_aux;
    c.d.ldaux = 64;
    c.d.a_scale = &host_scale[0];
    c.d.b_scale = &host_scale[1];
    c.d.c_scale = &host_scale[2];
    c.d.d_scale = &host_scale[3];
    c.d.amax_d = (float *)&host_amax;
    c.C = host_c;
    return c;
}

static wsgemm_status issue(call *c)
{
    return wsgemm_matmul(c->h, c->null_desc ? NULL : &c->d, c->m, c->n, c->k, c->alpha, c->A, c->lda, c->B, c->ldb,
                         c->beta, c->C, c->ldc, c->D, c->ldd);
}

static int failures = 0;
#define EXPECT(cond, ...) TESTING_EXPECT(failures, cond, __VA_ARGS__)

/* Issue c, expect `want` with `word` in the message and every output untouched. */
static void expect_rejected(call *c, wsgemm_status want, const char *word)
{
    fill_sentinel();
    wsgemm_status got = issue(c);
    const char *msg = wsgemm_get_last_error_message(c->h);
    printf("  %s -> %s: \"%s\"\n", word, wsgemm_status_string(got), msg);
    EXPECT(got == want, "%s: status %s, expected %s", word, wsgemm_status_string(got), wsgemm_status_string(want));
    EXPECT(strstr(msg, word) != NULL, "message \"%s\" does not name \"%s\"", msg, word);
    EXPECT(outputs_untouched(), "%s: an output was modified by a rejected call", word);
}

#define REJECT(status, word, ...)                          \
    do {                                                   \
        call c = valid_call(h);                            \
        __VA_ARGS__;                                       \
        expect_rejected(&c, WSGEMM_STATUS_##status, word); \
    } while (0)

/* ---------------------------------------------------------------- cases */

static void case_null_handle(wsgemm_handle h)
{
    REJECT(NOT_INITIALIZED, "handle", c.h = NULL);
    wsgemm_handle gone = NULL;
    WSGEMM_CHECK(wsgemm_create(&gone));
    WSGEMM_CHECK(wsgemm_destroy(gone));
    call c = valid_call(gone);
    fill_sentinel();
    EXPECT(issue(&c) == WSGEMM_STATUS_NOT_INITIALIZED, "a destroyed handle is refused");
    EXPECT(wsgemm_matmul_desc_init(NULL, WSGEMM_OP_N, WSGEMM_OP_N, WSGEMM_R_16BF, WSGEMM_R_16BF) ==
               WSGEMM_STATUS_INVALID_VALUE,
           "desc_init(NULL)");
}

static void case_null_desc(wsgemm_handle h)
{
    REJECT(INVALID_VALUE, "desc is NULL", c.null_desc = 1);
}

static void case_invalid_op(wsgemm_handle h)
{
    REJECT(INVALID_VALUE, "desc->transa", c.d.transa = (wsgemm_op)2);
    REJECT(INVALID_VALUE, "desc->transb", c.d.transb = (wsgemm_op)-1);
}

static void case_invalid_dtype(wsgemm_handle h)
{
    REJECT(INVALID_VALUE, "desc->Atype", c.d.Atype = (wsgemm_dtype)99);
    REJECT(INVALID_VALUE, "desc->Btype", c.d.Btype = (wsgemm_dtype)7);
    REJECT(INVALID_VALUE, "desc->Ctype", c.d.Ctype = (wsgemm_dtype)-5);
    REJECT(INVALID_VALUE, "desc->Dtype", c.d.Dtype = (wsgemm_dtype)30);
}

static void case_invalid_epilogue(wsgemm_handle h)
{
    REJECT(INVALID_VALUE, "desc->epilogue", c.d.epilogue = (wsgemm_matmul_epilogue)0);
    REJECT(INVALID_VALUE, "desc->epilogue", c.d.epilogue = (wsgemm_matmul_epilogue)8); /* no cublasLt epilogue */
    /* a cublasLt epilogue wsgemm does not compute (the whole list: tests/api/api_contract_test.c) */
    REJECT(NOT_SUPPORTED, "desc->epilogue", c.d.epilogue = (wsgemm_matmul_epilogue)130); /* RELU_AUX */
}

static void case_unsupported_types(wsgemm_handle h)
{
    REJECT(NOT_SUPPORTED, "desc->Btype", c.d.Btype = WSGEMM_R_16F);                 /* bf16 x f16 */
    REJECT(NOT_SUPPORTED, "desc->Atype", c.d.Atype = c.d.Btype = WSGEMM_R_32F);     /* fp32 inputs */
    REJECT(NOT_SUPPORTED, "desc->Atype", c.d.Atype = c.d.Btype = WSGEMM_R_8F_E5M2); /* e5m2 x e5m2 */
    REJECT(NOT_SUPPORTED, "desc->Btype", c.d.Btype = WSGEMM_R_8F_E4M3);             /* bf16 x e4m3 */
    REJECT(NOT_SUPPORTED, "desc->Dtype", c.d.Dtype = WSGEMM_R_8F_E5M2);             /* e5m2 D */
    REJECT(NOT_SUPPORTED, "desc->Ctype", c.d.Ctype = WSGEMM_R_32F);                 /* C != D type */
    REJECT(NOT_SUPPORTED, "desc->Ctype", c.d.Dtype = WSGEMM_R_8F_E4M3; c.d.Ctype = WSGEMM_R_32F);
    REJECT(NOT_SUPPORTED, "desc->Ctype", c.d.Dtype = WSGEMM_R_8F_E4M3; c.d.Ctype = WSGEMM_R_8F_E4M3);
    REJECT(NOT_SUPPORTED, "desc->bias_type", c.d.bias_type = WSGEMM_R_8F_E4M3);
    REJECT(NOT_SUPPORTED, "desc->aux_type", c.d.aux_type = WSGEMM_R_8F_E5M2);
}

static void case_negative_sizes(wsgemm_handle h)
{
    REJECT(INVALID_VALUE, "m = -1", c.m = -1);
    REJECT(INVALID_VALUE, "n = -3", c.n = -3);
    REJECT(INVALID_VALUE, "k = -2", c.k = -2);
}

static void case_null_scalars(wsgemm_handle h)
{
    REJECT(INVALID_VALUE, "alpha", c.alpha = NULL);
    REJECT(INVALID_VALUE, "beta", c.beta = NULL);
}

static void case_leading_dims(wsgemm_handle h)
{
    REJECT(INVALID_VALUE, "lda = 63", c.lda = 63);
    REJECT(INVALID_VALUE, "lda = 31", c.d.transa = WSGEMM_OP_T; c.k = 32; c.lda = 31; c.ldb = 32);
    REJECT(INVALID_VALUE, "ldb = 0", c.ldb = 0);
    REJECT(INVALID_VALUE, "ldb = 60", c.d.transb = WSGEMM_OP_T; c.ldb = 60);
    REJECT(INVALID_VALUE, "ldc = 32", c.ldc = 32);
    REJECT(INVALID_VALUE, "ldd = 63", c.ldd = 63);
    REJECT(INVALID_VALUE, "desc->ldaux = 0", c.d.ldaux = 0);
    /* B's rows as stored: k for op N, n for op T (sizes where n != k tell them apart) */
    REJECT(INVALID_VALUE, "ldb = 32 is below max(1, k) = 64", c.n = 32; c.ldb = 32);
    REJECT(INVALID_VALUE, "ldb = 32 is below max(1, n) = 64", c.d.transb = WSGEMM_OP_T; c.k = 32; c.ldb = 32);
}

static void case_in_place(wsgemm_handle h)
{
    REJECT(INVALID_VALUE, "C == D", c.C = c.D; c.ldd = 65; c.d.ldaux = 64);
    REJECT(INVALID_VALUE, "C == D", c.C = c.D; c.d.Dtype = WSGEMM_R_8F_E4M3);
}

static void case_null_pointers(wsgemm_handle h)
{
    REJECT(INVALID_VALUE, "A is NULL", c.A = NULL);
    REJECT(INVALID_VALUE, "B is NULL", c.B = NULL);
    REJECT(INVALID_VALUE, "C is NULL", c.C = NULL);
    REJECT(INVALID_VALUE, "D is NULL", c.D = NULL);
    REJECT(INVALID_VALUE, "desc->bias is NULL", c.d.bias = NULL);
    REJECT(INVALID_VALUE, "desc->aux is NULL", c.d.aux = NULL);
}

static void case_misaligned(wsgemm_handle h)
{
    REJECT(INVALID_VALUE, "A = ", c.A = (const char *)host_a + 1);
    REJECT(INVALID_VALUE, "C = ", c.C = (const char *)host_c + 1);
    REJECT(INVALID_VALUE, "D = ", c.d.Dtype = c.d.Ctype = WSGEMM_R_32F; c.D = (char *)host_d + 2);
    REJECT(INVALID_VALUE, "bias = ", c.d.bias = (const char *)host_bias + 2);
    REJECT(INVALID_VALUE, "aux = ", c.d.aux = (char *)host_aux + 1);
    REJECT(INVALID_VALUE, "a_scale = ", c.d.a_scale = (const float *)((const char *)host_scale + 1));
    REJECT(INVALID_VALUE, "d_scale = ", c.d.d_scale = (const float *)((const char *)host_scale + 2));
    REJECT(INVALID_VALUE, "amax_d = ", c.d.amax_d = (float *)((char *)&host_amax + 1));
    REJECT(INVALID_VALUE, "D spans more than 2^63", c.ldd = c.n = 0x7fffffff; c.d.Dtype = c.d.Ctype = WSGEMM_R_32F;
           c.C = NULL; c.beta = &zero; c.d.epilogue = WSGEMM_MATMUL_EPILOGUE_DEFAULT);
}

/* m == 0 or n == 0 succeeds without touching anything (not even CUDA); k == 0, alpha == 0 and beta == 0 drop
 * the operands they make unread from the checks. */
static void case_quick_return(wsgemm_handle h)
{
    for (int i = 0; i < 2; ++i) {
        call c = valid_call(h);
        if (i == 0)
            c.m = 0;
        else
            c.n = 0;
        c.A = c.B = c.C = NULL;
        fill_sentinel();
        wsgemm_status s = issue(&c);
        wsgemm_path p = WSGEMM_PATH_AUTO;
        wsgemm_get_last_path(h, &p);
        printf("  m=%d n=%d -> %s, path %s\n", c.m, c.n, wsgemm_status_string(s), wsgemm_path_name(p));
        EXPECT(s == WSGEMM_STATUS_SUCCESS, "quick return %d: %s", i, wsgemm_get_last_error_message(h));
        EXPECT(p == WSGEMM_PATH_NONE, "no kernel ran");
        EXPECT(outputs_untouched(), "outputs untouched");
    }
}

/* Valid calls (some with operands the call does not read left NULL or misaligned) pass every check and
 * stop at the device lookup. */
static void case_no_device(wsgemm_handle h)
{
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    REJECT(NO_DEVICE, "no CUDA device", (void)0);
    REJECT(NO_DEVICE, "no CUDA device", c.beta = &zero; c.C = NULL; c.ldc = 0);           /* C unread */
    REJECT(NO_DEVICE, "no CUDA device", c.k = 0; c.A = c.B = NULL);                       /* no product */
    REJECT(NO_DEVICE, "no CUDA device", c.alpha = &zero; c.A = (const char *)host_a + 1); /* A unread */
    REJECT(NO_DEVICE, "no CUDA device", c.d.epilogue = WSGEMM_MATMUL_EPILOGUE_RELU; c.d.bias = NULL; c.d.aux = NULL;
           c.d.ldaux = 0);                                                               /* no bias, no aux */
    REJECT(NO_DEVICE, "no CUDA device", c.C = c.D);                                      /* in place */
    REJECT(NO_DEVICE, "no CUDA device", c.n = 32; c.ldb = 64);                           /* B k x n, ldb = k > n */
    REJECT(NO_DEVICE, "no CUDA device", c.d.transb = WSGEMM_OP_T; c.k = 32; c.ldb = 64); /* B n x k, ldb = n > k */
    REJECT(NO_DEVICE, "no CUDA device", c.d.Atype = WSGEMM_R_8F_E4M3; c.d.Btype = WSGEMM_R_8F_E5M2;
           c.d.Dtype = WSGEMM_R_8F_E4M3; c.d.Ctype = WSGEMM_R_16F); /* FP8 in and out */
    REJECT(NO_DEVICE, "no CUDA device", c.d.Atype = c.d.Btype = WSGEMM_R_8F_E5M2; c.d.Btype = WSGEMM_R_8F_E4M3;
           c.d.Ctype = c.d.Dtype = WSGEMM_R_32F; c.A = (const char *)host_a + 1); /* FP8 A: 1-byte aligned */
}

/* wsgemm_gemm_ex knows the FP8 types and sends them to wsgemm_matmul. */
static void case_gemm_ex_fp8(wsgemm_handle h)
{
    float alpha = 1.0f, beta = 0.0f;
    const struct {
        wsgemm_dtype a, c;
        const char *word;
    } cases[] = {{WSGEMM_R_8F_E4M3, WSGEMM_R_16BF, "Atype = 28"}, {WSGEMM_R_16BF, WSGEMM_R_8F_E4M3, "Ctype = 28"}};
    for (size_t i = 0; i < 2; ++i) {
        fill_sentinel();
        wsgemm_status s = wsgemm_gemm_ex(h, WSGEMM_OP_N, WSGEMM_OP_N, 64, 64, 64, &alpha, host_a, cases[i].a, 64,
                                         host_b, cases[i].a, 64, &beta, host_d, cases[i].c, 64);
        const char *msg = wsgemm_get_last_error_message(h);
        printf("  gemm_ex %s -> %s: \"%s\"\n", cases[i].word, wsgemm_status_string(s), msg);
        EXPECT(s == WSGEMM_STATUS_NOT_SUPPORTED, "gemm_ex with FP8: %s", wsgemm_status_string(s));
        EXPECT(strstr(msg, cases[i].word) != NULL, "message names %s", cases[i].word);
        EXPECT(outputs_untouched(), "C untouched");
    }
}

static void case_desc_init(wsgemm_handle h)
{
    (void)h;
    wsgemm_matmul_desc d;
    memset(&d, 0x5A, sizeof d);
    WSGEMM_CHECK(wsgemm_matmul_desc_init(&d, WSGEMM_OP_T, WSGEMM_OP_N, WSGEMM_R_8F_E4M3, WSGEMM_R_8F_E4M3));
    EXPECT(d.transa == WSGEMM_OP_T && d.transb == WSGEMM_OP_N, "ops");
    EXPECT(d.Atype == WSGEMM_R_8F_E4M3 && d.Btype == WSGEMM_R_8F_E4M3, "A/B types");
    EXPECT(d.Ctype == WSGEMM_R_8F_E4M3 && d.Dtype == WSGEMM_R_8F_E4M3, "C/D types");
    EXPECT(d.epilogue == WSGEMM_MATMUL_EPILOGUE_DEFAULT, "epilogue DEFAULT");
    EXPECT(d.bias == NULL && d.aux == NULL && d.ldaux == 0, "no bias, no aux");
    EXPECT(d.aux_type == WSGEMM_R_16BF && d.bias_type == WSGEMM_R_16BF, "16BF aux and bias for an FP8 D");
    EXPECT(!d.a_scale && !d.b_scale && !d.c_scale && !d.d_scale && !d.amax_d, "no scales, no amax");
    EXPECT(d.a_scale_mode == WSGEMM_MATMUL_SCALE_SCALAR_32F && d.b_scale_mode == WSGEMM_MATMUL_SCALE_SCALAR_32F,
           "per-tensor scale modes");
    WSGEMM_CHECK(wsgemm_matmul_desc_init(&d, WSGEMM_OP_N, WSGEMM_OP_N, WSGEMM_R_16F, WSGEMM_R_32F));
    EXPECT(d.aux_type == WSGEMM_R_32F, "aux of D's type");
}

/* The valid call as block-scaled FP8 (E4M3 x E4M3 -> bf16): a_scale and b_scale the tensors of the modes. */
static call scaled_call(wsgemm_handle h, wsgemm_matmul_scale_mode a_mode, wsgemm_matmul_scale_mode b_mode)
{
    call c = valid_call(h);
    c.d.Atype = c.d.Btype = WSGEMM_R_8F_E4M3;
    c.d.a_scale_mode = a_mode;
    c.d.b_scale_mode = b_mode;
    c.d.a_scale = host_scale_a;
    c.d.b_scale = host_scale_b;
    return c;
}

#define REJECT_SCALED(status, word, a_mode, b_mode, ...)                                     \
    do {                                                                                     \
        call c = scaled_call(h, WSGEMM_MATMUL_SCALE_##a_mode, WSGEMM_MATMUL_SCALE_##b_mode); \
        __VA_ARGS__;                                                                         \
        expect_rejected(&c, WSGEMM_STATUS_##status, word);                                   \
    } while (0)

/* The scale modes' checks (include/wsgemm.h, wsgemm_matmul_scale_mode): values that are no mode, modes on
 * 16-bit operands, pairs outside the accepted ones, missing scale tensors, k against MX's 32, alignment. */
static void case_scale_modes(wsgemm_handle h)
{
    REJECT_SCALED(INVALID_VALUE, "desc->a_scale_mode = 1 is not", SCALAR_32F, SCALAR_32F,
                  c.d.a_scale_mode = (wsgemm_matmul_scale_mode)1); /* cuBLASLt's VEC16_UE4M3: FP4 scales */
    REJECT_SCALED(INVALID_VALUE, "desc->a_scale_mode = 6 is not", VEC128_32F, VEC128_32F,
                  c.d.a_scale_mode = (wsgemm_matmul_scale_mode)6);
    REJECT_SCALED(INVALID_VALUE, "desc->b_scale_mode = -1 is not", VEC128_32F, VEC128_32F,
                  c.d.b_scale_mode = (wsgemm_matmul_scale_mode)-1);
    REJECT_SCALED(NOT_SUPPORTED, "desc->a_scale_mode = VEC128_32F scales FP8 operands only", VEC128_32F, BLK128x128_32F,
                  c.d.Atype = c.d.Btype = WSGEMM_R_16BF);
    REJECT_SCALED(NOT_SUPPORTED, "desc->b_scale_mode = OUTER_VEC_32F scales FP8 operands only", SCALAR_32F,
                  OUTER_VEC_32F, c.d.Atype = c.d.Btype = WSGEMM_R_16F);
    REJECT_SCALED(NOT_SUPPORTED, "desc->a_scale_mode = VEC128_32F with desc->b_scale_mode = SCALAR_32F", VEC128_32F,
                  SCALAR_32F);
    REJECT_SCALED(NOT_SUPPORTED, "desc->a_scale_mode = SCALAR_32F with desc->b_scale_mode = BLK128x128_32F", SCALAR_32F,
                  BLK128x128_32F);
    REJECT_SCALED(NOT_SUPPORTED, "desc->a_scale_mode = OUTER_VEC_32F with desc->b_scale_mode = VEC128_32F",
                  OUTER_VEC_32F, VEC128_32F);
    REJECT_SCALED(NOT_SUPPORTED, "desc->a_scale_mode = VEC32_UE8M0 with desc->b_scale_mode = VEC128_32F", VEC32_UE8M0,
                  VEC128_32F);
    REJECT_SCALED(NOT_SUPPORTED, "desc->a_scale_mode = VEC32_UE8M0 with desc->b_scale_mode = OUTER_VEC_32F",
                  VEC32_UE8M0, OUTER_VEC_32F);
    REJECT_SCALED(INVALID_VALUE, "desc->a_scale is NULL but desc->a_scale_mode = VEC128_32F", VEC128_32F,
                  BLK128x128_32F, c.d.a_scale = NULL);
    REJECT_SCALED(INVALID_VALUE, "desc->b_scale is NULL but desc->b_scale_mode = OUTER_VEC_32F", OUTER_VEC_32F,
                  OUTER_VEC_32F, c.d.b_scale = NULL);
    REJECT_SCALED(INVALID_VALUE, "desc->a_scale is NULL but desc->a_scale_mode = VEC32_UE8M0", VEC32_UE8M0, VEC32_UE8M0,
                  c.d.a_scale = NULL);
    REJECT_SCALED(INVALID_VALUE, "k = 48 is not a multiple of 32", VEC32_UE8M0, VEC32_UE8M0, c.k = 48);
    REJECT_SCALED(INVALID_VALUE, "k = 1 is not a multiple of 32", VEC32_UE8M0, VEC32_UE8M0, c.k = 1);
    REJECT_SCALED(INVALID_VALUE, "a_scale = ", VEC128_32F, VEC128_32F,
                  c.d.a_scale = (const float *)((const char *)host_scale_a + 2)); /* fp32 scales: 4 bytes */
    REJECT_SCALED(INVALID_VALUE, "b_scale = ", BLK128x128_32F, BLK128x128_32F,
                  c.d.b_scale = (const float *)((const char *)host_scale_b + 1));
    /* the scale tensor is no scalar: a 0.2 descriptor's rule "NULL means 1" is not its rule */
    REJECT_SCALED(INVALID_VALUE, "desc->b_scale is NULL", BLK128x128_32F, VEC128_32F, c.d.b_scale = NULL);
}

/* Block-scaled calls that pass every check stop at the device lookup: each accepted pair, a partial last
 * 128-K block, MX scale bytes at any address, no scale tensors without a product, every op pair. */
static void case_scale_modes_valid(wsgemm_handle h)
{
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    REJECT_SCALED(NO_DEVICE, "no CUDA device", VEC128_32F, BLK128x128_32F, (void)0);
    REJECT_SCALED(NO_DEVICE, "no CUDA device", BLK128x128_32F, VEC128_32F, (void)0);
    REJECT_SCALED(NO_DEVICE, "no CUDA device", VEC128_32F, VEC128_32F, (void)0);
    REJECT_SCALED(NO_DEVICE, "no CUDA device", BLK128x128_32F, BLK128x128_32F, (void)0);
    REJECT_SCALED(NO_DEVICE, "no CUDA device", OUTER_VEC_32F, OUTER_VEC_32F, (void)0);
    REJECT_SCALED(NO_DEVICE, "no CUDA device", VEC32_UE8M0, VEC32_UE8M0, (void)0);
    REJECT_SCALED(NO_DEVICE, "no CUDA device", VEC32_UE8M0, VEC32_UE8M0,
                  c.d.a_scale = (const float *)((const char *)host_scale_a + 1)); /* bytes: any address */
    REJECT_SCALED(NO_DEVICE, "no CUDA device", VEC128_32F, BLK128x128_32F, c.k = 40; c.ldb = 64); /* partial block */
    REJECT_SCALED(NO_DEVICE, "no CUDA device", VEC128_32F, BLK128x128_32F, c.k = 0; c.d.a_scale = c.d.b_scale = NULL);
    REJECT_SCALED(NO_DEVICE, "no CUDA device", OUTER_VEC_32F, OUTER_VEC_32F, c.alpha = &zero;
                  c.d.a_scale = c.d.b_scale = NULL);
    REJECT_SCALED(NO_DEVICE, "no CUDA device", VEC128_32F, BLK128x128_32F, c.d.transa = WSGEMM_OP_T;
                  c.d.transb = WSGEMM_OP_T);
    REJECT_SCALED(NO_DEVICE, "no CUDA device", VEC32_UE8M0, VEC32_UE8M0, c.d.Atype = WSGEMM_R_8F_E5M2;
                  c.d.Dtype = WSGEMM_R_8F_E4M3; c.d.Ctype = WSGEMM_R_16F); /* E5M2 x E4M3 -> E4M3 */
}

static const testing_handle_case cases[] = {
    {"null_handle", case_null_handle},
    {"null_desc", case_null_desc},
    {"invalid_op", case_invalid_op},
    {"invalid_dtype", case_invalid_dtype},
    {"invalid_epilogue", case_invalid_epilogue},
    {"unsupported_types", case_unsupported_types},
    {"negative_sizes", case_negative_sizes},
    {"null_scalars", case_null_scalars},
    {"leading_dims", case_leading_dims},
    {"in_place", case_in_place},
    {"null_pointers", case_null_pointers},
    {"misaligned", case_misaligned},
    {"quick_return", case_quick_return},
    {"no_device", case_no_device},
    {"gemm_ex_fp8", case_gemm_ex_fp8},
    {"desc_init", case_desc_init},
    {"scale_modes", case_scale_modes},
    {"scale_modes_valid", case_scale_modes_valid},
};

int main(int argc, char **argv)
{
    return testing_run_handle_case(argc, argv, cases, sizeof cases / sizeof cases[0], &failures);
}
