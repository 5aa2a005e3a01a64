/*
 * An SQLite extension that stops a statement run in the serving thread once it has run past its time.
 *
 * better-sqlite3 runs a statement to its end in the calling thread and offers no way to stop it, and SQLite's
 * progress callback is compiled out of its build. sqlite3_interrupt() is the one stop SQLite documents as safe
 * from another thread, so a watcher thread calls it when the armed statement's deadline passes. The serving
 * thread runs one statement at a time, so one watcher and one armed statement serve every connection of the
 * process.
 *
 * The watcher looks when the armed statement's deadline comes, and while statements keep being armed it looks
 * again one budget after a look that found none armed (the next statement's deadline is at least that far):
 * arming wakes it only when the new deadline comes before its next look (the first arm after a pause, or a
 * shorter budget than the last), because waking a thread costs more than a quick statement on a virtual
 * machine: looking every 2 ms instead cost the watcher 9-17 µs of CPU per never-asked posted query at one
 * client, against about 6 now. After LINGER without an arm it sleeps until the next one.
 */
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT1

#include <pthread.h>
#include <stdint.h>
#include <time.h>

#define SLICE_NS 2000000LL    /* how often a statement past its deadline is interrupted, and the shortest wait */
#define LINGER_NS 200000000LL /* how long the watcher keeps looking after the last arm before it sleeps */
#define ASLEEP INT64_MAX      /* the watcher's next look: none until an arm wakes it */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake;
static pthread_once_t started = PTHREAD_ONCE_INIT;
static int start_failed = 0;
static sqlite3 *armed_db = 0;
static int64_t deadline_ns = 0;
static int64_t last_arm_ns = 0;
static int64_t budget_ns = 0;
static int64_t next_look_ns = ASLEEP;

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static struct timespec at(int64_t ns) {
  struct timespec t;
  t.tv_sec = ns / 1000000000LL;
  t.tv_nsec = ns % 1000000000LL;
  return t;
}

static void *watch(void *unused) {
  (void)unused;
  pthread_mutex_lock(&lock);
  for (;;) {
    int64_t now = now_ns();
    /*
     * Again every SLICE until the statement is disarmed: an interrupt that comes while no statement of the
     * connection runs (the serving thread was taken off its core between the arm and the statement's first
     * step) is forgotten when the statement starts, and the statement would run to its end.
     */
    if (armed_db != 0 && now >= deadline_ns) sqlite3_interrupt(armed_db);
    if (armed_db != 0)
      next_look_ns = deadline_ns > now ? deadline_ns : now + SLICE_NS;
    else if (now - last_arm_ns > LINGER_NS)
      next_look_ns = ASLEEP;
    else
      next_look_ns = now + (budget_ns > SLICE_NS ? budget_ns : SLICE_NS);
    if (next_look_ns == ASLEEP) {
      pthread_cond_wait(&wake, &lock);
    } else {
      struct timespec t = at(next_look_ns);
      pthread_cond_timedwait(&wake, &lock, &t);
    }
  }
  return 0;
}

static void start(void) {
  pthread_condattr_t attr;
  pthread_t thread;
  pthread_attr_t thread_attr;
  if (pthread_condattr_init(&attr) != 0 || pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) != 0 ||
      pthread_cond_init(&wake, &attr) != 0) {
    start_failed = 1;
    return;
  }
  pthread_attr_init(&thread_attr);
  pthread_attr_setdetachstate(&thread_attr, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&thread_attr, 64 * 1024);
  if (pthread_create(&thread, &thread_attr, watch, 0) != 0) start_failed = 1;
  pthread_attr_destroy(&thread_attr);
}

/* quarry_arm(ms): the next statement of this connection is stopped ms milliseconds from now. */
static void arm(sqlite3_context *context, int argc, sqlite3_value **argv) {
  (void)argc;
  int64_t ms = sqlite3_value_int64(argv[0]);
  int64_t now = now_ns();
  pthread_mutex_lock(&lock);
  armed_db = sqlite3_context_db_handle(context);
  budget_ns = ms * 1000000LL;
  deadline_ns = now + budget_ns;
  last_arm_ns = now;
  if (deadline_ns < next_look_ns) pthread_cond_signal(&wake);
  pthread_mutex_unlock(&lock);
  sqlite3_result_null(context);
}

/* quarry_disarm(): the armed statement ended; until then, one past its deadline is interrupted at every look. */
static void disarm(sqlite3_context *context, int argc, sqlite3_value **argv) {
  (void)argc;
  (void)argv;
  pthread_mutex_lock(&lock);
  armed_db = 0;
  pthread_mutex_unlock(&lock);
  sqlite3_result_null(context);
}

int sqlite3_statementdeadline_init(sqlite3 *db, char **error, const sqlite3_api_routines *api) {
  SQLITE_EXTENSION_INIT2(api);
  pthread_once(&started, start);
  if (start_failed) {
    *error = sqlite3_mprintf("the statement watcher thread could not start");
    return SQLITE_ERROR;
  }
  int flags = SQLITE_UTF8 | SQLITE_DIRECTONLY;
  int rc = sqlite3_create_function(db, "quarry_arm", 1, flags, 0, arm, 0, 0);
  if (rc == SQLITE_OK) rc = sqlite3_create_function(db, "quarry_disarm", 0, flags, 0, disarm, 0, 0);
  return rc;
}
