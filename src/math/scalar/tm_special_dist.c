/*
** tm_special_dist.c -- the special functions of the cdfs (tm_special_dist.h).
**
** A truncated or censored model needs log F and log(1 - F) far into the
** tails, where F itself underflows or rounds to 1.  So every function here
** returns logarithms computed from a form that keeps its digits there:
** log Phi through erfcx (Phi(-40) is 1e-350, its log is -804.6), the
** incomplete functions from whichever of the series or the continued
** fraction converges, the other tail by log1m_exp of a probability that is
** at most about one half.
*/
#include <math.h>
#include <float.h>
#include "../tm_special.h"
#include "../tm_special_dist.h"

#define SQRT_PI 1.772453850905516027298167483341
#define SQRT_2_OVER_PI 0.797884560802865355879892119869
#define MAXIT 1000000
#define TINY 1e-300

/* For x >= 26 erfc underflows; the asymptotic series of erfcx there has
** terms (2k-1)!! / (2x^2)^k, below 1e-19 by k = 8. */
static double erfcx_asymptotic(double x) {
  double v = 1 / (2 * x * x), s = 1, t = 1;
  for (int k = 1; k <= 10; k++) {
    t *= -(2 * k - 1) * v;
    s += t;
  }
  return s / (x * SQRT_PI);
}

double tm_erfcx(double x) {
  if (isnan(x)) return x;
  if (x < 0) {
    /* erfc(x) = 2 - erfc(-x): exp(x^2) overflows for x < -26.6, as it should */
    if (x < -26.7) return INFINITY;
    double xx = x * x, e = fma(x, x, -xx);
    return 2 * exp(xx) * (1 + e) - tm_erfcx(-x);
  }
  if (x >= 26) return erfcx_asymptotic(x);
  /* exp(x * x) with the rounding error of x * x added back: at x = 25 the
  ** rounded square alone would cost 14 bits */
  double xx = x * x, e = fma(x, x, -xx);
  return exp(xx) * (1 + e) * erfc(x);
}

double tm_log_Phi(double z) {
  if (isnan(z)) return z;
  if (z > 0) return log1p(-0.5 * erfc(z * TM_INV_SQRT_2));
  if (z == -INFINITY) return -INFINITY;
  /* Phi(z) = erfc(t) / 2 = exp(-t^2) erfcx(t) / 2, t = -z / sqrt(2) */
  double t = -z * TM_INV_SQRT_2;
  return -TM_LOG_2 - 0.5 * z * z + log(tm_erfcx(t));
}

double tm_dlog_Phi(double z) {
  if (isnan(z)) return z;
  if (z > 0) {
    double p = 1 - 0.5 * erfc(z * TM_INV_SQRT_2);
    return TM_INV_SQRT_2PI * exp(-0.5 * z * z) / p;
  }
  if (z == -INFINITY) return INFINITY;
  return SQRT_2_OVER_PI / tm_erfcx(-z * TM_INV_SQRT_2);
}

/* x <= 0 with log Phi(x) = lp, lp <= log(1/4): Newton's method on log Phi,
** which is concave, so the iterates approach the root from below without
** overshooting; the start (Abramowitz and Stegun 26.2.23, error < 4.5e-4)
** leaves two or three steps. */
static double lower_quantile(double lp) {
  double t = sqrt(-2 * lp);
  double x = -(t - (2.515517 + t * (0.802853 + t * 0.010328)) /
                   (1 + t * (1.432788 + t * (0.189269 + t * 0.001308))));
  for (int i = 0; i < 100; i++) {
    double dx = (lp - tm_log_Phi(x)) / tm_dlog_Phi(x);
    x += dx;
    if (!(fabs(dx) > 1e-15 * fabs(x))) break;
  }
  return x;
}

/* Near the median: Newton's method on Phi(x) - 1/2 = erf(x / sqrt 2) / 2 = d,
** where d = p - 1/2 is exact, so x keeps its relative precision. */
static double central_quantile(double d) {
  double x = TM_SQRT_2PI * d;
  for (int i = 0; i < 100; i++) {
    double dx = (d - 0.5 * erf(x * TM_INV_SQRT_2)) / (TM_INV_SQRT_2PI * exp(-0.5 * x * x));
    x += dx;
    if (!(fabs(dx) > 1e-16 * fabs(x))) break;
  }
  return x;
}

#define LOG_QUARTER -1.386294361119890618834464242916

double tm_inv_Phi(double p) {
  if (isnan(p) || p < 0 || p > 1) return NAN;
  if (p == 0) return -INFINITY;
  if (p == 1) return INFINITY;
  if (p >= 0.25 && p <= 0.75) return central_quantile(p - 0.5);
  if (p < 0.5) return lower_quantile(log(p));
  return -lower_quantile(log1p(-p));       /* 1 - p is exact here */
}

double tm_std_normal_log_qf(double lp) {
  if (isnan(lp) || lp > 0) return NAN;
  if (lp == -INFINITY) return -INFINITY;
  if (lp == 0) return INFINITY;
  if (lp <= LOG_QUARTER) return lower_quantile(lp);
  double lq = tm_log1m_exp(lp);            /* log(1 - p) */
  if (lq <= LOG_QUARTER) return -lower_quantile(lq);
  return central_quantile(0.5 * expm1(lp + TM_LOG_2));
}

double tm_stirlerr(double n) {
  const double S0 = 1.0 / 12, S1 = 1.0 / 360, S2 = 1.0 / 1260, S3 = 1.0 / 1680, S4 = 1.0 / 1188;
  if (n <= 15) return tm_lgamma(n + 1) - (n + 0.5) * log(n) + n - TM_LOG_SQRT_2PI;
  double nn = n * n;
  if (n > 500) return (S0 - S1 / nn) / n;
  if (n > 80) return (S0 - (S1 - S2 / nn) / nn) / n;
  if (n > 35) return (S0 - (S1 - (S2 - S3 / nn) / nn) / nn) / n;
  return (S0 - (S1 - (S2 - (S3 - S4 / nn) / nn) / nn) / nn) / n;
}

double tm_bd0(double x, double np) {
  if (fabs(x - np) < 0.1 * (x + np)) {
    double v = (x - np) / (x + np), s = (x - np) * v, ej = 2 * x * v;
    v *= v;
    for (int j = 1; j < 1000; j++) {
      ej *= v;
      double s1 = s + ej / (2 * j + 1);
      if (s1 == s) return s1;
      s = s1;
    }
    return s;
  }
  double r = x / np;
  return x * (isfinite(r) && r > 0 ? log(r) : log(x) - log(np)) + np - x;
}

double tm_log_dpois(double a, double x) {
  if (isnan(a) || isnan(x)) return NAN;
  if (x == 0) return a == 0 ? 0 : -INFINITY;
  if (a == 0) return -x;
  if (isinf(x)) return -INFINITY;
  if (a < 10) return a * log(x) - x - tm_lgamma(a + 1);
  return -tm_stirlerr(a) - tm_bd0(a, x) - 0.5 * (TM_LOG_2PI + log(a));
}

/* Modified Lentz: keep a denominator off zero. */
static double off_zero(double d) { return fabs(d) < TINY ? TINY : d; }

void tm_log_gamma_pq(double a, double x, double *lp, double *lq) {
  double p, q;
  if (isnan(a) || isnan(x)) p = q = NAN;
  else if (x <= 0) { p = -INFINITY; q = 0; }
  else if (x == INFINITY) { p = 0; q = -INFINITY; }
  else if (x < a + 1) {
    /* P = x^a e^-x / Gamma(a + 1) * sum_k x^k / ((a + 1) ... (a + k)) */
    double t = 1, s = 1;
    for (int k = 1; k < MAXIT; k++) {
      t *= x / (a + k);
      s += t;
      if (t < s * DBL_EPSILON) break;
    }
    p = tm_log_dpois(a, x) + log(s);
    q = tm_log1m_exp(p);
  } else {
    /* Q = x^a e^-x / Gamma(a) * 1 / (x + 1 - a - 1 (1 - a) / (x + 3 - a - ...)) */
    double b = x + 1 - a, c = 1 / TINY, d = 1 / b, h = d;
    for (int i = 1; i < MAXIT; i++) {
      double an = -i * (i - a);
      b += 2;
      d = 1 / off_zero(an * d + b);
      c = off_zero(b + an / c);
      double del = d * c;
      h *= del;
      if (fabs(del - 1) < DBL_EPSILON) break;
    }
    q = log(a) + tm_log_dpois(a, x) + log(h);
    p = tm_log1m_exp(q);
  }
  if (lp) *lp = p;
  if (lq) *lq = q;
}

void tm_log_gamma_pq_grad(double a, double x, double *lp, double *lq, double *g) {
  double p, q;
  g[0] = g[1] = g[2] = g[3] = 0;
  if (isnan(a) || isnan(x)) { *lp = *lq = NAN; g[0] = g[1] = g[2] = g[3] = NAN; return; }
  if (x <= 0) {
    *lp = -INFINITY; *lq = 0;
    g[3] = a > 1 ? 0 : a == 1 ? -1 : -INFINITY;
    return;
  }
  if (x == INFINITY) { *lp = 0; *lq = -INFINITY; return; }
  double ld = tm_log_dpois(a, x);           /* log(x^a e^-x / Gamma(a + 1)) */
  if (x < a + 1) {
    /* P = dpois(a, x) s, s = sum_k t_k, t_k = x^k / ((a + 1) ... (a + k));
    ** d t_k / da = -t_k H_k, H_k = sum_{j <= k} 1 / (a + j) */
    double t = 1, s = 1, H = 0, sh = 0;
    for (int k = 1; k < MAXIT; k++) {
      H += 1 / (a + k);
      t *= x / (a + k);
      s += t;
      sh += t * H;
      if (t < s * DBL_EPSILON && t * H <= sh * DBL_EPSILON) break;
    }
    p = ld + log(s);
    q = tm_log1m_exp(p);
    g[0] = log(x) - tm_digamma(a + 1) - sh / s;
    g[1] = -exp(p - q) * g[0];
  } else {
    /* Q = a dpois(a, x) h, h the continued fraction, carried with its
    ** derivative in a (primes) through Lentz's recurrences */
    double b = x + 1 - a, bp = -1;
    double c = 1 / TINY, cp = 0, d = 1 / b, dp = 1 / (b * b), h = d, hp = dp;
    for (int i = 1; i < MAXIT; i++) {
      double an = -i * (i - a), anp = i;
      b += 2;
      double D = an * d + b, Dp = anp * d + an * dp + bp;
      if (fabs(D) < TINY) { D = TINY; Dp = 0; }
      d = 1 / D;
      dp = -Dp * d * d;
      double C = b + an / c, Cp = bp + anp / c - an * cp / (c * c);
      if (fabs(C) < TINY) { C = TINY; Cp = 0; }
      c = C;
      cp = Cp;
      double del = d * c, delp = dp * c + d * cp;
      hp = hp * del + h * delp;
      h *= del;
      if (fabs(del - 1) < DBL_EPSILON && fabs(delp) <= 1e-16 * (1 + fabs(hp / h))) break;
    }
    q = log(a) + ld + log(h);
    p = tm_log1m_exp(q);
    g[1] = log(x) - tm_digamma(a) + hp / h;
    g[0] = -exp(q - p) * g[1];
  }
  /* dP / dx = x^(a - 1) e^-x / Gamma(a) */
  double lf = log(a) + ld - log(x);
  g[2] = exp(lf - p);
  g[3] = -exp(lf - q);
  *lp = p;
  *lq = q;
}

/* The continued fraction of I_x(a, b) / (x^a y^b / (a B(a, b))). */
static double betacf(double a, double b, double x) {
  double qab = a + b, qap = a + 1, qam = a - 1;
  double c = 1, d = 1 / off_zero(1 - qab * x / qap), h = d;
  for (int m = 1; m < MAXIT; m++) {
    int m2 = 2 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1 / off_zero(1 + aa * d);
    c = off_zero(1 + aa / c);
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1 / off_zero(1 + aa * d);
    c = off_zero(1 + aa / c);
    double del = d * c;
    h *= del;
    if (fabs(del - 1) < DBL_EPSILON) break;
  }
  return h;
}

/* y = 1 - x comes from the caller, who usually knows it exactly (binomial:
** x = 1 - theta, y = theta), so a tiny y keeps its digits. */
void tm_log_inc_beta(double a, double b, double x, double y, double *li, double *l1mi) {
  double i, j;
  if (isnan(a) || isnan(b) || isnan(x) || isnan(y)) i = j = NAN;
  else if (x <= 0) { i = -INFINITY; j = 0; }
  else if (y <= 0) { i = 0; j = -INFINITY; }
  else {
    double lbt = a * log(x) + b * log(y) - tm_lbeta(a, b);
    /* the continued fraction converges fast below the mean; above it, the
    ** complement's does */
    if (x < (a + 1) / (a + b + 2)) {
      i = lbt + log(betacf(a, b, x) / a);
      j = tm_log1m_exp(i);
    } else {
      j = lbt + log(betacf(b, a, y) / b);
      i = tm_log1m_exp(j);
    }
  }
  if (li) *li = i;
  if (l1mi) *l1mi = j;
}

/* The continued fraction of betacf with its partials in a and b (ha, hb),
** by carrying the derivatives through Lentz's recurrences. */
static double betacf_grad(double a, double b, double x, double *ha, double *hb) {
  double qab = a + b, qap = a + 1;
  double D0 = 1 - qab * x / qap, D0a = -x * (1 - b) / (qap * qap), D0b = -x / qap;
  if (fabs(D0) < TINY) { D0 = TINY; D0a = D0b = 0; }
  double d = 1 / D0, da = -D0a * d * d, db = -D0b * d * d;
  double c = 1, ca = 0, cb = 0, h = d, h_a = da, h_b = db;
  for (int m = 1; m < MAXIT; m++) {
    double del = 1, dela = 0, delb = 0;
    for (int half = 0; half < 2; half++) {
      double aa, aaa, aab;
      if (!half) {
        double u = a + 2 * m - 1, w = a + 2 * m;
        aa = m * (b - m) * x / (u * w);
        aaa = -aa * (1 / u + 1 / w);
        aab = m * x / (u * w);
      } else {
        double w = a + 2 * m, u = a + 2 * m + 1;
        aa = -(a + m) * (qab + m) * x / (w * u);
        aaa = aa * (1 / (a + m) + 1 / (qab + m) - 1 / w - 1 / u);
        aab = aa / (qab + m);
      }
      double D = 1 + aa * d, Da = aaa * d + aa * da, Db = aab * d + aa * db;
      if (fabs(D) < TINY) { D = TINY; Da = Db = 0; }
      d = 1 / D;
      da = -Da * d * d;
      db = -Db * d * d;
      double C = 1 + aa / c, Ca = aaa / c - aa * ca / (c * c), Cb = aab / c - aa * cb / (c * c);
      if (fabs(C) < TINY) { C = TINY; Ca = Cb = 0; }
      c = C; ca = Ca; cb = Cb;
      double e = d * c, ea = da * c + d * ca, eb = db * c + d * cb;
      h_a = h_a * e + h * ea;
      h_b = h_b * e + h * eb;
      h *= e;
      del = e; dela = ea; delb = eb;
    }
    if (fabs(del - 1) < DBL_EPSILON && fabs(dela) <= 1e-16 * (1 + fabs(h_a / h)) &&
        fabs(delb) <= 1e-16 * (1 + fabs(h_b / h)))
      break;
  }
  *ha = h_a;
  *hb = h_b;
  return h;
}

/* log I_x(a, b) on the side where the fraction converges, with partials */
static double direct_log_inc_beta(double a, double b, double x, double y, double *ga, double *gb) {
  double ha, hb, h = betacf_grad(a, b, x, &ha, &hb), dab = tm_digamma(a + b);
  *ga = log(x) - tm_digamma(a) + dab - 1 / a + ha / h;
  *gb = log(y) - tm_digamma(b) + dab + hb / h;
  return a * log(x) + b * log(y) - tm_lbeta(a, b) - log(a) + log(h);
}

void tm_log_inc_beta_grad(double a, double b, double x, double y, double *li, double *l1mi, double *g) {
  for (int k = 0; k < 6; k++) g[k] = 0;
  if (isnan(a) || isnan(b) || isnan(x) || isnan(y)) {
    *li = *l1mi = NAN;
    for (int k = 0; k < 6; k++) g[k] = NAN;
    return;
  }
  if (x <= 0) { *li = -INFINITY; *l1mi = 0; return; }
  if (y <= 0) { *li = 0; *l1mi = -INFINITY; return; }
  double i, j;
  if (x < (a + 1) / (a + b + 2)) {
    i = direct_log_inc_beta(a, b, x, y, &g[0], &g[1]);
    j = tm_log1m_exp(i);
    double r = -exp(i - j);                   /* d log(1 - I) = -(I / (1 - I)) d log I */
    g[2] = r * g[0];
    g[3] = r * g[1];
  } else {
    j = direct_log_inc_beta(b, a, y, x, &g[3], &g[2]);   /* 1 - I_x(a, b) = I_y(b, a) */
    i = tm_log1m_exp(j);
    double r = -exp(j - i);
    g[0] = r * g[2];
    g[1] = r * g[3];
  }
  /* dI / dx = x^(a - 1) y^(b - 1) / B(a, b) */
  double lf = (a - 1) * log(x) + (b - 1) * log(y) - tm_lbeta(a, b);
  g[4] = exp(lf - i);
  g[5] = -exp(lf - j);
  *li = i;
  *l1mi = j;
}

/* ---- Owen's T function ----
** T(h, a) = 1/(2 pi) int_0^a exp(-h^2 (1 + x^2) / 2) / (1 + x^2) dx.
** For |a| <= 1 the integral by Gauss-Legendre quadrature, 20 nodes on each
** of enough panels that a panel is narrower than the integrand's width
** 1/|h| (the integrand is then a smooth bump on each, and the rule exact to
** double precision); for |a| > 1 the identity
**   T(h, a) = (P + Q - P Q) / 4 - T(a h, 1 / a),  h >= 0, a > 0,
** with P = erfc(h / sqrt 2), Q = erfc(a h / sqrt 2), so that no 1 - erf
** loses digits. */
static const double gl20_x[10] = {
  0.0765265211334973337546404, 0.2277858511416450780804962, 0.3737060887154195606725482,
  0.5108670019508270980043641, 0.6360536807265150254528367, 0.7463319064601507926143051,
  0.8391169718222188233945291, 0.9122344282513259058677524, 0.9639719272779137912676661,
  0.9931285991850949247861224};
static const double gl20_w[10] = {
  0.1527533871307258506980843, 0.1491729864726037467878287, 0.1420961093183820513292983,
  0.1316886384491766268984945, 0.1181945319615184173123774, 0.1019301198172404350367501,
  0.0832767415767047487247581, 0.0626720483341090635695065, 0.0406014298003869413310400,
  0.0176140071391521183118620};

static double owens_t_quad(double h, double a) {   /* 0 <= a <= 1 */
  double hh = 0.5 * h * h;
  /* Clamped as a double: h may be huge or infinite, and a cast of a double
  ** beyond INT_MAX to int is undefined (found by fuzz_eval). */
  double want = ceil(fabs(h) * a * 2) + 1;
  int panels = want < 400 ? (int)want : 400;
  double width = a / panels, s = 0;
  for (int p = 0; p < panels; p++) {
    double mid = (p + 0.5) * width, half = 0.5 * width;
    for (int k = 0; k < 10; k++)
      for (int sg = -1; sg <= 1; sg += 2) {
        double x = mid + sg * half * gl20_x[k], q = 1 + x * x;
        s += gl20_w[k] * half * exp(-hh * q) / q;
      }
  }
  return s / (2 * 3.141592653589793238462643383280);
}

double tm_owens_t(double h, double a) {
  if (isnan(h) || isnan(a)) return NAN;
  if (a < 0) return -tm_owens_t(h, -a);
  h = fabs(h);
  if (a == 0) return 0;
  if (isinf(a)) return 0.25 * erfc(h / 1.414213562373095048801688724210);   /* T(h, inf) = (1 - Phi(h)) / 2 */
  if (a <= 1) return owens_t_quad(h, a);
  double P = erfc(h / 1.414213562373095048801688724210), Q = erfc(a * h / 1.414213562373095048801688724210);
  return 0.25 * (P + Q - P * Q) - owens_t_quad(a * h, 1 / a);
}
