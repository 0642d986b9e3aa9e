// SPDX-License-Identifier: MIT
/*
 * clc_model.c - the cluster launch control hand-off of the sm100 CLC kernel (sync/clc.cuh, gemm/sm100/
 * sm100_kernel.cuh with kClc) as an exhaustive model: every interleaving of the readers, the issuer, the
 * asynchronous response writes and the other clusters of the grid, for small unit counts, checked against the
 * hand-off's safety properties; then each CLC failure class planted and caught. protocol_model's case "clc".
 *
 * The model (one cluster: a CTA, or the pair, rank 0 the leader):
 *   queue       the grid's clusters that have not started, as the units they stand for: 1 .. U; our cluster's
 *               own unit is 0. Other clusters take units from it at any time (step OTHER); a try_cancel that
 *               finds it empty fails.
 *   slots       kSlots response slots per CTA, each with full[q] (count 1, in every CTA) and rank 0's empty[q]
 *               (count: every reader of the pair). Use i of the ring is slot i % kSlots, its (i / kSlots)-th
 *               use. Each CTA's full[q] is armed (arrive.expect_tx) for its first use at set-up and, by that
 *               CTA's producer, for its next use after reading the current one (when it said "more").
 *   readers     per CTA: the producer lane (P, the arming thread), the MMA warp (M, rank 0 only) and an
 *               epilogue warp (E; the kernel's four behave alike). Each reads every response in order:
 *               wait full[q] (its own CTA's) -> read the 16 bytes -> fence.proxy.async -> (P: arm) ->
 *               release (arrive on rank 0's empty[q], remote from the peer) -> go on with the response's unit,
 *               or leave the loop on a failed response.
 *   issuer      rank 0's producer, at the start of each unit (its own first unit included): wait empty[q] for
 *               the release of the slot's previous use, then try_cancel into slot q (multicast to the pair).
 *   response    each request in flight lands in each CTA of its mask at any later time: the queue is taken
 *               when it first lands (the same answer in every CTA), the 16 bytes are written, and complete_tx
 *               on that CTA's full[q]. A phase completes when its arming arrival and its bytes are both in.
 *   exit        the pair ends with a cluster barrier: a CTA exits once every reader of both CTAs has left its
 *               loop (one CTA: once its own have).
 *
 * Properties (a violation ends the exploration and prints the trace):
 *   a reader's read finds the response it waits for, written, whole (both halves of the same response);
 *   no response lands in a slot while a reader's read of the slot's previous response is not followed by its
 *   fence.proxy.async (the generic read ordered before the async write);
 *   no try_cancel after the issuing CTA observed a failed response (undefined behaviour in the PTX ISA);
 *   no waiter two phases behind (a parity wait would be ambiguous);
 *   no arrival, response or complete_tx reaches an exited CTA, and no CTA exits with a request in flight;
 *   at the end every reader of the pair went through the same units, and our units and the other clusters'
 *   are all of them, each once; no deadlock (a state with no step that is not the end).
 *
 * The mutants are the CLC failure classes of tools/mutation/mutants.py (there planted into the kernel and killed
 * by the emulation's happens-before tracking or a wrong result; here by these properties): release before read,
 * read before full, torn halves, no proxy fence, the epilogue stopping early, no trailing cluster sync.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clc_model.h"

enum { kSlots = 2, kMaxUnits = 4, kMaxReaders = 5, kMaxCtas = 2, kMaxTrace = 256 };

typedef enum clc_mutant {
    CLC_MUT_NONE = 0,
    CLC_MUT_RELEASE_BEFORE_READ,
    CLC_MUT_READ_BEFORE_FULL,
    CLC_MUT_TORN_HALVES,
    CLC_MUT_NO_PROXY_FENCE,
    CLC_MUT_EPILOGUE_STOPS_EARLY,
    CLC_MUT_NO_TRAILING_CLUSTER_SYNC,
    CLC_MUT_COUNT
} clc_mutant;

static const char *const clc_mutant_names[CLC_MUT_COUNT] = {"none",
                                                            "clc_release_before_read",
                                                            "clc_read_before_full",
                                                            "clc_torn_halves",
                                                            "clc_no_proxy_fence",
                                                            "clc_epilogue_stops_early",
                                                            "clc_no_trailing_cluster_sync"};

/* A reader's program: the steps of one response, in the order the (mutated) code takes them. */
typedef enum step_kind { S_WAIT, S_READ, S_READ_LO, S_READ_HI, S_FENCE, S_ARM, S_RELEASE, S_NEXT, S_END } step_kind;

typedef struct reader_def {
    int cta;
    char name; /* P, M, E */
    int arms;  /* the producer: arms its CTA's full[q], and on rank 0 issues */
    int epilogue;
} reader_def;

typedef struct config {
    int cg;    /* 1 or 2 CTAs */
    int units; /* U: units in the queue besides our own */
    clc_mutant mut;
} config;

/* ---------------------------------------------------------------- state */

typedef struct reader_state {
    uint8_t pc;           /* index into the program of the current response */
    uint8_t q;            /* the response it is at */
    uint8_t done;         /* left its loop */
    uint8_t issued;       /* P of rank 0: requests issued (it issues response `issued` at the start of a unit) */
    uint8_t unit_started; /* P of rank 0: the issue for the current unit is done */
    uint8_t units_mask;   /* units it went through */
    int8_t val_lo;        /* what it read: -2 nothing yet, -1 failed, u >= 0 unit u (lo half: valid + version) */
    int8_t ver_lo;        /* the response index the lo half came from */
    int8_t val;           /* the value it acts on */
    uint8_t unfenced;     /* bit q: it read slot q and has not fenced since */
    uint8_t saw_fail;     /* it observed a failed response */
} reader_state;

typedef struct slot_state {
    int8_t ver; /* the response index the slot holds (-1 none) */
    int8_t val; /* its answer: -1 failed, u >= 0 unit u */
    uint8_t full_phases, full_arrived;
    int8_t full_tx;
} slot_state;

typedef struct request {
    uint8_t active;
    uint8_t q;       /* response index */
    uint8_t pending; /* CTAs it has still to land in (bit mask) */
    int8_t val;      /* -3 not decided yet, -1 failed, u unit */
} request;

typedef struct state {
    reader_state r[kMaxReaders];
    slot_state s[kMaxCtas][kSlots];
    uint8_t empty_phases[kSlots], empty_arrived[kSlots];
    request req[kSlots];
    uint8_t next_unit;   /* the queue's next unit (1 .. U; U + 1: empty) */
    uint8_t others_mask; /* units the other clusters took */
    uint8_t exited[kMaxCtas];
} state;

typedef struct model {
    config cfg;
    reader_def rd[kMaxReaders];
    int nreaders;
    int readers_of_pair;
    step_kind prog[8];
    int nprog;
    /* visited states: open addressing on the whole state */
    state *table;
    size_t cap, count;
    char violation[256];
    long long transitions;
} model;

static uint64_t hash_state(const state *st)
{
    const uint8_t *b = (const uint8_t *)st;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < sizeof *st; ++i) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

/* 1 if st is new (and now recorded). */
static int visit(model *m, const state *st)
{
    if (m->count * 2 >= m->cap) {
        const size_t ncap = m->cap ? m->cap * 2 : (size_t)1 << 16;
        state *nt = calloc(ncap, sizeof *nt);
        if (!nt) {
            fprintf(stderr, "clc_model: out of memory\n");
            exit(2);
        }
        /* re-insert: a state with next_unit 0 is never valid (it starts at 1), so next_unit == 0 marks a free
         * entry */
        for (size_t i = 0; i < m->cap; ++i) {
            if (m->table[i].next_unit == 0) continue;
            size_t j = hash_state(&m->table[i]) & (ncap - 1);
            while (nt[j].next_unit != 0) j = (j + 1) & (ncap - 1);
            nt[j] = m->table[i];
        }
        free(m->table);
        m->table = nt;
        m->cap = ncap;
    }
    size_t j = hash_state(st) & (m->cap - 1);
    while (m->table[j].next_unit != 0) {
        if (memcmp(&m->table[j], st, sizeof *st) == 0) return 0;
        j = (j + 1) & (m->cap - 1);
    }
    m->table[j] = *st;
    m->count++;
    return 1;
}

/* ---------------------------------------------------------------- steps */

static int slot_of(int q)
{
    return q % kSlots;
}
static int use_of(int q)
{
    return q / kSlots;
}

static void full_check_complete(slot_state *sl)
{
    if (sl->full_arrived == 1 && sl->full_tx == 0) {
        sl->full_phases++;
        sl->full_arrived = 0;
    }
}

static int cta_all_done(const model *m, const state *st, int cta)
{
    for (int i = 0; i < m->nreaders; ++i)
        if ((cta < 0 || m->rd[i].cta == cta) && !st->r[i].done) return 0;
    return 1;
}

static int requests_to(const state *st, int cta)
{
    for (int k = 0; k < kSlots; ++k)
        if (st->req[k].active && (st->req[k].pending >> cta) & 1) return 1;
    return 0;
}

#define FAIL(...)                                                 \
    do {                                                          \
        snprintf(m->violation, sizeof m->violation, __VA_ARGS__); \
        return -1;                                                \
    } while (0)

/* The issuer's try_cancel for the unit it starts (rank 0's producer). 0: not enabled, 1: done, -1: violation. */
static int step_issue(model *m, state *st, int i)
{
    reader_state *r = &st->r[i];
    const int q = r->issued, sl = slot_of(q);
    if (st->empty_phases[sl] < use_of(q)) return 0; /* the slot's previous use is not released by everyone */
    if (r->saw_fail) FAIL("try_cancel after the issuing CTA observed a failed response");
    if (st->req[sl].active) FAIL("try_cancel into slot %d while its previous request is in flight", sl);
    st->req[sl] = (request){1, (uint8_t)q, (uint8_t)((1u << m->cfg.cg) - 1u), -3};
    r->issued++;
    r->unit_started = 1;
    return 1;
}

/* Request k lands in CTA c. */
static int step_land(model *m, state *st, int k, int c)
{
    request *rq = &st->req[k];
    if (st->exited[c]) FAIL("a try_cancel response lands in CTA %d after it exited", c);
    for (int i = 0; i < m->nreaders; ++i)
        if (m->rd[i].cta == c && ((st->r[i].unfenced >> k) & 1))
            FAIL("response %d lands in slot %d of CTA %d while reader %c%d's read of the slot is not followed by its "
                 "fence.proxy.async",
                 rq->q, k, c, m->rd[i].name, c);
    if (rq->val == -3) { /* the hardware takes the queue once, for every CTA of the mask */
        if (st->next_unit <= m->cfg.units)
            rq->val = (int8_t)st->next_unit++;
        else
            rq->val = -1;
    }
    slot_state *sl = &st->s[c][k];
    sl->ver = (int8_t)rq->q;
    sl->val = rq->val;
    sl->full_tx--;
    full_check_complete(sl);
    rq->pending &= (uint8_t) ~(1u << c);
    if (!rq->pending) rq->active = 0;
    return 1;
}

/* One step of reader i's program. */
static int step_reader(model *m, state *st, int i)
{
    reader_state *r = &st->r[i];
    const reader_def *d = &m->rd[i];
    const int c = d->cta, q = r->q, k = slot_of(q);
    slot_state *sl = &st->s[c][k];
    switch (m->prog[r->pc]) {
    case S_WAIT:
        if (sl->full_phases > use_of(q) + 1)
            FAIL("reader %c%d waits for use %d of slot %d two phases behind (%d completed)", d->name, c, use_of(q), k,
                 sl->full_phases);
        if (sl->full_phases <= use_of(q)) return 0;
        break;
    case S_READ:
        if (sl->ver != q)
            FAIL("reader %c%d reads response %d from slot %d, which holds response %d", d->name, c, q, k, sl->ver);
        r->val = sl->val;
        r->unfenced |= (uint8_t)(1u << k);
        break;
    case S_READ_LO:
        r->val_lo = sl->val;
        r->ver_lo = sl->ver;
        r->unfenced |= (uint8_t)(1u << k);
        break;
    case S_READ_HI:
        if (sl->ver != r->ver_lo || r->ver_lo != q)
            FAIL("reader %c%d's response %d is torn: one half from response %d, the other from response %d", d->name, c,
                 q, r->ver_lo, sl->ver);
        r->val = sl->val;
        r->unfenced |= (uint8_t)(1u << k);
        break;
    case S_FENCE: r->unfenced = 0; break;
    case S_ARM: {
        /* the producer arms its CTA's slot for its next use when the response said "more" (a read torn in
         * halves decides on its first half) */
        const int v = m->cfg.mut == CLC_MUT_TORN_HALVES ? r->val_lo : r->val;
        if (d->arms && v >= 0) {
            if (st->exited[c]) FAIL("an arrival on CTA %d after it exited", c);
            sl->full_arrived++;
            sl->full_tx++;
            if (sl->full_arrived > 1) FAIL("two arming arrivals in one phase of full[%d] of CTA %d", k, c);
            full_check_complete(sl);
        }
        break;
    }
    case S_RELEASE:
        if (st->exited[0])
            FAIL("reader %c%d releases response %d on rank 0's empty[%d] after rank 0 exited", d->name, c, q, k);
        st->empty_arrived[k]++;
        if (st->empty_arrived[k] == m->readers_of_pair) {
            st->empty_arrived[k] = 0;
            st->empty_phases[k]++;
        }
        break;
    case S_NEXT: {
        const int v = r->val;
        r->pc = 0;
        r->q++;
        r->val = -2;
        r->val_lo = -2;
        if (v < 0) {
            r->saw_fail = 1;
            r->done = 1;
            return 1;
        }
        if (m->cfg.mut == CLC_MUT_EPILOGUE_STOPS_EARLY && d->epilogue && v == m->cfg.units) {
            r->done = 1; /* the epilogue takes the grid's last unit for "no more work" */
            return 1;
        }
        r->units_mask |= (uint8_t)(1u << v);
        r->unit_started = 0;
        return 1;
    }
    case S_END: break;
    }
    r->pc++;
    return 1;
}

static int is_issuer(const model *m, int i)
{
    return m->rd[i].arms && m->rd[i].cta == 0;
}

/* The final state's properties. */
static int check_final(model *m, const state *st)
{
    const uint8_t ours = st->r[0].units_mask;
    for (int i = 1; i < m->nreaders; ++i)
        if (st->r[i].units_mask != ours)
            FAIL("the roles disagree: %c%d went through units 0x%x, %c%d through 0x%x", m->rd[0].name, m->rd[0].cta,
                 ours, m->rd[i].name, m->rd[i].cta, st->r[i].units_mask);
    const uint8_t all = (uint8_t)((1u << (m->cfg.units + 1)) - 1u);
    if ((ours & st->others_mask) != 0 || (ours | st->others_mask) != all || !(ours & 1u))
        FAIL("units 0x%x ours, 0x%x the other clusters', of 0x%x", ours, st->others_mask, all);
    return 0;
}

typedef struct trace_entry {
    char what[64];
} trace_entry;

/* Depth-first over every interleaving; 0 when every reachable state holds the properties. */
static int explore(model *m, const state *st, trace_entry *trace, int depth)
{
    if (!visit(m, st)) return 0;
    if (depth < kMaxTrace) trace[depth].what[0] = '\0';
    int enabled = 0;
    state nx;
#define TRY(call, ...)                                                                                 \
    do {                                                                                               \
        nx = *st;                                                                                      \
        const int rc_ = (call);                                                                        \
        if (rc_ != 0) {                                                                                \
            enabled = 1;                                                                               \
            m->transitions++;                                                                          \
            if (depth < kMaxTrace) snprintf(trace[depth].what, sizeof trace[depth].what, __VA_ARGS__); \
            if (rc_ < 0 || explore(m, &nx, trace, depth + 1) != 0) {                                   \
                if (rc_ < 0 && depth + 1 < kMaxTrace) trace[depth + 1].what[0] = '\0';                 \
                return 1;                                                                              \
            }                                                                                          \
        }                                                                                              \
    } while (0)
    for (int i = 0; i < m->nreaders; ++i) {
        const reader_state *r = &st->r[i];
        if (r->done) continue;
        if (is_issuer(m, i) && !r->unit_started && r->pc == 0)
            TRY(step_issue(m, &nx, i), "%c0 try_cancel -> response %d", m->rd[i].name, r->issued);
        else
            TRY(step_reader(m, &nx, i), "%c%d step %d of response %d", m->rd[i].name, m->rd[i].cta, r->pc, r->q);
    }
    for (int k = 0; k < kSlots; ++k)
        for (int c = 0; c < m->cfg.cg; ++c)
            if (st->req[k].active && ((st->req[k].pending >> c) & 1))
                TRY(step_land(m, &nx, k, c), "response %d lands in CTA %d", st->req[k].q, c);
    if (st->next_unit <= m->cfg.units) {
        nx = *st;
        nx.others_mask |= (uint8_t)(1u << nx.next_unit);
        nx.next_unit++;
        enabled = 1;
        m->transitions++;
        if (depth < kMaxTrace) snprintf(trace[depth].what, sizeof trace[depth].what, "another cluster takes a unit");
        if (explore(m, &nx, trace, depth + 1) != 0) return 1;
    }
    for (int c = 0; c < m->cfg.cg; ++c) {
        if (st->exited[c]) continue;
        const int trailing = m->cfg.mut != CLC_MUT_NO_TRAILING_CLUSTER_SYNC;
        if (!cta_all_done(m, st, trailing ? -1 : c)) continue;
        nx = *st;
        if (requests_to(&nx, c)) {
            snprintf(m->violation, sizeof m->violation, "CTA %d exits with a try_cancel response still to land in it",
                     c);
            if (depth < kMaxTrace) trace[depth].what[0] = '\0';
            return 1;
        }
        for (int k = 0; k < kSlots; ++k)
            if (c == 0 && nx.req[k].active) {
                snprintf(m->violation, sizeof m->violation, "CTA 0 exits with its try_cancel still in flight");
                if (depth < kMaxTrace) trace[depth].what[0] = '\0';
                return 1;
            }
        nx.exited[c] = 1;
        enabled = 1;
        m->transitions++;
        if (depth < kMaxTrace) snprintf(trace[depth].what, sizeof trace[depth].what, "CTA %d exits", c);
        if (explore(m, &nx, trace, depth + 1) != 0) return 1;
    }
#undef TRY
    if (!enabled) {
        int all_exited = 1;
        for (int c = 0; c < m->cfg.cg; ++c) all_exited &= st->exited[c];
        if (!all_exited) {
            snprintf(m->violation, sizeof m->violation, "deadlock: no step is enabled before the end");
            return 1;
        }
        if (check_final(m, st) != 0) return 1;
    }
    return 0;
}

static void model_setup(model *m, const config *cfg, state *st)
{
    memset(m, 0, sizeof *m);
    m->cfg = *cfg;
    int n = 0;
    for (int c = 0; c < cfg->cg; ++c) {
        m->rd[n++] = (reader_def){c, 'P', 1, 0};
        if (c == 0) m->rd[n++] = (reader_def){c, 'M', 0, 0}; /* the peer's MMA warp has no tile loop */
        m->rd[n++] = (reader_def){c, 'E', 0, 1};
    }
    m->nreaders = n;
    m->readers_of_pair = n;
    static const step_kind correct[] = {S_WAIT, S_READ, S_FENCE, S_ARM, S_RELEASE, S_NEXT};
    static const step_kind release_first[] = {S_WAIT, S_RELEASE, S_READ, S_FENCE, S_ARM, S_NEXT};
    static const step_kind read_first[] = {S_READ, S_FENCE, S_WAIT, S_ARM, S_RELEASE, S_NEXT};
    static const step_kind torn[] = {S_WAIT, S_READ_LO, S_FENCE, S_ARM, S_RELEASE, S_READ_HI, S_NEXT};
    static const step_kind no_fence[] = {S_WAIT, S_READ, S_ARM, S_RELEASE, S_NEXT};
    const step_kind *p = correct;
    int np = (int)(sizeof correct / sizeof correct[0]);
    if (cfg->mut == CLC_MUT_RELEASE_BEFORE_READ) p = release_first, np = (int)(sizeof release_first / sizeof *p);
    if (cfg->mut == CLC_MUT_READ_BEFORE_FULL) p = read_first, np = (int)(sizeof read_first / sizeof *p);
    if (cfg->mut == CLC_MUT_TORN_HALVES) p = torn, np = (int)(sizeof torn / sizeof *p);
    if (cfg->mut == CLC_MUT_NO_PROXY_FENCE) p = no_fence, np = (int)(sizeof no_fence / sizeof *p);
    memcpy(m->prog, p, (size_t)np * sizeof *p);
    m->nprog = np;
    memset(st, 0, sizeof *st);
    for (int i = 0; i < n; ++i) {
        st->r[i].val = st->r[i].val_lo = -2;
        st->r[i].ver_lo = -1;
        st->r[i].units_mask = 1u; /* our own unit, 0 */
    }
    for (int c = 0; c < cfg->cg; ++c)
        for (int k = 0; k < kSlots; ++k) st->s[c][k] = (slot_state){-1, -1, 0, 1, 1}; /* armed for use 0 */
    st->next_unit = 1;
}

/* Explore one configuration: 0 when it holds, 1 with m->violation set. */
static int run_one(const config *cfg, int print_trace, long long *states, long long *transitions, char *why,
                   size_t why_size)
{
    model m;
    state st;
    model_setup(&m, cfg, &st);
    trace_entry *trace = calloc(kMaxTrace, sizeof *trace);
    const int bad = explore(&m, &st, trace, 0);
    if (bad && print_trace) {
        printf("    trace:");
        for (int i = 0; i < kMaxTrace && trace[i].what[0]; ++i) printf("%s %s", i ? ";" : "", trace[i].what);
        printf("\n");
    }
    snprintf(why, why_size, "%s", m.violation);
    *states = (long long)m.count;
    *transitions = m.transitions;
    free(trace);
    free(m.table);
    return bad;
}

int clc_model_run(void)
{
    int fails = 0;
    char why[256];
    long long states, transitions;
    /* the correct hand-off: one CTA with 0 to kMaxUnits units in the queue, the pair with 0 to kMaxUnits - 2 (more
     * than a million states already) */
    for (int cg = 1; cg <= 2; ++cg)
        for (int u = 0; u <= (cg == 2 ? kMaxUnits - 2 : kMaxUnits); ++u) {
            const config cfg = {cg, u, CLC_MUT_NONE};
            const int bad = run_one(&cfg, 1, &states, &transitions, why, sizeof why);
            printf("clc correct cta_group %d, %d queued units: %s (%lld states, %lld transitions)%s%s\n", cg, u,
                   bad ? "VIOLATION" : "holds", states, transitions, bad ? ": " : "", bad ? why : "");
            fails += bad;
        }
    /* every failure class must be caught in some configuration (the pair: every one of them) */
    for (int mu = 1; mu < CLC_MUT_COUNT; ++mu) {
        int caught = 0;
        for (int cg = 1; cg <= 2 && !caught; ++cg)
            for (int u = 0; u <= 3 && !caught; ++u) {
                const config cfg = {cg, u, (clc_mutant)mu};
                if (run_one(&cfg, 0, &states, &transitions, why, sizeof why)) {
                    caught = 1;
                    printf("clc mutant %-30s caught (cta_group %d, %d queued units, %lld states): %s\n",
                           clc_mutant_names[mu], cg, u, states, why);
                }
            }
        if (!caught) printf("clc mutant %-30s NOT CAUGHT\n", clc_mutant_names[mu]);
        fails += !caught;
    }
    printf("clc: %s\n", fails ? "FAIL" : "PASS");
    return fails;
}
