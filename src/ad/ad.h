/*
** ad.h -- reverse-mode automatic differentiation tape.
**
** A value with a derivative is a view of a value and its adjoint: ad_var for a
** scalar, a (val, adj) pair of arrays for vectors and matrices.  Nodes live in
** the arena of the stack that was active when they were recorded; the chain
** stack lists the nodes with reverse work in recording order, the no-chain
** stack the leaves.  One gradient is one sweep of the chain stack backwards.
**
** Nothing here calls R; everything here may run on any thread.  The active
** stack is thread-local, so each thread records on its own tape.
*/
#ifndef AD_H
#define AD_H

#include <stddef.h>
#include <stdint.h>
#include <stdatomic.h>
#include <pthread.h>

/* ---- status codes: C has no exceptions, failures travel as these ---- */
enum {
  AD_OK = 0,
  AD_EDOMAIN,     /* argument outside the function's domain: reject the proposal */
  AD_EINVALID,    /* sizes or types that do not fit: an error in the program */
  AD_EFATAL,      /* fatal_error(), or an error that must stop the run */
  AD_EMEMORY,     /* out of memory */
  AD_EREENTER,    /* a scoped stack entered while it is executing */
  AD_EINTERRUPT   /* the user interrupted (Ctrl-C): the evaluation stopped where it looked */
};

/* The message of the last failure on this thread.  ad_fail() formats it and
** returns code, so `return ad_fail(AD_EDOMAIN, "...")` is the idiom. */
/* MinGW checks printf formats as Microsoft's runtime reads them unless
** __USE_MINGW_ANSI_STDIO (set by src/Makevars.win) selects its C99 printf,
** which vsnprintf then is; __MINGW_PRINTF_FORMAT names whichever is in use. */
#if defined(__MINGW32__)
#include <stdio.h>
#define AD_PRINTF_FMT __MINGW_PRINTF_FORMAT
#else
#define AD_PRINTF_FMT printf
#endif
#if defined(__GNUC__)
#define AD_PRINTF(f, a) __attribute__((format(AD_PRINTF_FMT, f, a)))
#else
#define AD_PRINTF(f, a)
#endif
int ad_fail(int code, const char *fmt, ...) AD_PRINTF(2, 3);
const char *ad_errmsg(void);
void ad_clear_error(void);

/* ---- interrupts (ad_interrupt.c) ----
** One flag for the process.  R's main thread sets it when the user presses
** Ctrl-C during sampling, and a signal handler that src/r installs only
** around an evaluation on the main thread sets it there; evaluations on any
** thread look at it at loop back-edges and calls (src/tree, src/plan) and
** stop with AD_EINTERRUPT, so even an endless loop ends.  A relaxed load of
** a lock-free atomic: nothing on the gradient path's fast lane, and safe to
** store from a signal handler. */
extern atomic_int ad_interrupt_flag;
static inline int ad_interrupted(void) {
  return atomic_load_explicit(&ad_interrupt_flag, memory_order_relaxed);
}
void ad_interrupt_set(void);      /* async-signal-safe */
void ad_interrupt_clear(void);

/* ---- nodes ---- */
typedef struct ad_node ad_node;
typedef void (*ad_chain_fn)(ad_node *self);
struct ad_node {
  ad_chain_fn chain;            /* reverse step; NULL for a leaf */
};

/* A scalar autodiff variable: a view of one value and its adjoint.  It may
** point into a scalar node or into an element of a vector node. */
typedef struct ad_var {
  double *val;
  double *adj;
} ad_var;

/* ---- arena: growing blocks, rewound (not freed) after each gradient ---- */
typedef struct ad_block ad_block;
typedef struct ad_arena {
  char *next, *end;             /* free space in the current block */
  ad_block **blocks;            /* [0, cur) full, cur current, (cur, n) free */
  int nblocks, capblocks, cur;
  size_t bytes;                 /* bytes held in blocks this arena owns */
  /* Blocks lent to another stack by append_to_parent come back here when
  ** that stack recovers; the borrower may live on another thread. */
  pthread_mutex_t lock;
  ad_block *returned;
} ad_arena;

int    ad_arena_init(ad_arena *a);
void   ad_arena_free(ad_arena *a);
void  *ad_arena_grow(ad_arena *a, size_t n);
void   ad_arena_recover(ad_arena *a);
int    ad_arena_give(ad_arena *from, ad_arena *to);
void   ad_arena_rewind(ad_arena *a, int cur, char *next, char *end);
int    ad_arena_ranges(const ad_arena *a, int cur, char *next, int ecur, char *enext, char **at, size_t *len);
size_t ad_arena_bytes(const ad_arena *a);
/* 1 when p lies in one of the arena's blocks (a plan asks whether data outlive an evaluation). */
int    ad_arena_contains(const ad_arena *a, const void *p);

/* ---- the memory budget (ad_mem.c) ----
** Arenas and the sampler's draws count their bytes here before asking the
** system, so a program that needs more than the limit fails with
** AD_EMEMORY and a message instead of being killed by the OS. */
int    ad_mem_take(size_t bytes, const char *what);   /* AD_OK, or AD_EMEMORY naming `what` */
void   ad_mem_give(size_t bytes);
size_t ad_mem_limit(void);                             /* default: half the physical memory */
void   ad_mem_set_limit(size_t bytes);
size_t ad_mem_used(void);
void   ad_mem_format(double bytes, char *buf, size_t size);   /* "1.5 GB" */
/* Room for element n of the malloc'd array *arr (a T **) of *cap elements
** of elem bytes: when n reaches *cap the array doubles (to `first` when
** empty).  AD_OK, or AD_EMEMORY with the array as it was.  Outside the
** budget: for the small tables (sites, scopes, names) of the layers above. */
int    ad_grow(void *arr, int n, int *cap, size_t elem, int first);
/* Keeps msg aside: the next ad_fail(AD_EMEMORY, "...out of memory") on this
** thread says msg instead of "out of memory" (ad_error.c). */
void   ad_fail_budget(const char *msg);

/* Allocations of at least AD_ARENA_WIDE bytes (data, vectors of values and
** adjoints) start on a 64-byte line: a 512-bit load that straddles two
** lines takes twice as long, and the kernels (src/math/linalg/tm_simd.c) stream
** such arrays.  Smaller ones are 16-byte aligned. */
#define AD_ARENA_WIDE 512
static inline void *ad_arena_alloc(ad_arena *a, size_t n) {
  n = (n + 15) & ~(size_t)15;
  size_t pad = n >= AD_ARENA_WIDE ? 48 : 0;   /* room to move a 16-aligned start to a 64-aligned one */
  char *p;
  if ((size_t)(a->end - a->next) < n + pad) {
    if (!(p = ad_arena_grow(a, n + pad))) return NULL;
  } else {
    p = a->next;
    a->next += n + pad;
  }
  return pad ? p + ((0u - (unsigned)(uintptr_t)p) & 63u) : p;
}

/* ---- stacks ---- */
typedef struct ad_stack ad_stack;
struct ad_stack {
  ad_arena arena;
  ad_node **chain;              /* nodes with reverse work, in recording order */
  size_t nchain, capchain;
  ad_node **nochain;            /* leaves */
  size_t nnochain, capnochain;
  ad_stack *parent;             /* scoped stacks: the stack active at creation */
  int executing;                /* scoped stacks: inside ad_scoped_execute */
};

/* The library's thread-locals use the initial-exec model: a load at a fixed
** offset from the thread pointer, where the default model of a shared
** object calls __tls_get_addr (ad_active's reads were 5% of a small model's
** sampling).  It takes the loader's static TLS space, so they must stay a
** few words in all (ad_error.c keeps its messages on the heap). */
#if defined(__ELF__) && defined(__GNUC__)
#define AD_HOT_TLS __attribute__((tls_model("initial-exec")))
#else
#define AD_HOT_TLS
#endif

/* The stack this thread records on.  Never NULL once ad_thread_init() ran. */
extern _Thread_local ad_stack *ad_active AD_HOT_TLS;

ad_stack *ad_stack_new(void);
void      ad_stack_free(ad_stack *s);
void      ad_stack_recover(ad_stack *s);       /* drop nodes, keep memory */
size_t    ad_stack_bytes(const ad_stack *s);   /* arena plus stack arrays */
int       ad_stack_push_chain(ad_stack *s, ad_node *n);
int       ad_stack_push_nochain(ad_stack *s, ad_node *n);
int       ad_thread_init(void);                /* give this thread a stack */
void      ad_thread_free(void);
/* A small number naming this thread for reports (the profiler's thread_id):
** 0 for the first thread to get a stack (R's main thread, at load), then
** 1, 2, ... in the order threads first get a stack or ask.  Kept for the
** thread's life, even across ad_thread_free / ad_thread_init. */
int       ad_thread_id(void);

/* Run the reverse sweep of stack s: every chain node, last recorded first.
** Seed the adjoints of the outputs first. */
void ad_sweep(ad_stack *s);
/* Seed *y.adj = 1 and sweep the active stack. */
void ad_grad(ad_var y);

/* ---- scoped stacks: independent tapes (nested autodiff, parallel work) ---- */
ad_stack *ad_scoped_new(void);                 /* parent = the active stack */
int       ad_scoped_execute(ad_stack *s, int (*fn)(void *), void *data);
int       ad_scoped_append_to_parent(ad_stack *s);

/* ---- marks: rewinding a tape to an earlier point ----
** Eager local gradients record a piece of work, sweep it, read the adjoints
** they need and drop the piece, keeping what was recorded before it (the
** copies of shared operands, whose adjoints accumulate across pieces). */
typedef struct ad_mark {
  int cur;                      /* arena position */
  char *next, *end;
  size_t nchain, nnochain;      /* stack lengths */
} ad_mark;
ad_mark ad_stack_mark(const ad_stack *s);
/* Drops the nodes recorded on s since m and makes their memory free again.
** Nothing recorded since m may be referenced afterwards. */
void    ad_stack_rewind(ad_stack *s, const ad_mark *m);

/* A copy of the arena bytes recorded on s since m (values and adjoints), so
** that a piece of tape can be swept several times: restore, seed, sweep.
** Right after a forward pass every adjoint on it is zero, so restoring the
** snapshot zeroes them again (a Jacobian, one row per sweep).  The copy
** lives on s itself, after the piece; AD_OK or AD_EMEMORY. */
typedef struct ad_snapshot ad_snapshot;
int  ad_stack_snapshot(ad_stack *s, const ad_mark *m, ad_snapshot **out);
void ad_stack_restore(const ad_snapshot *snap);

/* ---- allocation and recording on the active stack ---- */
static inline void *ad_alloc(size_t n) { return ad_arena_alloc(&ad_active->arena, n); }
double *ad_alloc_doubles(size_t n);            /* uninitialised */
double *ad_alloc_zeros(size_t n);
/* A node of `size` bytes whose first member is an ad_node, put on the chain
** stack with its reverse step.  NULL (and ad_fail set) when memory runs out. */
void   *ad_node_new(size_t size, ad_chain_fn chain);

/* Leaves: a scalar or n values with their adjoints (zeroed), no reverse work. */
int     ad_leaf(double v, ad_var *out);
int     ad_leaves(size_t n, const double *v, double **val, double **adj);

/* Scalar nodes with precomputed partials; the building blocks of most scalar
** functions.  f = value, dx (dy) = partial derivative in x (y). */
int ad_unary(ad_var x, double f, double dx, ad_var *out);
int ad_binary(ad_var x, ad_var y, double f, double dx, double dy, ad_var *out);
/* f of n operands with partials d[i] (copied). */
int ad_nary(int n, const ad_var *x, double f, const double *d, ad_var *out);

/* Operands and partials: one scalar node whose reverse step adds
** adj * partial[i] into each operand's adjoint array.  Used by densities and
** reductions, so a vectorized operation records exactly one node. */
typedef struct ad_operand {
  double *adj;                  /* operand adjoints (n of them) */
  const double *partial;        /* n partials, arena memory */
  size_t n;
} ad_operand;
int ad_operands_node(int nops, const ad_operand *ops, double f, ad_var *out);
/* Its reverse step: adj[i] += a * partial[i], operand after operand (also
** run by a plan's call that made no node, src/plan). */
void ad_operands_add(int nops, const ad_operand *ops, double a);

#endif
