/*
** tm_complex_mat.c -- complex vectors and matrices: the matrix product,
** transpose, sum, prod, the discrete Fourier transforms (fft, inv_fft,
** fft2, inv_fft2), and the container functions on complex values (sizes,
** slices, reshapes, appends, rep_*): copies of elements by index (tm_pick
** on the pairs of doubles), one node per call.
*/
#include <math.h>
#include <string.h>
#include "tm_complex.h"
#include "../tm_pick.h"

/* ---- matrix product ---- */

/* rows and columns of a vector, row vector or matrix (complex or real) */
static void mat_dims(const tm_v *v, int *r, int *c) { *r = v->rows; *c = v->cols; }

typedef struct mm_node {
  ad_node hdr;
  int m, k, n;
  const cx *A, *B;          /* values, m x k and k x n, column-major */
  const tm_v *a, *b;        /* descriptors, for the adjoints */
  const double *oadj;       /* m x n pairs */
} mm_node;

static void mm_chain(ad_node *self) {
  mm_node *p = (mm_node *)self;
  int m = p->m, k = p->k, n = p->n;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++) {
      size_t o = (size_t)i + (size_t)j * m;
      cx g = cx_mk(p->oadj[2 * o], p->oadj[2 * o + 1]);
      if (g == 0) continue;
      for (int l = 0; l < k; l++) {
        /* C_ij = sum_l A_il B_lj: adj A_il += conj(B_lj) g, adj B_lj += conj(A_il) g */
        if (p->a->adj) {
          cx d = conj(p->B[(size_t)l + (size_t)j * k]) * g;
          cx_add_adj(p->a, (size_t)i + (size_t)l * m, creal(d), cimag(d));
        }
        if (p->b->adj) {
          cx d = conj(p->A[(size_t)i + (size_t)l * m]) * g;
          cx_add_adj(p->b, (size_t)l + (size_t)j * k, creal(d), cimag(d));
        }
      }
    }
}

static cx *values(const tm_v *v) {
  size_t n = tm_numel(v);
  cx *z = ad_alloc((n ? n : 1) * sizeof *z);
  if (!z) return NULL;
  for (size_t i = 0; i < n; i++) z[i] = cx_get(v, i);
  return z;
}

int cx_matmul(const tm_call *c, const tm_v *a, const tm_v *b, tm_v *out) {
  int m, k, k2, n, rc;
  mat_dims(a, &m, &k);
  mat_dims(b, &k2, &n);
  if ((rc = tm_check_size_match(c->fn->name, "Columns of m1", (size_t)k, "Rows of m2", (size_t)k2))) return rc;
  int ra = cx_real_base(a->base), rb = cx_real_base(b->base);
  int base = ra == TM_ROW_VECTOR && rb == TM_VECTOR ? TM_COMPLEX
           : ra == TM_MATRIX && rb == TM_VECTOR ? TM_CVECTOR
           : ra == TM_ROW_VECTOR && rb == TM_MATRIX ? TM_CROW_VECTOR : TM_CMATRIX;
  int ad = a->adj || b->adj;
  tm_v shape;
  memset(&shape, 0, sizeof shape);
  shape.rows = m; shape.cols = n;
  if ((rc = cx_new(out, &shape, base, ad))) return rc;
  cx *A = values(a), *B = values(b);
  if (!A || !B) return ad_fail(AD_EMEMORY, "out of memory");
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++) {
      cx s = 0;
      for (int l = 0; l < k; l++) s += A[(size_t)i + (size_t)l * m] * B[(size_t)l + (size_t)j * k];
      size_t o = (size_t)i + (size_t)j * m;
      out->val[2 * o] = creal(s);
      out->val[2 * o + 1] = cimag(s);
    }
  out->dep = (unsigned char)(a->dep || b->dep || ad);
  if (!ad || (size_t)m * n == 0) return AD_OK;
  mm_node *p = ad_node_new(sizeof *p, mm_chain);
  tm_v *ac = ad_alloc(sizeof *ac), *bc = ad_alloc(sizeof *bc);
  if (!p || !ac || !bc) return ad_fail(AD_EMEMORY, "out of memory");
  *ac = *a; *bc = *b;
  p->m = m; p->k = k; p->n = n; p->A = A; p->B = B; p->a = ac; p->b = bc; p->oadj = out->adj;
  return AD_OK;
}

/* ---- discrete Fourier transforms ---- */

#define CX_PI 3.14159265358979323846

/* Work space of a transform of an r x c matrix (or a vector of r * c):
** the twiddles of each length, an input line, an output line, scratch.
** Allocated in the forward pass, so the reverse step allocates nothing. */
typedef struct fft_ws {
  cx *tw_r, *tw_c;          /* exp(-2 pi i m / len), m < len, for the two lengths */
  cx *x, *y, *tmp;          /* lines of the longer length; scratch of twice that */
} fft_ws;

static void twiddles(cx *tw, size_t n) {
  for (size_t m = 0; m < n; m++) {
    double t = -2.0 * CX_PI * (double)m / (double)n;
    tw[m] = cx_mk(cos(t), sin(t));
  }
}

static int fft_ws_new(fft_ws *w, int r, int c, int twod) {
  size_t lr = twod ? (size_t)r : (size_t)r * (size_t)c, lc = twod ? (size_t)c : 0;
  size_t m = lr > lc ? lr : lc;
  w->tw_r = ad_alloc((lr ? lr : 1) * sizeof(cx));
  w->tw_c = ad_alloc((lc ? lc : 1) * sizeof(cx));
  w->x = ad_alloc((m ? m : 1) * sizeof(cx));
  w->y = ad_alloc((m ? m : 1) * sizeof(cx));
  w->tmp = ad_alloc((m ? 2 * m : 1) * sizeof(cx));
  if (!w->tw_r || !w->tw_c || !w->x || !w->y || !w->tmp) return ad_fail(AD_EMEMORY, "out of memory");
  twiddles(w->tw_r, lr);
  twiddles(w->tw_c, lc);
  return AD_OK;
}

/* y[k] = sum_j x[j xs] w^(jk), k < n, w = tw[tws] (conjugated when sign > 0):
** mixed radix (the smallest prime factor p of n: p transforms of n / p, then
** their combination), the direct sum when n is prime.  tmp: scratch of 2 n. */
static void dft(const cx *x, size_t xs, cx *y, size_t n, const cx *tw, size_t tws, int sign, cx *tmp) {
  if (n == 0) return;
  if (n == 1) { y[0] = x[0]; return; }
  size_t p = n;
  for (size_t f = 2; f * f <= n; f++) if (n % f == 0) { p = f; break; }
  if (p == n) {
    for (size_t k = 0; k < n; k++) {
      cx acc = 0;
      for (size_t j = 0; j < n; j++) {
        cx w = tw[((j * k) % n) * tws];
        acc += x[j * xs] * (sign > 0 ? conj(w) : w);
      }
      y[k] = acc;
    }
    return;
  }
  size_t m = n / p;
  for (size_t r = 0; r < p; r++) dft(x + r * xs, xs * p, tmp + r * m, m, tw, tws * p, sign, tmp + n);
  for (size_t k = 0; k < n; k++) {
    cx acc = 0;
    for (size_t r = 0; r < p; r++) {
      cx w = tw[((r * k) % n) * tws];
      acc += (sign > 0 ? conj(w) : w) * tmp[r * m + k % m];
    }
    y[k] = acc;
  }
}

/* A 1-d or 2-d transform of the r x c (column-major) values z in place:
** columns (when twod) then rows; sign -1 forward, +1 inverse (unscaled). */
static void transform(const fft_ws *w, cx *z, int r, int c, int twod, int sign) {
  size_t n = (size_t)r * (size_t)c;
  if (!twod) {
    memcpy(w->x, z, n * sizeof *z);
    dft(w->x, 1, z, n, w->tw_r, 1, sign, w->tmp);
    return;
  }
  for (int j = 0; j < c; j++) {   /* each column */
    memcpy(w->x, z + (size_t)j * r, (size_t)r * sizeof *z);
    dft(w->x, 1, z + (size_t)j * r, (size_t)r, w->tw_r, 1, sign, w->tmp);
  }
  for (int i = 0; i < r; i++) {   /* each row */
    for (int j = 0; j < c; j++) w->x[j] = z[(size_t)i + (size_t)j * r];
    dft(w->x, 1, w->y, (size_t)c, w->tw_c, 1, sign, w->tmp);
    for (int j = 0; j < c; j++) z[(size_t)i + (size_t)j * r] = w->y[j];
  }
}

typedef struct fft_node {
  ad_node hdr;
  const tm_v *a;
  const double *oadj;
  int r, c, twod, sign;
  double scale;
  fft_ws w;
  cx *g;
} fft_node;

/* y = s F x with F symmetric: adj x += s conj(F) adj y, the opposite transform */
static void fft_chain(ad_node *self) {
  fft_node *p = (fft_node *)self;
  size_t n = (size_t)p->r * (size_t)p->c;
  for (size_t i = 0; i < n; i++) p->g[i] = cx_mk(p->oadj[2 * i], p->oadj[2 * i + 1]);
  transform(&p->w, p->g, p->r, p->c, p->twod, -p->sign);
  for (size_t i = 0; i < n; i++) cx_add_adj(p->a, i, p->scale * creal(p->g[i]), p->scale * cimag(p->g[i]));
}

static int k_fft(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  if (nargs != 1) return tm_no_overload(c, a, nargs);
  const int *d = c->fn->data;
  int twod = d[0], sign = d[1], rc;
  int r = a->rows, cc = a->cols;
  size_t n = tm_numel(a);
  int ad = a->adj != NULL;
  if ((rc = cx_new(out, a, cx_complex_base(a->base), ad))) return rc;
  cx *z = values(a);
  fft_ws w;
  if (!z) return ad_fail(AD_EMEMORY, "out of memory");
  if ((rc = fft_ws_new(&w, r, cc, twod))) return rc;
  transform(&w, z, r, cc, twod, sign);
  double scale = sign > 0 && n ? 1.0 / (double)n : 1.0;
  for (size_t i = 0; i < n; i++) { out->val[2 * i] = scale * creal(z[i]); out->val[2 * i + 1] = scale * cimag(z[i]); }
  out->dep = (unsigned char)(a->dep || ad);
  if (!ad || n == 0) return AD_OK;
  fft_node *p = ad_node_new(sizeof *p, fft_chain);
  tm_v *ac = ad_alloc(sizeof *ac);
  if (!p || !ac) return ad_fail(AD_EMEMORY, "out of memory");
  *ac = *a;
  p->a = ac; p->oadj = out->adj; p->r = r; p->c = cc; p->twod = twod; p->sign = sign; p->scale = scale;
  p->w = w;
  p->g = z;   /* the forward pass is done with it */
  return AD_OK;
}

/* ---- reductions ---- */

typedef struct sum_node { ad_node hdr; const tm_v *a; const double *oadj; const cx *f; size_t n; } sum_node;
static void sum_chain(ad_node *self) {
  sum_node *p = (sum_node *)self;
  cx g = cx_mk(p->oadj[0], p->oadj[1]);
  for (size_t i = 0; i < p->n; i++) {
    cx d = p->f ? conj(p->f[i]) * g : g;
    cx_add_adj(p->a, i, creal(d), cimag(d));
  }
}

/* sum (data NULL) or prod of the elements */
static int k_sum(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  if (nargs != 1) return tm_no_overload(c, a, nargs);
  int prod = c->fn->data != NULL, rc, ad = a->adj != NULL;
  size_t n = tm_numel(a);
  tm_v one;
  memset(&one, 0, sizeof one);
  one.rows = one.cols = 1;
  if ((rc = cx_new(out, &one, TM_COMPLEX, ad))) return rc;
  cx s = prod ? 1 : 0;
  cx *f = NULL;
  if (prod && ad && !(f = ad_alloc((n ? n : 1) * sizeof *f))) return ad_fail(AD_EMEMORY, "out of memory");
  if (prod && f) {
    /* d prod / d z_i = product of the others: prefix and suffix products */
    cx pre = 1;
    for (size_t i = 0; i < n; i++) { f[i] = pre; pre *= cx_get(a, i); }
    cx suf = 1;
    for (size_t i = n; i-- > 0;) { f[i] *= suf; suf *= cx_get(a, i); }
  }
  for (size_t i = 0; i < n; i++) s = prod ? s * cx_get(a, i) : s + cx_get(a, i);
  out->val[0] = creal(s);
  out->val[1] = cimag(s);
  out->dep = (unsigned char)(a->dep || ad);
  if (!ad || n == 0) return AD_OK;
  sum_node *p = ad_node_new(sizeof *p, sum_chain);
  tm_v *ac = ad_alloc(sizeof *ac);
  if (!p || !ac) return ad_fail(AD_EMEMORY, "out of memory");
  *ac = *a;
  p->a = ac; p->oadj = out->adj; p->f = f; p->n = n;
  return AD_OK;
}

/* transpose: a copy of the pairs by index */
static int k_transpose(const tm_call *c, const tm_v *a, int nargs, tm_v *out) {
  if (nargs != 1) return tm_no_overload(c, a, nargs);
  int r = a->rows, cc = a->cols, rc;
  tm_v shape = *a;
  shape.rows = cc; shape.cols = r;
  int base = a->base == TM_CVECTOR ? TM_CROW_VECTOR : a->base == TM_CROW_VECTOR ? TM_CVECTOR : TM_CMATRIX;
  if ((rc = cx_new(out, &shape, base, a->adj != NULL))) return rc;
  size_t n = tm_numel(a);
  size_t *idx = tm_pick_index(2 * n);
  if (!idx) return ad_fail(AD_EMEMORY, "out of memory");
  for (int j = 0; j < r; j++)        /* out is cc x r: out(i, j) = a(j, i) */
    for (int i = 0; i < cc; i++) {
      size_t o = (size_t)i + (size_t)j * cc, s = (size_t)j + (size_t)i * r;
      idx[2 * o] = 2 * s;
      idx[2 * o + 1] = 2 * s + 1;
    }
  return tm_pick(out, a, idx, 2 * n) ? ad_fail(AD_EMEMORY, "out of memory") : AD_OK;
}

static const int f_fft[2] = {0, -1}, f_inv_fft[2] = {0, 1}, f_fft2[2] = {1, -1}, f_inv_fft2[2] = {1, 1};
static const int is_prod = 1;

const tm_fn tm_fns_complex_mat[] = {
  {"fft", "complex_vector(complex_vector)", k_fft, f_fft},
  {"inv_fft", "complex_vector(complex_vector)", k_fft, f_inv_fft},
  {"fft2", "complex_matrix(complex_matrix)", k_fft, f_fft2},
  {"inv_fft2", "complex_matrix(complex_matrix)", k_fft, f_inv_fft2},
  {"sum", "complex(complex_vector); complex(complex_row_vector); complex(complex_matrix); complex(array[] complex)",
   k_sum, NULL},
  {"prod", "complex(complex_vector); complex(complex_row_vector); complex(complex_matrix); complex(array[] complex)",
   k_sum, &is_prod},
  {"transpose", "complex_row_vector(complex_vector); complex_vector(complex_row_vector); complex_matrix(complex_matrix)",
   k_transpose, NULL},
  {NULL, NULL, NULL, NULL}
};
