/*
** tm_complex.c -- complex numbers: to_complex, get_real/get_imag, the
** elementwise functions (abs, arg, norm, conj, proj, polar, exp, log, the
** trigonometric and hyperbolic functions and their inverses, pow), the
** arithmetic operators, == and !=.
**
** A complex value keeps (re, im) pairs side by side in val and adj (tm.h).
** Arguments may be ints, reals or real containers where a complex is
** expected (the checker's Z family promotes them): every kernel reads them
** through cx_get, which gives element i of any numeric value as a complex.
**
** Derivatives: each result element w = u + iv of an argument element
** z = x + iy has the real Jacobian J = [du/dx du/dy; dv/dx dv/dy] (for a
** holomorphic f with f'(z) = a + ib, J = [a -b; b a]); the reverse step adds
** J' (u_adj, v_adj) to (x_adj, y_adj), or its first component to a real
** argument's adjoint.  One node per call holds the Jacobians.
*/
#include <complex.h>
#include <math.h>
#include <string.h>
#include "../tm.h"
#include "tm_complex.h"

cx cx_mk(double re, double im) {
  double p[2] = {re, im};
  cx z;
  memcpy(&z, p, sizeof z);
  return z;
}

int cx_is_scalar(const tm_v *v) {
  return v->narr == 0 && (v->base == TM_INT || v->base == TM_REAL || v->base == TM_COMPLEX);
}

cx cx_get(const tm_v *v, size_t i) {
  if (cx_is_scalar(v)) i = 0;
  if (tm_is_complex(v)) return cx_mk(v->val[2 * i], v->val[2 * i + 1]);
  return cx_mk(v->base == TM_INT ? (double)v->ival[i] : v->val[i], 0.0);
}

void cx_add_adj(const tm_v *v, size_t i, double re, double im) {
  if (!v->adj) return;
  if (cx_is_scalar(v)) i = 0;
  if (tm_is_complex(v)) { v->adj[2 * i] += re; v->adj[2 * i + 1] += im; }
  else v->adj[i] += re;
}

tm_v *cx_keep(const tm_v *x, const tm_v *y) {
  tm_v *cp = ad_alloc((y ? 2 : 1) * sizeof *cp);
  if (!cp) return NULL;
  cp[0] = *x;
  if (y) cp[1] = *y;
  return cp;
}

int cx_complex_base(int b) {
  switch (b) {
  case TM_INT: case TM_REAL: return TM_COMPLEX;
  case TM_VECTOR: return TM_CVECTOR;
  case TM_ROW_VECTOR: return TM_CROW_VECTOR;
  case TM_MATRIX: return TM_CMATRIX;
  default: return b;
  }
}

int cx_real_base(int b) {
  switch (b) {
  case TM_COMPLEX: return TM_REAL;
  case TM_CVECTOR: return TM_VECTOR;
  case TM_CROW_VECTOR: return TM_ROW_VECTOR;
  case TM_CMATRIX: return TM_MATRIX;
  default: return b;
  }
}

int cx_new(tm_v *out, const tm_v *shape, int base, int ad) {
  tm_v s = *shape;
  s.base = (unsigned char)base;
  if (base == TM_COMPLEX || base == TM_REAL) s.rows = s.cols = 1;
  memset(out, 0, sizeof *out);
  out->base = s.base;
  out->narr = s.narr;
  memcpy(out->dim, s.dim, sizeof out->dim);
  out->rows = s.rows;
  out->cols = s.cols;
  size_t n = tm_nval(out);
  if (!(out->val = ad_alloc_doubles(n ? n : 1))) return ad_fail(AD_EMEMORY, "out of memory");
  if (ad && !(out->adj = ad_alloc_zeros(n ? n : 1))) return ad_fail(AD_EMEMORY, "out of memory");
  return AD_OK;
}

/* ---- the elementwise node ---- */

typedef struct cj_arg {
  const tm_v *v;           /* a copy of the argument's descriptor (arena) */
  const double *J;         /* 4 per result element */
} cj_arg;

typedef struct cj_node {
  ad_node hdr;
  size_t n;
  int ocplx;               /* complex result (else real) */
  const double *oadj;
  int nargs;
  cj_arg a[3];
} cj_node;

static void cj_chain(ad_node *self) {
  cj_node *c = (cj_node *)self;
  for (size_t k = 0; k < c->n; k++) {
    double gr = c->ocplx ? c->oadj[2 * k] : c->oadj[k], gi = c->ocplx ? c->oadj[2 * k + 1] : 0.0;
    if (gr == 0.0 && gi == 0.0) continue;
    for (int j = 0; j < c->nargs; j++) {
      if (!c->a[j].J) continue;
      const double *J = c->a[j].J + 4 * k;
      cx_add_adj(c->a[j].v, k, J[0] * gr + J[2] * gi, J[1] * gr + J[3] * gi);
    }
  }
}

/* J of a holomorphic function with derivative d */
static void holo(double *J, cx d) {
  J[0] = creal(d); J[1] = -cimag(d); J[2] = cimag(d); J[3] = creal(d);
}

/* One element of an elementwise function: its value from the argument
** elements z[0..nargs-1], and the Jacobians J[j] (4 each). */
typedef cx (*cx_elem_fn)(int op, const cx *z, double (*J)[4]);

/* Apply f elementwise over args (scalars broadcast; containers of one
** shape); the result has the containers' shape, complex when ocplx. */
static int cx_map(const tm_call *c, const tm_v *a, int nargs, int ocplx, cx_elem_fn f, int op, tm_v *out) {
  const tm_v *shape = NULL;
  for (int j = 0; j < nargs; j++)
    if (!cx_is_scalar(&a[j])) {
      int rc;
      if (shape && ((rc = tm_check_size_match(c->fn->name, "m1", tm_numel(shape), "m2", tm_numel(&a[j]))) ||
                    (rc = tm_check_size_match(c->fn->name, "rows of m1", (size_t)shape->rows, "rows of m2",
                                              (size_t)a[j].rows))))
        return rc;
      if (!shape) shape = &a[j];
    }
  tm_v one;
  memset(&one, 0, sizeof one);
  one.rows = one.cols = 1;
  if (!shape) shape = &one;
  int ad = tm_any_ad(a, nargs), rc;
  int base = ocplx ? cx_complex_base(shape->base) : cx_real_base(shape->base);
  if (base == TM_INT) base = TM_REAL;
  if ((rc = cx_new(out, shape, base, ad))) return rc;
  size_t n = tm_numel(out);
  double *J[3] = {NULL, NULL, NULL};
  for (int j = 0; j < nargs; j++)
    if (a[j].adj && !(J[j] = ad_alloc_zeros(n ? 4 * n : 1))) return ad_fail(AD_EMEMORY, "out of memory");
  for (size_t k = 0; k < n; k++) {
    cx z[3];
    double Jk[3][4];
    for (int j = 0; j < nargs; j++) z[j] = cx_get(&a[j], k);
    cx w = f(op, z, Jk);
    if (ocplx) { out->val[2 * k] = creal(w); out->val[2 * k + 1] = cimag(w); }
    else out->val[k] = creal(w);
    for (int j = 0; j < nargs; j++) if (J[j]) memcpy(J[j] + 4 * k, Jk[j], sizeof Jk[j]);
  }
  out->dep = (unsigned char)tm_any_dep(a, nargs);
  if (!ad || n == 0) return AD_OK;
  cj_node *node = ad_node_new(sizeof *node, cj_chain);
  if (!node) return ad_fail(AD_EMEMORY, "out of memory");
  node->n = n;
  node->ocplx = ocplx;
  node->oadj = out->adj;
  node->nargs = nargs;
  for (int j = 0; j < nargs; j++) {
    tm_v *vc = ad_alloc(sizeof *vc);
    if (!vc) return ad_fail(AD_EMEMORY, "out of memory");
    *vc = a[j];
    node->a[j].v = vc;
    node->a[j].J = J[j];
  }
  return AD_OK;
}

/* ---- unary functions of a complex ---- */

#define CX_SCALAR_SIG "complex(complex)"

/* The functions of one complex argument, in the table's order: the op that
** unary() switches on (U_<op>), the Stan name, the signatures.  The enum and
** the table's rows are made from this one list. */
#define CX_UNARY_FNS(X) \
  X(REAL, get_real, "ZR(Z)") X(IMAG, get_imag, "ZR(Z)") X(ABS, abs, "ZR(Z)") \
  X(ARG, arg, "real(complex)") X(NORM, norm, "real(complex)") X(CONJ, conj, "Z(Z)") \
  X(PROJ, proj, CX_SCALAR_SIG) X(EXP, exp, CX_SCALAR_SIG) X(LOG, log, CX_SCALAR_SIG) \
  X(LOG10, log10, CX_SCALAR_SIG) X(SQRT, sqrt, CX_SCALAR_SIG) X(SIN, sin, CX_SCALAR_SIG) \
  X(COS, cos, CX_SCALAR_SIG) X(TAN, tan, CX_SCALAR_SIG) X(ASIN, asin, CX_SCALAR_SIG) \
  X(ACOS, acos, CX_SCALAR_SIG) X(ATAN, atan, CX_SCALAR_SIG) X(SINH, sinh, CX_SCALAR_SIG) \
  X(COSH, cosh, CX_SCALAR_SIG) X(TANH, tanh, CX_SCALAR_SIG) X(ASINH, asinh, CX_SCALAR_SIG) \
  X(ACOSH, acosh, CX_SCALAR_SIG) X(ATANH, atanh, CX_SCALAR_SIG) X(MINUS, minus, "Z(Z)") \
  X(PLUS, plus, CX_SCALAR_SIG)

#define CX_UNARY_ENUM(op, name, sig) U_##op,
enum { CX_UNARY_FNS(CX_UNARY_ENUM) };

static cx unary(int op, const cx *zz, double (*J)[4]) {
  cx z = zz[0], w, d = 0;
  double x = creal(z), y = cimag(z);
  memset(J[0], 0, sizeof J[0]);
  switch (op) {
  case U_EXP: w = cexp(z); d = w; break;
  case U_LOG: w = clog(z); d = 1.0 / z; break;
  case U_LOG10: w = clog(z) / log(10.0); d = 1.0 / (z * log(10.0)); break;
  case U_SQRT: w = csqrt(z); d = 0.5 / w; break;
  case U_SIN: w = csin(z); d = ccos(z); break;
  case U_COS: w = ccos(z); d = -csin(z); break;
  case U_TAN: w = ctan(z); d = 1.0 + w * w; break;
  case U_ASIN: w = casin(z); d = 1.0 / csqrt(1.0 - z * z); break;
  case U_ACOS: w = cacos(z); d = -1.0 / csqrt(1.0 - z * z); break;
  case U_ATAN: w = catan(z); d = 1.0 / (1.0 + z * z); break;
  case U_SINH: w = csinh(z); d = ccosh(z); break;
  case U_COSH: w = ccosh(z); d = csinh(z); break;
  case U_TANH: w = ctanh(z); d = 1.0 - w * w; break;
  case U_ASINH: w = casinh(z); d = 1.0 / csqrt(z * z + 1.0); break;
  case U_ACOSH: w = cacosh(z); d = 1.0 / (csqrt(z - 1.0) * csqrt(z + 1.0)); break;
  case U_ATANH: w = catanh(z); d = 1.0 / (1.0 - z * z); break;
  case U_MINUS: w = cx_mk(-x, -y); d = -1.0; break;
  case U_PLUS: w = z; d = 1.0; break;
  case U_CONJ:
    J[0][0] = 1; J[0][3] = -1;
    return cx_mk(x, -y);
  case U_PROJ:
    w = cproj(z);
    if (isfinite(x) && isfinite(y)) { J[0][0] = 1; J[0][3] = 1; }
    return w;
  case U_ABS: {
    double r = hypot(x, y);
    if (r > 0) { J[0][0] = x / r; J[0][1] = y / r; }
    return cx_mk(r, 0);
  }
  case U_ARG: {
    double r2 = x * x + y * y;
    if (r2 > 0) { J[0][0] = -y / r2; J[0][1] = x / r2; }
    return cx_mk(atan2(y, x), 0);
  }
  case U_NORM:
    J[0][0] = 2 * x; J[0][1] = 2 * y;
    return cx_mk(x * x + y * y, 0);
  case U_REAL: J[0][0] = 1; return cx_mk(x, 0);
  case U_IMAG: J[0][1] = 1; return cx_mk(y, 0);
  default: w = z; d = 1.0; break;
  }
  holo(J[0], d);
  return w;
}

static int k_unary(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  if (nargs != 1) return tm_no_overload(c, a, nargs);
  int op = *(const int *)c->fn->data;
  int real_out = op == U_ABS || op == U_ARG || op == U_NORM || op == U_REAL || op == U_IMAG;
  return cx_map(c, a, 1, !real_out, unary, op, out);
}

/* ---- to_complex, polar ---- */

static cx make(int op, const cx *z, double (*J)[4]) {
  memset(J, 0, sizeof(double) * 8);
  if (op == 1) {   /* polar(r, theta) */
    double r = creal(z[0]), t = creal(z[1]), ct = cos(t), st = sin(t);
    J[0][0] = ct; J[0][2] = st;
    J[1][0] = -r * st; J[1][2] = r * ct;
    return cx_mk(r * ct, r * st);
  }
  J[0][0] = 1;
  J[1][2] = 1;
  return cx_mk(creal(z[0]), creal(z[1]));
}

static int k_to_complex(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  if (nargs == 0) {
    int rc = cx_new(out, &(tm_v){.rows = 1, .cols = 1}, TM_COMPLEX, 0);
    if (!rc) out->val[0] = out->val[1] = 0.0;
    return rc;
  }
  if (nargs == 1) {
    static const int zero = 0;
    tm_v two[2] = {a[0], tm_int_view((int *)&zero)};
    return cx_map(c, two, 2, 1, make, 0, out);
  }
  if (nargs != 2) return tm_no_overload(c, a, nargs);
  return cx_map(c, a, 2, 1, make, 0, out);
}

static int k_polar(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  if (nargs != 2) return tm_no_overload(c, a, nargs);
  return cx_map(c, a, 2, 1, make, 1, out);
}

/* ---- binary arithmetic ---- */

enum { B_ADD = 1, B_SUB, B_MUL, B_DIV, B_POW };

/* The arithmetic of two complex arguments (either may be a container when the
** other is a scalar; add, subtract and the elt_ forms also take two of one
** shape), in the table's order: the op that binary() switches on (B_<op>), the
** Stan name, the signatures.  divide and elt_divide share B_DIV. */
#define CX_ELT_SIG "Zm(Zm, Zm); Zm(Zm, complex); Zm(complex, Zm)"
#define CX_BINARY_FNS(X) \
  X(ADD, add, CX_ELT_SIG) X(SUB, subtract, CX_ELT_SIG) X(MUL, elt_multiply, CX_ELT_SIG) \
  X(DIV, elt_divide, CX_ELT_SIG) X(DIV, divide, "complex(complex, complex); Zm(Zm, complex); Zm(complex, Zm)") \
  X(POW, pow, "Z(Z, Z); Z(Z, complex); Z(complex, Z)")

static cx binary(int op, const cx *z, double (*J)[4]) {
  cx a = z[0], b = z[1], w, da, db;
  switch (op) {
  case B_ADD: w = a + b; da = 1; db = 1; break;
  case B_SUB: w = a - b; da = 1; db = -1; break;
  case B_MUL: w = a * b; da = b; db = a; break;
  case B_DIV: w = a / b; da = 1.0 / b; db = -w / b; break;
  default:
    /* pow(a, b) = exp(b log a), as std::pow of complex */
    w = cpow(a, b);
    da = (a == 0) ? 0 : b * w / a;
    db = (a == 0) ? 0 : w * clog(a);
    break;
  }
  holo(J[0], da);
  holo(J[1], db);
  return w;
}

static int k_binary(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  if (nargs != 2) return tm_no_overload(c, a, nargs);
  return cx_map(c, a, 2, 1, binary, *(const int *)c->fn->data, out);
}

/* a * b: elementwise when either is a scalar, else the matrix product */
static int k_multiply(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  if (nargs != 2) return tm_no_overload(c, a, nargs);
  if (cx_is_scalar(&a[0]) || cx_is_scalar(&a[1])) return cx_map(c, a, 2, 1, binary, B_MUL, out);
  return cx_matmul(c, &a[0], &a[1], out);
}

/* == and != of complex values (reals promote): an int */
static int k_eq(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  if (nargs != 2) return tm_no_overload(c, a, nargs);
  cx x = cx_get(&a[0], 0), y = cx_get(&a[1], 0);
  int eq = creal(x) == creal(y) && cimag(x) == cimag(y);
  return tm_set_int(out, *(const int *)c->fn->data ? eq : !eq);
}

static const int is_eq = 1, is_ne = 0;

/* a row of the table from CX_UNARY_FNS or CX_BINARY_FNS: its data points to the op */
#define CX_UNARY_ROW(op, name, sig) {#name, sig, k_unary, &(const int){U_##op}},
#define CX_BINARY_ROW(op, name, sig) {#name, sig, k_binary, &(const int){B_##op}},

const tm_fn tm_fns_complex[] = {
  {"to_complex", "complex(); complex(real); ZT(T, T); ZT(real, T); ZT(T, real)", k_to_complex, NULL},
  {"polar", "complex(real, real)", k_polar, NULL},
  CX_UNARY_FNS(CX_UNARY_ROW)
  CX_BINARY_FNS(CX_BINARY_ROW)
  {"multiply",
   "complex(complex, complex); Zm(Zm, complex); Zm(complex, Zm); "
   "complex_matrix(complex_matrix, complex_matrix); complex_vector(complex_matrix, complex_vector); "
   "complex_row_vector(complex_row_vector, complex_matrix); complex(complex_row_vector, complex_vector); "
   "complex_matrix(complex_vector, complex_row_vector)", k_multiply, NULL},
  {"operator==", "int(complex, complex)", k_eq, &is_eq},
  {"operator!=", "int(complex, complex)", k_eq, &is_ne},
  {"logical_eq", "int(complex, complex)", k_eq, &is_eq},
  {"logical_neq", "int(complex, complex)", k_eq, &is_ne},
  {NULL, NULL, NULL, NULL}
};
