/*
** tm_special_dist.h -- special functions behind the cumulative distribution
** functions, on doubles: the scaled complementary error function and log Phi
** for the normal tails, the regularized incomplete gamma and beta functions
** as logarithms (a cdf and its complement each keep their digits), and
** Loader's saddle-point pieces for masses of large counts.
** Thread-safe: no hidden state.
*/
#ifndef TM_SPECIAL_DIST_H
#define TM_SPECIAL_DIST_H

double tm_erfcx(double x);             /* exp(x^2) erfc(x), no overflow for large x */
double tm_log_Phi(double z);           /* log Phi(z), finite down to z = -1e150 */
double tm_dlog_Phi(double z);          /* d log Phi(z) / dz = phi(z) / Phi(z) */
double tm_owens_t(double h, double a);  /* Owen's T function (the skew normal's cdf) */

/* The standard normal quantile: x with Phi(x) = p, and x with
** log Phi(x) = lp (std_normal_log_qf), to full precision in both tails. */
double tm_inv_Phi(double p);
double tm_std_normal_log_qf(double lp);

/* log(x^a e^-x / Gamma(a + 1)): the Poisson mass at a when a is a count,
** by Loader's form for a >= 10 (no cancellation of terms of size a log a). */
double tm_log_dpois(double a, double x);

/* log P(a, x) and log Q(a, x) = log(1 - P(a, x)), the regularized lower and
** upper incomplete gamma functions, a > 0, x >= 0.  Either pointer may be NULL. */
void tm_log_gamma_pq(double a, double x, double *lp, double *lq);

/* The same with partials: g[0] = d log P / da, g[1] = d log Q / da,
** g[2] = d log P / dx, g[3] = d log Q / dx.  The parameter derivatives
** come from differentiating the series (P side) or the continued fraction
** (Q side, by forward mode through Lentz's recurrences), so each stays
** accurate where its function is small. */
void tm_log_gamma_pq_grad(double a, double x, double *lp, double *lq, double *g);

/* log I_x(a, b) and log(1 - I_x(a, b)), the regularized incomplete beta
** function, a, b > 0, 0 <= x <= 1, y = 1 - x given by the caller (who
** often knows it without rounding).  Either pointer may be NULL. */
void tm_log_inc_beta(double a, double b, double x, double y, double *li, double *l1mi);

/* The same with partials: g[0], g[1] = d log I / da, db; g[2], g[3] =
** d log(1 - I) / da, db; g[4], g[5] = d log I / dx, d log(1 - I) / dx.
** Parameter derivatives by forward mode through the continued fraction. */
void tm_log_inc_beta_grad(double a, double b, double x, double y, double *li, double *l1mi, double *g);

/* log(n!) - log(sqrt(2 pi n) (n/e)^n), and x log(x / np) + np - x by its
** series near x = np: the pieces of Loader's saddle-point masses. */
double tm_stirlerr(double n);
double tm_bd0(double x, double np);

#endif
