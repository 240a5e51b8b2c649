/*
** tm_dens_multi.h -- pieces of tm_dens_multi.c other modules use.
*/
#ifndef TM_DENS_MULTI_H
#define TM_DENS_MULTI_H

/* log of the LKJ normalising constant for K x K correlation matrices and
** shape eta; *deta its derivative in eta. */
double tm_lkj_constant(double eta, int K, double *deta);

#endif
