/* r_entries_model.h -- .Call entry points of src/r/r_model*.c, as ENTRY(name, nargs), */
#ifndef R_ENTRIES_MODEL_H
#define R_ENTRIES_MODEL_H
#include <Rinternals.h>
SEXP tp_model_new(SEXP code, SEXP filename, SEXP include_paths);
SEXP tp_model_variables(SEXP prog);
SEXP tp_tuples(SEXP x);
SEXP tp_ctx_new(SEXP prog, SEXP data, SEXP seed);
SEXP tp_log_prob(SEXP ctx, SEXP upars, SEXP jacobian, SEXP grad);
SEXP tp_grad_log_prob(SEXP ctx, SEXP upars, SEXP jacobian);
SEXP tp_grad_fast(SEXP ctx, SEXP upars, SEXP jacobian);
SEXP tp_write_array(SEXP ctx, SEXP upars, SEXP tparams, SEXP gqs, SEXP seed);
SEXP tp_unconstrain(SEXP ctx, SEXP vals, SEXP partial);
SEXP tp_num_upars(SEXP ctx);
SEXP tp_upar_names(SEXP ctx);
SEXP tp_output_names(SEXP ctx, SEXP tparams, SEXP gqs);
SEXP tp_ctx_vars(SEXP ctx);
SEXP tp_ptr_ok(SEXP x);
SEXP tp_plan_stats(SEXP ctx);
SEXP tp_plan_loops(SEXP ctx);
SEXP tp_plan_enable(SEXP on);
SEXP tp_plan_time(SEXP ctx, SEXP upars, SEXP reps);
SEXP tp_plan_lanes(SEXP on);
#define R_ENTRIES_MODEL \
  ENTRY(tp_model_new, 3), \
  ENTRY(tp_model_variables, 1), \
  ENTRY(tp_tuples, 1), \
  ENTRY(tp_ctx_new, 3), \
  ENTRY(tp_log_prob, 4), \
  ENTRY(tp_grad_log_prob, 3), \
  ENTRY(tp_grad_fast, 3), \
  ENTRY(tp_write_array, 5), \
  ENTRY(tp_unconstrain, 3), \
  ENTRY(tp_num_upars, 1), \
  ENTRY(tp_upar_names, 1), \
  ENTRY(tp_output_names, 3), \
  ENTRY(tp_ctx_vars, 1), \
  ENTRY(tp_ptr_ok, 1), \
  ENTRY(tp_plan_stats, 1), \
  ENTRY(tp_plan_loops, 1), \
  ENTRY(tp_plan_enable, 1), \
  ENTRY(tp_plan_time, 3), \
  ENTRY(tp_plan_lanes, 1),
#endif
