/*
** tm_special.h -- special functions on doubles, shared by every module.
** All are thread-safe (no hidden global state: lgamma_r, not lgamma).
*/
#ifndef TM_SPECIAL_H
#define TM_SPECIAL_H
#include <stddef.h>

#define TM_LOG_SQRT_2PI 0.918938533204672741780329736406   /* log(sqrt(2 pi)) */
#define TM_LOG_2PI      1.837877066409345483560659472811
#define TM_LOG_PI       1.144729885849400174143427351353
#define TM_LOG_2        0.693147180559945309417232121458
#define TM_SQRT_2PI     2.506628274631000502415765284811
#define TM_SQRT2        1.414213562373095048801688724210
#define TM_INV_SQRT_2PI 0.398942280401432677939946059934
#define TM_INV_SQRT_2   0.707106781186547524400844362105
#define TM_PI           3.141592653589793238462643383280

double tm_lgamma(double x);            /* log |Gamma(x)|, via lgamma_r */
/* lgamma(n + 1) for a count n, from a table below TM_LFACT_N (filled by
** tm_special_init at load, before any thread runs) */
#define TM_LFACT_N 256    /* a power of 2 (prob/tm_dens_elem.c masks counts with it) */
extern double tm_lfact_table[TM_LFACT_N];
void   tm_special_init(void);
static inline double tm_lfact(double n) {
  return n >= 0 && n < TM_LFACT_N ? tm_lfact_table[(int)n] : tm_lgamma(n + 1);
}
double tm_digamma(double x);
double tm_trigamma(double x);
double tm_lbeta(double a, double b);
double tm_lgamma_diff(double x, double n);     /* lgamma(x + n) - lgamma(x), accurate for small n */
double tm_digamma_diff(double x, double n);    /* digamma(x + n) - digamma(x), likewise */
double tm_lchoose(double n, double k);
double tm_log1p_exp(double a);         /* log(1 + exp(a)) */
double tm_log1m_exp(double a);         /* log(1 - exp(a)), a <= 0 */
double tm_log_sum_exp2(double a, double b);
/* log_mix(th, l1, l2) = log_sum_exp(log th + l1, log1m th + l2), given
** log th and log1m th; p (unless NULL) its partials in th, l1, l2.  With th
** inside (0, 1) and both sums finite, the partials come from the sum's own
** exp (the terms' weights), else as exp(l - f). */
/* log_sum_exp of x[0 .. n) and, unless d is NULL, its partials: with a
** finite maximum m, the terms exp(x - m) (exp(0) is 1: not called), their
** sum s, m + log(s), and the softmax term / s; else exp(x - f). */
double tm_lse_partials(const double *x, size_t n, double *d);
/* softmax of x[0 .. n), n > 0, into out (log_softmax when log_form): with m
** the maximum (0 when it is not finite, so that a NaN or inf shows),
** exp(x - m) / s or x - (m + log s), s the sum of exp(x - m).  softmax and
** log_softmax of containers and the logit _rng functions run on it. */
void tm_softmax(const double *x, size_t n, int log_form, double *out);
double tm_log_mix3(double th, double log_th, double log1m_th, double l1, double l2, double *p);
double tm_log_diff_exp(double a, double b);
double tm_inv_logit(double u);
double tm_log_inv_logit(double u);
double tm_log1m_inv_logit(double u);
double tm_logit(double u);
double tm_Phi(double x);               /* standard normal cdf, Stan's cut-offs */
double tm_log1m(double x);             /* log(1 - x) */
#endif
