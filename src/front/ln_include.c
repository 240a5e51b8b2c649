/*
** ln_include.c -- #include, as stanc resolves it: the line holding the
** directive is replaced by the text of the named file, found in the include
** paths in order, recursively.
**
** The parser then sees one text.  Every line of that text remembers the file
** and the line it came from (ln_where), so a message about code that came
** from an included file names that file and its line, as stanc does.
**
** A directive is '#include' as the first thing on a line (blanks before it
** are dropped), then the file's name, bare, in "quotes" or in <angles>, then
** nothing but blanks or a '//' comment.  Directives inside block comments are
** text of the comment.  A file that includes itself, directly or through
** others, is an error rather than an endless expansion.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ln.h"

#define LN_INCLUDE_DEPTH 64           /* deeper than any real program nests */
#define LN_INCLUDE_MAXFILE (64u << 20) /* a Stan program is not 64 MB */

typedef struct inc_state {
  const char *const *paths;
  int npaths;
  /* the expanded text */
  char *out;
  size_t n, cap;
  /* per expanded line: index into files, and the line there */
  int *lfile, *lline;
  int nlines, lcap;
  char **files;               /* names as the directives wrote them (for messages) */
  char **real;                /* the paths they were read from (for cycles) */
  int nfiles;
  /* the chain of files being expanded, for cycles */
  int stack[LN_INCLUDE_DEPTH];
  int depth;
  char *err;
  size_t errsize;
} inc_state;

static int put(inc_state *S, const char *s, size_t k) {
  if (S->n + k + 1 > S->cap) {
    size_t cap = S->cap ? S->cap : 4096;
    while (S->n + k + 1 > cap) cap *= 2;
    char *o = realloc(S->out, cap);
    if (!o) return -1;
    S->out = o;
    S->cap = cap;
  }
  memcpy(S->out + S->n, s, k);
  S->n += k;
  S->out[S->n] = '\0';
  return 0;
}

static int add_line(inc_state *S, int file, int line) {
  if (S->nlines == S->lcap) {
    int cap = S->lcap ? 2 * S->lcap : 256;
    int *f = realloc(S->lfile, (size_t)cap * sizeof *f);
    if (!f) return -1;
    S->lfile = f;
    int *l = realloc(S->lline, (size_t)cap * sizeof *l);
    if (!l) return -1;
    S->lline = l;
    S->lcap = cap;
  }
  S->lfile[S->nlines] = file;
  S->lline[S->nlines] = line;
  S->nlines++;
  return 0;
}

static char *dup(const char *s) {
  size_t k = strlen(s);
  char *d = malloc(k + 1);
  if (d) memcpy(d, s, k + 1);
  return d;
}

static int add_file(inc_state *S, const char *name, const char *path) {
  char **f = realloc(S->files, (size_t)(S->nfiles + 1) * sizeof *f);
  if (!f) return -1;
  S->files = f;
  char **r = realloc(S->real, (size_t)(S->nfiles + 1) * sizeof *r);
  if (!r) return -1;
  S->real = r;
  f[S->nfiles] = dup(name);
  r[S->nfiles] = dup(path);
  if (!f[S->nfiles] || !r[S->nfiles]) {
    free(f[S->nfiles]);
    free(r[S->nfiles]);
    return -1;
  }
  return S->nfiles++;
}

/* A message about line `line` of `file` whose text is `text` (k bytes). */
static int fail_at(inc_state *S, const char *file, const char *text, size_t k, int line, int col,
                   const char *fmt, const char *name) {
  char msg[1200];
  snprintf(msg, sizeof msg, fmt, name);
  /* ln_diag quotes the line; a stand-in program holds the file's text. */
  ln_program tmp;
  memset(&tmp, 0, sizeof tmp);
  char *src = malloc(k + 1);
  if (src) {
    memcpy(src, text, k);
    src[k] = '\0';
  }
  tmp.filename = (char *)file;
  tmp.source = src;
  tmp.srclen = src ? k : 0;
  ln_diag(&tmp, line, col, "error", S->err, S->errsize, "%s", msg);
  free(src);
  return 1;
}

/* Reads a whole file; NULL when it cannot be opened or read. */
static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, n = 0;
  char *b = malloc(cap);
  while (b) {
    size_t got = fread(b + n, 1, cap - n, f);
    n += got;
    if (n < cap) break;
    if (cap >= LN_INCLUDE_MAXFILE) { free(b); b = NULL; break; }
    char *nb = realloc(b, cap * 2);
    if (!nb) { free(b); b = NULL; break; }
    b = nb;
    cap *= 2;
  }
  int bad = ferror(f);
  fclose(f);
  if (b && bad) { free(b); b = NULL; }
  if (b) *len = n;
  return b;
}

static int is_blank(int c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

static int expand(inc_state *S, int file, const char *text, size_t len);

/* The directive at d (inside line [ls, le) of file), whose name starts after
** "#include".  0 when expanded, 1 on a reported error, -1 out of memory. */
static int directive(inc_state *S, int file, const char *text, size_t len, size_t ls, size_t le,
                     size_t d, int line) {
  const char *fname = S->files[file];
  size_t i = d + 8;
  while (i < le && is_blank((unsigned char)text[i])) i++;
  size_t a = i, b;
  char close = 0;
  if (i < le && (text[i] == '"' || text[i] == '<')) close = text[i] == '"' ? '"' : '>';
  if (close) {
    a = ++i;
    while (i < le && text[i] != close) i++;
    if (i >= le)
      return fail_at(S, fname, text, len, line, (int)(d - ls) + 1,
                     "#include: the file name has no closing %s", close == '"' ? "'\"'" : "'>'");
    b = i++;
  } else {
    while (i < le && !is_blank((unsigned char)text[i])) i++;
    b = i;
  }
  if (b == a)
    return fail_at(S, fname, text, len, line, (int)(d - ls) + 1, "#include needs the name of a file%s", "");
  while (i < le && is_blank((unsigned char)text[i])) i++;
  if (i < le && !(i + 1 < le && text[i] == '/' && text[i + 1] == '/'))
    return fail_at(S, fname, text, len, line, (int)(i - ls) + 1,
                   "unexpected text after the file name of '#include'%s", "");
  char name[1024];
  size_t nl = b - a;
  if (nl >= sizeof name)
    return fail_at(S, fname, text, len, line, (int)(a - ls) + 1, "#include: the file name is too long%s", "");
  memcpy(name, text + a, nl);
  name[nl] = '\0';
  if (memchr(name, '\0', nl))
    return fail_at(S, fname, text, len, line, (int)(a - ls) + 1, "#include: bad file name%s", "");

  /* The first include path that holds the file; an absolute name as it is. */
  char path[4096];
  char *body = NULL;
  size_t blen = 0;
  if (name[0] == '/') {
    snprintf(path, sizeof path, "%s", name);
    body = read_file(path, &blen);
  } else {
    for (int k = 0; k < S->npaths && !body; k++) {
      const char *dir = S->paths[k];
      size_t dl = strlen(dir);
      int sep = dl > 0 && dir[dl - 1] != '/';
      if ((size_t)snprintf(path, sizeof path, "%s%s%s", dir, sep ? "/" : "", name) >= sizeof path) continue;
      body = read_file(path, &blen);
    }
  }
  if (!body) {
    char m[1500];
    if (S->npaths == 0 && name[0] != '/')
      snprintf(m, sizeof m, "could not find include file '%.1000s': no include paths were given "
               "(tapestry_model(include_paths = ) names the folders to search)", name);
    else
      snprintf(m, sizeof m, "could not find include file '%.1000s' in the include paths", name);
    return fail_at(S, fname, text, len, line, (int)(d - ls) + 1, "%s", m);
  }
  for (int k = 0; k < S->depth; k++)
    if (strcmp(S->real[S->stack[k]], path) == 0) {
      free(body);
      return fail_at(S, fname, text, len, line, (int)(d - ls) + 1,
                     "file '%s' includes itself (directly or through other files)", name);
    }
  if (S->depth >= LN_INCLUDE_DEPTH) {
    free(body);
    return fail_at(S, fname, text, len, line, (int)(d - ls) + 1, "#include nested too deeply%s", "");
  }
  int f = add_file(S, name, path);
  if (f < 0) { free(body); return -1; }
  int rc = expand(S, f, body, blen);
  free(body);
  return rc;
}

/* Appends text (the contents of files[file]) with its directives expanded. */
static int expand(inc_state *S, int file, const char *text, size_t len) {
  S->stack[S->depth++] = file;
  int in_block = 0, line = 0, rc = 0;
  size_t ls = 0;
  while (ls < len) {
    size_t le = ls;
    while (le < len && text[le] != '\n') le++;
    line++;
    /* Is this line a directive?  Only outside a block comment. */
    size_t j = ls;
    while (j < le && is_blank((unsigned char)text[j])) j++;
    if (!in_block && le - j >= 8 && memcmp(text + j, "#include", 8) == 0 &&
        (le - j == 8 || is_blank((unsigned char)text[j + 8]) || text[j + 8] == '"' || text[j + 8] == '<')) {
      if ((rc = directive(S, file, text, len, ls, le, j, line))) break;
    } else {
      if (put(S, text + ls, le - ls) || put(S, "\n", 1) || add_line(S, file, line)) { rc = -1; break; }
      /* Track block comments (and strings, where '/' '*' is text). */
      int in_str = 0;
      for (size_t k = ls; k < le; k++) {
        char c = text[k];
        if (in_block) {
          if (c == '*' && k + 1 < le && text[k + 1] == '/') { in_block = 0; k++; }
        } else if (in_str) {
          if (c == '"') in_str = 0;
        } else if (c == '"') {
          in_str = 1;
        } else if (c == '/' && k + 1 < le && text[k + 1] == '/') {
          break;
        } else if (c == '/' && k + 1 < le && text[k + 1] == '*') {
          in_block = 1;
          k++;
        }
      }
    }
    ls = le + 1;
  }
  S->depth--;
  return rc;
}

int ln_has_include(const char *src, size_t len) {
  for (size_t i = 0; i + 8 <= len; i++)
    if (src[i] == '#' && memcmp(src + i, "#include", 8) == 0) return 1;
  return 0;
}

int ln_include_expand(const char *filename, const char *src, size_t len,
                      const char *const *paths, int npaths, ln_srcmap *map,
                      char **out, size_t *outlen, char *err, size_t errsize) {
  inc_state S = {
    .paths = paths,
    .npaths = npaths,
    .err = err,
    .errsize = errsize,
  };
  memset(map, 0, sizeof *map);
  *out = NULL;
  *outlen = 0;
  const char *main = filename ? filename : "string";
  int rc = add_file(&S, main, main) < 0 ? -1 : expand(&S, 0, src, len);
  for (int i = 0; i < S.nfiles; i++) free(S.real[i]);
  free(S.real);
  if (rc == 0 && !S.out && put(&S, "", 0)) rc = -1;
  map->files = S.files;
  map->nfiles = S.nfiles;
  map->file = S.lfile;
  map->line = S.lline;
  map->nlines = S.nlines;
  if (rc != 0) {
    if (rc < 0 && err && errsize) snprintf(err, errsize, "out of memory while reading included files");
    free(S.out);
    ln_srcmap_free(map);
    return rc < 0 ? -1 : 1;
  }
  *out = S.out;
  *outlen = S.n;
  return 0;
}

void ln_srcmap_free(ln_srcmap *m) {
  if (!m) return;
  for (int i = 0; i < m->nfiles; i++) free(m->files[i]);
  free(m->files);
  free(m->file);
  free(m->line);
  memset(m, 0, sizeof *m);
}

const char *ln_where(const ln_program *p, int line, int *fline) {
  const char *main = p && p->filename ? p->filename : "string";
  if (!p || !p->map.nlines || line < 1) { *fline = line; return main; }
  if (line > p->map.nlines) {
    /* past the last line (the end of input): the last line's file */
    int l = p->map.nlines - 1;
    *fline = p->map.line[l] + (line - p->map.nlines);
    return p->map.files[p->map.file[l]];
  }
  *fline = p->map.line[line - 1];
  return p->map.files[p->map.file[line - 1]];
}
