/* tm_rng_fns.c -- placeholder table; the module's functions are being written. */
#include "tm_tables.h"
const tm_fn tm_fns_rng[] = { {NULL, NULL, NULL, NULL} };
