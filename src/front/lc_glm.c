/*
** lc_glm.c -- a density of a linear predictor runs as its GLM.
**
** y ~ bernoulli_logit(alpha + X * beta) computes X * beta as a vector, adds
** alpha, then the density: three passes over N values and three nodes.
** Stan's GLM functions (bernoulli_logit_glm, poisson_log_glm,
** normal_id_glm) do the same in one pass over X without the vectors, and
** tapestry's run that pass in chunks on the evaluation's threads (tm_glm.c).
** So when the location of bernoulli_logit, poisson_log or normal (in a ~
** statement or an _lpmf/_lpdf/_lupmf/_lupdf call) is written X * beta,
** alpha + X * beta or X * beta + alpha (X a matrix, beta a vector, alpha a
** scalar or a vector), the checker calls the GLM instead.  The density and
** its gradient are the same up to rounding: the sums run in another order.
** A failure then names the GLM (bernoulli_logit_glm_lpmf: ...).
*/
#include <string.h>
#include "lc.h"

/* X * beta, X a matrix and beta a vector */
static int product(const ln_expr *e) {
  return e && e->kind == LE_BINOP && e->op == LN_OP_MUL && e->nargs == 2 &&
         e->args[0]->type.base == TM_MATRIX && !e->args[0]->type.narr &&
         e->args[1]->type.base == TM_VECTOR && !e->args[1]->type.narr;
}

/* an intercept: a scalar or a vector */
static int intercept(const ln_expr *e) {
  return !e->type.narr && (e->type.base == TM_INT || e->type.base == TM_REAL || e->type.base == TM_VECTOR);
}

int lc_glm_fuse(lc_ctx *c, const char *dist, ln_expr **args, int nargs, ln_expr ***out, int *nout,
                const tm_fn **fn) {
  const char *glm;
  int extra;
  if (!strcmp(dist, "bernoulli_logit")) { glm = "bernoulli_logit_glm_lpmf"; extra = 0; }
  else if (!strcmp(dist, "poisson_log")) { glm = "poisson_log_glm_lpmf"; extra = 0; }
  else if (!strcmp(dist, "normal")) { glm = "normal_id_glm_lpdf"; extra = 1; }
  else return 0;
  if (nargs != 2 + extra) return 0;
  ln_expr *mu = args[1], *prod = NULL, *alpha = NULL;
  if (product(mu)) {
    prod = mu;
  } else if (mu->kind == LE_BINOP && mu->op == LN_OP_ADD && mu->nargs == 2) {
    if (product(mu->args[1]) && intercept(mu->args[0])) { prod = mu->args[1]; alpha = mu->args[0]; }
    else if (product(mu->args[0]) && intercept(mu->args[1])) { prod = mu->args[0]; alpha = mu->args[1]; }
  }
  if (!prod) return 0;
  /* alpha + X * beta must be a vector of the outcomes, as the GLM's is */
  if (mu->type.base != TM_VECTOR || mu->type.narr) return 0;
  if (!alpha) {
    if (!(alpha = ln_alloc(c->p, sizeof *alpha))) return 0;
    alpha->kind = LE_INT;
    alpha->line = mu->line;
    alpha->col = mu->col;
    alpha->ival = 0;
    alpha->type = lc_mk(TM_INT, 0);
  }
  ln_expr **a = ln_alloc(c->p, (size_t)(4 + extra) * sizeof *a);
  if (!a) return 0;
  a[0] = args[0];
  a[1] = prod->args[0];
  a[2] = alpha;
  a[3] = prod->args[1];
  if (extra) a[4] = args[2];
  ln_type ret;
  const lc_sig *s = lc_lib_resolve_args(glm, a, 4 + extra, &ret);
  if (!s || ret.base != TM_REAL || ret.narr) return 0;
  *out = a;
  *nout = 4 + extra;
  *fn = s->fn;
  return 1;
}
