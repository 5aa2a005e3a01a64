/*
 * An SQLite extension that gives a quiet process's free heap memory back to the system: quarry_trim() calls
 * glibc's malloc_trim(0).
 *
 * A load leaves most of a process's memory in glibc's heap, not in V8's: buffers of answers, SQLite's results
 * and temporary trees, the query processes' messages. Freed, they stay mapped in the heap (glibc returns only
 * its top, and raises the size it maps apart after a large block is freed), so that after a benchmark's load a
 * serving process held 100-110 MB where it idles at 60 and a query process 70 where it idles at 25. Node has no
 * call for it and SQLite's loadable extensions are the native code Quarry already builds; elsewhere than glibc
 * the function does nothing.
 */
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT1

/* Any C library header says which library it is (glibc defines __GLIBC__ in its own). */
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

/* quarry_trim(): 1 when memory was given back, 0 otherwise. */
static void trim(sqlite3_context *context, int argc, sqlite3_value **argv) {
  (void)argc;
  (void)argv;
#ifdef __GLIBC__
  sqlite3_result_int(context, malloc_trim(0));
#else
  sqlite3_result_int(context, 0);
#endif
}

int sqlite3_memorytrim_init(sqlite3 *db, char **error, const sqlite3_api_routines *api) {
  (void)error;
  SQLITE_EXTENSION_INIT2(api);
  return sqlite3_create_function(db, "quarry_trim", 0, SQLITE_UTF8 | SQLITE_DIRECTONLY, 0, trim, 0, 0);
}
