/*
** tm_table.c -- one sorted table of every function, built once.
**
** The modules' tables are concatenated and sorted by name (stably, so a
** module's order of overloads is kept); lookup is a binary search.  The
** interpreter resolves names at check time, never during evaluation.
*/
#include <stdlib.h>
#include <string.h>
#include "../tm_tables.h"
#include "../tm_special.h"

static const tm_fn *const modules[] = {
  tm_fns_scalar, tm_fns_container, tm_fns_matrix,
  tm_fns_numeric,
  tm_fns_build, tm_fns_sort, tm_fns_matrix_ops, tm_fns_solve, tm_fns_eigen,
  tm_fns_gp, tm_fns_glm, tm_fns_transform,
  tm_fns_wishart, tm_fns_multi_normal, tm_fns_multi_student_t, tm_fns_multi_gp, tm_fns_lkj,
  tm_fns_dirichlet, tm_fns_dlm,
  tm_fns_hmm, tm_fns_sparse, tm_fns_matfun,
  tm_fns_special_elem, tm_fns_hyper, tm_fns_vecfn,
  tm_fns_normal, tm_fns_student_t, tm_fns_cauchy, tm_fns_double_exponential, tm_fns_logistic,
  tm_fns_lognormal, tm_fns_exponential, tm_fns_gamma, tm_fns_inv_gamma, tm_fns_weibull,
  tm_fns_beta, tm_fns_uniform, tm_fns_gumbel, tm_fns_pareto, tm_fns_pareto_type_2, tm_fns_frechet,
  tm_fns_rayleigh, tm_fns_chi_square, tm_fns_inv_chi_square, tm_fns_scaled_inv_chi_square,
  tm_fns_skew_normal, tm_fns_exp_mod_normal, tm_fns_von_mises, tm_fns_skew_double_exponential,
  tm_fns_loglogistic,
  tm_fns_wiener,
  tm_fns_bernoulli, tm_fns_binomial, tm_fns_poisson, tm_fns_neg_binomial,
  tm_fns_beta_binomial, tm_fns_beta_neg_binomial, tm_fns_discrete_range,
  tm_fns_yule_simon, tm_fns_categorical, tm_fns_ordered, tm_fns_multinomial,
  tm_fns_hypergeometric, tm_fns_dirichlet_multinomial,
  tm_fns_complex, tm_fns_complex_mat, tm_fns_complex_cont, tm_fns_complex_eigen,
};

static tm_fn *table;
static int ntable;


typedef struct { tm_fn f; int order; } ordered;

static int by_name_order(const void *a, const void *b) {
  const ordered *x = a, *y = b;
  int c = strcmp(x->f.name, y->f.name);
  return c ? c : (x->order > y->order) - (x->order < y->order);
}

/* Called once from R's main thread at load, before any worker exists. */
int tm_table_init(void) {
  tm_special_init();
  if (table) return AD_OK;
  int n = 0;
  for (size_t m = 0; m < sizeof modules / sizeof *modules; m++)
    for (const tm_fn *f = modules[m]; f->name; f++) n++;
  ordered *tmp = malloc((size_t)(n ? n : 1) * sizeof *tmp);
  tm_fn *t = malloc((size_t)(n ? n : 1) * sizeof *t);
  if (!tmp || !t) { free(tmp); free(t); return ad_fail(AD_EMEMORY, "out of memory building the function table"); }
  int k = 0;
  for (size_t m = 0; m < sizeof modules / sizeof *modules; m++)
    for (const tm_fn *f = modules[m]; f->name; f++) { tmp[k].f = *f; tmp[k].order = k; k++; }
  qsort(tmp, (size_t)n, sizeof *tmp, by_name_order);
  for (int i = 0; i < n; i++) t[i] = tmp[i].f;
  free(tmp);
  table = t;
  ntable = n;
  return AD_OK;
}

const tm_fn *tm_lookup(const char *name, int *count) {
  int lo = 0, hi = ntable;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (strcmp(table[mid].name, name) < 0) lo = mid + 1; else hi = mid;
  }
  int k = 0;
  while (lo + k < ntable && strcmp(table[lo + k].name, name) == 0) k++;
  if (count) *count = k;
  return k ? &table[lo] : NULL;
}

int tm_table_size(void) { return ntable; }
const tm_fn *tm_table_entry(int i) { return i >= 0 && i < ntable ? &table[i] : NULL; }

int tm_invoke(const tm_fn *fn, int propto, tm_rng *rng, const tm_v *args, int nargs, tm_v *out) {
  tm_call c = { fn, propto, rng, 0, NULL };
  return fn->kernel(&c, args, nargs, out);
}

int tm_invoke_frozen(const tm_fn *fn, int propto, const tm_v *args, int nargs, unsigned frozen,
                     const double *konst, tm_v *out) {
  tm_call c = { fn, propto, NULL, frozen, konst };
  return fn->kernel(&c, args, nargs, out);
}
