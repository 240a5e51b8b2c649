/*
** li_expr.c -- evaluation of expressions.
**
** Every name and call was resolved by the checker, so evaluation is a walk
** of the tree calling kernels: no lookups by string, no overload choice.
** Results are views (of variables, of literals) or fresh values in the
** active arena; on the tape each kernel records at most one node.
*/
#include <math.h>
#include <string.h>
#include "li_int.h"
#include "../math/tm_transform_fns.h"

#define LI_SMALL 16

li_slot *li_slot_of(li_run *r, const ln_expr *var) {
  return var->scope == LN_SCOPE_GLOBAL ? &r->globals[var->slot] : &r->locals[var->slot];
}

int li_invoke(li_run *r, const tm_fn *fn, int propto, const tm_v *args, int nargs, tm_v *out) {
  if (r->jacobian && tm_transform_fn_is_jacobian(fn)) return li_call_jacobian(r, fn, args, nargs, out);
  size_t c0 = r->tr ? li_chain_len() : 0;
  int rc = tm_invoke(fn, propto, r->rng, args, nargs, out);
  if (rc) return li_locate(r, rc);
  if (r->tr) {
    int any = out->adj != NULL;
    for (int i = 0; i < nargs && !any; i++) if (args[i].adj) any = 1;
    if (any) {
      li_event ev;
      memset(&ev, 0, sizeof ev);
      ev.kind = LI_EV_INVOKE; ev.fn = fn; ev.propto = propto; ev.args = args; ev.nargs = nargs;
      ev.out = out; ev.chain0 = c0;
      li_emit(r, &ev);
    }
  }
  if (!out->adj && out->base != TM_INT) {
    unsigned char dep = 0;
    for (int i = 0; i < nargs; i++) if (li_nonconst(&args[i])) dep = 1;
    out->dep = dep;
  }
  return AD_OK;
}

/* Arguments in a small array on the C stack, or the arena when many. */
static int eval_args(li_run *r, ln_expr *const *a, int n, tm_v *small, tm_v **args) {
  *args = n <= LI_SMALL ? small : ad_alloc((size_t)n * sizeof(tm_v));
  if (!*args) return ad_fail(AD_EMEMORY, "out of memory");
  for (int i = 0; i < n; i++) {
    int rc = li_eval(r, a[i], &(*args)[i]);
    if (rc) return rc;
  }
  return AD_OK;
}

int li_eval_int(li_run *r, const ln_expr *e, int *out) {
  tm_v v;
  int rc = li_eval(r, e, &v);
  if (rc) return rc;
  if (v.base != TM_INT || !tm_is_scalar(&v))
    return li_fail_at(r, AD_EINVALID, "expected an int value");
  *out = v.ival[0];
  return AD_OK;
}


static double scalar_of(const tm_v *v) { return tm_get(v, 0); }

static int eval_cmp(li_run *r, const ln_expr *e, tm_v *out) {
  tm_v a, b;
  int rc, res = 0;
  if ((rc = li_eval(r, e->args[0], &a)) || (rc = li_eval(r, e->args[1], &b))) return rc;
  /* Ints compare as doubles too: every int is exact as a double, so one
  ** switch serves int, real and mixed operands alike. */
  double x = scalar_of(&a), y = scalar_of(&b);
  switch (e->op) {
  case LN_OP_EQ: res = x == y; break;
  case LN_OP_NE: res = x != y; break;
  case LN_OP_LT: res = x < y; break;
  case LN_OP_LE: res = x <= y; break;
  case LN_OP_GT: res = x > y; break;
  default: res = x >= y; break;
  }
  if (r->tr && (a.adj || b.adj)) {
    tm_v two[2] = {a, b};
    li_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = LI_EV_CMP; ev.op = e->op; ev.args = two; ev.nargs = 2; ev.result = res;
    ev.chain0 = li_chain_len();
    li_emit(r, &ev);
  }
  return tm_set_int(out, res);
}

int li_truth(li_run *r, const ln_expr *e, int *t) {
  tm_v v;
  int rc = li_eval(r, e, &v);
  if (rc) return rc;
  *t = v.base == TM_INT ? v.ival[0] != 0 : scalar_of(&v) != 0.0;
  if (r->tr && v.adj) {
    li_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = LI_EV_TRUTH; ev.args = &v; ev.nargs = 1; ev.result = *t; ev.chain0 = li_chain_len();
    li_emit(r, &ev);
  }
  return AD_OK;
}

static int eval_logic(li_run *r, const ln_expr *e, tm_v *out) {
  int a, b = 0, rc;
  if ((rc = li_truth(r, e->args[0], &a))) return rc;
  if (e->kind == LE_UNOP) return tm_set_int(out, !a);
  if (e->op == LN_OP_AND) {
    if (a && (rc = li_truth(r, e->args[1], &b))) return rc;
    return tm_set_int(out, a && b);
  }
  if (!a && (rc = li_truth(r, e->args[1], &b))) return rc;
  return tm_set_int(out, a || b);
}

static int eval_idiv(li_run *r, const ln_expr *e, tm_v *out) {
  int a, b, rc;
  if ((rc = li_eval_int(r, e->args[0], &a)) || (rc = li_eval_int(r, e->args[1], &b))) return rc;
  if (b == 0) return li_fail_at(r, AD_EDOMAIN, "integer division by zero");
  if (a == -2147483647 - 1 && b == -1) return li_fail_at(r, AD_EDOMAIN, "integer overflow in %%/%%");
  return tm_set_int(out, a / b);
}

/* {a, b, ...} and [a, b, ...]: the elements, promoted to one type, packed
** side by side (a row-vector literal of row vectors is a matrix, packed
** column-major).  On the tape one node hands each element's adjoint back. */
static int eval_literal(li_run *r, const ln_expr *e, tm_v *out) {
  int n = e->nargs, rc;
  tm_v small[LI_SMALL], *el;
  if ((rc = eval_args(r, e->args, n, small, &el))) return rc;
  ln_type et = e->type;
  int cplx = e->type.base >= TM_COMPLEX && e->type.base <= TM_CMATRIX;
  int matrix = e->kind == LE_ROWVEC && (e->type.base == TM_MATRIX || e->type.base == TM_CMATRIX);
  if (e->kind == LE_ARRAY) et.narr--;
  else if (cplx) et.base = matrix ? TM_CROW_VECTOR : TM_COMPLEX;
  else et.base = matrix ? TM_ROW_VECTOR : TM_REAL;
  int ad = 0, dep = 0;
  for (int i = 0; i < n; i++) {
    if ((rc = li_promote(r, &el[i], et, &el[i]))) return rc;
    if (el[i].adj && r->ad) ad = 1;
    if (li_nonconst(&el[i])) dep = 1;
  }
  tm_v shape;
  memset(&shape, 0, sizeof shape);
  size_t m = n ? tm_numel(&el[0]) : 0;
  for (int i = 1; i < n; i++)
    if (tm_numel(&el[i]) != m || el[i].rows != el[0].rows || el[i].cols != el[0].cols)
      return li_fail_at(r, AD_EINVALID, "the elements of %s literal differ in size",
                        e->kind == LE_ARRAY ? "an array" : "a row vector");
  if (e->kind == LE_ARRAY) {
    shape = n ? el[0] : shape;
    if (!n) { shape.base = et.base; shape.rows = shape.cols = 1; }
    shape.narr = e->type.narr;
    if (n) memmove(shape.dim + 1, el[0].dim, sizeof(int) * (TM_MAXARR - 1));
    shape.dim[0] = n;
  } else if (matrix) {
    shape.base = cplx ? TM_CMATRIX : TM_MATRIX; shape.rows = n; shape.cols = n ? el[0].cols : 0;
  } else {
    shape.base = cplx ? TM_CROW_VECTOR : TM_ROW_VECTOR; shape.rows = 1; shape.cols = n;
  }
  if ((rc = li_alloc_r(r, out, &shape, ad))) return rc;
  out->dep = (unsigned char)dep;
  if (cplx) return li_pack_complex(r, el, n, m, matrix, ad, out);
  size_t total = tm_numel(out);
  double **sadj = NULL, **sval = NULL;
  if (ad && !(sadj = ad_alloc((total ? total : 1) * sizeof *sadj))) return ad_fail(AD_EMEMORY, "out of memory");
  if (ad && r->tr && !(sval = ad_alloc((total ? total : 1) * sizeof *sval))) return ad_fail(AD_EMEMORY, "out of memory");
  for (int i = 0; i < n; i++)
    for (size_t j = 0; j < m; j++) {
      size_t o = matrix ? (size_t)i + j * (size_t)n : (size_t)i * m + j;
      if (out->base == TM_INT) out->ival[o] = el[i].ival[j];
      else {
        out->val[o] = el[i].val[j];
        if (sadj) sadj[o] = el[i].adj ? el[i].adj + j : NULL;
        if (sval) sval[o] = el[i].val + j;
      }
    }
  if (!ad) return AD_OK;
  size_t c0 = li_chain_len();
  if ((rc = li_record_pack(total, out->adj, sadj))) return rc;
  if (r->tr) {
    li_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = LI_EV_PACK; ev.out = out; ev.n = total; ev.sval = sval; ev.sadj = sadj; ev.chain0 = c0;
    li_emit(r, &ev);
  }
  return AD_OK;
}

static int eval_cond(li_run *r, const ln_expr *e, tm_v *out) {
  int t, rc;
  if ((rc = li_truth(r, e->args[0], &t))) return rc;
  if ((rc = li_eval(r, e->args[t ? 1 : 2], out))) return rc;
  return li_promote(r, out, e->type, out);
}

/* Scalar arithmetic without the generic kernel: the bulk of the work of a
** program written as loops over scalars.  The value is the kernel's (the
** same one IEEE operation); reals only, since int arithmetic checks for
** overflow in the kernel.  Returns -1 when not applicable. */
int li_arith(li_run *r, const tm_fn *fn, const tm_v *a, const tm_v *b, tm_v *out) {
  if (!tm_is_scalar(a) || !tm_is_scalar(b) || (a->base == TM_INT && b->base == TM_INT)) return -1;
  double x = tm_get(a, 0), y = tm_get(b, 0), f, dx, dy;
  if (fn == r->ctx->fn_add) { f = x + y; dx = 1; dy = 1; }
  else if (fn == r->ctx->fn_subtract) { f = x - y; dx = 1; dy = -1; }
  else if (fn == r->ctx->fn_multiply) { f = x * y; dx = y; dy = x; }
  else if (fn == r->ctx->fn_divide) { f = x / y; dx = 1 / y; dy = -f / y; }
  else return -1;
  int rc;
  ad_var v;
  if (r->ad && a->adj && b->adj) rc = ad_binary((ad_var){a->val, a->adj}, (ad_var){b->val, b->adj}, f, dx, dy, &v);
  else if (r->ad && a->adj) rc = ad_unary((ad_var){a->val, a->adj}, f, dx, &v);
  else if (r->ad && b->adj) rc = ad_unary((ad_var){b->val, b->adj}, f, dy, &v);
  else {
    if ((rc = tm_set_real(out, f))) return rc;
    out->dep = (unsigned char)(li_nonconst(a) || li_nonconst(b));
    return AD_OK;
  }
  if (rc) return rc;
  if ((rc = tm_set_var(out, v))) return rc;
  if (r->tr) {
    tm_v two[2] = {*a, *b};
    li_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = LI_EV_ARITH; ev.op = fn == r->ctx->fn_add ? LN_OP_ADD : fn == r->ctx->fn_subtract ? LN_OP_SUB
                                   : fn == r->ctx->fn_multiply ? LN_OP_MUL : LN_OP_DIV;
    ev.args = two; ev.nargs = 2; ev.out = out; ev.chain0 = li_chain_len() - 1;
    li_emit(r, &ev);
  }
  return AD_OK;
}

int li_eval(li_run *r, const ln_expr *e, tm_v *out) {
  tm_v small[LI_SMALL], *args;
  int rc;
  switch (e->kind) {
  case LE_INT:
    *out = tm_int_view((int *)&e->ival);
    return AD_OK;
  case LE_REAL:
    *out = tm_real_view((double *)&e->rval, NULL);
    return AD_OK;
  case LE_VAR: {
    li_slot *s = li_slot_of(r, e);
    if (r->ad && s->v.adj && tm_is_scalar(&s->v)) {
      int rc2 = li_scalar_read(s->v.val, s->v.adj, out);
      if (!rc2 && r->tr) li_emit1(r, LI_EV_READ, &s->v, out, li_chain_len());
      return rc2;
    }
    *out = s->v;
    if (r->ad && s->v.adj) s->shared = 1;
    return AD_OK;
  }
  case LE_INDEX:
    return li_index_rvalue(r, e, out);
  case LE_CALL:
    if (e->builtin) return li_call_builtin(r, e, out);
    if ((rc = eval_args(r, e->args, e->nargs, small, &args))) return rc;
    if (e->ufn) return li_call_user(r, e->ufn, args, e->nargs, e->propto && r->fn_propto, out);
    return li_invoke(r, e->fn, e->propto && r->fn_propto, args, e->nargs, out);
  case LE_BINOP:
    if (e->builtin == LN_BI_CMP) return eval_cmp(r, e, out);
    if (e->builtin == LN_BI_LOGIC) return eval_logic(r, e, out);
    if (e->builtin == LN_BI_IDIV) return eval_idiv(r, e, out);
    if ((rc = li_eval(r, e->args[0], &small[0])) || (rc = li_eval(r, e->args[1], &small[1]))) return rc;
    if ((rc = li_arith(r, e->fn, &small[0], &small[1], out)) >= 0) return rc;
    return li_invoke(r, e->fn, 0, small, 2, out);
  case LE_UNOP:
    if (e->op == LN_OP_PLUS || (!e->fn && e->builtin == LN_BI_NONE)) return li_eval(r, e->args[0], out);
    if (e->builtin == LN_BI_LOGIC || e->op == LN_OP_NOT) return eval_logic(r, e, out);
    if ((rc = li_eval(r, e->args[0], &small[0]))) return rc;
    return li_invoke(r, e->fn, 0, small, 1, out);
  case LE_COND:
    return eval_cond(r, e, out);
  case LE_ARRAY:
  case LE_ROWVEC:
    return eval_literal(r, e, out);
  case LE_TARGET:
    return li_sum_terms(r, out);
  default:
    return li_fail_at(r, AD_EINVALID, "expression cannot be evaluated here");
  }
}
