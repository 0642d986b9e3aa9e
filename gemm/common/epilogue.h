/*
 * gemm/common/epilogue.h - the epilogue kinds of the fast paths, as named data. Host C (and device).
 *
 * An epilogue turns a tile of fp32 accumulators into C: D = alpha * acc + beta * C (C read only when
 * beta != 0), converted to C's type and stored. The kinds differ in how the tile reaches memory; the plan
 * chooses one and the kernel dispatches on it in one place.
 */
#ifndef WSGEMM_COMMON_EPILOGUE_H
#define WSGEMM_COMMON_EPILOGUE_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum wsgemm_epilogue_kind {
    WSGEMM_EPILOGUE_NONE = 0,     /* no launch yet (the tests' probe) */
    WSGEMM_EPILOGUE_DIRECT = 1,   /* predicated per-element stores from registers (any C layout) */
    WSGEMM_EPILOGUE_TMA = 2,      /* smem chunks + TMA store at the end of each tile */
    WSGEMM_EPILOGUE_DEFERRED = 3, /* the tile waits in registers, packed to 16 bits, and its TMA stores run
                                     during the next tile's main loop (beta == 0, C of the input type) */
    WSGEMM_EPILOGUE_STAGED = 4    /* the CTA's C tile lives in smem: loaded by TMA during the main loop when
                                     beta != 0, combined in place at the tile end, stored by TMA while the next
                                     tile's main loop runs (any beta, any C type) */
} wsgemm_epilogue_kind;

const char *wsgemm_epilogue_name(wsgemm_epilogue_kind kind);

#ifdef __cplusplus
}
#endif

#endif /* WSGEMM_COMMON_EPILOGUE_H */
