/*
** lc.h -- the checker's internals, shared by src/front/lc_*.c.
**
** The checker walks the parsed tree once, in program order, with one
** context (lc_ctx).  It stops at the first error, as stanc does: every
** function returns AD_OK or AD_EINVALID, and the message of the error is
** already in ctx->err when AD_EINVALID comes back.  Nothing here keeps
** global mutable state except the parsed library signatures, which are
** built once (pthread_once) and only read afterwards.
*/
#ifndef LC_H
#define LC_H

#include "ln.h"

/* Deepest nesting of expressions and statements walked.  The parser bounds
** nesting too; this keeps the checker's own stack bounded whatever the
** tree.  Frames of the recursive functions are small (no buffers). */
#define LC_MAXDEPTH 2500

/* ---- library signatures (lc_sig.c) ---- */
/* One argument or result of a library signature: a concrete type or one of
** the families of tm.h. */
enum { LC_P_TYPE = 0, LC_P_REALS, LC_P_INTS, LC_P_VECTORS, LC_P_T, LC_P_R,
       /* complex families (tm_complex.c): Z any complex type (int, real and
       ** real containers promote), all Zs of a signature one shape; Zm the
       ** same without arrays; results: Z that shape, ZR its real counterpart,
       ** ZT the complex counterpart of the T shape */
       LC_P_Z, LC_P_ZM, LC_P_ZR, LC_P_ZT,
       LC_P_ZX /* Zx: as Z, but only complex types (no promotion) */ };
typedef struct lc_ptype {
  unsigned char kind;      /* LC_P_* */
  unsigned char base;      /* LC_P_TYPE: TM_INT .. TM_MATRIX */
  unsigned char narr;
} lc_ptype;

#define LC_MAXSIGARGS 12
typedef struct lc_sig {
  const tm_fn *fn;         /* the table entry whose sig string holds it */
  lc_ptype ret;
  int nargs;
  lc_ptype args[LC_MAXSIGARGS];
} lc_sig;

/* The parsed signatures of every library entry named `name` (entries of one
** name are adjacent); NULL with *n = 0 when the library has no such name.
** Signatures that do not parse are left out. */
const lc_sig *lc_lib_sigs(const char *name, int *n);
/* Stan's library function names, sorted (lc_stan_names.c, written by
** tools/signatures.R), and whether name is one of them: a call of a Stan
** function tapestry lacks is then "not supported by tapestry yet". */
extern const char *const lc_stan_names[];
extern const int lc_n_stan_names;
int lc_is_stan_name(const char *name);
/* The signatures are parsed (0 only when memory ran out). */
int lc_lib_ready(void);
/* Cost of calling s with arguments of these types: 0 for exact, +1 per
** int -> real promotion; -1 when it does not match.  *ret: the result. */
int lc_sig_match(const lc_sig *s, const ln_type *args, int nargs, ln_type *ret);
/* Best library signature for name and argument types (lowest cost, first
** on ties); NULL when none matches or the name is unknown. */
const lc_sig *lc_lib_resolve(const char *name, const ln_type *args, int nargs, ln_type *ret);
/* Cost of passing a value of type a where a parameter of type p is
** expected (user functions, assignments): 0 same, 1 int -> real, -1 no. */
int lc_assign_cost(ln_type p, ln_type a);

/* Stan's name of a type, "array[,] real", "void", "function"... */
char *lc_type_name(ln_type t, char *buf, size_t size);
/* "(vector, real, array[] int)" */
char *lc_types_text(const ln_type *t, int n, char *buf, size_t size);
/* Appends "  real normal_lpdf(reals, reals, reals)\n"-style lines for the
** library signatures of name and the user functions named uname (either
** may be NULL), at most max lines, to buf (of size). */
void lc_list_sigs(const ln_program *p, const char *lname, const char *uname,
                  int max, char *buf, size_t size);
/* The same; complex signatures are listed only when show_complex (a call
** with a complex argument) or when the name has no other signatures. */
void lc_list_sigs_z(const ln_program *p, const char *lname, const char *uname,
                    int max, int show_complex, char *buf, size_t size);
/* Append formatted text to a NUL-terminated buffer, truncating. */
void lc_cat(char *buf, size_t size, const char *fmt, ...)
#ifdef __GNUC__
  __attribute__((format(AD_PRINTF_FMT, 3, 4)))
#endif
  ;

/* ---- scopes (lc_scope.c) ---- */
/* Why a visible variable cannot be assigned */
enum { LC_RO_NONE = 0, LC_RO_LOOP, LC_RO_ARG };

typedef struct lc_sym {
  const char *name;
  ln_decl *decl;
  unsigned hash;
  int next;                /* older symbol of the same bucket, or -1 */
  unsigned char ro;        /* LC_RO_* */
} lc_sym;

#define LC_NBUCKETS 512
typedef struct lc_scope {
  lc_sym *syms;            /* visible symbols, innermost last */
  int nsyms, cap;
  int bucket[LC_NBUCKETS];
  ln_func **funcs;         /* the program's function definitions and declarations, by name */
  int nfuncs;
} lc_scope;

/* Function kinds by name suffix: what the body may do */
enum { LC_FK_PLAIN = 0, LC_FK_RNG, LC_FK_LP, LC_FK_LPDF, LC_FK_JACOBIAN };

typedef struct lc_ctx {
  ln_program *p;
  char *err;
  size_t errsize;
  int blk;                 /* LN_BLK_* being checked */
  ln_func *fn;             /* function whose body is checked, or NULL */
  int fkind;               /* LC_FK_* of fn */
  int loop_depth;
  int depth;               /* recursion depth of the walk */
  int toplevel_size;       /* checking the sizes of a top-level declaration */
  int funcref_ok;          /* an identifier may name a user function here */
  int nslots;              /* next local slot of the current frame */
  int line, col;           /* the statement being checked, for nodes without a position */
  /* nodes warned about lately: `real a, b` share their size expressions,
  ** which are checked once per name but should warn once */
  const ln_expr *warned[16];
  int nwarned;
  lc_scope sc;
} lc_ctx;

int  lc_scope_init(lc_ctx *c);
void lc_scope_free(lc_ctx *c);
int  lc_scope_mark(lc_ctx *c);                 /* open a scope: returns the mark */
void lc_scope_pop(lc_ctx *c, int mark);        /* close the scope opened at mark */
/* Declare a variable in the innermost scope; AD_EINVALID (reported) when
** the name is already a visible variable. */
int  lc_declare(lc_ctx *c, ln_decl *d, int ro);
const lc_sym *lc_lookup(const lc_ctx *c, const char *name);
/* The program's functions named name: *n of them from the returned
** position, in program order. */
ln_func **lc_funcs(const lc_ctx *c, const char *name, int *n);
/* Closest visible variable name to name (for "did you mean"), or NULL. */
const char *lc_suggest(const lc_ctx *c, const char *name);

/* ---- reporting (lc_check.c) ---- */
int lc_error(lc_ctx *c, int line, int col, const char *fmt, ...)
#ifdef __GNUC__
  __attribute__((format(AD_PRINTF_FMT, 4, 5)))
#endif
  ;
int lc_ends_with(const char *s, const char *suffix);
int lc_is_numeric(ln_type t);                 /* int .. complex_matrix, any narr */
int lc_is_complex(ln_type t);                 /* complex .. complex_matrix, any narr */
/* Code that may run on the tape: functions, transformed parameters, model
** (complex values there make plans refuse the program: ln_program.uses_complex). */
#define lc_on_tape(c) ((c)->fn || (c)->blk == LN_BLK_TPARAMS || (c)->blk == LN_BLK_MODEL)
int lc_is_scalar(ln_type t);                  /* int or real, not an array */
int lc_real_based(ln_type t);                 /* numeric and not int-based */
ln_type lc_mk(int base, int narr);

/* ---- expressions (lc_expr.c) ---- */
int lc_expr(lc_ctx *c, ln_expr *e);
/* "(vector, real, array[] int)" for checked argument expressions */
char *lc_args_text(ln_expr **args, int n, char *buf, size_t size);

/* ---- calls and operators (lc_call.c, lc_hof.c) ---- */
/* LE_CALL; as_stmt: a statement, whose function must return void. */
int lc_call(lc_ctx *c, ln_expr *e, int as_stmt);
/* LE_BINOP and LE_UNOP whose operands are checked. */
int lc_operator(lc_ctx *c, ln_expr *e);
/* The function of a compound assignment lhs op= rhs; AD_OK with *fn and
** *ret set, or a reported error. */
int lc_compound_fn(lc_ctx *c, int line, int col, int op, ln_type lhs, ln_expr *rhs,
                   const tm_fn **fn, ln_type *ret);
/* Best user definition named name for checked arguments (lowest promotion
** cost, data-only arguments respected); NULL when none matches.  *data_bad:
** 1 + the index of a parameter-dependent argument passed to a data-only
** parameter of the best candidate that fails only because of that. */
ln_func *lc_user_resolve(lc_ctx *c, const char *name, ln_expr **args, int nargs,
                         ln_type *ret, int *data_bad);
const lc_sig *lc_lib_resolve_args(const char *name, ln_expr **args, int nargs, ln_type *ret);
/* lc_glm.c: dist (bernoulli_logit, poisson_log, normal) of checked
** arguments args (the outcome first) whose location is alpha + X * beta:
** 1 with *out the GLM's arguments (y, X, alpha, beta[, sigma]) and *fn the
** GLM; 0 when it does not apply. */
int lc_glm_fuse(lc_ctx *c, const char *dist, ln_expr **args, int nargs, ln_expr ***out, int *nout,
                const tm_fn **fn);
/* Context rules of a function name's suffix (_rng, _lp, _jacobian). */
int lc_suffix_rules(lc_ctx *c, const char *name, int line, int col);
/* The higher-order builtin a name denotes (LN_BI_REDUCE_SUM ...), or 0. */
int lc_hof_kind(const char *name);
int lc_hof(lc_ctx *c, ln_expr *e, int which);
/* Check e and require an int (what names it in the message). */
int lc_int_expr(lc_ctx *c, ln_expr *e, const char *what);
/* Check e and require an int or real scalar. */
int lc_scalar_expr(lc_ctx *c, ln_expr *e, const char *what);

/* ---- statements (lc_stmt.c) ---- */
int lc_stmt(lc_ctx *c, ln_stmt *s);
int lc_decl(lc_ctx *c, ln_stmt *s, int global);
/* Does every path through s end in return, reject or fatal_error? */
enum { LC_RT_INCOMPLETE = 0, LC_RT_COMPLETE, LC_RT_NONLOCAL };
int lc_returns(const ln_stmt *s, int depth);

/* ---- what the checker decided, as text (lc_dump.c; tests) ---- */
/* malloc'd; NULL when out of memory.  Format in lc_dump.c. */
char *lc_dump(const ln_program *p);

/* name with its _lupdf/_lupmf suffix made _lpdf/_lpmf, in the program's pool (NULL: out of memory) */
const char *lc_normalized(lc_ctx *c, const char *name);
/* name without its last `drop` characters, then sfx, in the program's pool
** (NULL when out of memory): foo with _lpdf, normal_log as normal_lpdf */
const char *lc_resuffixed(lc_ctx *c, const char *name, size_t drop, const char *sfx);

#endif
