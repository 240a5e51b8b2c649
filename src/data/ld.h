/*
** ld.h -- data as given by the user, before it meets the program.
**
** Data arrive as an R list (src/r/r_data.c converts it) or as a CmdStan JSON
** file (ld_json.c reads it).  Both become an ld_set: named values with their
** dimensions, in one neutral layout, so that checking them against the
** program's declarations (ld_bind.c) is written once.
**
** Layout: a value with dims d[0..ndim-1] holds prod(d) numbers in row-major
** order (the last index fastest), which is JSON's nesting order: a matrix
** [[1,2],[3,4]] has dims {2,2} and values 1,2,3,4.  Nothing here calls R.
*/
#ifndef LD_H
#define LD_H

#include <stddef.h>
#include "../math/tm.h"

#define LD_MAXDIM (TM_MAXARR + 2)

typedef struct ld_value {
  char *name;
  int ndim;                /* 0 for a scalar */
  int dims[LD_MAXDIM];
  size_t n;                /* number of values, prod(dims) */
  double *val;             /* n values, row-major; ints are stored exactly as doubles */
  int all_int;             /* every value was written as an integer (JSON) or came from an R integer/logical */
} ld_value;

typedef struct ld_set {
  ld_value *v;
  int n, cap;
} ld_set;

void            ld_set_init(ld_set *s);
void            ld_set_free(ld_set *s);
/* Frees the values from index n on: a reader that fails part way leaves the
** set as it was given by truncating it to its size at the start. */
void            ld_set_truncate(ld_set *s, int n);
/* Adds a value (takes ownership of name and val, which must be malloc'd). */
int             ld_set_add(ld_set *s, ld_value v);
const ld_value *ld_find(const ld_set *s, const char *name);

/* Reads a CmdStan JSON data (or inits) file: an object whose members are
** numbers, the strings "Infinity", "-Infinity", "inf", "-inf", "NaN", or
** (nested, rectangular) arrays of them.  AD_OK, or AD_EINVALID with a message
** naming the problem, the path, and its line and column in err. */
int ld_json_file(const char *path, ld_set *out, char *err, size_t errsize);

/* Converts the given value of variable `name` to the declared shape.
** shape: base TM_INT..TM_MATRIX, narr, dim[], rows, cols as evaluated from
** the declaration (a vector of n: rows = n, cols = 1; row_vector: 1 x n).
** decl_text is the declaration's type for messages ("array[3] vector[2]").
** On success *out has the declared shape, its storage from ad_alloc (the
** active stack's arena), matrices column-major, arrays leading index first
** (tm.h's layout).  Ints must be integer-valued and within int's range.
** An R scalar may stand for a container of one element and a container of
** one element for a scalar.  On failure AD_EINVALID and a message:
**   variable 'y': declared array[3] vector[2], given dimensions [3, 4]
*/
int ld_bind_value(const ld_value *given, const char *name, const char *decl_text,
                  const tm_v *shape, tm_v *out, char *err, size_t errsize);

/* Checks every element of v against lower and upper (either may be NULL; a
** scalar bound applies to all elements, a container bound elementwise):
**   variable 'y': y[3] is -1, but must be greater than or equal to 0
** AD_OK or AD_EINVALID with the message. */
int ld_check_bounds(const char *name, const tm_v *v, const tm_v *lower, const tm_v *upper,
                    char *err, size_t errsize);

#endif
