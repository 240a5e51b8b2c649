/*
** tm_scalar.h -- the generic elementwise kernels of scalar/tm_scalar_kernel.c,
** for modules that add elementwise functions (scalar/tm_elementary.c,
** tm_numeric.c, tm_special_elem.c ...): a function is a def (the table entry's
** data) plus a table line naming one of these kernels.
**
** Both kernels serve ints, reals and every container; an autodiff container
** call records one node, a scalar call Stan's usual single scalar node.
*/
#ifndef TM_SCALAR_H
#define TM_SCALAR_H
#include "tm.h"

typedef struct tm_unary_def {
  double (*f)(double x);
  double (*df)(double x, double fx);
  /* Stan's domain check, when it has one: fail when bad(x), the message
  ** ending in "must <must>". */
  int (*bad)(double x);
  const char *must;
  /* int -> int version (minus, abs), or NULL: ints then promote to real */
  int (*fi)(const char *fn, int x, int *r);
  const char *xname;         /* the argument's name in messages; NULL: "x" */
  /* costly (lgamma, digamma): a plan's replay keeps the last argument and
  ** result, and takes them again for the same argument (pl_step.h) */
  unsigned char memo;
} tm_unary_def;

typedef struct tm_binary_def {
  double (*f)(double x, double y);
  double (*dx)(double x, double y, double f);
  double (*dy)(double x, double y, double f);
  /* Stan's domain checks, or NULL; at is "[i]" or "" for messages */
  int (*check)(const char *fn, const char *at, double x, double y);
  /* int op int -> int (the arithmetic operators), or NULL: ints promote */
  int (*fi)(const char *fn, int x, int y, int *r);
  int y_scalar;              /* divide: the second argument must be a scalar */
} tm_binary_def;

/* The plain defs: the function and its derivatives alone (no domain check,
** no int form; for a unary one no argument name and no memo) */
#define TM_PLAIN_UNARY(f, df) {f, df, NULL, NULL, NULL, NULL, 0}
#define TM_PLAIN_BINARY(f, dx, dy) {f, dx, dy, NULL, NULL, 0}

/* c->fn->data is a tm_unary_def / tm_binary_def */
int tm_unary_kernel(const tm_call *c, const tm_v *a, int nargs, tm_v *out);
int tm_binary_kernel(const tm_call *c, const tm_v *a, int nargs, tm_v *out);
/* tm_binary_kernel with a def of the caller's (modulus, the two-argument
** log_sum_exp), fn naming the function in messages */
int tm_binary_apply(const char *fn, const tm_binary_def *d, const tm_v *a, int nargs, tm_v *out);
/* the f of add and subtract: tm_binary_apply runs a container's sum or
** difference without a call per element when it sees them */
double tm_scalar_add(double x, double y);
double tm_scalar_sub(double x, double y);
/* x + y (x - y with sub) of reals with a container among them, n elements
** (a scalar, xs or ys, read at 0 throughout), into o; and its node's
** reverse step for one operand: adj[0] += the sum of oadj (of -oadj with
** neg) for a scalar, else adj[i] += oadj[i] (-= with neg).  Also run by a
** plan's call that made no node (src/plan). */
void tm_addsub_values(int sub, const double *xv, int xs, const double *yv, int ys, size_t n, double *o);
void tm_addsub_back(double *adj, int scalar, int neg, const double *oadj, size_t n);

/* The reverse step of an elementwise map with partials d: adj[0] += sum_i
** oadj[i] d[i] for a broadcast scalar operand, else adj[i] += oadj[i] d[i];
** nothing when adj is NULL (data).  The generic kernels' node and the
** bounds' nodes of transform/ run on it. */
static inline void tm_add_partials(double *adj, int scalar, const double *oadj, const double *d, size_t n) {
  if (!adj) return;
  if (scalar) {
    double s = 0;
    for (size_t i = 0; i < n; i++) s += oadj[i] * d[i];
    adj[0] += s;
  } else {
    for (size_t i = 0; i < n; i++) adj[i] += oadj[i] * d[i];
  }
}

/* One node for an elementwise result over up to four operands with n
** partials each (tm_scalar_kernel.c): tm_ew_node_new records it, then each
** operand with adjoints is added in order.  fma of containers (tm_vecfn.c)
** and student_t_qf run on it. */
typedef struct tm_ew_node {
  ad_node hdr;
  size_t n;
  int k;                     /* operands added */
  const double *oadj;        /* the result's adjoints */
  double *adj[4];
  const double *d[4];
  int scalar[4];             /* operand is a broadcast scalar: sum into adj[0] */
} tm_ew_node;
tm_ew_node *tm_ew_node_new(size_t n, const double *oadj);   /* NULL when out of memory */
void tm_ew_node_add(tm_ew_node *e, double *adj, const double *d, int scalar);

/* The Stan name of the call, for messages. */
static inline const char *tm_fn_name(const tm_call *c) {
  return c && c->fn && c->fn->name ? c->fn->name : "function";
}

/* An int array of the same shape as v. */
int tm_new_int_like(tm_v *out, const tm_v *v);
/* Binary functions of an int array and a real container: the int array
** array[d1, .., dk, n] int pairs with array[d1, .., dk] vector (or row_vector)
** and array[d1, .., dk, r, c] int with array[d1, .., dk] matrix (element
** [.., i, j] with (i, j)).  When x and y are such a pair, *xm and *ym are
** views of them with the int one copied as real data in the other's layout;
** otherwise copies of x and y. */
int tm_pair_int_array(const char *fn, const tm_v *x, const tm_v *y, tm_v *xm, tm_v *ym);

/* Stan's binary vectorization as sig strings.  An int-typed argument pairs
** with a real-typed one of its layout (tm_pair_int_array): array[] int with
** vector, row_vector and array[] real; array[,] int with matrix, array[]
** vector ... and array[,] real; an int array also goes with a real scalar. */
#define TM_A1 "array[] "
#define TM_A2 "array[,] "
#define TM_A3 "array[,,] "
#define TM_A4 "array[,,,] "
#define TM_A5 "array[,,,,] "
#define TM_A6 "array[,,,,,] "
#define TM_A7 "array[,,,,,,] "
#define TM_A8 "array[,,,,,,,] "
/* The pairs of an int array with the real containers of its layout, arrays
** of up to 8 dimensions, in one order of arguments: D(A) the reals, V(A, A1)
** the vectors, M(A, A2) the matrices (A the int array's dimensions, A1 and A2
** the real container's) */
#define TM_SIG_INT_ARRAY_PAIRS(D, V, M) \
  D(TM_A1) V(TM_A1, "") D(TM_A2) V(TM_A2, TM_A1) M(TM_A2, "") \
  D(TM_A3) V(TM_A3, TM_A2) M(TM_A3, TM_A1) D(TM_A4) V(TM_A4, TM_A3) \
  M(TM_A4, TM_A2) D(TM_A5) V(TM_A5, TM_A4) M(TM_A5, TM_A3) D(TM_A6) \
  V(TM_A6, TM_A5) M(TM_A6, TM_A4) D(TM_A7) V(TM_A7, TM_A6) M(TM_A7, TM_A5) \
  D(TM_A8) V(TM_A8, TM_A7) M(TM_A8, TM_A6)
/* f(int-typed, real-typed) */
#define TM_FI_D(A) A "real(" A "int, real); " A "real(" A "int, " A "real); "
#define TM_FI_V(A, A1) A1 "vector(" A "int, " A1 "vector); " A1 "row_vector(" A "int, " A1 "row_vector); "
#define TM_FI_M(A, A2) A2 "matrix(" A "int, " A2 "matrix); "
#define TM_SIG_INT_REAL "real(int, real); R(int, T); " TM_SIG_INT_ARRAY_PAIRS(TM_FI_D, TM_FI_V, TM_FI_M)
/* f(real-typed, int-typed) */
#define TM_SI_D(A) A "real(real, " A "int); " A "real(" A "real, " A "int); "
#define TM_SI_V(A, A1) A1 "vector(" A1 "vector, " A "int); " A1 "row_vector(" A1 "row_vector, " A "int); "
#define TM_SI_M(A, A2) A2 "matrix(" A2 "matrix, " A "int); "
#define TM_SIG_REAL_INT "real(real, int); R(T, int); " TM_SIG_INT_ARRAY_PAIRS(TM_SI_D, TM_SI_V, TM_SI_M)
/* f(int-typed, int-typed) -> int-typed, for defs with fi; put before the real forms */
#define TM_II_D(A) A "int(" A "int, int); " A "int(int, " A "int); " A "int(" A "int, " A "int); "
#define TM_SIG_INT_INT "int(int, int); " TM_II_D(TM_A1) TM_II_D(TM_A2) TM_II_D(TM_A3) TM_II_D(TM_A4) \
  TM_II_D(TM_A5) TM_II_D(TM_A6) TM_II_D(TM_A7) TM_II_D(TM_A8)
/* f(real-typed, real-typed) */
#define TM_SIG_REAL_REAL "real(real, real); R(T, real); R(real, T); R(T, T)"
/* unary int arrays -> int arrays (abs, minus) */
#define TM_SIG_INT_ARRAYS "int(int); " TM_A1 "int(" TM_A1 "int); " TM_A2 "int(" TM_A2 "int); " \
  TM_A3 "int(" TM_A3 "int); " TM_A4 "int(" TM_A4 "int); " TM_A5 "int(" TM_A5 "int); " \
  TM_A6 "int(" TM_A6 "int); " TM_A7 "int(" TM_A7 "int); " TM_A8 "int(" TM_A8 "int); "

/* A table row (tm_fn) of a def run by the generic kernels, the def named
** def_<name>: a function of one real (R(T)), of two reals, of an int and a
** real */
#define TM_UNARY_FN(name) {#name, "R(T)", tm_unary_kernel, &def_##name}
#define TM_BINARY_FN(name) {#name, TM_SIG_REAL_REAL, tm_binary_kernel, &def_##name}
#define TM_INT_REAL_FN(name) {#name, TM_SIG_INT_REAL, tm_binary_kernel, &def_##name}

#endif
