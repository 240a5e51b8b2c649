/*
** li_model.c -- what a context computes: the log density and its gradient,
** the constrained values (write_array), and the unconstrained vector of given
** parameter values.
*/
#include <stdio.h>
#include <string.h>
#include "li_int.h"
#include "../math/tm_transform.h"

static const tm_transform *transform_of(const ln_decl *d) {
  return tm_transform_find(d->transform ? d->transform : "identity");
}

/* Parameters from the unconstrained vector (val, adj: adj NULL on doubles),
** with the log Jacobians as target terms when jacobian. */
static int read_params(li_run *r, double *val, double *adj, int jacobian) {
  const li_ctx *c = r->ctx;
  int rc;
  r->blk = LN_BLK_PARAMS;
  for (int i = 0; i < c->nvars; i++) {
    const li_var *v = &c->vars[i];
    if (v->block != LN_BLK_PARAMS) continue;
    const ln_decl *d = v->decl;
    li_slot *s = &r->globals[d->slot];
    tm_v x = tm_vector_view(val + v->offset, adj ? adj + v->offset : NULL, (int)v->nfree);
    x.dep = 1;
    tm_v params[2], y = v->shape, lp;
    int np;
    r->line = d->line; r->col = d->col;
    if ((rc = li_transform_params(r, d, params, &np))) return rc;
    size_t c0 = r->tr ? li_chain_len() : 0;
    const tm_transform *t = transform_of(d);
    if ((rc = tm_transform_constrain(t, &x, params, &y, jacobian ? &lp : NULL)))
      return li_locate(r, rc);
    if (r->tr) {
      tm_v a[3];
      a[0] = x;
      for (int k = 0; k < np; k++) a[1 + k] = params[k];
      li_event ev;
      memset(&ev, 0, sizeof ev);
      ev.kind = LI_EV_TRANSFORM; ev.fn = t; ev.args = a; ev.nargs = 1 + np;
      ev.out = &y; ev.out2 = jacobian ? &lp : NULL; ev.chain0 = c0;
      li_emit(r, &ev);
    }
    y.dep = 1;
    s->v = y;
    s->set = 1;
    s->shared = 1;   /* parameters are never written; and a transform's node may read them */
    if (jacobian) {
      lp.dep = 1;
      if ((rc = li_add_term(r, &lp))) return rc;
    }
  }
  return AD_OK;
}

static int run_block(li_run *r, int blk) {
  const ln_stmt *b = r->p->block[blk];
  if (!b) return AD_OK;
  int rc = li_enter_block(r, blk);
  if (!rc) rc = li_exec_block_body(r, b);
  r->flow = LI_FLOW_NONE;
  if (!rc && blk != LN_BLK_MODEL) rc = li_check_block_decls(r, blk);
  return rc;
}

static int fail(int rc, char *err, size_t errsize) {
  if (err && errsize) snprintf(err, errsize, "%s", ad_errmsg());
  ad_stack_recover(ad_active);
  return rc;
}

int li_log_prob(const li_ctx *c, const double *upars, int jacobian, double *lp, double *grad,
                li_print *print, char *err, size_t errsize) {
  return li_log_prob_traced(c, upars, jacobian, lp, grad, print, err, errsize, NULL);
}

int li_log_prob_traced(const li_ctx *c, const double *upars, int jacobian, double *lp, double *grad,
                       li_print *print, char *err, size_t errsize, const li_tracer *tr) {
  li_run r;
  size_t n = c->nupars;
  double *val = NULL, *adj = NULL;
  int ad = grad != NULL, rc;
  if ((rc = li_run_init(&r, c, ad, NULL, print))) return fail(rc, err, errsize);
  r.jacobian = jacobian;
  r.tr = ad ? tr : NULL;
  if (ad) rc = ad_leaves(n, upars, &val, &adj);
  if (!rc && r.tr) {
    tm_v leaves = tm_vector_view(val, adj, (int)n);
    li_emit1(&r, LI_EV_PARAMS, NULL, &leaves, li_chain_len());
    if (c->p->uses_complex) li_emit_unsupported(&r, "complex numbers (their plan is to come)");
  }
  else if (!(val = ad_alloc_doubles(n ? n : 1))) rc = ad_fail(AD_EMEMORY, "out of memory");
  else memcpy(val, upars, n * sizeof(double));
  if (rc) return fail(rc, err, errsize);
  tm_v total;
  if ((rc = read_params(&r, val, adj, jacobian)) || (rc = run_block(&r, LN_BLK_TPARAMS)) ||
      (rc = run_block(&r, LN_BLK_MODEL)) || (rc = li_sum_terms(&r, &total)))
    return fail(rc, err, errsize);
  *lp = total.val[0];
  if (r.tr) li_emit1(&r, LI_EV_RESULT, NULL, &total, li_chain_len());
  if (ad) {
    if (total.adj) {
      ad_var y = {total.val, total.adj};
      ad_grad(y);
      memcpy(grad, adj, n * sizeof(double));
    } else {
      memset(grad, 0, n * sizeof(double));
    }
  }
  ad_stack_recover(ad_active);
  return AD_OK;
}

int li_log_prob_full(const li_ctx *c, const double *upars, int jacobian, double *lp,
                     li_print *print, char *err, size_t errsize) {
  li_run r;
  size_t n = c->nupars;
  int rc;
  if ((rc = li_run_init(&r, c, 0, NULL, print))) return fail(rc, err, errsize);
  r.jacobian = jacobian;
  r.fn_propto = 0;
  double *val = ad_alloc_doubles(n ? n : 1);
  if (!val) return fail(ad_fail(AD_EMEMORY, "out of memory"), err, errsize);
  memcpy(val, upars, n * sizeof(double));
  tm_v total;
  if ((rc = read_params(&r, val, NULL, jacobian)) || (rc = run_block(&r, LN_BLK_TPARAMS)) ||
      (rc = run_block(&r, LN_BLK_MODEL)) || (rc = li_sum_terms(&r, &total)))
    return fail(rc, err, errsize);
  *lp = total.val[0];
  ad_stack_recover(ad_active);
  return AD_OK;
}

/* Stan's output order: column-major over all the variable's dimensions
** (array dimensions, then rows and columns), the first index fastest.
** Storage keeps arrays leading index first and matrices column-major. */
static size_t output_offset(const tm_v *cs, size_t k, int *idx) {
  /* a complex value: as its real counterpart, in elements */
  tm_v rs = *cs;
  if (tm_is_complex(cs))
    rs.base = cs->base == TM_COMPLEX ? TM_REAL : cs->base == TM_CVECTOR ? TM_VECTOR
            : cs->base == TM_CROW_VECTOR ? TM_ROW_VECTOR : TM_MATRIX;
  const tm_v *s = &rs;
  int nd = 0, ext[TM_MAXARR + 2];
  for (int i = 0; i < s->narr; i++) ext[nd++] = s->dim[i];
  if (s->base == TM_MATRIX) { ext[nd++] = s->rows; ext[nd++] = s->cols; }
  else if (s->base == TM_VECTOR) ext[nd++] = s->rows;
  else if (s->base == TM_ROW_VECTOR) ext[nd++] = s->cols;
  for (int i = 0; i < nd; i++) {
    idx[i] = ext[i] ? (int)(k % (size_t)ext[i]) : 0;
    k = ext[i] ? k / (size_t)ext[i] : 0;
  }
  size_t inner_off = 0, inner = (size_t)s->rows * (size_t)s->cols;
  int na = s->narr;
  if (s->base == TM_MATRIX) inner_off = (size_t)idx[na] + (size_t)idx[na + 1] * (size_t)s->rows;
  else if (nd > na) inner_off = (size_t)idx[na];
  size_t a = 0;
  for (int i = 0; i < na; i++) a = a * (size_t)s->dim[i] + (size_t)idx[i];
  return a * inner + inner_off;
}

static double *write_var(const li_var *v, const tm_v *val, double *out) {
  int idx[TM_MAXARR + 2];
  if (tm_is_complex(&v->shape)) {
    /* CmdStan's order: each element's real then imaginary part */
    for (size_t k = 0; k < v->numel / 2; k++) {
      size_t o = output_offset(&v->shape, k, idx);
      *out++ = val->val[2 * o];
      *out++ = val->val[2 * o + 1];
    }
    return out;
  }
  for (size_t k = 0; k < v->numel; k++) *out++ = tm_get(val, output_offset(&v->shape, k, idx));
  return out;
}

int li_write_array(const li_ctx *c, const double *upars, int tparams, int gqs, tm_rng *rng,
                   double *out, li_print *print, char *err, size_t errsize) {
  li_run r;
  size_t n = c->nupars;
  int rc;
  if ((rc = li_run_init(&r, c, 0, rng, print))) return fail(rc, err, errsize);
  double *val = ad_alloc_doubles(n ? n : 1);
  if (!val) return fail(ad_fail(AD_EMEMORY, "out of memory"), err, errsize);
  memcpy(val, upars, n * sizeof(double));
  if ((rc = read_params(&r, val, NULL, 0))) return fail(rc, err, errsize);
  if ((tparams || gqs) && (rc = run_block(&r, LN_BLK_TPARAMS))) return fail(rc, err, errsize);
  if (gqs && (rc = run_block(&r, LN_BLK_GQ))) return fail(rc, err, errsize);
  for (int i = 0; i < c->nvars; i++) {
    const li_var *v = &c->vars[i];
    if ((v->block == LN_BLK_TPARAMS && !tparams) || (v->block == LN_BLK_GQ && !gqs)) continue;
    out = write_var(v, &r.globals[v->decl->slot].v, out);
  }
  ad_stack_recover(ad_active);
  return AD_OK;
}

/* A parameter read by e (a bound, offset or multiplier) that has no value
** yet in r: one left out of a partial set of values.  Parameters can only
** appear in the constraints of later ones, and user functions see only their
** arguments, so walking e's own tree is enough.  NULL when there is none. */
static const ln_decl *unset_param(const li_run *r, const ln_expr *e) {
  if (!e) return NULL;
  if (e->kind == LE_VAR && e->scope == LN_SCOPE_GLOBAL && e->decl &&
      e->decl->block == LN_BLK_PARAMS && r->globals[e->slot].set != 1)
    return e->decl;
  const ln_decl *d;
  for (int i = 0; i < e->nargs; i++)
    if ((d = unset_param(r, e->args[i]))) return d;
  for (int i = 0; i < e->nidx; i++)
    if ((d = unset_param(r, e->idx[i].a)) || (d = unset_param(r, e->idx[i].b))) return d;
  return NULL;
}

int li_unconstrain(const li_ctx *c, const ld_set *vals, double *upars, unsigned char *given,
                   char *err, size_t errsize) {
  li_run r;
  int rc;
  if ((rc = li_run_init(&r, c, 0, NULL, NULL))) return fail(rc, err, errsize);
  if (given) {
    memset(given, 0, c->nupars);
    memset(upars, 0, c->nupars * sizeof(double));
  }
  r.blk = LN_BLK_PARAMS;
  for (int i = 0; i < c->nvars; i++) {
    const li_var *v = &c->vars[i];
    if (v->block != LN_BLK_PARAMS) continue;
    const ln_decl *d = v->decl;
    const ld_value *val = ld_find(vals, d->name);
    char text[160];
    li_decl_text(d, &v->shape, text, sizeof text);
    if (!val) {
      if (given) continue;
      snprintf(err, errsize, "parameter '%s' (declared %s) not found", d->name, text);
      ad_stack_recover(ad_active);
      return AD_EINVALID;
    }
    li_slot *s = &r.globals[d->slot];
    if ((rc = ld_bind_value(val, d->name, text, &v->shape, &s->v, err, errsize))) {
      /* ld_bind_value speaks of data "variable"s; these values are parameters */
      if (!strncmp(err, "variable '", 10) && strlen(err) + 1 < errsize) {
        memmove(err + 9, err + 8, strlen(err + 8) + 1);
        memcpy(err, "parameter", 9);
      }
      ad_stack_recover(ad_active);
      return rc;
    }
    s->set = 1;
    const ln_decl *dep = NULL;
    if (given && !(dep = unset_param(&r, d->lower)) && !(dep = unset_param(&r, d->upper)) &&
        !(dep = unset_param(&r, d->offset)))
      dep = unset_param(&r, d->multiplier);
    if (dep) {
      snprintf(err, errsize, "parameter '%s': its constraint depends on parameter '%s', "
               "which is not given: give '%s' too, or leave '%s' out", d->name, dep->name,
               dep->name, d->name);
      ad_stack_recover(ad_active);
      return AD_EINVALID;
    }
    tm_v params[2], x;
    int np;
    if ((rc = li_transform_params(&r, d, params, &np))) return fail(rc, err, errsize);
    if ((rc = tm_transform_free(transform_of(d), &s->v, params, &x))) {
      char msg[512];
      snprintf(msg, sizeof msg, "%s", ad_errmsg());
      snprintf(err, errsize, "parameter '%s': %s", d->name, msg);
      ad_stack_recover(ad_active);
      return rc;
    }
    memcpy(upars + v->offset, x.val, v->nfree * sizeof(double));
    if (given) memset(given + v->offset, 1, v->nfree);
  }
  ad_stack_recover(ad_active);
  return AD_OK;
}

static int elementwise_transform(const ln_decl *d) {
  const char *t = d->transform;
  return !t || !strcmp(t, "lower") || !strcmp(t, "upper") || !strcmp(t, "lower_upper") ||
         !strcmp(t, "offset_multiplier");
}

/* An element of a tuple's element (lt_tuple.c's "a:2:1"): each level's
** array indexes after its part of the name, a[1]:2[3]:1[2]. */
static char *tuple_elem_name(const li_var *v, const int *idx, int nd, char *buf, size_t size) {
  const ln_decl *d = v->decl;
  const char *name = v->name;
  size_t m = 0;
  int used = 0;
  buf[0] = '\0';
  for (int level = 0; level <= d->ntsplit && m < size; level++) {
    const char *colon = level < d->ntsplit ? strchr(name, ':') : NULL;
    size_t len = colon ? (size_t)(colon - name) : strlen(name);
    m += (size_t)snprintf(buf + m, size - m, "%s%.*s", level ? ":" : "", (int)len, name);
    int k = level < d->ntsplit ? d->tsplit[level] : nd - used;
    if (k > 0 && m < size) {
      m += (size_t)snprintf(buf + m, size - m, "[");
      for (int i = 0; i < k && used < nd && m < size; i++, used++)
        m += (size_t)snprintf(buf + m, size - m, "%s%d", i ? "," : "", idx[used] + 1);
      if (m < size) m += (size_t)snprintf(buf + m, size - m, "]");
    }
    if (!colon) break;
    name = colon + 1;
  }
  return buf;
}

char *li_elem_name(const li_var *v, size_t k, int free, char *buf, size_t size) {
  if (tm_is_complex(&v->shape)) {
    /* CmdStan's z.real, zv.1.imag as cmdstanr names them: z[real], zv[1,imag] */
    int idx[TM_MAXARR + 2];
    const char *part = k % 2 ? "imag" : "real";
    const tm_v *s = &v->shape;
    int nd = s->narr + (s->base == TM_CMATRIX ? 2 : s->base == TM_COMPLEX ? 0 : 1);
    output_offset(s, k / 2, idx);
    size_t m = (size_t)snprintf(buf, size, "%s[", v->name);
    for (int i = 0; i < nd && m < size; i++) m += (size_t)snprintf(buf + m, size - m, "%d,", idx[i] + 1);
    if (m < size) snprintf(buf + m, size - m, "%s]", part);
    return buf;
  }
  const tm_v *s = &v->shape;
  int scalar = s->narr == 0 && (s->base == TM_INT || s->base == TM_REAL);
  if (scalar) { snprintf(buf, size, "%s", v->name); return buf; }
  if (free && !elementwise_transform(v->decl)) {
    snprintf(buf, size, "%s[%zu]", v->name, k + 1);
    return buf;
  }
  int idx[TM_MAXARR + 2], nd = s->narr + (s->base == TM_MATRIX ? 2 : s->base == TM_INT || s->base == TM_REAL ? 0 : 1);
  if (free) {
    /* storage order: array indices leading first, then the column-major inner part */
    size_t inner = (size_t)s->rows * (size_t)s->cols, a = inner ? k / inner : 0, in = inner ? k % inner : 0;
    for (int i = s->narr - 1; i >= 0; i--) {
      idx[i] = s->dim[i] ? (int)(a % (size_t)s->dim[i]) : 0;
      a = s->dim[i] ? a / (size_t)s->dim[i] : 0;
    }
    if (s->base == TM_MATRIX) { idx[s->narr] = (int)(in % (size_t)s->rows); idx[s->narr + 1] = (int)(in / (size_t)s->rows); }
    else if (nd > s->narr) idx[s->narr] = (int)in;
  } else {
    output_offset(s, k, idx);
  }
  if (v->decl && v->decl->ntsplit) return tuple_elem_name(v, idx, nd, buf, size);
  size_t m = (size_t)snprintf(buf, size, "%s[", v->name);
  for (int i = 0; i < nd && m < size; i++) m += (size_t)snprintf(buf + m, size - m, "%s%d", i ? "," : "", idx[i] + 1);
  if (m < size) snprintf(buf + m, size - m, "]");
  return buf;
}
