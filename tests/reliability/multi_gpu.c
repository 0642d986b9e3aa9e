// SPDX-License-Identifier: MIT
/*
 * multi_gpu.c - two GPUs: one handle followed through cudaSetDevice(0/1/0/1) switches with calls still in
 * flight on both devices, and a handle per device driven from two threads at once. Every problem needs a
 * workspace on the sm90 path and lives on its device with its device's stream; each result is checked
 * against cuBLAS on its own device. A stream of another device than the current one is refused.
 * Without two GPUs: "SKIPPED: needs 2 GPUs".
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/knobs.h" /* wsgemm_knobs_reload */
#include "reliability.h"

enum { kDevices = 2, kPerDevice = 12, kRounds = 4 };

static void require_two_gpus(void)
{
    int count = testing_gpu_count();
    if (count < kDevices) {
        printf("SKIPPED: needs 2 GPUs (cudaGetDeviceCount = %d)\n", count);
        exit(WSGEMM_TEST_SKIP);
    }
}

typedef struct device_set {
    rel_problem ps[kPerDevice];
    cudaStream_t stream;
    wsgemm_path expect;
} device_set;

/* Problems, references and a stream on each device. split-K through the environment when `splitk`. */
static void prepare(device_set *sets, int splitk)
{
    for (int d = 0; d < kDevices; ++d) {
        CUDA_CHECK(cudaSetDevice(d));
        sets[d].stream = rel_stream_create();
        sets[d].expect = rel_auto_path();
        for (int i = 0; i < kPerDevice; ++i) {
            int shape_splitk;
            testing_gemm g = rel_workspace_shape(i, 0, &shape_splitk);
            rel_problem_create(&sets[d].ps[i], &g, splitk ? shape_splitk : 0, 800 + 100 * (uint64_t)d + (uint64_t)i);
            rel_problem_reference(&sets[d].ps[i]);
        }
    }
}

static void check_and_free(device_set *sets)
{
    for (int d = 0; d < kDevices; ++d) {
        char label[32];
        snprintf(label, sizeof label, "device %d", d);
        CUDA_CHECK(cudaSetDevice(d));
        CUDA_CHECK(cudaDeviceSynchronize());
        rel_check_all(sets[d].ps, kPerDevice, label);
        for (int i = 0; i < kPerDevice; ++i) rel_problem_destroy(&sets[d].ps[i]);
        CUDA_CHECK(cudaStreamDestroy(sets[d].stream));
    }
    CUDA_CHECK(cudaSetDevice(0));
}

static void run_expect(wsgemm_handle h, rel_problem *p, wsgemm_path expect, int device)
{
    wsgemm_status s = rel_problem_run(h, p);
    REL_EXPECT(s == WSGEMM_STATUS_SUCCESS, "device %d: %s (%s)", device, wsgemm_status_string(s),
               wsgemm_get_last_error_message(h));
    REL_EXPECT(expect == WSGEMM_PATH_AUTO || p->path == expect, "device %d: path %s, expected %s", device,
               wsgemm_path_name(p->path), wsgemm_path_name(expect));
}

void multi_gpu_switch(void)
{
    require_two_gpus();
    device_set *sets = calloc(kDevices, sizeof *sets);
    prepare(sets, 1);
    wsgemm_handle h;
    WSGEMM_CHECK(wsgemm_create(&h));

    /* device 0 current, the handle's stream on device 1: refused, C untouched */
    CUDA_CHECK(cudaSetDevice(0));
    WSGEMM_CHECK(wsgemm_set_stream(h, sets[1].stream));
    wsgemm_status s = rel_problem_run(h, &sets[0].ps[0]);
    const char *msg = wsgemm_get_last_error_message(h);
    printf("  stream of device 1 with device 0 current -> %s: \"%s\"\n", wsgemm_status_string(s), msg);
    REL_EXPECT(s == WSGEMM_STATUS_INVALID_VALUE && rel_mentions(msg, "stream"), "a stream of another device");
    CUDA_CHECK(cudaDeviceSynchronize());
    REL_EXPECT(rel_problem_c_untouched(&sets[0].ps[0]), "the refused call wrote C");

    /* rounds on devices 0, 1, 0, 1 without waiting in between */
    const int per_round = kPerDevice / (kRounds / kDevices);
    for (int round = 0; round < kRounds; ++round) {
        int d = round % kDevices;
        CUDA_CHECK(cudaSetDevice(d));
        WSGEMM_CHECK(wsgemm_set_stream(h, sets[d].stream));
        for (int j = 0; j < per_round; ++j)
            run_expect(h, &sets[d].ps[(round / kDevices) * per_round + j], sets[d].expect, d);
    }
    check_and_free(sets);
    WSGEMM_CHECK(wsgemm_destroy(h));
    free(sets);
}

typedef struct device_worker {
    int device;
    device_set *set;
} device_worker;

static void *device_worker_main(void *arg)
{
    device_worker *w = arg;
    CUDA_CHECK(cudaSetDevice(w->device));
    wsgemm_handle h;
    WSGEMM_CHECK(wsgemm_create(&h));
    WSGEMM_CHECK(wsgemm_set_stream(h, w->set->stream));
    for (int i = 0; i < kPerDevice; ++i) run_expect(h, &w->set->ps[i], w->set->expect, w->device);
    CUDA_CHECK(cudaStreamSynchronize(w->set->stream));
    WSGEMM_CHECK(wsgemm_destroy(h));
    return NULL;
}

void multi_gpu_threads(void)
{
    require_two_gpus();
    device_set *sets = calloc(kDevices, sizeof *sets);
    prepare(sets, 0); /* the workers leave the environment alone: split-K for all of them instead */
    setenv("WSGEMM_SM90_SPLITK", "2", 1);
    wsgemm_knobs_reload();
    pthread_t threads[kDevices];
    device_worker workers[kDevices];
    for (int d = 0; d < kDevices; ++d) {
        workers[d] = (device_worker){d, &sets[d]};
        if (pthread_create(&threads[d], NULL, device_worker_main, &workers[d]) != 0) {
            printf("FAIL: pthread_create\n");
            exit(1);
        }
    }
    for (int d = 0; d < kDevices; ++d) pthread_join(threads[d], NULL);
    unsetenv("WSGEMM_SM90_SPLITK");
    wsgemm_knobs_reload();
    check_and_free(sets);
    free(sets);
}
