/* tm_matrix.c -- placeholder table; the module's functions are being written. */
#include "tm_tables.h"
const tm_fn tm_fns_matrix[] = { {NULL, NULL, NULL, NULL} };
