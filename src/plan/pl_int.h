/*
** pl_int.h -- the plan's layout, shared by every file of the folder: the
** instruction (pl_ins) and its opcodes with their operand roles (made from
** pl_ops.h's table), the objects instructions point at, and each file's
** entry points.
*/
#ifndef PL_INT_H
#define PL_INT_H

#include <stddef.h>
#include <stdint.h>
#include "pl.h"
#include "../tree/li.h"

#define PL_NONE UINT32_MAX

/* The opcodes, in pl_ops.h's order (PL_FILL is 1). */
enum {
  PL_OP_NONE_,
#define PL_OP(op, o, oa, a, aa, b, ba, c, ca, x, n, lanes, maps, name) op,
#include "pl_ops.h"
#undef PL_OP
  PL_NOPS
};

/* The buffers a plan needs (nv, na, np doubles; ncalls call states; npars
** inputs; nprof profile blocks), or the most of several plans'. */
typedef struct pl_dims { uint32_t nv, na, np, ncalls, npars, nprof; } pl_dims;

typedef struct pl_prof {
  const char *name, *outer;   /* the block's name (the program's string), the profile around it */
  int line, ad;
  size_t chain, nochain;      /* nodes the tree recorded inside, without profiles' own */
  size_t nested;              /* blocks on the tape inside: their entry and exit nodes count too */
} pl_prof;

/* map_rect: job j's plan takes [phi (when autodiff) | theta[j] (when
** autodiff)] as inputs; its results are the job's outputs. */
typedef struct pl_maprect {
  int J;
  uint32_t np, nt;            /* Jacobian columns for phi and theta[j] (0: data) */
  uint32_t phiv, phia;        /* phi's cells */
  uint32_t thv, tha;          /* theta's cells, row j at j * nt */
  const struct pl_plan **subs;/* per job */
  uint32_t *off;              /* job j's outputs: off[j] .. off[j + 1] */
  pl_dims dims;               /* the largest job plan's buffers */
  /* what an MPI run sends (li_mpi.h): the call, its function, and the
     arguments that are not cells (phi and theta when data; x_r, x_i), copied
     into the plan */
  const void *site, *f;
  const li_ctx *ctx;          /* the plan's context (plans live in its cache) */
  tm_v phi, theta, xr, xi;
  uint64_t data_hash;         /* li_mpi_data_hash of xr and xi, once */
} pl_maprect;

/* An operand of a mapped function that differs from element to element or
** carries derivatives: an input of the element's plan. */
typedef struct pl_mapop {
  uint32_t v, a;              /* autodiff: element 0's cells (a: A); data: PL_NONE */
  const double *c;            /* indexed data: element 0's values */
  size_t stride;              /* reals from one element to the next (0: shared) */
  uint32_t m;                 /* reals per element */
  uint32_t in;                /* where among the element plan's inputs */
} pl_mapop;

/* reduce_sum: the chunks' plans take [x's slice (when autodiff) | the shared
** autodiff operands] as inputs, their adjoints starting from init. */
typedef struct pl_reduce {
  int is_static, nchunks;
  uint32_t n, csize, es;      /* elements of x, per chunk, reals per element */
  int grain;                  /* the grainsize, which with the threads gave csize */
  uint32_t xv, xa;            /* x's cells when autodiff (else PL_NONE) */
  int nsh;                    /* shared autodiff operands */
  pl_mapop *sh;               /* their cells and sizes (in: offset among their reals) */
  uint32_t nshr;              /* their reals */
  const struct pl_plan **subs;/* per chunk */
  pl_dims dims;               /* the largest chunk plan's buffers */
} pl_reduce;

typedef struct pl_pmap {
  const struct pl_plan *sub;  /* one element: inputs pv.., result rv */
  int nops;
  pl_mapop *ops;
  uint32_t ptot;              /* partials per element: the autodiff operands' reals */
  const struct pl_maplanes *lanes; /* the elements as lanes (pl_maplanes.c), or NULL */
} pl_pmap;

/* An elementwise mass on scalars (tm_dens_elem.h), as its kernel runs it. */
typedef struct pl_elem {
  const void *def;            /* elem_def */
  const char *fn;             /* its name, for the check */
  int nargs, propto;
  unsigned keep, need;
  tm_v arg[4];                /* shapes; int arguments (constants) point at their value */
  uint32_t v[4], a[4];        /* real arguments' cells */
} pl_elem;

typedef struct pl_ins {
  uint16_t op, flags;
  uint32_t n;
  uint32_t o, oa, a, aa, b, ba, c, ca;
  uint32_t x;                 /* P (arith), ptrs[x] (gather, store, pack, sum), calls[x] */
} pl_ins;

/* The operand fields of an instruction, in order; a loop's body gives each
** of them per iteration as base + t * step, or from a table.  n is a field
** only for PL_ELEM (its pl_elem holds the iteration's cells); for the other
** instructions it is the same in every iteration. */
enum { PL_F_O, PL_F_OA, PL_F_A, PL_F_AA, PL_F_B, PL_F_BA, PL_F_C, PL_F_CA, PL_F_X, PL_F_N, PL_NF };

/* field f of instruction i (PL_F_O .. PL_F_N) */
static inline uint32_t *pl_field(pl_ins *i, int f) {
  static const size_t off[PL_NF] = {
    offsetof(pl_ins, o), offsetof(pl_ins, oa), offsetof(pl_ins, a), offsetof(pl_ins, aa),
    offsetof(pl_ins, b), offsetof(pl_ins, ba), offsetof(pl_ins, c), offsetof(pl_ins, ca),
    offsetof(pl_ins, x), offsetof(pl_ins, n)
  };
  return (uint32_t *)((char *)i + off[f]);
}
static inline uint32_t pl_fieldc(const pl_ins *i, int f) { return *pl_field((pl_ins *)i, f); }

/* What an operand field holds (pl_ops.h's roles). */
enum {
  PL_R__,                                     /* unused */
  PL_R_V, PL_R_VN, PL_R_VG,                   /* V cells read */
  PL_R_VO, PL_R_VON, PL_R_VOS,                /* V cells written */
  PL_R_AO, PL_R_AON, PL_R_AOS,                /* the outputs' A cells */
  PL_R_AF, PL_R_A1, PL_R_AN, PL_R_AG, PL_R_AS,/* A cells added to back */
  PL_R_P1, PL_R_P2, PL_R_P3, PL_R_PN, PL_R_PF, PL_R_PE, PL_R_PO,   /* P cells */
  PL_R_OFFS, PL_R_CELLS, PL_R_FN, PL_R_ELEM, PL_R_PMAP, PL_R_RSUM, PL_R_MRECT,
  PL_R_PROF, PL_R_LOOP, PL_R_TAB,             /* ptrs[] */
  PL_R_CALL,                                  /* calls[] */
  PL_R_CNT, PL_R_IMM, PL_R_SLOT, PL_R_LEN     /* numbers */
};

/* The flag of an instruction that says whether its adjoint target in field
** f (aa, ba, ca: role AF) is added to: 1, 2, 4. */
static inline unsigned pl_flag_bit(int f) { return f == PL_F_AA ? 1u : f == PL_F_BA ? 2u : 4u; }

/* The cells a role names: PL_SP_V, A, P, or none. */
enum { PL_SP_NONE, PL_SP_V, PL_SP_A, PL_SP_P };
static inline int pl_role_space(int role) {
  if (role >= PL_R_V && role <= PL_R_VOS) return PL_SP_V;
  if (role >= PL_R_AO && role <= PL_R_AS) return PL_SP_A;
  if (role >= PL_R_P1 && role <= PL_R_PO) return PL_SP_P;
  return PL_SP_NONE;
}

/* pl_ops.h's columns lanes and maps */
enum { PL_LANES_NO, PL_LANES_FWD, PL_LANES_BOTH, PL_LANES_ACC };
enum { PL_MAPS_NO, PL_MAPS_YES, PL_MAPS_N1 };

/* The role of field f (PL_F_O .. PL_F_N) of opcode op. */
static inline int pl_role(int op, int f) {
  static const unsigned char role[PL_NOPS][PL_NF] = {
    { 0 },
#define PL_OP(op, o, oa, a, aa, b, ba, c, ca, x, n, lanes, maps, name)                            \
    { PL_R_##o, PL_R_##oa, PL_R_##a, PL_R_##aa, PL_R_##b, PL_R_##ba, PL_R_##c, PL_R_##ca, PL_R_##x, \
      PL_R_##n },
#include "pl_ops.h"
#undef PL_OP
  };
  return op > 0 && op < PL_NOPS ? role[op][f] : PL_R__;
}

/* How loops run opcode op (PL_LANES_*). */
static inline int pl_op_lanes(int op) {
  static const unsigned char lanes[PL_NOPS] = {
    PL_LANES_NO,
#define PL_OP(op, o, oa, a, aa, b, ba, c, ca, x, n, lanes, maps, name) PL_LANES_##lanes,
#include "pl_ops.h"
#undef PL_OP
  };
  return op > 0 && op < PL_NOPS ? lanes[op] : PL_LANES_NO;
}

/* Whether a map's elements run instruction i as lanes (pl_maplanes.c). */
static inline int pl_op_maps(const pl_ins *i) {
  static const unsigned char maps[PL_NOPS] = {
    PL_MAPS_NO,
#define PL_OP(op, o, oa, a, aa, b, ba, c, ca, x, n, lanes, maps, name) PL_MAPS_##maps,
#include "pl_ops.h"
#undef PL_OP
  };
  int m = i->op > 0 && i->op < PL_NOPS ? maps[i->op] : PL_MAPS_NO;
  return m == PL_MAPS_YES || (m == PL_MAPS_N1 && i->n == 1);
}

/* What $plan() calls opcode op (NULL: a call, named by its function). */
static inline const char *pl_op_name(int op) {
  static const char *const name[PL_NOPS] = {
    NULL,
#define PL_OP(op, o, oa, a, aa, b, ba, c, ca, x, n, lanes, maps, name) name,
#include "pl_ops.h"
#undef PL_OP
  };
  return op > 0 && op < PL_NOPS ? name[op] : "an operation without a lane";
}

typedef struct pl_lane {
  int64_t step[PL_NF];
  const uint32_t *tab[PL_NF]; /* the field in iteration t is tab[t] (NULL: base + t * step) */
  int tables;                 /* some field has a table */
  unsigned acc;               /* adjoint targets (1: aa, 2: ba, 4: ca) that are one cell in
                                 every iteration and nothing else in the lane touches:
                                 their sums run in a register */
  const struct pl_elemlane *elem; /* a lane of PL_ELEM: its arguments over the lane */
} pl_lane;

/* A lane of PL_ELEM (an elementwise mass in every iteration): the
** arguments over the lane's iterations, so that the checks run once on
** the whole lane and the terms in one tight loop. */
typedef struct pl_elemlane {
  const pl_elem *el;          /* iteration 0's: the function, keep, need, shapes */
  const uint32_t *v[4];       /* real arguments: their V cell in each iteration */
  const uint32_t *a[4];       /* needed arguments: their A cell in each iteration */
  const int *ival[4];         /* int arguments: their value in each iteration */
  uint32_t scratch;           /* P cells: the real arguments gathered, n per argument */
  unsigned acc;               /* bit k: argument k's adjoint is one cell over the lane that no
                                 other argument's is: its sum runs in a register */
} pl_elemlane;

typedef struct pl_loop {
  uint32_t n, len;            /* iterations, body instructions */
  const pl_lane *lane;        /* per body instruction */
} pl_loop;

/* An operand of a call: its shape and where its values are. */
typedef struct pl_arg {
  tm_v shape;                 /* storage pointers NULL */
  uint32_t v, a;              /* cells (PL_NONE: constant / no adjoint) */
  const void *c;              /* constant values (double or int) */
} pl_arg;

enum { PL_K_INVOKE = 1, PL_K_TRANSFORM, PL_K_CHECK, PL_K_HOF };

/* PL_K_HOF's fn: an ODE, algebraic solver or integrate_1d call, run again by
** li_hof_apply (its user function on the tree) */
typedef struct pl_hof {
  const li_ctx *ctx;
  const void *site;           /* the call's ln_expr */
  /* a plan of the user function (NULL: the tree evaluates it): its inputs
     are f's arguments with input[k], in order (nin values); the others were
     constants when it was recorded */
  const struct pl_plan *sub;
  const unsigned char *input;
  int nf;
  uint32_t nin;
} pl_hof;

typedef struct pl_call {
  int kind, propto, nargs;
  const void *fn;             /* tm_fn, tm_transform, ln_decl or pl_hof */
  pl_arg *args;
  int nout;                   /* 0, 1 or 2 (transform: y and the log Jacobian) */
  pl_arg out[2];              /* v == PL_NONE with a guard: the values must equal c */
  unsigned char view[2];      /* the output is a view of cells already there */
  size_t numel[2];
  int has_konst;              /* konst: the call's term of data alone (tm_dens_konst), */
  double konst;               /* computed when recorded, its data being the plan's constants */
  int direct;                 /* PL_D_*: a call the replay runs itself, without the node the
                                 function would make, to the same bits (pl_replay.c) */
  int dx;                     /* PL_D_SCALE: the scalar's argument; PL_D_ADDSUB: 1 to subtract */
} pl_call;

/* pl_call.direct: a density defined as data with a real autodiff result
** (its partials from tm_dens_def_direct); a scalar times a vector, row
** vector or matrix (tm_matrix.c's mul_scale); x + y or x - y of reals with
** a container among them (tm_scalar_kernel.c's addsub). */
enum { PL_D_NONE, PL_D_DENS, PL_D_SCALE, PL_D_ADDSUB };

/* A run of constants copied into V before each replay. */
typedef struct pl_const { uint32_t at, n; const double *src; } pl_const;

typedef struct pl_chunk pl_chunk;

/* Why a loop runs lane by lane or not (pl_reroll.c), for the report of
** $plan() (pl_loop_report). */
enum {
  PL_WHY_LANES,      /* kept as a loop: runs lane by lane */
  PL_WHY_PARTS,      /* kept as loops: its iterations in groups by the branch they take */
  PL_WHY_INSIDE,     /* part of the body of an enclosing loop kept as a loop */
  PL_WHY_INNER,      /* the loops inside it run lane by lane instead (cheaper) */
  PL_WHY_COST,       /* cheaper unrolled (few iterations or a short body) */
  PL_WHY_FEW,        /* fewer than PL_LANES_MIN iterations */
  PL_WHY_DATA,       /* no work on parameters in its body */
  PL_WHY_SHAPE,      /* its iterations do different work (a branch, loops of other lengths) */
  PL_WHY_OP,         /* its body has an operation without a lane (detail names it) */
  PL_WHY_ORDER,      /* an iteration depends on an earlier one (a recurrence, a running sum) */
  PL_WHY_OFF,        /* loops were off when it was recorded (plan_lanes(FALSE)) */
  PL_WHY_NONE        /* no iteration ran */
};

typedef struct pl_loopnote {
  int line, col;
  const char *var;            /* the loop variable (the plan's copy) */
  const char *detail;         /* PL_WHY_OP: the operation (the plan's copy), else NULL */
  int why;                    /* the first run's that was not kept, else PL_WHY_LANES */
  uint32_t runs, lanes;       /* times met in one evaluation; times kept as a loop */
  uint64_t iters;             /* iterations over all runs */
} pl_loopnote;

typedef struct pl_plan {
  pl_ins *ins;
  size_t nins;
  pl_call *calls;
  size_t ncalls;
  pl_const *consts;
  size_t nconsts;
  const void **ptrs;          /* offsets and operand lists (ins.x of GATHER, STORE, PACK, SUM) */
  size_t nptrs;
  uint32_t nv, na, np;
  uint32_t nk;                /* after pl_compact: V[0 .. nk) are the constants kvals */
  const double *kvals;
  uint32_t pv, pa, npars;     /* the parameters' cells */
  uint32_t rv, ra;            /* the log density's cells (ra PL_NONE: constant) */
  uint32_t nres;              /* results (1; a map_rect job's plan: its outputs) */
  uint32_t nprof;             /* profile blocks entered */
  uint32_t nloops;            /* loops kept as loops (PL_LOOP) */
  pl_loopnote *notes;         /* each for statement met, as pl_reroll judged it */
  uint32_t nnotes;
  struct pl_plan **subs;      /* plans of pieces (maps, reductions, map_rect jobs, solvers'
                                 functions), freed with this one */
  size_t nsubs;
  pl_chunk *mem;              /* everything above lives here */
  struct pl_loopseen *seen;   /* as recorded, until pl_prepare: the loops the recorder saw */
  size_t nseen;
} pl_plan;

static inline pl_dims pl_dims_of(const pl_plan *p) {
  pl_dims d = { p->nv, p->na, p->np, (uint32_t)p->ncalls, p->npars, p->nprof };
  return d;
}

/* d grown to cover plan p's buffers too. */
static inline void pl_dims_cover(pl_dims *d, const pl_plan *p) {
  pl_dims e = pl_dims_of(p);
  if (e.nv > d->nv) d->nv = e.nv;
  if (e.na > d->na) d->na = e.na;
  if (e.np > d->np) d->np = e.np;
  if (e.ncalls > d->ncalls) d->ncalls = e.ncalls;
  if (e.npars > d->npars) d->npars = e.npars;
  if (e.nprof > d->nprof) d->nprof = e.nprof;
}

/* pl_mem.c: memory of a plan, chunks that never move (freed with the
** plan); the growth of an array (*arr holds n of *cap elements of elem
** bytes: room for one more, first when empty; AD_OK or AD_EMEMORY). */
void *pl_mem(pl_chunk **head, size_t n);
char *pl_strdup(pl_chunk **head, const char *s);
void  pl_mem_free(pl_chunk *head);
int   pl_grow(void *arr, size_t n, size_t *cap, size_t elem, size_t first);
/* a plan and the plans of its pieces */
void  pl_plan_free(pl_plan *p);

/* A loop as the recorder saw it: iteration k begins at instruction
** iter[k], the last ends at end. */
typedef struct pl_loopseen {
  size_t *iter; uint32_t n; size_t end; int depth;
  int line, col; const char *var;   /* the for statement */
} pl_loopseen;

/* pl_record.c: a recorder is a tracer; a complete trace becomes a plan as
** recorded (its loops in seen), which pl_prepare makes ready to replay. */
typedef struct pl_rec pl_rec;
pl_rec *pl_rec_new(const li_ctx *c);
const li_tracer *pl_rec_tracer(pl_rec *r);
/* The plan as recorded when the trace was complete (the recorder gives it
** up), else NULL with why set. */
pl_plan *pl_rec_take(pl_rec *r, char *why, size_t size);
void pl_rec_free(pl_rec *r);
/* Job j of a map_rect recorded as a plan on its own, outside any
** evaluation's plan (a worker's jobs: pl_mpi.c), as record_maprect records
** rank 0's: map->run(j, phi, theta[j]) under the recorder, phi (np > 0) and
** theta[j] (nt > 0) its inputs when autodiff; *dep whether its result
** depends on them.  NULL when it cannot be recorded; else as recorded. */
pl_plan *pl_record_job(const li_ctx *ctx, const li_map *map, const tm_v *phi, const tm_v *th, int j,
                       size_t np, size_t nt, int *dep);

/* pl_plan.c: a plan as recorded made ready to replay, the plans of its
** pieces first: pl_compact, pl_reroll, then what its maps and reductions
** need from their pieces' plans (map lanes, buffer sizes).  AD_OK or
** AD_EMEMORY (the plan then only fit to be freed). */
int pl_prepare(pl_plan *p);

/* pl_compact.c: drops reads of cells nothing writes again, puts the
** constants first (kvals); the loops' instruction numbers move with the
** instructions.  AD_OK or AD_EMEMORY. */
int pl_compact(pl_plan *p, pl_loopseen *loops, size_t nloops);

/* pl_reroll.c: each loop whose iterations repeat one body, and whose
** iterations run lane by lane with the same bits, becomes a PL_LOOP
** (outer loops first); lanes 0 (plan_lanes(FALSE)): none, the loops only
** noted.  loops sorted by their first instruction.  AD_OK or AD_EMEMORY
** (the plan then unchanged). */
int pl_reroll(pl_plan *p, const pl_loopseen *loops, size_t nloops, int lanes);

/* A map_rect job's plan (pl_replay.c) forward at inputs u, then, when
** wd > 0, backward once per output: out gets its nres values, then a row
** of wd derivatives per output (zeros when it does not depend on the
** inputs).  AD_OK, or the replay's failure (a guard: the caller runs the
** tree). */
int pl_job_run(const pl_plan *s, const double *u, size_t wd, double *out);

/* pl_lanes.c: a PL_LOOP's body, instruction by instruction over its
** iterations; hdr the PL_LOOP. */
int  pl_lanes_fwd(const pl_plan *p, const pl_ins *hdr, double *V, double *P);
void pl_lanes_rev(const pl_plan *p, const pl_ins *hdr, double *A, const double *P);
/* pl_maplanes.c: a PL_PMAP's elements as lanes, chunk by chunk.  build:
** NULL when the element plan has instructions lanes do not run (memory
** from owner's). chunk: elements [c K, (c + 1) K) of the map, K = its chunk
** size, their values to V and partial rows to P as the element plan run
** alone would give them. */
const struct pl_maplanes *pl_maplanes_build(pl_plan *owner, const pl_plan *sub);
uint32_t pl_maplanes_chunks(uint32_t n);
int pl_maplanes_chunk(const pl_pmap *pm, const pl_ins *in, uint32_t chunk, double *V, double *P);
/* the same on body instructions of loop lp's lanes over n iterations (n at
** most the iterations the lanes' cells were laid out for) */
int  pl_lanes_body_fwd(const pl_plan *p, const pl_loop *lp, const pl_ins *body, uint32_t n, double *V, double *P);
void pl_lanes_body_rev(const pl_plan *p, const pl_loop *lp, const pl_ins *body, uint32_t n, double *A, const double *P);

/* pl_replay.c: AD_OK; PL_GUARD when a guard failed; another status when a
** function failed (the tree then says why). */
#define PL_GUARD 100
int pl_replay(const pl_plan *p, const double *upars, double *lp, double *grad);

#endif
