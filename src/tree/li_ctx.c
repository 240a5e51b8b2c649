/*
** li_ctx.c -- binding data to a program: the data context.
**
** Binding converts and checks each data variable against its declaration,
** runs transformed data once (random numbers from (seed, 0)), evaluates the
** sizes of every parameter, transformed parameter and generated quantity,
** and lays out the unconstrained vector.  Everything it makes lives in the
** context's own arena (a stack used only here), so the context is one
** block of memory that any thread may read and the finalizer frees at once.
*/
#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>
#include "li_int.h"
#include "../math/tm_transform.h"

char *li_decl_text(const ln_decl *d, const tm_v *shape, char *buf, size_t size) {
  size_t k = 0;
  buf[0] = '\0';
  if (shape->narr && k < size) {
    k += (size_t)snprintf(buf + k, size - k, "array[");
    for (int i = 0; i < shape->narr && k < size; i++)
      k += (size_t)snprintf(buf + k, size - k, "%s%d", i ? ", " : "", shape->dim[i]);
    if (k < size) k += (size_t)snprintf(buf + k, size - k, "] ");
  }
  if (k >= size) return buf;
  const char *t = d->transform;
  int structured = t && strcmp(t, "lower") && strcmp(t, "upper") && strcmp(t, "lower_upper") &&
                   strcmp(t, "offset_multiplier");
  const char *name = structured ? t : ln_base_name(shape->base);
  if (structured && !strcmp(t, "sum_to_zero_vector")) name = "sum_to_zero_vector";
  switch (shape->base) {
  case TM_VECTOR: case TM_CVECTOR: snprintf(buf + k, size - k, "%s[%d]", name, shape->rows); break;
  case TM_ROW_VECTOR: case TM_CROW_VECTOR: snprintf(buf + k, size - k, "%s[%d]", name, shape->cols); break;
  case TM_CMATRIX: snprintf(buf + k, size - k, "%s[%d, %d]", name, shape->rows, shape->cols); break;
  case TM_MATRIX:
    /* the square constrained matrices have one size; sum_to_zero_matrix
       and the stochastic matrices two */
    if (structured && shape->rows == shape->cols && strcmp(t, "sum_to_zero_matrix") && !strstr(t, "stochastic"))
      snprintf(buf + k, size - k, "%s[%d]", name, shape->rows);
    else snprintf(buf + k, size - k, "%s[%d, %d]", name, shape->rows, shape->cols);
    break;
  default: snprintf(buf + k, size - k, "%s", name); break;
  }
  return buf;
}

/* The run state every evaluation starts from; globals left to the caller. */
static void run_setup(li_run *r, const li_ctx *c, int ad, tm_rng *rng, li_print *print) {
  memset(r, 0, sizeof *r);
  r->ctx = c;
  r->p = c->p;
  r->ad = ad;
  r->rng = rng;
  r->print = print;
  r->fn_propto = 1;
}

int li_run_init(li_run *r, const li_ctx *c, int ad, tm_rng *rng, li_print *print) {
  run_setup(r, c, ad, rng, print);
  r->prof = pf_current();
  int n = c->p->nglobals;
  r->globals = ad_alloc((size_t)(n ? n : 1) * sizeof(li_slot));
  if (!r->globals) return ad_fail(AD_EMEMORY, "out of memory");
  memcpy(r->globals, c->globals, (size_t)n * sizeof(li_slot));
  return AD_OK;
}

int li_enter_block(li_run *r, int blk) {
  int n = r->p->nlocals[blk];
  r->blk = blk;
  r->locals = ad_alloc((size_t)(n ? n : 1) * sizeof(li_slot));
  if (!r->locals) return ad_fail(AD_EMEMORY, "out of memory");
  memset(r->locals, 0, (size_t)(n ? n : 1) * sizeof(li_slot));
  return AD_OK;
}

static void copy_msg(char *err, size_t errsize, const char *msg) {
  if (err && errsize) snprintf(err, errsize, "%s", msg);
}

/* The data block: each variable found, converted, checked. */
static int bind_data(li_run *r, li_ctx *c, const ld_set *data, char *err, size_t errsize) {
  const ln_stmt *b = c->p->block[LN_BLK_DATA];
  if (!b) return AD_OK;
  r->blk = LN_BLK_DATA;
  for (int i = 0; i < b->nbody; i++) {
    const ln_stmt *s = b->body[i];
    if (s->kind != LS_DECL) continue;
    const ln_decl *d = s->decl;
    li_slot *slot = &c->globals[d->slot];
    tm_v shape;
    char text[160];
    r->line = s->line; r->col = s->col;
    int rc = li_decl_shape(r, d, &shape);
    if (rc) { copy_msg(err, errsize, ad_errmsg()); return rc; }
    li_decl_text(d, &shape, text, sizeof text);
    const ld_value *given = data ? ld_find(data, d->name) : NULL;
    if (!given) {
      if (tm_numel(&shape) == 0 && (rc = li_alloc(&slot->v, &shape, 0)) == AD_OK) { slot->set = 1; continue; }
      const char *colon = strchr(d->name, ':');
      if (colon)   /* an element of a tuple (src/front/lt_tuple.c) */
        snprintf(err, errsize, "variable '%.*s' (a tuple whose element '%s' is declared %s) not found in the data",
                 (int)(colon - d->name), d->name, d->name, text);
      else
        snprintf(err, errsize, "variable '%s' (declared %s) not found in the data", d->name, text);
      return AD_EINVALID;
    }
    if ((rc = ld_bind_value(given, d->name, text, &shape, &slot->v, err, errsize))) return rc;
    slot->set = 1;
    if ((rc = li_check_constraint(r, d, &slot->v))) {
      /* the message without the line: data errors name the variable */
      copy_msg(err, errsize, ad_errmsg());
      return AD_EINVALID;
    }
  }
  return AD_OK;
}

static int top_decls_check(li_run *r, const ln_stmt *b) {
  for (int i = 0; b && i < b->nbody; i++) {
    const ln_stmt *s = b->body[i];
    if (s->kind != LS_DECL || s->decl->scope != LN_SCOPE_GLOBAL) continue;
    r->line = s->line; r->col = s->col;
    r->located = 0;
    int rc = li_check_constraint(r, s->decl, &r->globals[s->decl->slot].v);
    if (rc) return rc;
  }
  return AD_OK;
}
int li_check_block_decls(li_run *r, int blk) { return top_decls_check(r, r->p->block[blk]); }

static int transformed_data(li_run *r, li_ctx *c, char *err, size_t errsize) {
  const ln_stmt *b = c->p->block[LN_BLK_TDATA];
  if (!b) return AD_OK;
  int rc = li_enter_block(r, LN_BLK_TDATA);
  if (!rc) rc = li_exec_block_body(r, b);
  if (!rc) rc = top_decls_check(r, b);
  if (rc) {
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", ad_errmsg());
    snprintf(err, errsize, "error in transformed data: %s", msg);
  }
  return rc;
}

/* Sizes of parameters, transformed parameters and generated quantities
** (data only, so once), and the unconstrained layout. */
static int layout(li_run *r, li_ctx *c, char *err, size_t errsize) {
  static const int blks[3] = {LN_BLK_PARAMS, LN_BLK_TPARAMS, LN_BLK_GQ};
  int nv = 0, rc;
  for (int k = 0; k < 3; k++) {
    const ln_stmt *b = c->p->block[blks[k]];
    for (int i = 0; b && i < b->nbody; i++)
      if (b->body[i]->kind == LS_DECL && b->body[i]->decl->scope == LN_SCOPE_GLOBAL) nv++;
  }
  c->vars = ad_alloc((size_t)(nv ? nv : 1) * sizeof(li_var));
  if (!c->vars) return ad_fail(AD_EMEMORY, "out of memory");
  c->nvars = 0;
  c->nupars = 0;
  for (int k = 0; k < 3; k++) {
    const ln_stmt *b = c->p->block[blks[k]];
    r->blk = blks[k];
    for (int i = 0; b && i < b->nbody; i++) {
      const ln_stmt *s = b->body[i];
      if (s->kind != LS_DECL || s->decl->scope != LN_SCOPE_GLOBAL) continue;
      const ln_decl *d = s->decl;
      li_var *v = &c->vars[c->nvars++];
      r->line = s->line; r->col = s->col;
      if ((rc = li_decl_shape(r, d, &v->shape))) {
        snprintf(err, errsize, "%s", ad_errmsg());
        return rc;
      }
      v->decl = d;
      v->name = d->name;
      v->block = blks[k];
      v->numel = tm_nval(&v->shape);   /* a complex element writes two values */
      v->nfree = 0;
      v->offset = c->nupars;
      if (blks[k] == LN_BLK_PARAMS) {
        const tm_transform *t = tm_transform_find(d->transform ? d->transform : "identity");
        if (!t || tm_transform_size(t, &v->shape, &v->nfree)) {
          snprintf(err, errsize, "parameter '%s': %s", d->name, t ? ad_errmsg() : "unknown constraint");
          return AD_EINVALID;
        }
        c->nupars += v->nfree;
      }
      li_slot *slot = &c->globals[d->slot];
      slot->v = v->shape;
      slot->set = 2;
    }
  }
  return AD_OK;
}

int li_ctx_new(const ln_program *p, const ld_set *data, uint64_t seed, li_ctx **out,
               li_print *print, char *err, size_t errsize) {
  *out = NULL;
  li_ctx *c = calloc(1, sizeof *c);
  if (c) atomic_init(&c->attachment, NULL);
  if (!c) { snprintf(err, errsize, "out of memory"); return AD_EMEMORY; }
  c->p = p;
  c->fn_sum = tm_lookup("sum", NULL);
  c->fn_minus = tm_lookup("minus", NULL);
  c->fn_log_diff_exp = tm_lookup("log_diff_exp", NULL);
  c->fn_add = tm_lookup("add", NULL);
  c->fn_subtract = tm_lookup("subtract", NULL);
  c->fn_multiply = tm_lookup("multiply", NULL);
  c->fn_divide = tm_lookup("divide", NULL);
  if (!(c->store = ad_stack_new())) { free(c); snprintf(err, errsize, "out of memory"); return AD_EMEMORY; }
  ad_stack *saved = ad_active;
  ad_active = c->store;
  int rc = AD_OK;
  int n = p->nglobals;
  c->globals = ad_alloc((size_t)(n ? n : 1) * sizeof(li_slot));
  if (!c->globals) rc = ad_fail(AD_EMEMORY, "out of memory");
  else memset(c->globals, 0, (size_t)(n ? n : 1) * sizeof(li_slot));
  tm_rng rng;
  tm_rng_seed(&rng, seed, 0);
  li_run r;
  if (!rc) {
    /* binding writes the context's own frame */
    run_setup(&r, c, 0, &rng, print);
    r.globals = c->globals;
    if ((rc = bind_data(&r, c, data, err, errsize)) == AD_OK &&
        (rc = transformed_data(&r, c, err, errsize)) == AD_OK)
      rc = layout(&r, c, err, errsize);
  } else {
    snprintf(err, errsize, "out of memory");
  }
  ad_active = saved;
  if (rc) { li_ctx_free(c); return rc; }
  *out = c;
  return AD_OK;
}

int li_ctx_owns(const li_ctx *c, const void *p) {
  return p && c->store && ad_arena_contains(&c->store->arena, p);
}

void *li_ctx_attachment(const li_ctx *c) {
  return atomic_load(&((li_ctx *)c)->attachment);
}

void *li_ctx_attach(const li_ctx *c, void *ptr, void (*release)(void *)) {
  li_ctx *m = (li_ctx *)c;
  void *expected = NULL;
  if (atomic_compare_exchange_strong(&m->attachment, &expected, ptr)) {
    m->release = release;
    return ptr;
  }
  return expected;
}

void li_ctx_free(li_ctx *c) {
  if (!c) return;
  void *a = atomic_load(&c->attachment);
  if (a && c->release) c->release(a);
  li_mpi_free(c->mpi);
  if (c->store) ad_stack_free(c->store);
  free(c);
}

const ln_program *li_ctx_program(const li_ctx *c) { return c->p; }
size_t li_num_upars(const li_ctx *c) { return c->nupars; }
int li_num_vars(const li_ctx *c) { return c->nvars; }
const li_var *li_var_at(const li_ctx *c, int i) { return i >= 0 && i < c->nvars ? &c->vars[i] : NULL; }

size_t li_num_outputs(const li_ctx *c, int tparams, int gqs) {
  size_t n = 0;
  for (int i = 0; i < c->nvars; i++) {
    int b = c->vars[i].block;
    if (b == LN_BLK_PARAMS || (b == LN_BLK_TPARAMS && tparams) || (b == LN_BLK_GQ && gqs)) n += c->vars[i].numel;
  }
  return n;
}
