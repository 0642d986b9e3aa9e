// SPDX-License-Identifier: MIT
/*
 * sync/hb_hook.cuh - where the sync/ wrappers report their synchronisation edges to the TMEM emulation's
 * happens-before tracking (emu/hb_emu.cuh). Only the emulation build (WSGEMM_TMEM_EMULATION, sm_90a)
 * compiles the hooks; in every other build WSGEMM_HB(...) expands to nothing, so the hardware (sm_100a)
 * and sm90 code is exactly the wrapper's PTX.
 *
 * sync/ does not include the checker: in the emulation build the translation unit includes
 * emu/emulation.cuh before any sync/ header, which declares the tmem_hb_* hooks and defines
 * WSGEMM_EMU_ENTRY. That keeps the include graph one way (emu/ -> tmem/desc.h, sync/; tmem/ -> sync/).
 */
#ifndef WSGEMM_SYNC_HB_HOOK_CUH
#define WSGEMM_SYNC_HB_HOOK_CUH

#if defined(WSGEMM_TMEM_EMULATION)
#if !defined(WSGEMM_EMU_ENTRY)
#error "WSGEMM_TMEM_EMULATION build: include emu/emulation.cuh (the hooks sync/ calls) before sync/ and tmem/"
#endif
#define WSGEMM_HB(...) __VA_ARGS__
#else
#define WSGEMM_HB(...)
#endif

#endif /* WSGEMM_SYNC_HB_HOOK_CUH */
