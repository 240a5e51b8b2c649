/* tm_container.c -- placeholder table; the module's functions are being written. */
#include "tm_tables.h"
const tm_fn tm_fns_container[] = { {NULL, NULL, NULL, NULL} };
