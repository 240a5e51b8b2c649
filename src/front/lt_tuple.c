/*
** lt_tuple.c -- Stan's tuples, lowered before the checker runs.
**
** A tuple variable becomes one variable per element: `tuple(real, vector[3]) x`
** is `real x:1; vector[3] x:2;`, `array[N] tuple(int, array[2] real) a` is
** `array[N] int a:1; array[N, 2] real a:2;` (the array's dimensions lead each
** element's), nested tuples nest the names (`x:2:1`).  The names cannot be
** written in a program, so they never clash with the user's.  Then:
**   - `x.k` is the element's variable; indexes on an array of tuples move
**     onto every element (`a[i].2[1]` is `a:2[i][1]`);
**   - a tuple literal `(e1, e2)` is its elements, assigned element-wise
**     (which gives int -> real promotion element by element);
**   - a tuple argument of a user function is one argument per element; a
**     function returning a tuple becomes one function per element of the
**     result, `f:1`, `f:2`, each returning that element of every return
**     statement (so the body runs once per element: tuple-valued _rng, _lp
**     and _jacobian functions are refused, as the runs would differ);
**   - `{t1, t2}` and `c ? t1 : t2` of tuples are element-wise;
**   - qr, qr_thin, svd, eigendecompose_sym and csr_extract are the tuples of
**     their component functions (qr_Q, qr_R...) when the library has them;
**   - print of a tuple prints "(e1, e2)".
** The program that comes out has no tuple left: the checker, the
** interpreter and plans see ordinary variables.  The original tree is not
** modified: everything lowered is a fresh node (a function returning a tuple
** has its body lowered once per element).
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ln.h"
#include "lc.h"

/* A lowered tuple-valued expression: a tree of its elements. */
typedef struct tv tv;
struct tv {
  int n;            /* elements; 0 for a leaf (an ordinary expression) */
  tv **el;
  ln_expr *leaf;
  int narr;         /* array dimensions around the tuple (an array of tuples) */
};

typedef struct ent {
  const char *name;
  tv *tmpl;              /* NULL: not a tuple */
  const ln_decl *decl;   /* a sized tuple declaration (not an argument nor a loop variable) */
} ent;

typedef struct vec { void **v; int n, cap; } vec;

typedef struct lt {
  ln_program *p;
  char *err;
  size_t errsize;
  jmp_buf jb;
  ent *s;
  int n, cap;
  const int *path;      /* lowering a copy of a tuple-returning function: the result's element */
  int npath;
  int depth;
  ln_tuple_var *tvars;
  int ntv, captv;
  ln_func **funcs;      /* the program's functions as written */
  int nfuncs;
} lt;

#ifdef __GNUC__
__attribute__((noreturn, format(AD_PRINTF_FMT, 4, 5)))
#endif
static void fail(lt *L, int line, int col, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ln_verror(L->p, line, col, L->err, L->errsize, fmt, ap);
  va_end(ap);
  longjmp(L->jb, 1);
}

static void *alloc(lt *L, size_t n) {
  void *x = ln_alloc(L->p, n ? n : 1);
  if (!x) fail(L, 1, 1, "out of memory lowering tuples");
  return x;
}

static char *str(lt *L, const char *s) {
  char *x = ln_strdup(L->p, s, strlen(s));
  if (!x) fail(L, 1, 1, "out of memory lowering tuples");
  return x;
}

/* prefix + ":" + k, or prefix + suffix, in the pool */
static char *subname(lt *L, const char *prefix, int k, const char *suffix) {
  size_t n = strlen(prefix) + 16 + (suffix ? strlen(suffix) : 0);
  char *x = alloc(L, n);
  if (suffix) snprintf(x, n, "%s%s", prefix, suffix);
  else snprintf(x, n, "%s:%d", prefix, k);
  return x;
}

static void push(lt *L, vec *v, void *x) {
  if (ln_grow(L->p, &v->v, v->n, &v->cap, sizeof *v->v, 8)) fail(L, 1, 1, "out of memory lowering tuples");
  v->v[v->n++] = x;
}

static void enter(lt *L, int line, int col) {
  if (++L->depth > 3000) fail(L, line, col, "the program is nested too deeply");
}

/* ---- scope ---- */
static void scope_push(lt *L, const char *name, tv *tmpl) {
  if (ad_grow(&L->s, L->n, &L->cap, sizeof *L->s, 64)) fail(L, 1, 1, "out of memory lowering tuples");
  L->s[L->n].name = name;
  L->s[L->n].tmpl = tmpl;
  L->s[L->n].decl = NULL;
  L->n++;
}

static const ent *scope_find(const lt *L, const char *name) {
  for (int i = L->n - 1; i >= 0; i--)
    if (L->s[i].name && !strcmp(L->s[i].name, name)) return &L->s[i];
  return NULL;
}

/* ---- copies ---- */
/* c, a shallow copy of e, gets fresh arguments and indexes made by f from
** e's: copy_expr and low walk the tree the same way, with a different f. */
typedef ln_expr *expr_fn(lt *L, const ln_expr *e);
static void map_args(lt *L, ln_expr *c, const ln_expr *e, expr_fn *f) {
  c->args = alloc(L, (size_t)e->nargs * sizeof *c->args);
  for (int i = 0; i < e->nargs; i++) c->args[i] = f(L, e->args[i]);
}
static void map_idx(lt *L, ln_expr *c, const ln_expr *e, expr_fn *f) {
  c->idx = alloc(L, (size_t)e->nidx * sizeof *c->idx);
  for (int i = 0; i < e->nidx; i++) {
    c->idx[i] = e->idx[i];
    c->idx[i].a = f(L, e->idx[i].a);
    c->idx[i].b = f(L, e->idx[i].b);
  }
}

static ln_expr *copy_expr(lt *L, const ln_expr *e) {
  if (!e) return NULL;
  ln_expr *c = alloc(L, sizeof *c);
  *c = *e;
  if (e->nargs) map_args(L, c, e, copy_expr);
  if (e->nidx) map_idx(L, c, e, copy_expr);
  return c;
}

static void set_pos(ln_expr *e, int line, int col) {
  e->line = line;
  e->col = col;
}

static tv *leaf(lt *L, ln_expr *e) {
  tv *t = alloc(L, sizeof *t);
  t->leaf = e;
  return t;
}

static tv *copy_tv(lt *L, const tv *t, int line, int col) {
  tv *c = alloc(L, sizeof *c);
  *c = *t;
  if (!t->n) {
    c->leaf = copy_expr(L, t->leaf);
    if (line) set_pos(c->leaf, line, col);
    return c;
  }
  c->el = alloc(L, (size_t)t->n * sizeof *c->el);
  for (int i = 0; i < t->n; i++) c->el[i] = copy_tv(L, t->el[i], line, col);
  return c;
}

static void leaves(const tv *t, vec *out, lt *L) {
  if (!t->n) { push(L, out, t->leaf); return; }
  for (int i = 0; i < t->n; i++) leaves(t->el[i], out, L);
}

/* The type of a tuple for messages: tuple(real, array[] vector) */
static void type_text(const ln_tuple *T, char *buf, size_t size) {
  size_t m = (size_t)snprintf(buf, size, "tuple(");
  for (int i = 0; i < T->n && m < size; i++) {
    const ln_decl *e = T->elem[i];
    char b[320];
    if (e->tuple) {
      char inner[256];
      type_text(e->tuple, inner, sizeof inner);
      if (e->type.narr) {
        char commas[TM_MAXARR + 1];
        int k = 0;
        for (; k < e->type.narr - 1 && k < TM_MAXARR; k++) commas[k] = ',';
        commas[k] = '\0';
        snprintf(b, sizeof b, "array[%s] %s", commas, inner);
      } else {
        snprintf(b, sizeof b, "%s", inner);
      }
    } else {
      ln_type t = e->type;
      t.data_only = 0;
      ln_type_text(t, b, sizeof b);
    }
    m += (size_t)snprintf(buf + m, size - m, "%s%s", i ? ", " : "", b);
  }
  if (m < size) snprintf(buf + m, size - m, ")");
}

/* ---- tuple values of variables and calls ---- */
/* kind LE_VAR: leaves are the variables prefix:k...; LE_CALL: calls of the
** functions prefix:k... with args (copied per leaf). */
static tv *build(lt *L, const ln_tuple *T, int narr, const char *prefix, int kind, ln_expr **args,
                 int nargs, int line, int col) {
  tv *t = alloc(L, sizeof *t);
  t->n = T->n;
  t->narr = narr;
  t->el = alloc(L, (size_t)T->n * sizeof *t->el);
  for (int i = 0; i < T->n; i++) {
    char *name = subname(L, prefix, i + 1, NULL);
    const ln_decl *e = T->elem[i];
    if (e->tuple) {
      t->el[i] = build(L, e->tuple, e->type.narr, name, kind, args, nargs, line, col);
      continue;
    }
    ln_expr *x = alloc(L, sizeof *x);
    x->kind = (unsigned char)kind;
    x->name = name;
    set_pos(x, line, col);
    if (kind == LE_CALL && nargs) {
      x->nargs = nargs;
      x->args = alloc(L, (size_t)nargs * sizeof *x->args);
      for (int j = 0; j < nargs; j++) x->args[j] = copy_expr(L, args[j]);
    }
    t->el[i] = leaf(L, x);
  }
  return t;
}

static const ln_func *tuple_func(const lt *L, const char *name) {
  for (int i = 0; i < L->nfuncs; i++) {
    const ln_func *f = L->funcs[i];
    if (f->ret.base == LN_TUPLE && f->ret_tuple && !strcmp(f->name, name)) return f;
  }
  return NULL;
}

static int user_func(const lt *L, const char *name) {
  for (int i = 0; i < L->nfuncs; i++)
    if (!strcmp(L->funcs[i]->name, name)) return 1;
  return 0;
}

/* library functions whose result is a tuple, and the functions of its elements */
static const struct { const char *name; const char *part[3]; int n; } libtuples[] = {
  {"qr", {"qr_Q", "qr_R", NULL}, 2},
  {"qr_thin", {"qr_thin_Q", "qr_thin_R", NULL}, 2},
  {"svd", {"svd_U", "singular_values", "svd_V"}, 3},
  {"eigendecompose_sym", {"eigenvectors_sym", "eigenvalues_sym", NULL}, 2},
  {"eigendecompose", {"eigenvectors", "eigenvalues", NULL}, 2},
  {"complex_schur_decompose", {"complex_schur_decompose_u", "complex_schur_decompose_t", NULL}, 2},
  {"csr_extract", {"csr_extract_w", "csr_extract_v", "csr_extract_u"}, 3},
};

static ln_expr *low(lt *L, const ln_expr *e);
static tv *tup(lt *L, const ln_expr *e);

/* Lowered arguments of a call: a tuple argument gives its elements. */
static void flat_args(lt *L, ln_expr *const *args, int n, vec *out) {
  for (int i = 0; i < n; i++) {
    tv *t = tup(L, args[i]);
    if (t) leaves(t, out, L);
    else push(L, out, low(L, args[i]));
  }
}

static tv *tv_index(lt *L, const tv *b, const ln_index *idx, int nidx, int top, const ln_expr *at) {
  tv *t = alloc(L, sizeof *t);
  *t = *b;
  if (top) {
    if (!b->narr)
      fail(L, at->line, at->col, "a tuple cannot be indexed with [...]: its elements are .1, .2, ...");
    if (nidx > b->narr)
      fail(L, at->line, at->col, "too many indexes (%d) for an array of tuples with %d dimension%s", nidx,
           b->narr, b->narr == 1 ? "" : "s");
    int singles = 0;
    for (int i = 0; i < nidx; i++) singles += idx[i].kind == LI_SINGLE;
    t->narr = b->narr - singles;
  }
  if (!b->n) {
    ln_expr *x = alloc(L, sizeof *x);
    x->kind = LE_INDEX;
    set_pos(x, b->leaf->line, b->leaf->col);
    x->nargs = 1;
    x->args = alloc(L, sizeof *x->args);
    x->args[0] = b->leaf;
    x->nidx = nidx;
    x->idx = alloc(L, (size_t)nidx * sizeof *x->idx);
    for (int i = 0; i < nidx; i++) {
      x->idx[i] = idx[i];
      x->idx[i].a = copy_expr(L, idx[i].a);
      x->idx[i].b = copy_expr(L, idx[i].b);
    }
    t->leaf = x;
    return t;
  }
  t->el = alloc(L, (size_t)b->n * sizeof *t->el);
  for (int i = 0; i < b->n; i++) t->el[i] = tv_index(L, b->el[i], idx, nidx, 0, at);
  return t;
}

/* {t1, t2, ...} (kind LE_ARRAY) or c ? t1 : t2 (LE_COND, cond given) element-wise */
static tv *zip(lt *L, tv **ts, int m, int kind, const ln_expr *cond, const ln_expr *at) {
  tv *t = alloc(L, sizeof *t);
  *t = *ts[0];
  for (int j = 1; j < m; j++)
    if (ts[j]->n != ts[0]->n || ts[j]->narr != ts[0]->narr || (!ts[j]->n) != (!ts[0]->n))
      fail(L, at->line, at->col, "the tuples in this %s do not have the same type",
           kind == LE_ARRAY ? "array expression" : "conditional expression");
  if (!ts[0]->n) {
    ln_expr *x = alloc(L, sizeof *x);
    x->kind = (unsigned char)kind;
    set_pos(x, at->line, at->col);
    int off = kind == LE_COND;
    x->nargs = m + off;
    x->args = alloc(L, (size_t)(m + off) * sizeof *x->args);
    if (off) x->args[0] = copy_expr(L, cond);
    for (int j = 0; j < m; j++) x->args[j + off] = ts[j]->leaf;
    t->leaf = x;
    return t;
  }
  t->el = alloc(L, (size_t)t->n * sizeof *t->el);
  tv **sub = alloc(L, (size_t)m * sizeof *sub);
  for (int i = 0; i < t->n; i++) {
    for (int j = 0; j < m; j++) sub[j] = ts[j]->el[i];
    t->el[i] = zip(L, sub, m, kind, cond, at);
  }
  return t;
}

/* The tuple value of e, or NULL when e is not a tuple nor an element of one.
** A leaf result is an ordinary expression reached through tuples (x.1). */
static tv *tup(lt *L, const ln_expr *e) {
  if (!e) return NULL;
  switch (e->kind) {
  case LE_VAR: {
    const ent *s = scope_find(L, e->name);
    return s && s->tmpl ? copy_tv(L, s->tmpl, e->line, e->col) : NULL;
  }
  case LE_INDEX: {
    tv *b = tup(L, e->args[0]);
    if (!b) return NULL;
    ln_index *idx = alloc(L, (size_t)(e->nidx ? e->nidx : 1) * sizeof *idx);
    for (int i = 0; i < e->nidx; i++) {
      idx[i] = e->idx[i];
      idx[i].a = low(L, e->idx[i].a);
      idx[i].b = low(L, e->idx[i].b);
    }
    if (!b->n) {
      ln_expr *x = alloc(L, sizeof *x);
      *x = *e;
      x->args = alloc(L, sizeof *x->args);
      x->args[0] = b->leaf;
      x->idx = idx;
      return leaf(L, x);
    }
    return tv_index(L, b, idx, e->nidx, 1, e);
  }
  case LE_TPROJ: {
    tv *b = tup(L, e->args[0]);
    if (!b || !b->n) fail(L, e->line, e->col, "'.%d' indexes a tuple, but this expression is not a tuple", e->ival);
    if (b->narr)
      fail(L, e->line, e->col, "'.%d' indexes a tuple, but this is an array of tuples: index the array first", e->ival);
    if (e->ival < 1 || e->ival > b->n)
      fail(L, e->line, e->col, "tuple index %d is out of range: the tuple has %d elements", e->ival, b->n);
    return b->el[e->ival - 1];
  }
  case LE_TUPLE: {
    tv *t = alloc(L, sizeof *t);
    t->n = e->nargs;
    t->el = alloc(L, (size_t)e->nargs * sizeof *t->el);
    for (int i = 0; i < e->nargs; i++) {
      tv *x = tup(L, e->args[i]);
      t->el[i] = x ? x : leaf(L, low(L, e->args[i]));
    }
    return t;
  }
  case LE_CALL: {
    const ln_func *f = tuple_func(L, e->name);
    if (f) {
      vec a = {0};
      flat_args(L, e->args, e->nargs, &a);
      return build(L, f->ret_tuple, f->ret.narr, f->name, LE_CALL, (ln_expr **)a.v, a.n, e->line, e->col);
    }
    if (user_func(L, e->name)) return NULL;
    for (size_t k = 0; k < sizeof libtuples / sizeof *libtuples; k++) {
      if (strcmp(e->name, libtuples[k].name)) continue;
      int cnt;
      for (int j = 0; j < libtuples[k].n; j++)
        if (!tm_lookup(libtuples[k].part[j], &cnt))
          fail(L, e->line, e->col, "'%s' is a Stan function that is not supported by tapestry yet "
               "(tapestry builds its tuple from %s%s%s%s%s, and lacks '%s')", e->name,
               libtuples[k].part[0], libtuples[k].n > 2 ? ", " : " and ", libtuples[k].part[1],
               libtuples[k].n > 2 ? " and " : "", libtuples[k].n > 2 ? libtuples[k].part[2] : "",
               libtuples[k].part[j]);
      vec a = {0};
      flat_args(L, e->args, e->nargs, &a);
      tv *t = alloc(L, sizeof *t);
      t->n = libtuples[k].n;
      t->el = alloc(L, (size_t)t->n * sizeof *t->el);
      for (int j = 0; j < t->n; j++) {
        ln_expr *x = alloc(L, sizeof *x);
        *x = *e;
        x->name = libtuples[k].part[j];
        x->nargs = a.n;
        x->args = alloc(L, (size_t)(a.n ? a.n : 1) * sizeof *x->args);
        for (int i = 0; i < a.n; i++) x->args[i] = copy_expr(L, a.v[i]);
        t->el[j] = leaf(L, x);
      }
      return t;
    }
    return NULL;
  }
  case LE_ARRAY: {
    if (!e->nargs) return NULL;
    tv *t0 = tup(L, e->args[0]);
    if (!t0 || !t0->n) return NULL;
    tv **ts = alloc(L, (size_t)e->nargs * sizeof *ts);
    ts[0] = t0;
    for (int j = 1; j < e->nargs; j++) {
      ts[j] = tup(L, e->args[j]);
      if (!ts[j] || !ts[j]->n)
        fail(L, e->args[j]->line, e->args[j]->col, "the elements of an array expression must all be tuples or none");
    }
    tv *r = zip(L, ts, e->nargs, LE_ARRAY, NULL, e);
    r->narr++;
    return r;
  }
  case LE_COND: {
    tv *a = tup(L, e->args[1]);
    if (!a || !a->n) return NULL;
    tv *b = tup(L, e->args[2]);
    if (!b || !b->n) fail(L, e->args[2]->line, e->args[2]->col, "both branches of '?:' must be tuples");
    tv *ts[2] = {a, b};
    return zip(L, ts, 2, LE_COND, low(L, e->args[0]), e);
  }
  default:
    return NULL;
  }
}

/* e as an ordinary expression (fresh nodes) */
static ln_expr *low(lt *L, const ln_expr *e) {
  if (!e) return NULL;
  enter(L, e->line, e->col);
  tv *t = tup(L, e);
  if (t) {
    if (t->n)
      fail(L, e->line, e->col, "a tuple cannot be used here (tuples can be assigned, indexed with .1, .2... "
           "and passed to functions)");
    L->depth--;
    return t->leaf;
  }
  ln_expr *c = alloc(L, sizeof *c);
  *c = *e;
  if (e->kind == LE_CALL) {
    vec a = {0};
    flat_args(L, e->args, e->nargs, &a);
    c->nargs = a.n;
    c->args = (ln_expr **)a.v;
  } else if (e->nargs) {
    map_args(L, c, e, low);
  }
  if (e->nidx) map_idx(L, c, e, low);
  L->depth--;
  return c;
}

/* x[i][j] as x[i, j] when the inner indexes are single: the checker's
** left-hand sides are a variable or one index of it */
static ln_expr *merge_index(lt *L, ln_expr *e) {
  while (e->kind == LE_INDEX && e->args[0]->kind == LE_INDEX) {
    ln_expr *in = e->args[0];
    for (int i = 0; i < in->nidx; i++)
      if (in->idx[i].kind != LI_SINGLE) return e;
    ln_expr *x = alloc(L, sizeof *x);
    *x = *in;
    x->nidx = in->nidx + e->nidx;
    x->idx = alloc(L, (size_t)x->nidx * sizeof *x->idx);
    memcpy(x->idx, in->idx, (size_t)in->nidx * sizeof *x->idx);
    memcpy(x->idx + in->nidx, e->idx, (size_t)e->nidx * sizeof *x->idx);
    e = x;
  }
  return e;
}

/* the variable at the root of an lvalue */
static const char *root_name(const ln_expr *e) {
  while (e && (e->kind == LE_INDEX || e->kind == LE_TPROJ)) e = e->args[0];
  return e && e->kind == LE_VAR ? e->name : NULL;
}

static int mentions(const ln_expr *e, const char *name) {
  if (!e) return 0;
  if (e->kind == LE_VAR && e->name && !strcmp(e->name, name)) return 1;
  for (int i = 0; i < e->nargs; i++) if (mentions(e->args[i], name)) return 1;
  for (int i = 0; i < e->nidx; i++) if (mentions(e->idx[i].a, name) || mentions(e->idx[i].b, name)) return 1;
  return 0;
}

/* A call of a function neither the program nor the library has, where a
** tuple is expected: say so as the checker would. */
static void not_known(lt *L, const ln_expr *e) {
  int cnt;
  if (!e || e->kind != LE_CALL || user_func(L, e->name) || tm_lookup(e->name, &cnt)) return;
  if (lc_is_stan_name(e->name))
    fail(L, e->line, e->col, "'%s' is a Stan function that is not supported by tapestry yet", e->name);
  fail(L, e->line, e->col, "unknown function '%s'", e->name);
}

static void same_shape(lt *L, const tv *a, const tv *b, const ln_expr *at, const char *what) {
  if ((!a->n) != (!b->n) || a->n != b->n || a->narr != b->narr) {
    if (!a->n || !b->n)
      fail(L, at->line, at->col, "%s: a tuple and a value that is not a tuple", what);
    if (a->narr != b->narr)
      fail(L, at->line, at->col, "%s: the array dimensions of the tuples differ (%d and %d)", what, a->narr, b->narr);
    fail(L, at->line, at->col, "%s: a tuple of %d elements and a tuple of %d elements", what, a->n, b->n);
  }
  for (int i = 0; i < a->n; i++) same_shape(L, a->el[i], b->el[i], at, what);
}

/* ---- declarations ---- */
typedef struct lf {           /* a leaf of a tuple type */
  char *name;
  const ln_decl *elem;
  ln_expr *dims[TM_MAXARR];   /* sized: the enclosing arrays' sizes, then the element's */
  int narr;
  unsigned char split[TM_MAXARR];
  int nsplit;
} lf;

static void type_leaves(lt *L, const ln_tuple *T, const char *prefix, const lf *outer, vec *out, int line, int col) {
  for (int i = 0; i < T->n; i++) {
    const ln_decl *e = T->elem[i];
    lf *f = alloc(L, sizeof *f);
    *f = *outer;
    f->name = subname(L, prefix, i + 1, NULL);
    if (f->narr + e->type.narr > TM_MAXARR)
      fail(L, line, col, "tapestry's arrays have at most %d dimensions: an element of this tuple has more", TM_MAXARR);
    for (int k = 0; k < e->type.narr; k++) f->dims[f->narr + k] = e->dims[k];
    f->narr += e->type.narr;
    if (e->tuple) {
      if (f->nsplit >= TM_MAXARR) fail(L, line, col, "tuples nest too deeply");
      f->split[f->nsplit++] = e->type.narr;
      type_leaves(L, e->tuple, f->name, f, out, line, col);
    } else {
      f->elem = e;
      push(L, out, f);
    }
  }
}

static void all_leaves(lt *L, const ln_decl *d, const char *name, vec *out) {
  lf top;
  memset(&top, 0, sizeof top);
  for (int k = 0; k < d->type.narr; k++) top.dims[k] = d->dims[k];
  top.narr = d->type.narr;
  top.split[0] = d->type.narr;
  top.nsplit = 1;
  type_leaves(L, d->tuple, name, &top, out, d->line, d->col);
}

/* A declaration's bounds, offset/multiplier and sizes, lowered from d's
** into x (a leaf's declaration or a plain copy). */
static void low_bounds(lt *L, ln_decl *x, const ln_decl *d) {
  x->lower = low(L, d->lower);
  x->upper = low(L, d->upper);
  x->offset = low(L, d->offset);
  x->multiplier = low(L, d->multiplier);
  x->size1 = low(L, d->size1);
  x->size2 = low(L, d->size2);
}

/* a declaration of one element: sized (variables) or not (arguments) */
static ln_decl *leaf_decl(lt *L, const lf *f, const ln_decl *d, int sized) {
  ln_decl *x = alloc(L, sizeof *x);
  const ln_decl *e = f->elem;
  *x = *e;
  x->name = str(L, f->name);
  x->line = d->line;
  x->col = d->col;
  x->type.narr = (unsigned char)f->narr;
  x->type.data_only = d->type.data_only;
  x->init = NULL;
  x->tuple = NULL;
  x->old_syntax = 0;
  if (sized) {
    for (int k = 0; k < f->narr; k++) x->dims[k] = low(L, f->dims[k]);
    low_bounds(L, x, e);
  } else {
    for (int k = 0; k < TM_MAXARR; k++) x->dims[k] = NULL;
  }
  memcpy(x->tsplit, f->split, sizeof x->tsplit);
  x->ntsplit = (unsigned char)f->nsplit;
  return x;
}

/* the shape string of ln.h's lt_tuple_vars */
static void shape_text(const ln_tuple *T, int narr, char *buf, size_t size) {
  size_t m = (size_t)snprintf(buf, size, "%d(", narr);
  for (int i = 0; i < T->n && m < size; i++) {
    const ln_decl *e = T->elem[i];
    if (i) m += (size_t)snprintf(buf + m, size - m, ",");
    if (m >= size) break;
    if (e->tuple) shape_text(e->tuple, e->type.narr, buf + m, size - m);
    else snprintf(buf + m, size - m, "%d", e->type.narr);
    m = strlen(buf);
  }
  if (m < size) snprintf(buf + m, size - m, ")");
}

static tv *var_tmpl(lt *L, const ln_decl *d) {
  return build(L, d->tuple, d->type.narr, d->name, LE_VAR, NULL, 0, d->line, d->col);
}

static ln_stmt *new_stmt(lt *L, const ln_stmt *like, int kind) {
  ln_stmt *s = alloc(L, sizeof *s);
  s->kind = (unsigned char)kind;
  s->line = like->line;
  s->col = like->col;
  return s;
}

/* x = e or a[i] = e where e reads the tuple x (a): every element of e goes
** to a local first, { T x:t:1 = e1; ...; x:1 = x:t:1; ... }, so that no
** element is read after it was assigned. */
static void alias_assign(lt *L, const ln_stmt *s, const char *root, vec *lv, vec *rv, vec *out) {
  const ent *en = scope_find(L, root);
  const ln_expr *l = s->lhs;
  int ndrop = 0, ok = en && en->decl;
  while (ok && l->kind == LE_INDEX) {
    for (int i = 0; i < l->nidx; i++) ok = ok && l->idx[i].kind == LI_SINGLE;
    ndrop += l->nidx;
    l = l->args[0];
  }
  if (!ok || l->kind != LE_VAR || ndrop > en->decl->type.narr)
    fail(L, s->e->line, s->e->col, "tapestry cannot yet assign to this part of the tuple '%s' a value computed from "
         "'%s' itself: assign the value to a new tuple variable first", root, root);
  char *tname = subname(L, root, 0, ":t");
  vec dv = {0};
  all_leaves(L, en->decl, tname, &dv);
  if (dv.n != lv->n) fail(L, s->line, s->col, "internal error: the tuple's elements disagree");
  ln_stmt *b = new_stmt(L, s, LS_BLOCK);
  vec body = {0};
  for (int i = 0; i < dv.n; i++) {
    ln_decl *d = leaf_decl(L, dv.v[i], en->decl, 1);
    for (int k = 0; k + ndrop < d->type.narr; k++) d->dims[k] = d->dims[k + ndrop];
    d->type.narr = (unsigned char)(d->type.narr - ndrop);
    d->transform = NULL;
    d->lower = d->upper = d->offset = d->multiplier = NULL;
    d->ntsplit = 0;
    d->init = rv->v[i];
    ln_stmt *st = new_stmt(L, s, LS_DECL);
    st->decl = d;
    push(L, &body, st);
  }
  for (int i = 0; i < dv.n; i++) {
    ln_stmt *a = new_stmt(L, s, LS_ASSIGN);
    a->lhs = merge_index(L, lv->v[i]);
    ln_expr *t = alloc(L, sizeof *t);
    t->kind = LE_VAR;
    t->name = ((ln_stmt *)body.v[i])->decl->name;
    set_pos(t, s->e->line, s->e->col);
    a->e = t;
    push(L, &body, a);
  }
  b->body = (ln_stmt **)body.v;
  b->nbody = body.n;
  push(L, out, b);
}

static void low_stmt(lt *L, const ln_stmt *s, vec *out, int blk, int top);

static void tuple_decl(lt *L, const ln_stmt *s, vec *out, int blk, int top) {
  const ln_decl *d = s->decl;
  vec lv = {0};
  all_leaves(L, d, d->name, &lv);
  tv *init = NULL;
  if (d->init) {
    init = tup(L, d->init);
    char tt[512];
    type_text(d->tuple, tt, sizeof tt);
    if (!init || !init->n) {
      not_known(L, d->init);
      fail(L, d->init->line, d->init->col, "the value of '%s' must be a tuple (its type is %s)", d->name, tt);
    }
    tv *me = var_tmpl(L, d);
    char what[600];
    snprintf(what, sizeof what, "cannot assign this value to '%s' of type %s", d->name, tt);
    same_shape(L, me, init, d->init, what);
  }
  vec iv = {0};
  if (init) leaves(init, &iv, L);
  for (int i = 0; i < lv.n; i++) {
    ln_stmt *st = new_stmt(L, s, LS_DECL);
    st->decl = leaf_decl(L, lv.v[i], d, 1);
    if (init) st->decl->init = iv.v[i];
    push(L, out, st);
  }
  scope_push(L, d->name, var_tmpl(L, d));
  L->s[L->n - 1].decl = d;
  if (top && blk != LN_BLK_MODEL) {
    if (ln_grow(L->p, &L->tvars, L->ntv, &L->captv, sizeof *L->tvars, 8))
      fail(L, 1, 1, "out of memory lowering tuples");
    char sh[1024];
    shape_text(d->tuple, d->type.narr, sh, sizeof sh);
    L->tvars[L->ntv].name = d->name;
    L->tvars[L->ntv].block = blk;
    L->tvars[L->ntv].shape = str(L, sh);
    L->ntv++;
  }
}

static ln_decl *plain_decl(lt *L, const ln_decl *d) {
  ln_decl *x = alloc(L, sizeof *x);
  *x = *d;
  for (int k = 0; k < d->type.narr && k < TM_MAXARR; k++) x->dims[k] = low(L, d->dims[k]);
  low_bounds(L, x, d);
  x->init = low(L, d->init);
  return x;
}

/* ---- statements ---- */
static ln_stmt *as_one(lt *L, const ln_stmt *like, vec *v) {
  if (v->n == 1) return v->v[0];
  ln_stmt *b = new_stmt(L, like, LS_BLOCK);
  b->body = (ln_stmt **)v->v;
  b->nbody = v->n;
  return b;
}

static ln_stmt *low_one(lt *L, const ln_stmt *s, int blk) {
  if (!s) return NULL;
  vec v = {0};
  int mark = L->n;
  low_stmt(L, s, &v, blk, 0);
  L->n = mark;
  return as_one(L, s, &v);
}

static void low_body(lt *L, ln_stmt *const *body, int n, vec *out, int blk, int top) {
  for (int i = 0; i < n; i++) low_stmt(L, body[i], out, blk, top);
}

static ln_expr *string_expr(lt *L, const char *text, int line, int col) {
  ln_expr *x = alloc(L, sizeof *x);
  x->kind = LE_STRING;
  x->name = text;
  set_pos(x, line, col);
  return x;
}

/* print(...) arguments: a tuple prints as (e1, e2) */
static void print_tuple(lt *L, const tv *t, vec *out, int line, int col) {
  if (!t->n) { push(L, out, t->leaf); return; }
  if (t->narr)
    fail(L, line, col, "tapestry cannot print an array of tuples: print its elements");
  push(L, out, string_expr(L, "(", line, col));
  for (int i = 0; i < t->n; i++) {
    if (i) push(L, out, string_expr(L, ", ", line, col));
    print_tuple(L, t->el[i], out, line, col);
  }
  push(L, out, string_expr(L, ")", line, col));
}

/* s = e where s is a tuple (lhs, its lowered target, has elements): one
** assignment per element, through locals when e reads the target itself. */
static void low_tuple_assign(lt *L, const ln_stmt *s, tv *lhs, vec *out) {
  if (s->op) fail(L, s->line, s->col, "a tuple cannot be the target of a compound assignment");
  tv *rt = tup(L, s->e);
  if (!rt || !rt->n) {
    not_known(L, s->e);
    fail(L, s->e->line, s->e->col, "a tuple can only be assigned a tuple");
  }
  same_shape(L, lhs, rt, s->e, "cannot assign this value");
  const char *root = root_name(s->lhs);
  vec lv = {0}, rv = {0};
  leaves(lhs, &lv, L);
  leaves(rt, &rv, L);
  if (root && mentions(s->e, root)) {
    alias_assign(L, s, root, &lv, &rv, out);
    return;
  }
  for (int i = 0; i < lv.n; i++) {
    ln_stmt *a = new_stmt(L, s, LS_ASSIGN);
    a->lhs = merge_index(L, lv.v[i]);
    a->e = rv.v[i];
    push(L, out, a);
  }
}

/* return e in one copy of a tuple-returning function (L->path names the
** copy's element of the result): e's element at that path. */
static ln_expr *low_return_element(lt *L, const ln_stmt *s) {
  tv *t = tup(L, s->e);
  if (!t || !t->n) fail(L, s->e->line, s->e->col, "this function returns a tuple: return a tuple");
  for (int k = 0; k < L->npath; k++) {
    if (!t->n || t->narr || L->path[k] >= t->n)
      fail(L, s->e->line, s->e->col, "the returned tuple does not have the function's return type");
    t = t->el[L->path[k]];
  }
  if (t->n) fail(L, s->e->line, s->e->col, "the returned tuple does not have the function's return type");
  return t->leaf;
}

/* print/reject/fatal_error arguments, a tuple spelled out as "(e1, e2)" */
static void low_print_args(lt *L, const ln_stmt *s, ln_stmt *c) {
  vec a = {0};
  for (int i = 0; i < s->nargs; i++) {
    tv *t = tup(L, s->args[i]);
    if (t) print_tuple(L, t, &a, s->args[i]->line, s->args[i]->col);
    else push(L, &a, low(L, s->args[i]));
  }
  c->args = (ln_expr **)a.v;
  c->nargs = a.n;
}

/* for (x in a), a (lowered to t) an array of tuples: there is no array to
** loop over, so for (x:i in 1:size(a's first element)) with x bound to
** a[x:i] while the body is lowered. */
static ln_stmt *low_foreach_tuple(lt *L, const ln_stmt *s, const tv *t, int blk) {
  if (!t->narr)
    fail(L, s->e->line, s->e->col, "'for (%s in ...)' loops over an array, not over a tuple", s->name);
  ln_stmt *f = new_stmt(L, s, LS_FOR);
  f->name = subname(L, s->name, 0, ":i");
  ln_expr *one = alloc(L, sizeof *one);
  one->kind = LE_INT;
  one->ival = 1;
  set_pos(one, s->e->line, s->e->col);
  vec lv = {0};
  leaves(t, &lv, L);
  ln_expr *sz = alloc(L, sizeof *sz);
  sz->kind = LE_CALL;
  sz->name = "size";
  set_pos(sz, s->e->line, s->e->col);
  sz->nargs = 1;
  sz->args = alloc(L, sizeof *sz->args);
  sz->args[0] = copy_expr(L, lv.v[0]);
  f->lo = one;
  f->hi = sz;
  ln_index ix;
  memset(&ix, 0, sizeof ix);
  ix.kind = LI_SINGLE;
  ix.a = alloc(L, sizeof *ix.a);
  ix.a->kind = LE_VAR;
  ix.a->name = f->name;
  set_pos(ix.a, s->line, s->col);
  int mark = L->n;
  scope_push(L, f->name, NULL);
  scope_push(L, s->name, tv_index(L, t, &ix, 1, 1, s->e));
  f->body = alloc(L, sizeof *f->body);
  f->nbody = 1;
  f->body[0] = low_one(L, s->body[0], blk);
  L->n = mark;
  return f;
}

/* The one-statement body of a loop (c a copy of s), with the loop
** variable (if any) in scope only there. */
static void low_loop_body(lt *L, const ln_stmt *s, ln_stmt *c, const char *var, int blk) {
  int mark = L->n;
  if (var) scope_push(L, var, NULL);
  c->body = alloc(L, sizeof *c->body);
  c->body[0] = low_one(L, s->body[0], blk);
  L->n = mark;
}

/* Appends to out the statements s lowers to: usually one fresh copy of s,
** several for a tuple declaration or assignment.  blk is the program block
** being lowered (LN_BLK_*; LN_BLK_FUNCTIONS in a function body): the tuples
** declared in a block other than model are recorded for the output's
** column names.  top is 1 for a statement at a block's top level, 0 inside
** braces, loops and branches: only top-level declarations are the block's
** variables (the others are locals, never output). */
static void low_stmt(lt *L, const ln_stmt *s, vec *out, int blk, int top) {
  if (!s) return;
  enter(L, s->line, s->col);
  ln_stmt *c = alloc(L, sizeof *c);
  *c = *s;
  switch (s->kind) {
  case LS_DECL:
    if (s->decl->tuple) { tuple_decl(L, s, out, blk, top); L->depth--; return; }
    c->decl = plain_decl(L, s->decl);
    scope_push(L, s->decl->name, NULL);
    break;
  case LS_ASSIGN: {
    tv *lt_ = tup(L, s->lhs);
    if (lt_ && lt_->n) {
      low_tuple_assign(L, s, lt_, out);
      L->depth--;
      return;
    }
    c->lhs = lt_ ? merge_index(L, lt_->leaf) : low(L, s->lhs);
    c->e = low(L, s->e);
    break;
  }
  case LS_RETURN:
    c->e = L->path && s->e ? low_return_element(L, s) : low(L, s->e);
    break;
  case LS_PRINT: case LS_REJECT: case LS_FATAL:
    low_print_args(L, s, c);
    break;
  case LS_FOREACH: {
    tv *t = tup(L, s->e);
    if (t && t->n) {
      push(L, out, low_foreach_tuple(L, s, t, blk));
      L->depth--;
      return;
    }
    c->e = low(L, s->e);
    low_loop_body(L, s, c, s->name, blk);
    break;
  }
  case LS_FOR:
    c->lo = low(L, s->lo);
    c->hi = low(L, s->hi);
    low_loop_body(L, s, c, s->name, blk);
    break;
  case LS_WHILE:
    c->e = low(L, s->e);
    low_loop_body(L, s, c, NULL, blk);
    break;
  case LS_IF:
    c->e = low(L, s->e);
    low_loop_body(L, s, c, NULL, blk);
    c->els = low_one(L, s->els, blk);
    break;
  case LS_BLOCK: case LS_PROFILE: {
    vec v = {0};
    int mark = L->n;
    low_body(L, s->body, s->nbody, &v, blk, 0);
    L->n = mark;
    c->body = (ln_stmt **)v.v;
    c->nbody = v.n;
    break;
  }
  default: {
    /* tilde, target +=, jacobian +=, calls, break, continue, empty */
    c->e = low(L, s->e);
    c->lo = low(L, s->lo);
    c->hi = low(L, s->hi);
    if (s->nargs) {
      vec a = {0};
      flat_args(L, s->args, s->nargs, &a);
      c->args = (ln_expr **)a.v;
      c->nargs = a.n;
    }
    break;
  }
  }
  push(L, out, c);
  L->depth--;
}

/* ---- functions ---- */
static void push_params(lt *L, const ln_func *f) {
  for (int i = 0; i < f->nparams; i++) {
    const ln_decl *d = f->params[i];
    scope_push(L, d->name, d->tuple ? var_tmpl(L, d) : NULL);
  }
}

static void flat_params(lt *L, const ln_func *f, ln_func *out) {
  vec v = {0};
  for (int i = 0; i < f->nparams; i++) {
    const ln_decl *d = f->params[i];
    if (!d->tuple) {
      ln_decl *x = alloc(L, sizeof *x);
      *x = *d;
      push(L, &v, x);
      continue;
    }
    vec lv = {0};
    all_leaves(L, d, d->name, &lv);
    for (int k = 0; k < lv.n; k++) push(L, &v, leaf_decl(L, lv.v[k], d, 0));
  }
  out->params = (ln_decl **)v.v;
  out->nparams = v.n;
}

static int ends_with(const char *s, const char *suf) {
  size_t n = strlen(s), k = strlen(suf);
  return n > k && !strcmp(s + n - k, suf);
}

/* paths to the leaves of a tuple type (indexes from 0), and each leaf's element */
static void ret_leaves(lt *L, const ln_tuple *T, int *path, int depth, int narr, const char *prefix,
                       const ln_func *f, vec *out) {
  if (depth >= TM_MAXARR) fail(L, f->line, f->col, "tuples nest too deeply");
  for (int i = 0; i < T->n; i++) {
    path[depth] = i;
    char *name = subname(L, prefix, i + 1, NULL);
    const ln_decl *e = T->elem[i];
    int na = narr + e->type.narr;
    if (na > TM_MAXARR) fail(L, f->line, f->col, "tapestry's arrays have at most %d dimensions", TM_MAXARR);
    if (e->tuple) { ret_leaves(L, e->tuple, path, depth + 1, na, name, f, out); continue; }
    if (narr) fail(L, f->line, f->col, "tapestry cannot yet return arrays of tuples from functions");
    ln_func *g = alloc(L, sizeof *g);
    *g = *f;
    g->name = name;
    g->ret = e->type;
    g->ret.narr = (unsigned char)na;
    g->ret.data_only = 0;
    g->ret_tuple = NULL;
    flat_params(L, f, g);
    if (f->body) {
      int *p = alloc(L, (size_t)(depth + 1) * sizeof *p);
      memcpy(p, path, (size_t)(depth + 1) * sizeof *p);
      L->path = p;
      L->npath = depth + 1;
      int mark = L->n;
      push_params(L, f);
      g->body = low_one(L, f->body, LN_BLK_FUNCTIONS);
      L->n = mark;
      L->path = NULL;
      L->npath = 0;
    }
    push(L, out, g);
  }
}

static void low_funcs(lt *L) {
  vec out = {0};
  for (int i = 0; i < L->nfuncs; i++) {
    const ln_func *f = L->funcs[i];
    if (f->ret.base == LN_TUPLE && f->ret_tuple) {
      if (ends_with(f->name, "_rng") || ends_with(f->name, "_lp") || ends_with(f->name, "_jacobian"))
        fail(L, f->line, f->col, "tapestry cannot yet define a function returning a tuple whose name ends in "
             "_rng, _lp or _jacobian");
      int path[TM_MAXARR];
      if (f->ret.narr) fail(L, f->line, f->col, "tapestry cannot yet return arrays of tuples from functions");
      ret_leaves(L, f->ret_tuple, path, 0, 0, f->name, f, &out);
      continue;
    }
    ln_func *g = alloc(L, sizeof *g);
    *g = *f;
    flat_params(L, f, g);
    if (f->body) {
      int mark = L->n;
      push_params(L, f);
      g->body = low_one(L, f->body, LN_BLK_FUNCTIONS);
      L->n = mark;
    }
    push(L, &out, g);
  }
  L->p->funcs = (ln_func **)out.v;
  L->p->nfuncs = out.n;
}

int lt_lower(ln_program *p, char *err, size_t errsize) {
  lt L = { .p = p, .err = err, .errsize = errsize };
  if (setjmp(L.jb)) {
    free(L.s);
    return AD_EINVALID;
  }
  L.funcs = p->funcs;
  L.nfuncs = p->nfuncs;
  low_funcs(&L);
  static const int order[] = {LN_BLK_DATA, LN_BLK_TDATA, LN_BLK_PARAMS, LN_BLK_TPARAMS, LN_BLK_MODEL, LN_BLK_GQ};
  for (size_t k = 0; k < sizeof order / sizeof *order; k++) {
    int blk = order[k];
    const ln_stmt *b = p->block[blk];
    if (!b) continue;
    int mark = L.n;
    vec v = {0};
    low_body(&L, b->body, b->nbody, &v, blk, 1);
    if (blk == LN_BLK_MODEL) L.n = mark;
    ln_stmt *nb = alloc(&L, sizeof *nb);
    *nb = *b;
    nb->body = (ln_stmt **)v.v;
    nb->nbody = v.n;
    p->block[blk] = nb;
  }
  free(L.s);
  p->tuples = L.tvars;
  p->ntuples = L.ntv;
  p->has_tuples = 0;
  return AD_OK;
}

const ln_tuple_var *lt_tuple_vars(const ln_program *p, int *n) {
  *n = p ? p->ntuples : 0;
  return p ? p->tuples : NULL;
}
