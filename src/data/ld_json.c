/*
** ld_json.c -- CmdStan JSON data files (ld.h).
**
** A hand-written reader for the one shape CmdStan accepts: a top-level
** object whose members are numbers, the strings that spell infinities and
** NaN, or rectangular nested arrays of them.  Each member becomes one
** ld_value with its values in the order they are written (row-major).
**
** Choices worth knowing:
**  - Numbers follow JSON's grammar strictly (no leading '+', no leading
**    zeros, digits on both sides of '.').  Besides the strings "Infinity",
**    "-Infinity", "+Infinity", "inf", "-inf", "+inf", "NaN", "nan" (any
**    case), the bare tokens Infinity, -Infinity and NaN that some writers
**    emit are accepted.
**  - A number too large for a double becomes an infinity and one too small
**    becomes zero (or a subnormal), as CmdStan's reader does.
**  - Conversion is correctly rounded and does not depend on the C locale.
**    The common case (digits that make an integer of at most 2^53, scaled
**    by at most 10^22: one exact multiplication or division) is done here;
**    anything else goes to strtod as digits and an exponent with no
**    decimal point, a form every locale reads the same way.
**  - Arrays nest at most LD_MAXDIM deep; an empty document (only white
**    space) is an empty set of variables.
**  - Errors give the line and column (in characters) of the offending text.
*/
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ld.h"

typedef struct jp {
  const char *s, *p, *end;
  const char *path;        /* file name for messages, or NULL */
  char *err;
  size_t errsize;
  const char *name;        /* the member being read, for messages */
  /* the member's value as it is collected */
  double *val;
  size_t n, cap;
  int all_int;
  int ndim;                /* -1 until the first number or empty array fixes it */
  int dims[LD_MAXDIM];
  unsigned char known[LD_MAXDIM];  /* dims[d] fixed by the first array at depth d */
} jp;

#ifdef __GNUC__
__attribute__((format(AD_PRINTF_FMT, 3, 4)))
#endif
static int fail(jp *J, const char *at, const char *fmt, ...) {
  int line = 1, col = 1;
  for (const char *q = J->s; q < at && q < J->end; q++) {
    if (*q == '\n') { line++; col = 1; }
    else if (((unsigned char)*q & 0xC0) != 0x80) col++;   /* count UTF-8 characters */
  }
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (J->path) snprintf(J->err, J->errsize, "%s:%d:%d: %s", J->path, line, col, msg);
  else snprintf(J->err, J->errsize, "JSON data, line %d, column %d: %s", line, col, msg);
  return AD_EINVALID;
}

static int nomem(jp *J) {
  snprintf(J->err, J->errsize, "out of memory reading JSON data%s%s", J->path ? " from " : "",
           J->path ? J->path : "");
  return AD_EMEMORY;
}

static void skip_ws(jp *J) {
  const char *p = J->p;
  while (p < J->end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
  J->p = p;
}

static int at_end(const jp *J) { return J->p >= J->end; }

/* What the text at p looks like, for "expected X, found Y" messages. */
static const char *describe(const jp *J, const char *p, char *buf, size_t size) {
  if (p >= J->end) return "the end of the data";
  unsigned char c = (unsigned char)*p;
  if (c >= 0x20 && c < 0x7f) snprintf(buf, size, "'%c'", c);
  else snprintf(buf, size, "the byte 0x%02X", c);
  return buf;
}

/* White space, then the ':' after a member's key; else an error that shows
** the key (`what` "key", at most prec bytes of it), and the key freed. */
static int colon_after(jp *J, char *key, const char *what, int prec) {
  char b[32];
  skip_ws(J);
  if (!at_end(J) && *J->p == ':') {
    J->p++;
    return AD_OK;
  }
  int rc = fail(J, J->p, "expected ':' after the %s \"%.*s\", found %s", what, prec, key, describe(J, J->p, b, sizeof b));
  free(key);
  return rc;
}

static int push(jp *J, double x) {
  if (J->n == J->cap) {
    size_t cap = J->cap ? 2 * J->cap : 16;
    double *nv = realloc(J->val, cap * sizeof *nv);
    if (!nv) return nomem(J);
    J->val = nv;
    J->cap = cap;
  }
  J->val[J->n++] = x;
  return AD_OK;
}

/* ---- strings ---- */

static int hex4(const char *p, unsigned *out) {
  unsigned v = 0;
  for (int i = 0; i < 4; i++) {
    char c = p[i];
    v <<= 4;
    if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
    else return -1;
  }
  *out = v;
  return 0;
}

static size_t put_utf8(char *o, unsigned cp) {
  if (cp < 0x80) { o[0] = (char)cp; return 1; }
  if (cp < 0x800) { o[0] = (char)(0xC0 | cp >> 6); o[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
  if (cp < 0x10000) {
    o[0] = (char)(0xE0 | cp >> 12); o[1] = (char)(0x80 | (cp >> 6 & 0x3F));
    o[2] = (char)(0x80 | (cp & 0x3F)); return 3;
  }
  o[0] = (char)(0xF0 | cp >> 18); o[1] = (char)(0x80 | (cp >> 12 & 0x3F));
  o[2] = (char)(0x80 | (cp >> 6 & 0x3F)); o[3] = (char)(0x80 | (cp & 0x3F));
  return 4;
}

/* The string at J->p (on its opening quote), decoded into a malloc'd
** NUL-terminated buffer.  Decoded text is never longer than the source. */
static int read_string(jp *J, char **out, size_t *outlen) {
  const char *open = J->p, *p = J->p + 1;
  const char *q = p;
  while (q < J->end && *q != '"') q += (*q == '\\' && q + 1 < J->end) ? 2 : 1;
  if (q >= J->end) return fail(J, open, "unterminated string");
  char *buf = malloc((size_t)(q - p) + 1), *o = buf;
  if (!buf) return nomem(J);
  while (*p != '"') {
    unsigned char c = (unsigned char)*p;
    if (c < 0x20) {
      free(buf);
      return fail(J, p, "control character (0x%02X) inside a string; write it as an escape", c);
    }
    if (c != '\\') { *o++ = (char)c; p++; continue; }
    const char *esc = p++;
    switch (*p++) {
    case '"': *o++ = '"'; break;
    case '\\': *o++ = '\\'; break;
    case '/': *o++ = '/'; break;
    case 'b': *o++ = '\b'; break;
    case 'f': *o++ = '\f'; break;
    case 'n': *o++ = '\n'; break;
    case 'r': *o++ = '\r'; break;
    case 't': *o++ = '\t'; break;
    case 'u': {
      unsigned cp, lo;
      if (q - p < 4 || hex4(p, &cp)) { free(buf); return fail(J, esc, "invalid \\u escape in a string"); }
      p += 4;
      if (cp >= 0xD800 && cp < 0xDC00) {   /* a surrogate pair spells one code point */
        if (q - p < 6 || p[0] != '\\' || p[1] != 'u' || hex4(p + 2, &lo) || lo < 0xDC00 || lo > 0xDFFF) {
          free(buf);
          return fail(J, esc, "unpaired surrogate in a \\u escape");
        }
        p += 6;
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
      } else if (cp >= 0xDC00 && cp < 0xE000) {
        free(buf);
        return fail(J, esc, "unpaired surrogate in a \\u escape");
      }
      if (cp == 0) { free(buf); return fail(J, esc, "\\u0000 (NUL) is not allowed in a string"); }
      o += put_utf8(o, cp);
      break;
    }
    default:
      free(buf);
      return fail(J, esc, "invalid escape '\\%c' in a string", p[-1]);
    }
  }
  *o = '\0';
  J->p = q + 1;
  *out = buf;
  *outlen = (size_t)(o - buf);
  return AD_OK;
}

/* ---- numbers ---- */

static int delimiter(const jp *J, const char *p) {
  return p >= J->end || *p == ',' || *p == ']' || *p == '}' || *p == ' ' || *p == '\n' ||
         *p == '\r' || *p == '\t';
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* Exact powers of ten: a double holds 10^k exactly for k <= 22. */
static const double pow10_exact[] = {
  1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
  1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
};

/* strtod on digits and an exponent only: no decimal point, so no locale.
** [start, end) is the mantissa as written ("123.45"); exp10 its exponent. */
static double slow_convert(const char *start, const char *end, long exp10, int *nomemory) {
  char small[160], *buf = small;
  size_t need = (size_t)(end - start) + 32;
  *nomemory = 0;
  if (need > sizeof small && !(buf = malloc(need))) { *nomemory = 1; return 0; }
  char *o = buf;
  int seen = 0, frac = 0;
  for (const char *q = start; q < end; q++) {
    if (*q == '.') { frac = 1; continue; }
    if (frac) exp10--;
    if (*q == '0' && !seen) continue;      /* leading zeros carry no information */
    seen = 1;
    *o++ = *q;
  }
  if (!seen) *o++ = '0';
  snprintf(o, 24, "e%ld", exp10);
  double x = strtod(buf, NULL);
  if (buf != small) free(buf);
  return x;
}

/* A number at J->p.  m keeps the first 19 significant digits and the value
** is m * 10^(scale + exponent); a nonzero digit past the 19th is dropped
** from m, which sends the number to slow_convert. */
static int read_number(jp *J, double *out, int *is_int) {
  const char *start = J->p, *p = J->p;
  int neg = 0;
  if (*p == '-') { neg = 1; p++; }
  if (p >= J->end || !is_digit(*p)) return fail(J, start, "invalid number");
  const char *digits = p, *mant_end;
  uint64_t m = 0;
  int nsig = 0, dropped = 0;
  long scale = 0;                          /* value = m * 10^scale (before the exponent) */
  if (*p == '0') {
    p++;
    if (p < J->end && is_digit(*p)) return fail(J, start, "invalid number (leading zero)");
  } else {
    for (; p < J->end && is_digit(*p); p++) {
      if (nsig < 19) { m = m * 10 + (uint64_t)(*p - '0'); nsig++; }
      else { scale++; if (*p != '0') dropped = 1; }
    }
  }
  int integer = 1;
  if (p < J->end && *p == '.') {
    integer = 0;
    p++;
    if (p >= J->end || !is_digit(*p)) return fail(J, start, "invalid number (no digit after '.')");
    for (; p < J->end && is_digit(*p); p++) {
      if (nsig < 19) {
        m = m * 10 + (uint64_t)(*p - '0');
        if (m) nsig++;                     /* leading zeros are not significant */
        scale--;
      } else if (*p != '0') dropped = 1;
    }
  }
  mant_end = p;
  long e = 0;
  if (p < J->end && (*p == 'e' || *p == 'E')) {
    integer = 0;
    p++;
    int eneg = 0;
    if (p < J->end && (*p == '+' || *p == '-')) eneg = *p++ == '-';
    if (p >= J->end || !is_digit(*p)) return fail(J, start, "invalid number (no digit in the exponent)");
    for (; p < J->end && is_digit(*p); p++)
      if (e < 100000000) e = e * 10 + (*p - '0');   /* beyond this it is 0 or inf anyway */
    if (eneg) e = -e;
  }
  if (!delimiter(J, p)) {
    const char *q = p;
    while (q < J->end && !delimiter(J, q)) q++;
    return fail(J, start, "invalid number '%.*s'", (int)(q - start > 40 ? 40 : q - start), start);
  }
  long s = scale + e;
  double x;
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
  const int exact_arith = 1;
#else
  const int exact_arith = 0;               /* extended precision would round twice */
#endif
  if (m == 0 && !dropped) x = 0.0;
  else if (exact_arith && !dropped && m <= (UINT64_C(1) << 53) && s >= -22 && s <= 22)
    x = s < 0 ? (double)m / pow10_exact[-s] : (double)m * pow10_exact[s];
  else {
    int nomemory;
    x = slow_convert(digits, mant_end, e, &nomemory);
    if (nomemory) return nomem(J);
  }
  *out = neg ? -x : x;
  *is_int = integer;
  J->p = p;
  return AD_OK;
}

/* ---- values ---- */

/* "inf", "infinity" or "nan" in any case, with an optional sign. */
static int special_value(const char *t, size_t len, double *x) {
  int neg = 0;
  if (len && (*t == '-' || *t == '+')) { neg = *t == '-'; t++; len--; }
  char low[9];
  if (len < 3 || len > 8) return 0;
  for (size_t i = 0; i < len; i++) low[i] = (char)((t[i] >= 'A' && t[i] <= 'Z') ? t[i] - 'A' + 'a' : t[i]);
  low[len] = '\0';
  if (strcmp(low, "inf") == 0 || strcmp(low, "infinity") == 0) *x = neg ? -INFINITY : INFINITY;
  else if (strcmp(low, "nan") == 0) *x = NAN;
  else return 0;
  return 1;
}

/* A number (or infinity or NaN) sits at depth `level`: all of them must. */
static int leaf_at(jp *J, const char *at, int level) {
  if (J->ndim < 0) J->ndim = level;
  else if (J->ndim != level)
    return fail(J, at, "variable '%s': ragged array: nested less deep here than elsewhere", J->name);
  return AD_OK;
}

static int read_value(jp *J, int level);

static int read_array(jp *J, int level) {
  const char *open = J->p;
  if (level >= LD_MAXDIM)
    return fail(J, open, "variable '%s': arrays nested more than %d deep", J->name, LD_MAXDIM);
  if (J->ndim >= 0 && level >= J->ndim)
    return fail(J, open, "variable '%s': ragged array: nested deeper here than elsewhere", J->name);
  J->p++;
  skip_ws(J);
  long count = 0;
  if (!at_end(J) && *J->p == ']') {
    J->p++;
    /* An empty array is the last dimension: nothing can sit below it. */
    if (J->ndim < 0) J->ndim = level + 1;
    else if (J->ndim != level + 1)
      return fail(J, open, "variable '%s': ragged array: nested less deep here than elsewhere", J->name);
  } else {
    for (;;) {
      if (J->known[level] && count >= J->dims[level])
        return fail(J, J->p, "variable '%s': ragged array: this array has more elements than the "
                    "first one at the same depth (%d)", J->name, J->dims[level]);
      if (count >= INT32_MAX) return fail(J, J->p, "variable '%s': array too long", J->name);
      int rc = read_value(J, level + 1);
      if (rc) return rc;
      count++;
      skip_ws(J);
      if (at_end(J)) return fail(J, open, "unterminated array (the data end before its ']')");
      if (*J->p == ']') { J->p++; break; }
      if (*J->p != ',') {
        char b[32];
        return fail(J, J->p, "expected ',' or ']' after an array element, found %s",
                    describe(J, J->p, b, sizeof b));
      }
      J->p++;
    }
  }
  if (!J->known[level]) {
    J->known[level] = 1;
    J->dims[level] = (int)count;
  } else if (count != J->dims[level]) {
    return fail(J, J->p - 1, "variable '%s': ragged array: this array has %ld element%s, "
                "the first one at the same depth has %d", J->name, count, count == 1 ? "" : "s",
                J->dims[level]);
  }
  return AD_OK;
}

/* A number, or a string or bare word spelling an infinity or NaN, at J->p. */
static int read_scalar(jp *J, double *xp, int *is_intp) {
  const char *at = J->p;
  char b[32];
  char c = *at;
  double x = 0;      /* every branch below sets it or fails; gcc cannot tell */
  int rc, is_int = 0;
  if (c == '"') {
    char *str;
    size_t len;
    if ((rc = read_string(J, &str, &len))) return rc;
    int ok = special_value(str, len, &x);
    if (!ok) rc = fail(J, at, "variable '%s': expected a number, found the string \"%.40s%s\"", J->name,
                       str, len > 40 ? "..." : "");
    free(str);
    if (!ok) return rc;
  } else if (c == '-' || is_digit(c)) {
    if (c == '-' && at + 1 < J->end && (at[1] == 'I' || at[1] == 'N' || at[1] == 'i' || at[1] == 'n'))
      goto word;
    if ((rc = read_number(J, &x, &is_int))) return rc;
  } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '+') {
  word:;
    const char *q = at + 1;
    while (q < J->end && ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z'))) q++;
    size_t len = (size_t)(q - at);
    if (!special_value(at, len, &x)) {
      if ((len == 4 && !memcmp(at, "true", 4)) || (len == 5 && !memcmp(at, "false", 5)) ||
          (len == 4 && !memcmp(at, "null", 4)))
        return fail(J, at, "variable '%s': expected a number, found %.*s", J->name, (int)len, at);
      return fail(J, at, "variable '%s': expected a number, found '%.*s'", J->name,
                  (int)(len > 20 ? 20 : len), at);
    }
    if (!delimiter(J, q)) return fail(J, q, "expected ',' or ']' after a value, found %s", describe(J, q, b, sizeof b));
    J->p = q;
  } else {
    return fail(J, at, "variable '%s': expected a number or an array, found %s", J->name,
                describe(J, at, b, sizeof b));
  }
  *xp = x;
  *is_intp = is_int;
  return AD_OK;
}

static int read_value(jp *J, int level) {
  skip_ws(J);
  const char *at = J->p;
  if (at_end(J)) return fail(J, at, "expected a value for '%s', found the end of the data", J->name);
  char c = *at;
  if (c == '[') return read_array(J, level);
  if (c == '{') return fail(J, at, "variable '%s': an object (a tuple) cannot be an element of an array of numbers", J->name);
  double x;
  int rc, is_int = 0;
  if ((rc = read_scalar(J, &x, &is_int))) return rc;
  if ((rc = leaf_at(J, at, level))) return rc;
  if (!is_int) J->all_int = 0;
  return push(J, x);
}

/* ---- tuples ----
** A member whose value is an object, or an array (of arrays...) of objects,
** is a tuple: CmdStan writes tuple(T1, T2) as {"1": v1, "2": v2} and an
** array of tuples as an array of such objects.  Such a member becomes one
** value per element of the tuple, named as the program's lowering names
** them: "x:1", "x:2", nested "x:2:1"; an array of tuples gives each
** element's value the array's dimensions in front ("a:1" of an array of 3
** tuples has dims {3, ...}).  The value is first read into a small tree. */
typedef struct jtree {
  int kind;                /* 0 number, 1 array, 2 object */
  double x;
  int is_int;
  const char *at;
  struct jtree **kid;
  char **key;              /* objects: the member names */
  int n;
} jtree;

static void jtree_free(jtree *t) {
  if (!t) return;
  for (int i = 0; i < t->n; i++) {
    jtree_free(t->kid[i]);
    if (t->key) free(t->key[i]);
  }
  free(t->kid);
  free(t->key);
  free(t);
}

static int jtree_read(jp *J, jtree **out, int depth) {
  skip_ws(J);
  const char *at = J->p;
  char b[32];
  *out = NULL;
  if (at_end(J)) return fail(J, at, "expected a value for '%s', found the end of the data", J->name);
  if (depth > 64) return fail(J, at, "variable '%s': tuples and arrays nested too deeply", J->name);
  jtree *t = calloc(1, sizeof *t);
  if (!t) return nomem(J);
  t->at = at;
  *out = t;
  char c = *at;
  if (c != '[' && c != '{') return read_scalar(J, &t->x, &t->is_int);
  t->kind = c == '[' ? 1 : 2;
  char close = c == '[' ? ']' : '}';
  J->p++;
  skip_ws(J);
  if (!at_end(J) && *J->p == close) { J->p++; return AD_OK; }
  int cap = 0;
  for (;;) {
    skip_ws(J);
    char *key = NULL;
    if (t->kind == 2) {
      size_t len;
      int rc;
      if (at_end(J) || *J->p != '"')
        return fail(J, J->p, "variable '%s': expected a tuple element's number in double quotes (\"1\", \"2\"...), found %s",
                    J->name, describe(J, J->p, b, sizeof b));
      rc = read_string(J, &key, &len);
      if (rc || (rc = colon_after(J, key, "tuple element", 20))) return rc;
    }
    if (t->n == cap) {
      int nc = cap ? 2 * cap : 4;
      jtree **nk = realloc(t->kid, (size_t)nc * sizeof *nk);
      if (nk) t->kid = nk;
      char **nkey = nk && t->kind == 2 ? realloc(t->key, (size_t)nc * sizeof *nkey) : NULL;
      if (nkey) t->key = nkey;
      if (!nk || (t->kind == 2 && !nkey)) { free(key); return nomem(J); }
      cap = nc;
    }
    if (t->kind == 2) t->key[t->n] = key;
    t->kid[t->n] = NULL;
    t->n++;
    int rc = jtree_read(J, &t->kid[t->n - 1], depth + 1);
    if (rc) return rc;
    skip_ws(J);
    if (at_end(J)) return fail(J, at, "unterminated %s (the data end before its '%c')", t->kind == 1 ? "array" : "object", close);
    if (*J->p == close) { J->p++; return AD_OK; }
    if (*J->p != ',')
      return fail(J, J->p, "expected ',' or '%c' after an element, found %s", close, describe(J, J->p, b, sizeof b));
    J->p++;
  }
}

static int name_add(jp *J, ld_set *s, const char *name, int ndim, const int *dims, double *val, size_t n, int all_int) {
  ld_value v;
  memset(&v, 0, sizeof v);
  size_t len = strlen(name);
  v.name = malloc(len + 1);
  if (!v.name) { free(val); return nomem(J); }
  memcpy(v.name, name, len + 1);
  v.ndim = ndim;
  for (int d = 0; d < ndim; d++) v.dims[d] = dims[d];
  v.val = val;
  v.n = n;
  v.all_int = all_int;
  int rc = ld_set_add(s, v);
  return rc == AD_EMEMORY ? nomem(J) : rc;
}

/* The values of tree t as variable `name`, into s (empty on entry). */
static int jtree_flatten(jp *J, const jtree *t, const char *name, ld_set *s) {
  if (t->kind == 0) {
    double *v = malloc(sizeof *v);
    if (!v) return nomem(J);
    *v = t->x;
    return name_add(J, s, name, 0, NULL, v, 1, t->is_int);
  }
  if (t->kind == 2) {
    for (int i = 0; i < t->n; i++) {
      char *end;
      long k = strtol(t->key[i], &end, 10);
      if (!t->key[i][0] || *end || k < 1 || k > t->n || t->key[i][0] == '0')
        return fail(J, t->kid[i]->at, "variable '%s': an object in the data is a tuple, whose elements are named "
                    "\"1\", \"2\", ... \"%d\"; found \"%.20s\"", name, t->n, t->key[i]);
    }
    for (int k = 1; k <= t->n; k++) {
      const jtree *e = NULL;
      char want[16];
      snprintf(want, sizeof want, "%d", k);
      for (int i = 0; i < t->n; i++) if (!strcmp(t->key[i], want)) e = t->kid[i];
      if (!e)
        return fail(J, t->at, "variable '%s': a tuple's elements are named \"1\", \"2\", ... \"%d\"; "
                    "element \"%d\" is missing", name, t->n, k);
      char sub[512];
      snprintf(sub, sizeof sub, "%s:%d", name, k);
      ld_set part;
      ld_set_init(&part);
      int rc = jtree_flatten(J, e, sub, &part);
      for (int i = 0; i < part.n && !rc; i++) {
        ld_value v = part.v[i];
        part.v[i].name = NULL;
        part.v[i].val = NULL;
        if (ld_set_add(s, v)) rc = nomem(J);
      }
      ld_set_free(&part);
      if (rc) return rc;
    }
    if (t->n == 0) return fail(J, t->at, "variable '%s': an empty object is not a tuple", name);
    return AD_OK;
  }
  /* an array: each element's values, stacked */
  if (t->n == 0) {
    int dims[1] = {0};
    return name_add(J, s, name, 1, dims, NULL, 0, 1);
  }
  ld_set *parts = calloc((size_t)t->n, sizeof *parts);
  if (!parts) return nomem(J);
  int rc = AD_OK;
  for (int i = 0; i < t->n; i++) ld_set_init(&parts[i]);
  for (int i = 0; i < t->n && !rc; i++) rc = jtree_flatten(J, t->kid[i], name, &parts[i]);
  for (int i = 1; i < t->n && !rc; i++) {
    int same = parts[i].n == parts[0].n;
    for (int k = 0; same && k < parts[0].n; k++) {
      const ld_value *a = &parts[0].v[k], *b = &parts[i].v[k];
      same = !strcmp(a->name, b->name) && a->ndim == b->ndim;
      for (int d = 0; same && d < a->ndim; d++) same = a->dims[d] == b->dims[d];
    }
    if (!same) rc = fail(J, t->kid[i]->at, "variable '%s': ragged array: this element differs in shape from the first", name);
  }
  for (int k = 0; k < parts[0].n && !rc; k++) {
    const ld_value *a = &parts[0].v[k];
    if (a->ndim + 1 > LD_MAXDIM) { rc = fail(J, t->at, "variable '%s': arrays nested more than %d deep", name, LD_MAXDIM); break; }
    size_t total = a->n * (size_t)t->n;
    double *val = total ? malloc(total * sizeof *val) : NULL;
    if (total && !val) { rc = nomem(J); break; }
    int all_int = 1;
    for (int i = 0; i < t->n; i++) {
      if (a->n) memcpy(val + (size_t)i * a->n, parts[i].v[k].val, a->n * sizeof *val);
      all_int = all_int && parts[i].v[k].all_int;
    }
    int dims[LD_MAXDIM];
    dims[0] = t->n;
    for (int d = 0; d < a->ndim; d++) dims[d + 1] = a->dims[d];
    rc = name_add(J, s, a->name, a->ndim + 1, dims, val, total, all_int);
  }
  for (int i = 0; i < t->n; i++) ld_set_free(&parts[i]);
  free(parts);
  return rc;
}

/* the member at J->p is a tuple or an array of tuples: '[' ... '{' */
static int is_tuple_value(const jp *J) {
  const char *q = J->p;
  while (q < J->end && (*q == '[' || *q == ' ' || *q == '\n' || *q == '\r' || *q == '\t')) q++;
  return q < J->end && *q == '{';
}

static int read_tuple_member(jp *J, char *name, ld_set *out) {
  jtree *t = NULL;
  J->name = name;
  int rc = jtree_read(J, &t, 0);
  ld_set part;
  ld_set_init(&part);
  if (!rc) rc = jtree_flatten(J, t, name, &part);
  J->name = NULL;
  jtree_free(t);
  for (int i = 0; i < part.n && !rc; i++) {
    if (ld_find(out, part.v[i].name)) { rc = fail(J, J->p, "duplicate variable '%s'", part.v[i].name); break; }
    ld_value v = part.v[i];
    part.v[i].name = NULL;
    part.v[i].val = NULL;
    if (ld_set_add(out, v)) rc = nomem(J);
  }
  ld_set_free(&part);
  free(name);
  return rc;
}

/* ---- the document ---- */

static int read_member(jp *J, ld_set *out) {
  char b[32];
  if (at_end(J) || *J->p != '"')
    return fail(J, J->p, "expected a variable name in double quotes, found %s", describe(J, J->p, b, sizeof b));
  const char *name_at = J->p;
  char *name;
  size_t len;
  int rc = read_string(J, &name, &len);
  if (rc) return rc;
  if (ld_find(out, name)) {
    rc = fail(J, name_at, "duplicate variable '%s'", name);
    free(name);
    return rc;
  }
  if ((rc = colon_after(J, name, "name", INT_MAX))) return rc;
  skip_ws(J);
  if (is_tuple_value(J)) return read_tuple_member(J, name, out);
  J->name = name;
  J->n = 0;
  J->all_int = 1;
  J->ndim = -1;
  memset(J->known, 0, sizeof J->known);
  rc = read_value(J, 0);
  J->name = NULL;
  if (rc) { free(name); return rc; }
  ld_value v;
  memset(&v, 0, sizeof v);
  v.name = name;
  v.ndim = J->ndim;
  for (int d = 0; d < v.ndim; d++) v.dims[d] = J->dims[d];
  v.n = J->n;
  v.all_int = J->all_int;
  /* Hand the buffer over, trimmed; the next member starts a new one. */
  if (J->n) {                      /* hand the buffer over, trimmed */
    double *t = realloc(J->val, J->n * sizeof(double));
    v.val = t ? t : J->val;
  } else {
    free(J->val);
  }
  J->val = NULL;
  J->cap = J->n = 0;
  rc = ld_set_add(out, v);
  return rc == AD_EMEMORY ? nomem(J) : rc;
}

static int read_document(jp *J, ld_set *out) {
  char b[32];
  if (J->end - J->p >= 3 && !memcmp(J->p, "\xEF\xBB\xBF", 3)) J->p += 3;   /* UTF-8 byte order mark */
  skip_ws(J);
  if (at_end(J)) return AD_OK;
  if (*J->p != '{')
    return fail(J, J->p, "expected '{' at the start of the data (an object of named values), found %s",
                describe(J, J->p, b, sizeof b));
  const char *open = J->p++;
  skip_ws(J);
  if (!at_end(J) && *J->p == '}') J->p++;
  else {
    for (;;) {
      skip_ws(J);
      int rc = read_member(J, out);
      if (rc) return rc;
      skip_ws(J);
      if (at_end(J)) return fail(J, open, "unterminated object (the data end before its '}')");
      if (*J->p == '}') { J->p++; break; }
      if (*J->p != ',')
        return fail(J, J->p, "expected ',' or '}' after the value of '%s', found %s",
                    out->v[out->n - 1].name, describe(J, J->p, b, sizeof b));
      J->p++;
    }
  }
  skip_ws(J);
  if (!at_end(J)) return fail(J, J->p, "unexpected text after the end of the data");
  return AD_OK;
}

static int read_text(const char *text, size_t len, const char *path, ld_set *out, char *err, size_t errsize) {
  jp J;
  memset(&J, 0, sizeof J);
  J.s = J.p = text;
  J.end = text + len;
  J.path = path;
  J.err = err;
  J.errsize = errsize;
  int n0 = out->n;
  int rc = read_document(&J, out);
  free(J.val);
  if (rc) ld_set_truncate(out, n0);   /* leave the set as it was given */
  return rc;
}

int ld_json_file(const char *path, ld_set *out, char *err, size_t errsize) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(err, errsize, "cannot open data file '%s': %s", path, strerror(errno));
    return AD_EINVALID;
  }
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  for (;;) {
    if (!buf) {
      fclose(f);
      snprintf(err, errsize, "out of memory reading data file '%s'", path);
      return AD_EMEMORY;
    }
    len += fread(buf + len, 1, cap - len, f);
    if (len < cap) break;
    char *nb = realloc(buf, cap *= 2);
    if (!nb) free(buf);
    buf = nb;
  }
  int bad = ferror(f);
  int errnum = errno;
  fclose(f);
  if (bad) {
    free(buf);
    snprintf(err, errsize, "cannot read data file '%s': %s", path, strerror(errnum));
    return AD_EINVALID;
  }
  int rc = read_text(buf, len, path, out, err, errsize);
  free(buf);
  return rc;
}
