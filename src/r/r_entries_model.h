/* r_entries_model.h -- .Call entry points of src/r/r_model*.c, one row each (see r_entries.h) */
#ifndef R_ENTRIES_MODEL_H
#define R_ENTRIES_MODEL_H
#include "r_entries.h"
#define R_ENTRIES_MODEL(X) \
  X(tp_model_new, 3, (SEXP code, SEXP filename, SEXP include_paths)) \
  X(tp_model_variables, 1, (SEXP prog)) \
  X(tp_tuples, 1, (SEXP x)) \
  X(tp_ctx_new, 3, (SEXP prog, SEXP data, SEXP seed)) \
  X(tp_log_prob, 4, (SEXP ctx, SEXP upars, SEXP jacobian, SEXP grad)) \
  X(tp_grad_log_prob, 3, (SEXP ctx, SEXP upars, SEXP jacobian)) \
  X(tp_grad_fast, 3, (SEXP ctx, SEXP upars, SEXP jacobian)) \
  X(tp_write_array, 5, (SEXP ctx, SEXP upars, SEXP tparams, SEXP gqs, SEXP seed)) \
  X(tp_unconstrain, 3, (SEXP ctx, SEXP vals, SEXP partial)) \
  X(tp_num_upars, 1, (SEXP ctx)) \
  X(tp_upar_names, 1, (SEXP ctx)) \
  X(tp_output_names, 3, (SEXP ctx, SEXP tparams, SEXP gqs)) \
  X(tp_ctx_vars, 1, (SEXP ctx)) \
  X(tp_ptr_ok, 1, (SEXP x)) \
  X(tp_plan_stats, 1, (SEXP ctx)) \
  X(tp_plan_loops, 1, (SEXP ctx)) \
  X(tp_plan_enable, 1, (SEXP on)) \
  X(tp_plan_time, 3, (SEXP ctx, SEXP upars, SEXP reps)) \
  X(tp_plan_lanes, 1, (SEXP on))
R_ENTRIES_MODEL(R_ENTRY_DECLARE)
#endif
