// SPDX-License-Identifier: MIT
/*
 * emu/emulation.cuh - the entry header of the verification wing: what a translation unit built with
 * WSGEMM_TMEM_EMULATION=1 (sm_90a) includes FIRST, before any sync/ or tmem/ header:
 *
 *   #if defined(WSGEMM_TMEM_EMULATION)
 *   #include "emu/emulation.cuh"      // installed: <wsgemm/emu/emulation.cuh>; CMake: wsgemm::emulation
 *   #endif
 *   #include "sync/pipeline.cuh"      // ... and the rest, identical for the hardware build
 *   #include "tmem/tmem.cuh"
 *
 * It brings, in this order:
 *   1. the happens-before tracking (emu/hb_emu.cuh over emu/hb.h): the tmem_hb_* hooks that the sync/
 *      wrappers call through sync/hb_hook.cuh in this build. They must be declared before the first sync/
 *      header, and sync/ does not include the checker (sync/ includes nothing of emu/ or tmem/): this
 *      header is where they come from;
 *   2. WSGEMM_EMU_ENTRY, the marker sync/hb_hook.cuh and tmem/tmem.cuh look for: without it they stop with
 *      an #error that names this header;
 *   3. the emulation backend of tmem/tmem.cuh (emu/tmem_emu.cuh): Tensor Memory in global memory, tcgen05
 *      on CUDA cores, the checker of the PTX rules, and the host calls (tmem_host_prepare, ...);
 *   4. the stand-in for cluster launch control that sync/clc.cuh issues through (emu/clc_emu.cuh).
 * The hardware build (sm_100a, WSGEMM_TMEM_HARDWARE=1) and every sm90 build include none of emu/ and
 * compile exactly the sync/ and tmem/ wrappers' PTX. What the wing models and what it does not:
 * docs/emulation.md.
 */
#ifndef WSGEMM_EMU_EMULATION_CUH
#define WSGEMM_EMU_EMULATION_CUH

#if !defined(WSGEMM_TMEM_EMULATION)
#error "emu/emulation.cuh is the TMEM emulation build: define WSGEMM_TMEM_EMULATION=1 (CMake: link wsgemm::emulation)"
#endif
#if defined(WSGEMM_TMEM_HARDWARE)
#error "define only one of WSGEMM_TMEM_HARDWARE and WSGEMM_TMEM_EMULATION"
#endif
#if defined(WSGEMM_SYNC_HB_HOOK_CUH) || defined(WSGEMM_TMEM_TMEM_CUH)
#error "emu/emulation.cuh must be included before any sync/ or tmem/ header"
#endif

#include "hb_emu.cuh"

/* The hooks are declared: sync/hb_hook.cuh may now be included, and tmem/tmem.cuh finds its backend. */
#define WSGEMM_EMU_ENTRY 1

#include "tmem_emu.cuh"

#include "clc_emu.cuh"

#endif /* WSGEMM_EMU_EMULATION_CUH */
