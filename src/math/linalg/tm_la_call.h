/*
** tm_la_call.h -- what the kernels of linalg/ share about their calls (not
** the layer's interface: tm_linalg.h has the dense kernels on doubles).
*/
#ifndef TM_LA_CALL_H
#define TM_LA_CALL_H
#include "../tm.h"

/* "f: no overload for arguments (matrix, vector)": the message of a call
** whose arguments (up to three named) no branch of the kernel takes
** (tm_matrix.c) */
int tm_la_no_overload(const tm_call *c, const tm_v *a, int nargs);

#endif
