/*
** fuzz_parse.c -- libFuzzer target: the lexer and parser (and the checker
** when built with -DWITH_CHECK) on arbitrary bytes.
**
** Besides crashes, leaks, undefined behaviour and hangs (caught by the
** sanitizers and libFuzzer's timeout), it checks the parser's contract:
** a failed parse gives a message that starts with the file's name, a
** successful one a program whose dump can be built.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "front/ln.h"
#ifdef WITH_CHECK
#include "ad/ad.h"
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
#ifdef WITH_CHECK
  if (ad_thread_init() != AD_OK || tm_table_init() != AD_OK) __builtin_trap();
#endif
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char err[2048];
  memset(err, 'x', sizeof err);
  ln_program *p = ln_parse("fuzz.stan", (const char *)data, size, err, sizeof err);
  if (!p) {
    /* a message, NUL-terminated, in ln_diag's format */
    if (memchr(err, '\0', sizeof err) == NULL) __builtin_trap();
    if (strncmp(err, "fuzz.stan:", 10) != 0 && strcmp(err, "out of memory") != 0) __builtin_trap();
    return 0;
  }
#ifdef WITH_CHECK
  {
    char cerr[2048];
    cerr[0] = '\0';
    (void)ln_check(p, cerr, sizeof cerr);
  }
#endif
  char *dump = ln_dump(p);
  if (!dump || strncmp(dump, "(program", 8) != 0) __builtin_trap();
  free(dump);
  ln_program_free(p);
  return 0;
}
