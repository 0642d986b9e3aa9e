// SPDX-License-Identifier: MIT
/*
 * clc_model.h - the cluster launch control hand-off model (clc_model.c), case "clc" of protocol_model.
 */
#ifndef WSGEMM_TESTS_MODEL_CLC_MODEL_H
#define WSGEMM_TESTS_MODEL_CLC_MODEL_H

/* Explore the correct hand-off (one CTA and the pair) and every planted CLC failure class; prints one line per
 * configuration and mutant. Returns the number of failures (a violation of the correct protocol, or a mutant
 * not caught). */
int clc_model_run(void);

#endif /* WSGEMM_TESTS_MODEL_CLC_MODEL_H */
