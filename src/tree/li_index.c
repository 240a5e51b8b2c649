/*
** li_index.c -- indexing: element reads, slices and multi-indexes as
** rvalues, and assignment to variables, elements and slices.
**
** A value's dimensions are its array dimensions, then a matrix's rows and
** columns (or a vector's one).  Indexing picks positions per dimension; a
** single index drops the dimension, the others keep it.  The result is laid
** out as tm.h stores values (array dimensions outermost, a matrix
** column-major), so its elements are a list of offsets into the indexed
** storage: a view when they are contiguous, a gather otherwise.
*/
#include <stdio.h>
#include <string.h>
#include "li_int.h"

#define MAXD (TM_MAXARR + 2)

typedef struct dimsel {
  int size;                 /* extent of the dimension */
  size_t stride;            /* in elements of the flat storage */
  int keep;                 /* kept in the result (not a single index) */
  int n;                    /* positions selected */
  const int *pos;           /* 0-based positions; NULL: first + k */
  int first;
} dimsel;

/* Complex values index as their real counterparts, in elements (pairs of
** doubles); complex_offsets turns the element offsets into doubles. */
static int real_base(int b) {
  return b == TM_COMPLEX ? TM_REAL : b == TM_CVECTOR ? TM_VECTOR : b == TM_CROW_VECTOR ? TM_ROW_VECTOR
       : b == TM_CMATRIX ? TM_MATRIX : b;
}
static int complex_base(int b) {
  return b == TM_REAL ? TM_COMPLEX : b == TM_VECTOR ? TM_CVECTOR : b == TM_ROW_VECTOR ? TM_CROW_VECTOR
       : b == TM_MATRIX ? TM_CMATRIX : b;
}
static int complex_offsets(size_t **o, size_t *n) {
  size_t *w = ad_alloc((*n ? 2 * *n : 1) * sizeof(size_t));
  if (!w) return ad_fail(AD_EMEMORY, "out of memory");
  for (size_t k = 0; k < *n; k++) { w[2 * k] = 2 * (*o)[k]; w[2 * k + 1] = 2 * (*o)[k] + 1; }
  *o = w;
  *n *= 2;
  return AD_OK;
}

/* The dimensions of a value, outermost first, with their strides. */
static int dims_of(const tm_v *cv, dimsel *d) {
  tm_v rv = *cv;
  rv.base = (unsigned char)real_base(cv->base);
  const tm_v *v = &rv;
  int nd;
  size_t inner = (size_t)v->rows * (size_t)v->cols;
  /* array strides: product of the later array dims times the inner size */
  size_t s = inner;
  for (int i = v->narr - 1; i >= 0; i--) {
    d[i].size = v->dim[i];
    d[i].stride = s;
    s *= (size_t)v->dim[i];
  }
  nd = v->narr;
  if (v->base == TM_MATRIX) {
    d[nd].size = v->rows; d[nd].stride = 1; nd++;
    d[nd].size = v->cols; d[nd].stride = (size_t)v->rows; nd++;
  } else if (v->base == TM_VECTOR) {
    d[nd].size = v->rows; d[nd].stride = 1; nd++;
  } else if (v->base == TM_ROW_VECTOR) {
    d[nd].size = v->cols; d[nd].stride = 1; nd++;
  }
  for (int i = 0; i < nd; i++) { d[i].keep = 1; d[i].n = d[i].size; d[i].pos = NULL; d[i].first = 0; }
  return nd;
}

static const char *var_name(const ln_expr *e) {
  while (e->kind == LE_INDEX) e = e->args[0];
  return e->kind == LE_VAR && e->name ? e->name : "expression";
}

/* An error in the program, not a rejection: Stan throws std::out_of_range,
** which stops the chain (and initialisation) at once. */
static int out_of_range(li_run *r, const ln_expr *e, int dim, int i, int size) {
  return li_fail_at(r, AD_EINVALID,
                    "index %d out of range for '%s': dimension %d has size %d", i,
                    var_name(e), dim + 1, size);
}

/* Positions of idx on dimension d (checked). */
static int select(li_run *r, const ln_expr *e, int dim, const ln_index *ix, dimsel *d) {
  int a = 1, b = d->size, rc;
  switch (ix->kind) {
  case LI_SINGLE:
    if ((rc = li_eval_int(r, ix->a, &a))) return rc;
    if (a < 1 || a > d->size) return out_of_range(r, e, dim, a, d->size);
    d->keep = 0; d->n = 1; d->first = a - 1; d->pos = NULL;
    return AD_OK;
  case LI_MULTI: {
    tm_v m;
    if ((rc = li_eval(r, ix->a, &m))) return rc;
    size_t n = tm_numel(&m);
    int *p = ad_alloc((n ? n : 1) * sizeof(int));
    if (!p) return ad_fail(AD_EMEMORY, "out of memory");
    for (size_t k = 0; k < n; k++) {
      int i = m.ival[k];
      if (i < 1 || i > d->size) return out_of_range(r, e, dim, i, d->size);
      p[k] = i - 1;
    }
    d->keep = 1; d->n = (int)n; d->pos = p;
    return AD_OK;
  }
  case LI_ALL:
    break;
  case LI_RANGE:
    if ((rc = li_eval_int(r, ix->a, &a)) || (rc = li_eval_int(r, ix->b, &b))) return rc;
    break;
  case LI_FROM:
    if ((rc = li_eval_int(r, ix->a, &a))) return rc;
    break;
  case LI_TO:
    if ((rc = li_eval_int(r, ix->b, &b))) return rc;
    break;
  }
  d->keep = 1;
  d->pos = NULL;
  if (b < a) { d->n = 0; d->first = 0; return AD_OK; }
  if (a < 1 || a > d->size) return out_of_range(r, e, dim, a, d->size);
  if (b > d->size) return out_of_range(r, e, dim, b, d->size);
  d->first = a - 1;
  d->n = b - a + 1;
  return AD_OK;
}

/* Apply nidx indexes to a value of shape *v whose elements sit at offsets
** base[k] (base NULL: offset k).  On return *res has the result's shape and
** *offs (arena) its n elements' offsets. */
static int apply(li_run *r, const ln_expr *e, const tm_v *v, const size_t *base,
                 const ln_index *idx, int nidx, tm_v *res, size_t **offs, size_t *n) {
  dimsel d[MAXD];
  int nd = dims_of(v, d), rc;
  if (nidx > nd) return li_fail_at(r, AD_EINVALID, "too many indexes for '%s'", var_name(e));
  for (int i = 0; i < nidx; i++)
    if ((rc = select(r, e, i, &idx[i], &d[i]))) return rc;
  /* result shape */
  int cplx = tm_is_complex(v);
  tm_v s = *v;
  s.base = (unsigned char)real_base(v->base);
  s.val = NULL; s.adj = NULL; s.ival = NULL;
  s.narr = 0;
  memset(s.dim, 0, sizeof s.dim);
  for (int i = 0; i < v->narr; i++) if (d[i].keep) s.dim[s.narr++] = d[i].n;
  int na = v->narr;
  if (real_base(v->base) == TM_MATRIX) {
    int rk = d[na].keep, ck = d[na + 1].keep;
    if (rk && ck) { s.base = TM_MATRIX; s.rows = d[na].n; s.cols = d[na + 1].n; }
    else if (ck) { s.base = TM_ROW_VECTOR; s.rows = 1; s.cols = d[na + 1].n; }
    else if (rk) { s.base = TM_VECTOR; s.rows = d[na].n; s.cols = 1; }
    else { s.base = TM_REAL; s.rows = s.cols = 1; }
  } else if (s.base == TM_VECTOR || s.base == TM_ROW_VECTOR) {
    if (d[na].keep) {
      if (s.base == TM_VECTOR) { s.rows = d[na].n; s.cols = 1; }
      else { s.rows = 1; s.cols = d[na].n; }
    } else { s.base = TM_REAL; s.rows = s.cols = 1; }
  }
  if (cplx) s.base = (unsigned char)complex_base(s.base);
  /* enumeration order: array dims outermost, then a matrix's columns, then rows */
  int order[MAXD], no = 0;
  for (int i = 0; i < na; i++) order[no++] = i;
  if (real_base(v->base) == TM_MATRIX) { order[no++] = na + 1; order[no++] = na; }
  else if (nd > na) order[no++] = na;
  size_t total = 1;
  for (int i = 0; i < nd; i++) total *= (size_t)d[i].n;
  size_t *o = ad_alloc((total ? total : 1) * sizeof(size_t));
  if (!o) return ad_fail(AD_EMEMORY, "out of memory");
  if (total > 0 && nd == 1) {
    /* one dimension (arrays of scalars, vectors): no odometer */
    const int *pos = d[0].pos;
    size_t st = d[0].stride, f = (size_t)d[0].first;
    for (size_t k = 0; k < total; k++) {
      size_t off = (pos ? (size_t)pos[k] : f + k) * st;
      o[k] = base ? base[off] : off;
    }
  } else if (total > 0 && nd == 2 && na == 0) {
    /* a matrix: columns outer, rows inner */
    size_t k = 0;
    for (int j = 0; j < d[1].n; j++) {
      size_t co = (size_t)(d[1].pos ? d[1].pos[j] : d[1].first + j) * d[1].stride;
      for (int i = 0; i < d[0].n; i++, k++) {
        size_t off = co + (size_t)(d[0].pos ? d[0].pos[i] : d[0].first + i);
        o[k] = base ? base[off] : off;
      }
    }
  } else if (total > 0) {
    int ctr[MAXD] = {0};
    for (size_t k = 0; k < total; k++) {
      size_t off = 0;
      for (int i = 0; i < nd; i++) {
        int p = d[i].pos ? d[i].pos[ctr[i]] : d[i].first + ctr[i];
        off += (size_t)p * d[i].stride;
      }
      o[k] = base ? base[off] : off;
      /* odometer: the last dimension in `order` moves fastest */
      for (int j = no - 1; j >= 0; j--) {
        int dd = order[j];
        if (++ctr[dd] < d[dd].n) break;
        ctr[dd] = 0;
      }
    }
  }
  *res = s;
  *offs = o;
  *n = total;
  return AD_OK;
}

static int contiguous(const size_t *o, size_t n) {
  for (size_t k = 1; k < n; k++) if (o[k] != o[0] + k) return 0;
  return 1;
}

/* The value of src at offsets o (n of them) with shape *res: a view when
** contiguous, else a gather. */
static int take(li_run *r, const tm_v *src, const size_t *o, size_t n, tm_v *res, int *view) {
  *view = 0;
  if (n > 0 && contiguous(o, n)) {
    res->val = src->val ? src->val + o[0] : NULL;
    res->adj = src->adj ? src->adj + o[0] : NULL;
    res->ival = src->ival ? src->ival + o[0] : NULL;
    res->dep = src->dep;
    *view = 1;
    return AD_OK;
  }
  return li_gather(r, src, o, n, res);
}

/* x[i], x[i, j], ... down to one scalar: the offset directly, no list of
** offsets; the common case of loops over observations.  -1 when the
** indexes do not all reduce to one element. */
static int scalar_elem(li_run *r, const ln_expr *e, const tm_v *v, tm_v *out) {
  if (tm_is_complex(v)) return -1;
  dimsel d[MAXD];
  int nd = dims_of(v, d), rc;
  if (e->nidx != nd) return -1;
  for (int i = 0; i < nd; i++) if (e->idx[i].kind != LI_SINGLE) return -1;
  size_t off = 0;
  for (int i = 0; i < nd; i++) {
    int k;
    if ((rc = li_eval_int(r, e->idx[i].a, &k))) return rc;
    if (k < 1 || k > d[i].size) return out_of_range(r, e, i, k, d[i].size);
    off += (size_t)(k - 1) * d[i].stride;
  }
  if (v->base == TM_INT) {
    *out = tm_int_view(v->ival + off);
    return AD_OK;
  }
  if (r->ad && v->adj) {
    if ((rc = li_scalar_read(v->val + off, v->adj + off, out))) return rc;
    if (r->tr) {
      tm_v src = tm_real_view(v->val + off, v->adj + off);
      li_emit1(r, LI_EV_READ, &src, out, li_chain_len());
    }
    return AD_OK;
  }
  *out = tm_real_view(v->val + off, NULL);
  out->dep = v->dep;
  return AD_OK;
}

/* A block of rows of a matrix: reverse, each column's adjoints go back to
** the rows they came from. */
typedef struct rows_node {
  ad_node hdr;
  const double *oadj;       /* nr x cols */
  double *sadj;             /* rows x cols */
  int r0, nr, rows, cols;
} rows_node;

static void rows_chain(ad_node *self) {
  rows_node *g = (rows_node *)self;
  for (int c = 0; c < g->cols; c++) {
    const double *o = g->oadj + (size_t)c * g->nr;
    double *d = g->sadj + (size_t)c * g->rows + g->r0;
    for (int i = 0; i < g->nr; i++) d[i] += o[i];
  }
}

/* X[a:b] of a column-major matrix: a copy, column by column (reduce_sum's
** X[start:end] over rows of a design matrix), without a list of offsets. */
static int matrix_rows(li_run *r, const tm_v *v, int r0, int nr, tm_v *out) {
  int ad = r->ad && v->adj;
  size_t n = (size_t)nr * (size_t)v->cols;
  *out = *v;
  out->rows = nr;
  /* every value is written below: no NaN fill first (li_alloc's) */
  out->val = ad_alloc_doubles(n ? n : 1);
  out->adj = ad ? ad_alloc_zeros(n ? n : 1) : NULL;
  if (!out->val || (ad && !out->adj)) return ad_fail(AD_EMEMORY, "out of memory");
  for (int c = 0; c < v->cols; c++)
    memcpy(out->val + (size_t)c * nr, v->val + (size_t)c * v->rows + r0, (size_t)nr * sizeof(double));
  out->dep = v->dep;
  if (!ad || nr == 0 || v->cols == 0) return AD_OK;
  li_emit_unsupported(r, "rows of a matrix on the tape (X[a:b])");
  rows_node *g = ad_node_new(sizeof *g, rows_chain);
  if (!g) return ad_fail(AD_EMEMORY, "out of memory");
  g->oadj = out->adj;
  g->sadj = v->adj;
  g->r0 = r0;
  g->nr = nr;
  g->rows = v->rows;
  g->cols = v->cols;
  return AD_OK;
}

/* x[a:b] (or a:, :b, :) on the leading dimension of an array, vector or
** row vector: the elements are contiguous, so the result is a view, with
** no list of offsets (reduce_sum's slices x[start:end]); of a matrix, a
** view when every row is taken, else a copy of the block of rows.  -1 when
** the index is something else. */
static int leading_range(li_run *r, const ln_expr *e, const tm_v *v, tm_v *out, int *copied) {
  *copied = 0;
  if (tm_is_complex(v)) return -1;
  if (e->nidx != 1 || e->idx[0].kind == LI_SINGLE || e->idx[0].kind == LI_MULTI) return -1;
  int matrix = v->narr == 0 && v->base == TM_MATRIX;
  if (v->narr == 0 && v->base != TM_VECTOR && v->base != TM_ROW_VECTOR && !matrix) return -1;
  dimsel d[MAXD];
  int rc;
  dims_of(v, d);
  if ((rc = select(r, e, 0, &e->idx[0], &d[0]))) return rc;
  if (matrix) {
    /* rows of a column-major matrix are contiguous only all together */
    if (d[0].first == 0 && d[0].n == v->rows) {
      *out = *v;
      return AD_OK;
    }
    *copied = 1;
    return matrix_rows(r, v, d[0].first, d[0].n, out);
  }
  tm_v s = *v;
  size_t off = (size_t)d[0].first * d[0].stride;
  if (v->narr) s.dim[0] = d[0].n;
  else if (v->base == TM_VECTOR) s.rows = d[0].n;
  else s.cols = d[0].n;
  if (v->base == TM_INT) s.ival = v->ival + off;
  else {
    s.val = v->val + off;
    s.adj = v->adj ? v->adj + off : NULL;
  }
  *out = s;
  return AD_OK;
}

int li_index_rvalue(li_run *r, const ln_expr *e, tm_v *out) {
  const ln_expr *b = e->args[0];
  tm_v v;
  li_slot *s = NULL;
  int rc, view;
  if (b->kind == LE_VAR) {
    s = li_slot_of(r, b);
    v = s->v;
  } else if ((rc = li_eval(r, b, &v))) {
    return rc;
  }
  if ((rc = scalar_elem(r, e, &v, out)) >= 0) return rc;
  int copied;
  if ((rc = leading_range(r, e, &v, out, &copied)) >= 0) {
    /* a view (not a copy) may be kept by a node that reads values
       backwards, as below */
    if (rc == AD_OK && !copied && s && r->ad && v.adj && !tm_is_scalar(out)) s->shared = 1;
    return rc;
  }
  tm_v res;
  size_t *o, n;
  if ((rc = apply(r, e, &v, NULL, e->idx, e->nidx, &res, &o, &n))) return rc;
  if (tm_is_complex(&v) && (rc = complex_offsets(&o, &n))) return rc;
  if ((rc = take(r, &v, o, n, &res, &view))) return rc;
  /* a view of a variable that is more than one scalar may be kept by a
  ** node that reads its values backwards: see li_int.h */
  if (s && view && r->ad && v.adj && !(tm_is_scalar(&res))) s->shared = 1;
  *out = res;
  return AD_OK;
}

/* "3, 4; 2 x 1": array dims, then rows x cols of a vector or matrix. */
static void shape_text(const tm_v *v, char *buf, size_t size) {
  size_t k = 0;
  buf[0] = '\0';
  for (int i = 0; i < v->narr && k < size; i++)
    k += (size_t)snprintf(buf + k, size - k, "%s%d", i ? ", " : "", v->dim[i]);
  int b = real_base(v->base);
  if (k < size && (b == TM_MATRIX || b == TM_VECTOR || b == TM_ROW_VECTOR))
    snprintf(buf + k, size - k, "%s%d x %d", v->narr ? "; " : "", v->rows, v->cols);
}

/* Same shape (sizes) for assignment. */
static int check_fit(li_run *r, const ln_expr *lhs, const tm_v *place, const tm_v *v) {
  int ok = place->rows == v->rows && place->cols == v->cols && place->narr == v->narr;
  for (int i = 0; ok && i < place->narr; i++) ok = place->dim[i] == v->dim[i];
  if (ok) return AD_OK;
  char a[96], b[96];
  shape_text(place, a, sizeof a);
  shape_text(v, b, sizeof b);
  return li_fail_at(r, AD_EINVALID,
                    "size mismatch in assignment to '%s': left side has size [%s], right side [%s]",
                    var_name(lhs), a, b);
}

int li_assign(li_run *r, const ln_expr *lhs, const tm_v *val) {
  /* the variable and the chain of index lists, innermost first */
  const ln_expr *chain[64];
  int nch = 0;
  const ln_expr *x = lhs;
  while (x->kind == LE_INDEX) {
    if (nch == 64) return li_fail_at(r, AD_EINVALID, "too many nested indexes");
    chain[nch++] = x;
    x = x->args[0];
  }
  li_slot *s = li_slot_of(r, x);
  tm_v v = *val;
  int rc;
  ln_type t = x->type;
  if (s->v.base != TM_INT && (rc = li_promote(r, &v, t, &v))) return rc;
  /* a right side that reads the variable's own storage is copied first */
  size_t ntot = tm_nval(&s->v);
  if (v.val && s->v.val && v.val >= s->v.val && v.val < s->v.val + (ntot ? ntot : 1)) {
    if ((rc = li_copy(r, &v, &v))) return rc;
  } else if (v.ival && s->v.ival && v.ival >= s->v.ival && v.ival < s->v.ival + (ntot ? ntot : 1)) {
    if ((rc = li_copy(r, &v, &v))) return rc;
  }
  if (nch == 0) {
    if ((rc = check_fit(r, lhs, &s->v, &v))) return rc;
    if (r->ad && s->shared && s->v.adj) {
      /* nothing later reads the old values through this slot: fresh storage */
      size_t m = ntot ? ntot : 1;
      if (!(s->v.val = ad_alloc_doubles(m)) || !(s->v.adj = ad_alloc_zeros(m)))
        return ad_fail(AD_EMEMORY, "out of memory");
      s->shared = 0;
      if (r->tr) li_emit1(r, LI_EV_ALLOC, NULL, &s->v, li_chain_len());
    }
    return li_store(r, s, NULL, &v, ntot);
  }
  tm_v place = s->v;
  size_t *o = NULL, n = tm_numel(&place);
  for (int i = nch - 1; i >= 0; i--) {
    tm_v res;
    size_t *no, nn;
    if ((rc = apply(r, chain[i], &place, o, chain[i]->idx, chain[i]->nidx, &res, &no, &nn))) return rc;
    place = res;
    o = no;
    n = nn;
  }
  if ((rc = check_fit(r, lhs, &place, &v))) return rc;
  if (tm_is_complex(&place) && (rc = complex_offsets(&o, &n))) return rc;
  return li_store(r, s, o, &v, n);
}
