/*
** ln.h -- the Stan language: syntax tree, types, program, diagnostics.
**
** One program goes through four stages, each its own module:
**   lx_ (lexer) -> lp_ (parser: builds the tree below) -> lc_ (checker:
**   resolves every name to a slot and every call to one function, and types
**   every expression) -> li_ (interpreter: evaluates the checked tree on
**   doubles or on the autodiff tape).
** The tree is plain C structs in a pool owned by the program; after
** checking, nothing in it is written again, so many threads may evaluate one
** program at once.
**
** Fields marked "checker" are zero after parsing and filled by lc_check.
*/
#ifndef LN_H
#define LN_H

#include <stdarg.h>
#include <stddef.h>
#include "../math/tm.h"

/* ---- types ---- */
/* base: TM_INT .. TM_CMATRIX (tm.h), or one of these. */
enum {
  LN_VOID = 16,     /* result of a void function */
  LN_STRING,        /* string literal: print, reject, fatal_error, profile */
  LN_FUNCREF,       /* a function named as an argument (reduce_sum, map_rect...) */
  LN_ERRTYPE,       /* the checker's type of an expression it already reported */
  LN_TUPLE          /* parser only: tuple(...) (ln_decl.tuple); lowered by lt_tuple.c */
};

typedef struct ln_type {
  unsigned char base;      /* TM_INT .. TM_MATRIX or LN_VOID ... */
  unsigned char narr;      /* array dimensions; 0 when not an array */
  unsigned char data_only; /* function argument declared `data` */
} ln_type;

/* ---- operators ---- */
enum {
  LN_OP_NONE = 0,
  LN_OP_ADD, LN_OP_SUB, LN_OP_MUL, LN_OP_DIV, LN_OP_IDIV /* %/% */, LN_OP_MOD /* % */,
  LN_OP_LDIV /* \ */, LN_OP_ELTMUL /* .* */, LN_OP_ELTDIV /* ./ */,
  LN_OP_POW /* ^ */, LN_OP_ELTPOW /* .^ */,
  LN_OP_EQ, LN_OP_NE, LN_OP_LT, LN_OP_LE, LN_OP_GT, LN_OP_GE,
  LN_OP_AND, LN_OP_OR,
  LN_OP_NEG /* unary - */, LN_OP_NOT /* ! */, LN_OP_PLUS /* unary + */,
  LN_OP_TRANSPOSE /* postfix ' */
};
const char *ln_op_text(int op);   /* "+", ".*", "%/%" ... for messages */

/* ---- expressions ---- */
enum {
  LE_INT = 1,    /* ival */
  LE_REAL,       /* rval (text kept in name, for messages) */
  LE_STRING,     /* name: the string's text without quotes */
  LE_VAR,        /* name; checker: scope, slot, decl (or kind LE_FUNCREF) */
  LE_FUNCREF,    /* checker: an identifier naming a user function; ufn */
  LE_CALL,       /* name(args); bar = 1 when written f(y | theta) */
  LE_BINOP,      /* args[0] op args[1] */
  LE_UNOP,       /* op args[0]: NEG, NOT, PLUS, TRANSPOSE */
  LE_COND,       /* args[0] ? args[1] : args[2] */
  LE_INDEX,      /* args[0][idx[0], ..., idx[nidx-1]] */
  LE_ARRAY,      /* { args } */
  LE_ROWVEC,     /* [ args ]: a row vector, or a matrix when args are row vectors */
  LE_TARGET,     /* target() */
  LE_TUPLE,      /* ( args ): a tuple literal of two or more elements (lt_tuple.c lowers it) */
  LE_TPROJ       /* args[0].ival: a tuple's element (lt_tuple.c lowers it) */
};

/* index kinds */
enum {
  LI_SINGLE = 1, /* a: an int; the checker turns it into LI_MULTI when a is array[] int */
  LI_MULTI,      /* a: array[] int */
  LI_ALL,        /* : */
  LI_RANGE,      /* a:b */
  LI_FROM,       /* a: */
  LI_TO          /* :b */
};
typedef struct ln_expr ln_expr;
typedef struct ln_index {
  unsigned char kind;
  ln_expr *a, *b;
} ln_index;

/* scopes of variables */
enum { LN_SCOPE_GLOBAL = 1, LN_SCOPE_LOCAL };

/* builtins the interpreter implements itself (ln_expr.builtin, checker) */
enum {
  LN_BI_NONE = 0,
  LN_BI_CMP,           /* == != < <= > >= on int/real scalars -> int */
  LN_BI_LOGIC,         /* && || ! on int/real scalars -> int (short-circuit) */
  LN_BI_IDIV,          /* %/% on ints */
  LN_BI_REDUCE_SUM, LN_BI_REDUCE_SUM_STATIC, LN_BI_MAP_RECT, LN_BI_PARALLEL_MAP,
  LN_BI_INT_DIV_INT,   /* int / int: integer division as Stan does (with a warning) */
  LN_BI_ODE,           /* ode_rk45, ode_ckrk, ode_adams, ode_bdf and their _tol forms */
  LN_BI_ODE_OLD,       /* integrate_ode_rk45, _adams, _bdf */
  LN_BI_SOLVE,         /* solve_newton, solve_powell and their _tol forms */
  LN_BI_SOLVE_OLD,     /* algebra_solver, algebra_solver_newton */
  LN_BI_INTEGRATE,     /* integrate_1d */
  LN_BI_INTEGRATE_V,   /* integrate_1d_gauss_kronrod, integrate_1d_double_exponential (and _tol) */
  LN_BI_DAE            /* dae, dae_tol */
};

typedef struct ln_decl ln_decl;
typedef struct ln_func ln_func;

struct ln_expr {
  unsigned char kind;
  unsigned char op;          /* LE_BINOP, LE_UNOP: LN_OP_* */
  unsigned char bar;         /* LE_CALL written with '|' after the first argument */
  int line, col;             /* 1-based position of the expression's first character */
  const char *name;          /* identifier, function name, string text, real literal text */
  int ival;
  double rval;
  ln_expr **args;
  int nargs;
  ln_index *idx;
  int nidx;
  /* checker */
  ln_type type;
  unsigned char dep;         /* autodiff-typed: may depend on parameters (Stan's var) */
  unsigned char propto;      /* LE_CALL of an _lupdf/_lupmf: drop constants */
  unsigned char scope;       /* LE_VAR: LN_SCOPE_* */
  int slot;                  /* LE_VAR: index in the global or local frame */
  int builtin;               /* LN_BI_* */
  const tm_fn *fn;           /* library function of a call or an operator */
  ln_func *ufn;              /* user function of a call or LE_FUNCREF */
  ln_decl *decl;             /* LE_VAR: the variable's declaration */
};

/* ---- declarations ---- */
struct ln_decl {
  const char *name;
  int line, col;
  ln_type type;              /* base and array dimensions of the declared value */
  /* The constraint as a tm_transform keyword (tm_transform.h): "lower",
  ** "upper", "lower_upper", "offset_multiplier", "simplex", "ordered",
  ** "positive_ordered", "unit_vector", "sum_to_zero_vector",
  ** "cholesky_factor_corr", "cholesky_factor_cov", "corr_matrix",
  ** "cov_matrix"; NULL when unconstrained. */
  const char *transform;
  ln_expr *lower, *upper, *offset, *multiplier;   /* NULL when absent */
  ln_expr *dims[TM_MAXARR];  /* array sizes, type.narr of them */
  /* Sizes of the value: vector[n], row_vector[n], simplex[n] and the
  ** other vector types: size1 = n.  matrix[r, c]: size1 = r, size2 = c.
  ** cov_matrix[K], corr_matrix[K], cholesky_factor_corr[K]: size1 = K,
  ** size2 = NULL.  cholesky_factor_cov[M] or [M, N]: size1 = M, size2 = N
  ** or NULL.  NULL for int and real, and for function arguments. */
  ln_expr *size1, *size2;
  ln_expr *init;             /* initial value, or NULL */
  unsigned char old_syntax;  /* written `real y[N]` (deprecated) */
  /* checker */
  int block;                 /* LN_BLK_* where declared; LN_BLK_FUNCTIONS for arguments and function locals */
  unsigned char scope;       /* LN_SCOPE_GLOBAL (top level of a program block) or LN_SCOPE_LOCAL */
  int slot;
  unsigned char dep;         /* holds autodiff values (parameters, transformed parameters, model locals of real type) */
  /* parser: the tuple type when the declared type is tuple(...) (type.base is
  ** then LN_TUPLE and type.narr the arrays around it); lt_tuple.c replaces the
  ** declaration by one per element before the checker runs */
  struct ln_tuple *tuple;
  /* lt_lower, on the declarations it makes of a tuple's elements: the array
  ** dimensions of each enclosing tuple level (outermost first), for output
  ** names such as a[1]:2[3]:1 */
  unsigned char tsplit[TM_MAXARR];
  unsigned char ntsplit;
};

/* A tuple type: its elements, each a declaration without a name (a sized one
** in variable declarations, an unsized one in function types); an element
** that is itself a tuple has its own `tuple`. */
typedef struct ln_tuple {
  ln_decl **elem;
  int n;
} ln_tuple;

/* ---- statements ---- */
enum {
  LS_DECL = 1,   /* decl */
  LS_ASSIGN,     /* lhs op= e; op is LN_OP_NONE for '=', else the compound operator */
  LS_TILDE,      /* e ~ name(args) [T[lo, hi]] */
  LS_TARGET,     /* target += e */
  LS_JACOBIAN,   /* jacobian += e (transformed parameters, Stan 2.36) */
  LS_FOR,        /* for (name in lo:hi) body[0] */
  LS_FOREACH,    /* for (name in e) body[0] */
  LS_WHILE,      /* while (e) body[0] */
  LS_IF,         /* if (e) body[0] else els */
  LS_BREAK, LS_CONTINUE,
  LS_RETURN,     /* return e; (e NULL in a void function) */
  LS_BLOCK,      /* { body } */
  LS_PRINT, LS_REJECT, LS_FATAL,   /* print(args); reject(args); fatal_error(args); */
  LS_PROFILE,    /* profile(name) { body } */
  LS_CALL,       /* e; a call of a void function as a statement */
  LS_EMPTY       /* ; */
};

typedef struct ln_stmt ln_stmt;
struct ln_stmt {
  unsigned char kind;
  unsigned char op;          /* LS_ASSIGN */
  unsigned char trunc;       /* LS_TILDE: T[...] present (lo and/or hi may still be NULL) */
  int line, col;
  const char *name;          /* loop variable, distribution (without suffix), profile name */
  ln_decl *decl;             /* LS_DECL; checker: the loop variable of LS_FOR/LS_FOREACH */
  ln_expr *lhs;              /* LS_ASSIGN target (LE_VAR or LE_INDEX of one) */
  ln_expr *e;                /* assigned value, ~ left side, target +=, condition, foreach container, return value, call */
  ln_expr *lo, *hi;          /* for range; truncation bounds */
  ln_expr **args;            /* ~ arguments after the left side; print/reject/fatal_error arguments */
  int nargs;
  ln_stmt **body;            /* LS_BLOCK, LS_PROFILE: statements; loops and if: body[0] */
  int nbody;
  ln_stmt *els;              /* LS_IF: else branch or NULL */
  /* checker */
  const tm_fn *fn;           /* ~: the _lpdf/_lpmf; compound assignment: the operator's function */
  ln_func *ufn;              /* ~ with a user-defined _lpdf/_lpmf */
  const tm_fn *cdf, *ccdf;   /* ~ with truncation: the _lcdf and _lccdf of the distribution */
  unsigned char discrete;    /* ~: the distribution is an _lpmf (truncation below at lo means P(y >= lo)) */
};

/* ---- functions ---- */
struct ln_func {
  const char *name;
  int line, col;
  ln_type ret;               /* base LN_VOID for void functions */
  ln_decl **params;          /* arguments: name, type (with data_only), line, col */
  int nparams;
  ln_stmt *body;             /* NULL for a forward declaration */
  /* checker */
  ln_func *def;              /* a forward declaration's definition (itself for a definition) */
  unsigned char density;     /* named *_lpdf or *_lpmf: its _lupdf calls follow the caller's propto */
  int nslots;                /* frame size: arguments (slots 0..nparams-1) and locals */
  struct ln_tuple *ret_tuple; /* parser: the result type when it is a tuple (ret.base LN_TUPLE) */
};

/* ---- program ---- */
enum {
  LN_BLK_FUNCTIONS = 0, LN_BLK_DATA, LN_BLK_TDATA, LN_BLK_PARAMS, LN_BLK_TPARAMS,
  LN_BLK_MODEL, LN_BLK_GQ, LN_NBLOCKS
};
const char *ln_block_name(int blk);   /* "data", "transformed data", ... */

typedef struct ln_pool ln_pool;       /* the program's node memory (ln_ast.c) */

/* Where each line of a program expanded by #include came from (ln_include.c). */
typedef struct ln_srcmap {
  char **files;              /* files[0] is the program's own name */
  int nfiles;
  int *file, *line;          /* per line of the expanded text: index into files, line there */
  int nlines;                /* 0: no #include, every line is its own */
} ln_srcmap;

typedef struct ln_program {
  char *filename;            /* for messages: the file's name, or "string" for code */
  char *source;              /* the program text, NUL-terminated (#include expanded) */
  size_t srclen;
  ln_srcmap map;             /* the files and lines the text came from */
  ln_func **funcs;           /* in program order, forward declarations included */
  int nfuncs;
  /* Each program block as an LS_BLOCK, or NULL when absent.  Top-level
  ** declarations of data, transformed data, parameters, transformed
  ** parameters and generated quantities come first in their block's body. */
  ln_stmt *block[LN_NBLOCKS];
  char *warnings;            /* deprecations etc., one per line, or NULL */
  ln_pool *pool;
  /* checker */
  ln_decl **globals;         /* the top-level declarations of all blocks, by slot */
  int nglobals;
  int nlocals[LN_NBLOCKS];   /* local frame size of each block (nested declarations, loop variables) */
  struct ln_tuple_var *tuples;   /* lt_lower: the top-level tuple variables */
  int ntuples;
  unsigned char has_tuples;      /* parser: tuple syntax or a call of a tuple-valued library function */
  unsigned char uses_complex; /* a complex expression or variable in functions, transformed
                                 parameters or the model (plans refuse the program) */
} ln_program;

/* ---- diagnostics ---- */
/* Writes a message for a problem at (line, col) of the program into buf:
**   model.stan:12:20: <kind>: <message>
**      12 |   y ~ normal(mu, sigmaa);
**         |                  ^
** kind is "syntax error", "error", "warning"...  Returns buf. */
char *ln_diag(const ln_program *p, int line, int col, const char *kind,
              char *buf, size_t size, const char *fmt, ...)
#ifdef __GNUC__
  __attribute__((format(AD_PRINTF_FMT, 7, 8)))
#endif
  ;
/* ln_diag with the message's arguments as a va_list. */
char *ln_vdiag(const ln_program *p, int line, int col, const char *kind,
               char *buf, size_t size, const char *fmt, va_list ap);
/* An "error" diagnostic into err, its position at least 1:1. */
void ln_verror(const ln_program *p, int line, int col, char *err, size_t errsize,
               const char *fmt, va_list ap);
/* Appends one line to p->warnings. */
void ln_warn(ln_program *p, int line, int col, const char *fmt, ...)
#ifdef __GNUC__
  __attribute__((format(AD_PRINTF_FMT, 4, 5)))
#endif
  ;

/* ---- the stages ---- */
/* Parse src (len bytes; need not be NUL-terminated).  NULL on failure with
** the message (ln_diag format) in err. */
ln_program *ln_parse(const char *filename, const char *src, size_t len, char *err, size_t errsize);
/* ln_parse, with #include directives resolved in the folders paths[0..npaths-1]
** (in order; an absolute name as it is).  A message about an included line
** names that file and line. */
ln_program *ln_parse_include(const char *filename, const char *src, size_t len,
                             const char *const *paths, int npaths, char *err, size_t errsize);
/* ---- #include (ln_include.c) ---- */
/* 1 when the text holds "#include" anywhere (a quick test before expanding). */
int ln_has_include(const char *src, size_t len);
/* The text with every directive replaced by its file; 0, 1 with a message
** in err, -1 out of memory.  *out (malloc'd) and map belong to the caller. */
int ln_include_expand(const char *filename, const char *src, size_t len,
                      const char *const *paths, int npaths, ln_srcmap *map,
                      char **out, size_t *outlen, char *err, size_t errsize);
void ln_srcmap_free(ln_srcmap *m);
/* The file and line (in *fline) that line `line` of the program text came from. */
const char *ln_where(const ln_program *p, int line, int *fline);
/* Lowers tuples (lt_tuple.c): every tuple variable becomes one variable per
** element named "x:1", "x:2" (nested: "x:2:1"), tuple literals, element
** access, tuple assignment, tuple arguments and results of user functions
** become their elements'.  Called by ln_check first; AD_OK or AD_EINVALID. */
int lt_lower(ln_program *p, char *err, size_t errsize);
/* The program's top-level tuple variables (after lt_lower): name, block and
** shape, a string such as "1(0,0(1,0))": the tuple's array dimensions, then
** its elements in parentheses, each a leaf's array dimensions or a tuple. */
typedef struct ln_tuple_var { const char *name; int block; const char *shape; } ln_tuple_var;
const ln_tuple_var *lt_tuple_vars(const ln_program *p, int *n);
/* Check a parsed program in place; AD_OK, or AD_EINVALID with the message of
** the first error in err. */
int ln_check(ln_program *p, char *err, size_t errsize);
void ln_program_free(ln_program *p);

/* Node allocation from the program's pool (zeroed); NULL when out of memory. */
void *ln_alloc(ln_program *p, size_t n);
/* Room for element n of *arr (a T **), an array of *cap elements of elem
** bytes in p's pool: when n reaches *cap, a copy twice as long (`first`
** when empty) in the pool (the old one stays there until the program is
** freed).  AD_OK, or AD_EMEMORY with the array as it was. */
int ln_grow(ln_program *p, void *arr, int n, int *cap, size_t elem, int first);
char *ln_strdup(ln_program *p, const char *s, size_t n);

/* The tree as an S-expression (malloc'd), for tests and debugging. */
char *ln_dump(const ln_program *p);
/* Text that grows, for the dumps (ln_dump, lc_dump): s (malloc'd) is
** NUL-terminated once anything was added; oom is set, and the rest
** dropped, when memory runs out.  ln_text_printf cuts each piece it formats
** at piece - 1 bytes (at most 511): 256 for ln_dump, 512 for lc_dump. */
typedef struct ln_text { char *s; size_t n, cap, piece; int oom; } ln_text;
void ln_text_put(ln_text *b, const char *s, size_t n);
void ln_text_puts(ln_text *b, const char *s);
void ln_text_printf(ln_text *b, const char *fmt, ...)
#ifdef __GNUC__
  __attribute__((format(AD_PRINTF_FMT, 2, 3)))
#endif
  ;
char *ln_type_text(ln_type t, char *buf, size_t size);  /* "array[,] vector", "real" */
/* Stan's name of a base type ("row_vector", "void", "function"), or NULL for
** LN_ERRTYPE and unknown bases, which each caller words its own way. */
const char *ln_base_name(int base);

#endif
