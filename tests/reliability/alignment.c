// SPDX-License-Identifier: MIT
/*
 * alignment.c - pointers a kernel cannot use: A or B off their 2-byte element alignment, C off its
 * element size (fp32 at a 2-byte boundary, fp16 at an odd address), host memory (malloc'd or pinned).
 * Each is declined with INVALID_VALUE naming the argument, C untouched, and the context keeps running a
 * valid call. Managed memory is accepted and gives the right product. The misaligned cases run in a
 * child process (reliability_test.c): accepted, they would fault and lose the context.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reliability.h"

static wsgemm_status call_with(wsgemm_handle h, const rel_problem *p, const void *A, const void *B, void *C)
{
    const testing_gemm *g = &p->g;
    return wsgemm_gemm_ex(h, g->transa, g->transb, g->m, g->n, g->k, &g->alpha, A, g->ab_type, g->lda, B, g->ab_type,
                          g->ldb, &g->beta, C, g->c_type, g->ldc);
}

static wsgemm_status batched_call_with(wsgemm_handle h, const rel_problem *p, const void *A, const void *B, void *C)
{
    const testing_gemm *g = &p->g;
    return wsgemm_gemm_strided_batched_ex(h, g->transa, g->transb, g->m, g->n, g->k, &g->alpha, A, g->ab_type, g->lda,
                                          g->strideA, B, g->ab_type, g->ldb, g->strideB, &g->beta, C, g->c_type, g->ldc,
                                          g->strideC, 1);
}

/* The problem runs right on h: the context is alive. */
static void expect_valid_call_right(wsgemm_handle h, rel_problem *p, const char *label)
{
    rel_problem_repoison(p);
    rel_problem_reference(p);
    wsgemm_status s = rel_problem_run(h, p);
    REL_EXPECT(s == WSGEMM_STATUS_SUCCESS, "%s: %s (%s)", label, wsgemm_status_string(s),
               wsgemm_get_last_error_message(h));
    CUDA_CHECK(cudaDeviceSynchronize());
    REL_EXPECT(rel_problem_check(p, label), "%s: wrong result", label);
}

static void expect_rejected(wsgemm_handle h, rel_problem *p, wsgemm_status s, const char *word, const char *what)
{
    const char *msg = wsgemm_get_last_error_message(h);
    printf("  %s -> %s: \"%s\"\n", what, wsgemm_status_string(s), msg);
    REL_EXPECT(s == WSGEMM_STATUS_INVALID_VALUE, "%s: %s", what, wsgemm_status_string(s));
    REL_EXPECT(rel_mentions(msg, word), "%s: the message does not name %s", what, word);
    cudaError_t err = cudaDeviceSynchronize();
    REL_EXPECT(err == cudaSuccess, "%s: the context reports %s", what, cudaGetErrorString(err));
    REL_EXPECT(rel_problem_c_untouched(p), "%s: C was written", what);
}

/* One operand ('A', 'B' or 'C') moved by `shift` bytes, through both entry points, on AUTO and generic. */
static void misaligned_case(char which, wsgemm_dtype ab_type, wsgemm_dtype c_type, size_t shift)
{
    testing_gemm g = testing_gemm_make(WSGEMM_OP_N, WSGEMM_OP_N, 64, 64, 64);
    g.ab_type = ab_type;
    g.c_type = c_type;
    rel_problem p;
    rel_problem_create(&p, &g, 0, 30); /* the buffers have 8 spare elements: a shifted matrix stays inside */
    const char *A = p.b.A, *B = p.b.B;
    char *C = p.b.C;
    if (which == 'A') A += shift;
    if (which == 'B') B += shift;
    if (which == 'C') C += shift;
    const char word[2] = {which, '\0'};
    wsgemm_handle h;
    WSGEMM_CHECK(wsgemm_create(&h));
    const wsgemm_path paths[2] = {WSGEMM_PATH_AUTO, WSGEMM_PATH_GENERIC};
    for (int i = 0; i < 2; ++i) {
        char what[96];
        WSGEMM_CHECK(wsgemm_set_path(h, paths[i]));
        snprintf(what, sizeof what, "%s: %s %zu bytes off (%s), wsgemm_gemm_ex", wsgemm_path_name(paths[i]), word,
                 shift, testing_dtype_name(which == 'C' ? c_type : ab_type));
        expect_rejected(h, &p, call_with(h, &p, A, B, C), word, what);
        snprintf(what, sizeof what, "%s: %s %zu bytes off, strided batched", wsgemm_path_name(paths[i]), word, shift);
        expect_rejected(h, &p, batched_call_with(h, &p, A, B, C), word, what);
    }
    expect_valid_call_right(h, &p, "valid call after the misaligned ones");
    WSGEMM_CHECK(wsgemm_destroy(h));
    rel_problem_destroy(&p);
}

void alignment_a_odd(void)
{
    misaligned_case('A', WSGEMM_R_16BF, WSGEMM_R_16BF, 1);
}
void alignment_b_odd(void)
{
    misaligned_case('B', WSGEMM_R_16BF, WSGEMM_R_32F, 3);
}
void alignment_c_f32_2byte(void)
{
    misaligned_case('C', WSGEMM_R_16BF, WSGEMM_R_32F, 2);
}
void alignment_c_f16_odd(void)
{
    misaligned_case('C', WSGEMM_R_16F, WSGEMM_R_16F, 1);
}

/* Replace a device buffer by a managed one with the same bytes. */
static void *to_managed(void *device, size_t bytes)
{
    void *managed = NULL;
    CUDA_CHECK(cudaMallocManaged(&managed, bytes, cudaMemAttachGlobal));
    CUDA_CHECK(cudaMemcpy(managed, device, bytes, cudaMemcpyDefault));
    CUDA_CHECK(cudaFree(device));
    return managed;
}

/* An aligned problem and a staged one, all three operands in managed memory, on AUTO. */
void alignment_managed(void)
{
    int splitk;
    testing_gemm shapes[2] = {testing_gemm_make(WSGEMM_OP_T, WSGEMM_OP_N, 512, 384, 256),
                              rel_workspace_shape(0, 0, &splitk)};
    wsgemm_handle h;
    WSGEMM_CHECK(wsgemm_create(&h));
    for (int i = 0; i < 2; ++i) {
        rel_problem p;
        rel_problem_create(&p, &shapes[i], 0, 31 + (uint64_t)i);
        size_t ab = (size_t)testing_dtype_bytes(p.g.ab_type);
        p.b.A = to_managed(p.b.A, p.b.elems_a * ab);
        p.b.B = to_managed(p.b.B, p.b.elems_b * ab);
        p.b.C = to_managed(p.b.C, p.b.elems_c * (size_t)testing_dtype_bytes(p.g.c_type));
        expect_valid_call_right(h, &p, "managed A, B and C");
        printf("  managed memory: path %s\n", wsgemm_path_name(p.path));
        rel_problem_destroy(&p); /* cudaFree frees managed memory too */
    }
    WSGEMM_CHECK(wsgemm_destroy(h));
}

/* Each of A, B, C in turn replaced by host memory holding the same bytes: malloc'd, then pinned. */
void alignment_host_memory(void)
{
    testing_gemm g = testing_gemm_make(WSGEMM_OP_N, WSGEMM_OP_N, 64, 64, 64);
    rel_problem p;
    rel_problem_create(&p, &g, 0, 33);
    size_t bytes = p.b.elems_a * 2; /* A, B and C: 64 x 64 bf16 plus spare */
    wsgemm_handle h;
    WSGEMM_CHECK(wsgemm_create(&h));
    for (int pinned = 0; pinned < 2; ++pinned) {
        for (int which = 0; which < 3; ++which) {
            void *host = NULL;
            if (pinned)
                CUDA_CHECK(cudaMallocHost(&host, bytes));
            else
                host = malloc(bytes);
            memcpy(host, which == 0 ? p.b.hA : which == 1 ? p.b.hB : p.b.hC0, bytes);
            const void *A = which == 0 ? host : p.b.A, *B = which == 1 ? host : p.b.B;
            void *C = which == 2 ? host : p.b.C;
            const char *word = which == 0 ? "A" : which == 1 ? "B" : "C";
            char what[64];
            snprintf(what, sizeof what, "%s in %s host memory", word, pinned ? "pinned" : "malloc'd");
            expect_rejected(h, &p, call_with(h, &p, A, B, C), word, what);
            if (which == 2) REL_EXPECT(memcmp(host, p.b.hC0, bytes) == 0, "%s: the host C was written", what);
            if (pinned)
                CUDA_CHECK(cudaFreeHost(host));
            else
                free(host);
        }
    }
    expect_valid_call_right(h, &p, "valid call after the host pointers");
    WSGEMM_CHECK(wsgemm_destroy(h));
    rel_problem_destroy(&p);
}
