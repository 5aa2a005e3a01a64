/*
 * An SQLite extension writing a stored UTC datetime as the JSON string of its HTTP date, for the records SQLite
 * writes as JSON (src/query/json-records.ts): quarry_json_http_date('2023-11-02 06:26:33.039875') is
 * '"Thu, 02 Nov 2023 06:26:33 GMT"', NULL is 'null', and any other text is NULL (the answer is then written in
 * JavaScript, which turns such a text into a date first).
 *
 * It takes exactly the texts src/query/datetime.ts cuts its HTTP date from (httpDateOfUtcText, writeDayPart),
 * and writes the same string. The same in SQL took 2.5 ms for the 1,800 dates of the explorer's grid.
 */
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT1

#include <string.h>

static const char *DAYS[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
static const char *MONTHS[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                               "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
/* Sakamoto's month offsets for the day of the week. */
static const int MONTH_SHIFT[] = {0, 3, 2, 5, 0, 3, 5, 1, 4, 6, 2, 4};
/* Offsets that mean UTC, as the stored text may end. */
static const char *UTC_ZONES[] = {"", "Z", "+00:00", "+00", "+0000", "-00:00", "-00"};

/* The number written at t[from, to), or -1 if it is not all digits. */
static int digits(const unsigned char *t, int from, int to) {
  int n = 0;
  for (int i = from; i < to; i++) {
    int d = t[i] - '0';
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

static int days_in_month(int year, int month) {
  static const int DAYS_IN[] = {31, 0, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month != 2) return DAYS_IN[month - 1];
  return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28;
}

static void json_http_date(sqlite3_context *context, int argc, sqlite3_value **argv) {
  (void)argc;
  int type = sqlite3_value_type(argv[0]);
  if (type == SQLITE_NULL) {
    sqlite3_result_text(context, "null", 4, SQLITE_STATIC);
    return;
  }
  if (type != SQLITE_TEXT) return;
  const unsigned char *t = sqlite3_value_text(argv[0]);
  int n = sqlite3_value_bytes(argv[0]);
  if (t == 0 || n < 19 || (t[10] != ' ' && t[10] != 'T') || t[13] != ':' || t[16] != ':') return;
  int hour = digits(t, 11, 13), minute = digits(t, 14, 16), second = digits(t, 17, 19);
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return;
  int end = 19;
  if (t[end] == '.')
    while (++end < n && digits(t, end, end + 1) >= 0) {
    }
  if (end == 20) return;
  int zone = 0;
  int zones = (int)(sizeof(UTC_ZONES) / sizeof(UTC_ZONES[0]));
  while (zone < zones && !((int)strlen(UTC_ZONES[zone]) == n - end && memcmp(UTC_ZONES[zone], t + end, n - end) == 0))
    zone++;
  if (zone == zones) return;
  if (t[4] != '-' || t[7] != '-') return;
  int year = digits(t, 0, 4), month = digits(t, 5, 7), day = digits(t, 8, 10);
  if (year < 1000 || month < 1 || month > 12 || day < 1 || day > days_in_month(year, month)) return;
  int y = month < 3 ? year - 1 : year;
  int weekday = (y + y / 4 - y / 100 + y / 400 + MONTH_SHIFT[month - 1] + day) % 7;
  /* "Thu, 02 Nov 2023 06:26:33 GMT" between quotes: 31 characters. */
  char out[32];
  memcpy(out, "\"", 1);
  memcpy(out + 1, DAYS[weekday], 3);
  memcpy(out + 4, ", ", 2);
  memcpy(out + 6, t + 8, 2);
  out[8] = ' ';
  memcpy(out + 9, MONTHS[month - 1], 3);
  out[12] = ' ';
  memcpy(out + 13, t, 4);
  out[17] = ' ';
  memcpy(out + 18, t + 11, 8);
  memcpy(out + 26, " GMT\"", 5);
  sqlite3_result_text(context, out, 31, SQLITE_TRANSIENT);
}

int sqlite3_httpdate_init(sqlite3 *db, char **error, const sqlite3_api_routines *api) {
  (void)error;
  SQLITE_EXTENSION_INIT2(api);
  int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
  return sqlite3_create_function(db, "quarry_json_http_date", 1, flags, 0, json_http_date, 0, 0);
}
