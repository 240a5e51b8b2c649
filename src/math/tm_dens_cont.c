/* tm_dens_cont.c -- placeholder table; the module's functions are being written. */
#include "tm_tables.h"
const tm_fn tm_fns_dens_cont[] = { {NULL, NULL, NULL, NULL} };
