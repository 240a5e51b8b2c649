/*
** tm.h -- the math library: values, the call convention, the function table.
**
** Every Stan function is one table entry (tm_fn) naming its kernel.  A kernel
** takes its arguments as tm_v values and writes one tm_v result.  The same
** kernel serves data (double) and autodiff arguments: an argument with
** adj != NULL is autodiff, and a kernel that sees one records exactly one node
** on the active tape (ad.h) whose reverse step updates the arguments'
** adjoints.  Results live in the active stack's arena.
**
** Adding a function: write its kernel (or reuse a generic one with `data`,
** as the scalar functions do) and add one entry to the table of its module.
*/
#ifndef TM_H
#define TM_H

#include <stddef.h>
#include <stdint.h>
#include "../ad/ad.h"

/* ---- values ---- */
enum { TM_INT = 0, TM_REAL, TM_VECTOR, TM_ROW_VECTOR, TM_MATRIX,
       /* complex: each element is a (re, im) pair of doubles, interleaved in
       ** val (and adj), so a complex value holds 2 * tm_numel doubles */
       TM_COMPLEX, TM_CVECTOR, TM_CROW_VECTOR, TM_CMATRIX };
#define TM_MAXARR 8

/* A Stan value: an int or real, a vector, row vector or matrix, or an array
** of any of these with narr dimensions dim[0..narr-1].  Storage is one flat
** block: arrays are laid out by their leading index first (element i of the
** leading dimension is a contiguous block), each matrix column-major inside.
** So a slice over the leading index, a column of a matrix or a vector
** element is a view, with no copy. */
typedef struct tm_v {
  double *val;             /* real values; NULL for ints */
  double *adj;             /* adjoints parallel to val; NULL for data */
  int *ival;               /* int values when base == TM_INT */
  unsigned char base;      /* TM_INT ... TM_MATRIX */
  unsigned char narr;      /* array dimensions, 0 when not an array */
  /* Depends on parameters although adj == NULL: set by an evaluation of the
  ** log density in doubles, so that dropping constants (propto) gives the
  ** same value as on the tape. */
  unsigned char dep;
  int rows, cols;          /* 1 x 1 for int and real; n x 1 vector; 1 x n row vector */
  int dim[TM_MAXARR];
} tm_v;

static inline size_t tm_numel(const tm_v *v) {
  size_t n = (size_t)v->rows * (size_t)v->cols;
  for (int i = 0; i < v->narr; i++) n *= (size_t)v->dim[i];
  return n;
}
/* int or real, not an array: broadcast against containers */
static inline int tm_is_scalar(const tm_v *v) {
  return v->narr == 0 && (v->base == TM_INT || v->base == TM_REAL);
}
static inline int tm_is_complex(const tm_v *v) { return v->base >= TM_COMPLEX && v->base <= TM_CMATRIX; }
/* doubles held in val: tm_numel, twice that for complex values */
static inline size_t tm_nval(const tm_v *v) { return tm_numel(v) * (tm_is_complex(v) ? 2u : 1u); }
static inline int tm_is_ad(const tm_v *v) { return v->adj != NULL; }
/* Constant for propto: a term that depends only on such values is dropped. */
static inline int tm_is_const(const tm_v *v) { return v->adj == NULL && !v->dep; }
/* Element i as a double (ints converted); scalars broadcast. */
static inline double tm_get(const tm_v *v, size_t i) {
  if (v->base == TM_INT) return (double)(tm_is_scalar(v) ? v->ival[0] : v->ival[i]);
  return tm_is_scalar(v) ? v->val[0] : v->val[i];
}
static inline int tm_geti(const tm_v *v, size_t i) {
  return tm_is_scalar(v) ? v->ival[0] : v->ival[i];
}

/* Views of caller-owned memory (no allocation). */
tm_v tm_int_view(int *p);
tm_v tm_real_view(double *val, double *adj);
tm_v tm_vector_view(double *val, double *adj, int n);
tm_v tm_row_vector_view(double *val, double *adj, int n);
/* Element i of the leading array dimension of an array (a view). */
tm_v tm_elem(const tm_v *v, int i);

/* New values in the active arena; ad != 0 allocates zeroed adjoints. */
int tm_new_real(tm_v *out, int ad);
int tm_new_int(tm_v *out);
int tm_new_int_array(tm_v *out, int n);                 /* array[n] int */
int tm_new_vector(tm_v *out, int n, int ad);
int tm_new_row_vector(tm_v *out, int n, int ad);
int tm_new_matrix(tm_v *out, int rows, int cols, int ad);
int tm_new_like(tm_v *out, const tm_v *shape, int ad);   /* same type and shape, real */
/* A real (double) result; a scalar autodiff result comes from ad_unary & co. */
int tm_set_real(tm_v *out, double x);
int tm_set_var(tm_v *out, ad_var x);                     /* out = x, autodiff */
int tm_set_int(tm_v *out, int x);

/* Arena copy of v's values (ints converted), NULL when out of memory: what
** a node keeps of an argument for its reverse step. */
double *tm_copy_vals(const tm_v *v);
/* Any argument autodiff? */
int tm_any_ad(const tm_v *a, int n);
/* Any argument autodiff or marked dep?  A result computed from it is then
** marked dep too, so propto drops the same terms on doubles as on the tape. */
int tm_any_dep(const tm_v *a, int n);
/* A real result with its operands (ad.h): one node over the k operands, or
** for k == 0 a plain real marked dep (as tm_any_dep). */
int tm_set_operands(tm_v *out, int k, const ad_operand *ops, double x, int dep);
/* The same from arguments and their partials: d[i] holds tm_numel(&a[i])
** partials when a[i] is autodiff (see tm_new_partials); nargs <= 8. */
int tm_set_partials(tm_v *out, const tm_v *a, double *const *d, int nargs, double x);
/* Zeroed partials for v when it is autodiff, else NULL; on failure NULL
** and *rc = AD_EMEMORY, so that several can be asked for before one check. */
double *tm_new_partials(const tm_v *v, int *rc);
/* Stan's type name of a value ("vector", "array[] real"), for messages. */
const char *tm_type_name(const tm_v *v, char *buf, size_t size);

/* ---- random numbers (src/math/core/tm_rng.c) ---- */
/* xoshiro256++; seeded from (seed, stream) so chain k has stream k and
** transformed data stream 0.  Never global: each chain owns one. */
typedef struct tm_rng { uint64_t s[4]; } tm_rng;
void     tm_rng_seed(tm_rng *r, uint64_t seed, uint64_t stream);
uint64_t tm_rng_next(tm_rng *r);
double   tm_rng_uniform(tm_rng *r);             /* (0, 1), never 0 or 1 */
double   tm_rng_normal(tm_rng *r);              /* standard normal */

/* ---- the call convention ---- */
typedef struct tm_fn tm_fn;
typedef struct tm_call {
  const tm_fn *fn;         /* the table entry being called */
  int propto;              /* drop constant terms, as Stan's ~ and _lupdf do */
  tm_rng *rng;             /* the caller's generator, for _rng functions */
  unsigned frozen;         /* bit i: args[i]'s values stay as they are until the reverse
                              pass is over (a plan's constant), so a node may keep a
                              pointer to them rather than a copy */
  const double *konst;     /* a density's term of data alone, computed once for these
                              arguments by tm_dens_konst (a plan keeps it), or NULL:
                              the kernel computes it, to the same bits */
} tm_call;

typedef int (*tm_kernel)(const tm_call *c, const tm_v *args, int nargs, tm_v *out);

/* sig lists the Stan signatures the kernel accepts, separated by ';', each
** written as `result(arg, arg, ...)` in Stan's type names (int, real,
** vector, row_vector, matrix, array[] T, array[,] T) plus these families:
**   reals   real, array[] real, vector or row_vector (densities broadcast them)
**   ints    int or array[] int
**   vectors vector, row_vector, array[] vector or array[] row_vector
**   T       any int or real type; the result has the argument's shape with
**           int promoted to real (vectorized unary functions)
**   R       real-valued T with the same shape as the T arguments
** and for complex values (tm_complex*.c), where ints, reals and real
** containers promote to the complex type of their shape:
**   Z       any complex type; all Zs of one signature have one shape, and a
**           result Z has it; Zm the same without arrays; Zx only complex
**           arguments (no promotion)
**   ZR      (result) the real type of the Z shape (get_real, abs)
**   ZT      (result) the complex type of the T shape (to_complex) */
struct tm_fn {
  const char *name;
  const char *sig;
  tm_kernel kernel;
  const void *data;        /* for generic kernels, e.g. a tm_unary_def */
};

/* All entries with this name, or NULL; *count set to their number.  Entries
** of one name are adjacent after tm_table_init. */
const tm_fn *tm_lookup(const char *name, int *count);
int          tm_table_size(void);
const tm_fn *tm_table_entry(int i);
int          tm_table_init(void);
/* ---- a kernel's blocks on the evaluation's threads (core/tm_for.c) ----
** tm_for runs fn(ctx, b) for every block b < nblocks: through the runner
** the package installed (src/par's pp_for) when the evaluation may use more
** than one thread, else in order here.  fn touches no tape and writes only
** what block b owns; the kernel adds the blocks' results in block order.
** work: the call's size in the kernel's unit (elements, multiply-adds), by
** which the runner measures whether threads pay for this kernel. */
typedef void (*tm_for_run)(int nblocks, double work, void (*fn)(void *ctx, int block), void *ctx);
typedef int (*tm_for_threads_fn)(void);
void tm_set_for(tm_for_run run, tm_for_threads_fn threads);
int  tm_for_threads(void);     /* threads the running evaluation may use (1 without a runner) */
void tm_for(int nblocks, double work, void (*fn)(void *ctx, int block), void *ctx);

/* Call by entry: fills a tm_call and runs the kernel. */
int tm_invoke(const tm_fn *fn, int propto, tm_rng *rng, const tm_v *args, int nargs, tm_v *out);
/* The same for a plan's call: frozen and konst as in tm_call, no generator. */
int tm_invoke_frozen(const tm_fn *fn, int propto, const tm_v *args, int nargs, unsigned frozen,
                     const double *konst, tm_v *out);
/* A density's term of data alone (poisson_log's lgamma(y + 1) sum, with
** its constants kept), which a plan whose call has those arguments as
** constants computes once and passes as tm_call's konst.  1 with *out set,
** 0 when the call has none. */
int tm_dens_konst(const tm_fn *fn, int propto, const tm_v *args, int nargs, double *out);

/* ---- checks shared by kernels: return AD_OK or fail with Stan's wording ---- */
int tm_check_size_match(const char *fn, const char *name1, size_t n1, const char *name2, size_t n2);
int tm_check_finite(const char *fn, const char *arg, const tm_v *v);
int tm_check_not_nan(const char *fn, const char *arg, const tm_v *v);
int tm_check_positive(const char *fn, const char *arg, const tm_v *v);
int tm_check_positive_finite(const char *fn, const char *arg, const tm_v *v);
int tm_check_nonnegative(const char *fn, const char *arg, const tm_v *v);
int tm_check_bounded(const char *fn, const char *arg, const tm_v *v, double lo, double hi);
int tm_check_square(const char *fn, const char *arg, const tm_v *v);
/* Stan's check_consistent_size: a container argument of the glms has got
** elements where want were expected. */
int tm_check_consistent_size(const char *fn, const char *arg, size_t got, size_t want);
/* A call no overload of the kernel accepts: the checker should have refused
** it, but a bad call must fail, never crash.  Names the argument types. */
int tm_no_overload(const tm_call *c, const tm_v *a, int nargs);
int tm_check_nonzero_size(const char *fn, const char *arg, const tm_v *v);

/* ---- vectorized densities: the frame every _lpdf/_lpmf kernel fills ---- */
#define TM_DENS_MAXARGS 8
typedef struct tm_dens {
  const char *fn;          /* Stan name, for messages */
  const tm_v *a;
  int nargs;
  size_t n;                /* broadcast length: the common size of the container arguments */
  int propto;
  /* d[i]: partials for argument i, NULL unless it is autodiff; one entry per
  ** element (a scalar argument has one, accumulated over the broadcast). */
  double *d[TM_DENS_MAXARGS];
  /* x[i][j * inc[i]]: element j of the broadcast of argument i as a double
  ** (ints converted once), inc 0 for scalars; for kernels' inner loops. */
  const double *x[TM_DENS_MAXARGS];
  size_t inc[TM_DENS_MAXARGS];
  /* bit i: a[i] is a plan's constant (tm_call.frozen), whose checks passed
  ** when the plan was recorded: tm_dens_run_checks skips them.  Set by the
  ** kernels whose a is their own argument list; 0 from tm_dens_begin. */
  unsigned frozen;
} tm_dens;

/* Check that container arguments agree in size (names[i] is the argument's
** name in Stan's messages: "Random variable", "Location parameter"...),
** allocate zeroed partials for autodiff arguments, and set x and inc. */
int tm_dens_begin(tm_dens *D, const tm_call *c, const tm_v *a, int nargs, const char *const *names);
/* The same, but the partials of container arguments are left uninitialised:
** for kernels that assign every element (saves a pass over memory). */
int tm_dens_begin_assign(tm_dens *D, const tm_call *c, const tm_v *a, int nargs,
                         const char *const *names);
/* The same as tm_dens_begin, but int arguments are not copied to doubles
** (x[i] NULL): for kernels that read them from a[i].ival (the elementwise
** masses: a copy of 20,000 counts was a tenth of hier_poisson's gradient). */
int tm_dens_begin_ints(tm_dens *D, const tm_call *c, const tm_v *a, int nargs, const char *const *names);
/* Keep a term that depends on the arguments in mask (bit i = argument i)? */
static inline int tm_dens_keep(const tm_dens *D, unsigned mask) {
  if (!D->propto) return 1;
  for (int i = 0; i < D->nargs; i++)
    if ((mask >> i & 1u) && !tm_is_const(&D->a[i])) return 1;
  return 0;
}
/* Accumulate partial g for argument i at broadcast index j. */
static inline void tm_dens_add(tm_dens *D, int i, size_t j, double g) {
  if (D->d[i]) D->d[i][tm_is_scalar(&D->a[i]) ? 0 : j] += g;
}
/* Result: a real, or one operands node when any argument is autodiff. */
int tm_dens_end(tm_dens *D, double logp, tm_v *out);
/* A univariate density defined as data (tm_dens_def.h's kernel)? */
int tm_is_dens_def(const tm_fn *fn);
/* Such a density without its node, for a caller that runs the reverse step
** itself (a plan's call): the log density in *logp and, per autodiff
** argument with elements, its adjoints and partials in ops (room for
** TM_DENS_MAXARGS), in the order the node would take them; its reverse
** step is adj[i] += adjoint * partial[i], operand after operand.  *nops is
** -1 when no argument is autodiff (the kernel would have made a real). */
int tm_dens_def_direct(const tm_call *c, const tm_v *a, int nargs, double *logp, ad_operand *ops,
                       int *nops);

#endif
