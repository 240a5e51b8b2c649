/*
** ln_ast.c -- the program's node memory, names of operators, blocks and
** types, and the tree dump.
**
** Every node, string and list of a program lives in one pool of zeroed
** chunks that is freed at once: no node has an owner, so the parser may
** bail out anywhere and ln_program_free still frees everything.
*/
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ln.h"

/* ---- pool ---- */
typedef struct ln_chunk {
  struct ln_chunk *next;
  size_t used, cap;
} ln_chunk;

struct ln_pool {
  ln_chunk *head;
  size_t bytes;
};

#define LN_ALIGN 16u
#define LN_CHUNK_HDR ((sizeof(ln_chunk) + LN_ALIGN - 1) / LN_ALIGN * LN_ALIGN)
#define LN_CHUNK_MIN (64u * 1024u)

void *ln_alloc(ln_program *p, size_t n) {
  if (!p) return NULL;
  if (!p->pool) {
    p->pool = calloc(1, sizeof *p->pool);
    if (!p->pool) return NULL;
  }
  if (n > SIZE_MAX / 4) return NULL;
  n = (n + LN_ALIGN - 1) / LN_ALIGN * LN_ALIGN;
  if (n == 0) n = LN_ALIGN;
  ln_chunk *c = p->pool->head;
  if (!c || c->cap - c->used < n) {
    size_t cap = n > LN_CHUNK_MIN ? n : LN_CHUNK_MIN;
    c = calloc(1, LN_CHUNK_HDR + cap);
    if (!c) return NULL;
    c->cap = cap;
    c->next = p->pool->head;
    p->pool->head = c;
    p->pool->bytes += cap;
  }
  void *r = (char *)c + LN_CHUNK_HDR + c->used;
  c->used += n;
  return r;
}

int ln_grow(ln_program *p, void *arr, int n, int *cap, size_t elem, int first) {
  if (n < *cap) return AD_OK;
  int c = *cap ? 2 * *cap : first;
  void *q = ln_alloc(p, (size_t)c * elem);
  if (!q) return AD_EMEMORY;
  if (n) memcpy(q, *(void **)arr, (size_t)n * elem);
  *(void **)arr = q;
  *cap = c;
  return AD_OK;
}

char *ln_strdup(ln_program *p, const char *s, size_t n) {
  if (n == SIZE_MAX) return NULL;
  char *r = ln_alloc(p, n + 1);
  if (!r) return NULL;
  if (n) memcpy(r, s, n);
  r[n] = '\0';
  return r;
}

void ln_program_free(ln_program *p) {
  if (!p) return;
  if (p->pool) {
    ln_chunk *c = p->pool->head;
    while (c) {
      ln_chunk *next = c->next;
      free(c);
      c = next;
    }
    free(p->pool);
  }
  free(p->filename);
  free(p->source);
  ln_srcmap_free(&p->map);
  free(p->warnings);
  free(p);
}

/* ---- names ---- */
const char *ln_op_text(int op) {
  static const char *t[] = {
    "", "+", "-", "*", "/", "%/%", "%", "\\", ".*", "./", "^", ".^",
    "==", "!=", "<", "<=", ">", ">=", "&&", "||", "-", "!", "+", "'"
  };
  return op >= 0 && op < (int)(sizeof t / sizeof t[0]) ? t[op] : "?";
}

const char *ln_block_name(int blk) {
  static const char *t[] = {
    "functions", "data", "transformed data", "parameters",
    "transformed parameters", "model", "generated quantities"
  };
  return blk >= 0 && blk < LN_NBLOCKS ? t[blk] : "?";
}

const char *ln_base_name(int base) {
  switch (base) {
  case TM_INT: return "int";
  case TM_REAL: return "real";
  case TM_VECTOR: return "vector";
  case TM_ROW_VECTOR: return "row_vector";
  case TM_MATRIX: return "matrix";
  case TM_COMPLEX: return "complex";
  case TM_CVECTOR: return "complex_vector";
  case TM_CROW_VECTOR: return "complex_row_vector";
  case TM_CMATRIX: return "complex_matrix";
  case LN_VOID: return "void";
  case LN_STRING: return "string";
  case LN_FUNCREF: return "function";
  case LN_TUPLE: return "tuple";
  default: return NULL;
  }
}

/* The dump shows an error type as such, so a test can spot one. */
static const char *base_name(int base) {
  const char *n = ln_base_name(base);
  return n ? n : base == LN_ERRTYPE ? "(error)" : "?";
}

char *ln_type_text(ln_type t, char *buf, size_t size) {
  if (!buf || size == 0) return buf;
  if (t.narr == 0) {
    snprintf(buf, size, "%s", base_name(t.base));
    return buf;
  }
  char commas[TM_MAXARR + 1];
  int k = t.narr > TM_MAXARR ? TM_MAXARR : t.narr;
  for (int i = 0; i < k - 1; i++) commas[i] = ',';
  commas[k - 1] = '\0';
  snprintf(buf, size, "array[%s] %s", commas, base_name(t.base));
  return buf;
}

/* ---- dump ---- */
void ln_text_put(ln_text *b, const char *s, size_t n) {
  if (b->oom) return;
  if (b->n + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 1024;
    while (cap < b->n + n + 1) cap *= 2;
    char *r = realloc(b->s, cap);
    if (!r) { b->oom = 1; return; }
    b->s = r; b->cap = cap;
  }
  memcpy(b->s + b->n, s, n);
  b->n += n;
  b->s[b->n] = '\0';
}

void ln_text_puts(ln_text *b, const char *s) { ln_text_put(b, s, strlen(s)); }

void ln_text_printf(ln_text *b, const char *fmt, ...) {
  char tmp[512];
  size_t size = b->piece && b->piece < sizeof tmp ? b->piece : sizeof tmp;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, size, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  ln_text_put(b, tmp, (size_t)n < size ? (size_t)n : size - 1);
}

/* A string literal, quoted, with bytes outside printable ASCII escaped. */
static void put_quoted(ln_text *b, const char *s) {
  ln_text_puts(b, "\"");
  for (; s && *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') ln_text_printf(b, "\\%c", c);
    else if (c >= 0x20 && c < 0x7f) ln_text_put(b, (const char *)&c, 1);
    else ln_text_printf(b, "\\x%02X", c);
  }
  ln_text_puts(b, "\"");
}

static void dump_type(ln_text *b, ln_type t) {
  char tb[64];
  ln_type_text(t, tb, sizeof tb);
  if (t.narr) put_quoted(b, tb);
  else ln_text_puts(b, tb);
}

static void dump_expr(ln_text *b, const ln_expr *e);

static void dump_opt(ln_text *b, const ln_expr *e) {
  if (e) dump_expr(b, e);
  else ln_text_puts(b, "_");
}

static void dump_args(ln_text *b, ln_expr *const *args, int n) {
  for (int i = 0; i < n; i++) { ln_text_puts(b, " "); dump_expr(b, args[i]); }
}

static void dump_expr(ln_text *b, const ln_expr *e) {
  if (!e) { ln_text_puts(b, "_"); return; }
  switch (e->kind) {
  case LE_INT: ln_text_printf(b, "(int %d)", e->ival); break;
  case LE_REAL: ln_text_puts(b, "(real "); ln_text_puts(b, e->name ? e->name : "?"); ln_text_puts(b, ")"); break;
  case LE_STRING: ln_text_puts(b, "(string "); put_quoted(b, e->name); ln_text_puts(b, ")"); break;
  case LE_VAR: case LE_FUNCREF: ln_text_printf(b, "(var %s)", e->name); break;
  case LE_CALL:
    ln_text_printf(b, "(call %s", e->name);
    for (int i = 0; i < e->nargs; i++) {
      ln_text_puts(b, " ");
      dump_expr(b, e->args[i]);
      if (i == 0 && e->bar) ln_text_puts(b, " |");
    }
    ln_text_puts(b, ")");
    break;
  case LE_BINOP:
    ln_text_printf(b, "(binop %s ", ln_op_text(e->op));
    dump_expr(b, e->args[0]); ln_text_puts(b, " "); dump_expr(b, e->args[1]);
    ln_text_puts(b, ")");
    break;
  case LE_UNOP:
    ln_text_printf(b, "(%s ", e->op == LN_OP_TRANSPOSE ? "transpose" : "unop");
    if (e->op != LN_OP_TRANSPOSE) ln_text_printf(b, "%s ", ln_op_text(e->op));
    dump_expr(b, e->args[0]);
    ln_text_puts(b, ")");
    break;
  case LE_COND:
    ln_text_puts(b, "(cond ");
    dump_expr(b, e->args[0]); ln_text_puts(b, " ");
    dump_expr(b, e->args[1]); ln_text_puts(b, " ");
    dump_expr(b, e->args[2]); ln_text_puts(b, ")");
    break;
  case LE_INDEX:
    ln_text_puts(b, "(index ");
    dump_expr(b, e->args[0]);
    for (int i = 0; i < e->nidx; i++) {
      const ln_index *x = &e->idx[i];
      switch (x->kind) {
      case LI_SINGLE: ln_text_puts(b, " (single "); dump_expr(b, x->a); break;
      case LI_MULTI: ln_text_puts(b, " (multi "); dump_expr(b, x->a); break;
      case LI_ALL: ln_text_puts(b, " (all"); break;
      case LI_RANGE: ln_text_puts(b, " (range "); dump_expr(b, x->a); ln_text_puts(b, " "); dump_expr(b, x->b); break;
      case LI_FROM: ln_text_puts(b, " (from "); dump_expr(b, x->a); break;
      case LI_TO: ln_text_puts(b, " (to "); dump_expr(b, x->b ? x->b : x->a); break;
      default: ln_text_puts(b, " (?"); break;
      }
      ln_text_puts(b, ")");
    }
    ln_text_puts(b, ")");
    break;
  case LE_ARRAY: ln_text_puts(b, "(array"); dump_args(b, e->args, e->nargs); ln_text_puts(b, ")"); break;
  case LE_ROWVEC: ln_text_puts(b, "(rowvec"); dump_args(b, e->args, e->nargs); ln_text_puts(b, ")"); break;
  case LE_TARGET: ln_text_puts(b, "(target)"); break;
  case LE_TUPLE: ln_text_puts(b, "(tuple"); dump_args(b, e->args, e->nargs); ln_text_puts(b, ")"); break;
  case LE_TPROJ: ln_text_puts(b, "(proj "); dump_expr(b, e->args[0]); ln_text_printf(b, " %d)", e->ival); break;
  default: ln_text_printf(b, "(? %d)", e->kind); break;
  }
}

static void indent(ln_text *b, int depth) {
  ln_text_puts(b, "\n");
  for (int i = 0; i < depth; i++) ln_text_puts(b, "  ");
}

static void dump_decl(ln_text *b, const ln_decl *d, int is_arg) {
  ln_text_puts(b, is_arg ? "(arg " : "(decl ");
  if (is_arg && d->type.data_only) ln_text_puts(b, "data ");
  dump_type(b, d->type);
  ln_text_printf(b, " %s", d->name ? d->name : "?");
  if (is_arg) {
    if (d->tuple) {
      ln_text_puts(b, " (elements");
      for (int i = 0; i < d->tuple->n; i++) { ln_text_puts(b, " "); dump_decl(b, d->tuple->elem[i], 1); }
      ln_text_puts(b, ")");
    }
    ln_text_puts(b, ")");
    return;
  }
  if (d->type.narr) {
    ln_text_puts(b, " (dims");
    for (int i = 0; i < d->type.narr && i < TM_MAXARR; i++) { ln_text_puts(b, " "); dump_opt(b, d->dims[i]); }
    ln_text_puts(b, ")");
  }
  if (d->size1) {
    ln_text_puts(b, " (size ");
    dump_expr(b, d->size1);
    if (d->size2) { ln_text_puts(b, " "); dump_expr(b, d->size2); }
    ln_text_puts(b, ")");
  }
  if (d->transform) ln_text_printf(b, " (transform %s)", d->transform);
  if (d->lower) { ln_text_puts(b, " (lower "); dump_expr(b, d->lower); ln_text_puts(b, ")"); }
  if (d->upper) { ln_text_puts(b, " (upper "); dump_expr(b, d->upper); ln_text_puts(b, ")"); }
  if (d->offset) { ln_text_puts(b, " (offset "); dump_expr(b, d->offset); ln_text_puts(b, ")"); }
  if (d->multiplier) { ln_text_puts(b, " (multiplier "); dump_expr(b, d->multiplier); ln_text_puts(b, ")"); }
  if (d->init) { ln_text_puts(b, " (init "); dump_expr(b, d->init); ln_text_puts(b, ")"); }
  if (d->old_syntax) ln_text_puts(b, " old-syntax");
  if (d->tuple) {
    ln_text_puts(b, " (elements");
    for (int i = 0; i < d->tuple->n; i++) { ln_text_puts(b, " "); dump_decl(b, d->tuple->elem[i], 0); }
    ln_text_puts(b, ")");
  }
  ln_text_puts(b, ")");
}

static void dump_stmt(ln_text *b, const ln_stmt *s, int depth);

static void dump_body(ln_text *b, ln_stmt *const *body, int n, int depth) {
  for (int i = 0; i < n; i++) { indent(b, depth); dump_stmt(b, body[i], depth); }
}

/* The end of a statement with a body (a loop, a block, a profile): its
** statements one level deeper, then the closing parenthesis. */
static void dump_body_close(ln_text *b, const ln_stmt *s, int depth) {
  dump_body(b, s->body, s->nbody, depth + 1);
  ln_text_puts(b, ")");
}

static void dump_stmt(ln_text *b, const ln_stmt *s, int depth) {
  if (!s) { ln_text_puts(b, "_"); return; }
  switch (s->kind) {
  case LS_DECL: dump_decl(b, s->decl, 0); break;
  case LS_ASSIGN:
    ln_text_printf(b, "(assign %s= ", s->op ? ln_op_text(s->op) : "");
    dump_expr(b, s->lhs); ln_text_puts(b, " "); dump_expr(b, s->e); ln_text_puts(b, ")");
    break;
  case LS_TILDE:
    ln_text_puts(b, "(tilde ");
    dump_expr(b, s->e);
    ln_text_printf(b, " %s", s->name);
    dump_args(b, s->args, s->nargs);
    if (s->trunc) {
      ln_text_puts(b, " (T "); dump_opt(b, s->lo); ln_text_puts(b, " "); dump_opt(b, s->hi); ln_text_puts(b, ")");
    }
    ln_text_puts(b, ")");
    break;
  case LS_TARGET: ln_text_puts(b, "(target+= "); dump_expr(b, s->e); ln_text_puts(b, ")"); break;
  case LS_JACOBIAN: ln_text_puts(b, "(jacobian+= "); dump_expr(b, s->e); ln_text_puts(b, ")"); break;
  case LS_FOR:
    ln_text_printf(b, "(for %s ", s->name);
    dump_expr(b, s->lo); ln_text_puts(b, " "); dump_expr(b, s->hi);
    dump_body_close(b, s, depth);
    break;
  case LS_FOREACH:
    ln_text_printf(b, "(foreach %s ", s->name);
    dump_expr(b, s->e);
    dump_body_close(b, s, depth);
    break;
  case LS_WHILE:
    ln_text_puts(b, "(while ");
    dump_expr(b, s->e);
    dump_body_close(b, s, depth);
    break;
  case LS_IF:
    ln_text_puts(b, "(if ");
    dump_expr(b, s->e);
    dump_body(b, s->body, s->nbody, depth + 1);
    if (s->els) {
      indent(b, depth + 1);
      ln_text_puts(b, "(else");
      indent(b, depth + 2);
      dump_stmt(b, s->els, depth + 2);
      ln_text_puts(b, ")");
    }
    ln_text_puts(b, ")");
    break;
  case LS_BREAK: ln_text_puts(b, "(break)"); break;
  case LS_CONTINUE: ln_text_puts(b, "(continue)"); break;
  case LS_RETURN:
    ln_text_puts(b, "(return");
    if (s->e) { ln_text_puts(b, " "); dump_expr(b, s->e); }
    ln_text_puts(b, ")");
    break;
  case LS_BLOCK:
    ln_text_puts(b, "(block");
    dump_body_close(b, s, depth);
    break;
  case LS_PRINT: case LS_REJECT: case LS_FATAL:
    ln_text_puts(b, s->kind == LS_PRINT ? "(print" : s->kind == LS_REJECT ? "(reject" : "(fatal_error");
    dump_args(b, s->args, s->nargs);
    ln_text_puts(b, ")");
    break;
  case LS_PROFILE:
    ln_text_puts(b, "(profile ");
    put_quoted(b, s->name);
    dump_body_close(b, s, depth);
    break;
  case LS_CALL: ln_text_puts(b, "(call-stmt "); dump_expr(b, s->e); ln_text_puts(b, ")"); break;
  case LS_EMPTY: ln_text_puts(b, "(empty)"); break;
  default: ln_text_printf(b, "(? %d)", s->kind); break;
  }
}

static void dump_func(ln_text *b, const ln_func *f) {
  ln_text_puts(b, "(function ");
  dump_type(b, f->ret);
  if (f->ret_tuple) {
    ln_text_puts(b, " (elements");
    for (int i = 0; i < f->ret_tuple->n; i++) { ln_text_puts(b, " "); dump_decl(b, f->ret_tuple->elem[i], 1); }
    ln_text_puts(b, ")");
  }
  ln_text_printf(b, " %s (", f->name ? f->name : "?");
  for (int i = 0; i < f->nparams; i++) {
    if (i) ln_text_puts(b, " ");
    dump_decl(b, f->params[i], 1);
  }
  ln_text_puts(b, ")");
  if (f->body) {
    indent(b, 3);
    dump_stmt(b, f->body, 3);
  } else {
    ln_text_puts(b, " forward");
  }
  ln_text_puts(b, ")");
}

char *ln_dump(const ln_program *p) {
  ln_text b = { .piece = 256 };
  ln_text_puts(&b, "(program");
  if (p) {
    if (p->block[LN_BLK_FUNCTIONS] || p->nfuncs) {
      ln_text_puts(&b, "\n  (functions");
      for (int i = 0; i < p->nfuncs; i++) { indent(&b, 2); dump_func(&b, p->funcs[i]); }
      ln_text_puts(&b, ")");
    }
    for (int k = LN_BLK_DATA; k < LN_NBLOCKS; k++) {
      const ln_stmt *blk = p->block[k];
      if (!blk) continue;
      char name[32];
      snprintf(name, sizeof name, "%s", ln_block_name(k));
      for (char *c = name; *c; c++) if (*c == ' ') *c = '_';
      ln_text_printf(&b, "\n  (%s", name);
      dump_body(&b, blk->body, blk->nbody, 2);
      ln_text_puts(&b, ")");
    }
  }
  ln_text_puts(&b, ")\n");
  if (b.oom) { free(b.s); return NULL; }
  return b.s;
}
