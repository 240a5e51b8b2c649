/* tm_dens_disc.c -- placeholder table; the module's functions are being written. */
#include "tm_tables.h"
const tm_fn tm_fns_dens_disc[] = { {NULL, NULL, NULL, NULL} };
