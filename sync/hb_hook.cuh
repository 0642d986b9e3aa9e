/*
 * sync/hb_hook.cuh - where the sync/ wrappers report their synchronisation edges to the TMEM emulation's
 * happens-before tracking (tmem/hb_emu.cuh). Only the emulation build (WSGEMM_TMEM_EMULATION, sm_90a)
 * compiles the hooks; in every other build WSGEMM_HB(...) expands to nothing, so the hardware (sm_100a)
 * and sm90 code is exactly the wrapper's PTX.
 */
#ifndef WSGEMM_SYNC_HB_HOOK_CUH
#define WSGEMM_SYNC_HB_HOOK_CUH

#if defined(WSGEMM_TMEM_EMULATION)
#include "../tmem/hb_emu.cuh"
#define WSGEMM_HB(...) __VA_ARGS__
#else
#define WSGEMM_HB(...)
#endif

#endif /* WSGEMM_SYNC_HB_HOOK_CUH */
