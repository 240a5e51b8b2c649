/*
** pl_ops.h -- the plan's instructions: one line per opcode, naming what
** each operand field of its pl_ins holds, how loops and maps run it, and
** its name in $plan().  An X-macro list (no include guard): a reader
** defines PL_OP(op, o, oa, a, aa, b, ba, c, ca, x, n, lanes, maps, name),
** includes this file and undefines PL_OP; pl_int.h makes the opcodes, the
** role table (pl_op_role) and the other columns from it.  The passes
** (pl_compact.c's renumbering and reads, pl_reroll.c's comparisons and
** order check, the lanes' and map lanes' choice of instructions, the loop
** report) read these columns rather than knowing each opcode; only what an
** instruction computes is written per opcode, in pl_step.h (instructions
** on V, A and P alone) or pl_replay.c (calls, maps, profiles, loops).
**
** Operand roles (PL_R_*: pl_int.h), by field:
**   _     unused (PL_NONE or 0)
**   V     a V cell read                 VO   a V cell written
**   VN    V cells a .. a+n read         VON  V cells o .. o+n written
**   VG    V cells a + offs[k] read, offs = ptrs[x] (size_t[n])
**   VOS   V cells o + offs[k] written (ptrs[x]; PL_NONE: o .. o+n)
**   AO    the output's A cell, read back          AON  oa .. oa+n, read back
**   AOS   the output's A cells at offsets (as VOS), handed on and zeroed back
**   AF    an A cell added to back when flags has the field's bit (aa 1, ba 2, ca 4)
**   A1    an A cell added to back, always
**   AN    A cells aa .. aa+n added to back    AG   aa + offs[k] (as VG)
**   AS    A cells aa + k added to back (PL_NONE: none)
**   P1, P2, P3, PN   P cells x .. x+1, +2, +3, +n written forward, read back
**   PF    P cells x (flags 1) and x+1 (flags 2)
**   PE    P cells x .. x + nargs of the pl_elem
**   PO    P cells the pointed object lays out (maps, reductions, map_rect)
**   OFFS  ptrs[x]: the offsets of VG/VOS/AG/AOS (PL_NONE: none)
**   CELLS ptrs[x]: uint32_t V cells idx[0 .. n), then A cells
**   FN    ptrs[]: a function's definition (the same in every iteration)
**   ELEM, PMAP, RSUM, MRECT, PROF, LOOP, TAB   ptrs[]: a pl_elem, pl_pmap,
**         pl_reduce, pl_maprect, pl_prof, pl_loop, uint32_t table
**   CALL  calls[]: a pl_call (its operands and outputs are cells)
**   CNT   a count (n)          IMM  an immediate (a guard's truth, a number)
**   SLOT  a profile block's handle        LEN  a loop body's length
**
** lanes: NO    an operation without a lane (a loop holding it stays unrolled)
**        FWD   runs lane by lane forward; nothing back
**        BOTH  forward and back lane by lane
**        ACC   both, and its adjoint targets (AF, A1) may sum in a register
**              over the lane: its reverse is A[t_k] += A[oa] * P[x + k]
**              (ADD: A[oa]; SUB: A[oa], A[oa] * -1.0): pl_lanes.c's REVACC
** maps:  NO, YES, N1 (when n is 1): a parallel_map's element plan made only
**        of these runs its elements as lanes (pl_maplanes.c)
** name:  what $plan() says a loop body has when it keeps the loop unrolled
**        (NULL: the call's own name, pl_reroll.c's op_name)
**
** The order is the opcodes' numbering (PL_FILL is 1).
*/

/*     op             o    oa   a    aa   b    ba   c    ca   x     n     lanes maps name */
/* V[o .. o+n) = NaN (fresh storage) */
PL_OP(PL_FILL,       VON, _,   _,   _,   _,   _,   _,   _,   _,    CNT,  FWD,  NO,  "fresh storage")
/* V[o] = V[a] */
PL_OP(PL_READ,       VO,  _,   V,   _,   _,   _,   _,   _,   _,    _,    FWD,  YES, "a read")
/* V[o] = V[a] op V[b]; flags 1: a has an adjoint, 2: b */
PL_OP(PL_ADD,        VO,  AO,  V,   AF,  V,   AF,  _,   _,   _,    _,    ACC,  YES, "+")
PL_OP(PL_SUB,        VO,  AO,  V,   AF,  V,   AF,  _,   _,   _,    _,    ACC,  YES, "-")
PL_OP(PL_MUL,        VO,  AO,  V,   AF,  V,   AF,  _,   _,   P2,   _,    ACC,  YES, "*")
PL_OP(PL_DIV,        VO,  AO,  V,   AF,  V,   AF,  _,   _,   P2,   _,    ACC,  YES, "/")
/* V[o+i] = V[a+i]; back: A[aa+i] += A[oa+i] */
PL_OP(PL_COPY,       VON, AON, VN,  AN,  _,   _,   _,   _,   _,    CNT,  BOTH, N1,  "a copy")
/* V[o+k] = V[a+offs[k]]; back: A[aa+offs[k]] += A[oa+k] */
PL_OP(PL_GATHER,     VON, AON, VG,  AG,  _,   _,   _,   _,   OFFS, CNT,  BOTH, NO,  "an indexed read")
/* V[o+off_k] = V[a+k]; back: hand A[oa+off_k] to A[aa+k], zero it */
PL_OP(PL_STORE,      VOS, AOS, VN,  AS,  _,   _,   _,   _,   OFFS, CNT,  BOTH, NO,  "an indexed assignment")
/* V[o+k] = V[idx[k]]; back: A[idx[n+k]] += A[oa+k] (PL_NONE: none) */
PL_OP(PL_PACK,       VON, AON, _,   _,   _,   _,   _,   _,   CELLS, CNT, NO,   NO,  "values put together in a container")
/* V[o] = sum of V[idx[k]], k < n; back: A[idx[n+j]] += A[oa], j < b */
PL_OP(PL_SUM,        VO,  AO,  _,   _,   IMM, _,   _,   _,   CELLS, CNT, NO,   NO,  "sum")
/* a library function called again: calls[x] */
PL_OP(PL_CALL,       _,   _,   _,   _,   _,   _,   _,   _,   CALL, _,    NO,   NO,  NULL)
/* guard: (V[a] op V[b]) == n, op in flags */
PL_OP(PL_GCMP,       _,   _,   V,   _,   V,   _,   _,   _,   _,    IMM,  FWD,  YES, "a comparison")
/* guard: (V[a] != 0) == n */
PL_OP(PL_GTRUTH,     _,   _,   V,   _,   _,   _,   _,   _,   _,    IMM,  FWD,  YES, "a condition")
/* library functions on real scalars, as their kernels compute them (same
   operations, same node), without the call: */
/* V[o] = f(V[a]), P[x] = df: ptrs[b] a tm_unary_def */
PL_OP(PL_UNARY,      VO,  AO,  V,   A1,  FN,  _,   _,   _,   P1,   _,    ACC,  YES, "a unary function")
/* V[o] = f(V[a], V[b]), P[x], P[x+1]: ptrs[n] a tm_binary_def; flags as arith */
PL_OP(PL_BINARY,     VO,  AO,  V,   AF,  V,   AF,  _,   _,   PF,   FN,   ACC,  YES, "a binary function")
/* normal_lpdf(V[a] | V[b], V[c]); flags 1, 2, 4: a, b, c have adjoints;
   8: keep the constant term, 16: keep log(sigma) */
PL_OP(PL_NORMAL,     VO,  AO,  V,   AF,  V,   AF,  V,   AF,  P3,   _,    ACC,  YES, "normal_lpdf")
/* V[o] = log_mix(V[a], V[b], V[c]); flags 1, 2, 4: adjoints; P[x .. x+3) */
PL_OP(PL_LOGMIX,     VO,  AO,  V,   AF,  V,   AF,  V,   AF,  P3,   _,    ACC,  YES, "log_mix")
/* V[o] = log_sum_exp(V[a .. a+n)), P[x .. x+n) its partials */
PL_OP(PL_LSE,        VO,  AO,  VN,  AN,  _,   _,   _,   _,   PN,   CNT,  BOTH, NO,  "log_sum_exp")
/* an elementwise mass (bernoulli_logit, poisson_log...) of scalars: ptrs[n]
   a pl_elem (its argument cells), P[x ..] its partials */
PL_OP(PL_ELEM,       VO,  AO,  _,   _,   _,   _,   _,   _,   PE,   ELEM, BOTH, NO,  "an elementwise mass")
/* parallel_map with eager local gradients: element e < n through the plan
   of one element (ptrs[b], a pl_pmap), V[o+e] its value, P[x + e * ptot ..]
   its partials; back: pp_map.c's pm_chain */
PL_OP(PL_PMAP,       VON, AON, _,   _,   PMAP, _,  _,   _,   PO,   CNT,  NO,   NO,  "parallel_map")
/* reduce_sum(_static): each chunk through a plan of its own (ptrs[b], a
   pl_reduce), V[o] the sum, P[x ..] the partials of x then of the shared
   operands; back: ad_operands_node's sums */
PL_OP(PL_RSUM,       VO,  AO,  _,   _,   RSUM, _,  _,   _,   PO,   _,    NO,   NO,  "reduce_sum")
/* a profile block entered: ptrs[b] a pl_prof, x its handle among nprof;
   back: the entry's node swept */
PL_OP(PL_PROF_ENTER, _,   _,   _,   _,   PROF, _,  _,   _,   SLOT, _,    NO,   NO,  "a profile block")
/* left: the same; the tree's node counts given to the profile */
PL_OP(PL_PROF_EXIT,  _,   _,   _,   _,   PROF, _,  _,   _,   SLOT, _,    NO,   NO,  "a profile block")
/* map_rect: job j through a plan of its own (ptrs[b], a pl_maprect), its
   outputs V[o + off[j] ..] (n in all), their Jacobian rows P[x + k * (np +
   nt) ..]; back: li_maprect.c's mr_chain */
PL_OP(PL_MRECT,      VON, AON, _,   _,   MRECT, _, _,   _,   PO,   CNT,  NO,   NO,  "map_rect")
/* a loop kept as a loop: n iterations of the b instructions after it
   (iteration 0's), run lane by lane (pl_lanes.c); ptrs[x] a pl_loop */
PL_OP(PL_LOOP,       _,   _,   _,   _,   LEN, _,   _,   _,   LOOP, CNT,  NO,   NO,  "a loop")
/* after the body: b its length (the reverse loop meets it first) */
PL_OP(PL_LOOP_END,   _,   _,   _,   _,   LEN, _,   _,   _,   LOOP, CNT,  NO,   NO,  "a loop")
/* before the parts of a loop run in parts (pl_reroll.c): no forward work;
   back, A[aa] += A[tab[k]] for k = n - 1 down to 0, ptrs[x] the uint32_t
   tab: one cell per iteration that added to A[aa], in order */
PL_OP(PL_AMERGE,     _,   _,   _,   A1,  _,   _,   _,   _,   TAB,  CNT,  NO,   NO,  "a merge of sums")
