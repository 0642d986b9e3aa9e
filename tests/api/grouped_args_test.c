// SPDX-License-Identifier: MIT
/*
 * grouped_args_test.c - the argument checks of wsgemm_gemm_grouped_ex and wsgemm_grouped_desc_init, which
 * come before any CUDA call: no GPU needed. One ctest entry per case (argv[1]):
 *   desc          NULL, a size that is not this version's, through the call and through the init
 *   layout        a value that is no wsgemm_grouped_layout
 *   dims          along K: A and B one matrix each, C one per group (disjoint); a value that is no dim
 *   sizes         a negative group count, NULL sizes, sizes and status not 4-byte aligned
 *   strides       the contiguous layout's grouped operand and C strides must be 0; negative strides;
 *                 masked C matrices that overlap; leading dimensions below their rows
 *   types         FP8 operands and outputs, mixed operands, values that are no dtype
 *   nulls         handle, grouped, alpha, beta, A, B, C
 *   quick_return  m, n or group_count 0: SUCCESS with path NONE (no device asked)
 * Every operand is host memory holding a sentinel: a refused call must leave it as it was; the status and
 * the message naming the argument are checked.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "testing.h"
#include "wsgemm.h"

static int failures = 0;
#define EXPECT(cond, ...) TESTING_EXPECT(failures, cond, __VA_ARGS__)

enum { kElems = 64 * 64 * 4 };
static uint16_t host_a[kElems], host_b[kElems], host_c[kElems];
static int host_sizes[8] = {8, 16, 24, 32, 40, 48, 56, 64};
static float one = 1.0f, zero = 0.0f;

static void fill_sentinel(void)
{
    for (int i = 0; i < kElems; ++i) host_c[i] = (uint16_t)(0x5A5Au ^ (unsigned)i);
}

static int c_untouched(void)
{
    for (int i = 0; i < kElems; ++i)
        if (host_c[i] != (uint16_t)(0x5A5Au ^ (unsigned)i)) return 0;
    return 1;
}

static void expect_status(wsgemm_handle h, wsgemm_status got, wsgemm_status want, const char *word, const char *what)
{
    const char *msg = wsgemm_get_last_error_message(h);
    printf("  %s -> %s: \"%s\"\n", what, wsgemm_status_string(got), msg);
    EXPECT(got == want, "%s: status %s, expected %s", what, wsgemm_status_string(got), wsgemm_status_string(want));
    EXPECT(strstr(msg, word) != NULL, "%s: message \"%s\" does not name \"%s\"", what, msg, word);
    EXPECT(c_untouched(), "%s: C was written", what);
}

/* A valid call's arguments: contiguous along M, 4 groups, m 64 (the total), n 64, k 64, bf16. */
typedef struct args {
    wsgemm_grouped_desc desc;
    wsgemm_op transa, transb;
    int m, n, k;
    const float *alpha, *beta;
    const void *A, *B;
    void *C;
    wsgemm_dtype Atype, Btype, Ctype;
    int lda, ldb, ldc;
    long long strideA, strideB, strideC;
} args;

static args valid(void)
{
    args a;
    if (wsgemm_grouped_desc_init(&a.desc, WSGEMM_GROUPED_CONTIGUOUS, WSGEMM_GROUPED_DIM_M, 4, host_sizes) !=
        WSGEMM_STATUS_SUCCESS)
        failures++;
    a.transa = a.transb = WSGEMM_OP_N;
    a.m = a.n = a.k = 64;
    a.alpha = &one;
    a.beta = &zero;
    a.A = host_a;
    a.B = host_b;
    a.C = host_c;
    a.Atype = a.Btype = a.Ctype = WSGEMM_R_16BF;
    a.lda = a.ldb = a.ldc = 64;
    a.strideA = 0;
    a.strideB = 64 * 64;
    a.strideC = 0;
    fill_sentinel();
    return a;
}

static wsgemm_status call(wsgemm_handle h, const args *a, const wsgemm_grouped_desc *desc)
{
    return wsgemm_gemm_grouped_ex(h, desc, a->transa, a->transb, a->m, a->n, a->k, a->alpha, a->A, a->Atype, a->lda,
                                  a->strideA, a->B, a->Btype, a->ldb, a->strideB, a->beta, a->C, a->Ctype, a->ldc,
                                  a->strideC);
}

static void case_desc(wsgemm_handle h)
{
    args a = valid();
    expect_status(h, call(h, &a, NULL), WSGEMM_STATUS_INVALID_VALUE, "grouped is NULL", "grouped NULL");
    a.desc.size = sizeof(wsgemm_grouped_desc) - 4;
    expect_status(h, call(h, &a, &a.desc), WSGEMM_STATUS_INVALID_VALUE, "grouped->size", "size too small");
    a.desc.size = sizeof(wsgemm_grouped_desc) + 8;
    expect_status(h, call(h, &a, &a.desc), WSGEMM_STATUS_INVALID_VALUE, "grouped->size", "size too large");
    wsgemm_status s = wsgemm_grouped_desc_init_sized(NULL, sizeof(wsgemm_grouped_desc), WSGEMM_GROUPED_CONTIGUOUS,
                                                     WSGEMM_GROUPED_DIM_M, 1, host_sizes);
    EXPECT(s == WSGEMM_STATUS_INVALID_VALUE, "init(NULL): %s", wsgemm_status_string(s));
    EXPECT(strstr(wsgemm_get_last_error_message(NULL), "desc") != NULL, "init(NULL) message: \"%s\"",
           wsgemm_get_last_error_message(NULL));
    unsigned char bytes[sizeof(wsgemm_grouped_desc) + 16];
    memset(bytes, 0xA5, sizeof bytes);
    s = wsgemm_grouped_desc_init_sized((wsgemm_grouped_desc *)(void *)bytes, 8, WSGEMM_GROUPED_MASKED,
                                       WSGEMM_GROUPED_DIM_N, 1, host_sizes);
    EXPECT(s == WSGEMM_STATUS_INVALID_VALUE, "init with size 8: %s", wsgemm_status_string(s));
    int written = 0;
    for (size_t i = 0; i < sizeof bytes; ++i) written += bytes[i] != 0xA5;
    EXPECT(written == 0, "init with a bad size wrote %d bytes", written);
    wsgemm_grouped_desc d;
    s = wsgemm_grouped_desc_init(&d, WSGEMM_GROUPED_MASKED, WSGEMM_GROUPED_DIM_N, 3, host_sizes);
    EXPECT(s == WSGEMM_STATUS_SUCCESS && d.size == sizeof d && d.layout == WSGEMM_GROUPED_MASKED &&
               d.dim == WSGEMM_GROUPED_DIM_N && d.group_count == 3 && d.sizes == host_sizes && d.status == NULL,
           "init: the fields as given, status NULL");
}

static void case_layout(wsgemm_handle h)
{
    args a = valid();
    a.desc.layout = (wsgemm_grouped_layout)7;
    expect_status(h, call(h, &a, &a.desc), WSGEMM_STATUS_INVALID_VALUE, "grouped->layout", "layout 7");
}

static void case_dims(wsgemm_handle h)
{
    args a = valid();
    a.desc.dim = WSGEMM_GROUPED_DIM_K; /* A and B split along K: both one matrix, C one per group */
    expect_status(h, call(h, &a, &a.desc), WSGEMM_STATUS_INVALID_VALUE, "strideB", "along K, strideB");
    a.strideB = 0;
    expect_status(h, call(h, &a, &a.desc), WSGEMM_STATUS_INVALID_VALUE, "overlap", "along K, one C for all");
    a = valid();
    a.desc.dim = (wsgemm_grouped_dim)9;
    expect_status(h, call(h, &a, &a.desc), WSGEMM_STATUS_INVALID_VALUE, "grouped->dim", "dim 9");
    a = valid();
    EXPECT(a.desc.launch_mode == WSGEMM_LAUNCH_MODE_DEFAULT, "init: launch_mode %d, expected DEFAULT",
           (int)a.desc.launch_mode);
    a.desc.launch_mode = (wsgemm_launch_mode)7;
    expect_status(h, call(h, &a, &a.desc), WSGEMM_STATUS_INVALID_VALUE, "grouped->launch_mode", "launch_mode 7");
}

static void case_sizes(wsgemm_handle h)
{
    args a = valid();
    a.desc.group_count = -1;
    expect_status(h, call(h, &a, &a.desc), WSGEMM_STATUS_INVALID_VALUE, "group_count", "negative group count");
    a = valid();
    a.desc.sizes = NULL;
    expect_status(h, call(h, &a, &a.desc), WSGEMM_STATUS_INVALID_VALUE, "grouped->sizes", "sizes NULL");
    a = valid();
    a.desc.sizes = (const int *)(const void *)((const char *)host_sizes + 2);
    expect_status(h, call(h, &a, &a.desc), WSGEMM_STATUS_INVALID_VALUE, "grouped->sizes", "sizes misaligned");
    a = valid();
    a.desc.status = (int *)(void *)((char *)host_sizes + 1);
    expect_status(h, call(h, &a, &a.desc), WSGEMM_STATUS_INVALID_VALUE, "grouped->status", "status misaligned");
}

static void case_strides(wsgemm_handle h)
{
    args a = valid();
    a.strideA = 64;
    expect_status(h, call(h, &a, &a.desc), WSGEMM_STATUS_INVALID_VALUE, "strideA", "contiguous along M, strideA");
    a = valid();
    a.strideC = 4096;
    expect_status(h, call(h, &a, &a.desc), WSGEMM_STATUS_INVALID_VALUE, "strideC", "contiguous, strideC");
    a = valid();
    a.desc.dim = WSGEMM_GROUPED_DIM_N;
    a.strideA = 64 * 64;
    a.strideB = 64;
    expect_status(h, call(h, &a, &a.desc), WSGEMM_STATUS_INVALID_VALUE, "strideB", "contiguous along N, strideB");
    a = valid();
    a.strideB = -1;
    expect_status(h, call(h, &a, &a.desc), WSGEMM_STATUS_INVALID_VALUE, "strideB", "negative strideB");
    a = valid();
    a.desc.layout = WSGEMM_GROUPED_MASKED;
    a.strideA = 64 * 64;
    a.strideC = 100; /* four 64 x 64 C matrices 100 elements apart overlap */
    expect_status(h, call(h, &a, &a.desc), WSGEMM_STATUS_INVALID_VALUE, "overlap", "masked C overlapping");
    a = valid();
    a.lda = 63;
    expect_status(h, call(h, &a, &a.desc), WSGEMM_STATUS_INVALID_VALUE, "lda", "lda below m");
    a = valid();
    a.ldc = 10;
    expect_status(h, call(h, &a, &a.desc), WSGEMM_STATUS_INVALID_VALUE, "ldc", "ldc below m");
    a = valid();
    a.transb = (wsgemm_op)3;
    expect_status(h, call(h, &a, &a.desc), WSGEMM_STATUS_INVALID_VALUE, "transb", "transb 3");
    a = valid();
    a.k = -2;
    expect_status(h, call(h, &a, &a.desc), WSGEMM_STATUS_INVALID_VALUE, "k = -2", "negative k");
}

static void case_types(wsgemm_handle h)
{
    args a = valid();
    a.Atype = a.Btype = WSGEMM_R_8F_E4M3;
    expect_status(h, call(h, &a, &a.desc), WSGEMM_STATUS_NOT_SUPPORTED, "Atype", "FP8 operands");
    a = valid();
    a.Btype = WSGEMM_R_16F;
    expect_status(h, call(h, &a, &a.desc), WSGEMM_STATUS_NOT_SUPPORTED, "Btype", "mixed operands");
    a = valid();
    a.Ctype = WSGEMM_R_8F_E4M3;
    expect_status(h, call(h, &a, &a.desc), WSGEMM_STATUS_NOT_SUPPORTED, "Ctype", "FP8 C");
    a = valid();
    a.Ctype = (wsgemm_dtype)99;
    expect_status(h, call(h, &a, &a.desc), WSGEMM_STATUS_INVALID_VALUE, "Ctype", "Ctype 99");
}

static void case_nulls(wsgemm_handle h)
{
    args a = valid();
    wsgemm_status s = call(NULL, &a, &a.desc);
    EXPECT(s == WSGEMM_STATUS_NOT_INITIALIZED, "NULL handle: %s", wsgemm_status_string(s));
    EXPECT(c_untouched(), "NULL handle: C was written");
    a.alpha = NULL;
    expect_status(h, call(h, &a, &a.desc), WSGEMM_STATUS_INVALID_VALUE, "alpha", "alpha NULL");
    a = valid();
    a.beta = NULL;
    expect_status(h, call(h, &a, &a.desc), WSGEMM_STATUS_INVALID_VALUE, "beta", "beta NULL");
    a = valid();
    a.A = NULL;
    expect_status(h, call(h, &a, &a.desc), WSGEMM_STATUS_INVALID_VALUE, "A is NULL", "A NULL");
    a = valid();
    a.B = NULL;
    expect_status(h, call(h, &a, &a.desc), WSGEMM_STATUS_INVALID_VALUE, "B is NULL", "B NULL");
    a = valid();
    a.C = NULL;
    expect_status(h, call(h, &a, &a.desc), WSGEMM_STATUS_INVALID_VALUE, "C is NULL", "C NULL");
    a = valid();
    WSGEMM_CHECK(wsgemm_set_pointer_mode(h, WSGEMM_POINTER_MODE_DEVICE));
    expect_status(h, call(h, &a, &a.desc), WSGEMM_STATUS_NOT_SUPPORTED, "POINTER_MODE_DEVICE", "device pointer mode");
    WSGEMM_CHECK(wsgemm_set_pointer_mode(h, WSGEMM_POINTER_MODE_HOST));
}

static void case_quick_return(wsgemm_handle h)
{
    const char *what[3] = {"group_count 0", "m 0", "n 0"};
    for (int i = 0; i < 3; ++i) {
        args a = valid();
        if (i == 0) a.desc.group_count = 0;
        if (i == 1) a.m = 0;
        if (i == 2) a.n = 0;
        const wsgemm_status s = call(h, &a, &a.desc);
        wsgemm_path path = WSGEMM_PATH_AUTO;
        WSGEMM_CHECK(wsgemm_get_last_path(h, &path));
        printf("  %s -> %s, path %s\n", what[i], wsgemm_status_string(s), wsgemm_path_name(path));
        EXPECT(s == WSGEMM_STATUS_SUCCESS, "%s: %s (%s)", what[i], wsgemm_status_string(s),
               wsgemm_get_last_error_message(h));
        EXPECT(path == WSGEMM_PATH_NONE, "%s: path %s", what[i], wsgemm_path_name(path));
        EXPECT(c_untouched(), "%s: C was written", what[i]);
    }
}

static const testing_handle_case cases[] = {
    {"desc", case_desc},       {"layout", case_layout}, {"dims", case_dims},   {"sizes", case_sizes},
    {"strides", case_strides}, {"types", case_types},   {"nulls", case_nulls}, {"quick_return", case_quick_return},
};

int main(int argc, char **argv)
{
    return testing_run_handle_case(argc, argv, cases, sizeof cases / sizeof cases[0], &failures);
}
