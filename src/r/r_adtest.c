/*
** r_adtest.c -- scenarios that exercise the tape from R's tests.
**
** Each scenario runs in C (the tape cannot be driven from R directly) and
** returns what it observed as a named numeric vector; the assertions live in
** tests/testthat/test-ad.R.  The "threads" scenario records on scoped stacks
** from real pthreads, which call no R function.
*/
#define _GNU_SOURCE 1
#include <string.h>
/* (after a libc header: __GLIBC__ comes from there) */
/* the heap's bytes in use come from glibc's mallinfo2 (2.33 and later);
   elsewhere (macOS, Windows, musl) they are NA and the test says so */
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#include <malloc.h>
#define HAVE_MALLINFO2 1
#endif
#include <pthread.h>
#include <R.h>
#include <Rinternals.h>
#include "../ad/ad.h"
#include "../math/tm.h"
#include "r_entries.h"

/* y = x * x recorded with ad_binary, the way a kernel would. */
static int square_var(ad_var x, ad_var *y) {
  return ad_binary(x, x, *x.val * *x.val, *x.val, *x.val, y);
}
static int mul(ad_var a, ad_var b, ad_var *y) {
  return ad_binary(a, b, *a.val * *b.val, *b.val, *a.val, y);
}
static int add(ad_var a, ad_var b, ad_var *y) {
  return ad_binary(a, b, *a.val + *b.val, 1.0, 1.0, y);
}

typedef struct { ad_var in, out; double x0, value, deriv; int rc; ad_stack *self; } job;

/* Records y = in^2 on the active (scoped) stack. */
static int job_square(void *p) {
  job *j = p;
  return square_var(j->in, &j->out);
}

/* A leaf made inside, then sweep inside: a complete nested gradient of
** z^3 at z = x0, returned as plain doubles. */
static int job_nested_cube(void *p) {
  job *j = p;
  ad_var z, z2, z3;
  int rc;
  if ((rc = ad_leaf(j->x0, &z)) || (rc = square_var(z, &z2)) || (rc = mul(z2, z, &z3))) return rc;
  *z3.adj = 1.0;
  ad_sweep(ad_active);
  j->value = *z3.val;
  j->deriv = *z.adj;
  return AD_OK;
}

static int job_reenter(void *p) {
  job *j = p;
  return ad_scoped_execute(j->self, job_square, j);
}

/* A real kernel failing inside a scoped stack: normal_lpdf with sigma < 0. */
static int job_fail(void *p) {
  (void)p;
  double y = 0, mu = 0, sigma = -1;
  tm_v a[3] = {tm_real_view(&y, NULL), tm_real_view(&mu, NULL), tm_real_view(&sigma, NULL)};
  int n;
  const tm_fn *f = tm_lookup("normal_lpdf", &n);
  if (!f) return ad_fail(AD_EINVALID, "the math library has no normal_lpdf");
  tm_v out;
  return tm_invoke(f, 0, NULL, a, 3, &out);
}

static void *thread_main(void *p) {
  job *j = p;
  j->rc = ad_scoped_execute(j->self, job_square, j);
  return NULL;
}

static SEXP named(int n, const char **names, const double *vals) {
  SEXP r = PROTECT(allocVector(REALSXP, n)), nm = PROTECT(allocVector(STRSXP, n));
  for (int i = 0; i < n; i++) {
    REAL(r)[i] = vals[i];
    SET_STRING_ELT(nm, i, mkChar(names[i]));
  }
  setAttrib(r, R_NamesSymbol, nm);
  UNPROTECT(2);
  return r;
}

/* A scoped stack for a scenario, or an R error. */
static ad_stack *scoped_new(void) {
  ad_stack *s = ad_scoped_new();
  if (!s) error("%s", ad_errmsg());
  return s;
}

#define CHECK(expr) do { int rc_ = (expr); if (rc_) { ad_stack_recover(main_stack); error("%s", ad_errmsg()); } } while (0)

SEXP tp_ad_selftest(SEXP which_) {
  const char *which = CHAR(STRING_ELT(which_, 0));
  ad_stack *main_stack = ad_active;
  ad_stack_recover(main_stack);

  if (strcmp(which, "execute") == 0) {
    /* Nodes recorded inside execute land on the scoped stack only. */
    ad_var x, y;
    CHECK(ad_leaf(3.0, &x));
    ad_stack *s = scoped_new();
    job j = {.in = x};
    int rc = ad_scoped_execute(s, job_square, &j);
    double restored = ad_active == main_stack;
    double main_chain = (double)main_stack->nchain, scoped_chain = (double)s->nchain;
    *j.out.adj = 1.0;
    ad_sweep(s);
    y = j.out;
    double vals[] = {rc, restored, main_chain, scoped_chain, *y.val, *x.adj};
    const char *names[] = {"status", "restored", "main_chain", "scoped_chain", "value", "gradient"};
    ad_stack_free(s);
    ad_stack_recover(main_stack);
    return named(6, names, vals);
  }

  if (strcmp(which, "append") == 0) {
    /* main: a = 3x; scoped: b = a^2; main again: c = b + x.  dc/dx = 18x + 1. */
    ad_var x, three, a, c;
    CHECK(ad_leaf(2.0, &x));
    CHECK(ad_leaf(3.0, &three));
    CHECK(mul(x, three, &a));
    ad_stack *s = scoped_new();
    job j = {.in = a};
    CHECK(ad_scoped_execute(s, job_square, &j));
    double before = (double)main_stack->nchain;
    CHECK(ad_scoped_append_to_parent(s));
    double after = (double)main_stack->nchain, left = (double)s->nchain;
    CHECK(add(j.out, x, &c));
    ad_grad(c);
    double vals[] = {before, after, left, *c.val, *x.adj};
    const char *names[] = {"main_chain_before", "main_chain_after", "scoped_chain_after", "value", "gradient"};
    ad_stack_recover(main_stack);   /* gives the scoped stack's blocks back to it */
    ad_stack_free(s);
    return named(5, names, vals);
  }

  if (strcmp(which, "recover") == 0) {
    /* Recording the same work after recover reuses the memory. */
    ad_stack *s = scoped_new();
    ad_var x;
    CHECK(ad_leaf(1.5, &x));
    job j = {.in = x};
    double bytes[3], nodes[3];
    for (int round = 0; round < 3; round++) {
      for (int k = 0; k < 20000; k++) CHECK(ad_scoped_execute(s, job_square, &j));
      nodes[round] = (double)s->nchain;
      ad_stack_recover(s);
      bytes[round] = (double)ad_stack_bytes(s);
    }
    double vals[] = {nodes[0], (double)s->nchain, bytes[0], bytes[1], bytes[2]};
    const char *names[] = {"nodes_recorded", "nodes_after_recover", "bytes_1", "bytes_2", "bytes_3"};
    ad_stack_free(s);
    ad_stack_recover(main_stack);
    return named(5, names, vals);
  }

  if (strcmp(which, "reenter") == 0) {
    ad_stack *s = scoped_new();
    ad_var x;
    CHECK(ad_leaf(1.0, &x));
    job j = {.in = x, .self = s};
    int rc = ad_scoped_execute(s, job_reenter, &j);
    double vals[] = {rc, rc == AD_EREENTER, ad_active == main_stack, s->executing};
    const char *names[] = {"status", "is_reenter", "restored", "still_executing"};
    SEXP r = PROTECT(named(4, names, vals));
    setAttrib(r, install("message"), mkString(ad_errmsg()));
    ad_stack_free(s);
    ad_stack_recover(main_stack);
    UNPROTECT(1);
    return r;
  }

  if (strcmp(which, "failure") == 0) {
    ad_stack *s = scoped_new();
    int rc = ad_scoped_execute(s, job_fail, NULL);
    double vals[] = {rc, ad_active == main_stack, s->executing};
    const char *names[] = {"status", "restored", "still_executing"};
    SEXP r = PROTECT(named(3, names, vals));
    setAttrib(r, install("message"), mkString(ad_errmsg()));
    /* The scoped stack is usable again afterwards. */
    ad_var x;
    CHECK(ad_leaf(2.0, &x));
    job j = {.in = x};
    CHECK(ad_scoped_execute(s, job_square, &j));
    setAttrib(r, install("after"), ScalarReal(*j.out.val));
    ad_stack_free(s);
    ad_stack_recover(main_stack);
    UNPROTECT(1);
    return r;
  }

  if (strcmp(which, "nested") == 0) {
    /* Outer: y = g(x) * x with g(x) = x^3 differentiated by a nested
    ** gradient on a scoped stack; the outer tape records one node for g
    ** with the inner derivative as its partial.  dy/dx = 4 x^3. */
    ad_var x, g, y;
    CHECK(ad_leaf(1.7, &x));
    double outer_before = (double)main_stack->nchain;
    ad_stack *s = scoped_new();
    job j = {.x0 = *x.val};
    CHECK(ad_scoped_execute(s, job_nested_cube, &j));
    double gval = j.value, dg = j.deriv;
    double outer_mid = (double)main_stack->nchain;
    ad_stack_recover(s);
    CHECK(ad_unary(x, gval, dg, &g));
    CHECK(mul(g, x, &y));
    ad_grad(y);
    double vals[] = {outer_before, outer_mid, *y.val, *x.adj};
    const char *names[] = {"outer_chain_before", "outer_chain_after_inner", "value", "gradient"};
    ad_stack_free(s);
    ad_stack_recover(main_stack);
    return named(4, names, vals);
  }

  if (strcmp(which, "threads") == 0) {
    /* Two threads record on their own scoped stacks at once; the parent
    ** appends both and one sweep gives d/dx (x1^2 + x2^2) at both leaves. */
    ad_var x1, x2, s12;
    CHECK(ad_leaf(1.25, &x1));
    CHECK(ad_leaf(-0.5, &x2));
    ad_stack *s1 = scoped_new(), *s2 = scoped_new();
    job j1 = {.in = x1, .self = s1}, j2 = {.in = x2, .self = s2};
    pthread_t t1, t2;
    if (pthread_create(&t1, NULL, thread_main, &j1)) error("cannot start a thread");
    if (pthread_create(&t2, NULL, thread_main, &j2)) { pthread_join(t1, NULL); error("cannot start a thread"); }
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    if (j1.rc || j2.rc) error("%s", "a thread failed");
    CHECK(ad_scoped_append_to_parent(s1));
    CHECK(ad_scoped_append_to_parent(s2));
    CHECK(add(j1.out, j2.out, &s12));
    ad_grad(s12);
    double vals[] = {*s12.val, *x1.adj, *x2.adj, (double)main_stack->nchain};
    const char *names[] = {"value", "gradient_1", "gradient_2", "main_chain"};
    ad_stack_recover(main_stack);
    ad_stack_free(s1);
    ad_stack_free(s2);
    return named(4, names, vals);
  }
  error("unknown scenario '%s'", which);
}

/* ---- steady-state memory ---- */

/* One gradient of a fixed function touching every memory path: scalar
** nodes, a vectorized density over 1000 values, a scoped stack appended to
** the parent, then the sweep and the recovery of both stacks. */
static int one_gradient(ad_stack *main_stack, ad_stack *scoped, double *out) {
  enum { N = 1000 };
  double *mu_val, *mu_adj;
  ad_var sigma, acc;
  int rc;
  if ((rc = ad_leaves(N, NULL, &mu_val, &mu_adj))) return rc;
  for (int i = 0; i < N; i++) mu_val[i] = 0.001 * i;
  if ((rc = ad_leaf(1.3, &sigma))) return rc;
  double ydata[N];
  for (int i = 0; i < N; i++) ydata[i] = 0.5 - 0.0007 * i;
  tm_v args[3] = {tm_vector_view(ydata, NULL, N), tm_vector_view(mu_val, mu_adj, N),
                  tm_real_view(sigma.val, sigma.adj)};
  tm_v lp;
  int cnt;
  const tm_fn *f = tm_lookup("normal_lpdf", &cnt);
  if (!f) return ad_fail(AD_EINVALID, "the math library has no normal_lpdf");
  if ((rc = tm_invoke(f, 0, NULL, args, 3, &lp))) return rc;
  acc.val = lp.val;
  acc.adj = lp.adj;
  for (int i = 0; i < 500; i++) if ((rc = mul(acc, sigma, &acc)) || (rc = add(acc, sigma, &acc))) return rc;
  job j = {.in = acc};
  if ((rc = ad_scoped_execute(scoped, job_square, &j))) return rc;
  if ((rc = ad_scoped_append_to_parent(scoped))) return rc;
  ad_grad(j.out);
  *out = *sigma.adj;
  ad_stack_recover(main_stack);
  ad_stack_recover(scoped);
  return AD_OK;
}

SEXP tp_ad_memory(SEXP n_) {
  int n = asInteger(n_);
  ad_stack *main_stack = ad_active;
  ad_stack_recover(main_stack);
  ad_stack *scoped = scoped_new();
  double g = 0, after10[2] = {0, 0}, after_n[2] = {0, 0};
  for (int i = 1; i <= n; i++) {
    int rc = one_gradient(main_stack, scoped, &g);
    if (rc) { ad_stack_recover(main_stack); ad_stack_free(scoped); error("%s", ad_errmsg()); }
    if (i == 10 || i == n) {
      double *dst = i == 10 ? after10 : after_n;
      dst[0] = (double)(ad_stack_bytes(main_stack) + ad_stack_bytes(scoped));
#ifdef HAVE_MALLINFO2
      struct mallinfo2 mi = mallinfo2();
      dst[1] = (double)mi.uordblks;
#else
      dst[1] = NA_REAL;
#endif
    }
  }
  ad_stack_free(scoped);
  double vals[] = {after10[0], after_n[0], after10[1], after_n[1], g};
  const char *names[] = {"tape_bytes_10", "tape_bytes_n", "heap_bytes_10", "heap_bytes_n", "gradient"};
  return named(5, names, vals);
}
