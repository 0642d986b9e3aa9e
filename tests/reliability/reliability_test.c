// SPDX-License-Identifier: MIT
/*
 * reliability_test.c - drop-in safety of wsgemm under what code that calls cublasGemmEx already does:
 * several streams, CUDA graph capture, huge sizes, misaligned and foreign pointers, host threads, several
 * GPUs, a caller's pending CUDA error, and the workspace API. `reliability_test <case>` runs one case
 * (one ctest entry each, list below); every product is checked element by element against cuBLAS or an
 * fp64 reference, outputs NaN-poisoned before each run, and the path that ran is asserted where it
 * matters.
 *
 * Cases that could lose the CUDA context if wsgemm accepted what it must decline (misaligned pointers,
 * absurd strides, operands beyond their allocation, bad workspace pointers) run in a child process: the
 * parent spawns `reliability_test <case> --child` before any CUDA call, waits, and reports how the child
 * ended, so a fault shows as that case's failure with its output instead of taking the run down.
 *
 * Exit: 0 passed, 1 failed, 77 skipped (no GPU, or a case this device or build cannot run).
 */
#include <stdio.h>
#include <string.h>

#include "reliability.h"

typedef struct rel_case {
    const char *name;
    void (*run)(void);
    int in_child; /* could lose the CUDA context: run in a child process */
} rel_case;

static const rel_case cases[] = {
    {"streams_auto", streams_auto, 0},
    {"streams_sm90", streams_sm90, 0},
    {"streams_user_workspace_auto", streams_user_workspace_auto, 0},
    {"streams_user_workspace_sm90", streams_user_workspace_sm90, 0},
    {"graphs_global_auto", graphs_global_auto, 0},
    {"graphs_thread_local_auto", graphs_thread_local_auto, 0},
    {"graphs_global_sm90", graphs_global_sm90, 0},
    {"graphs_workspace_grows", graphs_workspace_grows, 0},
    {"graphs_user_workspace", graphs_user_workspace, 0},
    {"sizes_k_int_max_auto", sizes_k_int_max_auto, 0},
    {"sizes_k_int_max_sm90", sizes_k_int_max_sm90, 0},
    {"sizes_k_int_max_generic", sizes_k_int_max_generic, 0},
    {"sizes_k_major_huge_k", sizes_k_major_huge_k, 0},
    {"sizes_c_over_2g_auto", sizes_c_over_2g_auto, 0},
    {"sizes_c_over_2g_generic", sizes_c_over_2g_generic, 0},
    {"sizes_a_over_2g_auto", sizes_a_over_2g_auto, 0},
    {"sizes_a_over_2g_generic", sizes_a_over_2g_generic, 0},
    {"sizes_batch_100000_auto", sizes_batch_100000_auto, 0},
    {"sizes_batch_100000_generic", sizes_batch_100000_generic, 0},
    {"sizes_decline_absurd_strides", sizes_decline_absurd_strides, 1},
    {"sizes_decline_footprint", sizes_decline_footprint, 1},
    {"alignment_a_odd", alignment_a_odd, 1},
    {"alignment_b_odd", alignment_b_odd, 1},
    {"alignment_c_f32_2byte", alignment_c_f32_2byte, 1},
    {"alignment_c_f16_odd", alignment_c_f16_odd, 1},
    {"alignment_managed", alignment_managed, 0},
    {"alignment_host_memory", alignment_host_memory, 0},
    {"threads_one_handle_own_streams", threads_one_handle_own_streams, 0},
    {"threads_one_handle_shared_stream", threads_one_handle_shared_stream, 0},
    {"threads_messages", threads_messages, 0},
    {"threads_handle_per_thread", threads_handle_per_thread, 0},
    {"multi_gpu_switch", multi_gpu_switch, 0},
    {"multi_gpu_threads", multi_gpu_threads, 0},
    {"errors_pending_kept", errors_pending_kept, 0},
    {"errors_own_failure_clean", errors_own_failure_clean, 0},
    {"workspace_size_query", workspace_size_query, 0},
    {"workspace_exact_and_too_small", workspace_exact_and_too_small, 0},
    {"workspace_none", workspace_none, 0},
    {"workspace_reset", workspace_reset, 0},
    {"workspace_bad_pointer", workspace_bad_pointer, 1},
};

int main(int argc, char **argv)
{
    const rel_case *c = NULL;
    for (size_t i = 0; argc >= 2 && i < sizeof cases / sizeof cases[0]; ++i)
        if (!strcmp(argv[1], cases[i].name)) c = &cases[i];
    if (c == NULL) {
        fprintf(stderr, "usage: %s <case> (cases:", argv[0]);
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) fprintf(stderr, " %s", cases[i].name);
        fprintf(stderr, ")\n");
        return 2;
    }
    int is_child = argc >= 3 && !strcmp(argv[2], "--child");
    if (c->in_child && !is_child) return rel_run_child(c->name); /* no CUDA call in this process */

    testing_require_gpu(c->name);
    printf("case %s%s\n", c->name, is_child ? " (child process)" : "");
    c->run();
    int failures = atomic_load(&rel_failures);
    printf("%s: %s\n", c->name, failures ? "FAILED" : "passed");
    return failures ? 1 : 0;
}
