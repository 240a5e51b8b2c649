/*
** init.c -- registration of the .Call entry points and load-time set-up.
*/
#include <R.h>
#include <Rinternals.h>
#include <R_ext/Rdynload.h>
#include "ad/ad.h"
#include "math/tm.h"
#include "r/r_entries.h"
#include "r/r_entries_parse.h"
#include "r/r_entries_data.h"
#include "r/r_entries_model.h"
#include "r/r_entries_check.h"
#include "r/r_entries_sample.h"
#include "r/r_entries_threads.h"
#include "r/r_entries_prof.h"
#include "r/r_entries_gq.h"
#include "r/r_entries_summary.h"
#include "r/r_interrupt.h"
#include "par/pp.h"
#include "tree/li.h"
#include "tree/li_mpi.h"
#include "plan/pl.h"

/* R stores every entry as DL_FUNC whatever its arguments; the detour
** through void (*)(void), which gcc's -Wcast-function-type exempts, says
** that the cast is meant.  The rows come from the lists of r/r_entries*.h. */
#define ENTRY(name, nargs, params) {#name, (DL_FUNC)(void (*)(void))&name, nargs},
static const R_CallMethodDef entries[] = {
  R_ENTRIES_BASE(ENTRY)
  R_ENTRIES_PARSE(ENTRY)
  R_ENTRIES_DATA(ENTRY)
  R_ENTRIES_MODEL(ENTRY)
  R_ENTRIES_CHECK(ENTRY)
  R_ENTRIES_SAMPLE(ENTRY)
  R_ENTRIES_THREADS(ENTRY)
  R_ENTRIES_PROF(ENTRY)
  R_ENTRIES_GQ(ENTRY)
  R_ENTRIES_SUMMARY(ENTRY)
  {NULL, NULL, 0}
};

void R_init_tapestry(DllInfo *dll) {
  R_registerRoutines(dll, NULL, entries, NULL, NULL);
  R_useDynamicSymbols(dll, FALSE);
  R_forceSymbols(dll, TRUE);
  if (ad_thread_init() != AD_OK || tm_table_init() != AD_OK)
    error("tapestry: %s", ad_errmsg());
  /* kernels' blocks (src/math) run on the pool (src/par) */
  tm_set_for(pp_for, pp_threads);
  /* a map_rect worker's jobs (src/tree) on plans (src/plan) */
  li_mpi_set_plans(pl_mpi_jobs, pl_mpi_jobs_free);
  li_integrate_init();
}

void R_unload_tapestry(DllInfo *dll) {
  (void)dll;
  ri_shutdown();     /* the SIGINT handler lives in this library */
  pp_pool_shutdown();
  pp_stacks_free();
  ad_thread_free();
}
