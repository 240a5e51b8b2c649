/* tm_scalar.c -- placeholder table; the module's functions are being written. */
#include "tm_tables.h"
const tm_fn tm_fns_scalar[] = { {NULL, NULL, NULL, NULL} };
