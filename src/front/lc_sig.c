/*
** lc_sig.c -- the library's signatures as the checker sees them: the sig
** strings of tm.h parsed into lc_sig, matching argument types with Stan's
** promotions, and the text of types and signatures for messages.
**
** The strings are parsed once per process (pthread_once) into one array in
** table order, so that the entries of one name, adjacent in the table, have
** their signatures adjacent too.  After that the array is only read, so
** programs may be checked from any thread.
*/
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lc.h"

/* ---- parsing the mini-language ---- */

typedef struct { const char *s; } cursor;

static void skip_ws(cursor *c) { while (*c->s == ' ' || *c->s == '\t' || *c->s == '\n') c->s++; }

static int word(cursor *c, char *w, size_t n) {
  skip_ws(c);
  size_t k = 0;
  while ((*c->s >= 'a' && *c->s <= 'z') || (*c->s >= 'A' && *c->s <= 'Z') ||
         (*c->s >= '0' && *c->s <= '9') || *c->s == '_') {
    if (k + 1 < n) w[k++] = *c->s;
    c->s++;
  }
  w[k] = 0;
  return k > 0;
}

static int punct(cursor *c, char ch) {
  skip_ws(c);
  if (*c->s != ch) return 0;
  c->s++;
  return 1;
}

static int elem_base(const char *w) {
  if (!strcmp(w, "int")) return TM_INT;
  if (!strcmp(w, "real")) return TM_REAL;
  if (!strcmp(w, "vector")) return TM_VECTOR;
  if (!strcmp(w, "row_vector")) return TM_ROW_VECTOR;
  if (!strcmp(w, "matrix")) return TM_MATRIX;
  if (!strcmp(w, "complex")) return TM_COMPLEX;
  if (!strcmp(w, "complex_vector")) return TM_CVECTOR;
  if (!strcmp(w, "complex_row_vector")) return TM_CROW_VECTOR;
  if (!strcmp(w, "complex_matrix")) return TM_CMATRIX;
  return -1;
}

/* One type; 0 when the text is not one. */
static int parse_ptype(cursor *c, lc_ptype *t) {
  char w[32];
  memset(t, 0, sizeof *t);
  if (!word(c, w, sizeof w)) return 0;
  if (!strcmp(w, "data") && !word(c, w, sizeof w)) return 0;   /* qualifier: no effect on matching */
  if (!strcmp(w, "array")) {
    if (!punct(c, '[')) return 0;
    int n = 1;
    while (punct(c, ',')) n++;
    if (!punct(c, ']') || n > TM_MAXARR || !word(c, w, sizeof w)) return 0;
    int b = elem_base(w);
    if (b < 0) return 0;
    t->kind = LC_P_TYPE; t->base = (unsigned char)b; t->narr = (unsigned char)n;
    return 1;
  }
  int b = elem_base(w);
  if (b >= 0) { t->kind = LC_P_TYPE; t->base = (unsigned char)b; return 1; }
  if (!strcmp(w, "reals")) t->kind = LC_P_REALS;
  else if (!strcmp(w, "ints")) t->kind = LC_P_INTS;
  else if (!strcmp(w, "vectors")) t->kind = LC_P_VECTORS;
  else if (!strcmp(w, "T")) t->kind = LC_P_T;
  else if (!strcmp(w, "R")) t->kind = LC_P_R;
  else if (!strcmp(w, "Z")) t->kind = LC_P_Z;
  else if (!strcmp(w, "Zm")) t->kind = LC_P_ZM;
  else if (!strcmp(w, "ZR")) t->kind = LC_P_ZR;
  else if (!strcmp(w, "ZT")) t->kind = LC_P_ZT;
  else if (!strcmp(w, "Zx")) t->kind = LC_P_ZX;
  else return 0;
  return 1;
}

/* One `result(arg, ...)` up to ';' or the end; 0 when malformed. */
static int parse_sig(cursor *c, lc_sig *s) {
  memset(s, 0, sizeof *s);
  if (!parse_ptype(c, &s->ret)) return 0;
  if (s->ret.kind == LC_P_REALS || s->ret.kind == LC_P_INTS || s->ret.kind == LC_P_VECTORS ||
      s->ret.kind == LC_P_ZX) return 0;
  if (!punct(c, '(')) return 0;
  if (punct(c, ')')) return 1;
  for (;;) {
    if (s->nargs == LC_MAXSIGARGS || !parse_ptype(c, &s->args[s->nargs])) return 0;
    s->nargs++;
    if (punct(c, ')')) break;
    if (!punct(c, ',')) return 0;
  }
  /* a result T/R/ZT needs a T argument to take its shape from, Z/ZR a Z */
  if (s->ret.kind != LC_P_TYPE) {
    int has_t = 0, has_z = 0;
    for (int i = 0; i < s->nargs; i++) {
      has_t |= s->args[i].kind == LC_P_T;
      has_z |= s->args[i].kind == LC_P_Z || s->args[i].kind == LC_P_ZM || s->args[i].kind == LC_P_ZX;
    }
    int z = s->ret.kind == LC_P_Z || s->ret.kind == LC_P_ZM || s->ret.kind == LC_P_ZR;
    if (z ? !has_z : !has_t) return 0;
  }
  return 1;
}

static int count_pieces(const char *sig) {
  int n = 1;
  for (const char *q = sig; *q; q++) n += *q == ';';
  return n;
}

/* ---- the cache ---- */

static lc_sig *all;          /* every entry's signatures, in table order */
static int *first, *count;   /* per table entry: its signatures in all[] */
static int ntable;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void build(void) {
  if (tm_table_init() != AD_OK) return;
  int n = tm_table_size(), total = 0;
  if (n < 0) n = 0;
  for (int i = 0; i < n; i++) {
    const tm_fn *f = tm_table_entry(i);
    total += f->sig ? count_pieces(f->sig) : 0;
  }
  size_t nn = n > 0 ? (size_t)n : 1, nt = total > 0 ? (size_t)total : 1;
  lc_sig *a = malloc(nt * sizeof *a);
  int *fi = malloc(nn * sizeof *fi), *co = malloc(nn * sizeof *co);
  if (!a || !fi || !co) { free(a); free(fi); free(co); return; }
  int k = 0;
  for (int i = 0; i < n; i++) {
    const tm_fn *f = tm_table_entry(i);
    fi[i] = k;
    co[i] = 0;
    if (!f->sig) continue;
    cursor c = { f->sig };
    for (;;) {
      skip_ws(&c);
      if (!*c.s) break;
      if (*c.s == ';') { c.s++; continue; }
      lc_sig s;
      if (parse_sig(&c, &s) && k < total) {
        s.fn = f;
        a[k++] = s;
        co[i]++;
      }
      /* on to the next piece, whether this one parsed or not */
      while (*c.s && *c.s != ';') c.s++;
    }
  }
  all = a; first = fi; count = co; ntable = n;
}

int lc_lib_ready(void) {
  pthread_once(&once, build);
  return all != NULL;
}

const lc_sig *lc_lib_sigs(const char *name, int *n) {
  *n = 0;
  if (!name) return NULL;
  pthread_once(&once, build);
  if (!all) return NULL;
  int cnt = 0;
  const tm_fn *f = tm_lookup(name, &cnt);
  if (!f || cnt <= 0) return NULL;
  const tm_fn *base = tm_table_entry(0);
  long i0 = (long)(f - base);
  if (i0 < 0 || i0 + cnt > ntable) return NULL;
  int tot = 0;
  for (int i = 0; i < cnt; i++) tot += count[i0 + i];
  *n = tot;
  return tot ? &all[first[i0]] : NULL;
}

/* ---- matching ---- */

int lc_is_numeric(ln_type t) { return t.base <= TM_CMATRIX; }
int lc_is_complex(ln_type t) { return t.base >= TM_COMPLEX && t.base <= TM_CMATRIX; }
int lc_is_scalar(ln_type t) { return t.narr == 0 && (t.base == TM_INT || t.base == TM_REAL); }
int lc_real_based(ln_type t) { return lc_is_numeric(t) && t.base != TM_INT; }
ln_type lc_mk(int base, int narr) {
  ln_type t;
  t.base = (unsigned char)base;
  t.narr = (unsigned char)narr;
  t.data_only = 0;
  return t;
}

/* The shape a T binds: ints and reals are one shape (int promotes). */
static int shape_of(ln_type a) { return a.base == TM_INT ? TM_REAL : a.base; }

int lc_assign_cost(ln_type p, ln_type a) {
  if (!lc_is_numeric(p) || !lc_is_numeric(a) || p.narr != a.narr) return -1;
  if (p.base == a.base) return 0;
  if (p.base == TM_REAL && a.base == TM_INT) return 1;
  /* int -> real -> complex, and each real container to its complex one */
  if (p.base == TM_COMPLEX && a.base == TM_REAL) return 1;
  if (p.base == TM_COMPLEX && a.base == TM_INT) return 2;
  if (p.base == TM_CVECTOR && a.base == TM_VECTOR) return 1;
  if (p.base == TM_CROW_VECTOR && a.base == TM_ROW_VECTOR) return 1;
  if (p.base == TM_CMATRIX && a.base == TM_MATRIX) return 1;
  return -1;
}

/* The complex type a promotes to (itself when complex), -1 when none. */
static int complex_of(int b) {
  switch (b) {
  case TM_INT: case TM_REAL: return TM_COMPLEX;
  case TM_VECTOR: return TM_CVECTOR;
  case TM_ROW_VECTOR: return TM_CROW_VECTOR;
  case TM_MATRIX: return TM_CMATRIX;
  default: return b >= TM_COMPLEX && b <= TM_CMATRIX ? b : -1;
  }
}
static int real_of(int b) {
  return b == TM_COMPLEX ? TM_REAL : b == TM_CVECTOR ? TM_VECTOR : b == TM_CROW_VECTOR ? TM_ROW_VECTOR
       : b == TM_CMATRIX ? TM_MATRIX : b;
}

int lc_sig_match(const lc_sig *s, const ln_type *a, int n, ln_type *ret) {
  if (n != s->nargs) return -1;
  int tset = 0, tshape = 0, tnarr = 0, cost = 0, zset = 0, zshape = 0, znarr = 0;
  for (int i = 0; i < n; i++) {
    if (!lc_is_numeric(a[i])) return -1;
    int k = s->args[i].kind;
    if (k == LC_P_Z || k == LC_P_ZM || k == LC_P_ZX) {
      int zb = complex_of(a[i].base);
      if (zb < 0 || (k == LC_P_ZM && a[i].narr) || (k == LC_P_ZX && zb != a[i].base)) return -1;
      if (!zset) { zset = 1; zshape = zb; znarr = a[i].narr; }
      else if (zshape != zb || znarr != a[i].narr) return -1;
      cost += a[i].base == zb ? 0 : a[i].base == TM_INT ? 2 : 1;
      continue;
    }
    if (s->args[i].kind != LC_P_TYPE && lc_is_complex(a[i])) return -1;   /* the other families are real */
    if (s->args[i].kind != LC_P_T && s->args[i].kind != LC_P_R) continue;
    if (!tset) { tset = 1; tshape = shape_of(a[i]); tnarr = a[i].narr; }
    else if (tshape != shape_of(a[i]) || tnarr != a[i].narr) return -1;
  }
  for (int i = 0; i < n; i++) {
    const lc_ptype *p = &s->args[i];
    ln_type t = a[i];
    int k = -1;
    switch (p->kind) {
    case LC_P_TYPE: k = lc_assign_cost(lc_mk(p->base, p->narr), t); break;
    case LC_P_REALS:
      if (t.narr == 0 && (t.base == TM_REAL || t.base == TM_VECTOR || t.base == TM_ROW_VECTOR)) k = 0;
      else if (t.narr == 1 && t.base == TM_REAL) k = 0;
      else if (t.narr <= 1 && t.base == TM_INT) k = 1;
      break;
    case LC_P_INTS: if (t.narr <= 1 && t.base == TM_INT) k = 0; break;
    case LC_P_VECTORS: if (t.narr <= 1 && (t.base == TM_VECTOR || t.base == TM_ROW_VECTOR)) k = 0; break;
    case LC_P_T: k = 0; break;
    case LC_P_R: k = t.base == TM_INT ? 1 : 0; break;
    case LC_P_Z: case LC_P_ZM: case LC_P_ZX: k = 0; break;   /* counted above */
    }
    if (k < 0) return -1;
    cost += k;
  }
  if (s->ret.kind == LC_P_TYPE) *ret = lc_mk(s->ret.base, s->ret.narr);
  else if (s->ret.kind == LC_P_Z || s->ret.kind == LC_P_ZM) {
    if (!zset) return -1;
    *ret = lc_mk(zshape, znarr);
  } else if (s->ret.kind == LC_P_ZR) {
    if (!zset) return -1;
    *ret = lc_mk(real_of(zshape), znarr);
  } else if (s->ret.kind == LC_P_ZT) {
    if (!tset) return -1;
    *ret = lc_mk(complex_of(tshape), tnarr);
  } else if (tset) *ret = lc_mk(tshape, tnarr);
  else return -1;
  return cost;
}

const lc_sig *lc_lib_resolve(const char *name, const ln_type *args, int nargs, ln_type *ret) {
  int n;
  const lc_sig *s = lc_lib_sigs(name, &n), *best = NULL;
  int bestcost = -1;
  for (int i = 0; i < n; i++) {
    ln_type r;
    int k = lc_sig_match(&s[i], args, nargs, &r);
    if (k >= 0 && (bestcost < 0 || k < bestcost)) { best = &s[i]; bestcost = k; *ret = r; }
  }
  return best;
}

/* ---- text ---- */

void lc_cat(char *buf, size_t size, const char *fmt, ...) {
  if (!buf || !size) return;
  size_t len = strlen(buf);
  if (len + 1 >= size) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf + len, size - len, fmt, ap);
  va_end(ap);
}

/* Messages (and the checker's dump) call an error type "ill-typed". */
static const char *base_name(int b) {
  const char *n = ln_base_name(b);
  return n ? n : "ill-typed";
}

char *lc_type_name(ln_type t, char *buf, size_t size) {
  if (!size) return buf;
  buf[0] = 0;
  if (t.narr && lc_is_numeric(t)) {
    lc_cat(buf, size, "array[");
    for (int i = 1; i < t.narr; i++) lc_cat(buf, size, ",");
    lc_cat(buf, size, "] ");
  }
  lc_cat(buf, size, "%s", base_name(t.base));
  return buf;
}

char *lc_types_text(const ln_type *t, int n, char *buf, size_t size) {
  if (!size) return buf;
  buf[0] = 0;
  lc_cat(buf, size, "(");
  for (int i = 0; i < n; i++) {
    char tb[64];
    lc_cat(buf, size, "%s%s", i ? ", " : "", lc_type_name(t[i], tb, sizeof tb));
  }
  lc_cat(buf, size, ")");
  return buf;
}

static const char *ptype_name(const lc_ptype *p, char *buf, size_t size) {
  switch (p->kind) {
  case LC_P_REALS: return "reals";
  case LC_P_INTS: return "ints";
  case LC_P_VECTORS: return "vectors";
  case LC_P_T: return "T";
  case LC_P_R: return "R";
  case LC_P_Z: return "Z";
  case LC_P_ZM: return "Zm";
  case LC_P_ZR: return "ZR";
  case LC_P_ZT: return "ZT";
  case LC_P_ZX: return "Zx";
  default: return lc_type_name(lc_mk(p->base, p->narr), buf, size);
  }
}

static int ptype_complex(const lc_ptype *t) {
  return t->kind >= LC_P_Z || (t->kind == LC_P_TYPE && t->base >= TM_COMPLEX && t->base <= TM_CMATRIX);
}
static int sig_complex(const lc_sig *s) {
  int z = ptype_complex(&s->ret);
  for (int k = 0; k < s->nargs; k++) z |= ptype_complex(&s->args[k]);
  return z;
}

void lc_list_sigs(const ln_program *p, const char *lname, const char *uname,
                  int max, char *buf, size_t size) {
  lc_list_sigs_z(p, lname, uname, max, 0, buf, size);
}

void lc_list_sigs_z(const ln_program *p, const char *lname, const char *uname,
                    int max, int show_complex, char *buf, size_t size) {
  int shown = 0, more = 0;
  char tb[64];
  if (uname && p) {
    for (int i = 0; i < p->nfuncs; i++) {
      const ln_func *f = p->funcs[i];
      if (!f || !f->name || !f->body || strcmp(f->name, uname)) continue;   /* definitions only */
      if (shown >= max) { more++; continue; }
      lc_cat(buf, size, "\n  %s %s(", lc_type_name(f->ret, tb, sizeof tb), f->name);
      for (int k = 0; k < f->nparams; k++) {
        ln_type t = f->params[k] ? f->params[k]->type : lc_mk(LN_ERRTYPE, 0);
        lc_cat(buf, size, "%s%s%s", k ? ", " : "", t.data_only ? "data " : "",
               lc_type_name(t, tb, sizeof tb));
      }
      lc_cat(buf, size, ")");
      shown++;
    }
  }
  if (lname) {
    int n;
    const lc_sig *s = lc_lib_sigs(lname, &n);
    /* complex signatures only for calls with complex arguments, or when the
       name has no others */
    int real_ones = 0;
    for (int i = 0; i < n; i++) real_ones |= !sig_complex(&s[i]);
    for (int i = 0; i < n; i++) {
      if (!show_complex && real_ones && sig_complex(&s[i])) continue;
      if (shown >= max) { more++; continue; }
      lc_cat(buf, size, "\n  %s %s(", ptype_name(&s[i].ret, tb, sizeof tb), lname);
      for (int k = 0; k < s[i].nargs; k++)
        lc_cat(buf, size, "%s%s", k ? ", " : "", ptype_name(&s[i].args[k], tb, sizeof tb));
      lc_cat(buf, size, ")");
      shown++;
    }
  }
  if (more) lc_cat(buf, size, "\n  ... and %d more", more);
}
