# SPDX-License-Identifier: MIT
# Prints the tcgen05.ld wrappers of tmem/tmem_hw.cuh (one per shape and repeat count).
def wrapper(shape, n, regs_per_rep):
    nregs = n * regs_per_rep
    outs = ", ".join("%%%d" % i for i in range(nregs))
    cons = ", ".join('"=r"(r[%d])' % i for i in range(nregs))
    s = []
    s.append('/* PTX ISA "tcgen05.ld": shape %s, .x%d, %d registers per thread. */' % (shape, n, nregs))
    s.append("static __device__ __forceinline__ void tcgen05_ld_%s_x%d(uint32_t taddr, uint32_t *r)" % (shape, n))
    s.append("{")
    s.append('    WSGEMM_TCGEN05_ASM("tcgen05.ld.sync.aligned.%s.x%d.b32 {%s}, [%%%d];"' % (shape, n, outs, nregs))
    s.append("                 : %s" % cons)
    s.append('                 : "r"(taddr)')
    s.append('                 : "memory");')
    s.append("}")
    return "\n".join(s)
for n in (1, 2, 4, 8, 16, 32, 64, 128):
    print(wrapper("32x32b", n, 1)); print()
for n in (1, 2, 4, 8, 16, 32):
    print(wrapper("16x256b", n, 4)); print()
