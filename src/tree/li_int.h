/*
** li_int.h -- the interpreter's internals, shared by src/tree/li_*.c.
**
** Values are tm_v (tm.h).  A variable lives in a slot of a frame: the
** global frame (data, transformed data, parameters, transformed parameters,
** generated quantities) or the local frame of a block or function call.  A
** slot owns its storage; expressions yield tm_v views or fresh values from
** the active arena, and assignment copies into the slot's storage.
**
** Mutation on the tape.  A container variable with adjoints is written in
** place: assigning element i records a node whose reverse step hands
** adj[i] to the assigned value and zeroes it, so that uses of the previous
** value (swept later, since they were recorded earlier) start from zero.
** This is exact as long as no recorded node reads the variable's values in
** its reverse step.  A slot is marked `shared` when a view of its storage
** goes to a kernel; the next write then first moves the variable to fresh
** storage ("copy on write"), leaving the old values intact for the nodes
** that read them.  A scalar read (a real variable, or one element) is no
** view: its value is copied (li_scalar_read), so element-by-element loops
** never copy the container.
*/
#ifndef LI_INT_H
#define LI_INT_H

#include <stdatomic.h>
#include "li.h"
#include "li_mpi.h"
#include "../par/pp.h"
#include "../prof/pf.h"

typedef struct li_slot {
  tm_v v;                   /* the value; storage owned by the slot */
  unsigned char set;        /* 1: declared (storage allocated); 2: in the context's
                               frame, the shape of a variable declared later */
  unsigned char shared;     /* a view of the storage was handed to a kernel */
} li_slot;

/* Evaluation of one block, function body or expression. */
typedef struct li_run {
  const li_ctx *ctx;
  const ln_program *p;
  int ad;                   /* recording on the tape */
  int blk;                  /* LN_BLK_* being evaluated */
  li_slot *globals;
  li_slot *locals;          /* frame of the current block or function call */
  int fn_ad;                /* inside a function whose arguments include autodiff values */
  int fn_dep;               /* inside a function whose arguments include parameter-dependent values */
  int depth;                /* user function call depth */
  int jacobian;
  int fn_propto;            /* _lupdf calls drop constants here (not inside an _lpdf called as such) */             /* add the log Jacobians (jacobian += too) */
  /* target: terms in order, summed at the end (tm_v reals) */
  tm_v *terms;
  size_t nterms, capterms;
  tm_rng *rng;
  li_print *print;
  /* control flow out of a statement */
  int flow;                 /* LI_FLOW_* */
  tm_v ret;                 /* return value */
  /* where the current statement is, for messages */
  int line, col;
  int located;              /* the failure message already names its line */
  int parallel;             /* a participant of a parallel region: print under a lock */
  const char *prof_active;  /* the profile block running (copied by li_run_fork: a helper's parent) */
  pf_registry *prof;        /* where profile blocks record (pf_current() of the thread that
                               started the evaluation; participants of its regions keep it) */
  const li_tracer *tr;      /* a traced evaluation (recording a plan): NULL otherwise */
  const li_fn_engine *hof_eng;   /* a plan's replay of a solver: how its user function runs */
  struct li_hof_rep *hof_rep;    /* a traced solver call: where its core notes f's arguments */
} li_run;

/* ---- tracing (li.h): emitted where values on the tape are made or read ---- */
static inline size_t li_chain_len(void) { return ad_active->nchain; }
static inline void li_emit(const li_run *r, li_event *ev) { r->tr->event(r->tr->ud, ev); }
/* An event with one input and one output. */
void li_emit1(const li_run *r, int kind, const tm_v *in, const tm_v *out, size_t chain0);
void li_emit_unsupported(const li_run *r, const char *why);
/* li_alloc that tells the tracer (ad storage only). */
int li_alloc_r(li_run *r, tm_v *out, const tm_v *shape, int ad);

enum { LI_FLOW_NONE = 0, LI_FLOW_BREAK, LI_FLOW_CONTINUE, LI_FLOW_RETURN };

struct li_ctx {
  const ln_program *p;
  ad_stack *store;          /* arena of data and transformed data values */
  li_slot *globals;         /* data and transformed data set; shapes of the others */
  li_var *vars;             /* parameters, transformed parameters, generated quantities */
  int nvars;
  size_t nupars;
  /* library functions the interpreter calls itself, found once */
  const tm_fn *fn_sum, *fn_minus, *fn_log_diff_exp;
  const tm_fn *fn_add, *fn_subtract, *fn_multiply, *fn_divide;
  /* the layer above's cache (li_ctx_attach): the one field written after
  ** binding, once, atomically */
  _Atomic(void *) attachment;
  void (*release)(void *);
  /* map_rect over MPI (li_mpi.c): on rank 0 what each call site sent, on a
  ** worker the data it received; written under pp_mpi_lock on rank 0, on
  ** the main thread on a worker */
  void *mpi;
};

/* ---- li_value.c: storage, promotion, copying ---- */
/* Storage for a value of `shape` (base, narr, dim, rows, cols) with adjoints
** when ad; reals start as NaN and ints as INT_MIN, as Stan's. */
int li_alloc(tm_v *out, const tm_v *shape, int ad);
/* v as the type t (int -> real promotion of scalars and arrays); a view
** when no conversion is needed. */
int li_promote(li_run *r, const tm_v *v, ln_type t, tm_v *out);
/* v (int, real, or a real vector, row vector or matrix, or arrays of them)
** as the complex type of its shape (li_complex.c) */
int li_promote_complex(li_run *r, const tm_v *v, tm_v *out);
/* A complex literal's elements (already complex, m elements each) packed into out. */
int li_pack_complex(li_run *r, const tm_v *el, int n, size_t m, int matrix, int ad, tm_v *out);
/* A fresh copy (new storage, and on the tape one node passing adjoints back). */
int li_copy(li_run *r, const tm_v *v, tm_v *out);
/* Gather: out (shape set, storage allocated here) takes n elements of src
** at offs[k] (offsets into src's flat storage).  One node on the tape. */
int li_gather(li_run *r, const tm_v *src, const size_t *offs, size_t n, tm_v *out);
/* Writes n values of src (contiguous, same base) into slot storage at offs
** (NULL: 0..n-1), with the adjoint hand-over on the tape. */
int li_store(li_run *r, li_slot *s, const size_t *offs, const tm_v *src, size_t n);
/* One node: *sadj[k] += oadj[k] for k < n (sadj[k] NULL: skipped). */
int li_record_pack(size_t n, const double *oadj, double **sadj);
/* A real element of a variable with adjoints, read on the tape: its value
** copied to the arena, its adjoint the variable's own.  A later write of the
** element (in place, see above) cannot change what a node recorded now
** reads backwards, whatever the kernel keeps, so no copy on write is needed
** for scalars; the adjoint hand-over of the store keeps the sums exact. */
int li_scalar_read(double *val, double *adj, tm_v *out);
/* Before writing: copy on write when the slot is shared. */
int li_unshare(li_run *r, li_slot *s);
/* Add a target term. */
int li_add_term(li_run *r, const tm_v *t);
/* Sum of the terms (a real, autodiff on the tape). */
int li_sum_terms(li_run *r, tm_v *out);
/* Mark a value as parameter-dependent for propto on doubles. */
static inline int li_nonconst(const tm_v *v) { return v->adj != NULL || v->dep; }

/* ---- li_expr.c ---- */
int li_eval(li_run *r, const ln_expr *e, tm_v *out);
int li_eval_int(li_run *r, const ln_expr *e, int *out);
/* Call a library function on evaluated arguments (sets dep on doubles). */
int li_invoke(li_run *r, const tm_fn *fn, int propto, const tm_v *args, int nargs, tm_v *out);
/* ---- li_jacobian.c ---- */
/* An X_jacobian library call while the log Jacobian is accumulated: the
** value, and the log Jacobian added to the target. */
int li_call_jacobian(li_run *r, const tm_fn *fn, const tm_v *args, int nargs, tm_v *out);
/* a + b, a - b, a * b, a / b on real scalars without the generic kernel
** (the same IEEE operation and node); -1 when fn or the operands are not that. */
int li_arith(li_run *r, const tm_fn *fn, const tm_v *a, const tm_v *b, tm_v *out);

/* ---- li_index.c ---- */
int li_index_rvalue(li_run *r, const ln_expr *e, tm_v *out);
/* lhs (LE_VAR or LE_INDEX) = v */
int li_assign(li_run *r, const ln_expr *lhs, const tm_v *v);
li_slot *li_slot_of(li_run *r, const ln_expr *var);

/* ---- li_stmt.c ---- */
int li_exec(li_run *r, const ln_stmt *s);
int li_exec_block_body(li_run *r, const ln_stmt *blk);
/* Shape of a declaration from its size expressions (evaluated). */
int li_decl_shape(li_run *r, const ln_decl *d, tm_v *shape);
/* Allocate and initialise a declared variable in its slot. */
int li_declare(li_run *r, const ln_decl *d, const tm_v *shape);
/* Check a transformed parameter / transformed data / GQ value against its
** declared constraint. */
int li_check_constraint(li_run *r, const ln_decl *d, const tm_v *v);
/* Evaluate the bound parameters of a declaration's transform into params[]
** (lower, upper / offset, multiplier); *np their number. */
int li_transform_params(li_run *r, const ln_decl *d, tm_v *params, int *np);

/* ---- li_call.c ---- */
int li_call_user(li_run *r, const ln_func *f, const tm_v *args, int nargs, int propto, tm_v *out);
int li_call_builtin(li_run *r, const ln_expr *e, tm_v *out);
int li_eval_args(li_run *r, ln_expr *const *a, int n, tm_v *out);

/* ---- the higher-order builtins: li_reduce.c, li_maprect.c, li_pmap.c ---- */
int li_reduce_sum(li_run *r, const ln_expr *e, tm_v *out);
int li_map_rect(li_run *r, const ln_expr *e, tm_v *out);
/* ---- li_nested.c: a user function called many times by a solver ---- */
#define LI_NESTED_MAXARGS 64
/* f(args): args as values (adjoints ignored); args[yi] the unknowns (-1:
** none), args[k] with ad[k] the inputs with derivatives (ad NULL: none); f
** must give n values, else "<name>: <what> returned m values, but <against>
** has n". */
typedef struct li_nested_fn li_nested_fn;
struct li_nested_fn {
  li_run *r;
  const ln_func *f;
  tm_v *args;
  int nargs, yi, n;
  const int *ad;
  const char *name, *what, *against;
  const li_fn_engine *eng;  /* NULL: the tree evaluates f */
};
/* f's n values into out; records nothing. */
int li_nested_values(const li_nested_fn *c, double *out);
/* f recorded on the scoped stack st (recovered after): its values into out,
** J_y (n x size of args[yi]) and J_p (n x the ad inputs' values, in order)
** column-major, either NULL when not wanted; one sweep per output. */
int li_nested_jacobian(const li_nested_fn *c, ad_stack *st, double *out, double *Jy, double *Jp);
/* Pointers to the adjoints of x[k] for every k with ad[k], in order, into
** in (NULL: only count them); returns how many. */
size_t li_collect_adjoints(const tm_v *x, const int *ad, int nx, double **in);
/* One node on the active tape for n outputs with adjoints adj: *in[m] +=
** adj[o] G[o * M + m] (G row-major, n x M, kept by the caller's tape). */
int li_rows_node(size_t n, int M, const double *adj, const double *G, double **in);
/* Stan's check that every value of v is finite (AD_EDOMAIN naming fn, what
** and the element). */
int li_check_finite(li_run *r, const char *fn, const char *what, const tm_v *v);
/* The ODE and DAE solvers' output times: ts's values into *tsv (arena),
** checked sorted and after t0 (*t0v), with Stan's messages. */
int li_check_times(li_run *r, const char *fn, const tm_v *t0, const tm_v *ts, double *t0v, double **tsv);
/* Stan's checks of an ODE or DAE solver's relative and absolute tolerances
** (positive and finite) and max_num_steps (positive). */
int li_check_controls(li_run *r, const char *fn, double rtol, double atol, long steps);
/* A solver's user function's arguments after its own first `lead` ones
** (the caller's): the builtin's other arguments x, ad[lead + k] saying
** whether x[k] has derivatives on this evaluation; returns how many values
** those have (the columns of f's J_p). */
int li_nested_inputs(const li_run *r, tm_v *args, int *ad, int lead, tm_v *x, int nx);
/* 1 for the _tol forms of the solvers (their name ends in _tol). */
int li_is_tol_form(const char *name);
/* A solver's max_num_steps argument v: an int, or in Stan's older forms
** (old) a real, which C++ truncates to an integer (0 when out of range, so
** the caller's positivity check refuses it). */
long li_max_steps_arg(const tm_v *v, int old);
/* The view v as an array of narr (1 or 2) dimensions, d0 (by d1) long. */
tm_v li_array_view(tm_v v, int narr, int d0, int d1);

/* The calls of a user function by a solver: e's arguments after the
** function evaluated into a (e->nargs - 1 of them), then core, then (when
** traced) an LI_EV_HOF event; li_hof_apply runs core again at replay. */
typedef int (*li_hof_core)(li_run *r, const ln_expr *e, tm_v *a, tm_v *out);
/* f's arguments at a point of the solve, for a plan of f (LI_EV_HOF) */
typedef struct li_hof_rep {
  const ln_func *f;
  tm_v *args;
  int nargs;
  unsigned char *input;     /* 1: changes from call to call (args [0, nmoving)) or autodiff */
} li_hof_rep;
/* The core's note of f's arguments at their current values (when traced):
** the first nmoving change from call to call. */
void li_hof_note(li_run *r, const struct li_nested_fn *fn, int nmoving);
int li_hof_run(li_run *r, const ln_expr *e, tm_v *out, li_hof_core core);
/* ode_* and integrate_ode_* (li_ode.c) */
int li_ode(li_run *r, const ln_expr *e, tm_v *out);
int li_ode_core(li_run *r, const ln_expr *e, tm_v *a, tm_v *out);
/* dae, dae_tol (li_dae.c) */
int li_dae(li_run *r, const ln_expr *e, tm_v *out);
int li_dae_core(li_run *r, const ln_expr *e, tm_v *a, tm_v *out);
/* solve_newton, solve_powell (and _tol), algebra_solver(_newton) (li_solve.c) */
int li_solve(li_run *r, const ln_expr *e, tm_v *out);
int li_solve_core(li_run *r, const ln_expr *e, tm_v *a, tm_v *out);
/* integrate_1d (li_integrate.c) */
int li_integrate_1d(li_run *r, const ln_expr *e, tm_v *out);
int li_integrate_core(li_run *r, const ln_expr *e, tm_v *a, tm_v *out);

/* ---- map_rect's jobs on this process's threads (li_maprect.c) ---- */
/* Jobs 0..J-1 into jobs[0..J-1]; their memory is on g's keep stacks until
** pp_region_release(g). */
int li_mr_local(li_run *caller, const ln_func *f, const tm_v *phi, const tm_v *theta, const tm_v *xr,
                const tm_v *xi, int J, size_t np, size_t nt, li_mr_job *jobs, pp_region *g);
/* Job j on run: f(phi, theta_j, x_r[j], x_i[j]) (x_r and x_i 2-d arrays, an
** empty row when they have no columns), its failure located. */
int li_mr_call(li_run *run, const ln_func *f, const tm_v *phi, const tm_v *theta_j, const tm_v *xr,
               const tm_v *xi, int j, tm_v *out);
int li_parallel_map(li_run *r, const ln_expr *e, tm_v *out);

/* ---- li_par.c: what they share ---- */
/* The run state of a participant of a parallel region: the caller's, with
** no local frame, no target terms, no generator, printing under a lock. */
void li_run_fork(const li_run *r, li_run *out);
/* On the active stack: v with fresh leaves for values (adjoints zero) when
** v has adjoints, so a participant records on its own tape only; v itself
** otherwise (data are read in place, never written). */
int li_leaf_copy(const tm_v *v, tm_v *out);
/* Elements [from, to) of the array v (narr >= 1), a view. */
tm_v li_slice(const tm_v *v, int from, int to);
/* Real (or int) values per element of the array v. */
size_t li_elem_numel(const tm_v *v);
/* The lock print statements of parallel participants take. */
void li_print_lock(void);
void li_print_unlock(void);

/* ---- li_error.c ---- */
/* Append the position of the current statement to the failure message
** (once), returning rc. */
int li_locate(li_run *r, int rc);
int li_fail_at(li_run *r, int code, const char *fmt, ...)
#ifdef __GNUC__
  __attribute__((format(AD_PRINTF_FMT, 3, 4)))
#endif
  ;
void li_printf(li_run *r, const char *fmt, ...)
#ifdef __GNUC__
  __attribute__((format(AD_PRINTF_FMT, 2, 3)))
#endif
  ;

/* ---- li_ctx.c ---- */
/* Run state of a fresh evaluation: a copy of the context's frame. */
int li_run_init(li_run *r, const li_ctx *c, int ad, tm_rng *rng, li_print *print);
/* A fresh local frame for block blk. */
int li_enter_block(li_run *r, int blk);
/* Check the constraints of the top-level declarations of block blk. */
int li_check_block_decls(li_run *r, int blk);
/* "array[3] vector[2]", "cov_matrix[4]": a declaration with its sizes. */
char *li_decl_text(const ln_decl *d, const tm_v *shape, char *buf, size_t size);

/* The condition e (int or real) is true: *t; a condition on an autodiff
** value is a decision a recording plan guards (LI_EV_TRUTH). */
int li_truth(li_run *r, const ln_expr *e, int *t);

#endif
